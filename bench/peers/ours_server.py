"""Benchmark server written with the generated API: one ``echo`` tool, over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated.v2025_06_18 import Server, ServerContext
from generated.v2025_06_18 import types as t

ECHO = t.Tool(name="echo", input_schema={"type": "object"})


class EchoServer(Server):
    """Answers tools/list and tools/call (echo the ``text`` argument)."""

    name = "bench-ours"

    async def list_tools(
        self, params: t.ListToolsRequestParams, ctx: ServerContext
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
