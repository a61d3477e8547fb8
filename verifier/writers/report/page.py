"""The report page: HTML, CSS and script in one file, built from plain data (deterministic output)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import unescape
from pathlib import Path

from verifier.writers.diagrams import dot, graph, mermaid, sequence, svg
from verifier.writers.diagrams import trace as itf_trace

from verifier.writers.report import steps, tables
from verifier.writers.report.tables import areas, filter_attrs, h


@dataclass
class Counterexample:
    source: str                      # the trace's path as given
    trace: itf_trace.Trace

    @property
    def title(self) -> str:
        m = self.trace.meta
        return f"{m.get('variant', '?')} / {m.get('property', '?')}"


def load_counterexample(path: Path) -> Counterexample:
    return Counterexample(path.as_posix(), itf_trace.load(path))


def prefix_ids(svg_text: str, prefix: str) -> str:
    """Give every id of an inline SVG a prefix, so several SVGs can share one page."""
    return re.sub(r'\bid="([^"]*)"', lambda m: f'id="{h(prefix + unescape(m.group(1)))}"', svg.inline(svg_text))


def lifecycle_svgs(diagrams_dir: Path) -> tuple[list[tuple[graph.Graph, str | None, str]], list[str]]:
    """(graph, svg or None, mermaid text) for every lifecycle diagram, and notes on what was skipped."""
    out, notes = [], []
    fallback = 0
    for g in graph.graphs():
        text = None
        try:
            text = svg.render(dot.to_dot(g))
        except svg.DotMissing:
            committed = Path(diagrams_dir) / f"{g.name}.svg"
            if committed.is_file():
                text = committed.read_text(encoding="utf-8")
                fallback += 1
        out.append((g, text, mermaid.to_mermaid(g)))
    if svg.dot_path() is None:
        notes.append(f"Graphviz `dot` not found: {fallback} diagram(s) inlined from the committed "
                     f"{Path(diagrams_dir).as_posix()}/, the others shown as Mermaid text; {svg.INSTALL_HINT}")
    return out, notes


# The lifecycles a trace's entities are drawn on, by the diagram that draws them.
STEP_LIFECYCLES = {"run": "run-lifecycle", "request": "request-lifecycle",
                   "tool_execution": "tool-execution-lifecycle"}


def step_templates(diagrams: list[tuple[graph.Graph, str | None, str]]) -> dict[str, str]:
    """lifecycle -> its SVG, held once in the page; the script copies it into a trace when opened.
    Drawn a point to a pixel (dot sizes in points): an 11 pt label reads as 11 px text."""
    by_name = {g.name: text for g, text, _ in diagrams if text}
    # dot writes the root's width and height first: the first two sizes of the file.
    return {lc: re.sub(r'\b(width|height)="([0-9.]+)pt"', r'\1="\2px"', by_name[name], count=2)
            for lc, name in STEP_LIFECYCLES.items() if name in by_name}


def _args(args: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())


def _json(data) -> str:
    """JSON for a <script type="application/json">: `</` cannot end the element early."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def lifecycle_panel(lc: str, entity_paths: list[dict], templates: dict[str, str]) -> str:
    names = ", ".join(p["name"] for p in entity_paths)
    head = f'<h5>The {h(lc.replace("_", "-"))} lifecycle: {h(names)}</h5><p class="lc-paths"></p>'
    if lc in templates:
        return f'<div class="lc" data-lc="{h(lc)}">{head}<div class="lc-svg"></div></div>'
    text = "; ".join(f"{p['name']}: " + " → ".join(f"{s} (step {k})" for k, s in p["path"]) for p in entity_paths)
    return (f'<div class="lc" data-lc="{h(lc)}">{head}<p class="skip">Diagram skipped: Graphviz <code>dot</code> '
            f"is missing and no committed {h(STEP_LIFECYCLES[lc])}.svg was found. {h(text)}</p></div>")


