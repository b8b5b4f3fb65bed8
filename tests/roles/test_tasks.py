"""2025-11-25 tasks on the wire: task-augmented tools/call, tasks/get, result, list, cancel, TTL."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from generated._runtime.core.errors import CapabilityError, MCPError
from generated._runtime.roles.tasks import InMemoryTaskStore, TaskSupport, poll_task
from generated._runtime.transports.memory import memory_pair
from generated.v2025_11_25 import Client, Server, ServerContext
from generated.v2025_11_25 import types as t
from tests.support.runtime_support import STEP_S, RawPeer, Recorder, serving

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RELATED = "io.modelcontextprotocol/related-task"


class TaskServer(Server):
    """A 2025-11-25 server whose tools may run as tasks; ``gate`` holds the ``slow`` tool."""

    name = "task-server"

    def __init__(self, support: TaskSupport | None = None) -> None:
        self.task_support = support if support is not None else TaskSupport()
        self.gate = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """``slow`` waits for the gate, ``boom`` fails, ``bad`` is a tool error, else echo."""
        if params.name == "slow":
            self.started.set()
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if params.name == "ask":
            form = t.ElicitRequestFormParams(
                message="name?",
                requested_schema=t.ElicitRequestFormParamsRequestedSchema(properties={}),
            )
            answer = await ctx.elicit(params=form)
            return t.CallToolResult(content=[t.TextContent(text=answer.action)])
        if params.name == "sample":
            message = t.SamplingMessage(role="user", content=t.TextContent(text="hi"))
            created = await ctx.create_message_as_task(
                messages=[message], max_tokens=5, task=t.TaskMetadata(ttl=5000)
            )
            reply = await ctx.create_message_task_result(task_id=created.task.task_id)
            return t.CallToolResult(content=[t.TextContent(text=reply.model)])
        if params.name == "steps":
            for step in (1, 2):
                await ctx.progress(step, 2, f"step {step}")
            return t.CallToolResult(content=[t.TextContent(text="stepped")])
        if params.name == "boom":
            raise MCPError(-32000, "the tool broke", {"why": "test"})
        if params.name == "bad":
            return t.CallToolResult(content=[t.TextContent(text="no")], is_error=True)
        return t.CallToolResult(content=[t.TextContent(text=params.name)])


async def _open(peer: RawPeer) -> dict[str, Any]:
    init: dict[str, Any] = await peer.initialize("2025-11-25")
    return init


def _task_frame(reply: dict[str, Any], id_: Any, ttl: int | None = 60000) -> dict[str, Any]:
    """Check a CreateTaskResult frame exactly; return its task."""
    task = reply["result"]["task"]
    assert reply == {
        "jsonrpc": "2.0",
        "id": id_,
        "result": {
            "task": {
                "taskId": task["taskId"],
                "status": "working",
                "createdAt": task["createdAt"],
                "lastUpdatedAt": task["lastUpdatedAt"],
                "ttl": ttl,
                "pollInterval": 1000,
            }
        },
    }
    assert ISO.match(task["createdAt"]) and ISO.match(task["lastUpdatedAt"])
    assert len(task["taskId"]) >= 32
    return dict(task)


async def _call_as_task(peer: RawPeer, id_: Any, name: str, ttl: int = 60000) -> dict[str, Any]:
    reply = await peer.call(id_, "tools/call", {"name": name, "task": {"ttl": ttl}})
    return _task_frame(reply, id_, ttl)


async def test_capabilities_declare_the_task_requests_list_and_cancel() -> None:
    async with serving(TaskServer()) as peer:
        init = await _open(peer)
        assert init["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }


async def test_task_call_answers_create_task_result_then_result_blocks_until_done() -> None:
    server = TaskServer()
    async with serving(server) as peer:
        await _open(peer)
        task = await _call_as_task(peer, 1, "slow")
        await asyncio.wait_for(server.started.wait(), STEP_S)
        got = await peer.call(2, "tasks/get", {"taskId": task["taskId"]})
        assert got["result"]["status"] == "working" and got["result"]["taskId"] == task["taskId"]
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tasks/result",
                "params": {"taskId": task["taskId"]},
            }
        )
        await peer.silent(0.1)  # tasks/result waits for a terminal status
        server.gate.set()
        frames = [await peer.recv(), await peer.recv()]
        status = next(f for f in frames if f.get("method") == "notifications/tasks/status")
        result = next(f for f in frames if f.get("id") == 3)
        assert status == {
            "jsonrpc": "2.0",
            "method": "notifications/tasks/status",
            "params": {
                "taskId": task["taskId"],
                "status": "completed",
                "createdAt": task["createdAt"],
                "lastUpdatedAt": status["params"]["lastUpdatedAt"],
                "ttl": 60000,
                "pollInterval": 1000,
            },
        }
        assert result == {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {
                "content": [{"type": "text", "text": "slow"}],
                "_meta": {RELATED: {"taskId": task["taskId"]}},
            },
        }
        done = await peer.call(4, "tasks/get", {"taskId": task["taskId"]})
        assert done["result"]["status"] == "completed"


async def test_unknown_task_ids_are_invalid_params() -> None:
    async with serving(TaskServer()) as peer:
        await _open(peer)
        for id_, method in enumerate(("tasks/get", "tasks/result", "tasks/cancel")):
            reply = await peer.call(id_, method, {"taskId": "nope"})
            verb = "cancel" if method == "tasks/cancel" else "retrieve"
            assert reply == {
                "jsonrpc": "2.0",
                "id": id_,
                "error": {"code": -32602, "message": f"Failed to {verb} task: Task not found"},
            }


async def test_cancel_stops_the_handler_and_a_terminal_task_cannot_be_cancelled() -> None:
    server = TaskServer()
    async with serving(server) as peer:
        await _open(peer)
        task = await _call_as_task(peer, 1, "slow")
        await asyncio.wait_for(server.started.wait(), STEP_S)
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tasks/cancel",
                "params": {"taskId": task["taskId"]},
            }
        )
        frames = [await peer.recv(), await peer.recv()]
        reply = next(f for f in frames if f.get("id") == 2)
        assert reply["result"]["status"] == "cancelled"
        assert reply["result"]["statusMessage"] == "The task was cancelled by request."
        assert any(f.get("method") == "notifications/tasks/status" for f in frames)
        await asyncio.wait_for(server.cancelled.wait(), STEP_S)
        again = await peer.call(3, "tasks/cancel", {"taskId": task["taskId"]})
        assert again == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": -32602,
                "message": "Cannot cancel task: already in terminal status 'cancelled'",
            },
        }
        got = await peer.call(4, "tasks/get", {"taskId": task["taskId"]})
        assert got["result"]["status"] == "cancelled"


async def test_a_failing_handler_fails_the_task_and_result_returns_its_error() -> None:
    async with serving(TaskServer()) as peer:
        await _open(peer)
        task = await _call_as_task(peer, 1, "boom")
        note = await peer.recv()
        assert note["method"] == "notifications/tasks/status"
        assert note["params"]["status"] == "failed"
        assert note["params"]["statusMessage"] == "the tool broke"
        reply = await peer.call(2, "tasks/result", {"taskId": task["taskId"]})
        assert reply == {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {"code": -32000, "message": "the tool broke", "data": {"why": "test"}},
        }


async def test_a_tool_error_result_fails_the_task_and_keeps_the_result() -> None:
    async with serving(TaskServer()) as peer:
        await _open(peer)
        task = await _call_as_task(peer, 1, "bad")
        assert (await peer.recv())["params"]["status"] == "failed"
        reply = await peer.call(2, "tasks/result", {"taskId": task["taskId"]})
        assert reply["result"]["isError"] is True
        assert reply["result"]["_meta"] == {RELATED: {"taskId": task["taskId"]}}


async def test_list_pages_with_opaque_cursors_and_refuses_a_bad_one() -> None:
    support = TaskSupport(store=InMemoryTaskStore(page_size=2), notify=False)
    async with serving(TaskServer(support)) as peer:
        await _open(peer)
        ids = [(await _call_as_task(peer, i, "echo"))["taskId"] for i in range(3)]
        first = await peer.call(10, "tasks/list")
        assert [x["taskId"] for x in first["result"]["tasks"]] == ids[:2]
        cursor = first["result"]["nextCursor"]
        second = await peer.call(11, "tasks/list", {"cursor": cursor})
        assert [x["taskId"] for x in second["result"]["tasks"]] == ids[2:]
        assert "nextCursor" not in second["result"]
        bad = await peer.call(12, "tasks/list", {"cursor": "garbage!"})
        assert bad["error"]["code"] == -32602


async def test_ttl_is_capped_and_an_expired_task_is_gone() -> None:
    now = [1_000_000.0]
    store = InMemoryTaskStore(max_ttl=5000, clock=lambda: now[0])
    async with serving(TaskServer(TaskSupport(store=store, notify=False))) as peer:
        await _open(peer)
        reply = await peer.call(1, "tools/call", {"name": "echo", "task": {"ttl": 999_999}})
        task = _task_frame(reply, 1, ttl=5000)
        now[0] += 6
        gone = await peer.call(2, "tasks/get", {"taskId": task["taskId"]})
        assert gone["error"] == {
            "code": -32602,
            "message": "Failed to retrieve task: Task not found",
        }
        assert len(store) == 0


async def test_a_full_store_refuses_new_tasks_while_all_run() -> None:
    server = TaskServer(TaskSupport(store=InMemoryTaskStore(max_tasks=1), notify=False))
    async with serving(server) as peer:
        await _open(peer)
        await _call_as_task(peer, 1, "slow")
        reply = await peer.call(2, "tools/call", {"name": "slow", "task": {}})
        assert reply["error"] == {"code": -32603, "message": "Too many tasks: 1 are still running"}
        server.gate.set()


async def test_tool_level_negotiation_refuses_with_method_not_found() -> None:
    support = TaskSupport(tools={"slow": "required", "echo": "forbidden"}, notify=False)
    async with serving(TaskServer(support)) as peer:
        await _open(peer)
        as_task = await peer.call(1, "tools/call", {"name": "echo", "task": {}})
        assert as_task["error"]["code"] == -32601
        plain = await peer.call(2, "tools/call", {"name": "slow"})
        assert plain["error"] == {"code": -32601, "message": "Tool 'slow' must be called as a task"}


async def test_without_task_support_the_task_field_is_ignored() -> None:
    server = TaskServer()
    server.task_support = None
    async with serving(server) as peer:
        init = await _open(peer)
        assert "tasks" not in init["capabilities"]
        reply = await peer.call(1, "tools/call", {"name": "echo", "task": {"ttl": 10}})
        assert reply == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"content": [{"type": "text", "text": "echo"}]},
        }
        missing = await peer.call(2, "tasks/get", {"taskId": "x"})
        assert missing["error"]["code"] == -32601


async def test_tasks_are_bound_to_their_connection() -> None:
    server = TaskServer(TaskSupport(notify=False))
    async with serving(server) as one, serving(server) as two:
        await _open(one)
        await _open(two)
        task = await _call_as_task(one, 1, "echo")
        other = await two.call(1, "tasks/get", {"taskId": task["taskId"]})
        assert other["error"]["code"] == -32602
        listed = await two.call(2, "tasks/list")
        assert listed["result"] == {"tasks": []}


class StatusClient(Client):
    """Records ``notifications/tasks/status``."""

    def __init__(self) -> None:
        super().__init__(timeout=STEP_S)
        self.statuses: list[Any] = []

    async def on_notification(self, method: str, params: Any) -> None:
        """Keep task status notifications."""
        if method == "notifications/tasks/status":
            self.statuses.append(params)


async def test_typed_client_sends_a_task_polls_and_fetches_the_typed_result() -> None:
    server = TaskServer()
    client = StatusClient()
    client_end, server_end = memory_pair()
    on_client = Recorder(client_end)
    serve = asyncio.create_task(server.serve(server_end))
    try:
        await client.connect(on_client)
        created = await client.call_tool_as_task(name="slow", task=t.TaskMetadata(ttl=30_000))
        assert isinstance(created, t.CreateTaskResult)
        assert created.task.status == "working" and created.task.ttl == 30_000
        sent = on_client.sent[-1]
        assert sent["method"] == "tools/call"
        assert sent["params"] == {"name": "slow", "task": {"ttl": 30000}}
        server.gate.set()
        states = [
            s.status
            async for s in poll_task(
                lambda i: client.get_task(task_id=i), created.task.task_id, default_interval=0.01
            )
        ]
        assert states[-1] == "completed"
        result = await client.call_tool_task_result(task_id=created.task.task_id)
        assert isinstance(result, t.CallToolResult)
        assert result.content == [t.TextContent(text="slow")]
        assert result.meta == {RELATED: {"taskId": created.task.task_id}}
        assert on_client.sent[-1] == {
            "jsonrpc": "2.0",
            "id": on_client.sent[-1]["id"],
            "method": "tasks/result",
            "params": {"taskId": created.task.task_id},
        }
        [status] = client.statuses
        assert isinstance(status, t.TaskStatusNotificationParams)
        assert status.status == "completed" and status.task_id == created.task.task_id
        page = await client.list_tasks()
        assert [x.task_id for x in page.tasks] == [created.task.task_id]
    finally:
        await client.close()
        await asyncio.wait_for(serve, STEP_S)


async def test_client_refuses_a_task_the_server_did_not_declare() -> None:
    server = TaskServer()
    server.task_support = None
    client = Client(timeout=STEP_S)
    client_end, server_end = memory_pair()
    serve = asyncio.create_task(server.serve(server_end))
    try:
        await client.connect(client_end)
        with pytest.raises(CapabilityError, match=r"tasks\.requests\.tools\.call"):
            await client.call_tool_as_task(name="slow", task=t.TaskMetadata())
        plain = await client.call_tool(name="echo")
        assert plain.content == [t.TextContent(text="echo")]
    finally:
        await client.close()
        await asyncio.wait_for(serve, STEP_S)


async def test_a_request_from_a_task_names_the_task_and_holds_it_in_input_required() -> None:
    support = TaskSupport(notify=True)
    async with serving(TaskServer(support)) as peer:
        await peer.initialize("2025-11-25", {"elicitation": {"form": {}}})
        task = await _call_as_task(peer, 1, "ask")
        note = await peer.recv()
        assert note["method"] == "notifications/tasks/status"
        assert note["params"]["status"] == "input_required"
        ask = await peer.recv()
        assert ask == {
            "jsonrpc": "2.0",
            "id": ask["id"],
            "method": "elicitation/create",
            "params": {
                "_meta": {RELATED: {"taskId": task["taskId"]}},
                "message": "name?",
                "requestedSchema": {"type": "object", "properties": {}},
            },
        }
        got = await peer.call(2, "tasks/get", {"taskId": task["taskId"]})
        assert got["result"]["status"] == "input_required"
        await peer.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}})
        statuses = [(await peer.recv())["params"]["status"] for _ in range(2)]
        assert statuses == ["working", "completed"]
        reply = await peer.call(3, "tasks/result", {"taskId": task["taskId"]})
        assert reply["result"]["content"] == [{"type": "text", "text": "decline"}]


class TaskSamplingClient(Client):
    """Answers sampling, as a task when the server asks."""

    task_support = TaskSupport(methods=["sampling/createMessage"])

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: Any
    ) -> t.CreateMessageResult:
        """A fixed completion."""
        return t.CreateMessageResult(role="assistant", content=t.TextContent(text="ok"), model="m1")


async def test_a_client_runs_sampling_as_a_task_for_the_server() -> None:
    server = TaskServer()
    client = TaskSamplingClient(timeout=STEP_S)
    client_end, server_end = memory_pair()
    on_client = Recorder(client_end)
    serve = asyncio.create_task(server.serve(server_end))
    try:
        await client.connect(on_client)
        init = on_client.sent[0]
        assert init["params"]["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"sampling": {"createMessage": {}}},
        }
        result = await client.call_tool(name="sample")
        assert result.content == [t.TextContent(text="m1")]
        [ask] = [f for f in on_client.received if f.get("method") == "sampling/createMessage"]
        assert ask["params"]["task"] == {"ttl": 5000}
        [created] = [f for f in on_client.sent if f.get("id") == ask["id"] and "result" in f]
        task_id = created["result"]["task"]["taskId"]
        assert created["result"]["task"]["status"] == "working"
        [fetch] = [f for f in on_client.received if f.get("method") == "tasks/result"]
        assert fetch["params"] == {"taskId": task_id}
        [answer] = [f for f in on_client.sent if f.get("id") == fetch["id"] and "result" in f]
        assert answer["result"] == {
            "role": "assistant",
            "content": {"type": "text", "text": "ok"},
            "model": "m1",
            "_meta": {RELATED: {"taskId": task_id}},
        }
        [note] = [f for f in on_client.sent if f.get("method") == "notifications/tasks/status"]
        assert note["params"]["status"] == "completed" and note["params"]["taskId"] == task_id
    finally:
        await client.close()
        await asyncio.wait_for(serve, STEP_S)


async def test_progress_of_a_task_uses_the_requests_token_and_names_the_task() -> None:
    async with serving(TaskServer(TaskSupport(notify=False))) as peer:
        await _open(peer)
        params = {"name": "steps", "task": {"ttl": 60000}, "_meta": {"progressToken": "p1"}}
        task = _task_frame(await peer.call(1, "tools/call", params), 1)
        frames = [await peer.recv(), await peer.recv()]
        assert frames == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {
                    "progressToken": "p1",
                    "progress": step,
                    "total": 2,
                    "message": f"step {step}",
                    "_meta": {RELATED: {"taskId": task["taskId"]}},
                },
            }
            for step in (1, 2)
        ]


async def test_closing_the_connection_stops_the_tasks_handlers() -> None:
    store = InMemoryTaskStore(max_tasks=1)
    server = TaskServer(TaskSupport(store=store, notify=False))
    async with serving(server) as peer:
        await _open(peer)
        task = await _call_as_task(peer, 1, "slow")
        await asyncio.wait_for(server.started.wait(), STEP_S)
    await asyncio.wait_for(server.cancelled.wait(), STEP_S)
    record = _only(store)
    assert record.task_id == task["taskId"] and record.status == "cancelled"
    async with serving(server) as peer:  # the cancelled task no longer holds the only place
        await _open(peer)
        await _call_as_task(peer, 1, "echo")


def _only(store: InMemoryTaskStore) -> Any:
    """The one record of a store holding one task."""
    assert len(store) == 1
    return next(iter(store._tasks.values()))  # pyright: ignore[reportPrivateUsage]


async def test_one_requestor_cannot_fill_the_store() -> None:
    store = InMemoryTaskStore(max_running_per_owner=1)
    server = TaskServer(TaskSupport(store=store, notify=False))
    async with serving(server) as one, serving(server) as two:
        await _open(one)
        await _open(two)
        await _call_as_task(one, 1, "slow")
        refused = await one.call(2, "tools/call", {"name": "slow", "task": {}})
        assert refused["error"] == {
            "code": -32603,
            "message": "Too many tasks: 1 of this requestor are running",
        }
        await _call_as_task(two, 1, "slow")
        server.gate.set()


async def test_an_immediate_response_for_the_model_rides_in_the_create_task_meta() -> None:
    support = TaskSupport(notify=False, immediate_response="Working on it.")
    async with serving(TaskServer(support)) as peer:
        await _open(peer)
        reply = await peer.call(1, "tools/call", {"name": "echo", "task": {}})
        assert reply["result"]["_meta"] == {
            "io.modelcontextprotocol/model-immediate-response": "Working on it."
        }
        assert reply["result"]["task"]["status"] == "working"
