"""The MCP endpoint's POST: the body read and checked, parsed once, and fed to its session
(or to the stateless era's connection), its answers sent as one JSON body or an SSE stream.

A handshake-era body is parsed by the session that will take it (in the no-session mode, by
the reader of the revision its connection will serve) and refused whole when bad
(``refuse_bad``); a stateless-era POST goes to ``stateless.serve_stateless_post``.
"""

from __future__ import annotations

from typing import Final

import msgspec

from ...core.reader import reader_for
from ...core.wire import Inbound, asks_progress, parse
from ...roles.server import ServerBase
from ...roles.stateless import StatelessServer
from .asgi import Receive, Send, respond
from .checks import Reject, body_of, read_body, refuse_bad
from .listen import sse_event, stream_sse
from .options import HttpOptions
from .session import HttpSession
from .session_table import SessionTable
from .stateless import (
    ToolHeaders,
    retry_after,
    serve_stateless_post,
    unavailable,
    wants_stateless,
)
from .stream import Stream

_BOTH: Final = "application/json and text/event-stream"


class PostPath:
    """Serves POSTs to the MCP endpoint for one app (both eras)."""

    def __init__(
        self,
        options: HttpOptions,
        table: SessionTable,
        servers: list[ServerBase],
        stateless: StatelessServer | None,
        tool_headers: ToolHeaders | None,
    ) -> None:
        self.options = options
        self.table = table
        self.servers = servers
        self.versions = table.versions
        self.stateless = stateless
        self.tool_headers = tool_headers

    def is_stateless(self, headers: dict[str, str], body: bytes) -> bool:
        """Whether a request belongs to the stateless era (``roles/era.py`` decides)."""
        if self.stateless is None:
            return False
        return not self.servers or wants_stateless(headers, body, self.versions)

    async def serve(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """Serve one POST to the MCP endpoint."""
        accept = headers.get("accept", "")
        sse = self.options.json_response or "text/event-stream" in accept
        if "*/*" not in accept and not ("application/json" in accept and sse):
            needed = "application/json" if self.options.json_response else _BOTH
            raise Reject(406, f"Not Acceptable: Accept must list {needed}")
        if not headers.get("content-type", "").startswith("application/json"):
            raise Reject(415, "Unsupported Media Type: Content-Type must be application/json")
        first = await receive()
        body = body_of(first, self.options.max_body)
        if body is None:
            body = await read_body(receive, self.options.max_body, first)
        # The frame guard runs in the one parse of either era, after msgspec's own checks.
        if self.stateless is not None and self.is_stateless(headers, body):
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
        known = self.table.known(headers)
        if known is not None:
            inbound = known.parse(body)
        elif self.options.stateless:  # typed by the revision the POST's connection will serve
            methods = self._served(headers.get("mcp-protocol-version")).METHODS
            inbound = reader_for(methods, "client").parse(body, None, self.options.max_depth)
        else:
            inbound = parse(body, self.options.max_depth)
        requests, initialize = refuse_bad(inbound)
        if self.options.stateless and not requests:
            if inbound.batch and not self._batches(headers.get("mcp-protocol-version")):
                raise Reject(400, "Invalid Request: batches are not supported by this revision")
            await respond(send, 202, b"", content_type=None)  # nothing outlives a stateless POST
            return
        session = await self.table.for_post(headers, initialize, known)
        extra: list[tuple[bytes, bytes]] = (
            [] if self.options.stateless else [(b"mcp-session-id", session.id.encode())]
        )
        if inbound.batch and not session.batches:
            message = "Invalid Request: batches are not supported by this revision"
            raise Reject(400, message, extra)
        if not requests:
            await session.feed(inbound)
            await respond(send, 202, b"", extra, content_type=None)
            return
        json_body = self.options.json_response and not _progress_over_sse(headers, inbound)
        stream = session.open_stream(requests, json=json_body)
        # The priming event's id must come before any event of the stream: stored first.
        prime = b"" if json_body else await self._priming(session, stream)
        await session.feed(inbound)
        try:
            if json_body:
                # Handlers that answered without waiting left their answers queued.
                frames = stream.frames_left() if stream.done else await _collect(stream)
                payload = frames[0] if len(frames) == 1 else b"[" + b",".join(frames) + b"]"
                # A shared service away: 503, as without a session (most answers do not
                # mention ``retryAfter``: no decoding for them).
                if len(frames) == 1 and b'"retryAfter"' in payload and unavailable(payload):
                    await respond(send, 503, payload, extra + retry_after())
                else:
                    await respond(send, 200, payload, extra)
            else:
                await stream_sse(stream, receive, send, extra, first=prime)
        finally:
            if self.options.stateless:
                reuse = not (initialize or inbound.batch or len(inbound.messages) != 1)
                await self.table.done_with(session, reuse)

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
        return sse_event(event_id, b"", self.options.sse_retry_ms)


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
