"""The server-side state of MCP over HTTP: sessions, their streams, and the event store.

A session is one ``ServerConnection`` whose transport is ``SessionTransport``: frames POSTed
by the client are read from its inbox, and every frame the server writes is routed to one
stream: a response to the stream of the POST that carried its request; a handler's progress,
log messages and requests to that handler's request's stream; anything else to the GET
stream (kept in the event store until one is open). Each event gets an id unique within the
session, which is what ``Last-Event-ID`` resumes from.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import msgspec

from ...core.events import RequestId
from ...roles.server import ServerBase, ServerConnection
from ..base import ConnectionClosed, RelatedId

STANDALONE: Final = "get"
"""The stream id of the GET stream (server-initiated messages)."""
DEFAULT_EVENTS_KEPT: Final = 1000


class _Kind(msgspec.Struct):
    """Enough of an outgoing frame to route it: a response has an id and no method."""

    id: Any = None
    method: Any = None


_KIND = msgspec.json.Decoder(_Kind | list[_Kind])


def response_ids(frame: bytes) -> list[RequestId]:
    """Return the request ids a response frame (or batch response) answers; [] otherwise."""
    kind = _KIND.decode(frame)
    kinds = kind if isinstance(kind, list) else [kind]
    return [k.id for k in kinds if k.method is None and isinstance(k.id, str | int)]


class EventStore(Protocol):
    """Where events are kept for replay; an in-memory default is ``MemoryEventStore``."""

    async def store(self, session: str, stream: str, data: bytes) -> str:
        """Keep one event of a stream and return its id (unique within the session)."""
        ...

    async def replay(
        self, session: str, last_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """Return the stream of event ``last_id`` and its later events, or None if unknown."""
        ...

    async def forget(self, session: str) -> None:
        """Drop every event of a session (it ended)."""
        ...


class MemoryEventStore:
    """Keeps the latest ``limit`` events of each session in memory."""

    def __init__(self, limit: int = DEFAULT_EVENTS_KEPT) -> None:
        self.limit = limit
        self._events: dict[str, deque[tuple[int, str, bytes]]] = {}
        self._counter = itertools.count(1)

    async def store(self, session: str, stream: str, data: bytes) -> str:
        """Keep one event; the oldest of the session is dropped beyond ``limit``."""
        number = next(self._counter)
        self._events.setdefault(session, deque(maxlen=self.limit)).append((number, stream, data))
        return str(number)

    async def replay(
        self, session: str, last_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """Return the stream of ``last_id`` and the events of that stream after it."""
        events = self._events.get(session, deque())
        if not last_id.isdigit():
            return None
        last = int(last_id)
        stream = next((s for n, s, _ in events if n == last), None)
        if stream is None:
            return None
        return stream, [(str(n), d) for n, s, d in events if n > last and s == stream]

    async def forget(self, session: str) -> None:
        """Drop the session's events."""
        self._events.pop(session, None)


@dataclass
class Stream:
    """One SSE stream (a POST's, or the GET stream): events queue here until sent."""

    id: str
    waiting_for: set[RequestId] = field(default_factory=set)
    queue: asyncio.Queue[tuple[str, bytes] | None] = field(default_factory=asyncio.Queue)
    attached: bool = False
    done: bool = False


class SessionTransport:
    """The ``Transport`` of one HTTP session's ServerConnection."""

    def __init__(self, session: HttpSession) -> None:
        self._session = session
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def read(self) -> bytes | None:
        """Return the next POSTed frame; None once the session ended."""
        frame = await self.inbox.get()
        if frame is None:
            self.inbox.put_nowait(None)
        return frame

    async def write(self, frame: bytes, related: RelatedId = None) -> None:
        """Route one outgoing frame to its stream."""
        if self._session.ended:
            raise ConnectionClosed("the HTTP session ended")
        await self._session.route(frame, related)

    async def close(self) -> None:
        """End the session's input."""
        self.inbox.put_nowait(None)


class HttpSession:
    """One MCP session over HTTP: a ServerConnection plus its streams."""

    def __init__(
        self,
        servers: list[ServerBase],
        store: EventStore,
        *,
        legacy: bool = False,
        json: bool = False,
    ) -> None:
        self.id = secrets.token_urlsafe(24)
        self.store = store
        self.legacy = legacy
        self.json = json
        """JSON responses: a POST's body holds only responses; other messages use the GET stream."""
        self.transport = SessionTransport(self)
        self.connection = ServerConnection(servers, self.transport)
        self.streams: dict[str, Stream] = {STANDALONE: Stream(STANDALONE)}
        self.by_request: dict[RequestId, Stream] = {}
        self.ended = False
        self._last_active = time.monotonic()
        self._counter = itertools.count(1)
        self.task = asyncio.create_task(self.connection.run())

    @property
    def standalone(self) -> Stream:
        """The GET stream (for the legacy transport: the one SSE stream)."""
        return self.streams[STANDALONE]

    def touch(self) -> None:
        """Note that the client used the session just now."""
        self._last_active = time.monotonic()

    def idle_for(self) -> float:
        """Seconds since the client last used the session (0 while a stream is open)."""
        if any(stream.attached for stream in self.streams.values()):
            return 0.0
        return time.monotonic() - self._last_active

    def open_stream(self, request_ids: list[RequestId]) -> Stream:
        """Register the stream of a POST whose requests have ``request_ids``."""
        stream = Stream(f"post-{next(self._counter)}", set(request_ids), attached=True)
        self.streams[stream.id] = stream
        for rid in request_ids:
            self.by_request[rid] = stream
        return stream

    async def route(self, frame: bytes, related: RelatedId) -> None:
        """Send a frame to the stream it belongs to; keep it in the store for replay."""
        if self.legacy:
            await self._deliver(self.standalone, frame)
            return
        ids = response_ids(frame)
        if ids:
            stream = self.by_request.get(ids[0])
            if stream is not None:
                await self._deliver(stream, frame)
                for rid in ids:
                    self.by_request.pop(rid, None)
                    stream.waiting_for.discard(rid)
                if not stream.waiting_for:
                    self._finish(stream)
                return
        stream = self.by_request.get(related) if related is not None and not self.json else None
        await self._deliver(stream or self.standalone, frame)

    async def _deliver(self, stream: Stream, frame: bytes) -> None:
        event_id = await self.store.store(self.id, stream.id, frame)
        stream.queue.put_nowait((event_id, frame))

    def _finish(self, stream: Stream) -> None:
        stream.done = True
        stream.queue.put_nowait(None)
        if stream.id != STANDALONE:
            self.streams.pop(stream.id, None)

    async def feed(self, body: bytes) -> None:
        """Hand a POSTed body (one frame: a message or a batch) to the connection."""
        await self.transport.inbox.put(body)

    async def end(self) -> None:
        """End the session: stop the connection, close every stream, forget its events."""
        if self.ended:
            return
        self.ended = True
        for stream in list(self.streams.values()):
            if not stream.done:
                self._finish(stream)
        await self.transport.close()
        try:
            await asyncio.wait_for(self.task, 2.0)
        except (TimeoutError, asyncio.CancelledError, Exception):  # best effort: it is ending
            self.task.cancel()
        await self.store.forget(self.id)
