"""The run lifecycle with a counterexample's path highlighted.

The states the trace's run visited are filled, the edges it took are bold and numbered by step, and
the state it was in when the property broke is marked as the violation.
"""
from __future__ import annotations

from dataclasses import replace

from .graph import FADED, VIOLATION, VISITED, Graph, Node, lifecycle_graph
from .trace import Trace

VISITED_EDGE = "#b45309"


def path_graph(trace: Trace, upto: int | None = None) -> Graph:
    """The run lifecycle with the focus run's path up to step `upto` (the whole trace by default)."""
    g = lifecycle_graph("run")
    run = trace.focus_run()
    last_index = trace.steps[-1].index if trace.steps else 0
    upto = last_index if upto is None else upto
    path = [(i, s) for i, s in trace.status_path(run) if i <= upto]
    ids = ", ".join(trace.ids) or trace.meta.get("property", "?")
    label = trace.run_label(run) if run else "no run"
    g.name = "lifecycle"
    g.title = (f"{trace.meta.get('variant', '?')} / {trace.meta.get('property', '?')}: "
               f"the path of {label} ({ids})")
    g.description = (f"The run lifecycle with the path of {label} in the counterexample highlighted; the last "
                     f"state is where {ids} broke.")
    visited = {s for _, s in path}
    states = {n.id for n in g.nodes}
    for s in sorted(visited - states):             # a status the baseline lifecycle does not know
        g.nodes.append(Node(s, s))
        states.add(s)
    taken: dict[tuple[str, str], list[int]] = {}
    for (_, a), (i, b) in zip(path, path[1:]):
        taken.setdefault((a, b), []).append(i)
    for n in list(g.nodes):
        if n.id in visited:
            g.replace_node(n.id, fill=VISITED[0], stroke=VISITED[1], marks=("visited",))
        else:
            g.replace_node(n.id, stroke=FADED)
    violation = upto >= last_index and bool(path)
    if path:
        end_step, end = path[-1]
        mark = "violation" if violation else "current"
        colours = VIOLATION if violation else VISITED
        note = f"{'violation' if violation else 'now'}: {ids}" if violation else "now"
        if end in states:
            g.replace_node(end, fill=colours[0], stroke=colours[1], marks=("visited", mark), note=note)
        start_step, start = path[0]
        if start in states and start != end:
            g.replace_node(start, note=f"{label} from step {start_step}")
    edges = []
    for e in g.edges:
        steps = taken.pop((e.src, e.dst), None)
        if steps:
            edges.append(replace(e, label=f"{e.label}\nstep {', '.join(map(str, steps))}", colour=VISITED_EDGE,
                                 style="bold", marks=("visited",)))
        else:
            edges.append(replace(e, colour=FADED))
    # A step the baseline lifecycle does not have (a variant's extra transition): drawn, dashed.
    for (a, b), steps in taken.items():
        edges.append(replace(edges[0], src=a, dst=b, label=f"not in the baseline lifecycle\nstep "
                             f"{', '.join(map(str, steps))}", colour=VIOLATION[1], style="dashed",
                             marks=("visited", "extra")))
    g.edges = edges
    g.legend = [("visited by " + label, *VISITED), (("violation: " + ids) if violation else "now", *VIOLATION)]
    return g
