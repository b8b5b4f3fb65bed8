"""A dual-era demo server: 2026-07-28 statelessly, 2025-11-25 after ``initialize``, one process.

The tool ``sign_guestbook`` asks the user's name with the same handler code in both eras:
``ask(ctx, "elicitation/create", ...)`` is an MRTR round (``InputRequiredResult`` with sealed
``requestState``) for a 2026-07-28 client and a server->client request for a 2025-11-25 one.
``add_tool`` adds a tool and tells every ``subscriptions/listen`` stream that opted in.
Run ``python examples/demo_era_server.py`` (stdio) or ``... --http PORT``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated.runtime import ask, run_http
from generated.v2025_11_25 import Server as HandshakeEraServer
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import Server
from generated.v2026_07_28 import types as t

GUESTBOOK: list[str] = []
EXTRA_TOOLS: list[str] = []


async def sign_guestbook(ctx: Any, elicit_params: Any) -> str:
    """The era-independent handler: ask the name, sign, say how many signed."""
    answer = await ask(ctx, "elicitation/create", elicit_params, key="name")
    name = (
        (answer.content or {}).get("name", "anonymous")
        if answer.action == "accept"
        else "anonymous"
    )
    GUESTBOOK.append(name)
    return f"thank you {name}, you are visitor #{len(GUESTBOOK)}"


def tool_names() -> list[str]:
    """The tools of both eras."""
    return ["sign_guestbook", "add_tool", *EXTRA_TOOLS]


class DemoServer(Server):
    """The 2026-07-28 face."""

    name = "mcpgen-era-demo"
    version = "1.0.0"
    list_changed = frozenset({"tools"})

    async def list_tools(self, params: Any, ctx: Any) -> t.ListToolsResult:
        """The guestbook tools, cacheable for 5 s by anyone."""
        tools = [
            t.Tool(name=n, description=f"demo tool {n}", input_schema={"type": "object"})
            for n in tool_names()
        ]
        return t.ListToolsResult(tools=tools, ttl_ms=5_000, cache_scope="public")

    async def call_tool(self, params: t.CallToolRequestParams, ctx: Any) -> t.CallToolResult:
        """Sign the guestbook (asks the name) or add a tool (tells the listeners)."""
        if params.name == "sign_guestbook":
            form = t.ElicitRequestFormParams(
                message="Your name for the guestbook?",
                requested_schema=t.ElicitRequestFormParamsRequestedSchema(
                    properties={"name": t.StringSchema()}, required=["name"]
                ),
            )
            return t.CallToolResult(content=[t.TextContent(text=await sign_guestbook(ctx, form))])
        if params.name == "add_tool":
            EXTRA_TOOLS.append(f"extra_{len(EXTRA_TOOLS) + 1}")
            await ctx.notify_tool_list_changed()
            return t.CallToolResult(content=[t.TextContent(text=f"added {EXTRA_TOOLS[-1]}")])
        return t.CallToolResult(
            content=[t.TextContent(text=f"no tool {params.name}")], is_error=True
        )


class DemoHandshakeServer(HandshakeEraServer):
    """The 2025-11-25 face of the same demo."""

    name = "mcpgen-era-demo"
    version = "1.0.0"

    async def list_tools(self, params: Any, ctx: Any) -> t25.ListToolsResult:
        """The same tools."""
        return t25.ListToolsResult(
            tools=[t25.Tool(name=n, input_schema={"type": "object"}) for n in tool_names()]
        )

    async def call_tool(self, params: t25.CallToolRequestParams, ctx: Any) -> t25.CallToolResult:
        """Sign the guestbook with the same handler code."""
        if params.name == "sign_guestbook":
            form = t25.ElicitRequestFormParams(
                message="Your name for the guestbook?",
                requested_schema=t25.ElicitRequestFormParamsRequestedSchema(
                    properties={"name": t25.StringSchema()}, required=["name"]
                ),
            )
            return t25.CallToolResult(
                content=[t25.TextContent(text=await sign_guestbook(ctx, form))]
            )
        return t25.CallToolResult(
            content=[t25.TextContent(text=f"no tool {params.name}")], is_error=True
        )


def main() -> None:
    """Serve over stdio, or over HTTP with ``--http PORT``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, default=None, metavar="PORT")
    args = parser.parse_args()
    if args.http is not None:
        run_http([DemoServer(), DemoHandshakeServer()], port=args.http)
    else:
        DemoServer().run_stdio(DemoHandshakeServer())


if __name__ == "__main__":
    main()
