"""A trace's sequence diagram: one definition of its events, drawn as Mermaid text and as SVG.

`build` reads the written ITF trace alone and lays it out as lanes (a lifeline per client or
harness, the network, the host, REST callers and the clock, where they act) and, per step, events:
requests, answers and deliveries as arrows in their true direction; drops and crashes as marked
notes; the violation a note on its step; a lasso's loop boxed. `to_mermaid` is what trace.md embeds
(a Git host renders it); `to_svg` is what the report steps through, each step a `<g>` the page's
script highlights. Both draw the same `Diagram`, so they cannot disagree.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from html import escape

from verifier.writers.diagrams.trace import Trace, parse

NETWORK, HOST, REST, CLOCK = "Network", "Host", "REST", "Clock"
FIXED = (NETWORK, HOST, REST, CLOCK)
DROPS = {"disconnect", "stdio_close", "harness_crash"}     # marked events, never messages
# Words Mermaid reads as syntax where a participant's id stands.
KEYWORDS = {"actor", "activate", "alt", "and", "autonumber", "box", "break", "critical", "deactivate", "else", "end",
            "loop", "note", "opt", "over", "par", "participant", "rect"}
# The verb of a trace's title by property kind (a safety property "breaks").
VERB = {"witness": "reaches", "gap": "shows the known gap"}


@dataclass(frozen=True)
class Arrow:
    src: str
    dst: str
    text: str


@dataclass(frozen=True)
class Note:
    lanes: tuple[str, ...]
    text: str
    mark: str = ""             # "drop", "crash", "violation", "reached" (a witness or gap) or "" (an action)


@dataclass
class Diagram:
    lanes: list[tuple[str, str]]                        # (lane id, label), left to right
    steps: list[tuple[int, list[Arrow | Note]]]         # (step index, its events), step 0 (init) excluded
    last: int
    loop: int | None
    verdict: Note | None                                # the note on the last step

    @property
    def boxed_loop(self) -> bool:
        """A lasso whose loop has steps (not a stutter at the last state)."""
        return self.loop is not None and self.loop < self.last


def text(s: str) -> str:
    """One line of Mermaid message text: `;` separates statements and `#` starts an entity code."""
    return re.sub(r"\s+", " ", s.replace(";", ",").replace("#", "no. ")).strip()


def loop_words(loop: int, last: int) -> str:
    if loop >= last:
        return f"the behaviour stays at step {last} for ever: no fair move makes progress"
    return f"the behaviour loops for ever from step {loop}: steps {loop + 1} to {last} repeat"


def build(t: Trace) -> Diagram:
    clients: dict[str, str] = {}          # lane id -> its label, in first-use order
    used: set[str] = set()
    steps = [(s.index, _events(t, k, clients, used)) for k, s in enumerate(t.steps) if k > 0]
    last = t.steps[-1].index if t.steps else 0
    verdict = None
    for index, events in steps:
        if index == last:
            kind, prop, broken = t.meta.get("kind"), t.meta.get("property", "?"), ", ".join(t.ids)
            words = f"{prop} {VERB[kind]} {broken}" if kind in VERB else f"⚠ violation: {prop} breaks {broken}"
            verdict = Note(_span(events) or (HOST,), text(words), "reached" if kind in VERB else "violation")
    lanes = list(clients.items()) + [(lane, "REST caller" if lane == REST else lane)
                                     for lane in FIXED if lane in used or lane in (NETWORK, HOST)]
    return Diagram(lanes, steps, last, t.loop, verdict)


def _span(events) -> tuple[str, ...]:
    """The lanes of a step's first event, for the verdict's note beside it."""
    if not events:
        return ()
    e = events[0]
    lanes = (e.src, e.dst) if isinstance(e, Arrow) else e.lanes[:2]
    return lanes if len(lanes) == 2 and lanes[0] != lanes[1] else lanes[:1]


def _lane(client: str, actor: str, clients: dict[str, str]) -> str:
    """A client's lane id: its name when Mermaid can use it and no fixed lane has it."""
    lane = re.sub(r"\W", "_", client) or "client"
    if lane in FIXED or lane[0].isdigit() or lane.lower() in KEYWORDS:
        lane = "c_" + lane
    if lane not in clients:
        clients[lane] = f"{'harness' if actor == 'harness' else 'client'} {text(client)}"
    return lane


