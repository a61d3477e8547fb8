"""Counterexamples for people: the story (`trace.md`) and the sequence diagram (`sequence.mmd`).

Both are read from the written ITF trace alone. The story opens with the requirement broken and
its clause, embeds the sequence diagram (a Git host renders a ```mermaid block), then tells each
step with only what changed and, one click away, the whole state after it.
"""
from __future__ import annotations

import re

from properties.requirements import REQUIREMENTS

from .diagrams.trace import Trace, parse

# The verb of a trace's title and the name of what it shows, by property kind.
VERB = {"witness": "reaches", "gap": "shows the known gap"}
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


def loop_words(loop: int, last: int) -> str:
    if loop >= last:
        return f"the behaviour stays at step {last} for ever: no fair move makes progress"
    return f"the behaviour loops for ever from step {loop}: steps {loop + 1} to {last} repeat"


def state_lines(state: dict) -> list[str]:
    """The variables of one state, an entity a line: `run1 (raw id): status=running, ...`."""
    out = [f"clock={state.get('clock')}, external effects={state.get('effects')}"]
    for table in ("runs", "interrupts", "requests"):
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


# ---- the sequence diagram ------------------------------------------------------------------------
NETWORK, HOST, REST, CLOCK = "Network", "Host", "REST", "Clock"
FIXED = (NETWORK, HOST, REST, CLOCK)
DROPS = {"disconnect", "stdio_close", "harness_crash"}     # marked events, never messages
# Words Mermaid reads as syntax where a participant's id stands.
KEYWORDS = {"actor", "activate", "alt", "and", "autonumber", "box", "break", "critical", "deactivate", "else", "end",
            "loop", "note", "opt", "over", "par", "participant", "rect"}


def text(s: str) -> str:
    """One line of Mermaid message text: `;` separates statements and `#` starts an entity code."""
    return re.sub(r"\s+", " ", s.replace(";", ",").replace("#", "no. ")).strip()


def sequence(itf: dict) -> str:
    """A Mermaid sequence diagram: a lifeline per client or harness, the network, the host, REST
    callers and the clock (where they act); requests, answers and deliveries as arrows in their
    direction; drops and crashes as notes; the violation a note on its step; a lasso's loop boxed."""
    t = parse(itf)
    clients: dict[str, str] = {}          # lane id -> its label, in first-use order
    used: set[str] = set()
    steps = [(s, _messages(t, k, clients, used)) for k, s in enumerate(t.steps) if k > 0]
    last = t.steps[-1].index if t.steps else 0
    body: list[str] = []
    for s, msgs in steps:
        if t.loop is not None and t.loop < last and s.index == t.loop + 1:
            body.append(f"    loop {text(loop_words(t.loop, last))}")
        indent = "        " if t.loop is not None and t.loop < last and s.index > t.loop else "    "
        if s.index == last:
            body.append(f"{indent}rect rgb(254, 226, 226)")
        for m in msgs:
            body.append(indent + ("    " if s.index == last else "") + m)
        if s.index == last:
            kind, prop, broken = t.meta.get("kind"), t.meta.get("property", "?"), ", ".join(t.ids)
            words = f"{prop} {VERB[kind]} {broken}" if kind in VERB else f"⚠ violation: {prop} breaks {broken}"
            body.append(f"{indent}    Note over {_span(msgs) or HOST}: {text(words)}")
            body.append(f"{indent}end")
    if t.loop is not None and t.loop < last:
        body.append("    end")
    elif t.loop is not None:
        body.append(f"    Note over {HOST}: {text(loop_words(t.loop, last))}")
    head = ["sequenceDiagram"]
    head += [f"    participant {lane} as {label}" for lane, label in clients.items()]
    head += [f"    participant {lane}" + (" as REST caller" if lane == REST else "")
             for lane in FIXED if lane in used or lane in (NETWORK, HOST)]
    return "\n".join(head + body) + "\n"


