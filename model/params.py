"""Model parameters: instance sizes and the P-... choices where the sources are silent.

Every choice the sources leave open is a named field here with the default of
`requirements.md`; a variant may change it, nothing else decides it silently.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Subject:
    name: str
    tenant: str
    scopes: frozenset[str]


SUBJECTS = (
    # alice owns what she starts and may cancel and respond; bob is the approver; carol only reads;
    # mallory holds every scope, in another tenant; dave, in alice's tenant, may cancel and respond
    # but not read (getRun refuses him, so every task is unreadable to him: ISO-1's missing scope).
    Subject("alice", "acme", frozenset({"runs:read", "runs:cancel", "approvals:respond"})),
    Subject("bob", "acme", frozenset({"runs:read", "approvals:respond"})),
    Subject("carol", "acme", frozenset({"runs:read"})),
    Subject("mallory", "beta", frozenset({"runs:read", "runs:cancel", "approvals:respond"})),
    Subject("dave", "acme", frozenset({"runs:cancel", "approvals:respond"})),
)


@dataclass(frozen=True)
class Params:
    # P-APPROVER: tasks/update by a non-eligible approver: "ack" (empty result) or "error" (-32602).
    p_approver: str = "ack"
    # P-UNAUTHORIZED: a reader without the right to cancel or resolve: "ack" or "error" (-32602).
    p_unauthorized: str = "ack"
    # P-KEYFORM: inputRequests keys are raw interruptIds; tasks/update accepts "raw" or "raw-or-projected".
    p_keyform: str = "raw"
    # P-RETENTION: retention runs "from-terminal" (default) or "from-creation".
    p_retention: str = "from-terminal"
    # P-STDIO-EOF: closing stdio "cancel-open" requests (default) or "nothing".
    p_stdio_eof: str = "cancel-open"
    # P-ELICIT: can the client receive elicitation/create? read from the "creating-request" or "each-get".
    p_elicit: str = "creating-request"
    # P-MINT: opaque length of runs started by an MCP tools/call (22 chars = 128 bits) and of other
    # runs (REST, children): identity.md allows 16, which is the known gap ID-G4.
    mint_tasked_len: int = 22
    mint_other_len: int = 16
    # WIRE-5: core gives -32021, -32020 (400) and -32601 (404) their HTTP status and is silent on the
    # others (-32602, -32603): they are sent with this one status, so an unreadable task's -32602 and
    # a nonexistent one's cannot differ in it.
    http_error_status: int = 200

    # Instance sizes (small by default; every run states them).
    subjects: tuple[Subject, ...] = SUBJECTS
    tenants: tuple[str, ...] = ("acme", "beta")
    clients: tuple[str, ...] = ("C1", "C2", "C3", "C4", "C5")  # alice's, bob's, carol's, mallory's, dave's
    servers: tuple[tuple[str, bool], ...] = (("S1", True), ("S2", False))  # (name, serves Tasks)
    max_requests: int = 12
    max_runs: int = 4
    max_effects: int = 3
    max_time: int = 6
    retention: int = 2        # ticks a run stays readable after its retention starts
    # TTL-1/TTL-4: the finite ttlMs (in ticks from creation) a live run's task advertises, or None: null
    # until the purge time is known (the sources leave the choice open). A host that advertises one
    # keeps the run until it has elapsed.
    ttl_live_ticks: int | None = None
    tick_ms: int = 1000
    # Environment bounds an exhaustive scope tightens (the defaults are the random engine's):
    retry_reserve: int = 4    # requests beyond max_requests that MRTR retries may still use
    # Requests each plain client may send, in place of the shared max_requests (None: shared). With a
    # budget of its own, no client's send takes back another's (`model.footprint.budget`); the
    # reserves then count per client too.
    client_requests: int | None = None
    # Requests beyond max_requests the focus reads may still use (model.clients: a run waiting on an
    # external event, a task near its createdAt + ttlMs, moments that come after the budget is spent).
    focus_reserve: int = 4
    # NTF-4: past max_requests, within retry_reserve (a client answering input, as an MRTR retry does), a
    # run owner's tasks/update answers at once both open input requests of a run that has two (the task
    # then changes twice in one step). Off unless a scope turns it on.
    answer_all: bool = False
    # UPD-1: past max_requests, within retry_reserve (a client sending an answer again, as it retries), a
    # run owner's tasks/update also answers again an interrupt an answer already resolved (the at-most-once
    # race, deep in a behaviour). Off unless a scope turns it on (the Z3 encoding's tasks/update stays
    # within max_requests).
    answer_again: bool = False
    # P-CALL-PARENT: may a tools/call start its run as the child of a live run (neither terminal nor
    # cancelling) of the caller's tenant that it can read, so that the parent's cancelRun cascades to it
    # (NTF-2's "a parent cascade")? The RFC is silent on how a call's run comes to have a parent. Named in
    # the tool's own arguments, `parentRunId`: the parent's taskId (the runId projected, as the wire
    # carries runIds), decoded and looked up as a tasks/* reference is; a parent the caller cannot read,
    # or one no longer live, refuses the call -32602 before any run. No `_meta` key is invented. On in the
    # random engine's instance; the exhaustive scopes turn it off but at NTF-2's coverage scope, and the
    # Z3 encoding's calls name no parent (docs/exhaustive.md).
    call_parents: bool = True
    max_interrupts: int | None = None   # interrupts over all runs (None: max_runs)
    max_pauses: int | None = None       # operator pauses over all runs (None: unbounded)
    max_children: int | None = None     # child runs the host starts, over all runs (None: up to max_runs)
    rest_subjects: tuple[str, ...] | None = None   # Subjects that act over REST (None: every Subject)
    # The answers a REST resolveInterruptByRun gives: tasks/update's (map mcp.tasks), cancel among them
    # (UPD-4's "cancel, by a REST resolve"); a scope may narrow them.
    rest_answers: tuple[str, ...] = ("accept", "decline", "cancel")
    # PRJ-4: the Subjects whose clients declare elicitation bare (`elicitation: {}`, form mode implicitly);
    # carol's declares none, every other client form and url.
    elicitation_bare: tuple[str, ...] = ("mallory",)
    stdio: bool = True        # plain clients also reach each server over stdio (besides streamable HTTP)
    http_disconnects: bool = True   # HTTP connections drop (a request's, a listen stream's); False: never
    # A request other than tools/call (tasks/*, subscriptions/listen, server/discover, a removed
    # method) is received in one step and processed and answered by the host's `respond` in a later
    # one, so a disconnect or cancellation can hit it in between (issue: no atomic answers). True
    # answers it at receipt: the abstraction the Z3 encoding works in, which says so in its bounds;
    # never the default of a check.
    atomic_answers: bool = False

    # The client harness (model.harness), present only in a composed world: each harness client and
    # the Subject it speaks for (bob may read but not cancel: his tasks/cancel is acknowledged with
    # no effect), and the harness's own budgets (its requests do not use `max_requests`).
    harness_clients: tuple[tuple[str, str], ...] = (("H1", "alice"), ("H2", "bob"))
    harness_max_runs: int = 2         # local runs started, over all harness clients
    harness_max_requests: int = 8     # requests the harness sends, over all harness clients
    harness_max_crashes: int = 2      # process crashes, over all harness clients
    harness_max_attempts: int = 3     # tools/call attempts (first call and re-issues) per operation
    # HNS-7: the harness also starts operations that need only a short exchange (a quick lookup or
    # confirmation: no Tasks declared, MRTR covers its missing input). On by default, so HNS-7's short
    # half is judged; False leaves them out (the Z3 harness encoding has no short operation).
    harness_short_ops: bool = True
    # Which of the other operations the harness starts: long work (needs a durable handle, asks
    # server/discover first) and other work (calls at once). Both on by default; an exhaustive scope
    # turns one off to reach a deep branch of the other within its size (scopes.HARNESS_COVERAGE).
    harness_long_ops: bool = True
    harness_other_ops: bool = True
    harness_cancels: bool = True      # the harness's local runs are cancelled (an intent); False: never
    # LIV-2: how the harness may wait on a binding: "either" (its choice at each wait: tasks/get
    # polling or a subscriptions/listen stream, falling back to polling when the stream ends), or
    # "poll" / "listen" alone. The article names both and prefers neither, so the default is "either".
    harness_wait: str = "either"

    def with_(self, **changes) -> "Params":
        return replace(self, **changes)

    def subject(self, name: str) -> Subject:
        return next(s for s in self.subjects if s.name == name)

    def client_subject(self, client: str) -> Subject:
        """Cn speaks for the n-th Subject (C1 alice, ..., C4 mallory), whichever clients a scope keeps;
        a client of another name by its place among the clients."""
        if client in self.clients:
            n = int(client[1:]) - 1 if client[:1] == "C" and client[1:].isdigit() else self.clients.index(client)
            return self.subjects[n % len(self.subjects)]
        return self.subject(dict(self.harness_clients)[client])

    def rest_callers(self) -> tuple[Subject, ...]:
        if self.rest_subjects is None:
            return self.subjects
        return tuple(s for s in self.subjects if s.name in self.rest_subjects)

    def serves_tasks(self, server: str) -> bool:
        return dict(self.servers)[server]

    def sizes(self) -> dict:
        return {k: getattr(self, k) for k in ("max_requests", "max_runs", "max_effects", "max_time", "retention",
                                               "retry_reserve", "max_interrupts", "max_pauses", "max_children")} | {
            "tenants": len(self.tenants), "clients": len(self.clients), "servers": len(self.servers),
            "subjects": len(self.subjects)} | ({"client_requests": self.client_requests}
                                              if self.client_requests is not None else {})


PARAMETER_IDS = {
    "P-APPROVER": "p_approver", "P-UNAUTHORIZED": "p_unauthorized", "P-KEYFORM": "p_keyform",
    "P-RETENTION": "p_retention", "P-STDIO-EOF": "p_stdio_eof", "P-ELICIT": "p_elicit",
    "P-MINT": "mint_tasked_len", "P-CALL-PARENT": "call_parents",
}
