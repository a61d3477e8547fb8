"""The run lifecycle with a trace's runs' paths highlighted.

The states any run of the trace visited are filled, the edges they took are bold and numbered by
step (and by run, when there are several), and the state the focus run (the one the violation is
about) was in when the property broke is marked as the violation. The report highlights requests
and the harness's tool executions as well, step by step (verifier/writers/report).
"""
from __future__ import annotations

from dataclasses import replace

from verifier.writers.diagrams.graph import FADED, VIOLATION, VISITED, Graph, Node, lifecycle_graph
from verifier.writers.diagrams.trace import Trace

VISITED_EDGE = "#b45309"
PER_LINE = 3            # steps per line of an edge's label: many runs' steps stay a narrow label


def _steps(steps: list[str]) -> str:
    return "\n".join(", ".join(steps[i:i + PER_LINE]) for i in range(0, len(steps), PER_LINE))


def run_ids(trace: Trace) -> list[str]:
    """Every run of the trace, in the order it appeared."""
    out: list[str] = []
    for s in trace.steps:
        out += [rid for rid in (s.state.get("runs") or {}) if rid not in out]
    return out


def path_graph(trace: Trace, upto: int | None = None) -> Graph:
    """The run lifecycle with every run's path up to step `upto` (the whole trace by default)."""
    g = lifecycle_graph("run")
    focus = trace.focus_run()
    last_index = trace.steps[-1].index if trace.steps else 0
    upto = last_index if upto is None else upto
    runs = [r for r in run_ids(trace) if trace.status_path(r)]
    paths = {r: [(i, s) for i, s in trace.status_path(r) if i <= upto] for r in runs}
    path = paths.get(focus, [])
    ids = ", ".join(trace.ids) or trace.meta.get("property", "?")
    label = trace.run_label(focus) if focus else "no run"
    labels = [trace.run_label(r) for r in runs if paths[r]] or [label]
    many = len(labels) > 1
    named = ", ".join(labels)
    g.name = "lifecycle"
    g.title = (f"{trace.meta.get('variant', '?')} / {trace.meta.get('property', '?')}: "
               f"the path{'s' if many else ''} of {named} ({ids})")
    g.description = (f"The run lifecycle with the path{'s' if many else ''} of {named} in the counterexample "
                     f"highlighted; the last state of {label} is where {ids} broke.")
    visited = {s for p in paths.values() for _, s in p}
    states = {n.id for n in g.nodes}
    for s in sorted(visited - states):             # a status the baseline lifecycle does not know
        g.nodes.append(Node(s, s))
        states.add(s)
    taken: dict[tuple[str, str], list[str]] = {}
    for r in runs:
        for (_, a), (i, b) in zip(paths[r], paths[r][1:]):
            taken.setdefault((a, b), []).append(f"{i} ({trace.run_label(r)})" if many else str(i))
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
            edges.append(replace(e, label=f"{e.label}\nstep {_steps(steps)}", colour=VISITED_EDGE,
                                 style="bold", marks=("visited",)))
        else:
            edges.append(replace(e, colour=FADED))
    # A step the baseline lifecycle does not have (a variant's extra transition): drawn, dashed.
    for (a, b), steps in taken.items():
        edges.append(replace(edges[0], src=a, dst=b, label=f"not in the baseline lifecycle\nstep {_steps(steps)}",
                             colour=VIOLATION[1], style="dashed",
                             marks=("visited", "extra")))
    g.edges = edges
    g.legend = [("visited by " + named, *VISITED), (("violation: " + ids) if violation else "now", *VIOLATION)]
    return g
