"""MCP inside a FastAPI application: the MCP app mounted at ``/mcp`` beside ordinary routes.

The MCP app routes relative to where it is mounted (ASGI ``root_path``), so the MCP endpoint is
``http://HOST:PORT/mcp`` (the mount point itself; ``/mcp/`` too). Run it with
``python examples/fastapi_app.py 8000`` or ``uvicorn examples.fastapi_app:app``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checked-in package

from generated.runtime import McpHttpApp
from generated.v2025_11_25 import Server, ServerContext
from generated.v2025_11_25 import types as t

GREET = t.Tool(
    name="greet",
    description="Greet someone by name.",
    input_schema={"type": "object", "properties": {"name": {"type": "string"}}},
)


class Greeter(Server):
    """An MCP server with one tool."""

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """List the one tool."""
        return t.ListToolsResult(tools=[GREET])

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Greet the given name."""
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        name = arguments.get("name", "world")
        return t.CallToolResult(content=[t.TextContent(text=f"Hello, {name}!")])


app = FastAPI()


@app.get("/health")
async def health() -> dict[str, str]:
    """An ordinary route of the application."""
    return {"status": "ok"}


app.mount("/mcp", McpHttpApp(Greeter()))

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
