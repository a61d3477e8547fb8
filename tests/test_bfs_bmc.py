"""Cross-check: the exhaustive search and Z3's bounded model checking find counterexamples of the
same shortest length, on the variants the Z3 encoding serves, at one instance both can search.

The instance. The encoding reads the Subjects, tenants, clients, servers, `max_requests`,
`max_runs`, `max_effects`, `max_time`, `retention` and the P-... choices of `model.params.Params`;
it does not read the environment bounds that only exhaustive scopes tighten (`retry_reserve`,
`max_interrupts`, `max_pauses`, `rest_subjects`, `stdio`), so it always has their defaults. The
matched scope is therefore host-small's sizes (alice's client C1 alone on S1, one request, one run,
no effect, no clock tick) with those bounds back at their defaults (stdio, MRTR retries, REST for
every Subject, any number of interrupts and pauses), searched to the BMC depth.

Not matched, and why:
- the harness's ids (HNS-*, on `ComposedEncoding`): its instance has two harness clients, crashes
  and attempts that the composed scope cuts down; at those sizes the composed search does not reach
  the BMC depth in a test's time;
- flaws that need another client (mallory's foreign task, a second caller), the second server or a
  clock tick (`foreign-task-403`, `read-only-caller-cancels`, the TTL and purge variants, ...) are
  beyond the one-client instance: there both engines find nothing within the depth, and the test
  checks that agreement too (BMC `proved-bounded` exactly where the search finds no violation);
- variants the encoding does not describe (no `z3_flags`, not in `Z3_RULE_TABLE`) are not served by
  BMC at all.

Where the lengths differ, the assertion names the variant and requirement id and says which
engine's counterexample replays in the executable model: the other engine has the bug.
"""
from __future__ import annotations

import time

import pytest

from properties.base import load_catalogue
from verifier.engines.bfs import search as bfs
from verifier.runtime import scopes
from verifier.runtime.replay import run_trace
from verifier.engines.z3 import encoding_for
from verifier.engines.z3.bmc import bmc
from verifier.engines.z3.properties import PROPS
from verifier.engines.z3.variants import supported_variants
from verifier.runtime.worlds import make_world_for

DEPTH = 5
MATCHED = scopes.parse("host-small,stdio=True,retry_reserve=4,max_interrupts=None,max_pauses=None,rest_subjects=None,"
                       "atomic_answers=True")       # the encoding answers tasks/*, listen, discover at receipt
# Flaws that show within two steps at the matched instance: a few seconds each.
FAST = ["mcp-name-unchecked", "tasks-list-served", "ack-carries-status", "stdio-only-cancellation",
        "answer-before-durable", "task-to-non-declaring"]


def _host_ids(cls) -> list[str]:
    return [r for r, want in cls.expect.items() if want == "refuted" and r in PROPS and not PROPS[r].composed]


def _replays(cls, moves, props) -> bool:
    """Whether `moves` replay in the executable model at the matched scope to a violation of `props`."""
    make = make_world_for(cls, MATCHED)
    return any(run_trace(make, moves, props, p.name, liveness=False).violation is not None for p in props)


def _compare(name: str) -> list[str]:
    cls = supported_variants()[name][0]
    ids = _host_ids(cls)
    assert ids, f"{name}: no host id the encoding judges"
    params = cls.make_params(MATCHED.params()) if hasattr(cls, "make_params") else MATCHED.params()
    got = bmc(encoding_for(cls, params), ids, DEPTH, time.time() + 300, name)
    catalogue = load_catalogue().values()
    out = []
    for rid in ids:
        props = [p for p in catalogue if rid in p.ids and p.kind != "liveness"]
        s = bfs.search(make_world_for(cls, MATCHED), props, MATCHED, max_depth=DEPTH, want_graph=False)
        found = {p.name: s.path(s.found[p.name].parent) + [s.found[p.name].move] for p in props if p.name in s.found}
        bfs_len = min((len(m) for m in found.values()), default=None)
        z = got[rid]
        assert z.verdict in ("refuted", "proved-bounded"), (name, rid, z.verdict, z.message)
        z3_len = len(z.steps) if z.verdict == "refuted" else None
        if bfs_len != z3_len:
            bfs_moves = min(found.values(), key=len) if found else None
            z3_moves = [(st.action, st.args) for st in z.steps] if z3_len else None
            out.append(f"{name} / {rid}: bfs shortest {bfs_len}, BMC shortest {z3_len} (depth {DEPTH}); "
                       f"bfs trace replays: {bfs_moves is not None and _replays(cls, bfs_moves, props)}, "
                       f"BMC trace replays: {z3_moves is not None and _replays(cls, z3_moves, props)}")
        else:
            out.append("")
    return [x for x in out if x]


@pytest.mark.parametrize("name", FAST)
def test_shortest_lengths_agree(name):
    assert _compare(name) == []


@pytest.mark.slow
def test_shortest_lengths_agree_on_every_served_variant():
    """Every variant the encoding serves with a host id it expects refuted (about fifty; minutes)."""
    differ = []
    for name, (cls, _) in sorted(supported_variants().items()):
        if name in FAST or not _host_ids(cls):
            continue
        differ += _compare(name)
    assert differ == []
