"""A tiny MCP 2025-06-18 server over stdio, started as a subprocess by the runtime tests."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated.v2025_06_18 import Server, ServerContext
from generated.v2025_06_18 import types as t


class StdioEcho(Server):
    """Tools: ``echo`` (arguments as JSON text), ``sleep``, ``shout``, ``freeze``, ``exit``."""

    name = "stdio-echo"

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run the named tool."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name == "sleep":
            await asyncio.sleep(args["s"])
        elif params.name == "exit":
            os._exit(args["code"])
        elif params.name == "shout":
            print("noise from a handler", flush=True)  # must reach stderr, not the protocol
        elif params.name == "freeze":
            await ctx.progress(0)  # tells the client the freeze begins
            time.sleep(args["s"])  # blocks the loop: the server cannot notice stdin closing
        return t.CallToolResult(content=[t.TextContent(text=json.dumps(args))])


if __name__ == "__main__":
    StdioEcho().run_stdio()
