"""The vendored official JSON schemas, loaded once, and the choice of definition for a wire message.

Definitions are named `"<prefix>#<Name>"`:

- `ext-tasks#...`: `$defs` of the Tasks extension schema (registered under its own `$id`);
- `mcp#...`: `$defs` of the MCP core 2026-07-28 schema (the file has no `$id`; it is given
  `MCP_URI` here);
- `envelope#...`: small compositions of official definitions only, for the whole messages that
  neither file defines as one piece (e.g. a JSON-RPC result response whose `result` is a
  `CreateTaskResult`, or a `tasks/get` request whose params also carry core's required `_meta`).
  They add no constraint of their own.

The schemas are a floor, not the contract: see `docs/spec-digest.md` in the shared folder for
what they accept that the specification forbids; those rules are properties.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ENV_SHARED = "TASKMODEL_SHARED"
EXT_TASKS_FILE = "ext-tasks-2026-07-28.schema.json"
MCP_FILE = "mcp-2026-07-28.schema.json"
MCP_URI = "urn:taskmodel:vendored:" + MCP_FILE
ENVELOPE_URI = "urn:taskmodel:envelopes"
EXT_TASKS_URI = "https://modelcontextprotocol.io/ext-tasks/2026-07-28/schema.json"


def shared_dir() -> Path:
    """The shared folder holding `schemas/`: `$TASKMODEL_SHARED`, else `<repo>/../shared`."""
    env = os.environ.get(ENV_SHARED)
    path = Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared"
    if not (path / "schemas" / MCP_FILE).is_file() or not (path / "schemas" / EXT_TASKS_FILE).is_file():
        origin = f"${ENV_SHARED}={env}" if env else f"the default <repo>/../shared ({path})"
        raise FileNotFoundError(
            f"vendored schemas not found: expected {MCP_FILE} and {EXT_TASKS_FILE} under "
            f"{path / 'schemas'} (from {origin}); set {ENV_SHARED} to the shared folder"
        )
    return path


def _mcp(name: str) -> dict:
    return {"$ref": f"{MCP_URI}#/$defs/{name}"}


def _ext(name: str) -> dict:
    return {"$ref": f"{EXT_TASKS_URI}#/$defs/{name}"}


def _result_response(result: dict) -> dict:
    return {"allOf": [_mcp("JSONRPCResultResponse"), {"properties": {"result": result}}]}


def _error_response(error: dict) -> dict:
    return {"allOf": [_mcp("JSONRPCErrorResponse"), {"properties": {"error": error}}]}


def _with_request_params(request: dict) -> dict:
    # The extension's requests do not reference core's RequestParams, yet core 2026-07-28
    # requires `_meta` (capabilities and protocol version) on every request.
    return {"allOf": [request, {"properties": {"params": _mcp("RequestParams")}, "required": ["params"]}]}


ENVELOPES: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": ENVELOPE_URI,
    "$defs": {
        "CreateTaskResultResponse": _result_response(_ext("CreateTaskResult")),
        "GetTaskResultResponse": _result_response(_ext("GetTaskResult")),
        "UpdateTaskResultResponse": _result_response(_ext("UpdateTaskResult")),
        "CancelTaskResultResponse": _result_response(_ext("CancelTaskResult")),
        "CallToolResultResponse": _result_response(_mcp("CallToolResult")),
        "InputRequiredResultResponse": _result_response(_mcp("InputRequiredResult")),
        "InvalidParamsErrorResponse": _error_response(_mcp("InvalidParamsError")),
        "InternalErrorResponse": _error_response(_mcp("InternalError")),
        "MethodNotFoundErrorResponse": _error_response(_mcp("MethodNotFoundError")),
        "GetTaskRequest": _with_request_params(_ext("GetTaskRequest")),
        "UpdateTaskRequest": _with_request_params(_ext("UpdateTaskRequest")),
        "CancelTaskRequest": _with_request_params(_ext("CancelTaskRequest")),
        "Request": _with_request_params(_mcp("JSONRPCRequest")),
        "TaskSubscriptionsListenRequest": {"allOf": [
            _mcp("SubscriptionsListenRequest"),
            {"properties": {"params": {"properties": {"notifications": _ext("TaskSubscriptionNotifications")}}}},
        ]},
        "TaskSubscriptionsAcknowledgedNotification": {"allOf": [
            _mcp("SubscriptionsAcknowledgedNotification"),
            {"properties": {"params": {"properties": {
                "notifications": _ext("TaskSubscriptionAcknowledgedNotifications")}}}},
        ]},
    },
}

PREFIXES = {"ext-tasks": EXT_TASKS_URI, "mcp": MCP_URI, "envelope": ENVELOPE_URI}

# Which definition a whole JSON-RPC message is checked against, by kind:
# ("result", answered method, resultType) / ("error", code) / ("request", method) /
# ("notification", method). A `None` in the last place is the fallback for that kind.
KIND_OF: dict[tuple, str] = {
    ("result", "tools/call", "task"): "envelope#CreateTaskResultResponse",
    ("result", "tools/call", "input_required"): "envelope#InputRequiredResultResponse",
    ("result", "tools/call", "complete"): "envelope#CallToolResultResponse",
    ("result", "tasks/get", None): "envelope#GetTaskResultResponse",
    ("result", "tasks/update", None): "envelope#UpdateTaskResultResponse",
    ("result", "tasks/cancel", None): "envelope#CancelTaskResultResponse",
    ("result", "server/discover", None): "mcp#DiscoverResultResponse",
    ("result", "subscriptions/listen", None): "mcp#SubscriptionsListenResultResponse",
    ("result", None, None): "mcp#JSONRPCResultResponse",
    ("error", -32602): "envelope#InvalidParamsErrorResponse",
    ("error", -32603): "envelope#InternalErrorResponse",
    ("error", -32601): "envelope#MethodNotFoundErrorResponse",
    ("error", -32021): "mcp#MissingRequiredClientCapabilityError",
    ("error", -32020): "mcp#HeaderMismatchError",
    ("error", -32022): "mcp#UnsupportedProtocolVersionError",
    ("error", None): "mcp#JSONRPCErrorResponse",
    ("request", "tools/call"): "mcp#CallToolRequest",
    ("request", "tasks/get"): "envelope#GetTaskRequest",
    ("request", "tasks/update"): "envelope#UpdateTaskRequest",
    ("request", "tasks/cancel"): "envelope#CancelTaskRequest",
    ("request", "subscriptions/listen"): "envelope#TaskSubscriptionsListenRequest",
    ("request", "server/discover"): "mcp#DiscoverRequest",
    ("request", None): "envelope#Request",
    ("notification", "notifications/tasks"): "ext-tasks#TaskStatusNotification",
    ("notification", "notifications/subscriptions/acknowledged"):
        "envelope#TaskSubscriptionsAcknowledgedNotification",
    ("notification", "notifications/cancelled"): "mcp#CancelledNotification",
    ("notification", None): "mcp#JSONRPCNotification",
}


def kind_of(message: dict, context: str) -> tuple:
    """The `KIND_OF` key of a message. `context` is the method a response answers, or
    "notification"/"request" (requests and notifications are recognised by shape anyway)."""
    if "method" in message:
        return ("request" if "id" in message else "notification", message["method"])
    if "error" in message:
        error = message["error"]
        return ("error", error.get("code") if isinstance(error, dict) else None)
    result = message.get("result")
    result_type = result.get("resultType", "complete") if isinstance(result, dict) else None
    return ("result", context, result_type)


def definition_for(message: dict, context: str) -> str:
    """The definition a whole JSON-RPC message is checked against (see `KIND_OF`)."""
    key = kind_of(message, context)
    if key in KIND_OF:
        return KIND_OF[key]
    if key[0] == "result":
        method = key[1]
        if method == "tools/call":  # resultType absent means complete; anything else is checked as one
            return KIND_OF[("result", "tools/call", "complete")]
        # A known method answered with an unexpected resultType keeps that method's definition,
        # so `tasks/get` answered "task" fails on the const.
        return KIND_OF.get(("result", method, None), KIND_OF[("result", None, None)])
    return KIND_OF[(key[0], None)]


@lru_cache(maxsize=4)
def _registry(shared: Path) -> Registry:
    schemas = shared / "schemas"
    ext = json.loads((schemas / EXT_TASKS_FILE).read_text(encoding="utf-8"))
    mcp = json.loads((schemas / MCP_FILE).read_text(encoding="utf-8"))
    if ext.get("$id") != EXT_TASKS_URI:
        raise ValueError(f"{EXT_TASKS_FILE} has $id {ext.get('$id')!r}, expected {EXT_TASKS_URI!r}")
    ext_res = DRAFT202012.create_resource(ext)
    mcp_res = Resource.from_contents(mcp, default_specification=DRAFT202012)
    return Registry().with_resources([
        (EXT_TASKS_URI, ext_res), (EXT_TASKS_FILE, ext_res),
        (MCP_URI, mcp_res), (MCP_FILE, mcp_res),
        (ENVELOPE_URI, DRAFT202012.create_resource(ENVELOPES)),
    ]).crawl()


def _uri(definition: str) -> tuple[str, str]:
    prefix, sep, name = definition.partition("#")
    if not sep or prefix not in PREFIXES or not name:
        raise ValueError(f"bad definition {definition!r}: expected one of {sorted(PREFIXES)} + '#Name'")
    return PREFIXES[prefix], name


@lru_cache(maxsize=256)
def _validator(shared: Path, definition: str) -> Draft202012Validator:
    base, name = _uri(definition)
    registry = _registry(shared)
    contents = registry.contents(base)
    if name not in contents.get("$defs", {}):
        raise KeyError(f"{definition!r}: no such definition in {base}")
    return Draft202012Validator({"$ref": f"{base}#/$defs/{name}"}, registry=registry)


def _where(error: ValidationError) -> str:
    return "/".join(str(p) for p in error.absolute_path) or "(root)"


def _closest(errors: list[ValidationError]) -> list[ValidationError]:
    """The errors of the alternative the instance most likely meant: for a union keyed by a
    const (the task `status`), the branch whose const matched; else jsonschema's best match."""
    branches: dict = {}
    for e in errors:
        branches.setdefault(e.relative_schema_path[0] if e.relative_schema_path else None, []).append(e)
    meant = [errs for errs in branches.values() if not any(e.validator == "const" for e in errs)]
    if meant and len(meant) < len(branches):
        return min(meant, key=len)
    return [best_match(errors)]


