"""The runtime when things go wrong: a mute server, a broken handler, mismatched clients."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from generated import v2025_03_26 as v0326
from generated._runtime.core.errors import INTERNAL_ERROR
from generated._runtime.roles.client import connect_any
from generated._runtime.roles.peer import MCPError, RequestTimeout
from generated._runtime.transports.memory import memory_pair
from generated.v2025_06_18 import Client, Server, ServerContext
from generated.v2025_06_18 import types as t
from tests.support.runtime_support import STEP_S, Echo0326, EchoServer, RawPeer, Recorder, connected


async def test_initialize_timeout_raises_request_timeout_and_disconnects() -> None:
    client_end, server_end = memory_pair()
    mute = RawPeer(server_end)
    client = Client(timeout=0.1)
    with pytest.raises(RequestTimeout, match="initialize"):
        await asyncio.wait_for(client.connect(client_end), STEP_S)
    assert (await mute.recv())["method"] == "initialize"
    # initialize must not be cancelled on the wire: the client just disconnects.
    assert await asyncio.wait_for(server_end.read(), STEP_S) is None


async def test_cancelling_connect_raises_cancellation_not_a_protocol_error() -> None:
    client_end, _ = memory_pair()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(Client(timeout=None).connect(client_end), 0.1)


class Unencodable(Server):
    """A tool whose result cannot be encoded as JSON (a handler bug)."""

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Return an object msgspec cannot encode when asked to, else echo."""
        if params.name == "broken":
            return t.CallToolResult(content=[], structured_content={"x": object()})
        return t.CallToolResult(content=[t.TextContent(text="ok")])


async def test_unencodable_handler_result_is_answered_with_internal_error() -> None:
    async with connected(Unencodable(), Client(timeout=STEP_S)) as (client, _, _):
        with pytest.raises(MCPError) as info:
            await client.call_tool(name="broken")
        assert info.value.code == INTERNAL_ERROR
        assert (await client.call_tool(name="fine")).content[0].text == "ok"


class NewSampling(Client):
    """A 2025-06-18 client that answers sampling."""

    async def on_create_message(self, params: Any, ctx: Any) -> t.CreateMessageResult:
        """Answer "new"."""
        return t.CreateMessageResult(role="assistant", content=t.TextContent(text="new"), model="m")


class OldSampling(v0326.Client):
    """A 2025-03-26 client that answers sampling."""

    async def on_create_message(self, params: Any, ctx: Any) -> v0326.types.CreateMessageResult:
        """Answer "old"."""
        content = v0326.types.TextContent(text="old")
        return v0326.types.CreateMessageResult(role="assistant", content=content, model="m")


@pytest.mark.parametrize(
    ("new", "old"),
    [(Client, OldSampling), (NewSampling, v0326.Client)],
    ids=["older-client-samples", "newest-client-samples"],
)
async def test_connect_any_uses_the_capabilities_it_declared(
    new: type[Any], old: type[Any]
) -> None:
    client_end, server_end = memory_pair()
    recorder = Recorder(client_end)
    task = asyncio.create_task(Echo0326().serve(server_end))
    chosen = await asyncio.wait_for(connect_any(recorder, [new(), old()]), STEP_S)
    try:
        assert chosen.PROTOCOL_VERSION == "2025-03-26"
        declared = recorder.sent[0]["params"]["capabilities"]
        assert chosen.our_capabilities == declared
    finally:
        await chosen.close()
        await asyncio.wait_for(task, STEP_S)


async def test_log_with_an_unknown_level_is_refused_clearly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The handler's own error names the level, in the server's log; the client reads an
    internal error without it, and the session goes on."""
    caplog.set_level(logging.ERROR)
    async with connected(EchoServer()) as (client, _, _):
        with pytest.raises(MCPError) as info:
            await client.call_tool(name="log", arguments={"levels": ["loud"]})
        assert (info.value.code, info.value.message) == (-32603, "Internal error")
        assert "loud" in caplog.text
        await client.ping()
