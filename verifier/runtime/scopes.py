"""Scopes: the small, stated instances the exhaustive engine explores completely.

A scope fixes the environment's sizes (tenants and Subjects, clients, servers and their
transports, requests, runs, effects, clock ticks, and for the composed model the harness's
clients, runs, requests, crashes and attempts) as overrides of `model.params.Params`, whether the
client harness is composed in, and the symmetries the fingerprint may use. Every result prints its
scope; every size can be overridden (`--scope host-small,max_requests=3`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from model.params import Params


@dataclass(frozen=True)
class Scope:
    name: str
    doc: str
    sizes: dict = field(default_factory=dict)     # Params fields
    composed: bool = False                        # the client harness composed with the host
    depth: int | None = None                      # a stated bound on behaviour length (None: none)

    def params(self, base: Params | None = None) -> Params:
        return (base or Params()).with_(**self.sizes)

    def symmetry(self, params: Params | None = None) -> tuple[str, ...]:
        """What the fingerprint may treat as interchangeable at these sizes (the scope's own, or a
        world's: a variant's params may change them): the order requests were sent, where two
        requests can be independent. One plain request and its MRTR retry, or the requests of one
        harness operation, always follow one another, and renaming them would merge no state."""
        p = params or self.params()
        independent = p.max_requests >= 2 or (self.composed and (
            p.max_requests >= 1 or len(p.harness_clients) >= 2 or p.harness_max_runs >= 2))
        return ("request-order",) if independent else ()

    def renames(self, symmetry: bool = True, params: Params | None = None) -> bool:
        """Whether the fingerprint renames request ids: the request-order symmetry holds at these
        sizes and is not switched off (`--no-symmetry`)."""
        return symmetry and "request-order" in self.symmetry(params)

    def describe(self) -> dict:
        return {"name": self.name, "composed": self.composed, "depth": self.depth, "symmetry": list(self.symmetry()),
                **{k: _plain(v) for k, v in self.sizes.items()}}


def _plain(v):
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


# The narrowest host: alice alone on S1 over HTTP, one request (and one MRTR retry), one run with one
# interrupt, no REST caller, no pause, effect or clock tick. Complete in seconds.
# The random engine's focus reads add no request beyond max_requests here (`Params.focus_reserve`).
_SMALL = dict(clients=("C1",), servers=(("S1", True),), stdio=False, max_requests=1, retry_reserve=1, max_runs=1,
              max_interrupts=1, max_pauses=0, rest_subjects=(), max_effects=0, max_time=0, retention=1,
              focus_reserve=0, call_parents=False)

SCOPES = {s.name: s for s in (
    Scope("host-small", "alice alone on S1 over HTTP: one request and its MRTR retry, one run, one interrupt; no "
                        "REST caller, pause, effect or clock tick", _SMALL),
    Scope("host-rest", "host-small with the REST side: alice and bob (the approver) cancel and resolve over REST; "
                       "no MRTR retry", dict(_SMALL, retry_reserve=0, rest_subjects=("alice", "bob"))),
    Scope("host-clock", "host-small with two clock ticks and no interrupt: TTL, retention and purge",
          dict(_SMALL, retry_reserve=0, max_interrupts=0, max_time=2)),
    Scope("host-ttl", "TTL-4's home: alice's two plain requests on S1 over HTTP (no HTTP disconnect), no run but "
                      "the calls', no interrupt, one clock tick, and a task TTL of two ticks advertised from creation",
          dict(_SMALL, max_requests=2, retry_reserve=0, max_runs=0, max_interrupts=0, http_disconnects=False,
               max_time=1, ttl_live_ticks=2)),
    Scope("host-pair", "two requests from alice's and mallory's clients (another tenant) on S1 over HTTP, one run, "
                       "one interrupt; behaviours of at most 4 steps",
          dict(_SMALL, clients=("C1", "C4"), max_requests=2, retry_reserve=0), depth=4),
    Scope("host-two-clients", "two requests in flight at once: alice's and bob's (the approver's), one each, on S1 "
                              "over HTTP (no HTTP disconnect), no run but the calls', one interrupt",
          dict(_SMALL, clients=("C1", "C2"), max_requests=2, client_requests=1, retry_reserve=0, max_runs=0,
               http_disconnects=False)),
    Scope("host-wide", "every client (alice, bob, carol, mallory), both servers, stdio, two requests, the REST "
                       "side: the random engine's environment at two requests (behaviours of at most 3 steps)",
          dict(clients=("C1", "C2", "C3", "C4"), max_requests=2, retry_reserve=0, max_runs=1, max_interrupts=1,
               max_pauses=1, max_effects=1, max_time=1, retention=1, focus_reserve=0, call_parents=False),
          depth=3),
    # Two bounded scopes of the coverage plan (below): the interleavings they reach grow past 200,000
    # states when searched completely (issue 30's partial-order reduction), but their forms are
    # generated within the first few steps.
    Scope("host-stdio-pair", "alice's two plain requests on S1, over HTTP or stdio, a run each, no interrupt: "
                             "a request cancelled over stdio while the other owns a run (behaviours of at most 3 "
                             "steps)", dict(_SMALL, stdio=True, max_requests=2, retry_reserve=0, max_interrupts=0,
                                            max_children=0, http_disconnects=False), depth=3),
    Scope("host-two-runs", "host-small with a fork: two runs, an interrupt each, and a tasks/update naming keys of "
                           "both (behaviours of at most 8 steps)",
          dict(_SMALL, max_runs=2, max_interrupts=2, max_children=0, http_disconnects=False, retry_reserve=0),
          depth=8),
    Scope("composed-small", "the host with one harness client (alice's H1) on S1 over HTTP: one local run, two "
                            "harness requests, one crash, one attempt; no interrupt and no plain-client request",
          dict(_SMALL, max_requests=0, retry_reserve=0, max_interrupts=0, harness_clients=(("H1", "alice"),),
               harness_max_runs=1, harness_max_requests=2, harness_max_crashes=1, harness_max_attempts=1),
          composed=True),
)}

DEFAULT_HOST, DEFAULT_COMPOSED = "host-small", "composed-small"
DEFAULTS = (DEFAULT_HOST, DEFAULT_COMPOSED)
# Searched by every check without `--scope` beside host-small, with the properties it judges there, and
# merged with it as a coverage scope's verdicts are (`verifier.engines.bfs.coverage`): two requests in
# flight at once, which host-small (one request and its MRTR retry) never has. Complete; its size and
# what it leaves out in docs/exhaustive.md.
ALSO = ("host-two-clients",)

# Without `--scope`, a host property is judged at host-small and a harness property at
# composed-small, but a property whose premise those scopes never reach (it needs the clock, a
# plain mount, another Subject, a second run or a waiting harness) is judged at its home instead:
# the smallest scope found whose search reaches the premise and completes in seconds (figures in
# docs/exhaustive.md). Requirement id -> (scope spec, what it needs that the default scope lacks).
# Where a premise needs a second run of another kind (a fork, a re-issued call's), the home starts no
# child run: with two runs a child would take that run's place, so its behaviours never reach the premise.
_E2E = ("composed-small,servers=(('S2',False),),max_runs=2,max_children=0,max_effects=2,harness_max_attempts=2,"
        "harness_max_crashes=0")
HOMES = {
    "NEG-4": ("host-small,servers=(('S2',False),)", "a mount that serves no Tasks (S2)"),
    "ID-2": ("host-small,clients=('C1','C4')", "a Subject of another tenant (mallory) sending an issued task id"),
    "TTL-2": ("host-clock", "clock ticks: a TTL that elapses"),
    "TTL-3": ("host-clock", "clock ticks and a purge"),
    # With the baseline's TTL (null while the run is live) the TTL is first told by a read of a
    # terminal task, and a second read would make three requests: past a million states. A TTL
    # advertised from creation (`ttl_live_ticks`, TTL-1's open choice) is told by the call's own
    # CreateTaskResult, so the call and one read reach the premise; two ticks against one tick and
    # a retention of one, so a purge that ignored it would come before it (ttl-beyond-retention's).
    "TTL-4": ("host-ttl", "a task that advertised its TTL, read again around a clock tick: a second request"),
    "RPL-1": ("host-small,max_runs=2,max_children=0", "a fork of a run with a resolved interrupt: a second run"),
    "LIV-2": ("composed-small", "a harness waiting on a task it bound"),
    "E2E-2": (_E2E, "a blocking call on a plain mount that acts, is lost and is re-issued: two runs, an effect each"),
    "E2E-4": (_E2E, "a blocking call on a plain mount whose run acts and completes, its result lost, then re-issued"),
}
# Host-small with one more dimension of the host's environment each. An amendment whose overrides no
# scope of its check's plan exercised (never called, or never answering otherwise) is searched at
# these too (`verifier.engines.bfs.coverage`). Spec -> what it adds; sizes in docs/exhaustive.md.
# Together with the plan they take every action and generate every request form
# (`tests/quality/test_environment.py`). Each is complete but the last two, bounded by depth: they
# judge no liveness property (which needs the whole graph), and their proofs are bounded ones.
COVERAGE = {
    "host-rest,rest_subjects=('alice',)": "alice's REST cancelRun and resolve (a cancelled blocking call's result)",
    "host-small,max_pauses=1": "the operator's pause and resume",
    "host-small,stdio=True": "stdio: notifications/cancelled and EOF",
    "host-small,clients=('C1','C2')": "bob, another Subject of alice's tenant: a task reference to another's run",
    "host-small,clients=('C3','C5')": "carol (read only) and dave (no runs:read) on alice's REST run: a tasks/update "
                                      "without approvals:respond, a tasks/get without runs:read (AUTH-1)",
    "host-small,max_runs=2,max_interrupts=0": "a child run the host starts (no interrupt: within the size)",
    "host-small,retry_reserve=2,http_disconnects=False,answer_again=True": "a second MRTR retry: a requestState "
                                                                           "already spent; a tasks/update answering "
                                                                           "again an interrupt a tasks/update or an "
                                                                           "MRTR retry resolved (UPD-1) (no HTTP "
                                                                           "disconnect: within the size)",
    "host-stdio-pair": "a request cancelled over stdio (notifications/cancelled, EOF) while another owns a run "
                       "(bounded: 3 steps)",
    "host-two-runs": "a tasks/update answering keys of two runs, and answered with another run's key (bounded: 8 "
                     "steps)",
    # OWN-4: a request ended beside a run another caller's or tenant's request owns. With every
    # property of the host, from scratch: 66,356 states and about 13 CPU-s each bounded pair, 62,950
    # states and 18 CPU-s the complete one (docs/exhaustive.md).
    "host-stdio-pair,clients=('C1','C4'),http_disconnects=True": "alice's and mallory's requests (another tenant) "
                                                                 "dropped or cancelled beside a run the other or "
                                                                 "the same caller owns (bounded: 3 steps)",
    "host-stdio-pair,clients=('C1','C2'),http_disconnects=True": "alice's and bob's requests (another caller of "
                                                                 "the tenant) dropped or cancelled beside a run "
                                                                 "the other owns (bounded: 3 steps)",
    "host-two-clients,clients=('C1','C4'),max_interrupts=0": "alice's and mallory's requests, one each: a listen "
                                                             "the host ends beside another tenant's owned run",
    # PRJ-4's, UPD-1's and UPD-4's cases no scope above reaches. With every property of the host, from
    # scratch: 14,447 states and about 3 CPU-s, 8,430 and 2 CPU-s (docs/exhaustive.md).
    "host-small,elicitation_bare=('alice',)": "alice's client declaring a bare `elicitation: {}`, met by tasks/get, "
                                               "notifications/tasks and an MRTR InputRequiredResult (PRJ-4)",
    "host-small,rest_subjects=('alice',),max_runs=0,rest_answers=('accept','decline','cancel')":
        "alice's REST resolve, cancel too (UPD-4), of an interrupt her MRTR retry answered (UPD-1; no REST-created "
        "run: within the size)",
    # NTF-4's case of a task changing twice in one step. With every property of the host, from scratch:
    # 97,566 states and about 20 CPU-s (docs/exhaustive.md).
    "host-small,max_interrupts=2,answer_all=True,http_disconnects=False":
        "two interrupts on one run, and alice's tasks/update answering both at once past the budget, while a "
        "listen stream is open (NTF-4; no HTTP disconnect: within the size)",
    # NTF-2's "by a parent's cascade": a call's run has a parent only under P-CALL-PARENT. With every property
    # of the host, from scratch: 8,343 states and about 2 CPU-s (docs/exhaustive.md).
    "host-small,rest_subjects=('alice',),max_interrupts=0,call_parents=True":
        "alice's call naming her REST-created run its parent (P-CALL-PARENT), that run's cancelRun cascading to "
        "the call's run while a blocking call is open (NTF-2; no interrupt: within the size)",
}
# Composed-small with an interrupt and one kind of harness operation each, for an amendment's
# harness overrides (`harness.` rules) left unexercised: the deep branches of the harness's input
# round trips, which composed-small (no interrupt) never takes.
_HARNESS_INPUT = "composed-small,max_interrupts=1,harness_max_crashes=0,harness_wait='poll',harness_long_ops=False"
HARNESS_COVERAGE = {
    f"{_HARNESS_INPUT},harness_other_ops=False": "a short exchange answered InputRequiredResult: the MRTR retry",
    f"{_HARNESS_INPUT},harness_short_ops=False,harness_max_requests=3,http_disconnects=False,harness_cancels=False":
        "a task read input_required, answered by tasks/update (no disconnect, no cancel: within the size)",
    # HNS-4's cases composed-small cannot reach (no REST-created run: within the size). With every property
    # of the harness, from scratch: 32,706 states and about 7 CPU-s, 8,661 and 2 CPU-s (docs/exhaustive.md).
    "composed-small,max_runs=0,max_time=1,harness_max_crashes=0,harness_wait='poll',harness_long_ops=False,"
    "harness_short_ops=False,harness_max_requests=3,http_disconnects=False":
        "a clock tick and a purge, and three harness requests: a cancel acknowledged, then the fact read or its "
        "TTL elapsed (HNS-4)",
    f"{_HARNESS_INPUT},harness_other_ops=False,max_runs=0,rest_subjects=('alice',),http_disconnects=False":
        "alice's REST resolve of the interrupt a short exchange's MRTR retry then answers: the retry refused "
        "-32602 after a cancel intent (HNS-4)",
}


# A home searched for its own properties alone: its graph is too large to search whole (1.5 million
# states), and its search stops once they are answered (`search.level_done`).
PARTIAL = (_E2E,)


def plan_specs() -> list[str]:
    """Every scope a check without `--scope` searches, each side's default first: host-small, the
    scopes every check searches beside it, the host homes and coverage scopes; then composed-small, the
    composed homes and the harness coverage scopes. Each judges every property of its side (but a
    `PARTIAL` one), so that every case of a property's premise is reached at some scope of the plan."""
    composed = {spec for spec, _ in HOMES.values() if parse(spec).composed}
    host = [DEFAULT_HOST, *ALSO, *(spec for spec, _ in HOMES.values() if spec not in composed), *COVERAGE]
    return list(dict.fromkeys([*host, DEFAULT_COMPOSED, *composed, *HARNESS_COVERAGE]))


