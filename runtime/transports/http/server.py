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
``HttpOptions`` (``options.py``).

The pieces: ``checks.py`` (Host/Origin, body size and shape, ``Reject``), ``post.py`` (the
POST path of both eras), ``listen.py`` (a stream written as SSE: GET, a POST's stream,
HTTP+SSE), ``session_table.py`` (the live sessions: made, found, bounded, swept, ended),
``session.py`` / ``stream.py`` / ``event_store.py`` (one session, its streams, its events).
This module routes a request to them and runs the app with uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import socket
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import parse_qs

from ...backends.base import FORWARDED, BackendUnavailable, share_task_store
from ...core.errors import MissingDependency
from ...core.sealed import refuse_random_key
from ...roles.era import faces
from ...roles.server import ServerBase
from ...roles.subscriptions import share_bus
from .asgi import Receive, Scope, Send, respond
from .checks import Allowed, Reject, error_body, host_name, local_path, read_body, refuse_bad
from .listen import stream_sse
from .options import Authenticate
from .options import HttpOptions as HttpOptions  # also imported from here, where it was defined
from .post import PostPath
from .session import HttpSession
from .session_table import SessionTable
from .stateless import ToolHeaders

logger = logging.getLogger(__name__)
"""The HTTP app's log: where the runner listens."""


_NAMES: dict[bytes, str] = {}
"""Header names as sent -> as keyed (lower case), for the names seen first (``NAMES_KEPT``)."""
_VALUES: dict[bytes, str] = {}
"""Short header values as sent -> as text, for the values seen first (``VALUES_KEPT``)."""
NAMES_KEPT: Final = 64
VALUES_KEPT: Final = 256
VALUE_KEPT_BYTES: Final = 64
UNKEPT_VALUES: Final = frozenset(
    {"authorization", "proxy-authorization", "cookie", "dpop", "mcp-session-id"}
)
"""Names whose values are never kept: credentials and session ids outlive no request here
(and one client's session id would only fill a place the next clients cannot use)."""