def cx_section(i: int, cx: Counterexample, templates: dict[str, str]) -> str:
    t = cx.trace
    m = t.meta
    run = t.focus_run()
    label = t.run_label(run) if run else None
    last = t.steps[-1].index if t.steps else 0
    witness = m.get("kind") in sequence.VERB
    panels, seq = [], []
    for s in t.steps:
        hidden = "" if s.index == last else " hidden"
        changes = "".join(f"<li><code>{h(c)}</code></li>" for c in s.changes) or "<li>nothing</li>"
        verdict = ""
        if s.index == last and m.get("message"):
            said = f"{', '.join(t.ids)} {'reached' if m.get('kind') == 'witness' else 'shown'} here" if witness \
                else f"{', '.join(t.ids)} broke here"
            verdict = f'<p class="violation-msg"><b>{h(said)}:</b> {h(m.get("message"))}</p>'
        panels.append(
            f'<div class="panel" data-i="{s.index}"{hidden}>'
            f'<h4>Step {s.index}: <code class="action">{h(s.action)}</code>'
            f'{f" <span class=actor>{h(s.actor)}</span>" if s.actor else ""}</h4>'
            f'<p class="note">{h(s.note)}</p>'
            + (f'<p class="args">arguments: <code>{h(_args(s.args))}</code></p>' if s.args else "")
            + f'<h5>Changed</h5><ul class="changes">{changes}</ul>' + verdict + "</div>")
        seq.append(f'<li data-i="{s.index}" value="{s.index}"><span class="lane lane-{h(s.actor or "init")}">'
                   f'{h(s.actor or "init")}</span> {h(s.note or s.action)}</li>')
    entity_paths = steps.paths(t)
    lcs = [lc for lc in STEP_LIFECYCLES if any(p["lc"] == lc for p in entity_paths)]
    lifecycles = "".join(lifecycle_panel(lc, [p for p in entity_paths if p["lc"] == lc], templates) for lc in lcs)
    state = steps.state_data(t, m.get("variant"))
    data = {"last": last, "prefix": f"cx{i}-", "focus": label, "paths": entity_paths}
    diagram = sequence.to_svg(sequence.build(t), prefix=f"cx{i}-")
    return (
        f'<section class="cx" id="cx-{i}" data-cx="{i}" data-step="{last}" data-info="{h(json.dumps(data))}">'
        f'<h3>{h(cx.title)} <span class="ids">{h(", ".join(t.ids))}</span></h3>'
        f'<p class="meta">{h(m.get("clause"))} · {h(m.get("sentence"))}</p>'
        f'<p class="meta">trace: <code>{h(cx.source)}</code> · {len(t.steps) - 1} steps'
        + (f" · the run followed: {h(label)}" if label else "")
        + (f" · a lasso: it loops for ever from step {t.loop}" if t.loop is not None else "") + "</p>"
        '<div class="controls"><button type="button" data-go="first" title="first step (Home)">« first</button>'
        '<button type="button" data-go="prev" title="previous step (←)">◀ previous</button>'
        f'<span class="pos">step <b class="step-no">{last}</b> of {last}</span>'
        '<button type="button" data-go="next" title="next step (→)">next ▶</button>'
        '<button type="button" data-go="last" title="last step (End)">last »</button>'
        '<label class="only"><input type="checkbox" class="only-changes"> only changes</label></div>'
        f'<div class="grid"><div class="panels">{"".join(panels)}'
        f'<h5>The whole state after the step</h5><div class="state"></div>'
        f'<p class="meta">Changed cells are marked; new rows are green. Task statuses: {h(state["projection"])}.</p>'
        f'</div><div class="diagrams"><h5>Sequence</h5><div class="seq-svg">{diagram}</div>{lifecycles}</div></div>'
        f'<script type="application/json" class="cx-state">{_json(state)}</script>'
        f'<details class="seq-text"><summary>the sequence as text</summary>'
        f'<ol class="seq" start="0">{"".join(seq)}</ol></details></section>')


def cx_box(i: int, cx: Counterexample, templates: dict[str, str]) -> str:
    """A trace, collapsed: its section is a <template> the script renders when it is opened."""
    m = cx.trace.meta
    return (f'<details class="cxbox" id="cxbox-{i}" data-cx="{i}"'
            f'{filter_attrs(m.get("verdict"), cx.trace.ids, m.get("variant"), m.get("property"), m.get("message"))}>'
            f'<summary><b>{h(cx.title)}</b> <span class="ids">{h(", ".join(cx.trace.ids))}</span> '
            f'{tables.verdict_badge(m.get("verdict"))} · {len(cx.trace.steps) - 1} steps</summary>'
            f"<template>{cx_section(i, cx, templates)}</template></details>")


CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#111827;background:#f9fafb}
header{background:#111827;color:#f9fafb;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#d1d5db}main{padding:8px 24px 48px;max-width:1400px}
h2{margin-top:28px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
code{font:12px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{border-collapse:collapse;background:#fff}table.props{width:100%}
th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}.num{text-align:right}.msg{max-width:520px;font-size:12px;color:#374151}
.scroll{overflow-x:auto;max-width:100%}.boxes{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0}
.box h4{margin:4px 0}.kv td:first-child{white-space:nowrap}
.filters{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;background:#f9fafb;
padding:8px 0;border-bottom:1px solid #e5e7eb}.filters select,.filters input{font:inherit;padding:2px 4px}
.filters .shown{color:#6b7280;font-size:12px}
details.cxbox{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:8px 0;padding:6px 12px;scroll-margin-top:64px}
details.cxbox>summary{cursor:pointer;padding:4px 0}details.cxbox section.cx{border:0;margin:0;padding:4px 0}
[hidden]{display:none !important}
.verdict{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.v-ok{background:#dcfce7;color:#166534}.v-bad{background:#fee2e2;color:#991b1b}
.v-gap{background:#fef3c7;color:#92400e}.v-unk{background:#e5e7eb;color:#374151}
.notes{background:#fff7ed;border:1px solid #fed7aa;padding:8px 12px;border-radius:6px}
section.cx{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:16px 0}
section.cx.active{border-color:#6366f1;box-shadow:0 0 0 2px #c7d2fe}
.cx h3{margin:0 0 4px}.ids{color:#6b7280;font-weight:500;font-size:14px}.meta{margin:2px 0;color:#4b5563}
.controls{margin:10px 0;display:flex;gap:8px;align-items:center}
.controls button{font:inherit;padding:3px 10px;border:1px solid #9ca3af;border-radius:5px;background:#f9fafb;cursor:pointer}
.controls button:disabled{opacity:.4;cursor:default}.pos{min-width:110px;text-align:center}
.grid{display:grid;grid-template-columns:minmax(280px,1fr) minmax(320px,1.4fr);gap:16px;align-items:start}
.panel h4{margin:4px 0}.panel h5{margin:8px 0 2px}.changes{margin:0;padding-left:18px}
.actor{font-size:12px;background:#e0e7ff;color:#3730a3;border-radius:8px;padding:1px 7px;margin-left:6px}
.violation-msg{background:#fef2f2;border-left:4px solid #b91c1c;padding:6px 10px}
.lifecycles svg{max-width:100%;height:auto}
.lc-svg{overflow:auto;max-height:460px;border:1px solid #e5e7eb;border-radius:6px;background:#fff}.skip{color:#92400e}
ol.seq{padding-left:36px;margin:4px 0}ol.seq li{margin:1px 0}
ol.seq li.future{display:none}ol.seq li.current{background:#fef3c7;font-weight:600}
.lane{display:inline-block;min-width:56px;font-size:11px;text-align:center;border-radius:4px;padding:0 4px;background:#e5e7eb}
.lane-client,.lane-harness{background:#dbeafe}.lane-network{background:#fee2e2}.lane-host{background:#dcfce7}
.lane-rest{background:#ede9fe}.lane-clock{background:#f3f4f6}
.lc g.node.visited path,.lc g.node.visited polygon,.lc g.node.visited ellipse{fill:#fde68a;stroke:#92400e}
.lc g.node.current path,.lc g.node.current polygon{stroke-width:3px}
.lc g.node.violation path,.lc g.node.violation polygon{fill:#fecaca;stroke:#b91c1c;stroke-width:3px}
.lc g.edge.taken path{stroke:#b45309;stroke-width:3px}
.lc g.edge.taken polygon{fill:#b45309;stroke:#b45309}.lc g.edge.taken text{fill:#b45309;font-weight:700}
.seq-svg{overflow:auto;max-height:560px;border:1px solid #e5e7eb;border-radius:6px;background:#fff}
.seq-svg g.sq-step.current .sq-bg{fill:#fef3c7;stroke:#d97706}.seq-svg g.sq-step.future{opacity:.25}
.lc{margin-top:10px}.lc h5,.diagrams h5{margin:8px 0 2px}.lc-paths{margin:2px 0;font-size:12px;color:#374151}
.state-box{margin:4px 0 8px}.state-title{font-size:12px;color:#4b5563;font-weight:600}
table.state-table{font-size:12px}table.state-table td,table.state-table th{padding:2px 6px;white-space:nowrap}
table.state-table td.chg{background:#fef3c7;font-weight:700}table.state-table tr.new td,table.state-table tr.new th{background:#dcfce7}
table.state-table tr.gone td,table.state-table tr.gone th{text-decoration:line-through;color:#9ca3af}
.only-changes .state-box.same,.only-changes table.state-table tr.same{display:none}
.only-changes table.state-table tr.changed td:not(.chg){color:#9ca3af}
label.only{margin-left:8px;font-size:13px}
.lifecycles figure{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:12px 0;padding:8px}
.lifecycles figcaption{font-weight:600}.lifecycles pre{background:#f3f4f6;padding:8px;overflow:auto}
@media (max-width:720px){main{padding:4px 10px 40px}.filters{position:static}header{padding:10px 12px}.grid{grid-template-columns:minmax(0,1fr)}
.controls{flex-wrap:wrap}.controls button{padding:6px 10px}.msg{max-width:none}.filters label{flex:1 1 40%}
.filters input{width:100%}.filters select{max-width:100%}}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var active = null;
  function info(sec) { return JSON.parse(sec.getAttribute("data-info")); }
  function byId(id) { return document.getElementById(id); }
  // A trace's section, rendered from its <template> the first time it is needed; its lifecycle
  // diagrams are copied from the page's one copy of each, their ids prefixed.
  function section(n) {
    var box = byId("cxbox-" + n);
    if (!box) { return null; }
    var tpl = box.querySelector("template");
    if (tpl) {
      box.appendChild(tpl.content.cloneNode(true));
      box.removeChild(tpl);
      var sec = byId("cx-" + n), prefix = info(sec).prefix;
      sec.querySelectorAll(".lc").forEach(function (div) {
        var src = byId("lc-tpl-" + div.getAttribute("data-lc")), slot = div.querySelector(".lc-svg");
        if (!src || !slot) { return; }
        slot.appendChild(src.content.cloneNode(true));
        slot.querySelectorAll("[id]").forEach(function (el) { el.id = prefix + el.id; });
      });
      sec.stateData = JSON.parse(sec.querySelector("script.cx-state").textContent);
      bind(n, sec);
    }
    return byId("cx-" + n);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  // The whole state after a step, one table per variable; what differs from the step before marked.
  function renderState(sec, step) {
    var data = sec.stateData, out = sec.querySelector(".state");
    out.textContent = "";
    var now = data.steps[step] || [], before = step > 0 ? data.steps[step - 1] : null;
    data.tables.forEach(function (t, k) {
      var rows = now[k] || {}, old = before ? (before[k] || {}) : null, changed = 0;
      var table = el("table", "state-table"), head = el("tr");
      table.setAttribute("data-table", t.name);
      head.appendChild(el("th", "", t.name === "world" ? "" : t.name.replace(/s$/, "")));
      t.columns.forEach(function (c) { head.appendChild(el("th", "", c)); });
      var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
      var body = el("tbody");
      var names = Object.keys(rows);
      if (old) { Object.keys(old).forEach(function (r) { if (!(r in rows)) { names.push(r); } }); }
      names.forEach(function (r) {
        var tr = el("tr"), cells = rows[r] || old[r], gone = !(r in rows), fresh = old && !(r in old) && !gone;
        var diff = false;
        tr.appendChild(el("th", "", r));
        cells.forEach(function (v, c) {
          var was = old && old[r] ? old[r][c] : v, td = el("td", "", v === "" ? "—" : v);
          if (old && !fresh && !gone && was !== v) {
            td.className = "chg"; td.title = "was " + (was === "" ? "—" : was); diff = true;
          }
          tr.appendChild(td);
        });
        tr.className = gone ? "gone changed" : fresh ? "new changed" : diff ? "changed" : "same";
        changed += tr.className === "same" ? 0 : 1;
        body.appendChild(tr);
      });
      table.appendChild(body);
      var wrap = el("div", "scroll state-box" + (changed ? " changed" : " same"));
      wrap.appendChild(el("div", "state-title", t.title));
      wrap.appendChild(table);
      out.appendChild(wrap);
    });
  }
  // Every run's and request's path through its lifecycle, up to the step.
  function renderLifecycles(sec, step) {
    var d = info(sec);
    sec.querySelectorAll(".lc").forEach(function (div) {
      var lc = div.getAttribute("data-lc"), words = [];
      div.querySelectorAll("g.node, g.edge").forEach(function (g) {
        g.classList.remove("visited", "current", "violation", "taken");
      });
      d.paths.filter(function (p) { return p.lc === lc; }).forEach(function (p) {
        var seen = p.path.filter(function (s) { return s[0] <= step; });
        if (!seen.length) { return; }
        seen.forEach(function (s, k) {
          var g = byId(d.prefix + lc + "-" + s[1]);
          if (g) { g.classList.add("visited"); }
          if (k > 0) {
            var stem = d.prefix + lc + "-edge-" + seen[k - 1][1] + "--" + s[1] + "--";
            div.querySelectorAll('g.edge[id^="' + stem + '"]').forEach(function (e) { e.classList.add("taken"); });
          }
        });
        var end = seen[seen.length - 1], now = byId(d.prefix + lc + "-" + end[1]);
        var broke = step === d.last && (lc === "run" ? p.name === d.focus : end[0] === step);
        if (now) { now.classList.add(broke ? "violation" : "current"); }
        words.push((end[0] === step ? "▶ " : "") + p.name + ": " +
                   seen.map(function (s) { return s[1]; }).join(" → "));
      });
      div.querySelector(".lc-paths").textContent = words.join("; ") || "not yet created";
      // The diagram is drawn at its own size in a box that scrolls: bring the current state into view.
      var box = div.querySelector(".lc-svg"), now = div.querySelector("g.node.violation, g.node.current");
      if (box && now && box.scrollWidth > box.clientWidth) {
        var b = box.getBoundingClientRect(), r = now.getBoundingClientRect();
        box.scrollLeft += (r.left + r.width / 2) - (b.left + b.width / 2);
        box.scrollTop += (r.top + r.height / 2) - (b.top + b.height / 2);
      }
    });
  }
  // The step's events in the sequence diagram, the steps before it plain, those after faded.
  function renderSequence(sec, step) {
    var current = null;
    sec.querySelectorAll("g.sq-step").forEach(function (g) {
      var i = Number(g.getAttribute("data-i"));
      g.classList.remove("current", "future");
      if (i > step) { g.classList.add("future"); }
      if (i === step) { g.classList.add("current"); current = g; }
    });
    var box = sec.querySelector(".seq-svg");
    if (current && box && box.scrollHeight > box.clientHeight) {
      var y = current.getBBox().y;
      if (y < box.scrollTop || y > box.scrollTop + box.clientHeight - 60) { box.scrollTop = Math.max(0, y - 40); }
    }
  }
  function show(n, step) {
    var sec = section(n);
    if (!sec) { return; }
    var d = info(sec);
    step = Math.max(0, Math.min(d.last, isNaN(step) ? d.last : step));
    sec.setAttribute("data-step", String(step));
    sec.querySelectorAll(".panel").forEach(function (p) {
      p.hidden = Number(p.getAttribute("data-i")) !== step;
    });
    sec.querySelectorAll("ol.seq li").forEach(function (li) {
      var i = Number(li.getAttribute("data-i"));
      li.className = i > step ? "future" : (i === step ? "current" : "");
    });
    sec.querySelector(".step-no").textContent = String(step);
    sec.querySelector('[data-go="prev"]').disabled = step <= 0;
    sec.querySelector('[data-go="first"]').disabled = step <= 0;
    sec.querySelector('[data-go="next"]').disabled = step >= d.last;
    sec.querySelector('[data-go="last"]').disabled = step >= d.last;
    renderState(sec, step);
    renderLifecycles(sec, step);
    renderSequence(sec, step);
    document.querySelectorAll("section.cx.active").forEach(function (s) { s.classList.remove("active"); });
    sec.classList.add("active");
    active = n;
  }
  function go(n, step) {
    var h = "#cx=" + n + "&step=" + step;
    if (location.hash !== h) { history.replaceState(null, "", h); }
    show(n, step);
  }
  function bind(n, sec) {
    var only = sec.querySelector("input.only-changes");
    only.addEventListener("change", function () { sec.classList.toggle("only-changes", only.checked); });
    sec.addEventListener("click", function (ev) {
      var b = ev.target.closest("button[data-go]");
      var step = Number(sec.getAttribute("data-step")), last = info(sec).last;
      active = n;
      if (!b) { return; }
      var to = {first: 0, prev: step - 1, next: step + 1, last: last}[b.getAttribute("data-go")];
      go(n, Math.max(0, Math.min(last, to)));
    });
  }
  function fromHash() {
    var m = /cx=(\d+)/.exec(location.hash), s = /step=(\d+)/.exec(location.hash);
    if (!m) { return false; }
    var n = Number(m[1]), box = byId("cxbox-" + n);
    if (!box) { return false; }
    box.open = true;
    show(n, s ? Number(s[1]) : NaN);
    box.scrollIntoView();
    return true;
  }
  document.querySelectorAll("details.cxbox").forEach(function (box) {
    box.addEventListener("toggle", function () {
      var n = Number(box.getAttribute("data-cx"));
      if (box.open && !byId("cx-" + n)) { show(n, NaN); }
    });
  });
  document.addEventListener("keydown", function (ev) {
    if (active === null || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var t = ev.target || {};     // typing in the search box or a filter is not stepping; a toggle is
    if (/^(SELECT|TEXTAREA)$/.test(t.tagName || "") || (t.tagName === "INPUT" && t.type !== "checkbox")) { return; }
    var sec = byId("cx-" + active), step = Number(sec.getAttribute("data-step")), last = info(sec).last;
    var to = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last}[ev.key];
    if (to === undefined) { return; }
    ev.preventDefault();
    go(active, Math.max(0, Math.min(last, to)));
  });
  // Filters: a row or counterexample shows when it matches every filter set.
  var controls = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  function has(el, attr, word) {
    return !word || (" " + el.getAttribute(attr).toLowerCase() + " ").indexOf(" " + word + " ") >= 0;
  }
  function filter() {
    var want = {};
    controls.forEach(function (c) { want[c.getAttribute("data-filter")] = c.value.trim().toLowerCase(); });
    var items = document.querySelectorAll("[data-filterable]"), shown = 0;
    items.forEach(function (el) {
      var ok = (!want.verdict || el.getAttribute("data-verdict") === want.verdict) &&
        has(el, "data-area", want.area) && has(el, "data-ids", want.id) &&
        (!want.variant || el.getAttribute("data-variant").toLowerCase() === want.variant) &&
        (!want.text || el.getAttribute("data-text").indexOf(want.text) >= 0);
      el.hidden = !ok;
      shown += ok ? 1 : 0;
    });
    var out = document.querySelector(".filters .shown");
    if (out) { out.textContent = shown + " of " + items.length + " shown"; }
  }
  // A link may set the filters: #verdict=refuted&area=OWN&id=OWN-2&variant=baseline&text=lost
  function filtersFromHash() {
    controls.forEach(function (c) {
      var m = new RegExp("[#&]" + c.getAttribute("data-filter") + "=([^&]*)").exec(location.hash);
      if (m) { c.value = decodeURIComponent(m[1].replace(/\+/g, " ")); }
    });
    filter();
  }
  controls.forEach(function (c) { c.addEventListener("input", filter); c.addEventListener("change", filter); });
  window.addEventListener("hashchange", function () { filtersFromHash(); fromHash(); });
  filtersFromHash();
  fromHash();
  document.documentElement.setAttribute("data-ready", "1");
})();
"""


def _link(cxs: list[Counterexample], cx_index: dict[str, int], variant):
    """The step-through anchor of a property's counterexample: the trace it names, else one of its name."""
    def link(p: dict) -> str:
        t = p.get("trace")
        i = cx_index.get(Path(t).as_posix()) if t else None
        if i is None and p.get("verdict") in ("refuted", "known-gap", "reached"):
            i = next((k for k, c in enumerate(cxs) if c.trace.meta.get("property") == p.get("name")
                      and c.trace.meta.get("variant") == variant), None)
        if i is None:
            return ""
        last = cxs[i].trace.steps[-1].index if cxs[i].trace.steps else 0
        return f'<a href="#cx={i}&amp;step={last}">step through</a>'
    return link


def seed_words(result: dict) -> str:
    return f" (seed {h(result['seed'])})" if result.get("seed") is not None else ""


def check_sections(check: dict, check_name: str | None, cxs: list[Counterexample]) -> list[str]:
    """The summary, the expectations, then per engine its properties and its bounds, scope and coverage."""
    results = check.get("results", [])
    link = _link(cxs, {c.source: i for i, c in enumerate(cxs)}, check.get("variant"))
    parts = [f'<p class="meta">from <code>{h(check_name)}</code></p>', '<h3 id="summary">Verdicts by engine</h3>',
             tables.summary_table(results)]
    if check.get("expectations"):
        parts += ["<h3>The variant's expectations</h3>", tables.expectations_table(check["expectations"])]
    for r in results:
        engine = r.get("engine", "?")
        parts += [f'<h3 id="engine-{h(engine)}">Engine {h(engine)}'
                  f'{seed_words(r)}</h3>',
                  tables.properties_table(r, r.get("variant", check.get("variant")), link), tables.result_tables(r)]
    return parts


def build_page(check: dict | None, check_name: str | None, cxs: list[Counterexample], problems: list[str],
               diagrams_dir: Path) -> tuple[str, list[str]]:
    diagrams, notes = lifecycle_svgs(diagrams_dir)
    templates = step_templates(diagrams)
    parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>taskmodel report</title>", f"<style>{CSS}</style></head><body>"]
    if check:
        engines = ", ".join(str(r.get("engine", "?")) for r in check.get("results", []))
        tool = check.get("tool") or {}
        sub = (f"variant <b>{h(check.get('variant'))}</b> · engine{'s' if ',' in engines else ''} {h(engines)}"
               + (f" · exit code {h(check['exit_code'])}" if check.get("exit_code") is not None else "")
               + (f" · {h(tool.get('name'))} {h(tool.get('version'))}" if tool else ""))
    else:
        sub = "no check result (out/latest-check.json, or --check FILE): counterexamples only"
    parts.append(f"<header><h1>RFC 0198 model: verification report</h1><p>{sub}</p></header><main>")
    shown_notes = notes + problems
    if shown_notes:
        parts.append('<div class="notes"><b>Notes</b><ul>' + "".join(f"<li>{h(n)}</li>" for n in shown_notes)
                     + "</ul></div>")
    props = [p for r in (check or {}).get("results", []) for p in r.get("properties", []) if isinstance(p, dict)]
    found = [p.get("verdict") for p in props] + [c.trace.meta.get("verdict") for c in cxs]
    verdicts = sorted({str(v) for v in found if v})
    area_names = sorted({a for p in props for a in areas(p.get("ids"))} | {a for c in cxs for a in areas(c.trace.ids)})
    named = [c.trace.meta.get("variant") for c in cxs] + [(check or {}).get("variant")]
    variants = sorted({str(v) for v in named if v})
    id_names = sorted({str(i) for p in props for i in p.get("ids") or []} | {i for c in cxs for i in c.trace.ids})
    parts.append(tables.filters(verdicts, area_names, id_names, variants))
    parts.append('<h2 id="properties">Properties</h2>')
    parts += check_sections(check, check_name, cxs) if check else ["<p>No check result was given.</p>"]
    parts.append(f'<h2 id="counterexamples">Traces: counterexamples and witnesses ({len(cxs)})</h2>')
    if not cxs:
        parts.append("<p>No counterexample was found.</p>")
    parts.append('<p class="meta">Open one to step through it with the buttons or the arrow keys (Home and End '
                 "jump): the step's action and what it changed, the whole state after it, its place in the "
                 "sequence diagram, and where each run and request is in its lifecycle. The URL fragment "
                 "<code>#cx=N&amp;step=K</code> opens a step directly.</p>")
    parts += [f'<template id="lc-tpl-{h(lc)}">{prefix_ids(text, "")}</template>' for lc, text in templates.items() if cxs]
    for i, cx in enumerate(cxs):
        parts.append(cx_box(i, cx, templates))
    parts.append('<h2 id="lifecycles">Lifecycles</h2><div class="lifecycles">')
    for g, text, mmd in diagrams:
        body = prefix_ids(text, f"lc-{g.name}-") if text else f"<pre>{h(mmd)}</pre>"
        parts.append(f"<figure><figcaption>{h(g.title)}</figcaption><p class=meta>{h(g.description.replace('`', ''))}</p>"
                     f"{body}</figure>")
    parts.append("</div></main>")
    parts.append(f"<script>{SCRIPT}</script></body></html>\n")
    return "".join(parts), notes
