# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""MCP over HTTP, server side: an ASGI app for Streamable HTTP and 2024-11-05's HTTP+SSE transport.

``McpHttpApp(servers)`` is a plain ASGI application: mount it in Starlette or FastAPI, or
serve it with ``serve_http`` (uvicorn). The MCP endpoint (``/mcp``) takes POST (messages),
GET (the server's own SSE stream, resumable with ``Last-Event-ID``) and DELETE (end the
session); ``/sse`` and ``/messages`` are the 2024-11-05 transport. Host and Origin headers are
checked against allow-lists (DNS rebinding), bodies are size-limited, and an optional
``authenticate`` hook answers 401 with ``WWW-Authenticate``.

A body is checked whole (UTF-8, nesting, JSON-RPC shape) before it reaches a session: a bad
one gets 400 with a JSON-RPC error and never ends the session. Memory is bounded in bytes per
stream and in the event store, and live sessions are capped; the defaults are on
``HttpOptions``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import socket
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import InitVar, dataclass, field
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import msgspec

from ...backends.base import (
    FORWARDED,
    Backend,
    BackendUnavailable,
    MemoryBackend,
    share_task_store,
)
from ...core.errors import MissingDependency
from ...core.events import RequestId
from ...core.frame_guard import DEFAULT_MAX_DEPTH, frame_problem, shape_problem
from ...core.reader import reader_for
from ...core.sealed import refuse_random_key
from ...core.wire import Inbound, Malformed, as_id, asks_progress, parse
from ...roles.era import faces
from ...roles.server import ServerBase
from ...roles.subscriptions import share_bus
from .asgi import Receive, Scope, Send
from .ending import SessionEnder
from .eviction import EVICT_IDLE_S, EVICT_UNPROVEN_S, choose_eviction
from .session import (
    DEFAULT_SSE_RETRY_MS,
    DEFAULT_STALL_TIMEOUT_S,
    DEFAULT_STREAM_BYTES,
    EventStore,
    HangUp,
    HttpSession,
    MemoryEventStore,
    Stream,
)
from .stateless import ToolHeaders, serve_stateless_post, wants_stateless

logger = logging.getLogger(__name__)
"""The HTTP app's log: where the runner listens."""

Authenticate = Callable[[Mapping[str, str]], Awaitable[bool]]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_BOTH: Final = "application/json and text/event-stream"
DEFAULT_MAX_SESSIONS = 1000
"""Live sessions (Streamable HTTP and HTTP+SSE) one app keeps at most."""
IDLE_POST_CONNECTIONS: Final = 16
"""Connections of the no-session mode kept, per revision, for the next POST to reuse."""


