"""The 2026-07-28 tasks extension (``io.modelcontextprotocol/tasks``) on the wire, in process.

Each test sends JSON-RPC frames to the stateless engine and reads what it answers: the flat
``CreateTaskResult``, ``tasks/get`` with the outcome inlined, ``tasks/update`` delivering input,
``tasks/cancel``, the -32021 gates, ``notifications/tasks`` on a listen stream, and a task
bound to the principal that created it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from generated._runtime.auth.principal import CURRENT, AccessToken, PrincipalBox
from generated._runtime.core.errors import MCPError
from generated._runtime.core.wire import Outbound
from generated._runtime.roles.mrtr import ask
from generated._runtime.roles.stateless import StatelessServer
from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.roles.taskstore import InMemoryTaskStore
from generated._runtime.transports.http.stateless import ToolHeaders, serve_stateless_post
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.support.http_support import bounded

EXT = "io.modelcontextprotocol/tasks"
WITH_EXT: dict[str, Any] = {"elicitation": {}, "extensions": {EXT: {}}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def form(message: str) -> t.ElicitRequestFormParams:
    """A form elicitation asking for a name."""
    schema = t.ElicitRequestFormParamsRequestedSchema(properties=NAME["properties"])
    return t.ElicitRequestFormParams(message=message, requested_schema=schema)


class JobServer(Server):
    """Tools for every path: a held job, input through the task, errors, an MRTR-first tool."""

    name = "jobs"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.stopped = False
        self.task_support = TaskSupport(
            store=InMemoryTaskStore(),
            tools={
                "job": "optional",
                "must": "required",
                "plain": "forbidden",
                "ask2": "optional",
                "crash": "optional",
                "tool_error": "optional",
                "mrtr": "required",
            },
            begins_in_handler={"mrtr"},
        )

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        if params.name in ("job", "must"):
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.stopped = True
                raise
            return t.CallToolResult(content=[t.TextContent(text="done")])
        if params.name == "ask2":
            a, b = await asyncio.gather(
                ask(ctx, "elicitation/create", form("first"), key="a"),
                ask(ctx, "elicitation/create", form("second"), key="b"),
            )
            got = [(x.content or {}).get("name") for x in (a, b)]
            return t.CallToolResult(content=[t.TextContent(text=f"{got[0]}+{got[1]}")])
        if params.name == "crash":
            raise MCPError(-32603, "it broke")
        if params.name == "tool_error":
            return t.CallToolResult(content=[t.TextContent(text="no")], is_error=True)
        if params.name == "mrtr":
            from generated._runtime.roles.stateless_tasks import begin_task

            answer = await ask(ctx, "elicitation/create", form("name?"), key="user_name")
            await begin_task(ctx)
            return t.CallToolResult(content=[t.TextContent(text=f"hi {answer.content}")])
        return t.CallToolResult(content=[t.TextContent(text="plain")])


def frame(method: str, params: dict[str, Any] | None = None, caps: Any = None) -> dict[str, Any]:
    """A 2026-07-28 request with its per-request ``_meta``."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": WITH_EXT if caps is None else caps,
    }
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }


async def handle(
    engine: StatelessServer, message: dict[str, Any], emit: Any = None
) -> dict[str, Any] | None:
    """Answer one frame; ``emit`` gets what is sent before the response, decoded."""

    async def written(out: Outbound) -> None:
        await emit(msgspec.json.decode(out.data))

    reply = await engine.answer(msgspec.json.encode(message), None if emit is None else written)
    return None if reply.response is None else msgspec.json.decode(reply.response.data)


