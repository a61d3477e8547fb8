"""Graphviz DOT text of a `Graph` (deterministic: same graph, same bytes)."""
from __future__ import annotations

from verifier.writers.diagrams.graph import Graph

FONT = "Helvetica"
HEADER = "// Generated from model.lifecycle by `taskmodel diagrams`; do not edit by hand."


def q(text: str) -> str:
    """A DOT quoted string; "\\n" in `text` becomes a centred line break."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_id(graph: Graph, state: str) -> str:
    """The SVG element id of a state's node (the report's script finds states by it)."""
    return f"{graph.lifecycle}-{state}"


def edge_id(graph: Graph, src: str, dst: str, i: int) -> str:
    """The SVG element id of an edge: `<lifecycle>-edge-<src>--<dst>--<i>`."""
    return f"{graph.lifecycle}-edge-{src}--{dst}--{i}"


def to_dot(graph: Graph) -> str:
    lines = [
        HEADER,
        f"digraph {q(graph.name)} {{",
        f"  graph [rankdir={graph.direction}, fontname={q(FONT)}, fontsize=14, labelloc=t, "
        f"label={q(graph.title)}, nodesep=0.6, ranksep=0.45, bgcolor=\"white\"];",
        f"  node [shape=box, style=\"rounded,filled\", fontname={q(FONT)}, fontsize=11, penwidth=1.2];",
        f"  edge [fontname={q(FONT)}, fontsize=9, arrowsize=0.7];",
    ]
    if graph.initial:
        lines.append(f"  __start__ [id={q(graph.lifecycle + '--start')}, shape=circle, style=filled, "
                     f"fillcolor=\"#111827\", label=\"\", width=0.18];")
    for n in graph.nodes:
        attrs = [f"id={q(node_id(graph, n.id))}", f"label={q(n.label)}", f"fillcolor={q(n.fill)}",
                 f"color={q(n.stroke)}"]
        if n.terminal:
            attrs.append("peripheries=2")
        if "violation" in n.marks:
            attrs.append("penwidth=3")
        elif "current" in n.marks or "visited" in n.marks:
            attrs.append("penwidth=2")
        if n.note:
            attrs.append(f"xlabel={q(n.note)}")
            attrs.append(f"fontcolor={q(n.stroke)}")
        lines.append(f"  {q(n.id)} [{', '.join(attrs)}];")
    if graph.initial:
        lines.append(f"  __start__ -> {q(graph.initial)};")
    for i, e in enumerate(graph.edges):
        attrs = [f"id={q(edge_id(graph, e.src, e.dst, i))}", f"label={q(e.label)}",
                 f"color={q(e.colour)}", f"fontcolor={q(e.colour)}"]
        if e.style == "dashed":
            attrs.append("style=dashed")
        elif e.style == "bold":
            attrs.append("penwidth=2.2")
        lines.append(f"  {q(e.src)} -> {q(e.dst)} [{', '.join(attrs)}];")
    if graph.legend:
        lines.append("  subgraph cluster_legend {")
        lines.append(f"    label=\"legend\"; fontsize=10; color=\"#d1d5db\"; style=rounded;")
        prev = None
        for i, (label, fill, stroke) in enumerate(graph.legend):
            lid = f"__legend_{i}"
            lines.append(f"    {lid} [label={q(label)}, fillcolor={q(fill)}, color={q(stroke)}, fontsize=9, "
                         f"fontcolor={q(stroke)}];")
            if prev is not None:
                lines.append(f"    {prev} -> {lid} [style=invis];")
            prev = lid
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"
