# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Writing a stream to the client as SSE: the GET (listen) stream, a POST's stream, and
2024-11-05's HTTP+SSE stream.

Events already queued go out together; only a stream that must be waited on gets tasks
watching for the client going away or being replaced by a resumption (``Last-Event-ID``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .asgi import Receive, Send
from .stream import HangUp, Stream


async def stream_sse(
    stream: Stream | None,
    receive: Receive,
    send: Send,
    headers: list[tuple[bytes, bytes]],
    replay: list[tuple[str, bytes]] | None = None,
    first: bytes = b"",
) -> None:
    """Send ``first`` (an endpoint or priming event), then a stream's events as SSE until it
    ends or the client disconnects."""
    out = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), *headers]
    await send({"type": "http.response.start", "status": 200, "headers": out})
    if first:
        await send({"type": "http.response.body", "body": first, "more_body": True})
    # Replayed events may also still wait in the live stream's queue: send each id once.
    sent: set[str] = set()
    for event_id, data in replay or []:
        sent.add(event_id)
        await send(
            {"type": "http.response.body", "body": sse_event(event_id, data), "more_body": True}
        )
    tail = await _pump(stream, receive, send, sent) if stream is not None else b""
    with contextlib.suppress(Exception):
        await send({"type": "http.response.body", "body": tail})


async def _pump(stream: Stream, receive: Receive, send: Send, sent: set[str]) -> bytes:
    """Send a stream's events until it ends, the client goes away, or another reader takes
    over (a resumption); return what is left.

    Events already queued go out together without any task; only when the stream must be
    waited on do tasks watch for the client going away or being replaced. The events that
    arrived with the end of the stream are returned, to go out with the last body message.
    """
    claim = stream.claim()
    ready: list[bytes] = []
    watchers: list[asyncio.Task[Any]] = []
    try:
        while not stream.replaced(claim):
            if stream.empty():
                if stream.done:
                    break
                if ready:
                    body, ready = b"".join(ready), []
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                if not watchers:
                    watchers = [
                        asyncio.create_task(_wait_disconnect(receive)),
                        asyncio.create_task(stream.wait_replaced(claim)),
                    ]
                waiter = asyncio.ensure_future(stream.ready())
                await asyncio.wait({waiter, *watchers}, return_when=asyncio.FIRST_COMPLETED)
                if not waiter.done() or stream.replaced(claim):
                    waiter.cancel()  # replaced: what waits is the new reader's to take
                    break
                continue  # taken below, by plain calls: no replacement can come between
            item = stream.get_nowait()
            if item is None:
                break
            if isinstance(item, HangUp):  # the stream goes on; this connection ends
                ready.append(sse_event(item.event_id, b"", item.retry_ms))
                break
            if item[0] not in sent:
                ready.append(sse_event(*item))
    finally:
        stream.release(claim)
        for watcher in watchers:
            watcher.cancel()
    return b"".join(ready)


def sse_event(event_id: str, data: bytes, retry_ms: int | None = None) -> bytes:
    """One SSE event: data with an id (none when kept nowhere), or an id with no data."""
    if not data:  # priming or hang-up: an id to resume from (and when), nothing to dispatch
        retry = b"" if retry_ms is None else b"retry: %d\n" % retry_ms
        return retry + b"id: " + event_id.encode() + b"\ndata:\n\n"
    if not event_id:  # kept nowhere (a POST without a session): nothing to resume from
        return b"event: message\ndata: " + data + b"\n\n"
    return b"event: message\nid: " + event_id.encode() + b"\ndata: " + data + b"\n\n"


async def _wait_disconnect(receive: Receive) -> None:
    """Return once the client has gone away."""
    while (await receive())["type"] != "http.disconnect":
        pass
