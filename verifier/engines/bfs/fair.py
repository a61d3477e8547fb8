"""Liveness on the explored graph: a fair behaviour in which an obligation stays pending forever.

The fairness is the catalogue's (`model.fairness`): each progress move (a host step, a response
travelling, an external event arriving, a paused run resumed, an eligible approver's answer) is
weakly fair, move by move; nothing else is (clients need never send again). In a finite graph an
infinite behaviour either stutters for ever in one state or runs round a cycle. So a liveness
property fails exactly when, among the states where its obligation is pending:
- some state enables no progress move (stuttering there is fair), or
- some strongly connected component with an internal edge takes, on its internal edges, every
  progress move that is enabled in all of its states (a cycle through the whole component is
  then weakly fair).
The violation is a lasso: the path to the state or component, and the loop.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.fairness import progress_moves


def move_key(name: str, args: dict) -> tuple:
    return (name, tuple(sorted(args.items())))


def state_info(world, live, enabled: dict) -> tuple:
    """What liveness needs of one state: (its enabled progress-move keys, {property: the pending
    obligation's message}, [premise counters reached: properties' and their cases']). `enabled` maps each action to its
    moves in this state (computed once for the state's expansion; `progress_moves` reads them
    through the world's `moves`)."""
    world.moves = lambda name: enabled.get(name, ())       # an instance attribute: clones skip it
    try:
        fair = frozenset(move_key(n, a) for n, a in progress_moves(world))
    finally:
        del world.moves
    pending, premised = {}, []
    for p in live:
        premised += (p.name,) if p.premise is None else p.reached(p.premise(world, None))
        msg = p.check(world, None)
        if msg:
            pending[p.name] = msg
    return fair, pending, premised


@dataclass
class Lasso:
    state: int               # the state where the loop starts (reached by the BFS path)
    loop: list               # moves of the loop, from `state` back to it ([] for stuttering)
    message: str


class Graph:
    """What liveness needs of the explored graph: per state, the pending obligations and the
    enabled progress moves; per edge, its target and move."""

    def __init__(self):
        self.pending: dict[str, dict[int, str]] = {}   # property -> state -> the obligation's message
        self.premise: dict[str, int] = {}
        self.fair: list = []        # state -> frozenset of enabled progress-move keys
        self.edges: list = []       # state -> [(target, name, args)]

    def add_state(self, sid: int, info) -> None:
        """A state's `state_info`."""
        while len(self.fair) <= sid:
            self.fair.append(None)
            self.edges.append(())
        fair, pending, premised = info
        self.fair[sid] = fair
        for name in premised:
            self.premise[name] = self.premise.get(name, 0) + 1
        for name, msg in pending.items():
            self.pending.setdefault(name, {})[sid] = msg

    def add_edges(self, sid: int, edges) -> None:
        self.edges[sid] = edges

    def premise_count(self, name: str) -> int:
        return self.premise.get(name, 0)

    def fair_violation(self, name: str) -> Lasso | None:
        pending = self.pending.get(name, {})
        stuck = [sid for sid in sorted(pending) if not self.fair[sid]]
        if stuck:
            return Lasso(stuck[0], [], pending[stuck[0]])
        for comp in _sccs(sorted(pending), lambda v: [t for t, _, _ in self.edges[v] if t in pending]):
            members = set(comp)
            internal = [(v, t, n, a) for v in comp for t, n, a in self.edges[v] if t in members]
            if not internal:
                continue
            always = frozenset.intersection(*(self.fair[v] for v in comp))
            taken = {move_key(n, a) for _, _, n, a in internal}
            if always <= taken:
                start = min(comp)
                return Lasso(start, self._loop(start, members, internal, always), pending[start])
        return None

    def _loop(self, start, members, internal, required) -> list:
        """A cycle from `start` through an edge taking each required progress move, back to `start`."""
        by_source: dict[int, list] = {}
        for v, t, n, a in internal:
            by_source.setdefault(v, []).append((t, n, a))
        loop, here = [], start
        for key in sorted(required) + [None]:
            if key is None:
                goal = lambda v, t, n, a: t == start   # noqa: E731
            else:
                goal = lambda v, t, n, a, key=key: move_key(n, a) == key   # noqa: E731
            path = _bfs_edge(here, by_source, goal)
            loop.extend((n, a) for _, n, a in path)
            here = path[-1][0]
            if key is None:
                break
        if here != start:
            raise AssertionError("the loop does not close")
        return loop


def _bfs_edge(src, by_source, goal) -> list:
    """The shortest path of edges from `src` ending with an edge satisfying `goal`."""
    from collections import deque
    prev = {src: None}
    queue = deque([src])
    while queue:
        v = queue.popleft()
        for t, n, a in by_source.get(v, ()):
            if goal(v, t, n, a):
                path = [(t, n, a)]
                while prev[v] is not None:
                    pv, edge = prev[v]
                    path.append(edge)
                    v = pv
                return path[::-1]
            if t not in prev:
                prev[t] = (v, (t, n, a))
                queue.append(t)
    raise AssertionError("no such edge in the component")


def _sccs(nodes, succ):
    """Tarjan's algorithm, iteratively (graphs deeper than Python's recursion limit)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out
