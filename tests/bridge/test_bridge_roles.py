"""The bridge in one process, over in-memory connections: what crosses it, message by message.

A 2026-07-28 server upstream (stateless), the bridge's upstream client on one memory pair, a
2025-06-18 client downstream on another: a downstream request cancelled cancels the upstream
one, progress crosses with the downstream's token, reserved ``_meta`` keys stay on their hop,
and a question the downstream client cannot answer is refused upstream (-32021) by capability.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from generated._runtime.core.errors import MCPError, RequestTimeout
from generated._runtime.roles.bridge import Bridge
from generated._runtime.roles.era import serve
from generated._runtime.transports.memory import memory_pair
from generated.converters import BRIDGE
from generated.v2025_06_18 import Client as Client0618
from generated.v2025_06_18 import types as t18
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.support.era_support import Recorder


class Upstream(Server):
    """A stateless server: a slow tool that notes its cancellation, one that reports progress,
    one that asks the client's name."""

    name = "upstream"

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = asyncio.Event()
        self.metas: list[Any] = []

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """The three tools."""
        tools = [t.Tool(name=n, input_schema={"type": "object"}) for n in ("slow", "count", "ask")]
        return t.ListToolsResult(tools=tools)

    async def call_tool(self, params: t.CallToolRequestParams, ctx: ServerContext) -> Any:
        """Wait (noting cancellation), count with progress, or ask by elicitation."""
        self.metas.append(params.meta)
        if params.name == "slow":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if params.name == "count":
            for i in (1, 2):
                await ctx.progress(i, 2, f"step {i}")
        if params.name == "ask":
            form = t.ElicitRequestFormParams(
                message="name?",
                requested_schema=t.ElicitRequestFormParamsRequestedSchema(
                    properties={"name": t.StringSchema()}
                ),
            )
            answer = await ctx.elicit(params=form)
            return t.CallToolResult(content=[t.TextContent(text=f"hi {answer.content}")])
        return t.CallToolResult(content=[t.TextContent(text="done")])


@contextlib.asynccontextmanager
async def bridged(upstream: Any, client: Any) -> AsyncGenerator[Recorder, None]:
    """``client`` connected through a bridge to ``upstream`` (a server of any revision, served
    over memory, spoken to in its own revision); yields the upstream wire."""
    bridge = Bridge(BRIDGE)
    up_client, up_server = memory_pair()
    served_up = asyncio.create_task(upstream.serve(up_server))
    wire = Recorder(up_client)
    ours = BRIDGE.clients[upstream.PROTOCOL_VERSION](name="bridge", version="1", timeout=None)
    bridge.upstream_handlers(ours)
    await ours.connect(wire)
    bridge.attach(ours)
    await bridge.start()
    down_client, down_server = memory_pair()
    served_down = asyncio.create_task(serve(down_server, bridge.served))
    await client.connect(down_client)
    try:
        yield wire
    finally:
        await client.close()
        await bridge.close()
        for task in (served_up, served_down):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def test_a_cancelled_downstream_request_cancels_the_upstream_one() -> None:
    """A downstream request cancelled by its timeout sends exactly one notifications/cancelled
    upstream."""
    upstream, client = Upstream(), Client0618()
    async with bridged(upstream, client) as wire:
        with pytest.raises(RequestTimeout):  # the client's timeout sends notifications/cancelled
            await client.call_tool(name="slow", timeout=0.3)
        await asyncio.wait_for(upstream.cancelled.wait(), 30)
    cancels = [m for m in wire.sent if m.get("method") == "notifications/cancelled"]
    assert len(cancels) == 1, wire.sent


async def test_progress_crosses_with_the_downstream_token_and_meta_stays_on_its_hop() -> None:
    """Upstream progress reaches the downstream callback; the upstream call carries the bridge's own
    _meta."""
    upstream, client = Upstream(), Client0618()
    seen: list[tuple[float, Any, Any]] = []

    def on_progress(params: t18.ProgressNotificationParams) -> None:
        seen.append((params.progress, params.total, params.message))

    async with bridged(upstream, client) as wire:
        result = await client.call_tool(name="count", progress=on_progress)
        assert result.content == [t18.TextContent(text="done")]
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
    [call] = [m for m in wire.sent if m.get("method") == "tools/call"]
    meta = call["params"]["_meta"]
    # the upstream hop's own token and facts; the downstream client's capabilities (none)
    assert "progressToken" in meta  # the bridge's own, for the upstream hop
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
    assert meta["io.modelcontextprotocol/clientInfo"] == {"name": "bridge", "version": "1"}


async def test_a_question_the_downstream_client_cannot_answer_is_refused_by_capability() -> None:
    """An elicitation the downstream client has no capability for is refused with -32021."""
    upstream, client = Upstream(), Client0618()  # no on_elicit: no elicitation capability
    async with bridged(upstream, client):
        with pytest.raises(MCPError) as refused:
            await client.call_tool(name="ask")
    assert refused.value.code == -32021


class Answering(Client0618):
    """Answers elicitation as Ada."""

    async def on_elicit(self, params: Any, ctx: Any) -> t18.ElicitResult:
        return t18.ElicitResult(action="accept", content={"name": "Ada"})


async def test_an_mrtr_question_becomes_a_request_to_the_session_client() -> None:
    """An MRTR elicitation upstream is asked of the session client, answered in a second round."""
    upstream, client = Upstream(), Answering()
    async with bridged(upstream, client) as wire:
        result = await client.call_tool(name="ask")
    assert result.content == [t18.TextContent(text="hi {'name': 'Ada'}")]
    rounds = [m for m in wire.sent if m.get("method") == "tools/call"]
    assert len(rounds) == 2 and "inputResponses" in rounds[1]["params"], rounds
