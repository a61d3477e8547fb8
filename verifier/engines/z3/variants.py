"""The variants the Z3 encoding supports, and the rule-flag table that describes them to it.

A variant tells the encoding which rules it changes through `z3_flags`, a dict keyed by the rule
names of `model.rules.Rules` (docs/z3.md, "the rule-flag contract"). A built-in amendment of
`model.variants` that does not carry `z3_flags` is described here by name (`Z3_RULE_TABLE`); where
no built-in of that name exists yet, `REFERENCE` holds a reference implementation written with the
public amendment API, so that every row the encoding supports can be checked now. The cross-check
(random traces of each variant accepted by its encoding) and the replay of every counterexample
catch a table entry that does not match the variant's code.
"""
from __future__ import annotations

from model.amend import Amendment
from model.lifecycle import TERMINAL
from model.rules import MCP_REQUEST_CANCELLED

# variant name -> the flags of its HarnessRules overrides (verifier.engines.z3.harness.HARNESS_BASELINE_FLAGS).
HARNESS_RULE_TABLE: dict[str, dict] = {
    "assume-tasks-everywhere": {"tasks_offered": "always"},
    "wait-before-persist": {"persists_binding_before_waiting": False},
    "reissue-after-restart": {"resumes_by_polling": False},
    "cancel-ack-means-no-effect": {"outcome_of_cancel_ack": "remote_cancelled"},
    "mirror-remote-status": {"record_remote_status": "mirror"},
}

# variant name -> z3_flags, for built-in variants that do not declare their own.
Z3_RULE_TABLE: dict[str, dict] = {
    "detach-on-disconnect": {"on_request_cancelled": "nothing"},
    "keep-uq4": {"on_request_cancelled": "nothing"},          # and Params: no server serves Tasks
    "stdio-only-cancellation": {"on_request_cancelled": "ignore-http"},
    "cancelled-after-task-disconnect": {"on_disconnect_after_response": "cancel-tasked-run",
                                        "on_response_lost": "cancel-tasked-run"},
    "ownership-ends-at-first-event": {"releases_ownership": ("sent", "cancelled", "stream_event")},
    "disconnect-cancels-callers-runs": {"on_request_cancelled": "cancel-callers-runs"},
    "rest-and-update-both-resolve": {"resolve": "rest-ignores-other-surfaces"},
    "update-skips-approver-check": {"resolve": "skip-approver-check"},
    "cancel-race-completes": {},
    "get-appends-read-event": {"on_tasks_get": "append"},
    "id-as-credential": {"lookup_task": "no-authorization"},
    "read-only-caller-cancels": {"can_cancel": "read-suffices"},
    "projection-missing-waiting-external": {"project_status": {"waiting-external": "completed"}},
    "paused-projects-cancelled": {"project_status": {"paused": "cancelled"}},
    "task-to-non-declaring": {"answer_tools_call": "task-without-declaration"},
    "ttl-fails-run": {"ttl_ms": ("fixed", "retention"), "on_ttl_elapsed": "fail-run"},   # from-creation
    # built-in variants with no reference implementation here (their rows are checked by the cross-check)
    "blocking-cancel-without-error": {"blocking_cancel_result": "no-error"},
    "cancel-ack-without-cancel": {"tasks_cancel": "ack-only"},
    "cancel-terminal-appends": {"tasks_cancel": "append-on-terminal"},
    "tasks-list-served": {"method_supported": "tasks-list-served"},
    "update-conflict-error": {"update_response": "conflict-error"},
    "decline-cancels-run": {"do_resolve": "decline-cancels-run"},
    "mcp-name-unchecked": {"header_ok": "unchecked"},
    "tasks-methods-without-capability": {"tasks_capability_ok": "get-without-declaration"},
    "listen-without-capability": {"tasks_capability_ok": "listen-without-declaration"},
    "listen-acks-foreign": {"listen_ack": "no-authorization"},
    "waiting-external-input-required": {"answer_tools_call": "input-required-at-waiting-external",
                                        "project_status": {"waiting-external": "input_required"}},
    "cancel-stops-at-once": {"effects_while_cancelling": False},
    "input-required-to-tasked": {"answer_tools_call": "input-required-first"},
    "server-chooses-per-request": {"answer_tools_call": "server-chooses"},
    "answer-before-durable": {"answer_tools_call": "task-before-durable", "durable_on_create": False},
    "completes-after-disconnect": {"on_request_cancelled": "only-declaring"},
    "foreign-task-403": {"not_found": "foreign-403"},
    "purged-task-expired-message": {"not_found": "purged-expired"},
    "always-task": {"answer_tools_call": "always-task"},
    "drop-every-request": {"answer_tools_call": "never"},
    "tasks-only-for-tasked-runs": {"lookup_task": "only-tasked-call"},
    "ownership-until-receipt": {"releases_ownership": ("receipt", "cancelled"),
                                "on_disconnect_after_response": "cancel-owned"},
    "ack-carries-status": {"tasks_cancel": "ack-carries-status"},
    "task-result-type-on-get": {"get_task_result": "result-type-task"},
    "ttl-below-retention": {"ttl_ms": ("fixed", "retention-1")},
    "mrtr-grace-window": {"on_request_cancelled": ("grace-for-retry", 1), "after_step": "grace-sweep"},
    "response-content-grants-approval": {"resolve": "content-grants-approval"},
    "notify-cancelled-on-run-cancel": {"cancel_run": "notify-open-calls"},
    "create-result-carries-input-requests": {"create_task_result": "carries-input-requests"},
    "replay-reprompts": {"fork_log": "reprompt"},
    "second-advertisement": {"openwop_features": "mcp-tasks-flag"},
    "status-message-leaks": {"status_message": "tool-output"},
    "notification-differs-from-get": {"notification": "stale-on-change"},
    "short-task-id": {"task_id": "counter", "decode_task_ref": "task-id-table"},
    "opaque-task-handle": {"task_id": "opaque-handle", "lookup_task": "handle-any-tenant"},
}


