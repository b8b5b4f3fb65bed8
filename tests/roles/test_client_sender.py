"""The client's sender: the one seam every request of a client goes through.

A client connected through the revision adapter (``converters.connect``) to a server of an
older revision sends through the adapter's sender: its typed calls return its own revision's
types, converted from what the server's revision answered; the capability verdict a client
keeps per method follows the capabilities it holds.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated import v2025_03_26 as v0326
from generated._runtime.core.errors import CapabilityError
from generated._runtime.transports.memory import memory_pair
from generated.converters import connect
from generated.v2025_11_25 import Client
from generated.v2025_11_25 import methods as m
from generated.v2025_11_25 import types as t
from tests.support.runtime_support import STEP_S, Echo0326


class Tools0326(Echo0326):
    """The 2025-03-26 echo server, listing its tool."""

    async def list_tools(
        self, params: v0326.types.ListToolsRequestParams, ctx: v0326.ServerContext
    ) -> v0326.types.ListToolsResult:
        """One tool."""
        tool = v0326.types.Tool(name="echo", input_schema={"type": "object"})
        return v0326.types.ListToolsResult(tools=[tool])


async def test_an_adapted_client_returns_its_own_revisions_types() -> None:
    """A 2025-11-25 client talking 2025-03-26 gets 2025-11-25 results from every typed path."""
    client = Client(name="adapted", timeout=STEP_S)
    client_end, server_end = memory_pair()
    task = asyncio.create_task(Tools0326().serve(server_end))
    try:
        await asyncio.wait_for(connect(client, client_end), STEP_S)
        assert client.protocol_version == "2025-03-26"
        called = await client.call_tool(name="echo", arguments={"a": 1})
        assert type(called) is t.CallToolResult
        assert type(called.content[0]) is t.TextContent
        assert called.content[0].text == '{"a": 1}'
        again = await client.request(m.TOOLS_CALL, t.CallToolRequestParams(name="echo"))
        assert type(again) is t.CallToolResult
        listed = await client.list_tools()
        assert type(listed) is t.ListToolsResult
        assert type(listed.tools[0]) is t.Tool
        await client.ping()
    finally:
        await asyncio.wait_for(client.close(), STEP_S)
        await asyncio.wait_for(task, STEP_S)


async def test_the_capability_verdict_follows_the_capabilities() -> None:
    """A method allowed once is refused after the server's capabilities no longer hold it."""
    client = Client(name="verdicts", timeout=STEP_S)
    client_end, server_end = memory_pair()
    task = asyncio.create_task(Tools0326().serve(server_end))
    try:
        await asyncio.wait_for(connect(client, client_end), STEP_S)
        await client.call_tool(name="echo")
        held: dict[str, Any] = dict(client.their_capabilities)
        client.their_capabilities = {k: v for k, v in held.items() if k != "tools"}
        with pytest.raises(CapabilityError):
            await client.call_tool(name="echo")
        client.their_capabilities = held
        assert type(await client.call_tool(name="echo")) is t.CallToolResult
    finally:
        await asyncio.wait_for(client.close(), STEP_S)
        await asyncio.wait_for(task, STEP_S)


async def test_a_refused_request_raises_where_it_is_awaited() -> None:
    """``request`` hands back an awaitable even for a refused call (as a coroutine function
    would): making it raises nothing, awaiting it raises the refusal, and gathering it with an
    allowed call leaves that call's result to the others."""
    client = Client(name="refusals", timeout=STEP_S)
    client_end, server_end = memory_pair()
    task = asyncio.create_task(Tools0326().serve(server_end))
    try:
        await asyncio.wait_for(connect(client, client_end), STEP_S)
        held: dict[str, Any] = dict(client.their_capabilities)
        client.their_capabilities = {k: v for k, v in held.items() if k != "tools"}
        refused = client.request(m.TOOLS_CALL, t.CallToolRequestParams(name="echo"))
        allowed = client.request(m.PING, None)
        got = await asyncio.gather(refused, allowed, return_exceptions=True)
        assert isinstance(got[0], CapabilityError)
        assert not isinstance(got[1], BaseException)
    finally:
        await asyncio.wait_for(client.close(), STEP_S)
        await asyncio.wait_for(task, STEP_S)