def _events(t: Trace, k: int, clients: dict[str, str], used: set[str]) -> list[Arrow | Note]:
    """The events of step k, read from what changed between states k-1 and k."""
    s, before = t.steps[k], t.steps[k - 1].state.get("requests") or {}
    after = s.state.get("requests") or {}
    note = f"{s.index}. {text(s.note or s.action)}"
    out: list[Arrow | Note] = []

    def client_of(qid) -> str:
        rec = after.get(qid) or before.get(qid) or {}
        who = rec.get("client") or s.args.get("client") or "client"
        return _lane(str(who), s.actor if s.actor in ("client", "harness") else "client", clients)

    def say(default: str) -> str:     # the step's own words on its first event, plain words after
        return note if not out else f"{s.index}. {text(default)}"

    if s.action in DROPS:
        lanes = {client_of(q) for q, r in after.items() if r.get("phase") != (before.get(q) or {}).get("phase")}
        who = (_lane(str(s.args["client"]), s.actor, clients) if "client" in s.args else
               client_of(s.args["request"]) if "request" in s.args else None)
        lost = [q for q, r in after.items()
                if r.get("phase") == "lost" and (before.get(q) or {}).get("phase") == "sent"]
        first = who or (sorted(lanes)[0] if lanes else NETWORK)
        if s.action == "harness_crash":
            out.append(Note((first,), f"✖ {note}", "crash"))
        elif lost:
            out.append(Note((first, NETWORK), f"✂ {note} — the response to {text(', '.join(lost))} is lost "
                                              f"in the network", "drop"))
        else:
            out.append(Note((first, HOST), f"✂ {note}", "drop"))
        return out
    src = None
    if s.actor in ("client", "harness"):
        src = _lane(str(s.args.get("client", s.actor)), s.actor, clients)
    for qid, rec in after.items():
        if qid not in before:
            lane = client_of(qid)
            out.append(Arrow(lane, NETWORK, say(rec.get("method", "request") + " " + qid)))
            out.append(Arrow(NETWORK, HOST, f"{s.index}. {text(str(rec.get('method', 'request')) + ' ' + qid)}"))
    if not out and src and s.action == "stdio_cancel":
        out.append(Arrow(src, NETWORK, note))
        out.append(Arrow(NETWORK, HOST, f"{s.index}. notifications/cancelled"))
    for qid, rec in after.items():
        was = before.get(qid) or {}
        phase, old = rec.get("phase"), was.get("phase")
        answer = text(f"the response to {qid}: {rec.get('response') or 'none'}")
        event = s.action == "stream_event" and qid == s.args.get("request")
        if event or (phase == "sent" and old in (None, "received", "streaming")):
            out.append(Arrow(HOST, NETWORK, say(answer if phase == "sent" else "an event on " + qid)))
        if phase == "delivered" and old in ("sent", None):
            said = say(answer + " arrives")
            said += f" — {text(str(rec.get('response')))}" if said == note and rec.get("response") else ""
            out.append(Arrow(NETWORK, client_of(qid), said))
    if not out:
        lane = src or {"rest": REST, "clock": CLOCK}.get(s.actor, HOST)
        out.append(Arrow(REST, HOST, note) if lane == REST else Note((lane,), note))
    used.update(lane for e in out for lane in ((e.src, e.dst) if isinstance(e, Arrow) else e.lanes)
                if lane in FIXED)
    return out