class _Ref(Amendment):
    kind = "mutant"
    source = "requirements.md, Variants"


class DetachOnDisconnect(_Ref):
    name = "detach-on-disconnect"
    changes = "a disconnect before the answer cancels nothing; the result is dropped"
    expect = {"OWN-2": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def on_request_cancelled(self, world, q, cause):
        return None


class KeepUq4(_Ref):
    name = "keep-uq4"
    changes = "no Tasks served; a blocking call whose connection drops leaves its run running"
    expect = {"OWN-2": "refuted"}
    z3_flags = {"serves_tasks": "none", "on_request_cancelled": "nothing"}

    def serves_tasks(self, world, server):
        return False

    def on_request_cancelled(self, world, q, cause):
        return None


class StdioOnlyCancellation(_Ref):
    name = "stdio-only-cancellation"
    changes = "an HTTP disconnect cancels the request but not its run"
    expect = {"OWN-2": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def on_request_cancelled(self, world, q, cause):
        if cause == "http-disconnect":
            return None
        return super().on_request_cancelled(world, q, cause)


class CancelledAfterTaskDisconnect(_Ref):
    name = "cancelled-after-task-disconnect"
    changes = "a disconnect after the response (CreateTaskResult) arrived cancels the run"
    expect = {"OWN-3": "refuted"}
    z3_flags = {"on_disconnect_after_response": "cancel-run"}

    def on_disconnect_after_response(self, world, q):
        if q.method == "tools/call" and q.run is not None and world.runs[q.run].status not in TERMINAL:
            self.cancel_run(world, world.runs[q.run], MCP_REQUEST_CANCELLED, f"request:{q.id}:after-response")


class OwnershipEndsAtFirstEvent(_Ref):
    name = "ownership-ends-at-first-event"
    changes = "ownership released at the first SSE event"
    expect = {"OWN-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def releases_ownership(self, world, q, event):
        return event in ("sent", "cancelled", "stream_event")


class DisconnectCancelsCallersRuns(_Ref):
    name = "disconnect-cancels-callers-runs"
    changes = "a disconnect cancels every run of that caller"
    expect = {"OWN-4": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def on_request_cancelled(self, world, q, cause):
        super().on_request_cancelled(world, q, cause)
        for r in list(world.runs.values()):
            if r.owner == q.subject and r.server == q.server and r.status not in TERMINAL:
                self.cancel_run(world, r, MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}")


class RestAndUpdateBothResolve(_Ref):
    name = "rest-and-update-both-resolve"
    changes = "no at-most-once guard between REST and tasks/update"
    expect = {"UPD-1": "refuted"}
    z3_flags = {"resolve": "no-at-most-once"}

    def resolve(self, world, interrupt, subject, action, via, content=None):
        if via != "external" and not self.eligible_approver(world, subject, interrupt):
            return False
        self.do_resolve(world, interrupt, subject, action, via)
        return True


class UpdateSkipsApproverCheck(_Ref):
    name = "update-skips-approver-check"
    changes = "resolution without the eligibility check"
    expect = {"UPD-2": "refuted", "AUTH-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def resolve(self, world, interrupt, subject, action, via, content=None):
        from model import lifecycle
        if not interrupt.open or world.runs[interrupt.run].status not in lifecycle.WAITING:
            return False
        self.do_resolve(world, interrupt, subject, action, via)
        return True


class CancelRaceCompletes(_Ref):
    name = "cancel-race-completes"
    changes = "cancelling may end completed"
    expect = {"CNL-2": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])
    lifecycle_extra = ({"trigger": "complete", "source": ["cancelling"], "dest": "completed"},)


class GetAppendsReadEvent(_Ref):
    name = "get-appends-read-event"
    changes = "tasks/get appends an audit event"
    expect = {"GET-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def on_tasks_get(self, world, q, run):
        world.append(run, {"type": "task.read", "by": q.subject})


class IdAsCredential(_Ref):
    name = "id-as-credential"
    changes = "possessing a taskId grants read across tenants"
    expect = {"ID-2": "refuted", "ISO-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def lookup_task(self, world, q, ref):
        raw = self.decode_task_ref(world, ref)
        run = world.runs.get(raw) if raw else None
        if run is None or run.server != q.server or not run.durable or run.purged:
            return None
        return run


class ReadOnlyCallerCancels(_Ref):
    name = "read-only-caller-cancels"
    changes = "tasks/cancel checks only read rights"
    expect = {"AUTH-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def can_cancel(self, world, subject, run):
        return self.can_read(world, subject, run)


class ProjectionMissingWaitingExternal(_Ref):
    name = "projection-missing-waiting-external"
    kind = "map-sabotage"
    changes = "the waiting-external row deleted (the lookup falls through to the host's default, completed)"
    expect = {"PRJ-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def project_status(self, world, run):
        if run.status == "waiting-external":
            return ("completed", True)
        return super().project_status(world, run)


class PausedProjectsCancelled(_Ref):
    name = "paused-projects-cancelled"
    changes = "paused projected cancelled (resume then leaves a terminal status)"
    expect = {"PRJ-3": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def project_status(self, world, run):
        if run.status == "paused":
            return ("cancelled", None)
        return super().project_status(world, run)


class TaskToNonDeclaring(_Ref):
    name = "task-to-non-declaring"
    changes = "a task created for a request that did not declare"
    expect = {"NEG-1": "refuted"}
    z3_flags = dict(Z3_RULE_TABLE[name])

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and self.serves_tasks(world, q.server):      # the request's own declaration is not read
            if run.status in TERMINAL:
                return self.tool_result(world, run)
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)


class TtlFailsRun(_Ref):
    name = "ttl-fails-run"
    changes = "the run is failed when the TTL (one tick) elapses"
    expect = {"TTL-2": "refuted"}
    z3_flags = {"ttl_ms": ("fixed", 1), "on_ttl_elapsed": "fail-run"}
    lifecycle_extra = ({"trigger": "fail", "source": ["pending", "paused", "waiting-approval", "waiting-input",
                                                      "waiting-external"], "dest": "failed"},)

    def ttl_ms(self, world, run):
        return world.params.tick_ms

    def on_ttl_elapsed(self, world, run):
        if run.status not in TERMINAL and run.status != "cancelling":
            world.set_status(run, "fail")
            world.append(run, {"type": "run.failed", "reason": "ttl-elapsed"})


REFERENCE: dict[str, type] = {cls.name: cls for cls in (
    DetachOnDisconnect, KeepUq4, StdioOnlyCancellation, CancelledAfterTaskDisconnect, OwnershipEndsAtFirstEvent,
    DisconnectCancelsCallersRuns, RestAndUpdateBothResolve, UpdateSkipsApproverCheck, CancelRaceCompletes,
    GetAppendsReadEvent, IdAsCredential, ReadOnlyCallerCancels, ProjectionMissingWaitingExternal,
    PausedProjectsCancelled, TaskToNonDeclaring, TtlFailsRun)}


def builtin_variants() -> dict[str, type]:
    from model.variants import builtins
    return builtins()


def supported_variants() -> dict[str, tuple[type, str]]:
    """name -> (the variant class, 'built-in' or 'reference') for every row of Z3_RULE_TABLE that has
    a built-in or a reference implementation."""
    built = builtin_variants()
    out = {}
    for name in Z3_RULE_TABLE:
        if name in built:
            out[name] = (built[name], "built-in")
        elif name in REFERENCE:
            out[name] = (REFERENCE[name], "reference")
    return out


def flags_for(rules) -> dict:
    """The z3_flags of a rules object: its own attribute, else the table row of its name, else {}."""
    own = getattr(rules, "z3_flags", None)
    if own is not None:
        return dict(own)
    return dict(Z3_RULE_TABLE.get(getattr(rules, "name", ""), {}))


def make_rules(cls):
    rules = cls()
    if getattr(rules, "z3_flags", None) is None:
        rules.z3_flags = flags_for(rules)
    return rules
