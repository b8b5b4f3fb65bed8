"""Benchmark server written with the official SDK's low-level Server: the same ``echo`` tool."""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    """List the one tool."""
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    """Echo the ``text`` argument."""
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def main() -> None:
    """Serve over stdio."""
    server = Server("bench-sdk", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
