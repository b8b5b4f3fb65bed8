"""A 2025-06-18-only server whose tools ask their client: the bridge's per-session tests.

Tools: ``ask`` elicits a name with the message ``text``; ``sample`` asks for a completion of
``text``; ``roots`` lists the client's roots; ``log`` sends ``text`` as a log message; ``pair``
reports progress, waits until another ``pair`` call is under way too, then logs ``text`` and
elicits a name with it. Each answers with what its client answered. Over stdio, or Streamable
HTTP with ``--http PORT``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated._runtime.core.errors import MCPError
from generated._runtime.transports.http.server import run_http
from generated.v2025_06_18 import Server, ServerContext
from generated.v2025_06_18 import types as t

TOOLS = {
    "ask": "Elicit a name, asking `text`.",
    "sample": "Sample a completion of `text`.",
    "roots": "List the client's roots.",
    "log": "Send `text` as a warning.",
    "pair": "Once another `pair` call is under way too: log `text`, then elicit a name asking it.",
}
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
PAIR_S = 30.0
"""The longest a ``pair`` call waits for its partner."""


class AskingServer(Server):
    """Tools that ask the client a question made of their argument."""

    name = "asking"
    logging = True
    _waiting: asyncio.Future[None] | None = None
    """The ``pair`` call waiting for its partner, if one is."""

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """The tools, each taking ``text``."""
        return t.ListToolsResult(
            tools=[t.Tool(name=n, description=d, input_schema=TEXT) for n, d in TOOLS.items()]
        )

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Ask the client (the question is ``text``) and answer with its answer."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        try:
            answer = await self._ask(params.name, str(args.get("text", "")), ctx)
        except MCPError as exc:  # the client's refusal, for the caller to read
            return t.CallToolResult(content=[t.TextContent(text=exc.message)], is_error=True)
        return t.CallToolResult(content=[t.TextContent(text=answer)])

    async def _ask(self, tool: str, text: str, ctx: ServerContext) -> str:
        """What the client answered to ``tool``'s question about ``text``."""
        if tool == "ask":
            schema = t.ElicitRequestParamsRequestedSchema(properties={"name": t.StringSchema()})
            elicited = await ctx.elicit(message=text, requested_schema=schema)
            answer = str((elicited.content or {}).get("name"))
        elif tool == "sample":
            message = t.SamplingMessage(role="user", content=t.TextContent(text=text))
            sampled = await ctx.create_message(messages=[message], max_tokens=10)
            content = sampled.content
            answer = content.text if isinstance(content, t.TextContent) else "?"
        elif tool == "roots":
            listed = await ctx.list_roots()
            answer = ",".join(root.uri for root in listed.roots)
        elif tool == "pair":
            await ctx.progress(0, 1, f"{text} arrived")
            await self._pair()
            await ctx.log("warning", text)
            answer = await self._ask("ask", text, ctx)
        else:
            await ctx.log("warning", text)
            answer = "logged"
        return answer

    async def _pair(self) -> None:
        """Return once two ``pair`` calls are under way: the second releases the first."""
        partner = self._waiting
        if partner is not None and not partner.done():
            self._waiting = None
            partner.set_result(None)
            return
        waiting = self._waiting = asyncio.get_running_loop().create_future()
        await asyncio.wait_for(waiting, PAIR_S)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        run_http(AskingServer(), "127.0.0.1", int(sys.argv[2]))
    else:
        AskingServer().run_stdio()