# ---- Mermaid ----------------------------------------------------------------------------------------
def _line(e: Arrow | Note) -> str:
    if isinstance(e, Arrow):
        return f"{e.src}->>{e.dst}: {e.text}"
    return f"Note over {','.join(e.lanes)}: {e.text}"


def to_mermaid(d: Diagram) -> str:
    body: list[str] = []
    for index, events in d.steps:
        if d.boxed_loop and index == d.loop + 1:
            body.append(f"    loop {text(loop_words(d.loop, d.last))}")
        indent = "        " if d.boxed_loop and index > d.loop else "    "
        if index == d.last:
            body.append(f"{indent}rect rgb(254, 226, 226)")
        for e in events:
            body.append(indent + ("    " if index == d.last else "") + _line(e))
        if index == d.last and d.verdict is not None:
            body.append(f"{indent}    {_line(d.verdict)}")
            body.append(f"{indent}end")
    if d.boxed_loop:
        body.append("    end")
    elif d.loop is not None:
        body.append(f"    Note over {HOST}: {text(loop_words(d.loop, d.last))}")
    head = ["sequenceDiagram"]
    head += [f"    participant {lane}" + (f" as {label}" if label != lane else "") for lane, label in d.lanes]
    return "\n".join(head + body) + "\n"


def sequence(itf: dict) -> str:
    """The Mermaid sequence diagram of an ITF trace (what trace.md embeds and sequence.mmd holds)."""
    return to_mermaid(build(parse(itf)))


# ---- SVG ----------------------------------------------------------------------------------------------
FONT, SIZE = "Helvetica,Arial,sans-serif", 12
CHAR = 7.0              # px per character at SIZE: at least Helvetica's widest common glyphs' average
LINE = 15               # px per text line
PAD = 8
LANE_MIN = 200
NOTE_FILL = {"": ("#f3f4f6", "#9ca3af"), "drop": ("#fff7ed", "#c2410c"), "crash": ("#fef2f2", "#b91c1c"),
             "violation": ("#fee2e2", "#b91c1c"), "reached": ("#dcfce7", "#15803d")}