def _describe(error: ValidationError) -> str:
    if error.validator in ("anyOf", "oneOf") and isinstance(error.instance, (dict, list)):
        text = f"{_where(error)}: matches none of the alternatives of {error.validator}"
    else:
        text = f"{_where(error)}: {error.message}"
    if error.context:
        text += " (closest: " + "; ".join(_describe(c) for c in _closest(error.context)) + ")"
    return text


def validate(definition: str, instance: dict) -> list[str]:
    """Error messages of `instance` against `definition` (e.g. "ext-tasks#CreateTaskResult");
    empty when valid."""
    validator = _validator(shared_dir(), definition)
    errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    return list(dict.fromkeys(_describe(e) for e in errors))  # allOf can report one fault twice


def validate_message(message: dict, context: str) -> list[str]:
    """Validate a whole JSON-RPC message against the definition `definition_for` picks."""
    return [f"[{definition}] {m}" for definition in [definition_for(message, context)]
            for m in validate(definition, message)]


__all__ = [
    "ENV_SHARED", "EXT_TASKS_FILE", "MCP_FILE", "EXT_TASKS_URI", "MCP_URI", "ENVELOPE_URI",
    "ENVELOPES", "PREFIXES", "KIND_OF", "shared_dir", "kind_of", "definition_for", "validate",
    "validate_message",
]
