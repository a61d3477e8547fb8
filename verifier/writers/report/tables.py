"""The report's tables of a check result: verdict counts, properties, bounds, scope, coverage, expectations.

Every row a filter can hide carries `data-verdict`, `data-area` (the requirement families of its
ids, e.g. OWN), `data-ids`, `data-variant` and `data-text` (what the search box matches), read by
the script.
"""
from __future__ import annotations

import json
from html import escape

VERDICT_CLASS = {
    "holds": "ok", "reached": "ok", "proved": "ok", "proved-bounded": "ok", "refuted": "bad", "unreached": "bad",
    "tool-error": "bad", "known-gap": "gap", "undetermined": "unk", "vacuous": "unk",
}


def h(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def verdict_badge(verdict: str | None) -> str:
    v = verdict or "?"
    return f'<span class="verdict v-{VERDICT_CLASS.get(v, "unk")}">{h(v)}</span>'


def areas(ids) -> list[str]:
    """The requirement families of ids: OWN-2 -> OWN."""
    return sorted({str(i).rsplit("-", 1)[0] for i in ids or []})


def filter_attrs(verdict, ids, variant, *words) -> str:
    text = " ".join(str(w) for w in (*(ids or []), *words) if w).lower()
    return (f' data-filterable data-verdict="{h(verdict)}" data-area="{h(" ".join(areas(ids)))}" '
            f'data-ids="{h(" ".join(map(str, ids or [])))}" data-variant="{h(variant)}" data-text="{h(text)}"')


def table(head: list[str], rows: list[str], cls: str = "grid-table") -> str:
    """A table in a box that scrolls sideways on a narrow screen."""
    th = "".join(f"<th>{h(x)}</th>" for x in head)
    return (f'<div class="scroll"><table class="{cls}"><thead><tr>{th}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def cell(value) -> str:
    """A value for a table cell: scalars as they are, a flat object as `k=v` lines, anything else as JSON."""
    if isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
        return "<br>".join(f"<code>{h(k)}</code>={h(v)}" for k, v in value.items()) or "—"
    if isinstance(value, (dict, list)):
        return f"<code>{h(json.dumps(value, sort_keys=True))}</code>"
    if isinstance(value, bool):
        return h(str(value).lower())
    return h("—" if value is None else value)


def kv_table(mapping: dict) -> str:
    return table(["name", "value"], [f"<tr><td><code>{h(k)}</code></td><td>{cell(v)}</td></tr>"
                                     for k, v in mapping.items()], "kv")


def summary_table(results: list[dict]) -> str:
    """Verdict counts, one row per engine."""
    verdicts = sorted({p.get("verdict") for r in results for p in r.get("properties", [])}, key=str)
    rows = []
    for r in results:
        got = [p.get("verdict") for p in r.get("properties", [])]
        counts = "".join(f"<td class=num>{got.count(v) or ''}</td>" for v in verdicts)
        rows.append(f"<tr><td>{h(r.get('engine'))}</td>{counts}<td class=num>{len(got)}</td></tr>")
    head = ["engine", *[str(v) for v in verdicts], "properties"]
    return table(head, rows, "summary")


def properties_table(result: dict, variant, link) -> str:
    """One row per property; `link(property)` is the row's step-through anchor or ''."""
    rows = []
    for p in result.get("properties", []):
        if not isinstance(p, dict):
            continue
        ids = p.get("ids") or []
        rows.append(
            f"<tr{filter_attrs(p.get('verdict'), ids, variant, p.get('name'), p.get('message'))}>"
            f"<td><code>{h(p.get('name'))}</code></td><td>{h(', '.join(ids))}</td>"
            f"<td>{h(p.get('kind'))}</td><td>{verdict_badge(p.get('verdict'))}</td>"
            f"<td class=num>{h(p.get('length') if p.get('length') is not None else '')}</td>"
            f"<td class=num>{h(p.get('premise', ''))}</td><td>{cases_cell(p)}</td>"
            f"<td class=msg>{h(p.get('message') or '')}</td><td>{link(p)}</td></tr>")
    return table(["property", "requirement ids", "kind", "verdict", "length", "premise reached", "premise cases",
                  "message", "trace"], rows, "props")


def cases_cell(p: dict) -> str:
    """"k of n", and the cases never reached: a proof needs every one; the whole list one click away."""
    cases = p.get("cases") or {}
    if not isinstance(cases, dict) or not cases:
        return ""
    missing = [c for c, n in cases.items() if not n]
    detail = "".join(f"<li>{h(c)}: {h(n)}</li>" for c, n in cases.items())
    summary = f"{len(cases) - len(missing)} of {len(cases)}" + (f"; never: {'; '.join(missing)}" if missing else "")
    return f"<details><summary>{h(summary)}</summary><ul>{detail}</ul></details>"


def coverage_table(result: dict) -> str:
    actions = (result.get("coverage") or {}).get("actions") or {}
    ordered = sorted(actions.items(), key=lambda kv: (-kv[1], kv[0]))
    return table(["action", "fired"], [f"<tr><td><code>{h(a)}</code></td><td class=num>{h(n)}</td></tr>"
                                       for a, n in ordered], "kv")


def result_tables(result: dict) -> str:
    """Bounds, budget, scope, states, coverage, overrides and faults of one engine's result."""
    parts = []
    for title, key in (("Bounds", "bounds"), ("Budget", "budget"), ("Scope", "scope"), ("States", "states")):
        if isinstance(result.get(key), dict) and result[key]:
            parts.append(f"<div class=box><h4>{title}</h4>{kv_table(result[key])}</div>")
    if result.get("stopped"):
        parts.append(f"<div class=box><h4>Stopped</h4><p>{h(result['stopped'])}</p></div>")
    overrides = result.get("overrides") or {}
    if overrides:
        idle = set(result.get("unexercised") or [])
        rows = [f"<tr><td><code>{h(rule)}</code></td><td class=num>{h(o.get('calls'))}</td>"
                f"<td class=num>{h(o.get('differed'))}</td><td>{'unexercised' if rule in idle else ''}</td></tr>"
                for rule, o in overrides.items() if isinstance(o, dict)]
        head = ["rule", "calls", "answered otherwise", ""]
        parts.append(f"<div class=box><h4>Overridden rules</h4>{table(head, rows, 'kv')}</div>")
    out = f'<div class="boxes">{"".join(parts)}</div>'
    if (result.get("coverage") or {}).get("actions"):
        out += f"<details><summary>coverage: how often each action fired</summary>{coverage_table(result)}</details>"
    faults = result.get("faults") or []
    if faults:
        rows = [f"<tr><td><code>{h(f.get('where'))}</code></td><td>{h(f.get('error'))}</td>"
                f"<td>{h(f.get('action'))}</td><td class=num>{h(f.get('length'))}</td></tr>"
                for f in faults if isinstance(f, dict)]
        out += "<h4>Faults</h4>" + table(["where", "error", "action", "steps"], rows, "props")
    return out


def expectations_table(expectations: list) -> str:
    rows = [f"<tr><td>{h(e.get('id'))}</td><td>{h(e.get('want'))}</td><td>{h(', '.join(e.get('got') or []))}</td>"
            f"<td>{_met(e.get('met'))}</td></tr>" for e in expectations if isinstance(e, dict)]
    return table(["id", "expected", "got", ""], rows, "kv")


def _met(met) -> str:
    return f'<span class="verdict v-{"ok" if met else "bad"}">{"as expected" if met else "unexpected"}</span>'


def filters(verdicts, area_names, id_names, variants) -> str:
    def select(name, values):
        opts = "".join(f'<option value="{h(v)}">{h(v)}</option>' for v in values)
        return f'<label>{h(name)} <select data-filter="{h(name)}"><option value="">all</option>{opts}</select></label>'
    return ('<form class="filters" role="search" onsubmit="return false">'
            + select("verdict", verdicts) + select("area", area_names) + select("id", id_names)
            + select("variant", variants)
            + '<label>search <input type="search" data-filter="text" placeholder="an id, a name or words"></label>'
            '<span class="shown" aria-live="polite"></span></form>')
