"""What a property reads of the state beyond the step it judges: its visibility to a partial-order
reduction (`verifier.engines.bfs.ample`).

A property's check and premise run on a transition (the state after it, and its step record). Where
they read only the parts of the state that transition's own move read or wrote (its footprint,
`model.footprint`, with the epilogue's) and the property's own memory (`world.facts`), a move
independent of that transition, taken before it, changes nothing the check sees there: the
reduction may reorder such moves around it. `BEYOND` names, per property, the parts it may read
besides: key kinds ("clock", "run", "log", "request", ...) or whole keys (("all", "runs"): a table's
membership). A move writing one of them is visible to the property. A property not named here reads
anything: every move that writes anything is visible to it, and a search checking it is not reduced.

The declarations are claims, held at every transition by `verify` (tests/test_por.py): the check's
actual reads, recorded as the footprints' verify mode records a move's, must lie within the
transition's footprint and the property's declaration.
"""
from __future__ import annotations

RUNS = frozenset({("all", "runs")})

# Property name -> what it reads beyond its transition's footprint (recorded at host-small, held under
# --slow at wider scopes too). Not named: the properties whose checks read every request and run.
BEYOND: dict[str, frozenset] = {
    "task-only-to-declaring-request": frozenset(),
    "undeclared-tasks-method-refused": frozenset(),
    "plain-mount-knows-no-tasks-methods": frozenset(),
    "declaring-call-gets-task": frozenset(),
    "task-durable-when-created": frozenset(),
    "task-id-is-projected-run-id": frozenset(),
    "task-id-not-a-credential": frozenset(),
    "task-methods-authorized-per-subject": frozenset(),
    "listen-omits-unreadable": frozenset(),
    "notification-equals-get": frozenset(),
    "result-type-discipline": frozenset(),
    "flat-create-empty-acks": frozenset(),
    "only-tools-call-tasked": frozenset(),
    "mcp-name-must-match": frozenset(),
    "http-status-agrees": frozenset(),
    "status-projection-total": frozenset(),
    "task-status-follows-diagram": frozenset(),
    "input-only-to-declared-elicitation": frozenset(),
    "ttl-never-ends-run": frozenset(),
    "finished-run-plain-result": frozenset(),
    "short-opaque-task-resolves": frozenset(),
    "replay-reissues-nothing": frozenset(),
    # which runs exist: the run a task reference names is found by its projected id where the rules
    # project ids otherwise than the baseline
    "update-acknowledged-empty": RUNS,
    "responses-resume-never-cancel": RUNS,
    "cancel-acknowledged-as-cancelrun": RUNS,
    "purged-reads-as-not-found": RUNS,
    # the clock, for "until createdAt + ttlMs" at a reader's answer
    "no-purge-before-ttl": RUNS | {"clock"},
    # a run's log: what was resolved before, and how
    "input-requests-match-open-interrupts": frozenset({"log"}),
    "interrupt-resolved-at-most-once": RUNS | {"log"},
    "unopen-or-ineligible-resolves-nothing": RUNS | {"log"},
    "input-content-grants-nothing": frozenset({("all", "interrupts"), "log"}),
    # every listen stream, for the changes it was owed
    "listen-sent-every-change": frozenset({("all", "requests")}),
    # every run, for what a served task or an answer must agree with
    "advertised-iff-served": RUNS | {"run"},
    "undeclared-task-listen-refused": RUNS | {"run"},
    "every-readable-run-is-a-task": RUNS | {"run"},
    # and a run's purge time: from its terminal event, or bounded from now while it is live (read where
    # a TTL is advertised while live: host-ttl)
    "ttl-covers-retention": RUNS | {"run", "log", "clock"},
    "accepted-cancel-ends-cancelled": RUNS | {"run", "log"},
    "get-appends-nothing": RUNS | {"run"},
    # another request's answer and run, for an answer told apart from the unreadable one
    "unreadable-task-indistinguishable": frozenset({"request", "run"}),
    "status-message-content-free": frozenset({("all", "requests"), ("all", "request_states"), "request"}),
}


def declared(name: str) -> bool:
    return name in BEYOND


def local(name: str) -> bool:
    """Declared, and reading beyond its transition no record: at most a table's membership or the clock
    (so that no request's or run's own step is visible to it)."""
    return declared(name) and all(k == "clock" or isinstance(k, tuple) for k in BEYOND[name])


def sees(name: str, writes) -> bool:
    """Does the property read, beyond its transitions' footprints, a part some key of `writes` names?"""
    beyond = BEYOND.get(name)
    if beyond is None:
        return bool(writes)
    return any(k[0] in beyond or k in beyond or k[0] == "*" for k in writes) if beyond else False
