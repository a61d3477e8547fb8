"""Mermaid `stateDiagram-v2` text of a `Graph`: renders on a Git host, no tooling needed."""
from __future__ import annotations

import re

from verifier.writers.diagrams.graph import Graph

HEADER = "%% Generated from model.lifecycle by `taskmodel diagrams`; do not edit by hand."


def ident(state: str) -> str:
    """A Mermaid state id: letters, digits and underscores only."""
    return "s_" + re.sub(r"[^A-Za-z0-9_]", "_", state)


def text(label: str, colon: bool = True) -> str:
    """One line of Mermaid label text: no characters Mermaid reads as syntax (a note takes no colon)."""
    label = label if colon else label.replace(": ", " — ").replace(":", " ")
    return re.sub(r"[;#{}]", " ", label.replace("\n", " · ")).strip()


def to_mermaid(graph: Graph) -> str:
    lines = [HEADER, f"%% {graph.title}", "stateDiagram-v2", f"    direction {graph.direction}"]
    for n in graph.nodes:
        first, *rest = n.label.split("\n")
        lines.append(f'    state "{text(first)}" as {ident(n.id)}')
        for more in rest:
            lines.append(f"    {ident(n.id)} : {text(more)}")
    if graph.initial:
        lines.append(f"    [*] --> {ident(graph.initial)}")
    for e in graph.edges:
        label = text(e.label)
        if "visited" in e.marks:
            label = "▶ " + label
        lines.append(f"    {ident(e.src)} --> {ident(e.dst)} : {label}")
    for n in graph.nodes:
        if n.terminal:
            lines.append(f"    {ident(n.id)} --> [*]")
    for n in graph.nodes:
        if n.note:
            lines.append(f"    note right of {ident(n.id)} : {text(n.note, colon=False)}")
    for i, (label, fill, stroke) in enumerate(graph.legend):
        lines.append(f'    state "{text(label)}" as legend_{i}')
    # Styles: one class per distinct (fill, stroke), in first-use order.
    classes: dict[tuple[str, str, bool], list[str]] = {}
    for n in graph.nodes:
        strong = bool({"visited", "current", "violation"} & set(n.marks))
        classes.setdefault((n.fill, n.stroke, strong), []).append(ident(n.id))
    for i, (_, fill, stroke) in enumerate(graph.legend):
        classes.setdefault((fill, stroke, False), []).append(f"legend_{i}")
    for i, ((fill, stroke, strong), members) in enumerate(classes.items()):
        width = "3px" if strong else "1px"
        lines.append(f"    classDef c{i} fill:{fill},stroke:{stroke},stroke-width:{width},color:#111827")
        lines.append(f"    class {','.join(members)} c{i}")
    return "\n".join(lines) + "\n"