def home(ids) -> str | None:
    """The scope spec a property of these requirement ids is judged at by default, if not its side's."""
    return next((HOMES[i][0] for i in ids if i in HOMES), None)


def _split(spec: str) -> list[str]:
    """Split on the commas outside brackets and quotes (`servers=(("S1", True),)` is one override)."""
    out, depth, quote, cur = [], 0, None, []
    for ch in spec:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return out


MAX_SIZE = 1_000_000        # past any scope a search could complete: a larger override is a typo


class ScopeError(ValueError):
    """A scope name or override that does not exist or does not parse."""


def parse(spec: str | None, composed: bool = False) -> Scope:
    """`NAME` or `NAME,field=value,...` (values as Python literals); None: the default scope."""
    import ast
    if not spec:
        return SCOPES[DEFAULT_COMPOSED if composed else DEFAULT_HOST]
    name, *overrides = [x.strip() for x in _split(spec)]
    if "" in overrides:
        raise ScopeError(f"{spec!r}: an empty override (a comma with nothing after it)")
    if name not in SCOPES:
        raise ScopeError(f"unknown scope {name!r} (known: {', '.join(SCOPES)})")
    scope = SCOPES[name]
    known = {f.name: f for f in fields(Params)}
    sizes = dict(scope.sizes)
    for item in overrides:
        key, eq, text = item.partition("=")
        if not eq or key not in known:
            raise ScopeError(f"scope override {item!r}: expected field=value with a field of Params")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ScopeError(f"scope override {item!r}: {text!r} is not a literal") from None
        default = getattr(Params(), key)
        if default is not None and value is not None and not isinstance(value, type(default)):
            raise ScopeError(f"scope override {item!r}: {key} takes a {type(default).__name__}")
        if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= MAX_SIZE:
            raise ScopeError(f"scope override {item!r}: a size is a whole number from 0 to {MAX_SIZE:,}")
        sizes[key] = value
    return replace(scope, name=spec.replace(" ", ""), sizes=sizes)
