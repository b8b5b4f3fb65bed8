"""An MCP server process for the hardening tests and runs: ``python harden_server.py PORT [opts]``.

Serves 2025-06-18 and 2025-11-25 over Streamable HTTP on 127.0.0.1:PORT (``stdio`` instead of
a port: over stdio). Tools: ``blast`` sends ``n`` progress notifications whose message has
``size`` characters, then answers; ``big`` answers with ``size`` characters of text; ``echo``
answers its arguments as JSON text. Options: ``stream_bytes=N``, ``stall=S``, ``sessions=N``,
``store_bytes=N`` (per session), ``retry_ms=N`` are passed to ``HttpOptions``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated import v2025_06_18 as v0618
from generated import v2025_11_25 as v1125
from generated._runtime.transports.http.server import HttpOptions, run_http
from generated._runtime.transports.http.session import MemoryEventStore


async def run_tool(name: str, args: dict[str, Any], ctx: Any) -> str:
    """The text a tool answers (after its progress notifications)."""
    if name == "blast":
        filler = "x" * int(args.get("size", 10))
        n = int(args.get("n", 1))
        for step in range(1, n + 1):
            await ctx.progress(step, n, filler)
        return f"blasted {n}"
    if name == "big":
        return "y" * int(args["size"])
    return json.dumps(args)


def tool_list(types: Any) -> Any:
    """The tools, listed (the official SDK client lists them before calling one)."""
    plain: dict[str, Any] = {"type": "object"}
    tools = [types.Tool(name=name, input_schema=plain) for name in ("blast", "big", "echo")]
    return types.ListToolsResult(tools=tools)


class Server0618(v0618.Server):
    """The tools, for 2025-06-18 clients."""

    name = "harden"

    async def list_tools(
        self, params: v0618.types.ListToolsRequestParams | None, ctx: v0618.ServerContext
    ) -> v0618.types.ListToolsResult:
        """List the tools."""
        result: v0618.types.ListToolsResult = tool_list(v0618.types)
        return result

    async def call_tool(
        self, params: v0618.types.CallToolRequestParams, ctx: v0618.ServerContext
    ) -> v0618.types.CallToolResult:
        """Run a tool."""
        args = params.arguments if isinstance(params.arguments, dict) else {}
        text = await run_tool(params.name, args, ctx)
        return v0618.types.CallToolResult(content=[v0618.types.TextContent(text=text)])


class Server1125(v1125.Server):
    """The tools, for 2025-11-25 clients."""

    name = "harden"

    async def list_tools(
        self, params: v1125.types.ListToolsRequestParams | None, ctx: v1125.ServerContext
    ) -> v1125.types.ListToolsResult:
        """List the tools."""
        result: v1125.types.ListToolsResult = tool_list(v1125.types)
        return result

    async def call_tool(
        self, params: v1125.types.CallToolRequestParams, ctx: v1125.ServerContext
    ) -> v1125.types.CallToolResult:
        """Run a tool."""
        args = params.arguments if isinstance(params.arguments, dict) else {}
        text = await run_tool(params.name, args, ctx)
        return v1125.types.CallToolResult(content=[v1125.types.TextContent(text=text)])


def options(argv: list[str]) -> HttpOptions:
    """HttpOptions from ``key=value`` arguments."""
    given = dict(arg.split("=", 1) for arg in argv)
    opts = HttpOptions()
    if "stream_bytes" in given:
        opts.max_stream_bytes = int(given["stream_bytes"])
    if "stall" in given:
        opts.stream_stall_timeout = float(given["stall"])
    if "sessions" in given:
        opts.max_sessions = int(given["sessions"])
    if "retry_ms" in given:
        opts.sse_retry_ms = int(given["retry_ms"])
    if "store_bytes" in given:
        opts.event_store = MemoryEventStore(max_session_bytes=int(given["store_bytes"]))
    return opts


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        Server0618().run_stdio()
    else:
        run_http([Server0618(), Server1125()], "127.0.0.1", int(sys.argv[1]), options(sys.argv[2:]))