def _span(msgs: list[str]) -> str:
    """The lanes of a step's first line, for the violation note beside it."""
    if not msgs:
        return ""
    m = re.match(r"(?:Note over )?([\w]+)(?:->>|--x|,)?([\w]+)?", msgs[0])
    if not m:
        return ""
    a, b = m.group(1), m.group(2)
    return f"{a},{b}" if b and b != a else a


def _lane(client: str, actor: str, clients: dict[str, str]) -> str:
    """A client's lane id: its name when Mermaid can use it and no fixed lane has it."""
    lane = re.sub(r"\W", "_", client) or "client"
    if lane in FIXED or lane[0].isdigit() or lane.lower() in KEYWORDS:
        lane = "c_" + lane
    if lane not in clients:
        clients[lane] = f"{'harness' if actor == 'harness' else 'client'} {text(client)}"
    return lane


def _messages(t: Trace, k: int, clients: dict[str, str], used: set[str]) -> list[str]:
    """The diagram lines of step k, read from what changed between states k-1 and k."""
    s, before = t.steps[k], t.steps[k - 1].state.get("requests") or {}
    after = s.state.get("requests") or {}
    note = f"{s.index}. {text(s.note or s.action)}"
    out: list[str] = []

    def client_of(qid) -> str:
        rec = after.get(qid) or before.get(qid) or {}
        who = rec.get("client") or s.args.get("client") or "client"
        return _lane(str(who), s.actor if s.actor in ("client", "harness") else "client", clients)

    def say(default: str) -> str:     # the step's own words on its first line, plain words after
        return note if not out else f"{s.index}. {text(default)}"

    if s.action in DROPS:
        lanes = {client_of(q) for q, r in after.items() if r.get("phase") != (before.get(q) or {}).get("phase")}
        who = (_lane(str(s.args["client"]), s.actor, clients) if "client" in s.args else
               client_of(s.args["request"]) if "request" in s.args else None)
        lost = [q for q, r in after.items()
                if r.get("phase") == "lost" and (before.get(q) or {}).get("phase") == "sent"]
        first = who or (sorted(lanes)[0] if lanes else NETWORK)
        if s.action == "harness_crash":
            out.append(f"Note over {first}: ✖ {note}")
        elif lost:
            out.append(f"Note over {first},{NETWORK}: ✂ {note} — the response to {text(', '.join(lost))} is lost "
                       f"in the network")
        else:
            out.append(f"Note over {first},{HOST}: ✂ {note}")
        return out
    src = None
    if s.actor in ("client", "harness"):
        src = _lane(str(s.args.get("client", s.actor)), s.actor, clients)
    for qid, rec in after.items():
        if qid not in before:
            lane = client_of(qid)
            out.append(f"{lane}->>{NETWORK}: {say(rec.get('method', 'request') + ' ' + qid)}")
            out.append(f"{NETWORK}->>{HOST}: {s.index}. {text(str(rec.get('method', 'request')) + ' ' + qid)}")
    if not out and src and s.action == "stdio_cancel":
        out.append(f"{src}->>{NETWORK}: {note}")
        out.append(f"{NETWORK}->>{HOST}: {s.index}. notifications/cancelled")
    for qid, rec in after.items():
        was = before.get(qid) or {}
        phase, old = rec.get("phase"), was.get("phase")
        answer = text(f"the response to {qid}: {rec.get('response') or 'none'}")
        event = s.action == "stream_event" and qid == s.args.get("request")
        if event or (phase == "sent" and old in (None, "received", "streaming")):
            out.append(f"{HOST}->>{NETWORK}: {say(answer if phase == 'sent' else 'an event on ' + qid)}")
        if phase == "delivered" and old in ("sent", None):
            said = say(answer + " arrives")
            said += f" — {text(str(rec.get('response')))}" if said == note and rec.get("response") else ""
            out.append(f"{NETWORK}->>{client_of(qid)}: {said}")
    if not out:
        lane = src or {"rest": REST, "clock": CLOCK}.get(s.actor, HOST)
        out.append(f"{REST}->>{HOST}: {note}" if lane == REST else f"Note over {lane}: {note}")
    used.update(lane for m in out for lane in FIXED if re.search(rf"\b{lane}\b", m.split(":")[0]))
    return out
