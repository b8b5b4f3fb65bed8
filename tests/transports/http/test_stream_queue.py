"""A POST's or the GET's ``Stream``: what its readers take, in order, whatever they wait on."""

from __future__ import annotations

import asyncio
from typing import Any

from generated._runtime.transports.http.listen import stream_sse
from generated._runtime.transports.http.session import HangUp, Stream


async def test_a_waiting_reader_gets_events_in_order_then_the_end() -> None:
    """Events put while a reader waits reach it in order; the end of the stream comes as None."""
    stream = Stream("post-1", attached=True)
    reader = asyncio.ensure_future(stream.get())
    await asyncio.sleep(0)
    assert not reader.done()
    await stream.put("1", b"a")
    await stream.put("2", b"bb")
    stream.close()
    assert await reader == ("1", b"a")
    assert stream.queued_bytes == 2
    assert await stream.get() == ("2", b"bb")
    assert await stream.get() is None
    assert stream.queued_bytes == 0 and stream.empty()


async def test_a_reader_cancelled_while_waiting_takes_nothing() -> None:
    """A reader replaced while it waits (a resumption) loses no event: the next one gets it."""
    stream = Stream("post-1", attached=True)
    old = asyncio.ensure_future(stream.get())
    await asyncio.sleep(0)
    old.cancel()
    await asyncio.gather(old, return_exceptions=True)
    await stream.put("7", b"{}")
    assert not stream.empty()
    assert stream.get_nowait() == ("7", b"{}")


async def test_two_waiting_readers_share_events_one_each() -> None:
    """With two readers waiting, one event goes to exactly one of them; the other still waits."""
    stream = Stream("get", attached=True)
    first = asyncio.ensure_future(stream.get())
    second = asyncio.ensure_future(stream.get())
    await asyncio.sleep(0)
    await stream.put("1", b"x")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    done = [reader for reader in (first, second) if reader.done()]
    assert len(done) == 1 and done[0].result() == ("1", b"x")
    stream.hang_up("2", 500)
    waiting = second if done[0] is first else first
    assert await waiting == HangUp("2", 500)


async def test_a_cut_stream_drops_what_it_queued_and_ends() -> None:
    """Cutting a stream (a reader too slow) drops its unsent events; readers then get None."""
    stream = Stream("post-1", attached=False)
    await stream.put("1", b"abc")
    await stream.put("2", b"de")
    stream.close("too slow")
    assert stream.cut_reason == "too slow" and stream.queued_bytes == 0
    assert await stream.get() is None


async def test_an_event_put_after_a_takeover_reaches_the_new_reader_not_the_old() -> None:
    """A resumption claims the stream from the reader relaying it, then reads the store and
    starts its own reader; an event put meanwhile (after that store read) is not taken by the
    old reader, which was waiting for one when it was replaced: the new reader sends it."""
    stream = Stream("post-1", attached=True)
    old_sent: list[bytes] = []
    new_sent: list[bytes] = []

    async def never_gone() -> dict[str, str]:
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    def sender(into: list[bytes]) -> Any:
        async def send(message: dict[str, Any]) -> None:
            into.append(message.get("body", b""))

        return send

    old = asyncio.create_task(stream_sse(stream, never_gone, sender(old_sent), []))
    for _ in range(5):  # the old reader waits for the next event
        await asyncio.sleep(0)
    stream.claim()  # the resumption takes over, then reads the store (without event 8)
    await stream.put("8", b'{"n":8}')
    new = asyncio.create_task(stream_sse(stream, never_gone, sender(new_sent), []))
    await asyncio.wait_for(old, 5)
    for _ in range(5):
        await asyncio.sleep(0)
    stream.close()
    await asyncio.wait_for(new, 5)
    assert b'{"n":8}' not in b"".join(old_sent)
    assert b'data: {"n":8}' in b"".join(new_sent)
