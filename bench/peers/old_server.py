"""Benchmark server written for 2024-11-05 only: the same echo, no conversion for its clients."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated.v2024_11_05 import Server, ServerContext
from generated.v2024_11_05 import types as t

ECHO = t.Tool(name="echo", input_schema={"type": "object"})


class EchoServer(Server):
    """Answers tools/list and tools/call (echo the ``text`` argument)."""

    name = "bench-old"

    async def list_tools(
        self, params: t.ListToolsRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """List the one tool."""
        return t.ListToolsResult(tools=[ECHO])

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Echo the ``text`` argument."""
        text = str((params.arguments or {}).get("text", ""))
        return t.CallToolResult(content=[t.TextContent(text=text)])


if __name__ == "__main__":
    EchoServer().run_stdio()
