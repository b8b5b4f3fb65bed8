"""A 2025-11-25 server on our generated API whose ``delay`` tool may run as a task (stdio).

The peer of ``tests/node/ts_task_client.mjs`` (the official TypeScript SDK's task client).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated._runtime.roles.tasks import TaskSupport
from generated.v2025_11_25 import Server, ServerContext
from generated.v2025_11_25 import types as t


class DelayServer(Server):
    """``delay`` sleeps ``ms`` milliseconds and says so; it may run as a task."""

    name = "ours-task-server"
    task_support = TaskSupport(tools={"delay": "optional"})

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """The one tool, with ``execution.taskSupport``."""
        tool = t.Tool(
            name="delay",
            input_schema=t.ToolInputSchema(properties={"ms": {"type": "number"}}),
            execution=t.ToolExecution(task_support="optional"),
        )
        return t.ListToolsResult(tools=[tool])

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Sleep, then answer."""
        ms = (params.arguments or {}).get("ms", 0) if isinstance(params.arguments, dict) else 0
        await asyncio.sleep(ms / 1000)
        return t.CallToolResult(content=[t.TextContent(text=f"slept {ms}")])


if __name__ == "__main__":
    DelayServer().run_stdio()