def header_map(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """A request's headers by lower-case name (Latin-1 text; the last of a repeated name).

    Every request of a client repeats the same names and most values: those seen first (a
    bounded number, short values only, never a credential or session id: ``UNKEPT_VALUES``)
    are kept decoded, and a repeated one costs one lookup (a plain loop: no comprehension
    frame per request)."""
    headers: dict[str, str] = {}
    names, values = _NAMES, _VALUES
    for name, value in raw:
        key = names.get(name)
        if key is None:
            key = name.decode("latin-1").lower()
            if len(names) < NAMES_KEPT:
                names[bytes(name)] = key
        text = values.get(value)
        if text is None:
            text = value.decode("latin-1")
            kept = len(value) <= VALUE_KEPT_BYTES and len(values) < VALUES_KEPT
            if kept and key not in UNKEPT_VALUES:
                values[bytes(value)] = text
        headers[key] = text
    return headers


class McpHttpApp:
    """The ASGI application serving MCP over HTTP for one or more protocol revisions."""

    def __init__(self, servers: ServerBase | list[ServerBase], options: HttpOptions | None = None):
        every = servers if isinstance(servers, list) else [servers]
        self.options = options or HttpOptions()
        share_task_store(every, self.options.backend.task_store)
        self.stateless, self.servers = faces(every)
        self.versions = frozenset(s.FACTS.version for s in self.servers)
        self.tool_headers = None if self.stateless is None else ToolHeaders(self.stateless)
        self.table = SessionTable(self.servers, self.options, self.versions)
        """The live sessions (``sessions``) and what makes, finds and ends them."""
        self.sessions: dict[str, HttpSession] = self.table.sessions
        self.posts = PostPath(
            self.options, self.table, self.servers, self.stateless, self.tool_headers
        )
        self._hosts, self._origins = Allowed(), Allowed()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI request (lifespan events are accepted and ignored)."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = header_map(scope["headers"])
        try:
            try:
                self._check_host(headers)
                if self.options.authenticate is not None:
                    await self._authenticate(headers, self.options.authenticate)
                await self._route(scope, headers, receive, send)
            except BackendUnavailable as exc:
                raise Reject(503, f"Service Unavailable: {exc}", [(b"retry-after", b"1")]) from exc
        except Reject as exc:
            await respond(send, exc.status, error_body(exc.message, exc.code, exc.id), exc.headers)

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
        await backend.start(self, self.table.end_all)

    async def stop(self) -> None:
        """End every session, then stop the backend."""
        await self.table.end_all()
        await self.table.ender.close()
        await self.options.backend.stop()

    async def end_sessions(self) -> None:
        """End every session of this worker: their streams close (a graceful stop)."""
        await self.table.end_all()

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
        body = await read_body(receive, self.options.max_body) if scope["method"] == "POST" else b""
        local = {**scope, "path": local_path(scope, self.options)}
        if await backend.router.forward(owner, local, body, receive, send):
            return True
        with contextlib.suppress(BackendUnavailable):  # else it expires: its owner is gone
            await backend.directory.release(session_id)
        raise Reject(404, "Session not found (its worker is gone)")

    def _check_host(self, headers: dict[str, str]) -> None:
        """Host/Origin validation against DNS rebinding (every request, before anything)."""
        opts = self.options
        raw_host = headers.get("host", "")
        if not self._hosts.allows(raw_host, opts.allowed_hosts):
            raise Reject(421, f"Host {host_name(raw_host)!r} is not allowed")
        origin = headers.get("origin")
        if origin is not None and not self._origins.allows(origin, opts.allowed_origins):
            raise Reject(403, f"Origin {origin!r} is not allowed")

    async def _authenticate(self, headers: dict[str, str], authenticate: Authenticate) -> None:
        """The authentication hook, after the Host/Origin checks: False -> 401."""
        if not await authenticate(headers):
            challenge = 'Bearer error="invalid_token"'
            if self.options.resource_metadata:
                challenge += f', resource_metadata="{self.options.resource_metadata}"'
            raise Reject(401, "Unauthorized", [(b"www-authenticate", challenge.encode())])

    async def _route(
        self, scope: Scope, headers: dict[str, str], receive: Receive, send: Send
    ) -> None:
        path, method, opts = scope["path"], scope["method"], self.options
        if scope.get("root_path") or path.endswith("/"):  # mounted, or a trailing slash
            path = local_path(scope, opts)
        if path == opts.path.rstrip("/"):
            if (
                not opts.stateless
                and opts.backend.shared
                and await self._forwarded(scope, headers, receive, send)
            ):
                return
            if method == "POST":
                await self.posts.serve(headers, receive, send)
            elif self.posts.is_stateless(headers, b""):
                raise Reject(405, f"Method {method} not allowed (stateless: POST only)")
            elif method == "GET":
                await self._get(headers, receive, send)
            elif method == "DELETE":
                await self._delete(headers, send)
            else:
                raise Reject(405, f"Method {method} not allowed")
        elif opts.http_sse and path == opts.sse_path.rstrip("/") and method == "GET":
            await self._http_sse_stream(scope.get("root_path", "").rstrip("/"), receive, send)
        elif opts.http_sse and path == opts.messages_path.rstrip("/") and method == "POST":
            await self._http_sse_post(scope, receive, send)
        else:
            raise Reject(404, "Not found")

    async def _get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if "text/event-stream" not in headers.get("accept", ""):
            raise Reject(406, "Not Acceptable: Accept must list text/event-stream")
        if self.options.stateless:
            raise Reject(405, "This server offers no GET stream (stateless)")
        session = self.table.session(headers)
        self.table.check_version(headers, session)
        extra = [(b"mcp-session-id", session.id.encode())]
        last = headers.get("last-event-id")
        if last is not None:
            replay = await self.options.event_store.replay(session.id, last)
            if replay is None:
                raise Reject(404, f"Unknown Last-Event-ID {last!r}")
            live = session.streams.get(replay[0])
            if live is not None and live.attached:
                # The old reader may still take events it can no longer deliver: stop it
                # first, then read the store again, so whatever it took is replayed here.
                live.claim()
                replay = await self.options.event_store.replay(session.id, last) or replay
            await stream_sse(live, receive, send, extra, replay[1])
            return
        stream = session.standalone
        if stream.attached:
            raise Reject(409, "Conflict: the GET stream of this session is already open")
        await stream_sse(stream, receive, send, extra)

    async def _delete(self, headers: dict[str, str], send: Send) -> None:
        if self.options.stateless:
            raise Reject(405, "Stateless server: there is no session to delete")
        session = self.table.session(headers)
        await self.table.delete(session)
        await respond(send, 200, b"", content_type=None)

    async def _http_sse_stream(self, root: str, receive: Receive, send: Send) -> None:
        await self.table.make_room()
        session = self.table.new_session(http_sse=True)
        self.table.register(session)
        endpoint = f"{root}{self.options.messages_path}?session_id={session.id}"
        try:
            first = f"event: endpoint\ndata: {endpoint}\n\n".encode()
            await stream_sse(session.standalone, receive, send, [], first=first)
        finally:
            await self.table.end(session)

    async def _http_sse_post(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        session = self.sessions.get((query.get("session_id") or [""])[0])
        if session is None or not session.http_sse:
            raise Reject(404, "Session not found")
        body = await read_body(receive, self.options.max_body)
        inbound = session.parse(body)
        refuse_bad(inbound)
        await session.feed(inbound)
        await respond(send, 202, b"Accepted", content_type=b"text/plain")


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
