"""Counterexamples for people: the story (`trace.md`) and the sequence diagram (`sequence.mmd`, drawn by `verifier.writers.diagrams.sequence`).

Both are read from the written ITF trace alone. The story opens with the requirement broken and
its clause, embeds the sequence diagram (a Git host renders a ```mermaid block), then tells each
step with only what changed and, one click away, the whole state after it.
"""
from __future__ import annotations

from properties.requirements import REQUIREMENTS

from verifier.writers.diagrams.sequence import VERB, loop_words, sequence
from verifier.writers.diagrams.trace import parse

# The name of what a trace shows, by property kind.
SHOWS = {"witness": "Requirement reached", "gap": "Known gap"}


def story(itf: dict) -> str:
    t = parse(itf)
    meta = t.meta
    ids = t.ids
    verb = VERB.get(meta.get("kind"), "breaks")
    clauses = "; ".join(f"{i} ({REQUIREMENTS.get(i, ('?', '?'))[1]})" for i in ids)
    last = t.steps[-1].index if t.steps else 0
    lines = [
        f"# {meta['variant']}: {meta['property']} {verb} {', '.join(ids)}",
        "",
        f"> **{SHOWS.get(meta.get('kind'), 'Broken requirement')}**: {clauses}, checked as `{meta['property']}` "
        f"({meta.get('clause', '?')}) at step {last}",
        ">",
        f"> {meta['message']}",
        "",
        f"- **Property** `{meta['property']}`: {meta['sentence']}",
        f"- **Variant** `{meta['variant']}`: {meta.get('changes') or 'the RFC as written'}",
        f"- **Length**: {meta['length']} steps (seed {meta.get('seed', 0)}); replay with "
        f"`taskmodel replay {meta.get('path', 'trace.itf.json')}`",
    ]
    if t.loop is not None:
        lines.append(f"- **Loops**: {loop_words(t.loop, last)}")
    lines += ["", "## Sequence", "", "```mermaid", sequence(itf).rstrip("\n"), "```", "", "## Steps", ""]
    for s in t.steps[1:]:
        lines.append(f"{s.index}. {s.note}")
        lines += [f"   - {c}" for c in s.changes]
        lines += ["", f"   <details><summary>the whole state after step {s.index}</summary>", "", "   ```text"]
        lines += [f"   {row}" for row in state_lines(s.state)]
        lines += ["   ```", "", "   </details>", ""]
    lines += [f"## Why this state {verb} {', '.join(ids)}", "", meta["message"], ""]
    return "\n".join(lines)


def state_lines(state: dict) -> list[str]:
    """The variables of one state, an entity a line: `run1 (raw id): status=running, ...`."""
    out = [f"clock={state.get('clock')}, external effects={state.get('effects')}"]
    for table in ("runs", "interrupts", "requests", "executions"):
        for key, rec in (state.get(table) or {}).items():
            rec = rec if isinstance(rec, dict) else {}
            name = rec.get("label") or key
            head = f"{name} ({key})" if name != key else name
            fields = ", ".join(f"{k}={_word(v)}" for k, v in rec.items() if k != "label" and v is not None)
            out.append(f"{head}: {fields}")
    return out


def _word(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, list):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)
