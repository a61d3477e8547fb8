"""Reading a traffic log and its mapping file, validated on input.

A log is JSON Lines (`schemas/traffic-log.schema.json`); each line is checked against the schema
definition its `event` names, so a bad line gets one message about that line, not the whole
`oneOf`. Beyond the schema, what the schema's words require and a recorder owes: JSON numbers only
(no NaN or Infinity), times `t` that never run backwards, a header only on line 1 naming a server
the mapping has, a connection opened once before any message or close on it, nothing on it after
its close, and no line nested deeper than `strict_json.MAX_DEPTH`. Any problem is a `LogError`
naming the line (the command prints it in one line, exit 3).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from model.amend import CHOICES
from model.params import PARAMETER_IDS, Params

from verifier.runtime.strict_json import JsonProblem, loads

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schemas" / "traffic-log.schema.json"
EVENTS = ("header", "open", "message", "close", "run")
SUBJECTS = tuple(s.name for s in Params().subjects)      # the Subjects a mapping may name

# The mapping file ties a real host's identities to the model instance's (model/params.py).
MAPPING_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tokens"],
    "properties": {
        "server": {"enum": ["S1", "S2"]},
        # Optional: the profile the host is judged on (properties/profiles.py), and with it how its
        # bytes are read (verifier/validate/binding.py): "ext-tasks", a plain MCP Tasks server.
        "profile": {"enum": ["ext-tasks"]},
        # Optional: the model server each HTTP path is (a host with a Tasks mount and a plain one).
        "mounts": {"type": "object", "additionalProperties": {"enum": ["S1", "S2"]}},
        "tokens": {"type": "object", "additionalProperties": {"enum": list(SUBJECTS)}},
        "tenants": {"type": "object", "additionalProperties": {"enum": ["acme", "beta"]}},
        "tools": {"type": "object", "additionalProperties": {"enum": ["flow", "task-only", "bad-args"]}},
        # Optional: the Subject a stdio session speaks for (stdio carries no bearer token).
        "stdio": {"enum": list(SUBJECTS)},
        # Optional: the Subject an HTTP request without a bearer token speaks for (a host that serves
        # such requests as one principal, e.g. a test deployment).
        "tokenless": {"enum": list(SUBJECTS)},
        # Optional: methods outside the model's vocabulary to pass over (e.g. a transport's ping).
        "ignore": {"type": "array", "items": {"type": "string"}},
        # Optional: what the host declares of itself, where the sources leave the host a choice.
        "host": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                # Seconds a run stays readable after its retention starts (P-RETENTION): a not-found
                # answer is never explained by a purge sooner than this on the log's clock.
                "retention_s": {"type": "number", "exclusiveMinimum": 0},
                # The ttlMs a live task advertises: null (its purge time not known yet) or these
                # milliseconds from creation (Params.ttl_live_ticks).
                "ttl_ms_live": {"type": ["integer", "null"], "minimum": 1},
                # The HTTP status of the errors core gives none, -32602 and -32603 (Params.http_error_status).
                "http_error_status": {"type": "integer", "minimum": 100, "maximum": 599},
                # Seconds of the log's clock within which the host notifies a listen stream of a change
                # (the sources name no bound): a notification owed longer when the log ends was never sent.
                "notify_within_s": {"type": "number", "exclusiveMinimum": 0},
                # Whether subscriptions/listen is served (default true); false: listens are passed over.
                "listen": {"type": "boolean"},
                # Who sees a task: its creator only, or every principal of its tenant (the model's rule).
                "visibility": {"enum": ["creator", "tenant"]},
                # The host's choice of each P-... parameter the sources leave open (requirements.md).
                "parameters": {"type": "object", "additionalProperties": False, "properties": {
                    pid: {"enum": list(CHOICES[field])} for pid, field in PARAMETER_IDS.items() if field in CHOICES}},
            },
        },
    },
}


class LogError(ValueError):
    """Bad input: the message is one line naming the file and line."""


@dataclass(frozen=True)
class Event:
    index: int      # 0-based among the log's events (the header is not an event)
    line: int       # 1-based line of the file
    data: dict

    @property
    def kind(self) -> str:
        return self.data["event"]


@lru_cache(maxsize=1)
def _validators() -> dict[str, Draft202012Validator]:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    return {name: Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"}) for name in EVENTS}


def _where(error) -> str:
    path = "/".join(str(p) for p in error.absolute_path)
    return f"at {path}: " if path else ""


def servers(mapping: dict) -> set[str]:
    """What a log's header may name as its server: the mapping's server (S1 by default) and mounts."""
    mounts = mapping.get("mounts") or {}
    return {mapping.get("server", "S1"), *mounts, *mounts.values()}


def read_log(source, name: str = "log", mapping: dict | None = None) -> tuple[dict | None, list[Event]]:
    """(header or None, events) of a path or an iterable of lines; a LogError on bad input. With
    `mapping`, a header's server must be one it has."""
    if isinstance(source, (str, Path)):
        name = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise LogError(f"{name}: cannot read: {e.__class__.__name__}: {e}") from None
        lines = text.splitlines()
    else:
        lines = [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in source]
    validators = _validators()
    header, events, last_t = None, [], 0
    opened: dict[str, str] = {}       # conn -> "open" | "closed"
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            data = loads(raw)
        except JsonProblem as e:
            raise LogError(f"{name}:{n}: {e}") from None
        if not isinstance(data, dict):
            raise LogError(f"{name}:{n}: an event is a JSON object, not {type(data).__name__}")
        kind = data.get("event")
        if kind not in EVENTS:
            raise LogError(f"{name}:{n}: unknown event {kind!r} (one of {', '.join(EVENTS)})")
        error = best_match(validators[kind].iter_errors(data))
        if error is not None:
            raise LogError(f"{name}:{n}: {kind} event {_where(error)}{error.message}"[:300])
        if data["t"] < last_t:
            raise LogError(f"{name}:{n}: t {data['t']} runs backwards (an earlier line has t {last_t})")
        last_t = data["t"]
        if kind == "header":
            if header is not None or events:
                raise LogError(f"{name}:{n}: a header may only be the first line")
            if mapping is not None and "server" in data and data["server"] not in servers(mapping):
                raise LogError(f"{name}:{n}: the header names server {data['server']!r}, which the mapping does not "
                               f"have ({', '.join(sorted(servers(mapping)))})")
            header = data
            continue
        conn = data.get("conn")
        if kind == "open":
            if conn in opened:
                raise LogError(f"{name}:{n}: connection {conn!r} opened twice")
            opened[conn] = "open"
        elif kind in ("message", "close"):
            if conn not in opened:
                raise LogError(f"{name}:{n}: {kind} on connection {conn!r} before its open event")
            if opened[conn] == "closed":
                raise LogError(f"{name}:{n}: {kind} on connection {conn!r} after its close event")
            if kind == "close":
                opened[conn] = "closed"
        events.append(Event(len(events), n, data))
    return header, events


def read_mapping(source) -> dict:
    """The mapping file (a path, or an already loaded dict), validated; a LogError on bad input."""
    name = "mapping"
    if isinstance(source, (str, Path)):
        name = str(source)
        try:
            source = loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise LogError(f"{name}: cannot read: {e.__class__.__name__}: {e}") from None
        except JsonProblem as e:
            raise LogError(f"{name}: {e}") from None
    error = best_match(Draft202012Validator(MAPPING_SCHEMA).iter_errors(source))
    if error is not None:
        raise LogError(f"{name}: mapping {_where(error)}{error.message}"[:300])
    if not source["tokens"] and "stdio" not in source and "tokenless" not in source:
        raise LogError(f"{name}: mapping tokens: empty, and no `stdio` or `tokenless` Subject: it maps no identity")
    return source
