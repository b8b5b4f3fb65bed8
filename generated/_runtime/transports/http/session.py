# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The server-side state of MCP over HTTP: sessions, their streams, and the event store.

A session is one ``ServerConnection`` whose transport is ``SessionTransport``: a POSTed body,
parsed once, is pushed to the connection (``feed``), and every message the server writes is
routed to one stream by its ids (no decoding): a response to the stream of the POST that
carried its request; a handler's progress,
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
from typing import Final, Protocol

from ...core.events import Cancelled, RequestId
from ...core.wire import Inbound, Outbound
from ...roles.server import ServerBase, ServerConnection
from ..base import ConnectionClosed, RelatedId

STANDALONE: Final = "get"
"""The stream id of the GET stream (server-initiated messages)."""
DEFAULT_EVENTS_KEPT: Final = 1000


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
    waiting_for: set[RequestId] = field(default_factory=set[RequestId])
    queue: asyncio.Queue[tuple[str, bytes] | None] = field(
        default_factory=asyncio.Queue[tuple[str, bytes] | None]
    )
    attached: bool = False
    done: bool = False


class SessionTransport:
    """The ``Transport`` of one HTTP session's ServerConnection: it writes, it is not read.

    POSTed bodies are pushed to the connection (``HttpSession.feed``); nothing reads them here.
    """

    def __init__(self, session: HttpSession) -> None:
        self._session = session

    async def read(self) -> Inbound | None:
        """Nothing to read: the session pushes what is POSTed."""
        return None

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Route one outgoing message to its stream."""
        if self._session.ended:
            raise ConnectionClosed("the HTTP session ended")
        await self._session.route(message, related)

    def negotiated(self, version: str) -> None:
        """Keep the negotiated version: later requests' ``MCP-Protocol-Version`` must match it."""
        self._session.protocol_version = version

    async def close(self) -> None:
        """Nothing to close: the HTTP session ends its streams itself."""


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
        self.protocol_version = ""
        """The negotiated protocol version ("" until initialize; told by the connection)."""
        self.transport = SessionTransport(self)
        self.connection = ServerConnection(servers, self.transport)
        self.streams: dict[str, Stream] = {STANDALONE: Stream(STANDALONE)}
        self.by_request: dict[RequestId, Stream] = {}
        self.ended = False
        self._last_active = time.monotonic()
        self._counter = itertools.count(1)

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

    async def route(self, message: Outbound, related: RelatedId) -> None:
        """Send a message to the stream it belongs to; keep it in the store for replay."""
        frame = message.data
        if self.legacy:
            await self._deliver(self.standalone, frame)
            return
        ids = message.ids if message.kind == "response" else ()
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
        """Queue a frame on a stream; kept for replay unless it goes into a JSON body."""
        if self.json and stream.id != STANDALONE:
            stream.queue.put_nowait(("", frame))  # a JSON answer is no event: nothing to resume
            return
        event_id = await self.store.store(self.id, stream.id, frame)
        stream.queue.put_nowait((event_id, frame))

    def _finish(self, stream: Stream) -> None:
        stream.done = True
        stream.queue.put_nowait(None)
        if stream.id != STANDALONE:
            self.streams.pop(stream.id, None)

    def parse(self, body: bytes) -> Inbound:
        """Parse a POSTed body once, as the connection's session will take it."""
        return self.connection.peer.session.parse(body)

    @property
    def batches(self) -> bool:
        """Whether the negotiated revision takes JSON-RPC batches."""
        return self.connection.peer.session.batch

    async def feed(self, inbound: Inbound) -> None:
        """Hand a POSTed body, parsed, to the connection, then send what it answers at once.

        Open the POST's stream first (``open_stream``): answers are routed as they are written.
        A request the client cancels gets no answer, so its stream stops waiting for one.
        """
        for event in await self.connection.peer.feed(inbound):
            if isinstance(event, Cancelled):
                self._drop(event.request_id)
        await self.connection.peer.flush()

    def _drop(self, request_id: RequestId) -> None:
        """Stop waiting for the answer to a cancelled request."""
        stream = self.by_request.pop(request_id, None)
        if stream is not None:
            stream.waiting_for.discard(request_id)
            if not stream.waiting_for and not stream.done:
                self._finish(stream)

    async def end(self) -> None:
        """End the session: stop the connection, close every stream, forget its events."""
        if self.ended:
            return
        self.ended = True
        for stream in list(self.streams.values()):
            if not stream.done:
                self._finish(stream)
        await self.connection.peer.close()  # handlers still running are cancelled
        await self.store.forget(self.id)
