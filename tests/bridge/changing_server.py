"""A 2025-06-18-only server over stdio whose tools announce changes: the bridge's listen tests.

Tools: ``change_tools`` sends ``notifications/tools/list_changed``; ``touch`` sends
``notifications/resources/updated`` for ``demo://note`` if the client subscribed to it;
``sleep`` waits ``s`` seconds (a request left in flight). ``subscribed`` says what is
subscribed (what the bridge asked upstream).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated.v2025_06_18 import Server, ServerContext
from generated.v2025_06_18 import types as t

NOTE = "demo://note"
TOOLS = ("change_tools", "touch", "sleep", "subscribed")


class ChangingServer(Server):
    """Tools list changes and one subscribable resource."""

    name = "changing"
    list_changed = frozenset({"tools"})

    def __init__(self) -> None:
        super().__init__()
        self.subscribed: set[str] = set()

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """The tools."""
        tools = [t.Tool(name=name, input_schema={"type": "object"}) for name in TOOLS]
        return t.ListToolsResult(tools=tools)

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Announce a change, or wait."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name == "change_tools":
            await ctx.notify_tool_list_changed()
        elif params.name == "touch" and NOTE in self.subscribed:
            await ctx.notify_resource_updated(uri=NOTE)
        elif params.name == "sleep":
            await asyncio.sleep(float(args.get("s", 60)))
        return t.CallToolResult(content=[t.TextContent(text=",".join(sorted(self.subscribed)))])

    async def list_resources(self, params: Any, ctx: ServerContext) -> t.ListResourcesResult:
        """The one note."""
        return t.ListResourcesResult(resources=[t.Resource(uri=NOTE, name="note")])

    async def read_resource(
        self, params: t.ReadResourceRequestParams, ctx: ServerContext
    ) -> t.ReadResourceResult:
        """The note's text."""
        return t.ReadResourceResult(contents=[t.TextResourceContents(uri=NOTE, text="note")])

    async def subscribe(self, params: t.SubscribeRequestParams, ctx: ServerContext) -> Any:
        """Remember the URI."""
        self.subscribed.add(params.uri)
        return {}

    async def unsubscribe(self, params: t.UnsubscribeRequestParams, ctx: ServerContext) -> Any:
        """Forget the URI."""
        self.subscribed.discard(params.uri)
        return {}


if __name__ == "__main__":
    ChangingServer().run_stdio()
