"""Benchmark server over stdio: one ``echo`` tool, written with a revision's generated API.

``python bench/peers/echo_server.py REVISION [--every]``: the server of ``REVISION``
(default 2025-06-18); ``--every`` serves it to every revision through the converters.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def echo_server(revision: str) -> Any:
    """A ``Server`` of ``revision`` that lists one tool and echoes its ``text`` argument."""
    api = importlib.import_module(f"generated.v{revision.replace('-', '_')}")
    t = api.types
    echo = t.Tool(name="echo", input_schema={"type": "object"})

    class EchoServer(api.Server):  # type: ignore[misc,name-defined]
        """Answers tools/list and tools/call."""

        name = f"bench-{revision}"

        async def list_tools(self, params: Any, ctx: Any) -> Any:
            """List the one tool."""
            return t.ListToolsResult(tools=[echo])

        async def call_tool(self, params: Any, ctx: Any) -> Any:
            """Echo the ``text`` argument."""
            text = str((params.arguments or {}).get("text", ""))
            return t.CallToolResult(content=[t.TextContent(text=text)])

    return EchoServer()


if __name__ == "__main__":
    args = sys.argv[1:]
    server = echo_server(next((a for a in args if not a.startswith("-")), "2025-06-18"))
    if "--every" in args:
        from generated.converters import every_revision

        server, *adapters = every_revision(server)
        server.run_stdio(*adapters)
    else:
        server.run_stdio()