async def post_http(
    engine: StatelessServer, message: dict[str, Any], headers: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Answer one frame as the HTTP layer does (its header checks): the response's start
    (status, headers) and its body."""
    sent: list[Any] = []

    async def receive() -> Any:
        await asyncio.Event().wait()

    async def send_out(event: Any) -> None:
        sent.append(event)

    body = msgspec.json.encode(message)
    await serve_stateless_post(engine, ToolHeaders(engine), headers, body, receive, send_out)
    return sent[0], msgspec.json.decode(sent[1]["body"])


async def handle_http(
    engine: StatelessServer, message: dict[str, Any], headers: dict[str, str]
) -> tuple[int, dict[str, Any]]:
    """Answer one frame as the HTTP layer does (its header checks): status and body."""
    start, body = await post_http(engine, message, headers)
    return start["status"], body


async def send(engine: StatelessServer, method: str, params: Any = None, caps: Any = None) -> Any:
    """The response frame's ``result`` or ``error`` object."""
    reply = await handle(engine, frame(method, params, caps))
    assert reply is not None
    return reply.get("result", reply.get("error"))


async def until(engine: StatelessServer, task_id: str, *statuses: str) -> dict[str, Any]:
    """Poll ``tasks/get`` (yielding to the loop between polls) until a status in ``statuses``."""
    for _ in range(1000):
        got = await send(engine, "tasks/get", {"taskId": task_id})
        if got.get("status") in statuses:
            return got
        await asyncio.sleep(0)
    raise AssertionError(f"task never reached {statuses}: {got}")


@contextlib.contextmanager
def principal(subject: str | None) -> Iterator[None]:
    """Handle the requests inside as ``subject``'s (None: no authorization in front)."""
    token = CURRENT.set(
        None if subject is None else PrincipalBox(AccessToken(subject=subject, client_id="app"))
    )
    try:
        yield
    finally:
        CURRENT.reset(token)


@pytest.fixture
def server() -> JobServer:
    """A fresh server with its own task store."""
    return JobServer()


@bounded
async def test_discover_advertises_the_extension_not_the_v1_slot(server: JobServer) -> None:
    """The extension is under ``capabilities.extensions``; there is no ``capabilities.tasks``."""
    caps = (await send(StatelessServer(server), "server/discover"))["capabilities"]
    assert caps["extensions"] == {EXT: {}} and "tasks" not in caps


@bounded
async def test_task_tool_is_a_flat_task_and_get_inlines_the_result(server: JobServer) -> None:
    """CreateTaskResult is flat with ttlMs/pollIntervalMs; the result comes inlined on get."""
    engine = StatelessServer(server)
    created = await send(engine, "tools/call", {"name": "job", "arguments": {}})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert "task" not in created and "ttl" not in created and "pollInterval" not in created
    assert created["ttlMs"] == 3_600_000 and created["pollIntervalMs"] == 1000
    working = await send(engine, "tasks/get", {"taskId": created["taskId"]})
    assert working["resultType"] == "complete" and working["status"] == "working"
    assert "result" not in working
    server.release.set()
    done = await until(engine, created["taskId"], "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "done"}]
    assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})


@bounded
async def test_gates_and_removed_methods(server: JobServer) -> None:
    """Without the extension: -32021 for tasks/* and required tools, sync for optional ones;
    tasks/result and tasks/list are -32601."""
    engine = StatelessServer(server)
    server.release.set()
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        error = await send(engine, method, {"taskId": "x", "inputResponses": {}}, caps={})
        assert error["code"] == -32021
        assert error["data"] == {"requiredCapabilities": {"extensions": {EXT: {}}}}
    error = await send(engine, "tools/call", {"name": "must"}, caps={})
    assert error["code"] == -32021 and error["data"]["requiredCapabilities"]["extensions"]
    sync = await send(engine, "tools/call", {"name": "job"}, caps={})
    assert sync["resultType"] == "complete" and "taskId" not in sync
    plain = await send(engine, "tools/call", {"name": "plain", "task": {"ttl": 5}})
    assert plain["resultType"] == "complete" and plain["content"][0]["text"] == "plain"
    for method in ("tasks/result", "tasks/list"):
        assert (await send(engine, method, {"taskId": "x"}))["code"] == -32601
    assert (await send(engine, "tasks/get", {"taskId": "nope"}))["code"] == -32602


@bounded
async def test_tool_error_is_completed_protocol_error_is_failed(server: JobServer) -> None:
    """isError stays a result (completed); a JSON-RPC error is failed with the error inlined."""
    engine = StatelessServer(server)
    tool_error = await send(engine, "tools/call", {"name": "tool_error"})
    done = await until(engine, tool_error["taskId"], "completed", "failed")
    assert done["status"] == "completed" and done["result"]["isError"] is True
    crash = await send(engine, "tools/call", {"name": "crash"})
    failed = await until(engine, crash["taskId"], "completed", "failed")
    assert failed["status"] == "failed" and "result" not in failed
    assert failed["error"] == {"code": -32603, "message": "it broke"}


@bounded
async def test_input_requests_through_the_task_answered_in_parts(server: JobServer) -> None:
    """Two asks park the task with two keys; a partial update keeps it waiting on the other;
    a bad answer is -32602 and changes nothing; the last answer lets it complete."""
    engine = StatelessServer(server)
    task_id = (await send(engine, "tools/call", {"name": "ask2"}))["taskId"]
    waiting = await until(engine, task_id, "input_required")
    for _ in range(10):  # both asks of the gather are pending after a few turns
        if len(waiting["inputRequests"]) == 2:
            break
        await asyncio.sleep(0)
        waiting = await send(engine, "tasks/get", {"taskId": task_id})
    assert sorted(waiting["inputRequests"]) == ["a", "b"]
    assert waiting["inputRequests"]["a"]["method"] == "elicitation/create"
    bad = {"taskId": task_id, "inputResponses": {"a": {"action": "maybe"}}}
    assert (await send(engine, "tasks/update", bad))["code"] == -32602
    answer = {"action": "accept", "content": {"name": "x"}}
    update = {"taskId": task_id, "inputResponses": {"a": answer, "zzz": {"ignored": True}}}
    assert await send(engine, "tasks/update", update) == {
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": server.server_info()},
    }
    still = await send(engine, "tasks/get", {"taskId": task_id})
    assert still["status"] == "input_required" and list(still["inputRequests"]) == ["b"]
    last = {"action": "accept", "content": {"name": "y"}}
    await send(engine, "tasks/update", {"taskId": task_id, "inputResponses": {"b": last}})
    done = await until(engine, task_id, "completed")
    assert done["result"]["content"][0]["text"] == "x+y"


