"""What the model does to a request, observed by driving the real model (not drawn by hand).

`probe_requests` starts one `tools/call` in every way the first client can send it, then explores
a few steps of every action that touches that request or its run (a small breadth-first search over
`model.actions`), and records for the request: which action moved it from which phase to which, at
which steps it stopped owning its run, in which phases it owned one, and which cancellation signals
changed nothing. A cancellation signal is an action of the environment (not the host) that ended the
request's life without its response reaching the client.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache

from model import lifecycle

DEPTH = 3


@dataclass
class RequestProbe:
    phases: tuple[str, ...]
    edges: dict[tuple[str, str], dict] = field(default_factory=dict)   # {"actions": [...], "releases": bool}
    owning: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    no_effect: dict[str, list[str]] = field(default_factory=dict)
    docs: dict[str, tuple[str, str]] = field(default_factory=dict)     # action -> (actor, first line of its doc)

    def order(self, phase: str) -> int:
        return self.phases.index(phase) if phase in self.phases else len(self.phases)


def _relevant(world, q, name: str, args: dict) -> bool:
    if args.get("request") == q.id:
        return True
    run = args.get("run")
    if run is not None and run in world.runs and q.run is not None and (
            run == q.run or world.runs[run].parent == q.run):
        return True
    return name != "call_tool" and args.get("client") == q.client and args.get("server") == q.server \
        and set(args) <= {"client", "server"}


def _key(world, q) -> tuple:
    return (q.transport, q.declares_tasks, q.phase, q.owns is None, q.closed, q.cancel_sent,
            tuple(sorted((r.label, r.status) for r in world.runs.values())), tuple(sorted(world.stdio_open)))


@lru_cache(maxsize=1)
def probe_requests(depth: int = DEPTH) -> RequestProbe:
    from model.actions import load_all
    from model.world import World

    actions = load_all()
    spec = lifecycle.LIFECYCLES["request"]
    phases = tuple(spec["states"])
    delivered = {t["dest"] for t in spec["transitions"] if t["trigger"] == "deliver"}
    has_exit = set()
    for t in spec["transitions"]:
        has_exit |= set([t["source"]] if isinstance(t["source"], str) else t["source"])
    ended = {p for p in phases if p not in has_exit and p not in delivered}

    out = RequestProbe(phases)
    observations: list[tuple[str, str, str, str, bool]] = []   # (src, dst, action, actor, released)
    unchanged: list[tuple[str, str]] = []                       # (phase, action) with no effect on q

    w0 = World()
    first = w0.params.clients[0]
    frontier = []
    seen = set()
    for args in w0.moves("call_tool"):
        if args["client"] != first:
            continue
        w = copy.deepcopy(w0)
        w.apply("call_tool", args)
        qid = next(iter(w.requests))
        k = _key(w, w.requests[qid])
        if k not in seen:
            seen.add(k)
            frontier.append((w, qid))
    for _ in range(depth):
        nxt = []
        for w, qid in frontier:
            q0 = w.requests[qid]
            if q0.owns is not None and q0.phase not in out.owning:
                out.owning.append(q0.phase)
            for name, act in actions.items():
                for args in act.moves(w):
                    if not _relevant(w, q0, name, args):
                        continue
                    w2 = copy.deepcopy(w)
                    before = (q0.phase, q0.owns)
                    w2.apply(name, args, check=False)
                    q = w2.requests[qid]
                    released = before[1] is not None and q.owns is None
                    if before[0] != q.phase or released:
                        observations.append((before[0], q.phase, name, act.actor, released))
                    elif act.actor != "host":
                        unchanged.append((q.phase, name))
                    k = _key(w2, q)
                    if k not in seen:
                        seen.add(k)
                        nxt.append((w2, qid))
        frontier = nxt

    for src, dst, name, actor, released in observations:
        if actor != "host" and dst in ended and name not in out.signals:
            out.signals.append(name)
    for src, dst, name, actor, released in observations:
        e = out.edges.setdefault((src, dst), {"actions": [], "releases": False})
        if name not in e["actions"]:
            e["actions"].append(name)
        e["releases"] = e["releases"] or released
    signal_dests = {dst for (src, dst), e in out.edges.items() if any(a in out.signals for a in e["actions"])}
    for phase, name in unchanged:
        if name in out.signals and phase not in signal_dests:
            lst = out.no_effect.setdefault(phase, [])
            if name not in lst:
                lst.append(name)
    out.owning.sort(key=out.order)
    for e in out.edges.values():
        e["actions"].sort(key=lambda a: (a in out.signals, list(actions).index(a)))
    for lst in out.no_effect.values():
        lst.sort(key=list(actions).index)
    for name in sorted({a for e in out.edges.values() for a in e["actions"]} | set(out.signals)):
        out.docs[name] = (actions[name].actor, (actions[name].doc.splitlines() or [""])[0])
    return out
