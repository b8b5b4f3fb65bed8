"""``connect_http`` with a 2026-07-28 client speaks that revision (discover, a POST per request)."""

from __future__ import annotations

from typing import Any

from generated.runtime import connect_http
from generated.v2026_07_28 import Client, Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.http_support import serve


class Greeter(Server):
    """Asks a name (an MRTR round) and greets."""

    name = "greeter"

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Greet whoever the client says it is."""
        schema = t.ElicitRequestFormParamsRequestedSchema(properties={"name": t.StringSchema()})
        form = t.ElicitRequestFormParams(message="Name?", requested_schema=schema)
        answer = await ctx.elicit(params=form)
        return t.CallToolResult(
            content=[t.TextContent(text=f"hello {(answer.content or {})['name']}")]
        )


class Ada(Client):
    """Answers as Ada."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, as Ada."""
        return t.ElicitResult(action="accept", content={"name": "Ada"})


async def test_connect_http_with_a_2026_07_28_client_discovers_and_calls() -> None:
    async with serve(Greeter()) as (_, base), Ada() as client:
        found = await connect_http(client, f"{base}/mcp")
        assert isinstance(found, t.DiscoverResult)
        assert "2026-07-28" in found.supported_versions
        assert client.initialize_result is found
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool(name="greet")
        assert result.content == [t.TextContent(text="hello Ada")]
