"""One MCP session over HTTP: its connection, and how what it writes is routed to its streams
(``stream.py``) and kept for resumption (``event_store.py``).

A session is one ``ServerConnection`` whose transport is ``SessionTransport``: a POSTed body,
parsed once, is pushed to the connection (``feed``), and every message the server writes is
routed to one stream by its ids (no decoding): a response to the stream of the POST that
carried its request; a handler's progress,
log messages and requests to that handler's request's stream; anything else to the GET
stream (kept in the event store until one is open). Each event gets an id unique within the
session, which is what ``Last-Event-ID`` resumes from. A POST answered with one JSON body
(JSON mode) has no stream of events: its handler's other messages go to the GET stream.

A handler may end the connection of its request's SSE stream without ending the stream
(``hang_up``, SSE polling): the client is sent a ``retry`` delay, reconnects with GET and
``Last-Event-ID``, and gets what was sent meanwhile, then the rest of the stream.

Bounds (bytes, not counts) are the stream's and the event store's. A response whose request's
stream is gone is dropped: the GET stream never carries responses. ``EventStore``,
``MemoryEventStore``, ``Stream`` and ``HangUp`` are also importable from here, where they were
defined before.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any, Final

from ...backends.base import MemoryDirectory, SessionDirectory
from ...core.events import Cancelled, RequestId
from ...core.frame_guard import DEFAULT_MAX_DEPTH
from ...core.transport import ConnectionClosed, RelatedId
from ...core.wire import Inbound, Outbound
from ...roles.handshake import DEFAULT_LOG_LEVEL
from ...roles.peer_writes import CURRENT_REQUEST
from ...roles.server import ServerBase, ServerConnection
from .event_store import EventStore as EventStore
from .event_store import MemoryEventStore as MemoryEventStore
from .stream import DEFAULT_STALL_TIMEOUT_S, DEFAULT_STREAM_BYTES, Stream
from .stream import HangUp as HangUp

STANDALONE: Final = "get"
"""The stream id of the GET stream (server-initiated messages)."""
DEFAULT_SSE_RETRY_MS: Final = 1000
"""The reconnection delay (SSE ``retry``) sent in priming events and when a stream hangs up."""


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

    def write_now(self, message: Outbound | bytes) -> Coroutine[Any, Any, None] | None:
        """Route one outgoing message by plain calls (``WritesNow``), on the stream of the
        request whose handler writes it: None, or what to await before the next write (a
        full stream, an event store that waits)."""
        if self._session.ended:
            raise ConnectionClosed("the HTTP session ended")
        if isinstance(message, bytes):
            message = Outbound.of(message)
        return self._session.route_now(message, CURRENT_REQUEST.get())

    def negotiated(self, version: str) -> None:
        """Keep the negotiated version: later requests' ``MCP-Protocol-Version`` must match it."""
        self._session.protocol_version = version

    async def close_stream(self, related: RelatedId, retry_ms: int | None) -> bool:
        """End the connection of request ``related``'s SSE stream for the client to resume."""
        return related is not None and await self._session.hang_up(related, retry_ms)

    async def close(self) -> None:
        """Nothing to close: the HTTP session ends its streams itself."""


_ONE_POST: Final = f"post-{secrets.token_urlsafe(12)}-"
_POSTS = itertools.count(1)