@dataclass
class HttpOptions:
    """How the HTTP app behaves; the defaults suit a local server."""

    path: str = "/mcp"
    sse_path: str = "/sse"
    messages_path: str = "/messages"
    json_response: bool = False
    """Answer POSTed requests with one JSON body instead of an SSE stream, except a request
    asking for progress (``_meta.progressToken``) from a client that accepts SSE: its
    progress and other messages come on its own SSE stream, before its answer."""
    stateless: bool = False
    """No sessions: every POST stands alone (no GET stream, no server-to-client requests)."""
    http_sse: bool = True
    """Also offer 2024-11-05's HTTP+SSE endpoints (GET ``sse_path``, POST ``messages_path``)."""
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    """Host names accepted in the Host header (any port); ``*`` accepts all."""
    allowed_origins: tuple[str, ...] = LOCAL_HOSTS
    """Host names accepted in an Origin header (any scheme and port); ``*`` accepts all."""
    max_body: int = 4 * 1024 * 1024
    """Largest POST body accepted, in bytes (413 beyond)."""
    max_depth: int = DEFAULT_MAX_DEPTH
    """Deepest nesting of arrays and objects accepted in a body (128; deeper: 400, -32600)."""
    authenticate: Authenticate | None = None
    """Called with the request headers (lower-case names); False -> 401."""
    resource_metadata: str | None = None
    """The protected-resource metadata URL named in ``WWW-Authenticate`` on 401."""
    event_store: EventStore = field(default_factory=MemoryEventStore)
    """Events kept for ``Last-Event-ID``; the default keeps 4 MiB per session, 64 MiB in all."""
    session_idle_timeout: float | None = 3600.0
    """Seconds after which a session with no request and no open stream is ended (None: never)."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Live sessions kept at most (1000). When full, one is ended to make room for a new one
    (the two fields below), or else the new one is refused with 503 and Retry-After."""
    evict_unproven_after: float = EVICT_UNPROVEN_S
    """Seconds after which a session with no request after its initialize may make room (5),
    oldest first; these go before any other."""
    evict_idle_after: float = EVICT_IDLE_S
    """Seconds of no request and no open stream after which a session may make room (60),
    longest idle first. A session with an open stream never does."""
    max_stream_bytes: int = DEFAULT_STREAM_BYTES
    """Bytes of events one SSE stream may hold unsent (4 MiB); then its producer waits."""
    sse_retry_ms: int | None = DEFAULT_SSE_RETRY_MS
    """The reconnection delay sent (SSE ``retry``) in priming events (1000 ms; None: clients
    choose) and, unless the handler names one, when a handler closes its SSE stream."""
    stream_stall_timeout: float = DEFAULT_STALL_TIMEOUT_S
    """Seconds a producer waits for a client that reads nothing before its stream is cut (30)."""
    backend: Backend = field(default_factory=MemoryBackend)
    """Where sessions are owned and looked up: this process (the default) or shared by several
    workers (``RedisBackend``), which forward a request to the worker owning its session."""
    legacy_sse: InitVar[bool | None] = None
    """The former name of ``http_sse``, still taken (with a ``DeprecationWarning``)."""

    def __post_init__(self, legacy_sse: bool | None) -> None:
        """Take the deprecated ``legacy_sse=`` as ``http_sse``."""
        if legacy_sse is not None:
            warnings.warn(
                "HttpOptions(legacy_sse=...) is deprecated: use http_sse=...",
                DeprecationWarning,
                stacklevel=3,
            )
            self.http_sse = legacy_sse


