"""Our typed 2025-11-25 client against the official TypeScript SDK's task server, over stdio.

The official Python SDK (``mcp`` 2.3) has no tasks, so the peer that does is the TypeScript
SDK (installed by ``make node-tools``): ``tests/node/ts_task_server.mjs`` runs its
experimental tasks with a ``delay`` tool. Frames on the wire are checked exactly where the
spec fixes them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from generated._runtime.core.errors import MCPError
from generated._runtime.roles.tasks import poll_task
from generated._runtime.transports.stdio import spawn_server
from generated.v2025_11_25 import Client
from generated.v2025_11_25 import types as t
from tests.interop._support import ROOT
from tests.support.node_tools import node_env, node_tool
from tests.support.runtime_support import Recorder

SCRIPT = str(ROOT / "tests" / "node" / "ts_task_server.mjs")
RELATED = "io.modelcontextprotocol/related-task"


@contextlib.asynccontextmanager
async def ts_server() -> AsyncIterator[tuple[Client, Recorder]]:
    """Our client connected to the TypeScript task server, with the client end recorded."""
    transport = await spawn_server(node_tool("node"), [SCRIPT], env=node_env(), cwd=str(ROOT))
    wire = Recorder(transport)
    client = Client(timeout=30)
    try:
        await asyncio.wait_for(client.connect(wire), 30)
        yield client, wire
    finally:
        await asyncio.wait_for(client.close(), 30)


async def test_task_call_poll_and_typed_result_against_the_ts_sdk() -> None:
    async with ts_server() as (client, wire):
        assert client.their_capabilities["tasks"]["requests"] == {"tools": {"call": {}}}
        [tool] = (await client.list_tools()).tools
        assert isinstance(tool.execution, t.ToolExecution)
        assert tool.execution.task_support == "optional"
        created = await client.call_tool_as_task(
            name="delay", arguments={"ms": 100}, task=t.TaskMetadata(ttl=60_000)
        )
        sent = wire.sent[-1]
        assert sent == {
            "jsonrpc": "2.0",
            "id": sent["id"],
            "method": "tools/call",
            "params": {"arguments": {"ms": 100}, "name": "delay", "task": {"ttl": 60000}},
        }
        reply = wire.received[-1]
        assert reply["result"]["task"]["status"] == "working"
        assert isinstance(created, t.CreateTaskResult)
        assert created.task.task_id == reply["result"]["task"]["taskId"]
        states = [
            s.status
            async for s in poll_task(
                lambda i: client.get_task(task_id=i), created.task.task_id, default_interval=0.05
            )
        ]
        assert states[-1] == "completed"
        result = await client.call_tool_task_result(task_id=created.task.task_id)
        assert result.content == [t.TextContent(text="slept 100")]
        assert result.meta == {RELATED: {"taskId": created.task.task_id}}
        listed = await client.list_tasks()
        assert [x.task_id for x in listed.tasks] == [created.task.task_id]


async def test_cancel_and_errors_against_the_ts_sdk() -> None:
    async with ts_server() as (client, _):
        created = await client.call_tool_as_task(
            name="delay", arguments={"ms": 10_000}, task=t.TaskMetadata()
        )
        cancelled = await client.cancel_task(task_id=created.task.task_id)
        assert cancelled.status == "cancelled"
        with pytest.raises(MCPError) as again:
            await client.cancel_task(task_id=created.task.task_id)
        assert again.value.code == -32602
        with pytest.raises(MCPError) as missing:
            await client.get_task(task_id="no-such-task")
        assert missing.value.code == -32602
        plain = await client.call_tool(name="delay", arguments={"ms": 1})
        assert plain.content == [t.TextContent(text="slept 1")]
