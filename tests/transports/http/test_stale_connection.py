"""The HTTP client resends a request that met a stale keep-alive connection (closed by the
server before any byte of an answer, on a connection taken from the pool), and only that."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from generated._runtime.core.errors import MCPError
from generated._runtime.transports.http.stateless_client import StatelessHTTPTransport
from generated.runtime import connect_http
from generated.v2026_07_28 import Client, Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.support.http_support import serve
from tests.support.stale_proxy import StaleProxy

STEP_S = 10.0


class Echo(Server):
    """Answers every tool call with its name."""

    name = "echo"

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Say the tool's name."""
        return t.CallToolResult(content=[t.TextContent(text=params.name)])


@pytest.fixture
async def proxy() -> AsyncIterator[tuple[StaleProxy, str]]:
    """The server behind a proxy that hangs up when told to; yields it and its MCP URL."""
    async with serve(Echo()) as (_, base):
        stale = StaleProxy(int(base.rsplit(":", 1)[1]))
        port = await stale.start()
        try:
            yield stale, f"http://127.0.0.1:{port}/mcp"
        finally:
            await stale.close()


async def test_a_request_on_a_stale_pooled_connection_is_sent_again(
    proxy: tuple[StaleProxy, str],
) -> None:
    """The call after ``server/discover`` reuses its connection, which the proxy hangs up:
    the call is sent again on a new connection and answered; the server saw it once."""
    stale, url = proxy
    async with Client(timeout=STEP_S) as client:
        await connect_http(client, url)
        assert stale.forwarded == 1
        stale.hang_up = "reused"
        result = await client.call_tool(name="first")
        assert result.content == [t.TextContent(text="first")]
        assert (stale.hung_up, stale.forwarded) == (1, 2)
        result = await client.call_tool(name="second")
        assert result.content == [t.TextContent(text="second")]


async def test_a_request_on_a_new_connection_is_not_sent_again(
    proxy: tuple[StaleProxy, str],
) -> None:
    """A connection the client just opened and the server closed unanswered may have carried
    the request to a handler: the call fails, and nothing is sent again."""
    stale, url = proxy
    async with Client(timeout=STEP_S) as client:
        client.attach_stateless(StatelessHTTPTransport(url, timeout=STEP_S))
        stale.hang_up = "fresh"
        with pytest.raises(MCPError):
            await client.call_tool(name="once")
        assert (stale.hung_up, stale.forwarded) == (1, 0)


async def test_a_request_whose_answer_had_begun_is_not_sent_again(
    proxy: tuple[StaleProxy, str],
) -> None:
    """On a pooled connection, the start of a response head arrived before the hang-up: the
    server had the request, so the call fails and nothing is sent again."""
    stale, url = proxy
    async with Client(timeout=STEP_S) as client:
        await connect_http(client, url)
        stale.hang_up = "head"
        with pytest.raises(MCPError):
            await client.call_tool(name="once")
        assert (stale.hung_up, stale.forwarded) == (1, 1)
