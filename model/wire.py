"""The wire: every JSON-RPC message the model sends or receives, as pydantic models and builders.

The builders return plain JSON-ready dicts, each produced by validating through its pydantic
model, so a misspelt field or a field that does not belong to a shape fails where it is built,
not later in a property. Field names follow the official schemas (MCP core 2026-07-28 and the
Tasks extension `io.modelcontextprotocol/tasks` 2026-07-28); `verifier/runtime/schemas.py` checks the
output against those schemas.

The pydantic models are stricter than the schemas in one deliberate place: the flat
`CreateTaskResult` and the empty acknowledgements forbid extra keys, because the schemas accept a
`CreateTaskResult` carrying `result` or `inputRequests` and an ack carrying a status (WIRE-2).
Rules the schemas leave open and the requirements name as properties (non-empty `inputRequests`,
`ttlMs >= 0`, MRTR's at-least-one-field rule) are *not* enforced here, so that a mutant can still
build such a message through the ordinary builders and the properties can catch it.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_serializer
from pydantic.alias_generators import to_camel

from .built import remembered

TASKS_EXT = "io.modelcontextprotocol/tasks"
PROTOCOL_VERSION = "2026-07-28"

# JSON-RPC and MCP error codes the model uses.
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
# The HTTP status core §Streamable HTTP gives these errors (WIRE-5).
HTTP_STATUS = {MISSING_CAPABILITY: 400, HEADER_MISMATCH: 400, METHOD_NOT_FOUND: 404}

# Reserved `_meta` keys of MCP core 2026-07-28.
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TASK_STATUSES: tuple[str, ...] = get_args(TaskStatus)
TERMINAL_TASK_STATUSES = frozenset({"completed", "failed", "cancelled"})

RequestId = Union[str, int]


class Wire(BaseModel):
    """Base of every wire model: camelCase on the wire, closed by default.

    Optional fields left at `None` are dropped on output (absent, not JSON null); a *required*
    field whose value is `None` (the task's `ttlMs`) is kept as JSON null, because the schemas
    require the key and `null` means "unlimited".
    """

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, alias_generator=to_camel, frozen=True,
    )

    @model_serializer(mode="wrap")
    def _drop_absent(self, handler):
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None or k not in _optional_aliases(type(self))}

    def wire(self) -> dict:
        """The JSON-ready dict of this message."""
        return self.model_dump(mode="json", by_alias=True)


_OPTIONAL_ALIASES: dict[type, frozenset[str]] = {}


def _optional_aliases(cls: type[Wire]) -> frozenset[str]:
    """Names (wire and Python) of the fields that have a default, i.e. may be absent."""
    cached = _OPTIONAL_ALIASES.get(cls)
    if cached is None:
        cached = _OPTIONAL_ALIASES[cls] = frozenset(
            key for name, f in cls.model_fields.items() if not f.is_required()
            for key in (name, f.serialization_alias or f.alias or name)
        )
    return cached


class OpenWire(Wire):
    """A wire object the protocol leaves open (metadata, capabilities): unknown keys pass."""

    model_config = ConfigDict(extra="allow")


Meta = Annotated[dict[str, Any] | None, Field(alias="_meta")]

# --------------------------------------------------------------------------- request side


class ClientCapabilities(OpenWire):
    """Capabilities declared per request; an absent key means "not supported"."""

    extensions: dict[str, dict[str, Any]] | None = None
    elicitation: dict[str, Any] | None = None


class RequestMeta(OpenWire):
    """`RequestMetaObject`: core 2026-07-28 requires both keys on every request."""

    client_capabilities: ClientCapabilities = Field(alias=META_CLIENT_CAPABILITIES)
    protocol_version: str = Field(alias=META_PROTOCOL_VERSION)


class RequestParams(Wire):
    """`RequestParams`: every core request carries `_meta`."""

    meta: RequestMeta = Field(alias="_meta")


class ElicitResult(Wire):
    """The client's answer to an `elicitation/create` entry of `inputRequests`."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    meta: Meta = None


class CallToolParams(RequestParams):
    """`CallToolRequestParams`; an MRTR retry adds `inputResponses` and echoes `requestState`."""

    name: str
    arguments: dict[str, Any] | None = None
    input_responses: dict[str, ElicitResult] | None = None
    request_state: str | None = None


class TaskIdParams(RequestParams):
    """Params of `tasks/get` and `tasks/cancel`."""

    task_id: str


class UpdateTaskParams(RequestParams):
    """Params of `tasks/update`: both keys required by the extension."""

    task_id: str
    input_responses: dict[str, ElicitResult]


class TaskSubscriptionFilter(Wire):
    """The extension's `notifications` filter (`TaskSubscriptionNotifications`)."""

    task_ids: list[str]


class ListenParams(RequestParams):
    """`SubscriptionsListenRequestParams` asking for task notifications only."""

    notifications: TaskSubscriptionFilter


class OpenRequestParams(RequestParams):
    """Params of a method the model does not type (e.g. the removed `tasks/list`)."""

    model_config = ConfigDict(extra="allow")


class _Request(Wire):
    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId


class CallToolRequest(_Request):
    method: Literal["tools/call"] = "tools/call"
    params: CallToolParams


class GetTaskRequest(_Request):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams


class UpdateTaskRequest(_Request):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams


class CancelTaskRequest(_Request):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams


class ListenRequest(_Request):
    method: Literal["subscriptions/listen"] = "subscriptions/listen"
    params: ListenParams


class DiscoverRequest(_Request):
    method: Literal["server/discover"] = "server/discover"
    params: RequestParams


class UnsupportedRequest(_Request):
    """A request for a method the host must refuse (`tasks/list`, `tasks/result`: -32601)."""

    method: str
    params: OpenRequestParams


class CancelledParams(Wire):
    request_id: RequestId
    reason: str | None = None
    meta: Meta = None


class CancelledNotification(Wire):
    """`notifications/cancelled`: the client's stdio cancel, or the host ending a listen stream."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: Literal["notifications/cancelled"] = "notifications/cancelled"
    params: CancelledParams


# --------------------------------------------------------------------------- results


class TextContent(Wire):
    type: Literal["text"] = "text"
    text: str


class CallToolResult(Wire):
    """`CallToolResult`: `content` and `resultType` are required by the core schema."""

    result_type: Literal["complete"] = "complete"
    content: list[TextContent]
    is_error: bool | None = None
    structured_content: Any = None
    meta: Meta = None


class RequestedSchema(OpenWire):
    """The flat form schema of a form-mode elicitation (`type` and `properties` required)."""

    type: Literal["object"] = "object"
    properties: dict[str, dict[str, Any]]
    required: list[str] | None = None


class ElicitFormParams(Wire):
    mode: Literal["form"] = "form"
    message: str
    requested_schema: RequestedSchema


class ElicitUrlParams(Wire):
    """URL mode: the interop map's only way to ask for a credential (never form mode)."""
    mode: Literal["url"] = "url"
    message: str
    url: str


class ElicitInputRequest(Wire):
    """An `inputRequests` entry: a bare `{method, params}`, no JSON-RPC id (the map key is the id).

    The model asks only for elicitation (form or URL mode); sampling and roots are not modelled.
    """

    method: Literal["elicitation/create"] = "elicitation/create"
    params: ElicitFormParams | ElicitUrlParams


class InputRequiredResult(Wire):
    """MRTR's `InputRequiredResult`. The at-least-one-field rule is left to the properties."""

    result_type: Literal["input_required"] = "input_required"
    input_requests: dict[str, ElicitInputRequest] | None = None
    request_state: str | None = None
    meta: Meta = None


class ErrorObject(Wire):
    """A JSON-RPC error object; also the `error` of a failed task."""

    code: int
    message: str
    data: Any = None


class _TaskFields(Wire):
    """The `Task` fields. `ttlMs` is required and nullable (null = unlimited)."""

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    meta: Meta = None


class CreateTaskResult(_TaskFields):
    """The flat `CreateTaskResult`. Closed: no `result`, `error` or `inputRequests` (WIRE-2)."""

    result_type: Literal["task"] = "task"


class WorkingTask(_TaskFields):
    status: Literal["working"]


class InputRequiredTask(_TaskFields):
    """Must carry *all* outstanding input requests (emptiness is a property, not checked here)."""

    status: Literal["input_required"]
    input_requests: dict[str, ElicitInputRequest]


class CompletedTask(_TaskFields):
    """Carries the tool's result, also when that result has `isError: true`."""

    status: Literal["completed"]
    result: dict[str, Any]


class FailedTask(_TaskFields):
    """`failed` is only for a JSON-RPC error, carried in `error`."""

    status: Literal["failed"]
    error: ErrorObject


class CancelledTask(_TaskFields):
    status: Literal["cancelled"]


DetailedTask = Annotated[
    Union[WorkingTask, InputRequiredTask, CompletedTask, FailedTask, CancelledTask],
    Field(discriminator="status"),
]


class _Complete(Wire):
    result_type: Literal["complete"] = "complete"


class GetWorkingTaskResult(WorkingTask, _Complete):
    pass


class GetInputRequiredTaskResult(InputRequiredTask, _Complete):
    pass


class GetCompletedTaskResult(CompletedTask, _Complete):
    pass


class GetFailedTaskResult(FailedTask, _Complete):
    pass


class GetCancelledTaskResult(CancelledTask, _Complete):
    pass


GetTaskResult = Annotated[
    Union[GetWorkingTaskResult, GetInputRequiredTaskResult, GetCompletedTaskResult,
          GetFailedTaskResult, GetCancelledTaskResult],
    Field(discriminator="status"),
]


class EmptyAck(_Complete):
    """The `tasks/update` and `tasks/cancel` acknowledgement. Closed: it carries no status."""

    meta: Meta = None


class ServerCapabilities(OpenWire):
    tools: dict[str, Any] | None = None
    extensions: dict[str, dict[str, Any]] | None = None


class DiscoverResult(Wire):
    """`DiscoverResult`. `ttlMs` here is a cache hint for this result, not a task TTL."""

    result_type: Literal["complete"] = "complete"
    supported_versions: list[str]
    capabilities: ServerCapabilities
    cache_scope: Literal["private", "public"]
    ttl_ms: int = Field(ge=0)
    instructions: str | None = None
    meta: Meta = None


# --------------------------------------------------------------------------- envelopes


class ResultResponse(Wire):
    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    result: dict[str, Any]


class ErrorResponse(Wire):
    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId | None = None
    error: ErrorObject


class SubscriptionMeta(OpenWire):
    """`NotificationMetaObject` of a listen stream: the listen request's id, on every message."""

    subscription_id: RequestId = Field(alias=META_SUBSCRIPTION_ID)


class AcknowledgedParams(Wire):
    meta: SubscriptionMeta = Field(alias="_meta")
    notifications: TaskSubscriptionFilter


class SubscriptionsAcknowledgedNotification(Wire):
    """The first message of a listen stream: the task ids the host agreed to notify about."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: Literal["notifications/subscriptions/acknowledged"] = "notifications/subscriptions/acknowledged"
    params: AcknowledgedParams


class ListenClosedResult(_Complete):
    """`SubscriptionsListenResult`: the graceful end of a listen stream, sent as its response."""

    meta: SubscriptionMeta = Field(alias="_meta")


class TaskStatusNotification(Wire):
    """`notifications/tasks`: the detailed task, exactly what `tasks/get` would return (NTF-3)."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: Literal["notifications/tasks"] = "notifications/tasks"
    params: DetailedTask


# --------------------------------------------------------------------------- builders

_REQUEST_MODELS = {
    "tools/call": CallToolRequest, "tasks/get": GetTaskRequest, "tasks/update": UpdateTaskRequest,
    "tasks/cancel": CancelTaskRequest, "subscriptions/listen": ListenRequest,
    "server/discover": DiscoverRequest,
}


def _build(model: type[Wire], data: dict) -> dict:
    return remembered(model, data, lambda: model.model_validate(data).wire())


_ADAPTERS = {"DetailedTask": TypeAdapter(DetailedTask), "GetTaskResult": TypeAdapter(GetTaskResult)}


def _build_union(name: str, data: dict) -> dict:
    return remembered(name, data, lambda: _ADAPTERS[name].validate_python(data).wire())


ELICITATION_MODES = ("form", "url")


def client_meta(declare_tasks: bool, declare_elicitation: bool, modes: tuple[str, ...] = ELICITATION_MODES) -> dict:
    """The request `_meta`: capabilities are declared per request, never inferred from earlier ones;
    elicitation names each mode the client can receive (PRJ-4)."""
    caps: dict[str, Any] = {}
    if declare_tasks:
        caps["extensions"] = {TASKS_EXT: {}}
    if declare_elicitation:
        caps["elicitation"] = {m: {} for m in modes}
    return _build(RequestMeta, {META_CLIENT_CAPABILITIES: caps, META_PROTOCOL_VERSION: PROTOCOL_VERSION})


def declared_elicitation_modes(message: dict) -> tuple[str, ...]:
    """The elicitation modes a request's `_meta` declares (PRJ-4): none without `elicitation`; a bare
    `elicitation: {}` is form mode (the schema's "form mode only (implicit)")."""
    caps = ((message.get("params") or {}).get("_meta") or {}).get(META_CLIENT_CAPABILITIES) or {}
    el = caps.get("elicitation")
    if el is None:
        return ()
    return tuple(m for m in ELICITATION_MODES if m in el) or ("form",)


def _request(id: RequestId, method: str, params: dict) -> dict:
    model = _REQUEST_MODELS.get(method, UnsupportedRequest)
    return _build(model, {"jsonrpc": "2.0", "id": id, "method": method, "params": params})


def tools_call_request(id: RequestId, tool: str, arguments: dict, meta: dict,
                       input_responses: dict | None = None, request_state: str | None = None) -> dict:
    """A `tools/call`; with `input_responses`/`request_state` it is an MRTR retry (a new id)."""
    return _request(id, "tools/call", {
        "_meta": meta, "name": tool, "arguments": arguments,
        "inputResponses": input_responses, "requestState": request_state,
    })


def tasks_get_request(id: RequestId, task_id: str, meta: dict) -> dict:
    """`tasks/get` of a task id (its wire form, as the client holds it)."""
    return _request(id, "tasks/get", {"_meta": meta, "taskId": task_id})


def tasks_update_request(id: RequestId, task_id: str, input_responses: dict, meta: dict) -> dict:
    """`tasks/update` answering input requests: `input_responses` maps each key to its ElicitResult."""
    return _request(id, "tasks/update", {"_meta": meta, "taskId": task_id, "inputResponses": input_responses})


def tasks_cancel_request(id: RequestId, task_id: str, meta: dict) -> dict:
    """`tasks/cancel` of a task id."""
    return _request(id, "tasks/cancel", {"_meta": meta, "taskId": task_id})


def listen_request(id: RequestId, task_ids: list[str], meta: dict) -> dict:
    """`subscriptions/listen` opting in to `notifications/tasks` for these task ids only."""
    return _request(id, "subscriptions/listen", {"_meta": meta, "notifications": {"taskIds": list(task_ids)}})


def discover_request(id: RequestId, meta: dict | None = None) -> dict:
    """`server/discover`. The core schema requires `_meta` here too; by default nothing is declared."""
    return _request(id, "server/discover", {"_meta": meta if meta is not None else client_meta(False, False)})


def unsupported_request(id: RequestId, method: str, meta: dict, params: dict | None = None) -> dict:
    """A request for a method that no longer exists in this revision (`tasks/list`, `tasks/result`)."""
    return _build(UnsupportedRequest, {"id": id, "method": method, "params": {**(params or {}), "_meta": meta}})


def cancelled_notification(request_id: RequestId, reason: str | None = None) -> dict:
    """The client's stdio cancel of one of its requests (never used to cancel a task)."""
    return _build(CancelledNotification, {"params": {"requestId": request_id, "reason": reason}})


def result_response(id: RequestId, result: dict) -> dict:
    """The JSON-RPC response carrying `result` (a built result: a task, an ack, a tool result)."""
    return _build(ResultResponse, {"id": id, "result": result})


def error_response(id: RequestId | None, code: int, message: str, data: dict | None = None) -> dict:
    """The JSON-RPC error response (`INVALID_PARAMS`, `MISSING_CAPABILITY`, ...)."""
    return _build(ErrorResponse, {"id": id, "error": {"code": code, "message": message, "data": data}})


def missing_capability_data() -> dict:
    """The `data` of a -32021 answer to a caller that did not declare the Tasks extension."""
    return {"requiredCapabilities": {"extensions": {TASKS_EXT: {}}}}


def _task_fields(task_id, status, created_at, last_updated_at, ttl_ms, status_message,
                 poll_interval_ms, **extra) -> dict:
    data = {
        "taskId": task_id, "status": status, "createdAt": created_at, "lastUpdatedAt": last_updated_at,
        "ttlMs": ttl_ms, "statusMessage": status_message, "pollIntervalMs": poll_interval_ms,
    }
    data.update({k: v for k, v in extra.items() if v is not None})
    return data


def create_task_result(task_id: str, status: str, created_at: str, last_updated_at: str,
                       ttl_ms: int | None, status_message: str | None = None,
                       poll_interval_ms: int | None = None) -> dict:
    """The flat `CreateTaskResult` (`resultType: "task"`), returned only once the task is durable."""
    return _build(CreateTaskResult, _task_fields(
        task_id, status, created_at, last_updated_at, ttl_ms, status_message, poll_interval_ms))


def detailed_task(task_id: str, status: str, created_at: str, last_updated_at: str,
                  ttl_ms: int | None, status_message: str | None = None,
                  input_requests: dict | None = None, result: dict | None = None,
                  error: dict | None = None, poll_interval_ms: int | None = None) -> dict:
    """The `DetailedTask` for `status`: input_required carries `inputRequests`, completed `result`,
    failed `error`; any of these given for another status is refused."""
    return _build_union("DetailedTask", _task_fields(
        task_id, status, created_at, last_updated_at, ttl_ms, status_message, poll_interval_ms,
        inputRequests=input_requests, result=result, error=error))


def get_task_result(task_id: str, status: str, created_at: str, last_updated_at: str,
                    ttl_ms: int | None, status_message: str | None = None,
                    input_requests: dict | None = None, result: dict | None = None,
                    error: dict | None = None, poll_interval_ms: int | None = None) -> dict:
    """The `tasks/get` result: the detailed task plus `resultType: "complete"` (never "task")."""
    return _build_union("GetTaskResult", {**_task_fields(
        task_id, status, created_at, last_updated_at, ttl_ms, status_message, poll_interval_ms,
        inputRequests=input_requests, result=result, error=error), "resultType": "complete"})


def empty_ack() -> dict:
    """The acknowledgement of `tasks/update` and `tasks/cancel`: nothing but `resultType`."""
    return _build(EmptyAck, {})


def call_tool_result(is_error: bool, text: str) -> dict:
    """A plain `CallToolResult` with one text block: a tool's answer, or its error with `is_error`."""
    return _build(CallToolResult, {"content": [{"type": "text", "text": text}], "isError": is_error})


def input_required_result(input_requests: dict, request_state: str | None) -> dict:
    """MRTR's `InputRequiredResult`: the input requests by key, and the requestState a retry returns."""
    return _build(InputRequiredResult, {"inputRequests": input_requests, "requestState": request_state})


def elicitation_input_request(message: str, requested_schema: dict) -> dict:
    """One form-mode `elicitation/create` entry of an `inputRequests` map."""
    return _build(ElicitInputRequest, {"params": {"message": message, "requestedSchema": requested_schema}})


def url_input_request(message: str, url: str) -> dict:
    """One URL-mode `elicitation/create` entry (a credential interrupt)."""
    return _build(ElicitInputRequest, {"params": {"mode": "url", "message": message, "url": url}})


def discover_result(serves_tasks: bool, cache_ttl_ms: int = 0,
                    cache_scope: Literal["private", "public"] = "private") -> dict:
    """`server/discover`: `capabilities.extensions` lists the Tasks extension exactly when served.

    The core schema also requires `supportedVersions`, `cacheScope` and a cache `ttlMs`; the
    defaults (private, immediately stale) never let a client act on a stale advertisement.
    """
    caps: dict[str, Any] = {"tools": {}}
    if serves_tasks:
        caps["extensions"] = {TASKS_EXT: {}}
    return _build(DiscoverResult, {
        "supportedVersions": [PROTOCOL_VERSION], "capabilities": caps,
        "cacheScope": cache_scope, "ttlMs": cache_ttl_ms,
    })


def listen_ack_notification(subscription_id: RequestId, task_ids: list[str]) -> dict:
    """The listen stream's first message. The subscription id is the listen request's JSON-RPC id,
    carried in `_meta` (the schema has no other place for it)."""
    return _build(SubscriptionsAcknowledgedNotification, {"params": {
        "_meta": {META_SUBSCRIPTION_ID: subscription_id}, "notifications": {"taskIds": list(task_ids)},
    }})


def task_status_notification(task: dict, subscription_id: RequestId | None = None) -> dict:
    """`notifications/tasks` carrying a detailed task.

    A `tasks/get` result may be passed as is (its `resultType` is dropped). Core requires the
    subscription id in `_meta` on every notification of a listen stream: pass it when known.
    """
    params = {k: v for k, v in task.items() if k != "resultType"}
    if subscription_id is not None:
        params["_meta"] = {**(params.get("_meta") or {}), META_SUBSCRIPTION_ID: subscription_id}
    return _build(TaskStatusNotification, {"params": params})


def server_cancelled_notification(request_id: RequestId, reason: str | None = None) -> dict:
    """The host ending a `subscriptions/listen` stream (its only permitted use of the method, NTF-1)."""
    return _build(CancelledNotification, {"params": {
        "requestId": request_id, "reason": reason, "_meta": {META_SUBSCRIPTION_ID: request_id},
    }})


def listen_closed_result(subscription_id: RequestId) -> dict:
    """The graceful end of a listen stream as a response (`SubscriptionsListenResult`)."""
    return _build(ListenClosedResult, {"_meta": {META_SUBSCRIPTION_ID: subscription_id}})


__all__ = [
    "TASKS_EXT", "PROTOCOL_VERSION", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "HEADER_MISMATCH", "MISSING_CAPABILITY", "HTTP_STATUS", "ELICITATION_MODES", "META_CLIENT_CAPABILITIES", "META_PROTOCOL_VERSION",
    "META_SUBSCRIPTION_ID", "TaskStatus", "TASK_STATUSES", "TERMINAL_TASK_STATUSES",
    # models
    "Wire", "RequestMeta", "ClientCapabilities", "ElicitResult", "CallToolRequest", "GetTaskRequest",
    "UpdateTaskRequest", "CancelTaskRequest", "ListenRequest", "DiscoverRequest", "UnsupportedRequest",
    "CancelledNotification", "CallToolResult", "InputRequiredResult", "ElicitInputRequest",
    "ErrorObject", "CreateTaskResult", "WorkingTask", "InputRequiredTask", "CompletedTask",
    "FailedTask", "CancelledTask", "DetailedTask", "GetTaskResult", "EmptyAck", "DiscoverResult",
    "ResultResponse", "ErrorResponse", "SubscriptionsAcknowledgedNotification",
    "ListenClosedResult", "TaskStatusNotification",
    # builders
    "client_meta", "declared_elicitation_modes", "tools_call_request", "tasks_get_request", "tasks_update_request",
    "tasks_cancel_request", "listen_request", "discover_request", "unsupported_request",
    "cancelled_notification", "result_response", "error_response", "missing_capability_data",
    "create_task_result", "detailed_task", "get_task_result", "empty_ack", "call_tool_result",
    "input_required_result", "elicitation_input_request", "discover_result",
    "listen_ack_notification", "task_status_notification", "server_cancelled_notification",
    "listen_closed_result",
]
