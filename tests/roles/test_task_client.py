"""The requestor's side of the 2026-07-28 tasks extension, against our own server.

A client that opts in (``tasks_extension``) declares the extension in every request and its
typed ``call_tool`` follows a task to the tool's result (input through ``tasks/update``);
``call_tool_task``/``get_task``/``update_task``/``cancel_task`` and a listen stream with
``taskIds`` give the task itself. Checked on the wire, over memory and over HTTP.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated import runtime
from generated.runtime import MCPError, connect_http, listen
from generated.v2026_07_28 import Client
from generated.v2026_07_28 import types as t
from tests.roles.test_stateless_tasks import JobServer
from tests.support.era_support import Recorder, served
from tests.support.http_support import bounded, serve

CAPS = "io.modelcontextprotocol/clientCapabilities"
EXTENSION = "io.modelcontextprotocol/tasks"


class Asker(Client):
    """Answers a name elicitation as Ada."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, as Ada."""
        return t.ElicitResult(action="accept", content={"name": "Ada"})


class Follower(Asker):
    """Declares the tasks extension in every request."""

    tasks_extension = True


def declared(frame: dict[str, Any]) -> bool:
    """Whether a request frame declares the extension in its client capabilities."""
    caps = frame["params"]["_meta"][CAPS]
    return EXTENSION in caps.get("extensions", {})


def requests_of(recorder: Recorder) -> list[dict[str, Any]]:
    """The request frames the client sent."""
    return [f for f in recorder.sent if "method" in f and "id" in f]


def results_of(recorder: Recorder) -> list[dict[str, Any]]:
    """The results the client read."""
    return [f["result"] for f in recorder.received if "result" in f]


@bounded
async def test_an_opted_in_call_tool_follows_the_task_and_answers_its_input() -> None:
    """The typed call_tool gets a CreateTaskResult, polls tasks/get, answers inputRequests
    with the client's handler through tasks/update, and returns the typed result."""
    server = JobServer()
    async with served(server) as wire, Follower() as client:
        await client.connect(wire)
        result = await client.call_tool(name="ask2")
        assert result == t.CallToolResult(content=[t.TextContent(text="Ada+Ada")])
        sent = requests_of(wire)
        methods = [f["method"] for f in sent]
        assert methods[:2] == ["server/discover", "tools/call"]
        assert "tasks/update" in methods and methods[-1] == "tasks/get"
        assert all(declared(f) for f in sent)
        updates = [f["params"]["inputResponses"] for f in sent if f["method"] == "tasks/update"]
        answers = {key: answer for update in updates for key, answer in update.items()}
        assert answers == {key: {"action": "accept", "content": {"name": "Ada"}} for key in "ab"}
        assert any(r.get("resultType") == "task" for r in results_of(wire))


@bounded
async def test_a_failed_task_raises_its_error_and_a_plain_tool_stays_plain() -> None:
    """A failed task's JSON-RPC error is raised; a tool the server runs synchronously answers
    at once; without the opt-in a required tool is refused with -32021."""
    async with served(JobServer()) as wire, Follower() as client:
        await client.connect(wire)
        with pytest.raises(MCPError) as failed:
            await client.call_tool(name="crash")
        assert (failed.value.code, failed.value.message) == (-32603, "it broke")
        plain = await client.call_tool(name="other")
        assert plain.content == [t.TextContent(text="plain")]
    async with served(JobServer()) as wire, Asker() as client:
        await client.connect(wire)
        with pytest.raises(MCPError) as refused:
            await client.call_tool(name="must")
        assert refused.value.code == -32021
        assert not any(declared(f) for f in requests_of(wire))


@bounded
async def test_cancelling_a_followed_call_cancels_the_task() -> None:
    """A caller that gives up on call_tool sends tasks/cancel: the handler is stopped."""
    server = JobServer()
    async with served(server) as wire, Follower() as client:
        await client.connect(wire)
        call = asyncio.ensure_future(client.call_tool(name="job"))
        while not any(r.get("resultType") == "task" for r in results_of(wire)):
            await asyncio.sleep(0.01)
        call.cancel()
        while not server.stopped:
            await asyncio.sleep(0.01)
        assert "tasks/cancel" in [f["method"] for f in requests_of(wire)]


@bounded
async def test_the_task_calls_and_a_listen_stream_with_task_ids() -> None:
    """Without the opt-in: call_tool_task declares the extension for its call and returns the
    CreatedTask; get/update/cancel and notifications/tasks on a listen stream follow it."""
    server = JobServer()
    async with served(server) as wire, Asker() as client:
        await client.connect(wire)
        created = await runtime.call_tool_task(client, "job", {})
        assert isinstance(created, runtime.CreatedTask) and created.status == "working"
        state = await runtime.get_task(client, created.task_id)
        assert isinstance(state, runtime.TaskState) and state.status == "working"
        async with listen(client, taskIds=[created.task_id]) as stream:
            assert stream.honored == {"taskIds": [created.task_id]}
            server.release.set()
            method, params = await anext(aiter(stream))
        assert method == "notifications/tasks"
        done = runtime.task_state(params)
        assert done.status == "completed" and done.terminal
        assert isinstance(done.result, dict)
        assert done.result["content"] == [{"type": "text", "text": "done"}]
        await runtime.cancel_task(client, created.task_id)  # an ended task: acknowledged again
        await runtime.update_task(client, created.task_id, {"nobody": {}})  # unknown keys: ignored
        with pytest.raises(MCPError) as unknown:
            await runtime.get_task(client, "no-such-task")
        assert unknown.value.code == -32602
        plain = await runtime.call_tool_task(client, "other")
        assert isinstance(plain, t.CallToolResult)
        assert plain.content == [t.TextContent(text="plain")]
        sent = requests_of(wire)
        own = [f for f in sent if f["method"] != "server/discover"]
        assert all(declared(f) for f in own)


@bounded
async def test_over_http_the_task_requests_carry_mcp_name() -> None:
    """Over Streamable HTTP the server checks Mcp-Name against taskId (-32020 otherwise):
    the followed call, get and cancel pass that check."""
    server = JobServer()
    async with serve(server) as (_, base), Follower() as client:
        await connect_http(client, f"{base}/mcp")
        asked = await client.call_tool(name="ask2")
        assert asked.content == [t.TextContent(text="Ada+Ada")]
        created = await runtime.call_tool_task(client, "job")
        assert isinstance(created, runtime.CreatedTask)
        assert (await runtime.get_task(client, created.task_id)).status == "working"
        await runtime.cancel_task(client, created.task_id)
        while not server.stopped:
            await asyncio.sleep(0.01)
        assert (await runtime.get_task(client, created.task_id)).status == "cancelled"
