"""The network: a connection may drop at any point of a request's life, and responses travel."""
from __future__ import annotations

from . import footprint as fp
from . import wire
from .actions import action
from .lifecycle import OPEN_PHASES


def cancel_request(world, q, cause: str) -> None:
    """The host learns that q was cancelled (disconnect, notifications/cancelled, EOF)."""
    R = world.rules
    if q.phase not in OPEN_PHASES:
        if q.phase == "sent" and cause == "stdio-cancelled":
            return                         # crossed the response in flight: nothing to cancel (§G.13)
        return
    if not R.cancellation_applies(world, q, cause):
        return
    world.set_phase(q, "cancel_request")
    if world.step is not None:
        world.step.cancelled.append((q.id, cause))
    R.on_request_cancelled(world, q, cause)
    if q.owns is not None and R.releases_ownership(world, q, "cancelled"):
        q.owns = None


def _disconnect_moves(world):
    if not world.params.http_disconnects:
        return []
    return [dict(request=q.id) for q in world.requests.values()
            if q.transport == "http" and (q.phase in ("received", "streaming", "sent")
                                          or (q.phase == "delivered" and not q.closed and q.run is not None))]


def _say_disconnect(world, a):
    q = world.requests[a["request"]]
    if q.phase == "lost":
        return f"the connection of {q.id} drops before the response arrives"
    if q.closed:
        return f"the connection of {q.id} drops after the response arrived"
    return f"the connection of {q.id} drops"


def _disconnect_form(q) -> tuple[str, str]:
    """The connection event a disconnect is (coverage: `model.clients.REQUEST_FORMS`)."""
    if q.phase == "delivered":
        return "HTTP disconnect", "after its response arrived"
    if q.phase == "sent":
        return "HTTP disconnect", "with its response in flight"
    if q.method == "subscriptions/listen":
        return "listen stream ends", "dropped by its client"
    return "HTTP disconnect", "of an open request"


def _dropped(world, a):
    """The request, and the run it owns with every run below it (cancelled, or its response lost)."""
    q = world.requests[a["request"]]
    return {fp.request(q.id)} | fp.cancelling(world, q.owns)


# The clock is read (a cancel logs its time), never written.
@action("network", _disconnect_moves, _say_disconnect, footprint=fp.footprint(
    lambda w, a: _dropped(w, a) | {fp.CLOCK}, _dropped, (
        "on_disconnect_after_response", "on_response_lost", "releases_ownership", "cancellation_applies",
        "on_request_cancelled", "cancel_run", "lifecycle_fire"), enables=fp.REQUEST))
def disconnect(world, request):
    """The HTTP connection drops: an open request is cancelled; a sent response is lost."""
    q = world.requests[request]
    if world.step is not None:
        from .clients import cancellation_forms
        world.step.forms.append(_disconnect_form(q))
        world.step.forms.extend(cancellation_forms(world, q, "HTTP disconnect"))
    if q.phase == "delivered":
        q.closed = True
        world.rules.on_disconnect_after_response(world, q)
        return
    if q.phase == "sent":
        world.set_phase(q, "drop_in_flight")
        world.rules.on_response_lost(world, q)
        if q.owns is not None and world.rules.releases_ownership(world, q, "lost"):
            q.owns = None
        return
    if q.method == "subscriptions/listen":
        world.set_phase(q, "cancel_request")
        return
    cancel_request(world, q, "http-disconnect")


def _deliver_moves(world):
    return [dict(request=q.id) for q in world.requests.values() if q.phase == "sent"]


@action("network", _deliver_moves, lambda w, a: f"the response to {a['request']} reaches client {w.requests[a['request']].client}",
        footprint=fp.footprint(fp.REQUEST, fp.REQUEST, ["releases_ownership"], enables=fp.REQUEST))
def deliver(world, request):
    q = world.requests[request]
    world.set_phase(q, "deliver")
    if q.owns is not None and world.rules.releases_ownership(world, q, "delivered"):
        q.owns = None


def _teardown_moves(world):
    return [dict(request=q.id) for q in map(world.requests.__getitem__, world.listens) if q.phase == "streaming"]


@action("host", _teardown_moves, lambda w, a: f"host ends subscriptions/listen {a['request']}",
        footprint=fp.footprint(fp.REQUEST, fp.REQUEST, ["server_cancelled_on"], enables=fp.REQUEST))
def end_listen(world, request):
    """The host tears down a listen stream: the one use of a server notifications/cancelled (§G.14)."""
    q = world.requests[request]
    if world.step is not None:
        world.step.forms.append(("listen stream ends", "torn down by the host"))
    if world.rules.server_cancelled_on(world, q, "stream ended by the host"):
        world.emit(q.id, wire.server_cancelled_notification(q.id))
    world.set_phase(q, "cancel_request")
