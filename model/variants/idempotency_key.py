from ..amend import Amendment
from ..harness import IDEMPOTENCY_META, HarnessRules


class _SendsKey(HarnessRules):
    def idempotency_key(self, world, client, te):
        return te.op


def _key(q):
    return (((q.message.get("params") or {}).get("_meta")) or {}).get(IDEMPOTENCY_META)


class IdempotencyKey(Amendment):
    """Strengthening named by RFC 0198 alternative 2 ("An idempotency key would need an MCP-level
    field that upstream does not have") that closes the known gaps E2E-2 and E2E-4: the harness
    sends its operation id as a key in `_meta`, and a re-issued `tools/call` with the same key from
    the same Subject joins the first run instead of starting a second one.
    """
    name = "idempotency-key"
    kind = "strengthening"
    source = "RFC 0198 Alternatives considered, 2; Motivation; requirements.md E2E-2, E2E-4"
    changes = "strengthening: a re-issued call with the same key joins the first run"
    expect = {"E2E-2": "holds", "E2E-4": "holds"}
    harness_rules = _SendsKey

    def join_existing_run(self, world, q):
        key = _key(q)
        if key is None:
            return None
        for run in world.runs.values():
            first = world.requests.get(run.creating_request) if run.creating_request else None
            if first is not None and first is not q and first.subject == q.subject \
                    and first.server == q.server and _key(first) == key:
                return run
        return None