def _wrap(words: str, width_px: float) -> list[str]:
    """Lines of at most width_px; a word longer than that keeps its line (the caller widens the box)."""
    return textwrap.wrap(words, max(20, int(width_px // CHAR)), break_long_words=False,
                         break_on_hyphens=False) or [""]


def _text(x: float, y: float, lines: list[str], anchor: str = "middle", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return "".join(f'<text x="{x:.0f}" y="{y + i * LINE:.0f}" text-anchor="{anchor}"{c}>{escape(t)}</text>'
                   for i, t in enumerate(lines))


def to_svg(d: Diagram, prefix: str = "") -> str:
    """The diagram as one SVG; each step is `<g class="sq-step" data-i=K id=PREFIXsq-K>` for the page."""
    widths = [max(LANE_MIN, len(label) * CHAR + 2 * PAD) for _, label in d.lanes]
    xs, left = {}, 10.0
    for (lane, _), w in zip(d.lanes, widths):
        xs[lane] = left + w / 2
        left += w
    total = left + 10
    head_h = LINE + 2 * PAD
    y = 10 + head_h + 12
    out: list[str] = []
    loop_top = None
    for index, events in d.steps:
        if d.boxed_loop and index == d.loop + 1:
            loop_top = y
            out.append(_text(16, y + LINE - 3, [f"loop: {loop_words(d.loop, d.last)}"], "start", "sq-loop-label"))
            y += LINE + 6
        top = y
        parts = []
        events = events + ([d.verdict] if index == d.last and d.verdict is not None else [])
        for e in events:
            if isinstance(e, Arrow):
                x1, x2 = xs[e.src], xs[e.dst]
                lines = _wrap(e.text, abs(x2 - x1) - 2 * PAD)
                parts.append(_text((x1 + x2) / 2, y + LINE - 3, lines))
                y += len(lines) * LINE + 4
                parts.append(f'<line class="sq-arrow" x1="{x1:.0f}" y1="{y:.0f}" x2="{x2:.0f}" y2="{y:.0f}" '
                             f'marker-end="url(#{prefix}sq-head)"/>')
                y += 10
            else:
                # The verdict spans every lane; another note its lanes, widened to its longest word.
                lanes = [lane for lane, _ in d.lanes] if e is d.verdict else e.lanes
                lo = min(xs[lane] for lane in lanes)
                hi = max(xs[lane] for lane in lanes)
                half = min(w for (lane, _), w in zip(d.lanes, widths) if lane in lanes) / 2 - PAD
                x1, x2 = lo - half, hi + half
                lines = _wrap(e.text, x2 - x1 - 2 * PAD)
                need = max(len(t) for t in lines) * CHAR + 2 * PAD
                if need > x2 - x1:
                    mid = (x1 + x2) / 2
                    x1, x2 = max(4.0, mid - need / 2), min(total - 4, mid + need / 2)
                h = len(lines) * LINE + PAD
                fill, stroke = NOTE_FILL.get(e.mark, NOTE_FILL[""])
                dash = ' stroke-dasharray="4 3"' if e.mark in ("drop", "crash") else ""
                parts.append(f'<rect class="sq-note sq-{e.mark or "action"}" x="{x1:.0f}" y="{y:.0f}" '
                             f'width="{x2 - x1:.0f}" height="{h:.0f}" rx="3" fill="{fill}" stroke="{stroke}"{dash}/>')
                parts.append(_text((x1 + x2) / 2, y + LINE - 1, lines))
                y += h + 8
        bg = (f'<rect class="sq-bg" x="2" y="{top - 4:.0f}" width="{total - 4:.0f}" height="{y - top + 2:.0f}" '
              f'rx="4"/>')
        cls = "sq-step sq-last" if index == d.last else "sq-step"
        out.append(f'<g class="{cls}" data-i="{index}" id="{prefix}sq-{index}">{bg}{"".join(parts)}</g>')
        y += 4
    if loop_top is not None:
        out.append(f'<rect class="sq-loop" x="6" y="{loop_top - 4:.0f}" width="{total - 12:.0f}" '
                   f'height="{y - loop_top + 2:.0f}" rx="4"/>')
    elif d.loop is not None:
        out.append(_text(total / 2, y + LINE, [loop_words(d.loop, d.last)], cls="sq-loop-label"))
        y += 2 * LINE
    bottom = y + 8
    heads = []
    for (lane, label), w in zip(d.lanes, widths):
        x = xs[lane]
        heads.append(f'<line class="sq-life" x1="{x:.0f}" y1="{10 + head_h:.0f}" x2="{x:.0f}" y2="{bottom:.0f}"/>'
                     f'<rect class="sq-head" x="{x - w / 2 + PAD:.0f}" y="10" width="{w - 2 * PAD:.0f}" '
                     f'height="{head_h:.0f}" rx="4"/>' + _text(x, 10 + PAD + LINE - 4, [label], cls="sq-head-label"))
    height = bottom + 10
    style = ("text{font-family:" + FONT + f";font-size:{SIZE}px;fill:#111827}}"
             ".sq-life{stroke:#9ca3af;stroke-dasharray:5 4}.sq-head{fill:#eef2ff;stroke:#6366f1}"
             ".sq-head-label{font-weight:bold}.sq-arrow{stroke:#111827;stroke-width:1.3}"
             ".sq-bg{fill:transparent}.sq-loop{fill:none;stroke:#7c3aed;stroke-dasharray:6 3}"
             ".sq-loop-label{fill:#6d28d9;font-style:italic}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="sequence" width="{total:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {total:.0f} {height:.0f}" role="img" aria-label="sequence diagram">'
            f'<style>{style}</style><defs><marker id="{prefix}sq-head" viewBox="0 0 10 10" refX="10" refY="5" '
            'markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" '
            'fill="#111827"/></marker></defs>' + "".join(heads) + "".join(out) + "</svg>")
