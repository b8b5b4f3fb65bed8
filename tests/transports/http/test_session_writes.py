"""What a session's handlers write reaches their POST's stream in order, whether the write is
done by plain calls (the memory store, room in the stream) or must wait (a store that waits,
a full stream), and the store a user overrides keeps every event."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from generated._runtime.transports.http.event_store import MemoryEventStore
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated._runtime.transports.http.stream import Stream
from tests.support.http_support import TestServer, bounded, call, initialize, parse_events

ACCEPT = b"application/json, text/event-stream"
_STEPS = ["notifications/progress", "notifications/message"] * 2
"""What the ``count`` tool sends before its answer (n=2)."""


async def _post(app: McpHttpApp, message: dict[str, Any], session: bytes | None) -> list[Any]:
    """POST one message to ``app`` in-process; return what it sent."""
    sent: list[Any] = []
    body = json.dumps(message).encode()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client stays: no disconnect
        raise AssertionError("unreachable")

    async def send(item: Any) -> None:
        sent.append(item)

    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]
    headers += [(b"accept", ACCEPT), (b"mcp-protocol-version", b"2025-06-18")]
    if session is not None:
        headers.append((b"mcp-session-id", session))
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    await app(scope, receive, send)
    return sent


async def _session(app: McpHttpApp) -> bytes:
    sent = await _post(app, initialize(0), None)
    session: bytes = dict(sent[0]["headers"])[b"mcp-session-id"]
    return session


async def _count_events(app: McpHttpApp) -> list[Any]:
    """The SSE events of one ``count`` call (progress and a log twice, then the answer)."""
    session = await _session(app)
    sent = await _post(app, call(5, "count", {"n": 2}, token="p"), session)
    assert sent[0]["status"] == 200
    assert dict(sent[0]["headers"])[b"content-type"] == b"text/event-stream"
    return parse_events(b"".join(item.get("body", b"") for item in sent[1:]))


class _Counting(MemoryEventStore):
    """A memory store whose ``store`` a user overrode (here: to count and to wait a turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.stored: list[str] = []

    async def store(self, session: str, stream: str, data: bytes) -> str:
        await asyncio.sleep(0)
        event_id = await super().store(session, stream, data)
        self.stored.append(event_id)
        return event_id


@bounded
async def test_an_overridden_store_keeps_every_event_in_order() -> None:
    """A store whose ``store`` waits (overridden) is used for every event of the POST's stream:
    progress and logs then the answer, in order, each with the id that store gave."""
    store = _Counting()
    app = McpHttpApp([TestServer()], HttpOptions(event_store=store))
    events = await _count_events(app)
    frames = [event.data for event in events]
    assert [f.get("method") for f in frames] == [*_STEPS, None]
    assert [f["params"]["progress"] for f in frames[:4:2]] == [1, 2]
    assert frames[4]["id"] == 5 and "counted 2" in json.dumps(frames[4]["result"])
    assert [event.id for event in events] == store.stored[-5:]


@bounded
async def test_the_memory_store_keeps_the_events_written_by_plain_calls() -> None:
    """With the memory store, the same events go out in order and can be replayed."""
    store = MemoryEventStore()
    app = McpHttpApp([TestServer()], HttpOptions(event_store=store))
    events = await _count_events(app)
    assert [event.data.get("method") for event in events] == [*_STEPS, None]
    assert all(event.id for event in events)
    session = next(iter(app.sessions))
    replay = await store.replay(session, events[0].id or "")
    assert replay is not None
    assert [data for _, data in replay[1]] == [
        json.dumps(event.data, separators=(",", ":")).encode() for event in events[1:]
    ]


@bounded
async def test_a_json_answer_behind_a_full_stream_still_arrives() -> None:
    """JSON mode with a stream bound smaller than one answer: the write waits for the reader
    instead of dropping, and the answer is the POST's body."""
    app = McpHttpApp([TestServer()], HttpOptions(json_response=True, max_stream_bytes=8))
    session = await _session(app)
    sent = await _post(app, call(3, "count", {"n": 1}), session)
    assert sent[0]["status"] == 200
    answer = json.loads(sent[1]["body"])
    assert answer["id"] == 3 and "counted 1" in json.dumps(answer["result"])


async def test_a_replaced_reader_is_told_and_an_old_claim_detaches_nothing() -> None:
    """A reader waiting for its replacement wakes when another claims; its release then
    leaves the new reader attached."""
    stream = Stream("post-1")
    first = stream.claim()
    waiter = asyncio.ensure_future(stream.wait_replaced(first))
    await asyncio.sleep(0)
    assert not waiter.done() and not stream.replaced(first)
    second = stream.claim()
    await asyncio.wait_for(waiter, 1)
    assert stream.replaced(first) and not stream.replaced(second)
    await asyncio.wait_for(stream.wait_replaced(first), 1)  # at once: replaced already
    stream.release(first)
    assert stream.attached
    stream.release(second)
    assert not stream.attached
