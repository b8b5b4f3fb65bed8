"""Resource subscriptions of several handshake sessions through one bridge to a handshake server.

In one process over memory pairs: ``changing_server.py``'s server (2025-06-18) upstream, and
two 2025-06-18 clients downstream of the same bridge (as over HTTP). An upstream
``notifications/resources/updated`` goes only to the sessions subscribed to its URI; the
upstream is subscribed once for all of them and unsubscribed when the last one unsubscribes
or goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any, TypeVar

from generated._runtime.roles.bridge import Bridge
from generated._runtime.roles.era import serve
from generated._runtime.transports.memory import memory_pair
from generated.converters import BRIDGE
from generated.v2025_06_18 import Client
from tests.bridge.changing_server import NOTE, ChangingServer
from tests.support.era_support import Recorder

BOUND_S = 10.0
C = TypeVar("C", bound=Client)


class Noting(Client):
    """A session client that notes the resource updates it receives."""

    def __init__(self) -> None:
        super().__init__()
        self.updated: list[str] = []
        self.got = asyncio.Event()

    async def on_notification(self, method: str, params: Any) -> None:
        """Note ``notifications/resources/updated``."""
        if method == "notifications/resources/updated":
            self.updated.append(params.uri)
            self.got.set()


class Sessions:
    """A bridge to a ``ChangingServer`` and the wire to it, with sessions to add downstream."""

    def __init__(self, bridge: Bridge, upstream: ChangingServer, wire: Recorder) -> None:
        self.bridge, self.upstream, self.wire = bridge, upstream, wire
        self.tasks: list[asyncio.Task[Any]] = []

    async def session(self, client: C) -> C:
        """Connect ``client`` to the bridge on its own memory pair."""
        down_client, down_server = memory_pair()
        self.tasks.append(asyncio.create_task(serve(down_server, self.bridge.served)))
        await asyncio.wait_for(client.connect(down_client), BOUND_S)
        return client

    def sent(self, method: str) -> list[Any]:
        """The ``uri`` of each ``method`` the bridge sent upstream."""
        return [m["params"]["uri"] for m in self.wire.sent if m.get("method") == method]


@contextlib.asynccontextmanager
async def bridged() -> AsyncGenerator[Sessions, None]:
    """A bridge whose upstream is a ``ChangingServer`` (handshake, 2025-06-18)."""
    upstream = ChangingServer()
    up_client, up_server = memory_pair()
    served_up = asyncio.create_task(upstream.serve(up_server))
    wire = Recorder(up_client)
    bridge = Bridge(BRIDGE)
    client = BRIDGE.clients["2025-06-18"](name="bridge", version="1", timeout=None)
    bridge.upstream_handlers(client)
    await asyncio.wait_for(client.connect(wire), BOUND_S)
    bridge.attach(client)
    await bridge.start()
    sessions = Sessions(bridge, upstream, wire)
    try:
        yield sessions
    finally:
        await bridge.close()
        for task in (served_up, *sessions.tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def test_an_update_reaches_only_the_session_subscribed_to_it() -> None:
    """Of two sessions, only the one subscribed to the URI gets the upstream's update."""
    async with bridged() as bridge:
        idle = await bridge.session(Noting())
        await idle.list_tools()  # the idle session is known to the bridge first
        subscribed = await bridge.session(Noting())
        await subscribed.subscribe(uri=NOTE)
        await idle.call_tool(name="touch")
        await asyncio.wait_for(subscribed.got.wait(), BOUND_S)
        await idle.list_tools()  # one more round trip through the bridge for the idle one
        assert subscribed.updated == [NOTE]
        assert idle.updated == []


async def test_the_upstream_subscription_is_counted_across_sessions() -> None:
    """The first subscriber subscribes upstream, the last one to unsubscribe unsubscribes it."""
    async with bridged() as bridge:
        first = await bridge.session(Noting())
        second = await bridge.session(Noting())
        await first.subscribe(uri=NOTE)
        await second.subscribe(uri=NOTE)
        await first.subscribe(uri=NOTE)  # again: nothing more upstream
        assert bridge.sent("resources/subscribe") == [NOTE]
        await first.unsubscribe(uri=NOTE)
        assert bridge.upstream.subscribed == {NOTE}  # the second session still wants it
        await first.call_tool(name="touch")
        await asyncio.wait_for(second.got.wait(), BOUND_S)
        assert first.updated == []
        await second.unsubscribe(uri=NOTE)
        assert bridge.upstream.subscribed == set()
        assert bridge.sent("resources/unsubscribe") == [NOTE]


async def test_a_session_gone_gives_up_its_subscriptions_upstream() -> None:
    """A subscribed session that closes no longer holds the upstream subscription."""
    async with bridged() as bridge:
        leaving = await bridge.session(Noting())
        staying = await bridge.session(Noting())
        await leaving.subscribe(uri=NOTE)
        assert bridge.upstream.subscribed == {NOTE}
        await leaving.close()
        await staying.call_tool(name="touch")  # the update finds no live subscriber
        for _ in range(100):  # bounded: the unsubscribing runs beside the update
            if not bridge.upstream.subscribed:
                break
            await asyncio.sleep(0.05)
        assert bridge.upstream.subscribed == set()
        assert staying.updated == []
        assert bridge.sent("resources/unsubscribe") == [NOTE]
