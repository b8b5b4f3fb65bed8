"""The HTTP client transports hand what arrives to their reader where it arrives.

``Inbox`` alone (frames pushed to ``take`` in order, kept while a ``take`` waits, read after
the end), and the Streamable HTTP transport: a request's POST leaves inside ``write`` (no task
turn before it), and its answer reaches a pumping reader without a read loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from generated import v2025_06_18
from generated._runtime.core.transport import PushesFrames
from generated._runtime.core.wire import Inbound, Outbound
from generated._runtime.transports.http.client import (
    StatelessHTTPTransport,
    StreamableHTTPTransport,
    connect_http,
)
from generated._runtime.transports.http.inbox import Inbox
from tests.support.http_support import bounded
from tests.transports.http.test_http_client_fake import Fake, Hit, Reply, result, stop_servers

__all__ = ["stop_servers"]  # the fixture that stops the fake servers, used here too


@bounded
async def test_frames_are_taken_at_once_in_order() -> None:
    """A free reader takes each frame inside ``put``; the pump ends with the input."""
    inbox, taken = Inbox(), list[bytes | Inbound]()
    pumping = asyncio.create_task(inbox.pump(lambda frame: taken.append(frame)))
    await asyncio.sleep(0)
    inbox.put(b"1")
    assert taken == [b"1"]
    inbox.put(b"2")
    assert taken == [b"1", b"2"]
    inbox.end()
    await asyncio.wait_for(pumping, 5)


@bounded
async def test_frames_wait_while_a_take_waits_and_keep_their_order() -> None:
    """Frames that arrive while a ``take`` waits are kept, then taken in order, then the end."""
    inbox, taken = Inbox(), list[bytes | Inbound]()
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def take(frame: bytes | Inbound) -> asyncio.Future[None] | None:
        taken.append(frame)
        return gate if frame == b"slow" else None

    inbox.put(b"early")  # before anyone pumps: kept
    pumping = asyncio.create_task(inbox.pump(take))
    await asyncio.sleep(0)
    assert taken == [b"early"]
    inbox.put(b"slow")
    inbox.put(b"a")
    inbox.put(b"b")
    inbox.end()
    assert taken == [b"early", b"slow"]
    assert not pumping.done()
    gate.set_result(None)
    await asyncio.wait_for(pumping, 5)
    assert taken == [b"early", b"slow", b"a", b"b"]


@bounded
async def test_a_frame_put_inside_take_comes_after_it() -> None:
    """A frame put while ``take`` runs (an answer it caused) is taken after, not inside it."""
    inbox, order = Inbox(), list[str]()

    def take(frame: bytes | Inbound) -> None:
        order.append(f"start {frame!r}")
        if frame == b"first":
            inbox.put(b"second")
        order.append(f"end {frame!r}")

    pumping = asyncio.create_task(inbox.pump(take))
    await asyncio.sleep(0)
    inbox.put(b"first")
    assert order == ["start b'first'", "end b'first'", "start b'second'", "end b'second'"]
    inbox.end()
    await asyncio.wait_for(pumping, 5)


@bounded
async def test_a_take_that_raises_ends_the_pump_with_its_error() -> None:
    """What ``take`` raises (the reader closed) ends pumping; ``pump`` raises it."""

    taken: list[bytes | Inbound] = []

    def take(frame: bytes | Inbound) -> None:
        taken.append(frame)
        raise ConnectionError("reader gone")

    inbox = Inbox()
    pumping = asyncio.create_task(inbox.pump(take))
    await asyncio.sleep(0)
    inbox.put(b"x")
    inbox.put(b"y")  # before the pump noticed: never taken
    with pytest.raises(ConnectionError, match="reader gone"):
        await asyncio.wait_for(pumping, 5)
    assert taken == [b"x"]


@bounded
async def test_a_waiting_take_that_fails_ends_the_pump() -> None:
    """The future a ``take`` returned failing ends pumping with its error."""
    failing: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    inbox = Inbox()
    pumping = asyncio.create_task(inbox.pump(lambda frame: failing))
    await asyncio.sleep(0)
    inbox.put(b"x")
    failing.set_exception(ConnectionError("handler failed"))
    with pytest.raises(ConnectionError, match="handler failed"):
        await asyncio.wait_for(pumping, 5)


@bounded
async def test_read_gets_kept_frames_then_none() -> None:
    """A reader that pulls gets every frame, then None once the input ended."""
    inbox = Inbox()
    waiting = asyncio.create_task(inbox.read())
    await asyncio.sleep(0)
    inbox.put(b"1")
    assert await asyncio.wait_for(waiting, 5) == b"1"
    inbox.put(b"2")
    inbox.end()
    assert await inbox.read() == b"2"
    assert await inbox.read() is None
    assert await inbox.read() is None


def test_the_http_client_transports_push_frames() -> None:
    """Both HTTP client transports hand frames to the peer (``PushesFrames``): no read loop."""
    assert isinstance(StreamableHTTPTransport("http://127.0.0.1:1/mcp"), PushesFrames)
    assert isinstance(StatelessHTTPTransport("http://127.0.0.1:1/mcp"), PushesFrames)


@bounded
async def test_a_request_post_leaves_inside_write() -> None:
    """A request's POST is started before ``write`` returns (no task turn before it), and its
    JSON answer reaches the client."""
    started: list[str] = []

    async def on_start(session: Any, context: Any, params: aiohttp.TraceRequestStartParams) -> None:
        started.append(params.method)

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_start)

    def answer(hit: Hit) -> Reply:
        if hit.method != "POST":
            return Reply(405)
        return Reply(200, json=result(hit.body["id"], {"content": []}))

    fake = Fake(answer)
    async with aiohttp.ClientSession(trace_configs=[trace]) as http:
        client = v2025_06_18.Client(timeout=30.0)
        await connect_http(client, await fake.start(), http_client=http)
        transport = client.peer.transport
        assert isinstance(transport, StreamableHTTPTransport)
        started_at_return: list[list[str]] = []
        write = transport.write

        async def recording_write(message: Outbound | bytes, related: Any = None) -> None:
            started.clear()
            await write(message, related)
            started_at_return.append(list(started))

        transport.write = recording_write  # type: ignore[method-assign]
        answered = await asyncio.wait_for(client.call_tool(name="t"), 30)
        assert answered.content == []
        assert started_at_return == [["POST"]]  # started before ``write`` returned
        await client.close()