class _Reject(Exception):
    """An HTTP error answer, with an optional JSON-RPC error body."""

    def __init__(
        self,
        status: int,
        message: str,
        headers: list[tuple[bytes, bytes]] | None = None,
        code: int = -32600,
        id_: str | int | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []
        self.code = code
        self.id = id_


def _error_body(message: str, code: int = -32600, id_: str | int | None = None) -> bytes:
    body = {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
    return msgspec.json.encode(body)


def frame_refusal(body: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> bytes | None:
    """The JSON-RPC error the MCP endpoint answers (400) to a POST body the frame guard refuses
    (broken UTF-8: -32700, nesting past ``max_depth``: -32600), or None if the guard passes it.

    ``ProtectedMcpApp`` answers with it too when it reads a body's methods before the app does.
    """
    problem = frame_problem(body, max_depth)
    return None if problem is None else _error_body(problem.message, problem.code)


def _refuse_bad(inbound: Inbound) -> tuple[list[RequestId], bool]:
    """Refuse a body the server cannot accept, whole: 400 with the JSON-RPC error it deserves;
    else return the ids of its requests (answers owed) and whether one is ``initialize``.

    Then nothing of it reaches a session, whose error answers would have no stream to go on.
    A frame the guard refuses (broken UTF-8, too deep) is parsed as ``Malformed`` with its error.
    One pass over the messages gives what routing needs (``Inbound.request_ids``, the methods).
    """
    if not inbound.messages:
        raise _Reject(400, "Invalid Request: expected a JSON-RPC message")
    requests: list[RequestId] = []
    initialize = False
    for message in inbound.messages:
        if isinstance(message, Malformed):
            raise _Reject(400, message.error.message, code=message.error.code, id_=message.id)
        shape = shape_problem(message)
        if shape is not None:
            raise _Reject(400, f"Invalid Request: {shape}", id_=as_id(message.id))
        if isinstance(message.method, str):
            initialize = initialize or message.method == "initialize"
            if (request_id := as_id(message.id)) is not None:
                requests.append(request_id)
    return requests, initialize


class _Allowed:
    """The values of one header (Host or Origin) already found allowed, so that a request
    repeating one (every request of a client does) is let through by one lookup instead of
    parsing it again.

    Only values that passed are kept, at most ``KEPT``, and only for the allow-list they
    passed against (an options object given a new list starts afresh); a value not kept is
    checked in full, as every value was before.
    """

    KEPT: Final = 64

    def __init__(self) -> None:
        self._kept: set[str] = set()
        self._against: tuple[str, ...] = ()

    def allows(self, value: str, allowed: tuple[str, ...]) -> bool:
        """Whether ``value`` names an allowed host (any scheme and port)."""
        if allowed is not self._against:
            self._kept, self._against = set(), allowed
        elif value in self._kept:
            return True
        if "*" not in allowed and _host_name(value) not in allowed:
            return False
        if len(self._kept) < self.KEPT:
            self._kept.add(value)
        return True


def _host_name(value: str) -> str:
    """Return the host name of a ``Host`` header or of an origin URL, without the port."""
    netloc = urlsplit(value).netloc if "://" in value else value
    if netloc.startswith("["):
        return netloc[: netloc.index("]") + 1]
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


class McpHttpApp:
    """The ASGI application serving MCP over HTTP for one or more protocol revisions."""

    def __init__(self, servers: ServerBase | list[ServerBase], options: HttpOptions | None = None):
        every = servers if isinstance(servers, list) else [servers]
        self.options = options or HttpOptions()
        share_task_store(every, self.options.backend.task_store)
        self.stateless, self.servers = faces(every)
        self.sessions: dict[str, HttpSession] = {}
        self.versions = frozenset(s.FACTS.version for s in self.servers)
        self.tool_headers = None if self.stateless is None else ToolHeaders(self.stateless)
        self._sweeper: asyncio.Task[None] | None = None
        self._ending: set[asyncio.Task[None]] = set()
        self._ender = SessionEnder()
        """Ends sessions; what a backend away keeps from being forgotten is retried later."""
        self._hosts, self._origins = _Allowed(), _Allowed()
        self._idle: dict[str, list[HttpSession]] = {}
        """No-session connections whose one request was answered, by revision (``_done_with``)."""

    def _register(self, session: HttpSession) -> None:
        """Keep a new session, and make sure idle ones get ended."""
        self.sessions[session.id] = session
        timeout = self.options.session_idle_timeout
        if timeout is not None and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = asyncio.create_task(self._sweep(timeout))

    async def _sweep(self, timeout: float) -> None:
        """End sessions idle for ``timeout`` seconds (clients that vanished without DELETE) and
        keep the others in the session directory; a backend away stops neither."""
        while self.sessions:
            await asyncio.sleep(min(timeout / 2, 30.0))
            for session in list(self.sessions.values()):
                if session.idle_for() > timeout:
                    self.sessions.pop(session.id, None)
                    await self._ender.end(session)
            try:
                await self.options.backend.directory.touch(list(self.sessions))
            except BackendUnavailable as exc:  # renewed at the next sweep, before they expire
                logger.warning("cannot renew the sessions in the directory: %s", exc)

    async def _make_room(self) -> None:
        """Before a new session: at ``max_sessions``, end one that may make room or refuse (503).

        The policy (unproven sessions first, active ones never) is ``eviction``'s.
        """
        opts = self.options
        if len(self.sessions) < opts.max_sessions:
            return
        victim, wait = choose_eviction(
            self.sessions.values(), opts.evict_unproven_after, opts.evict_idle_after
        )
        if victim is None:
            message = f"Service Unavailable: {opts.max_sessions} sessions are live (the limit)"
            retry = [(b"retry-after", str(wait).encode())]
            raise _Reject(503, f"{message}; retry in {wait} s", retry, code=-32000)
        self.sessions.pop(victim.id, None)
        await self._ender.end(victim)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI request (lifespan events are accepted and ignored)."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:  # a plain loop: no comprehension frame per request
            headers[name.decode("latin-1").lower()] = value.decode("latin-1")
        try:
            try:
                self._check_host(headers)
                if self.options.authenticate is not None:
                    await self._authenticate(headers, self.options.authenticate)
                await self._route(scope, headers, receive, send)
            except BackendUnavailable as exc:
                raise _Reject(503, f"Service Unavailable: {exc}", [(b"retry-after", b"1")]) from exc
        except _Reject as exc:
            await _respond(
                send, exc.status, _error_body(exc.message, exc.code, exc.id), exc.headers
            )

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.start()
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def start(self) -> None:
        """Start the backend: from now on requests forwarded by other workers are served.

        With a backend shared by other workers, the requestState key must be shared too."""
        backend = self.options.backend
        engine = self.stateless
        if backend.shared and engine is not None:
            refuse_random_key([engine.sealer])
        if backend.bus is not None and engine is not None:
            share_bus(engine, backend.bus)
        if backend.bus is not None and self.tool_headers is not None:
            self.tool_headers.listen(backend.bus)
        await backend.start(self, self._end_all)

    async def stop(self) -> None:
        """End every session, then stop the backend."""
        await self._end_all()
        await self._ender.close()
        await self.options.backend.stop()

    async def end_sessions(self) -> None:
        """End every session of this worker: their streams close (a graceful stop)."""
        await self._end_all()

    async def _end_all(self) -> None:
        """End every session of this worker (shutting down, or its lease lapsed): each one,
        even when the backend cannot forget some of them now (``SessionEnder``)."""
        for session in list(self.sessions.values()):
            self.sessions.pop(session.id, None)
            await self._ender.end(session)
        idle = [session for kept in self._idle.values() for session in kept]
        self._idle.clear()
        for session in idle:
            await self._ender.end(session)

    async def _forwarded(
        self, scope: Scope, headers: dict[str, str], receive: Receive, send: Send
    ) -> bool:
        """Forward a request for a session another worker owns to it, and relay the answer
        (only with a backend shared by several workers, and sessions).

        True when forwarded; a session whose owner is gone is forgotten and answered 404.
        A worker whose own lease lapsed first ends the sessions it held (they are gone).
        """
        backend, session_id = self.options.backend, headers.get("mcp-session-id")
        if not backend.directory.lease_held():  # no I/O: only after a stall or Redis away
            await backend.hold_lease()
        if session_id is None or session_id in self.sessions or scope.get(FORWARDED):
            return False
        owner = await backend.directory.owner(session_id)
        if owner is None or owner == backend.directory.worker:
            return False
        body = (
            await _read_body(receive, self.options.max_body) if scope["method"] == "POST" else b""
        )
        local = {**scope, "path": _local_path(scope, self.options)}
        if await backend.router.forward(owner, local, body, receive, send):
            return True
        await backend.directory.release(session_id)
        raise _Reject(404, "Session not found (its worker is gone)")

    def _check_host(self, headers: dict[str, str]) -> None:
        """Host/Origin validation against DNS rebinding (every request, before anything)."""
        opts = self.options
        raw_host = headers.get("host", "")
        if not self._hosts.allows(raw_host, opts.allowed_hosts):
            raise _Reject(421, f"Host {_host_name(raw_host)!r} is not allowed")
        origin = headers.get("origin")
        if origin is not None and not self._origins.allows(origin, opts.allowed_origins):
            raise _Reject(403, f"Origin {origin!r} is not allowed")

    async def _authenticate(self, headers: dict[str, str], authenticate: Authenticate) -> None:
        """The authentication hook, after the Host/Origin checks: False -> 401."""
        if not await authenticate(headers):
            challenge = 'Bearer error="invalid_token"'
            if self.options.resource_metadata:
                challenge += f', resource_metadata="{self.options.resource_metadata}"'
            raise _Reject(401, "Unauthorized", [(b"www-authenticate", challenge.encode())])

    async def _route(
        self, scope: Scope, headers: dict[str, str], receive: Receive, send: Send
    ) -> None:
        path, method, opts = _local_path(scope, self.options), scope["method"], self.options
        if path == opts.path.rstrip("/"):
            shared = opts.backend.shared and not opts.stateless
            if shared and await self._forwarded(scope, headers, receive, send):
                return
            if method == "POST":
                await self._post(headers, receive, send)
            elif self._is_stateless(headers, b""):
                raise _Reject(405, f"Method {method} not allowed (stateless: POST only)")
            elif method == "GET":
                await self._get(headers, receive, send)
            elif method == "DELETE":
                await self._delete(headers, send)
            else:
                raise _Reject(405, f"Method {method} not allowed")
        elif opts.http_sse and path == opts.sse_path.rstrip("/") and method == "GET":
            await self._http_sse_stream(scope.get("root_path", "").rstrip("/"), receive, send)
        elif opts.http_sse and path == opts.messages_path.rstrip("/") and method == "POST":
            await self._http_sse_post(scope, receive, send)
        else:
            raise _Reject(404, "Not found")

    # -- Streamable HTTP ------------------------------------------------------------------

    def _known(self, headers: dict[str, str]) -> HttpSession | None:
        """The live session a request names, if any (checked for real by ``_session``)."""
        session_id = None if self.options.stateless else headers.get("mcp-session-id")
        session = None if session_id is None else self.sessions.get(session_id)
        return None if session is None or session.ended else session

    def _session(self, headers: dict[str, str]) -> HttpSession:
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            raise _Reject(400, "Bad Request: the Mcp-Session-Id header is required")
        session = self.sessions.get(session_id)
        if session is not None and not session.ended and session.connection.peer.closed:
            self.sessions.pop(session.id, None)  # its connection stopped: no POST may wait on it
            self._end_later(session)
        if session is None or session.ended or session.connection.peer.closed:
            raise _Reject(404, "Session not found")
        session.touch()
        return session

    def _end_later(self, session: HttpSession) -> None:
        """End a session in the background (from code that cannot wait)."""
        task = asyncio.create_task(self._ender.end(session))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    def _is_stateless(self, headers: dict[str, str], body: bytes) -> bool:
        """Whether a request belongs to the stateless era (``roles/era.py`` decides)."""
        if self.stateless is None:
            return False
        return not self.servers or wants_stateless(headers, body, self.versions)

    def _check_version(self, headers: dict[str, str], session: HttpSession | None) -> None:
        version = headers.get("mcp-protocol-version")
        if version is None:
            return
        if version not in self.versions:
            raise _Reject(400, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
        negotiated = session.protocol_version if session else ""
        if negotiated and version != negotiated:
            raise _Reject(400, f"Bad Request: MCP-Protocol-Version is not {negotiated!r}")

    async def _post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        accept = headers.get("accept", "")
        sse = self.options.json_response or "text/event-stream" in accept
        if "*/*" not in accept and not ("application/json" in accept and sse):
            needed = "application/json" if self.options.json_response else _BOTH
            raise _Reject(406, f"Not Acceptable: Accept must list {needed}")
        if not headers.get("content-type", "").startswith("application/json"):
            raise _Reject(415, "Unsupported Media Type: Content-Type must be application/json")
        body = await _read_body(receive, self.options.max_body)
        # The frame guard runs in the one parse of either era, after msgspec's own checks.
        if self._is_stateless(headers, body):
            assert self.stateless is not None and self.tool_headers is not None
            await serve_stateless_post(
                self.stateless,
                self.tool_headers,
                headers,
                body,
                receive,
                send,
                self.options.max_depth,
            )
            return
        # Parsed once, by the session that will take it when there is one: what routing
        # needs (ids owed an answer, methods) comes from the same parse the session acts on.
        known = self._known(headers)
        if known is not None:
            inbound = known.parse(body)
        elif self.options.stateless:  # typed by the revision the POST's connection will serve
            methods = self._served(headers.get("mcp-protocol-version")).METHODS
            inbound = reader_for(methods, "client").parse(body, None, self.options.max_depth)
        else:
            inbound = parse(body, self.options.max_depth)
        requests, initialize = _refuse_bad(inbound)
        if self.options.stateless and not requests:
            if inbound.batch and not self._batches(headers.get("mcp-protocol-version")):
                raise _Reject(400, "Invalid Request: batches are not supported by this revision")
            await _respond(send, 202, b"", content_type=None)  # nothing outlives a stateless POST
            return
        session = await self._session_for_post(headers, initialize)
        extra: list[tuple[bytes, bytes]] = []
        if not self.options.stateless:
            extra.append((b"mcp-session-id", session.id.encode()))
        if inbound.batch and not session.batches:
            message = "Invalid Request: batches are not supported by this revision"
            raise _Reject(400, message, extra)
        if not requests:
            await session.feed(inbound)
            await _respond(send, 202, b"", extra, content_type=None)
            return
        json_body = self.options.json_response and not _progress_over_sse(headers, inbound)
        stream = session.open_stream(requests, json=json_body)
        # The priming event's id must come before any event of the stream: stored first.
        prime = b"" if json_body else await self._priming(session, stream)
        await session.feed(inbound)
        try:
            if json_body:
                frames = await _collect(stream)
                payload = frames[0] if len(frames) == 1 else b"[" + b",".join(frames) + b"]"
                await _respond(send, 200, payload, extra)
            else:
                await _stream_sse(stream, receive, send, extra, first=prime)
        finally:
            if self.options.stateless:
                await self._done_with(session, inbound, initialize)

    def _served(self, version: str | None) -> ServerBase:
        """The server of ``version`` (the newest if None or not served), as ``assume`` picks."""
        chosen = newest = self.servers[0]
        for server in self.servers:  # the last of a version wins, as in ServerConnection
            if server.FACTS.version == version:
                chosen = server
            if server.FACTS.version >= newest.FACTS.version:
                newest = server
        return chosen if chosen.FACTS.version == version else newest

    def _batches(self, version: str | None) -> bool:
        """Whether the revision ``version`` (None: the newest served) accepts batches."""
        version = version or max(self.versions)
        return any(version == s.FACTS.version and s.FACTS.batch for s in self.servers)

    async def _priming(self, session: HttpSession, stream: Stream) -> bytes:
        """The priming event (an id, no data) a POST stream starts with, from 2025-11-25 on.

        It gives the client an id to resume from should the stream drop before its first
        message arrives whole (and the reconnection delay, if ``sse_retry_ms`` is set).
        """
        if self.options.stateless or not session.connection.server.FACTS.sse_priming:
            return b""
        event_id = await session.store.store(session.id, stream.id, b"")
        return _event(event_id, b"", self.options.sse_retry_ms)

    def _new_session(self, http_sse: bool = False) -> HttpSession:
        opts = self.options
        return HttpSession(
            self.servers,
            opts.event_store,
            http_sse=http_sse,
            resumable=not opts.stateless,
            retry_ms=opts.sse_retry_ms,
            max_stream_bytes=opts.max_stream_bytes,
            stall_timeout=opts.stream_stall_timeout,
            max_depth=opts.max_depth,
            directory=opts.backend.directory,
        )

    async def _session_for_post(self, headers: dict[str, str], initialize: bool) -> HttpSession:
        if self.options.stateless:
            self._check_version(headers, None)
            if initialize:
                return self._new_session()
            version = headers.get("mcp-protocol-version") or max(self.versions)
            idle = self._idle.get(version)
            if idle:
                return idle.pop()
            session = self._new_session()
            session.connection.assume(version)
            return session
        if initialize:
            if "mcp-session-id" in headers:
                raise _Reject(400, "Bad Request: initialize must not carry an Mcp-Session-Id")
            await self._make_room()
            session = self._new_session()
            self._register(session)
            await self.options.backend.directory.claim(session.id)
            if session.ended:  # meanwhile: this worker's lease lapsed, or the app stops
                await self.options.backend.directory.release(session.id)
                message = "Service Unavailable: the new session ended before it began"
                raise _Reject(503, message, [(b"retry-after", b"1")])
            return session
        session = self._session(headers)
        self._check_version(headers, session)
        return session

    async def _done_with(self, session: HttpSession, inbound: Inbound, initialize: bool) -> None:
        """After a no-session POST: keep its connection for the next POST of its revision when
        the POST was one request, now answered, that left nothing behind; else end it. A
        reused connection is as a fresh one (``HttpSession.serves_again``)."""
        if initialize or inbound.batch or len(inbound.messages) != 1 or not session.serves_again():
            await self._ender.end(session)
            return
        idle = self._idle.setdefault(session.protocol_version, [])
        if len(idle) < IDLE_POST_CONNECTIONS:
            idle.append(session)
        else:
            await self._ender.end(session)

    async def _get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if "text/event-stream" not in headers.get("accept", ""):
            raise _Reject(406, "Not Acceptable: Accept must list text/event-stream")
        if self.options.stateless:
            raise _Reject(405, "This server offers no GET stream (stateless)")
        session = self._session(headers)
        self._check_version(headers, session)
        extra = [(b"mcp-session-id", session.id.encode())]
        last = headers.get("last-event-id")
        if last is not None:
            replay = await self.options.event_store.replay(session.id, last)
            if replay is None:
                raise _Reject(404, f"Unknown Last-Event-ID {last!r}")
            live = session.streams.get(replay[0])
            if live is not None and live.attached:
                # The old reader may still take events it can no longer deliver: stop it
                # first, then read the store again, so whatever it took is replayed here.
                live.claim()
                replay = await self.options.event_store.replay(session.id, last) or replay
            await _stream_sse(live, receive, send, extra, replay[1])
            return
        stream = session.standalone
        if stream.attached:
            raise _Reject(409, "Conflict: the GET stream of this session is already open")
        await _stream_sse(stream, receive, send, extra)

    async def _delete(self, headers: dict[str, str], send: Send) -> None:
        if self.options.stateless:
            raise _Reject(405, "Stateless server: there is no session to delete")
        session = self._session(headers)
        self.sessions.pop(session.id, None)
        await self._ender.end(session)
        await _respond(send, 200, b"", content_type=None)

    # -- HTTP+SSE (2024-11-05) -------------------------------------------------------------

    async def _http_sse_stream(self, root: str, receive: Receive, send: Send) -> None:
        await self._make_room()
        session = self._new_session(http_sse=True)
        self._register(session)
        endpoint = f"{root}{self.options.messages_path}?session_id={session.id}"
        try:
            first = f"event: endpoint\ndata: {endpoint}\n\n".encode()
            await _stream_sse(session.standalone, receive, send, [], first=first)
        finally:
            self.sessions.pop(session.id, None)
            await self._ender.end(session)

    async def _http_sse_post(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        session = self.sessions.get((query.get("session_id") or [""])[0])
        if session is None or not session.http_sse:
            raise _Reject(404, "Session not found")
        body = await _read_body(receive, self.options.max_body)
        inbound = session.parse(body)
        _refuse_bad(inbound)
        await session.feed(inbound)
        await _respond(send, 202, b"Accepted", content_type=b"text/plain")


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Reject(400, "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _Reject(413, f"Payload Too Large: the limit is {limit} bytes")
        if not message.get("more_body", False):
            return b"".join((*chunks, chunk)) if chunks else chunk  # most bodies: one message
        chunks.append(chunk)


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
    content_type: bytes | None = b"application/json",
) -> None:
    out = [*headers] if headers else []
    if content_type is not None and body:
        out.append((b"content-type", content_type))
    out.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": status, "headers": out})
    await send({"type": "http.response.body", "body": body})


def _progress_over_sse(headers: dict[str, str], inbound: Inbound) -> bool:
    """Whether a POST gets an SSE stream in JSON mode: a request asks for progress and the
    client accepts SSE (progress then comes before the answer, on the request's own stream)."""
    accept = headers.get("accept", "")
    if "text/event-stream" not in accept and "*/*" not in accept:
        return False
    for message in inbound.messages:
        params = getattr(message, "params", None)
        if isinstance(params, msgspec.Struct) and not getattr(params, "meta", None):
            continue  # typed params with no (or an empty) ``_meta`` ask for no progress
        if asks_progress(message):
            return True
    return False


async def _collect(stream: Stream) -> list[bytes]:
    """Wait for a POST stream's responses (JSON mode sends a handler's other messages on GET).

    Handlers that answered without waiting left them queued: taken without a wait."""
    frames: list[bytes] = []
    while not stream.done:
        item = await stream.get()
        if item is None:
            return frames
        if isinstance(item, tuple):
            frames.append(item[1])
    return frames + stream.frames_left() if frames else stream.frames_left()


async def _stream_sse(
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
            {"type": "http.response.body", "body": _event(event_id, data), "more_body": True}
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
    preempted = stream.claim()
    ready: list[bytes] = []
    watchers: list[asyncio.Task[Any]] = []
    try:
        while not preempted.is_set():
            if stream.empty():
                if stream.done:
                    break
                if ready:
                    body, ready = b"".join(ready), []
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                if not watchers:
                    watchers = [
                        asyncio.create_task(_wait_disconnect(receive)),
                        asyncio.create_task(preempted.wait()),
                    ]
                getter = asyncio.ensure_future(stream.get())
                await asyncio.wait({getter, *watchers}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done() or preempted.is_set():
                    getter.cancel()  # an event taken now is in the store: a resumption has it
                    break
                item = getter.result()
            else:
                item = stream.get_nowait()
            if item is None:
                break
            if isinstance(item, HangUp):  # the stream goes on; this connection ends
                ready.append(_event(item.event_id, b"", item.retry_ms))
                break
            if item[0] not in sent:
                ready.append(_event(*item))
    finally:
        stream.release(preempted)
        for watcher in watchers:
            watcher.cancel()
    return b"".join(ready)


def _event(event_id: str, data: bytes, retry_ms: int | None = None) -> bytes:
    if not data:  # priming or hang-up: an id to resume from (and when), nothing to dispatch
        retry = b"" if retry_ms is None else b"retry: %d\n" % retry_ms
        return retry + b"id: " + event_id.encode() + b"\ndata:\n\n"
    if not event_id:  # kept nowhere (a POST without a session): nothing to resume from
        return b"event: message\ndata: " + data + b"\n\n"
    return b"event: message\nid: " + event_id.encode() + b"\ndata: " + data + b"\n\n"


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def serve_http(
    servers: ServerBase | list[ServerBase],
    host: str = "127.0.0.1",
    port: int = 8000,
    options: HttpOptions | None = None,
    *,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve MCP over HTTP with uvicorn until cancelled (binds to 127.0.0.1 by default).

    ``stop`` set: a graceful end instead, every session ended first (its open streams close),
    so no request or stream is left to be cancelled.
    """
    uvicorn = _uvicorn()
    app = McpHttpApp(servers, options)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    if stop is None:
        await server.serve()
        return

    async def stopping() -> None:
        await stop.wait()
        await app.end_sessions()
        server.should_exit = True

    watcher = asyncio.create_task(stopping())
    try:
        await server.serve()
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)


def run_http(
    servers: ServerBase | list[ServerBase],
    host: str = "127.0.0.1",
    port: int = 8000,
    options: HttpOptions | None = None,
) -> None:
    """Serve MCP over HTTP with uvicorn until interrupted (blocking; uvloop when installed).

    What is loaded by then (modules, generated types, tables) lives as long as the process:
    it is frozen out of the garbage collector's scans, which then only look at new objects.
    """
    try:
        uvicorn = _uvicorn()
    except MissingDependency as exc:  # this runner owns the process: one line, not a traceback
        raise SystemExit(f"error: {exc}") from None
    app = McpHttpApp(servers, options)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", loop="auto"
    )
    sock = listening_socket(config)
    _announce(sock.getsockname(), app.options.path)
    gc.collect()
    gc.freeze()
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])


def listening_socket(config: Any) -> socket.socket:
    """The runner's socket, bound and already listening: the URL it announces accepts
    connections at once (the kernel queues them until uvicorn's loop takes the socket)."""
    sock: socket.socket = config.bind_socket()
    sock.listen(config.backlog)
    return sock


def _uvicorn() -> Any:
    """Import uvicorn, needed only by those who serve with it (imported by name: no stubs)."""
    try:
        return importlib.import_module("uvicorn")
    except ImportError:
        raise MissingDependency("uvicorn", "http", "serving MCP over HTTP") from None


def _announce(address: Any, path: str) -> None:
    """Say where the blocking runner listens, through logging (set up if the process has none)."""
    if not logging.getLogger().handlers:  # like uvicorn.run: the runner owns the process
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    host, port = address[0], address[1]
    shown = f"[{host}]" if ":" in host else host
    logger.info("serving MCP over HTTP at http://%s:%d%s (Ctrl+C to stop)", shown, port, path)


def _local_path(scope: Scope, options: HttpOptions) -> str:
    """The request path relative to where the app is mounted (ASGI ``root_path``), without a
    trailing slash; the mount point itself is the MCP endpoint (``mount("/mcp", app)``)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "").rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root) :]
        if path in ("", "/"):
            return options.path.rstrip("/") or "/"
    return path.rstrip("/") or "/"
