"""What the report's step view shows of a trace: the whole state after each step as tables, the
tasks as their caller reads them, and the path of every entity through its lifecycle.

The page's script renders a step's tables from this data and marks what differs from the step
before, so a page of a thousand traces holds each state once, as JSON, not as HTML.
"""
from __future__ import annotations

from types import SimpleNamespace

from verifier.writers.diagrams.trace import Trace

# The tables of a state, in the order shown, each with the field naming its row.
TABLES = ("world", "runs", "tasks", "interrupts", "requests", "executions")
TITLES = {"world": "world", "runs": "runs", "tasks": "tasks, as a tasks/get caller reads them",
          "interrupts": "interrupts", "requests": "requests",
          "executions": "tool executions, the harness's records (client/operation)"}
HIDDEN = {"label"}                       # shown as the row's name instead


def projector(variant: str | None):
    """The variant's §D projection (run status -> task status, isError), and where it comes from.
    An author's amendment is never imported because a trace names it: the RFC's projection is used."""
    from model.rules import Rules
    from verifier.runtime.exitcodes import UsageError
    from verifier.writers.reproduce import variant_class
    try:
        cls = variant_class(variant or "baseline")
        rules, source = (cls() if cls else Rules()), f"the projection of {variant or 'baseline'}"
    except UsageError:
        rules, source = Rules(), "the RFC's projection (the variant is not built in)"

    def project(status: str) -> tuple[str, bool | None]:
        try:
            return rules.project_status(None, SimpleNamespace(status=status))
        except (KeyError, AttributeError, TypeError):
            return ("?", None)
    return project, source


def cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, list):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def rows(state: dict, project) -> dict[str, dict[str, dict[str, str]]]:
    """table -> row name -> field -> value as shown."""
    out: dict[str, dict[str, dict[str, str]]] = {t: {} for t in TABLES}
    out["world"]["now"] = {"clock": cell(state.get("clock")), "external effects": cell(state.get("effects"))}
    for table in ("runs", "interrupts", "requests", "executions"):
        for key, rec in (state.get(table) or {}).items():
            rec = rec if isinstance(rec, dict) else {}
            name = str(rec.get("label") or key)
            fields = {k: cell(v) for k, v in rec.items() if k not in HIDDEN}
            if name != key:
                fields["id"] = str(key)      # a raw id is long: last
            out[table][name] = fields
    for key, rec in (state.get("runs") or {}).items():
        if not isinstance(rec, dict) or not rec.get("taskId"):
            continue
        status, is_error = project(str(rec.get("status")))
        out["tasks"][str(rec.get("label") or key)] = {
            "taskId": str(rec["taskId"]), "status": "not found (purged)" if rec.get("purged") else status,
            "isError": cell(is_error), "run status": cell(rec.get("status"))}
    return out


def state_data(trace: Trace, variant: str | None) -> dict:
    """{tables: [{name, title, columns}], steps: [[{row: [cells]} per table] per step], source}."""
    project, source = projector(variant)
    per_step = [rows(s.state, project) for s in trace.steps]
    columns: dict[str, list[str]] = {t: [] for t in TABLES}
    for r in per_step:
        for t in TABLES:
            for fields in r[t].values():
                columns[t] += [f for f in fields if f not in columns[t]]
    used = [t for t in TABLES if columns[t]]
    return {
        "tables": [{"name": t, "title": TITLES[t], "columns": columns[t]} for t in used],
        "steps": [[{name: [fields.get(c, "") for c in columns[t]] for name, fields in r[t].items()} for t in used]
                  for r in per_step],
        "projection": source,
    }


def paths(trace: Trace) -> list[dict]:
    """Every run's status, request's phase and tool execution's status, as it changed:
    [{lc, name, path: [[step, state], ...]}], lc naming the lifecycle of `model.lifecycle`."""
    out = []
    for table, lc, field in (("runs", "run", "status"), ("requests", "request", "phase"),
                             ("executions", "tool_execution", "status")):
        found: dict[str, list[list]] = {}
        for s in trace.steps:
            for key, rec in (s.state.get(table) or {}).items():
                if not isinstance(rec, dict) or rec.get(field) is None:
                    continue
                name = str(rec.get("label") or key)
                p = found.setdefault(name, [])
                if not p or p[-1][1] != rec[field]:
                    p.append([s.index, str(rec[field])])
        out += [{"lc": lc, "name": name, "path": p} for name, p in found.items()]
    return out
