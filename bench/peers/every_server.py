"""Benchmark server written once against 2025-11-25 and served to every revision (the bridge)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated.converters import every_revision
from generated.v2025_11_25 import Server, ServerContext
from generated.v2025_11_25 import types as t

ECHO = t.Tool(name="echo", input_schema={"type": "object"})


class EchoServer(Server):
    """Answers tools/list and tools/call (echo the ``text`` argument)."""

    name = "bench-every"

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
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
    server, *adapters = every_revision(EchoServer())
    server.run_stdio(*adapters)
