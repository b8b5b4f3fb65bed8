"""Write once, serve 2026-07-28 too: the demo server (written against 2025-11-25, served with
``every_revision``) answers the official SDK's 2026-07-28 client and ours, statelessly.

The 2026-07-28 side is the converter bridge's adapter of the 2025-11-25 server: a 2026-07-28
request is converted down to the handler's types, its result up, and a handler's
``ctx.elicit``/``ctx.create_message`` becomes a multi round-trip (``InputRequiredResult``)
whose answer is converted back down for the handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client as SdkClient
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from generated._runtime.core.errors import MCPError
from generated._runtime.roles.connect import connect_auto
from generated._runtime.transports.http.client import connect_http_auto
from generated._runtime.transports.stdio import spawn_server
from generated.v2025_11_25 import Client as HandshakeClient
from generated.v2026_07_28 import Client
from generated.v2026_07_28 import types as t
from tests.support.process_support import demo_over_http

ROOT = Path(__file__).resolve().parents[2]
SERVER = str(ROOT / "examples" / "demo_server.py")
TOOLS = ["book_table", "count", "divide", "echo", "edit_note", "media", "roots", "summarize"]

pytestmark = [pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")]
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


async def elicit(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """The SDK client's answer to the guestbook form."""
    return types.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})


async def sample(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    """The SDK client's model."""
    text = types.TextContent(type="text", text="short")
    return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")


def first_text(result: Any) -> str:
    """The text of a result's first block."""
    return str(result.content[0].text)


@contextlib.asynccontextmanager
async def sdk_client(server: Any) -> AsyncIterator[SdkClient]:
    """The official SDK's client in auto mode (it probes ``server/discover``)."""
    async with SdkClient(
        server,
        mode="auto",  # type: ignore[arg-type]
        read_timeout_seconds=30,
        elicitation_callback=elicit,
        sampling_callback=sample,
        cache=None,
    ) as client:
        yield client


async def sdk_steps(client: SdkClient) -> None:
    """What the SDK's 2026-07-28 client gets from the converted demo server."""
    assert client.protocol_version == "2026-07-28"
    assert client.server_info is not None and client.server_info.name == "mcpgen-demo"
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools if tool.name in TOOLS] == TOOLS
    assert first_text(await client.call_tool("echo", {"text": "hi"})) == "hi"
    weather = await client.call_tool("weather", {"city": "Oslo"})
    assert weather.structured_content is not None and weather.structured_content["city"] == "Oslo"
    booked = first_text(await client.call_tool("book_table", {}))
    assert booked == "booked a table for 2 in the name of Ada, inside"
    assert first_text(await client.call_tool("summarize", {"text": "x"})) == "sdk-model says: short"
    failed = await client.call_tool("divide", {"a": 1, "b": 0})
    assert failed.is_error


async def test_sdk_stateless_client_against_the_converted_demo_over_stdio() -> None:
    """stdio: the SDK client probes, gets 2026-07-28, and every converted step works."""
    params = StdioServerParameters(command=sys.executable, args=[SERVER], cwd=str(ROOT))
    async with asyncio.timeout(60), sdk_client(params) as client:
        await sdk_steps(client)


async def test_sdk_stateless_client_against_the_converted_demo_over_http() -> None:
    """HTTP: the same steps, one POST each, on the endpoint that also serves 2024-11-05."""
    with demo_over_http() as url:
        async with asyncio.timeout(60), sdk_client(url) as client:
            await sdk_steps(client)


class Guest(Client):
    """Our 2026-07-28 client, answering the form (no sampling, no roots declared)."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, as Grace with 3 guests."""
        assert params.message == "Who is the table for?"
        return t.ElicitResult(action="accept", content={"name": "Grace", "guests": 3})


async def our_steps(client: Guest) -> None:
    """Our client's calls: converted MRTR, and the capability it lacks refused with -32021."""
    assert client.protocol_version == "2026-07-28"
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools if tool.name in TOOLS] == TOOLS
    echoed = await client.call_tool(name="echo", arguments={"text": "hé"})
    assert first_text(echoed) == "hé"
    assert echoed.meta is not None
    assert echoed.meta["io.modelcontextprotocol/serverInfo"]["name"] == "mcpgen-demo"
    booked = await client.call_tool(name="book_table", arguments={})
    assert first_text(booked) == "booked a table for 3 in the name of Grace, inside"
    with pytest.raises(MCPError) as refused:
        await client.call_tool(name="roots", arguments={})
    assert refused.value.code == -32021
    assert "roots" in refused.value.message


async def test_our_stateless_client_against_the_converted_demo_over_stdio() -> None:
    """Our auto-mode client gets 2026-07-28 from the 2025-11-25 server over stdio."""
    guest = Guest(name="guest", version="1")
    handshake = [HandshakeClient(name="guest", version="1")]
    async with asyncio.timeout(60):
        # The probe waits as long as the demo may take to start on a loaded machine: past the
        # default 5 s, silence means "a handshake server", and this test is about the answer.
        got = await connect_auto(
            guest,
            handshake,
            lambda: spawn_server(sys.executable, [SERVER]),
            probe_timeout=30,
        )
        assert got is guest
        try:
            await our_steps(guest)
        finally:
            await guest.close()


async def test_our_stateless_client_against_the_converted_demo_over_http() -> None:
    """The same over Streamable HTTP."""
    with demo_over_http() as url:
        guest = Guest(name="guest", version="1")
        async with asyncio.timeout(60):
            got = await connect_http_auto(guest, [HandshakeClient(name="guest", version="1")], url)
            assert got is guest
            try:
                await our_steps(guest)
            finally:
                await guest.close()