@bounded
async def test_cancel_acks_stops_the_handler_and_is_idempotent(server: JobServer) -> None:
    """tasks/cancel answers an empty ack, stops the handler, and acks a terminal task again."""
    engine = StatelessServer(server)
    task_id = (await send(engine, "tools/call", {"name": "job"}))["taskId"]
    ack = await send(engine, "tasks/cancel", {"taskId": task_id})
    assert set(ack) == {"resultType", "_meta"} and ack["resultType"] == "complete"
    assert (await until(engine, task_id, "cancelled"))["status"] == "cancelled"
    for _ in range(10):
        if server.stopped:
            break
        await asyncio.sleep(0)
    assert server.stopped
    assert (await send(engine, "tasks/cancel", {"taskId": task_id}))["resultType"] == "complete"
    assert (await send(engine, "tasks/cancel", {"taskId": "nope"}))["code"] == -32602


@bounded
async def test_a_task_is_bound_to_the_principal_that_created_it(server: JobServer) -> None:
    """Another principal, or an anonymous caller, cannot get, update, cancel or listen to it."""
    engine = StatelessServer(server)
    with principal("alice"):
        task_id = (await send(engine, "tools/call", {"name": "job"}))["taskId"]
    for other in ("bob", None):
        with principal(other):
            for method in ("tasks/get", "tasks/update", "tasks/cancel"):
                params = {"taskId": task_id, "inputResponses": {}}
                error = await send(engine, method, params)
                assert error["code"] == -32602, (other, method, error)
    with principal("alice"):
        assert (await send(engine, "tasks/get", {"taskId": task_id}))["status"] == "working"
        server.release.set()
        assert (await until(engine, task_id, "completed"))["result"]["content"]


@bounded
async def test_status_notifications_reach_only_listeners_of_the_owner(server: JobServer) -> None:
    """notifications/tasks carries each new state to a listen stream naming the task; another
    principal's stream is not given it; taskIds without the extension is -32021."""
    engine = StatelessServer(server)
    with principal("alice"):
        task_id = (await send(engine, "tools/call", {"name": "job"}))["taskId"]
    streams: dict[str, list[dict[str, Any]]] = {"alice": [], "bob": []}
    listens = []
    for who in streams:

        async def emit(message: dict[str, Any], who: str = who) -> None:
            streams[who].append(message)

        listen = frame("subscriptions/listen", {"notifications": {"taskIds": [task_id]}})
        with principal(who):
            listens.append(asyncio.ensure_future(handle(engine, listen, emit)))
    for _ in range(10):
        await asyncio.sleep(0)
    acks = {who: s[0]["params"]["notifications"] for who, s in streams.items()}
    assert acks == {"alice": {"taskIds": [task_id]}, "bob": {}}
    server.release.set()
    with principal("alice"):
        await until(engine, task_id, "completed")
    for _ in range(10):
        await asyncio.sleep(0)
    states = [m["params"] for m in streams["alice"] if m["method"] == "notifications/tasks"]
    assert states[-1]["status"] == "completed" and states[-1]["taskId"] == task_id
    assert states[-1]["result"]["content"] == [{"type": "text", "text": "done"}]
    assert [m["method"] for m in streams["bob"]] == ["notifications/subscriptions/acknowledged"]
    for listen in listens:
        listen.cancel()
    no_ext = await send(engine, "subscriptions/listen", {"notifications": {"taskIds": ["x"]}}, {})
    assert no_ext["code"] == -32021


@bounded
async def test_mrtr_rounds_first_then_the_task(server: JobServer) -> None:
    """A tool that begins its task itself: round 1 is InputRequiredResult (no taskId), the
    retry with the answer is a task whose result used it."""
    engine = StatelessServer(server)
    first = await send(engine, "tools/call", {"name": "mrtr"})
    assert first["resultType"] == "input_required" and "taskId" not in first
    retry = {
        "name": "mrtr",
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": first["requestState"],
    }
    created = await send(engine, "tools/call", retry)
    assert created["resultType"] == "task" and "requestState" not in created
    done = await until(engine, created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "hi {'name': 'Ada'}"


@bounded
async def test_mcp_name_must_match_the_task_id_over_http(server: JobServer) -> None:
    """tasks/get's Mcp-Name header mirrors params.taskId: a mismatch is -32020."""
    engine = StatelessServer(server)
    headers = {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tasks/get",
        "mcp-name": "other",
    }
    status, answer = await handle_http(engine, frame("tasks/get", {"taskId": "t1"}), headers)
    assert status == 400 and answer is not None
    assert answer["error"]["code"] == -32020