class HttpSession:
    """One MCP session over HTTP: a ServerConnection plus its streams."""

    def __init__(
        self,
        servers: list[ServerBase],
        store: EventStore,
        *,
        http_sse: bool = False,
        resumable: bool = True,
        retry_ms: int | None = DEFAULT_SSE_RETRY_MS,
        max_stream_bytes: int = DEFAULT_STREAM_BYTES,
        stall_timeout: float = DEFAULT_STALL_TIMEOUT_S,
        max_depth: int = DEFAULT_MAX_DEPTH,
        directory: SessionDirectory | None = None,
    ) -> None:
        self.id = secrets.token_urlsafe(24) if resumable else f"{_ONE_POST}{next(_POSTS)}"
        """Unguessable for a session the client names; a POST without a session (never named
        to the client) gets this process's random prefix and a count, unique all the same."""
        self.directory: SessionDirectory = directory or MemoryDirectory()
        """Where the session is owned: released from it when the session ends."""
        self.max_stream_bytes = max_stream_bytes
        """Bytes each SSE stream of the session may queue unsent (see ``Stream``)."""
        self.stall_timeout = stall_timeout
        """Seconds a producer waits for a client that reads nothing before cutting its stream."""
        self.store = store
        self._keep_now: Callable[[str, str, bytes], str] | None = (
            store.keep
            if isinstance(store, MemoryEventStore) and type(store).store is MemoryEventStore.store
            else None
        )
        """The store's ``keep`` where it keeps an event by a plain call (the memory store
        not overridden), so that a write that fits its stream needs no coroutine."""
        self.http_sse = http_sse
        self.resumable = resumable
        """Whether a client may come back for a stream (not in stateless mode: no GET)."""
        self.retry_ms = retry_ms
        """The reconnection delay the app sends (``HttpOptions.sse_retry_ms``)."""
        self.protocol_version = ""
        """The negotiated protocol version ("" until initialize; told by the connection)."""
        self.transport = SessionTransport(self)
        self.connection = ServerConnection(servers, self.transport, max_depth)
        self.streams: dict[str, Stream] = {}
        """The open streams by id; the GET stream is made when first used (``standalone``)."""
        self.by_request: dict[RequestId, Stream] = {}
        self.ended = False
        self.proven = False
        """Whether the client made a request after its ``initialize`` (see ``eviction``)."""
        self._last_active = time.monotonic()
        self._counter = itertools.count(1)
        self._kept_events = False
        """Whether an event of the session went to the store (to be forgotten at the end)."""

    @property
    def standalone(self) -> Stream:
        """The GET stream (for the HTTP+SSE transport: the one SSE stream)."""
        stream = self.streams.get(STANDALONE)
        if stream is None:
            stream = self.streams[STANDALONE] = self._new_stream(STANDALONE)
        return stream

    def serves_again(self) -> bool:
        """Whether the connection of a no-session POST may serve the next POST: nothing of
        the last one is under way or kept (no stream, handler, pending request, task runner,
        stored event). Its log level goes back to the default."""
        connection = self.connection
        if (
            self.ended
            or self.resumable
            or self.streams
            or self.by_request
            or self._kept_events
            or connection.tasks is not None
            or not connection.peer.idle
        ):
            return False
        connection.log_level = DEFAULT_LOG_LEVEL
        return True

    def touch(self) -> None:
        """Note that the client used the session just now (a request after its initialize)."""
        self._last_active = time.monotonic()
        self.proven = True

    def idle_for(self) -> float:
        """Seconds since the client last used the session (0 while a stream is open)."""
        if any(stream.attached for stream in self.streams.values()):
            return 0.0
        return time.monotonic() - self._last_active

    def _new_stream(
        self,
        id_: str,
        request_ids: list[RequestId] | None = None,
        attached: bool = False,
        json: bool = False,
    ) -> Stream:
        return Stream(
            id_,
            set(request_ids or ()),
            attached=attached,
            max_bytes=self.max_stream_bytes,
            stall_timeout=self.stall_timeout,
            json=json,
        )

    def open_stream(self, request_ids: list[RequestId], json: bool = False) -> Stream:
        """Register the stream of a POST whose requests have ``request_ids`` (``json``: its
        answers go into one JSON body)."""
        stream = Stream(
            f"post-{next(self._counter)}",
            set(request_ids),
            attached=True,
            max_bytes=self.max_stream_bytes,
            stall_timeout=self.stall_timeout,
            json=json,
        )
        self.streams[stream.id] = stream
        for rid in request_ids:
            self.by_request[rid] = stream
        return stream

    async def route(self, message: Outbound, related: RelatedId) -> None:
        """Send a message to the stream it belongs to; keep it in the store for replay."""
        rest = self.route_now(message, related)
        if rest is not None:
            await rest

    def route_now(self, message: Outbound, related: RelatedId) -> Coroutine[Any, Any, None] | None:
        """``route`` by plain calls where nothing waits: None, or what to await for the rest
        (a full stream, an event store that waits)."""
        frame = message.data
        if self.http_sse:
            return self._deliver(self.standalone, frame)
        ids = message.ids if message.kind == "response" else ()
        if ids:
            stream = self.by_request.get(ids[0])
            if stream is not None:
                rest = self._deliver(stream, frame)
                if rest is not None:
                    return self._answered_after(rest, stream, ids)
                self._answered(stream, ids)
                return None
        if message.kind == "response":
            return None  # its request's stream is gone: a response never goes on the GET stream
        stream = self.by_request.get(related) if related is not None else None
        if stream is None or stream.json:
            stream = self.standalone
        return self._deliver(stream, frame)

    def _answered(self, stream: Stream, ids: tuple[RequestId, ...]) -> None:
        """The answers to ``ids`` are on ``stream``: it ends once it waits for no other."""
        for rid in ids:
            self.by_request.pop(rid, None)
            stream.waiting_for.discard(rid)
        if not stream.waiting_for:
            self._finish(stream)

    async def _answered_after(
        self, rest: Coroutine[Any, Any, None], stream: Stream, ids: tuple[RequestId, ...]
    ) -> None:
        await rest
        self._answered(stream, ids)

    def _deliver(self, stream: Stream, frame: bytes) -> Coroutine[Any, Any, None] | None:
        """Queue a frame on a stream, kept for replay unless it goes into a JSON body: by
        plain calls when it fits and the store keeps it at once, else what to await."""
        if stream.json or not (self.resumable or self.http_sse):
            # A JSON answer is no event, and a POST without a session has no GET to resume
            # on: nothing is kept, and its events go out without an id.
            return None if stream.put_now("", frame) else stream.put("", frame)
        self._kept_events = True
        keep = self._keep_now
        if keep is None:
            return self._stored(stream, frame)
        event_id = keep(self.id, stream.id, frame)
        return None if stream.put_now(event_id, frame) else stream.put(event_id, frame)

    async def _stored(self, stream: Stream, frame: bytes) -> None:
        """Keep a frame in a store that waits, then queue it."""
        event_id = await self.store.store(self.id, stream.id, frame)
        if not stream.put_now(event_id, frame):
            await stream.put(event_id, frame)

    async def hang_up(self, request_id: RequestId, retry_ms: int | None) -> bool:
        """End the connection reading request ``request_id``'s SSE stream, after a ``retry``
        event (``retry_ms``, else the app's delay); the stream and its events stay for a GET
        with ``Last-Event-ID``. False where no client can resume: no such stream, a JSON
        body, no GET (stateless, HTTP+SSE), or a revision before SSE polling."""
        stream = self.by_request.get(request_id)
        if (
            stream is None
            or stream.json
            or stream.done
            or self.http_sse
            or not self.resumable
            or not self.connection.server.FACTS.sse_priming
        ):
            return False
        self._kept_events = True
        event_id = await self.store.store(self.id, stream.id, b"")
        delay = retry_ms if retry_ms is not None else self.retry_ms
        stream.hang_up(event_id, DEFAULT_SSE_RETRY_MS if delay is None else delay)
        return True

    def _finish(self, stream: Stream) -> None:
        stream.close()
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
        peer = self.connection.peer
        for event in await peer.feed(inbound):
            if isinstance(event, Cancelled):
                self._drop(event.request_id)
        if peer.flush_due:  # handlers that answered at once flushed their answers
            await peer.flush()

    def _drop(self, request_id: RequestId) -> None:
        """Stop waiting for the answer to a cancelled request."""
        stream = self.by_request.pop(request_id, None)
        if stream is not None:
            stream.waiting_for.discard(request_id)
            if not stream.waiting_for and not stream.done:
                self._finish(stream)

    async def end(self, forget: bool = True) -> None:
        """End the session: stop the connection, close every stream, then ``forget`` it
        (unless not ``forget``: the caller forgets it later).

        A backend that cannot forget it now raises ``BackendUnavailable`` once the session is
        ended here: call ``forget`` again later."""
        if self.ended:
            return
        self.ended = True
        for stream in list(self.streams.values()):
            if not stream.done:
                self._finish(stream)
        await self.connection.peer.close()  # handlers still running are cancelled
        if forget:
            await self.forget()

    async def forget(self) -> None:
        """Drop what the ended session left in the shared state: its events, and its entry in
        the session directory (raises ``BackendUnavailable`` when the backend is away)."""
        if self.resumable or self._kept_events:
            await self.store.forget(self.id)
        if self.resumable:  # a POST without a session was never claimed
            await self.directory.release(self.id)
