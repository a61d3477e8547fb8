"""The host's rules as RFC 0198 states them: every policy a spec author may amend, by name.

A variant is a subclass that overrides some of these methods (see `model.amend`). Actions in
`model.host`, `model.clients` and `model.network` do the mechanics and ask these rules what the
protocol says; so an amendment changes one rule and nothing else.
"""
from __future__ import annotations

from . import identity, lifecycle, wire
from .lifecycle import TERMINAL
from .projection import STATUS_PROJECTION

MCP_REQUEST_CANCELLED = "mcp-request-cancelled"


class Rules:
    """The baseline: RFC 0198 as written, with the P-... parameters of `Params`."""

    name = "baseline"
    lifecycle_extra: tuple[dict, ...] = ()   # extra run transitions a variant allows

    # ---- lifecycle ---------------------------------------------------------------------------
    def lifecycle_fire(self, machine: str, status: str, trigger: str) -> str:
        for t in self.lifecycle_extra:
            if machine == "run" and t["trigger"] == trigger and status in t["source"]:
                return t["dest"]
        return lifecycle.fire(machine, status, trigger)

    def lifecycle_can(self, machine: str, status: str, trigger: str) -> bool:
        if any(machine == "run" and t["trigger"] == trigger and status in t["source"] for t in self.lifecycle_extra):
            return True
        return lifecycle.can_fire(machine, status, trigger)

    # ---- §A advertisement ---------------------------------------------------------------------
    def serves_tasks(self, world, server: str) -> bool:
        return world.params.serves_tasks(server)

    def discover_result(self, world, server: str) -> dict:
        return wire.discover_result(self.serves_tasks(world, server))

    def openwop_features(self, world, server: str) -> dict:
        """The OpenWOP advertisement: `mcp.features[]` lists `extensions` iff Tasks is served."""
        features = ["tools", "mrtr"] + (["extensions"] if self.serves_tasks(world, server) else [])
        return {"mcp": {"serverMount": True, "features": features}}

    # ---- §C identity and authorization --------------------------------------------------------
    def mint_run_id(self, world, tenant: str, started_by: str) -> str:
        length = world.params.mint_tasked_len if started_by in ("tasked-call", "blocking-call") \
            else world.params.mint_other_len
        return identity.mint(tenant, world.next_serial(), length)

    def mint_interrupt_id(self, world, tenant: str) -> str:
        return identity.mint(tenant, world.next_serial(), 24, prefix="i-")

    def task_id(self, world, run) -> str:
        return identity.project(run.id)

    def decode_task_ref(self, world, ref: str) -> str | None:
        """The raw runId a wire taskId names, or None when it names none (malformed)."""
        return identity.unproject(ref)

    def can_read(self, world, subject: str, run) -> bool:
        s = world.params.subject(subject)
        return s.tenant == run.tenant and "runs:read" in s.scopes and run.durable and not run.purged

    def can_cancel(self, world, subject: str, run) -> bool:
        s = world.params.subject(subject)
        return self.can_read(world, subject, run) and "runs:cancel" in s.scopes

    def eligible_approver(self, world, subject: str, interrupt) -> bool:
        s = world.params.subject(subject)
        run = world.runs[interrupt.run]
        if s.tenant != run.tenant or "approvals:respond" not in s.scopes:
            return False
        return interrupt.approvers is None or subject in interrupt.approvers

    def lookup_task(self, world, q, ref: str):
        """tasks/* and listen: the run a reference names *for this caller*, or None (not found)."""
        raw = self.decode_task_ref(world, ref)
        run = world.runs.get(raw) if raw else None
        if run is None or run.server != q.server or not self.can_read(world, q.subject, run):
            return None
        return run

    def not_found(self, world, q, reason: str) -> dict:
        """ISO-1: one answer for unknown, purged, foreign and malformed ids alike."""
        return wire.error_response(q.id, wire.INVALID_PARAMS, "Task not found", None)

    def missing_capability(self, world, q) -> dict:
        return wire.error_response(q.id, wire.MISSING_CAPABILITY, "Missing required client capability",
                                   {"requiredCapabilities": {"extensions": {wire.TASKS_EXT: {}}}})

    def tasks_capability_ok(self, world, q) -> bool:
        return q.declares_tasks and self.serves_tasks(world, q.server)

    def header_ok(self, world, q) -> bool:
        return q.transport != "http" or q.mcp_name == q.task_ref

    def method_supported(self, world, method: str) -> bool:
        return method not in ("tasks/list", "tasks/result")

    def tasks_methods_served(self, world, server: str) -> bool:
        """NEG-4: a mount that does not serve the extension knows no tasks/* method (-32601), whatever
        the request declared."""
        return self.serves_tasks(world, server)

    def http_status(self, world, q, message: dict) -> int:
        """WIRE-5: the HTTP status of a response on streamable HTTP. Core names 400 for -32021 and
        -32020 and 404 for an unknown method; any other error is sent with `Params.http_error_status`."""
        err = message.get("error")
        if err is None:
            return 200
        return wire.HTTP_STATUS.get(err.get("code"), world.params.http_error_status)

    def removed_method_result(self, world, q) -> dict:
        """The result of a removed method (`tasks/list`, `tasks/result`) for a host that still serves
        it: the caller's readable tasks. Never sent on the baseline (`method_supported` refuses both)."""
        if q.method == "tasks/list":
            return {"tasks": [wire.detailed_task(**self.detailed_task(world, r, q)) for r in world.runs.values()
                              if r.server == q.server and self.can_read(world, q.subject, r)]}
        return {}

    # ---- §D projection ------------------------------------------------------------------------
    def project_status(self, world, run) -> tuple[str, bool | None]:
        return STATUS_PROJECTION[run.status]

    def input_requests(self, world, run, q) -> dict:
        """One entry per open client-answerable interrupt, keyed by raw interruptId (P-KEYFORM)."""
        out = {}
        for i in run.open_interrupts(world):
            if i.kind == "external-event":
                continue
            if i.form:
                out[i.id] = wire.elicitation_input_request(f"{i.kind} needed", {"type": "object", "properties": {
                    "approved": {"type": "boolean"}}})
            else:
                out[i.id] = wire.url_input_request(f"{i.kind} needed", f"https://host.example/i/{identity.project(i.id)}")
        return out

    def status_message(self, world, run) -> str | None:
        return f"run is {run.status}"

    def ttl_ms(self, world, run) -> int | None:
        """TTL-1: `Params.ttl_live_ticks` (null by default) until the purge time is known; then exactly
        the time to purge (TTL-4: never earlier than a TTL already advertised)."""
        purge = self.purge_time(world, run)
        if purge is None:
            live = world.params.ttl_live_ticks
            return None if live is None else live * world.params.tick_ms
        return (purge - run.created_at) * world.params.tick_ms

    def tool_result(self, world, run) -> dict:
        """completed -> isError false; failed and cancelled -> isError true (§G.14)."""
        if run.status == "cancelled":
            return self.blocking_cancel_result(world, run)
        return wire.call_tool_result(run.status != "completed", f"run {run.status}")

    def detailed_task(self, world, run, q) -> dict:
        status, _ = self.project_status(world, run)
        fields = dict(task_id=self.task_id(world, run), status=status, created_at=world.timestamp(run.created_at),
                      last_updated_at=world.timestamp(run.updated_at), ttl_ms=self.ttl_ms(world, run),
                      status_message=self.status_message(world, run))
        if status == "input_required":
            fields["input_requests"] = self.input_requests(world, run, q)
        elif status == "completed":
            fields["result"] = self.tool_result(world, run)
        elif status == "failed":                 # never on the baseline (PRJ-1): a variant's projection
            fields["error"] = {"code": wire.INTERNAL_ERROR, "message": f"run {run.status}"}
        return fields

    def get_task_result(self, world, run, q) -> dict:
        return wire.get_task_result(**self.detailed_task(world, run, q))

    def create_task_result(self, world, run, q) -> dict:
        t = self.detailed_task(world, run, q)
        return wire.create_task_result(t["task_id"], t["status"], t["created_at"], t["last_updated_at"],
                                       t["ttl_ms"], t.get("status_message"))

    # ---- §B answering a tools/call ------------------------------------------------------------
    def answer_tools_call(self, world, q) -> dict | None:
        """The result the host may send now to a tools/call or MRTR retry, or None (stay open)."""
        run = world.runs[q.run]
        if not run.durable:
            return None
        if q.declares_tasks and self.serves_tasks(world, q.server):
            if run.status in TERMINAL:
                return self.tool_result(world, run)            # §B.4
            return self.create_task_result(world, run, q)      # §B.3
        if run.status in TERMINAL:
            return self.tool_result(world, run)
        if run.status in ("waiting-approval", "waiting-input"):
            return self.input_required(world, run, q)
        return None

    def input_required(self, world, run, q) -> dict | None:
        opened = run.open_interrupts(world)
        if not opened:
            return None
        missing = self.missing_elicitation(world, run, q)
        if missing:
            return self.missing_elicitation_error(world, q, missing)
        i = opened[0]
        token = f"rs-{world.next_serial()}"
        from .state import RequestState
        world.request_states[token] = RequestState(token, q.subject, run.id, i.id, q.id)
        return wire.input_required_result(self.input_requests(world, run, q), token)

    def elicitation_modes(self, world, run, q) -> tuple[str, ...]:
        """P-ELICIT: the elicitation modes declared by the request that created the run (default), or by
        the asking request ("each-get", and for a run no MCP request created), read from its `_meta`."""
        creator = world.requests.get(run.creating_request) if run.creating_request else None
        asked = q if world.params.p_elicit == "each-get" or creator is None else creator
        return wire.declared_elicitation_modes(asked.message)

    def missing_elicitation(self, world, run, q) -> tuple[str, ...]:
        """PRJ-4: the modes the run's open input requests use (form, or url for a credential) that the
        client did not declare: such input is never sent to it."""
        need = {"form" if i.form else "url" for i in run.open_interrupts(world) if i.kind != "external-event"}
        have = self.elicitation_modes(world, run, q)
        return tuple(m for m in wire.ELICITATION_MODES if m in need and m not in have)

    def missing_elicitation_error(self, world, q, modes: tuple[str, ...]) -> dict:
        """A run needs input the caller cannot receive: answered as for a missing capability."""
        return wire.error_response(q.id, wire.MISSING_CAPABILITY, "Missing required client capability",
                                   {"requiredCapabilities": {"elicitation": {m: {} for m in modes}}})

    def blocking_cancel_result(self, world, run) -> dict:
        return wire.call_tool_result(True, "run cancelled")

    def durable_on_create(self, world, run) -> bool:
        """createRun makes the minted id readable at once (ext-tasks §Task Creation is met)."""
        return True

    def join_existing_run(self, world, q):
        """Idempotency: a strengthening may let a re-issued call join the first run."""
        return None

    # ---- §E interrupts ------------------------------------------------------------------------
    def resolve(self, world, interrupt, subject: str, action: str, via: str, content=None) -> bool:
        """Resolve at most once, by an eligible approver only; True when it resolved."""
        if not interrupt.open or world.runs[interrupt.run].status not in lifecycle.WAITING:
            return False
        if via != "external" and not self.eligible_approver(world, subject, interrupt):
            return False
        self.do_resolve(world, interrupt, subject, action, via)
        return True

    def do_resolve(self, world, interrupt, subject, action, via) -> None:
        run = world.runs[interrupt.run]
        interrupt.open, interrupt.resolved_by, interrupt.resolution, interrupt.via = False, subject, action, via
        world.append(run, {"type": "interrupt.resolved", "interruptId": interrupt.id, "by": subject,
                           "action": action, "via": via})
        if run.status in lifecycle.WAITING and not run.open_interrupts(world):
            world.set_status(run, "resolve_interrupt")   # accept, decline and cancel all resume (UPD-4)

    def update_key(self, world, run, key: str):
        """P-KEYFORM: the interrupt a tasks/update key names, or None (never issued)."""
        raw = key
        if world.params.p_keyform == "raw-or-projected":
            raw = identity.unproject(key) or key
        i = world.interrupts.get(raw)
        return i if i is not None and i.run == run.id else None

    def update_response(self, world, q, resolved: bool, authorized: bool) -> dict:
        if not authorized and world.params.p_approver == "error":
            return self.not_found(world, q, "ineligible")
        return wire.result_response(q.id, wire.empty_ack())

    # ---- §F cancel, TTL, retention ------------------------------------------------------------
    def cancel_run(self, world, run, reason: str, cause: str) -> bool:
        """cancelRun: accept a cancel of a non-terminal run and cascade to every descendant still
        running, also below a child that already finished."""
        if run.status == "cancelling" or run.status in TERMINAL:
            return False
        world.set_status(run, "accept_cancel")
        run.cancel_reason = reason
        world.append(run, {"type": "run.cancelling", "reason": reason, "cause": cause})
        self._cascade(world, run)
        return True

    def _cascade(self, world, parent) -> None:
        for child_id in parent.children:
            child = world.runs[child_id]
            if child.status in TERMINAL:
                self._cascade(world, child)
            else:
                self.cancel_run(world, child, "parent-cancelled", f"parent:{parent.id}")

    def tasks_cancel(self, world, q, run) -> dict:
        if run.status not in TERMINAL:
            self.cancel_run(world, run, "tasks-cancel", f"tasks/cancel:{q.id}")
        return wire.result_response(q.id, wire.empty_ack())

    def on_tasks_get(self, world, q, run) -> None:
        """§F.9: a read appends nothing."""

    def purge_time(self, world, run) -> int | None:
        if run.terminal_at is None:
            return None
        start = run.terminal_at if world.params.p_retention == "from-terminal" else run.created_at
        live = world.params.ttl_live_ticks
        honoured = 0 if live is None else run.created_at + live      # TTL-4: no purge before an advertised TTL
        return max(run.terminal_at, start + world.params.retention, honoured)

    def on_ttl_elapsed(self, world, run) -> None:
        """§F.11: the TTL describes the handle, not the work: nothing happens to the run."""

    def effects_while_cancelling(self, world, run) -> bool:
        """cancelRun semantics: compensation may still act while cancelling (gap OWN-G3)."""
        return True

    # ---- §G ownership and disconnect ----------------------------------------------------------
    def request_state_verifies(self, world, q, rs) -> bool:
        """§G.12: an MRTR retry's requestState verifies when it was issued to this principal, is
        unused, and its interrupt is still open (rs is None: no state, or one never issued)."""
        return rs is not None and not rs.used and rs.principal == q.subject and world.interrupts[rs.interrupt].open

    def owns_on_receipt(self, world, q) -> bool:
        return q.method == "tools/call" and (q.retry_of is None or q.retry_valid)

    def releases_ownership(self, world, q, event: str) -> bool:
        """The ownership cut: the whole final response sent (not an earlier SSE event)."""
        return event in ("sent", "cancelled")

    def on_request_cancelled(self, world, q, cause: str) -> None:
        """§G.12: cancelling the owning request cancels its run as cancelRun would."""
        if q.owns is not None:
            run = world.runs[q.owns]
            if run.status not in TERMINAL:
                self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}")

    def on_response_lost(self, world, q) -> None:
        """§G.13: once the response was sent, the network cannot touch the run."""
        if q.owns is not None:          # only where a strengthening keeps ownership until receipt
            self.on_request_cancelled(world, q, "response-lost")

    def on_disconnect_after_response(self, world, q) -> None:
        """§G.13: a connection dropping after the client has the response changes nothing."""

    def cancellation_applies(self, world, q, cause: str) -> bool:
        """Both signals count: an HTTP disconnect and a stdio notifications/cancelled (or EOF)."""
        return True

    def server_cancelled_on(self, world, q, reason: str) -> bool:
        """§G.14: the host sends notifications/cancelled only to end a listen stream."""
        return q.method == "subscriptions/listen"

    # ---- notifications ------------------------------------------------------------------------
    def listen_ack(self, world, q, refs: list[str]) -> list[str]:
        """ISO-2: acknowledge only the tasks this caller can read, as if the others did not exist."""
        out = []
        for ref in refs:
            run = self.lookup_task(world, q, ref)
            if run is not None:
                out.append(run.id)
        return out

    def notification(self, world, q, run) -> dict:
        return wire.task_status_notification(wire.detailed_task(**self.detailed_task(world, run, q)), q.id)

    def after_step(self, world) -> None:
        """Publish notifications/tasks to every open listen stream whose task changed."""
        for qid in world.listens:
            q = world.requests[qid]
            if q.phase != "streaming":
                continue
            for rid in q.acked:
                run = world.runs[rid]
                if not self.can_read(world, q.subject, run):
                    continue
                view = self.detailed_task(world, run, q)
                key = (q.id, rid)
                if world.notified.get(key) != view:
                    first = key not in world.notified
                    world.notified[key] = view
                    withheld = "input_requests" in view and self.missing_elicitation(world, run, q)   # PRJ-4
                    if not first and not withheld:
                        msg = self.notification(world, q, run)
                        world.emit(q.id, msg)
                        world.last_sent[key] = msg["params"]

    # ---- replay and fork ----------------------------------------------------------------------
    def fork_log(self, world, source, fork) -> list[dict]:
        """§E.8: recorded history is copied as history; nothing is re-issued or re-prompted."""
        return [dict(e, replayed=True) for e in source.log]
