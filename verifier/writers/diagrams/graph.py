"""A neutral description of a lifecycle diagram, built from the `transitions` machines of `model.lifecycle`.

Every backend (DOT, SVG, Mermaid) draws a `Graph`; none of them knows a state or a trigger by name.
The nodes and edges come from `build_machine(name, machine_class=MarkupMachine)` (the base class of
transitions' `GraphMachine`): the very machine the model fires its steps through, read back as markup.
The decorations come from the model too: the task status of each run status from
`model.projection.STATUS_PROJECTION`, and the disconnect edges and the ownership cut of a request from
`verifier.writers.diagrams.probe`, which drives the real model's actions.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from transitions.extensions.markup import MarkupMachine

from model import lifecycle

# Colours shared by every backend (fill, stroke).
TASK_COLOURS = {
    "working": ("#dbeafe", "#1d4ed8"),
    "input_required": ("#fef3c7", "#b45309"),
    "completed": ("#dcfce7", "#15803d"),
    "completed (isError)": ("#fee2e2", "#b91c1c"),
    "cancelled": ("#e5e7eb", "#374151"),
}
PLAIN = ("#ffffff", "#374151")
OWNING = ("#ede9fe", "#6d28d9")
VISITED = ("#fde68a", "#92400e")
VIOLATION = ("#fecaca", "#b91c1c")
SIGNAL_COLOUR = "#b91c1c"
CUT_COLOUR = "#6d28d9"
FADED = "#9ca3af"

TITLES = {
    "run": "The run lifecycle (RunSnapshot.status)",
    "request": "A request's life on the wire",
    "tool_execution": "The harness's tool-execution record",
}
DESCRIPTIONS = {
    "run": "The ten statuses of an OpenWOP run and the protocol actions (the `transitions` triggers of "
           "`model.lifecycle`) that take a run from one to the next. Terminal statuses have a double border.",
    "request": "A JSON-RPC request from receipt to its end. `sent` is the RFC's cut: the whole final response "
               "left the host. Purple states may own a run (OWN-1); the edges marked ✂ \"ownership ends\" are "
               "where the model releases it (`Rules.releases_ownership`), purple in the SVG. The edges marked ⚡ "
               "are taken by a cancellation signal (an HTTP disconnect, a stdio `notifications/cancelled`, a stdio "
               "EOF), red in the SVG; the loops marked \"no effect\" (dashed grey in the SVG) are signals that "
               "change nothing (§G.13). Mermaid cannot colour a state diagram's edges: the marks say it there.",
    "tool_execution": "The client harness's record of one remote tool call: the local authority (HNS-5). The remote "
                      "task status lives inside it; `unknown` is \"effect unknown: reconcile\" (HNS-4).",
}


@dataclass(frozen=True)
class Node:
    id: str                               # the state's name in the lifecycle
    label: str                            # lines joined by "\n"
    fill: str = PLAIN[0]
    stroke: str = PLAIN[1]
    terminal: bool = False
    marks: tuple[str, ...] = ()           # owning | visited | current | violation | legend
    note: str | None = None               # a side note (Mermaid note, DOT xlabel)


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    label: str                            # lines joined by "\n"
    colour: str = "#374151"
    style: str = "solid"                  # solid | dashed | bold
    marks: tuple[str, ...] = ()           # signal | no-effect | cut | visited


@dataclass
class Graph:
    name: str                             # file stem, e.g. run-lifecycle
    lifecycle: str                        # the LIFECYCLES key it was built from
    title: str
    description: str
    initial: str | None
    nodes: list[Node]
    edges: list[Edge]
    legend: list[tuple[str, str, str]] = field(default_factory=list)   # (label, fill, stroke)
    direction: str = "TB"

    def node(self, state: str) -> Node:
        return next(n for n in self.nodes if n.id == state)

    def replace_node(self, state: str, **changes) -> None:
        self.nodes = [replace(n, **changes) if n.id == state else n for n in self.nodes]


def stem(name: str) -> str:
    return name.replace("_", "-")


def markup(name: str) -> dict:
    """The lifecycle as the `transitions` machine itself describes it."""
    return lifecycle.build_machine(name, machine_class=MarkupMachine).markup


def lifecycle_graph(name: str) -> Graph:
    """A lifecycle of `model.lifecycle.LIFECYCLES`: its states, one edge per (source, trigger)."""
    m = markup(name)
    states = [s["name"] for s in m["states"]]
    transitions = [(t["source"], t["dest"], t["trigger"]) for t in m["transitions"]]
    has_exit = {src for src, _, _ in transitions}
    # Edges between the same two states are drawn once, their triggers listed together.
    merged: dict[tuple[str, str], list[str]] = {}
    for src, dst, trig in transitions:
        merged.setdefault((src, dst), []).append(trig)
    nodes = [Node(s, s, terminal=s not in has_exit) for s in states]
    edges = [Edge(src, dst, "\n".join(trigs)) for (src, dst), trigs in merged.items()]
    return Graph(stem(name) + "-lifecycle", name, TITLES.get(name, f"The {name} lifecycle"),
                 DESCRIPTIONS.get(name, f"The `{name}` lifecycle of `model.lifecycle.LIFECYCLES`."),
                 m.get("initial"), nodes, edges, direction="LR" if name == "request" else "TB")


def task_status_of(run_status: str) -> str:
    from model.projection import STATUS_PROJECTION
    task, is_error = STATUS_PROJECTION[run_status]
    return f"{task} (isError)" if is_error else task


def projection_graph() -> Graph:
    """The run lifecycle coloured by the task status each run status projects to (map mcp.tasks.status)."""
    from model.projection import STATUS_PROJECTION
    g = lifecycle_graph("run")
    g.name = "run-task-projection"
    g.title = "Run statuses seen as task statuses (the §D projection)"
    g.description = ("The same run lifecycle, each status filled with the colour of the MCP task status it projects "
                     "to (`model.projection.STATUS_PROJECTION`). A task is one view of a run: the edges inside one "
                     "colour are invisible to a `tasks/get` caller.")
    used: list[str] = []
    for n in list(g.nodes):
        task = task_status_of(n.id)
        if task not in used:
            used.append(task)
        fill, stroke = TASK_COLOURS.get(task, PLAIN)
        wire, is_error = STATUS_PROJECTION[n.id]
        shown = f"task: {wire}" + (f", isError: {str(is_error).lower()}" if is_error is not None else "")
        g.replace_node(n.id, label=f"{n.id}\n{shown}", fill=fill, stroke=stroke)
    order = list(TASK_COLOURS) + [t for t in used if t not in TASK_COLOURS]
    g.legend = [(f"task status: {t}", *TASK_COLOURS.get(t, PLAIN)) for t in order if t in used]
    return g


def request_graph() -> Graph:
    """A request's life, with the cancellation signals and the ownership cut observed in the model."""
    from verifier.writers.diagrams.probe import probe_requests
    g = lifecycle_graph("request")
    found = probe_requests()
    edges: list[Edge] = []
    for e in g.edges:
        obs = found.edges.get((e.src, e.dst), {})
        signals = [a for a in obs.get("actions", ()) if a in found.signals]
        others = [a for a in obs.get("actions", ()) if a not in found.signals]
        lines = e.label.split("\n")
        marks: list[str] = []
        colour, style = e.colour, e.style
        if others and others != lines[:1]:
            lines.append("by " + ", ".join(others))
        if signals:
            lines.append("⚡ by " + ", ".join(signals))
            marks.append("signal")
            colour, style = SIGNAL_COLOUR, "bold"
        if obs.get("releases"):
            lines.append("✂ ownership ends")
            marks.append("cut")
            if not signals:
                colour, style = CUT_COLOUR, "bold"
        edges.append(replace(e, label="\n".join(lines), colour=colour, style=style, marks=tuple(marks)))
    for state, actions in sorted(found.no_effect.items(), key=lambda kv: found.order(kv[0])):
        edges.append(Edge(state, state, ", ".join(actions) + "\nno effect", colour=FADED, style="dashed",
                          marks=("signal", "no-effect")))
    g.edges = edges
    for state in found.owning:
        g.replace_node(state, fill=OWNING[0], stroke=OWNING[1], marks=("owning",),
                       label=f"{state}\nmay own a run")
    # Edge entries name the mark every backend draws; the colour only the SVG draws is said as such.
    g.legend = [("may own a run (OWN-1)", *OWNING),
                ("⚡ a cancellation signal (a red edge in the SVG)", "#ffffff", SIGNAL_COLOUR),
                ("✂ ownership ends (a purple edge in the SVG)", "#ffffff", CUT_COLOUR)]
    return g


def graphs() -> list[Graph]:
    """Every diagram of diagrams/, in a stable order: the run first, then every other lifecycle."""
    out: list[Graph] = []
    for name in lifecycle.LIFECYCLES:
        if name == "run":
            out += [lifecycle_graph("run"), projection_graph()]
        elif name == "request":
            out.append(request_graph())
        else:
            out.append(lifecycle_graph(name))
    return out
