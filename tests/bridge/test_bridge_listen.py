"""A stateless (2026-07-28) client's listen stream through ``mcpgen bridge`` to a handshake-era
server (``changing_server.py``, 2025-06-18 only): what the upstream announces reaches it.

The upstream's ``notifications/tools/list_changed`` (which it may send unasked) reaches a
stream opted in to ``toolsListChanged``; a stream subscribed to a resource URI makes the
bridge subscribe to it upstream (``resources/subscribe``), so the upstream's
``notifications/resources/updated`` for it reaches the stream; the stream closed, the
bridge unsubscribes upstream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from generated._runtime.roles.connect import connect_auto
from generated._runtime.transports.stdio import spawn_server
from tests.bridge.changing_server import NOTE
from tests.bridge.test_bridge_lifecycle import BOUND_S, ROOT, UPSTREAM
from tests.bridge.test_bridge_stdio import BRIDGE
from tests.support.era_support import EraClient, HandshakeClient

ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


class Stream:
    """One listen stream: its notifications, and an event per method seen."""

    def __init__(self) -> None:
        self.got: list[tuple[str, Any]] = []
        self.events: dict[str, asyncio.Event] = {}
        self.task: asyncio.Task[Any] | None = None

    def event(self, method: str) -> asyncio.Event:
        """The event set when ``method`` arrives."""
        return self.events.setdefault(method, asyncio.Event())

    async def deliver(self, method: str, params: Any) -> None:
        """Note one notification."""
        self.got.append((method, params))
        self.event(method).set()

    async def wait(self, method: str) -> None:
        """Wait (bounded) until ``method`` arrived."""
        await asyncio.wait_for(self.event(method).wait(), BOUND_S)


@contextlib.asynccontextmanager
async def listening(filters: dict[str, Any]) -> AsyncIterator[tuple[EraClient, Stream]]:
    """A stateless client through the bridge, with a listen stream acknowledged."""
    command = [*BRIDGE, *UPSTREAM]

    async def spawn() -> Any:
        return await spawn_server(command[0], command[1:], cwd=str(ROOT))

    # The bridge answers server/discover once its upstream is connected: on a loaded machine that
    # can take longer than a client's default probe timeout, after which it would pick initialize.
    connecting = connect_auto(EraClient(), [HandshakeClient()], spawn, probe_timeout=BOUND_S)
    client = await asyncio.wait_for(connecting, BOUND_S * 2)
    stream = Stream()
    try:
        assert isinstance(client, EraClient) and client.stateless is not None
        stream.task = asyncio.create_task(client.stateless.listen(filters, stream.deliver))
        await stream.wait(ACKNOWLEDGED)
        yield client, stream
    finally:
        if stream.task is not None:
            stream.task.cancel()
            await asyncio.gather(stream.task, return_exceptions=True)
        await client.close()


async def test_a_tools_list_change_upstream_reaches_the_listen_stream() -> None:
    """A handshake upstream's tools/list_changed reaches a 2026-07-28 client's listen stream."""
    async with listening({"toolsListChanged": True}) as (client, stream):
        await asyncio.wait_for(client.call_tool(name="change_tools"), BOUND_S)
        await stream.wait("notifications/tools/list_changed")


async def test_a_resource_update_upstream_reaches_the_stream_subscribed_to_it() -> None:
    """A resource update reaches the stream subscribed to its URI; closing the stream unsubscribes
    upstream."""
    async with listening({"resourceSubscriptions": [NOTE]}) as (client, stream):
        subscribed = await asyncio.wait_for(client.call_tool(name="touch"), BOUND_S)
        assert subscribed.content[0].text == NOTE  # type: ignore[union-attr]
        await stream.wait("notifications/resources/updated")
        [(_, params)] = [got for got in stream.got if got[0].endswith("updated")]
        assert params["uri"] == NOTE
        assert stream.task is not None
        stream.task.cancel()  # the stream closed: the bridge unsubscribes upstream
        await asyncio.gather(stream.task, return_exceptions=True)
        for _ in range(300):  # bounded: about 30 s
            left = await asyncio.wait_for(client.call_tool(name="subscribed"), BOUND_S)
            if left.content[0].text == "":  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.1)
        assert left.content[0].text == "", left  # type: ignore[union-attr]
