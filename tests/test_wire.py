"""The wire builders against the official schemas, and the validator's ability to say no."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from model import built
from model import wire as w
from verifier.runtime import schemas

T0 = "2026-08-01T00:00:00Z"
T1 = "2026-08-01T00:05:00Z"
META = w.client_meta(declare_tasks=True, declare_elicitation=True)
PLAIN_META = w.client_meta(declare_tasks=False, declare_elicitation=False)
ASK = w.elicitation_input_request(
    "Approve the deployment?",
    {"type": "object", "properties": {"approve": {"type": "boolean"}}, "required": ["approve"]},
)
INPUTS = {"interrupt-1": ASK}
ANSWERS = {"interrupt-1": {"action": "accept", "content": {"approve": True}}}
TOOL_OK = w.call_tool_result(False, "done")
TOOL_ERR = w.call_tool_result(True, "the tool failed")
RPC_ERR = {"code": w.INTERNAL_ERROR, "message": "internal error"}


def _task(status: str, **extra) -> dict:
    return dict(task_id="tenant~2Fabcdefghijklmnop0123", status=status, created_at=T0,
                last_updated_at=T1, ttl_ms=None, **extra)


DETAILED = {
    "working": _task("working", status_message="running", poll_interval_ms=500),
    "input_required": _task("input_required", input_requests=INPUTS),
    "completed": _task("completed", result=TOOL_OK),
    "completed-isError": _task("completed", result=TOOL_ERR),
    "failed": _task("failed", error=RPC_ERR),
    "cancelled": _task("cancelled"),
}

# Every builder's output and the official definition it must satisfy.
BODIES = [
    ("create working", "ext-tasks#CreateTaskResult",
     w.create_task_result("t1", "working", T0, T0, None, "started", 1000)),
    ("create input_required", "ext-tasks#CreateTaskResult",
     w.create_task_result("t1", "input_required", T0, T0, 60_000)),
    ("create completed", "ext-tasks#CreateTaskResult", w.create_task_result("t1", "completed", T0, T1, 0)),
    *[(f"detailed {k}", "ext-tasks#DetailedTask", w.detailed_task(**v)) for k, v in DETAILED.items()],
    *[(f"get {k}", "ext-tasks#GetTaskResult", w.get_task_result(**v)) for k, v in DETAILED.items()],
    ("update ack", "ext-tasks#UpdateTaskResult", w.empty_ack()),
    ("cancel ack", "ext-tasks#CancelTaskResult", w.empty_ack()),
    ("tool ok", "mcp#CallToolResult", TOOL_OK),
    ("tool error", "mcp#CallToolResult", TOOL_ERR),
    ("mrtr", "mcp#InputRequiredResult", w.input_required_result(INPUTS, "opaque-state")),
    ("mrtr no state", "mcp#InputRequiredResult", w.input_required_result(INPUTS, None)),
    ("elicitation entry", "mcp#InputRequest", ASK),
    ("elicitation entry (ext)", "ext-tasks#InputRequest", ASK),
    ("discover tasks", "mcp#DiscoverResult", w.discover_result(True)),
    ("discover plain", "mcp#DiscoverResult", w.discover_result(False)),
    ("listen closed", "mcp#SubscriptionsListenResult", w.listen_closed_result("listen-1")),
    ("meta tasks", "mcp#RequestMetaObject", META),
    ("meta plain", "mcp#RequestMetaObject", PLAIN_META),
    ("answers", "ext-tasks#InputResponses", ANSWERS),
    ("capability data", "mcp#ClientCapabilities", w.missing_capability_data()["requiredCapabilities"]),
    ("tasks capability value", "ext-tasks#TasksExtensionCapability",
     w.missing_capability_data()["requiredCapabilities"]["extensions"][w.TASKS_EXT]),
]

# Whole JSON-RPC messages, with the context `definition_for` receives and the definition expected.
MESSAGES = [
    ("tools/call", "request", "mcp#CallToolRequest", w.tools_call_request("c1", "deploy", {"env": "prod"}, META)),
    ("tools/call plain", "request", "mcp#CallToolRequest", w.tools_call_request("c1", "deploy", {}, PLAIN_META)),
    ("mrtr retry", "request", "mcp#CallToolRequest",
     w.tools_call_request("c2", "deploy", {"env": "prod"}, META, ANSWERS, "opaque-state")),
    ("tasks/get", "request", "envelope#GetTaskRequest", w.tasks_get_request("g1", "t1", META)),
    ("tasks/update", "request", "envelope#UpdateTaskRequest", w.tasks_update_request("u1", "t1", ANSWERS, META)),
    ("tasks/cancel", "request", "envelope#CancelTaskRequest", w.tasks_cancel_request("x1", "t1", META)),
    ("listen", "request", "envelope#TaskSubscriptionsListenRequest", w.listen_request("l1", ["t1", "t2"], META)),
    ("discover", "request", "mcp#DiscoverRequest", w.discover_request("d1")),
    ("tasks/list", "request", "envelope#Request", w.unsupported_request("n1", "tasks/list", META)),
    ("tasks/result", "request", "envelope#Request",
     w.unsupported_request("n2", "tasks/result", META, {"taskId": "t1"})),
    ("client cancel", "notification", "mcp#CancelledNotification", w.cancelled_notification("c1", "user")),
    ("client cancel bare", "notification", "mcp#CancelledNotification", w.cancelled_notification(7)),
    ("create response", "tools/call", "envelope#CreateTaskResultResponse",
     w.result_response("c1", w.create_task_result("t1", "working", T0, T0, None))),
    ("tool response", "tools/call", "envelope#CallToolResultResponse", w.result_response("c1", TOOL_ERR)),
    ("mrtr response", "tools/call", "envelope#InputRequiredResultResponse",
     w.result_response("c1", w.input_required_result(INPUTS, "s"))),
    *[(f"get response {k}", "tasks/get", "envelope#GetTaskResultResponse",
       w.result_response("g1", w.get_task_result(**v))) for k, v in DETAILED.items()],
    ("update response", "tasks/update", "envelope#UpdateTaskResultResponse", w.result_response("u1", w.empty_ack())),
    ("cancel response", "tasks/cancel", "envelope#CancelTaskResultResponse", w.result_response("x1", w.empty_ack())),
    ("discover response", "server/discover", "mcp#DiscoverResultResponse",
     w.result_response("d1", w.discover_result(True))),
    ("listen closed response", "subscriptions/listen", "mcp#SubscriptionsListenResultResponse",
     w.result_response("l1", w.listen_closed_result("l1"))),
    ("-32602", "tasks/get", "envelope#InvalidParamsErrorResponse",
     w.error_response("g1", w.INVALID_PARAMS, "Unknown task")),
    ("-32603", "tasks/get", "envelope#InternalErrorResponse", w.error_response("g1", w.INTERNAL_ERROR, "Internal")),
    ("-32601", "tasks/list", "envelope#MethodNotFoundErrorResponse",
     w.error_response("n1", w.METHOD_NOT_FOUND, "Method not found")),
    ("-32021", "tasks/get", "mcp#MissingRequiredClientCapabilityError",
     w.error_response("g1", w.MISSING_CAPABILITY, "Missing capability", w.missing_capability_data())),
    ("-32020", "tasks/get", "mcp#HeaderMismatchError",
     w.error_response("g1", w.HEADER_MISMATCH, "Mcp-Name does not match params.taskId")),
    ("ack", "notification", "envelope#TaskSubscriptionsAcknowledgedNotification",
     w.listen_ack_notification("l1", ["t1"])),
    ("ack none agreed", "notification", "envelope#TaskSubscriptionsAcknowledgedNotification",
     w.listen_ack_notification("l1", [])),
    *[(f"status {k}", "notification", "ext-tasks#TaskStatusNotification",
       w.task_status_notification(w.detailed_task(**v), "l1")) for k, v in DETAILED.items()],
    ("status from get", "notification", "ext-tasks#TaskStatusNotification",
     w.task_status_notification(w.get_task_result(**DETAILED["completed"]), "l1")),
    ("server teardown", "notification", "mcp#CancelledNotification", w.server_cancelled_notification("l1")),
]


@pytest.mark.parametrize("definition, body", [b[1:] for b in BODIES], ids=[b[0] for b in BODIES])
def test_builder_output_validates(definition, body):
    assert schemas.validate(definition, body) == []


@pytest.mark.parametrize("context, definition, message", [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_whole_message_validates(context, definition, message):
    assert schemas.definition_for(message, context) == definition
    assert schemas.validate_message(message, context) == []
    json.dumps(message)  # JSON-ready


# --------------------------------------------------------------------------- shapes the model relies on


def test_ttl_null_is_kept_as_json_null_and_optional_fields_are_absent():
    created = w.create_task_result("t1", "working", T0, T0, None)
    assert created["ttlMs"] is None and '"ttlMs": null' in json.dumps(created)
    assert "statusMessage" not in created and "pollIntervalMs" not in created
    assert created["resultType"] == "task"


def test_detailed_task_shape_follows_status():
    assert w.detailed_task(**DETAILED["input_required"])["inputRequests"] == INPUTS
    assert w.detailed_task(**DETAILED["completed-isError"])["result"]["isError"] is True
    assert w.detailed_task(**DETAILED["failed"])["error"] == RPC_ERR
    assert set(w.detailed_task(**DETAILED["cancelled"])) == {
        "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"}
    with pytest.raises(ValidationError):
        w.detailed_task(**_task("working", result=TOOL_OK))
    with pytest.raises(ValidationError):
        w.detailed_task(**_task("completed"))  # completed needs its result
    with pytest.raises(ValidationError):
        w.get_task_result(**_task("failed"))  # failed needs its error
    assert "resultType" not in w.detailed_task(**DETAILED["working"])
    assert w.get_task_result(**DETAILED["working"])["resultType"] == "complete"


def test_capability_declaration_and_advertisement():
    caps = META[w.META_CLIENT_CAPABILITIES]
    assert caps == {"extensions": {w.TASKS_EXT: {}}, "elicitation": {"form": {}, "url": {}}}
    form_only = w.client_meta(False, True, ("form",))[w.META_CLIENT_CAPABILITIES]
    assert form_only == {"elicitation": {"form": {}}}
    assert PLAIN_META[w.META_CLIENT_CAPABILITIES] == {}
    assert META[w.META_PROTOCOL_VERSION] == w.PROTOCOL_VERSION == "2026-07-28"
    assert w.TASKS_EXT in w.discover_result(True)["capabilities"]["extensions"]
    assert w.TASKS_EXT not in w.discover_result(False)["capabilities"].get("extensions", {})


def test_subscription_id_travels_in_meta():
    ack = w.listen_ack_notification("l1", ["t1"])
    assert ack["params"]["_meta"][w.META_SUBSCRIPTION_ID] == "l1"
    assert ack["params"]["notifications"] == {"taskIds": ["t1"]}
    note = w.task_status_notification(w.get_task_result(**DETAILED["working"]), "l1")
    assert note["params"]["_meta"][w.META_SUBSCRIPTION_ID] == "l1" and "resultType" not in note["params"]
    assert w.server_cancelled_notification("l1")["params"]["requestId"] == "l1"


# --------------------------------------------------------------------------- the validator can fail

GOOD_CREATE = w.create_task_result("t1", "working", T0, T0, None)
GOOD_GET = w.get_task_result(**DETAILED["input_required"])


def _without(d: dict, *keys: str) -> dict:
    return {k: v for k, v in d.items() if k not in keys}


NEGATIVE = [
    ("create status bogus", "ext-tasks#CreateTaskResult", {**GOOD_CREATE, "status": "bogus"}),
    ("create without ttlMs", "ext-tasks#CreateTaskResult", _without(GOOD_CREATE, "ttlMs")),
    ("create ttlMs string", "ext-tasks#CreateTaskResult", {**GOOD_CREATE, "ttlMs": "60s"}),
    ("create resultType complete", "ext-tasks#CreateTaskResult", {**GOOD_CREATE, "resultType": "complete"}),
    ("get without taskId", "ext-tasks#GetTaskResult", _without(GOOD_GET, "taskId")),
    ("get input_required without inputRequests", "ext-tasks#GetTaskResult", _without(GOOD_GET, "inputRequests")),
    ("get resultType task", "ext-tasks#GetTaskResult", {**GOOD_GET, "resultType": "task"}),
    ("get completed without result", "ext-tasks#GetTaskResult",
     _without(w.get_task_result(**DETAILED["completed"]), "result")),
    ("get failed error without code", "ext-tasks#GetTaskResult",
     {**w.get_task_result(**DETAILED["failed"]), "error": {"message": "x"}}),
    ("get bad input request", "ext-tasks#GetTaskResult",
     {**GOOD_GET, "inputRequests": {"k": {"method": "elicitation/create", "params": {"mode": "form"}}}}),
    ("update ack resultType task", "ext-tasks#UpdateTaskResult", {"resultType": "task"}),
    ("cancel ack without resultType", "ext-tasks#CancelTaskResult", {}),
    ("tool result without content", "mcp#CallToolResult", _without(TOOL_OK, "content")),
    ("tool result without resultType", "mcp#CallToolResult", _without(TOOL_OK, "resultType")),
    ("discover without supportedVersions", "mcp#DiscoverResult",
     _without(w.discover_result(True), "supportedVersions")),
    ("tasks capability with settings", "ext-tasks#TasksExtensionCapability", {"anything": True}),
    ("meta without protocol version", "mcp#RequestMetaObject", _without(META, w.META_PROTOCOL_VERSION)),
]

NEGATIVE_MESSAGES = [
    ("request without _meta", "request",
     {**w.tasks_get_request("g1", "t1", META), "params": {"taskId": "t1"}}),
    ("tasks/update without inputResponses", "request",
     {**w.tasks_update_request("u1", "t1", ANSWERS, META), "params": {"taskId": "t1", "_meta": META}}),
    ("listen taskIds not a list", "request",
     {**w.listen_request("l1", ["t1"], META), "params": {"_meta": META, "notifications": {"taskIds": "t1"}}}),
    ("get response resultType task", "tasks/get", w.result_response("g1", {**GOOD_GET, "resultType": "task"})),
    ("create response wrong jsonrpc", "tools/call", {**w.result_response("c1", GOOD_CREATE), "jsonrpc": "1.0"}),
    ("-32021 without data", "tasks/get", w.error_response("g1", w.MISSING_CAPABILITY, "Missing capability")),
    ("-32602 message not a string", "tasks/get",
     {"jsonrpc": "2.0", "id": "g1", "error": {"code": w.INVALID_PARAMS, "message": 3}}),
    ("status notification without createdAt", "notification",
     {"jsonrpc": "2.0", "method": "notifications/tasks", "params": _without(w.detailed_task(**DETAILED["working"]), "createdAt")}),
    ("ack without notifications", "notification",
     {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {}}),
    ("cancel without requestId", "notification",
     {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"reason": "x"}}),
]


@pytest.mark.parametrize("definition, instance", [n[1:] for n in NEGATIVE], ids=[n[0] for n in NEGATIVE])
def test_validator_refuses(definition, instance):
    assert schemas.validate(definition, instance) != []


@pytest.mark.parametrize("context, message", [n[1:] for n in NEGATIVE_MESSAGES], ids=[n[0] for n in NEGATIVE_MESSAGES])
def test_validator_refuses_whole_message(context, message):
    assert schemas.validate_message(message, context) != []


def test_error_messages_name_the_place():
    errors = schemas.validate("ext-tasks#CreateTaskResult", {**_without(GOOD_CREATE, "ttlMs"), "status": "bogus"})
    assert any("ttlMs" in e for e in errors) and any(e.startswith("status:") for e in errors)


def test_bad_definition_names_are_refused():
    with pytest.raises(ValueError):
        schemas.validate("nope#CreateTaskResult", {})
    with pytest.raises(KeyError):
        schemas.validate("ext-tasks#NoSuchThing", {})


# --------------------------------------------------------------------------- what the schemas do NOT enforce


def test_schemas_accept_what_the_spec_forbids_so_the_pydantic_models_refuse_it():
    """The vendored schemas are a floor (spec-digest, "Schemas are not enough"): they accept a
    CreateTaskResult carrying `result`/`inputRequests`/`error`, an empty `inputRequests`, a negative
    `ttlMs`, a cancel ack carrying a status and an InputRequiredResult with neither field. Those
    rules are properties (WIRE-2, TTL-1, ...). The model relies on its pydantic models to refuse
    the non-flat CreateTaskResult and a non-empty ack outright (extra="forbid")."""
    loose = [
        ("ext-tasks#CreateTaskResult", {**GOOD_CREATE, "result": TOOL_OK}),
        ("ext-tasks#CreateTaskResult", {**GOOD_CREATE, "inputRequests": INPUTS}),
        ("ext-tasks#CreateTaskResult", {**GOOD_CREATE, "error": RPC_ERR}),
        ("ext-tasks#CreateTaskResult", {**GOOD_CREATE, "ttlMs": -5}),
        ("ext-tasks#GetTaskResult", {**GOOD_GET, "inputRequests": {}}),
        ("ext-tasks#CancelTaskResult", {"resultType": "complete", "status": "cancelled"}),
        ("mcp#InputRequiredResult", {"resultType": "input_required"}),
    ]
    for definition, instance in loose:
        assert schemas.validate(definition, instance) == [], (definition, instance)

    for extra in ({"inputRequests": INPUTS}, {"result": TOOL_OK}, {"error": RPC_ERR}):
        with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
            w.CreateTaskResult.model_validate({**GOOD_CREATE, **extra})
    w.CreateTaskResult.model_validate(GOOD_CREATE)  # the flat one is fine
    with pytest.raises(ValidationError):
        w.EmptyAck.model_validate({"resultType": "complete", "status": "cancelled"})
    with pytest.raises(ValidationError):
        w.CreateTaskResult.model_validate({**GOOD_CREATE, "resultType": "complete"})


# --------------------------------------------------------------------------- finding the shared folder


def test_default_shared_dir_is_next_to_the_repo(monkeypatch):
    monkeypatch.delenv(schemas.ENV_SHARED, raising=False)
    repo = Path(schemas.__file__).resolve().parents[2]
    assert schemas.shared_dir() == repo.parent / "shared"


def test_shared_dir_from_environment(monkeypatch, tmp_path):
    source = schemas.shared_dir() / "schemas"
    copy = tmp_path / "elsewhere"
    (copy / "schemas").mkdir(parents=True)
    for name in (schemas.EXT_TASKS_FILE, schemas.MCP_FILE):
        shutil.copyfile(source / name, copy / "schemas" / name)
    monkeypatch.setenv(schemas.ENV_SHARED, str(copy))
    assert schemas.shared_dir() == copy
    assert schemas.validate("ext-tasks#CreateTaskResult", GOOD_CREATE) == []
    assert schemas.validate("ext-tasks#CreateTaskResult", _without(GOOD_CREATE, "ttlMs")) != []


def test_missing_shared_dir_says_how_to_fix_it(monkeypatch, tmp_path):
    monkeypatch.setenv(schemas.ENV_SHARED, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=schemas.ENV_SHARED):
        schemas.shared_dir()
    with pytest.raises(FileNotFoundError):
        schemas.validate("ext-tasks#CreateTaskResult", GOOD_CREATE)


def _uncached(model, data):
    return model.model_validate(data).wire()


def test_a_remembered_build_is_the_build_and_a_fresh_copy():
    """The builders remember what they built (`model.built`); a second build of the same input is the
    same message, and changing a returned message does not change the next one."""
    built._BUILT.clear()
    first = w.create_task_result("t1", "working", T0, T0, None)
    assert built._BUILT, "the build was not remembered"
    again = w.create_task_result("t1", "working", T0, T0, None)
    assert again == first and again is not first
    again["ttlMs"] = 5
    again.pop("status")
    assert w.create_task_result("t1", "working", T0, T0, None) == first
    data = {"jsonrpc": "2.0", "id": "r1", "method": "tasks/get", "params": {"_meta": META, "taskId": "t1"}}
    assert w.tasks_get_request("r1", "t1", META) == _uncached(w.GetTaskRequest, data)


def test_a_remembered_build_tells_equal_looking_inputs_apart():
    """True and 1, a tuple and a list, key order: inputs that differ are built apart."""
    built._BUILT.clear()
    as_bool = w.tools_call_request("r1", "flow", {"x": True}, META)
    as_int = w.tools_call_request("r1", "flow", {"x": 1}, META)
    assert as_bool["params"]["arguments"]["x"] is True and type(as_int["params"]["arguments"]["x"]) is int


def test_a_refused_or_unmarshallable_input_is_never_remembered():
    built._BUILT.clear()
    for _ in range(2):
        with pytest.raises(ValidationError):
            w.detailed_task(**_task("completed"))
    assert not built._BUILT

    class Odd(str):
        pass
    got = w.tasks_get_request("r1", Odd("t1"), META)
    assert got["params"]["taskId"] == "t1" and not built._BUILT
