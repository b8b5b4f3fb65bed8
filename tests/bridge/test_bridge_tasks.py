"""Task-augmented requests through the bridge (2025-11-25 tasks), in one process over memory.

Both sides 2025-11-25 with tasks: a ``tools/call`` with ``task`` goes upstream as a task, the
client gets the ``CreateTaskResult`` and, from ``tasks/get`` and ``tasks/result`` forwarded,
the task's state and the tool's result. One side without tasks: the request is refused with
an error naming the method and the missing support, and nothing is sent upstream as a plain
call (the task is never dropped).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated._runtime.core.errors import MCPError
from generated._runtime.roles.tasks import InMemoryTaskStore, TaskSupport
from generated.v2025_06_18 import Server as Server0618
from generated.v2025_06_18 import ServerContext as Context0618
from generated.v2025_06_18 import types as t18
from generated.v2025_11_25 import Client, Server, ServerContext
from generated.v2025_11_25 import types as t
from tests.bridge.test_bridge_roles import bridged

BOUND_S = 10.0
TASK = t.TaskMetadata(ttl=60_000)


class Tasks(Server):
    """A 2025-11-25 server that runs ``work`` as a task when asked."""

    name = "tasks"

    def __init__(self) -> None:
        super().__init__()
        self.task_support = TaskSupport(store=InMemoryTaskStore(), tools={"work": "optional"})

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """The one tool."""
        return t.ListToolsResult(tools=[t.Tool(name="work", input_schema={"type": "object"})])

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Answer after a moment."""
        await asyncio.sleep(0.05)
        return t.CallToolResult(content=[t.TextContent(text="worked")])


class Plain(Server0618):
    """A 2025-06-18 server: no tasks in its revision."""

    name = "plain"

    async def list_tools(self, params: Any, ctx: Context0618) -> t18.ListToolsResult:
        """The one tool."""
        return t18.ListToolsResult(tools=[t18.Tool(name="work", input_schema={"type": "object"})])

    async def call_tool(
        self, params: t18.CallToolRequestParams, ctx: Context0618
    ) -> t18.CallToolResult:
        """Answer at once."""
        return t18.CallToolResult(content=[t18.TextContent(text="worked")])


async def test_a_task_augmented_call_is_forwarded_as_a_task() -> None:
    """The CreateTaskResult comes back; tasks/get and tasks/result reach the upstream's task."""
    client = Client()
    async with bridged(Tasks(), client) as wire:
        tasks = client.their_capabilities["tasks"]
        assert "call" in tasks["requests"]["tools"], tasks  # declared as the upstream does
        created = await asyncio.wait_for(client.call_tool_as_task(name="work", task=TASK), BOUND_S)
        task_id = created.task.task_id
        result = await asyncio.wait_for(client.call_tool_task_result(task_id=task_id), BOUND_S)
        state = await asyncio.wait_for(client.get_task(task_id=task_id), BOUND_S)
    assert result.content == [t.TextContent(text="worked")]
    assert state.status == "completed"
    [call] = [m for m in wire.sent if m.get("method") == "tools/call"]
    assert call["params"]["task"] == {"ttl": 60_000}, call
    sent = [m.get("method") for m in wire.sent]
    assert "tasks/result" in sent and "tasks/get" in sent, sent


async def test_a_task_for_an_upstream_without_tasks_is_refused_by_name() -> None:
    """A 2025-06-18 upstream: the task-augmented call gets -32601 naming tasks; none sent up."""
    client = Client()
    async with bridged(Plain(), client) as wire:
        assert "tasks" not in client.their_capabilities
        with pytest.raises(MCPError) as refused:
            await asyncio.wait_for(client.call_tool(name="work", task=TASK), BOUND_S)
        plain = await asyncio.wait_for(client.call_tool(name="work"), BOUND_S)
    assert refused.value.code == -32601
    assert "tools/call as a task" in refused.value.message, refused.value
    assert plain.content == [t.TextContent(text="worked")]
    calls = [m for m in wire.sent if m.get("method") == "tools/call"]
    assert len(calls) == 1 and "task" not in calls[0]["params"], calls


async def test_a_task_for_a_same_revision_upstream_without_tasks_is_refused() -> None:
    """A 2025-11-25 upstream that runs no tasks: refused naming the upstream, none sent up."""
    upstream = Tasks()
    upstream.task_support = None
    client = Client()
    async with bridged(upstream, client) as wire:
        with pytest.raises(MCPError) as refused:
            await asyncio.wait_for(client.call_tool(name="work", task=TASK), BOUND_S)
    assert refused.value.code == -32601
    assert "upstream server (2025-11-25)" in refused.value.message, refused.value
    assert not [m for m in wire.sent if m.get("method") == "tools/call"], wire.sent
