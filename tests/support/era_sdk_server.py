"""A 2026-07-28 server written with the official SDK's low-level ``Server``, over stdio or HTTP.

Tools: ``echo`` and ``greet``, which asks for the user's name by MRTR (an
``InputRequiredResult`` carrying an ``elicitation/create``) and greets with the answer. Run:
``python tests/support/era_sdk_server.py`` (stdio) or
``python tests/support/era_sdk_server.py PORT`` (HTTP).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
Ctx = ServerRequestContext[Any, Any]
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def list_tools(
    ctx: Ctx, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    """``echo`` and ``greet``."""
    text = {"type": "object", "properties": {"text": {"type": "string"}}}
    return types.ListToolsResult(
        tools=[
            types.Tool(name="echo", input_schema=text),
            types.Tool(name="greet", input_schema={"type": "object"}),
        ]
    )


async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> Any:
    """Echo, or greet after an MRTR elicitation round."""
    args = params.arguments or {}
    if params.name == "echo":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"echo: {args.get('text')}")]
        )
    answer = (params.input_responses or {}).get("who")
    if answer is None:
        request = {
            "method": "elicitation/create",
            "params": {"message": "Who are you?", "requestedSchema": NAME},
        }
        return types.InputRequiredResult(
            input_requests={"who": request}, request_state="sdk-state-1"
        )
    content = (
        answer.get("content") if isinstance(answer, dict) else getattr(answer, "content", None)
    )
    name = (content or {}).get("name")
    state = params.request_state
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"hello {name} ({state})")]
    )


def build() -> Server[Any]:
    """The SDK server."""
    return Server("sdk-era", version="2.3.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    """Serve over stdio, or Streamable HTTP on the given port."""
    server = build()
    if len(sys.argv) > 1:
        import uvicorn

        app = server.streamable_http_app()
        config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
        await uvicorn.Server(config).serve()
        return
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
