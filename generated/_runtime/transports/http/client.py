# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The client side of MCP over HTTP: the Streamable HTTP transport (2025-03-26 and later).

Every message we send is one POST to the MCP endpoint. A POST carrying a request is sent at
once and answered in a background task (``write`` returns once it is sent, so a slow answer
never blocks other messages);
its answer comes back as one JSON body or as an SSE stream, which may carry the server's
related notifications and requests first. A stream that drops before the answer is resumed
with GET + ``Last-Event-ID`` after the server's ``retry`` delay (bounded attempts). Once the
session is established a GET stream receives what the server sends on its own; the write of
``notifications/initialized`` returns once that GET is answered (or after ``listen_wait``
seconds), so a server that sends a request unprompted right after the handshake (an
elicitation for a tool call, sent on no POST stream) finds the stream open.

Headers: ``Mcp-Session-Id`` from the initialize response on every later request, and
``MCP-Protocol-Version`` (the version the server chose) on every request after initialize,
whatever the revision: 2025-06-18 requires it and servers of 2025-03-26 ignore it.

A POST answered 404 while carrying a session id means the session expired: the session id
is forgotten, the requests of that POST get an error (code -32600, ``data.sessionExpired``)
and ``write`` raises ``SessionExpired`` (for the POST it made itself, or the next time for a
request's POST) until an ``initialize`` starts a new session. If the first POST (the
initialize) gets any other 4xx, the server may be a 2024-11-05 HTTP+SSE one: the transport
switches to ``HttpSseTransport`` on the same URL when a GET there yields an ``endpoint``.

This module needs aiohttp; only users of HTTP import it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...core.errors import INTERNAL_ERROR, INVALID_REQUEST, MissingDependency
from ...core.events import RequestId
from ...core.transport import ConnectionClosed, RelatedId, SessionExpired, Transport
from ...core.wire import Outbound, outbound
from ...roles.client import ClientBase, InitT
from ...roles.connect import HandshakeT, StatelessT, connect_auto
from ...roles.stateless_client import DEFAULT_PROBE_TIMEOUT
from .base import (
    DEFAULT_TIMEOUT_S,
    EVENT_STREAM,
    JSON,
    HttpAuth,
    HTTPTransportBase,
    media_type,
    read_body,
)
from .http_sse import HttpSseTransport
from .sse import SSEParser
from .stateless_client import StatelessHTTPTransport

try:
    import aiohttp
except ImportError:
    raise MissingDependency("aiohttp", "http", "the MCP HTTP client") from None


SESSION_HEADER: Final = "Mcp-Session-Id"
VERSION_HEADER: Final = "MCP-Protocol-Version"
RETRY_DELAY_S: Final = 1.0
"""How long to wait before reconnecting a dropped stream when the server set no ``retry``."""
MAX_RETRY_DELAY_S: Final = 30.0
"""Longest reconnection delay honoured, whatever ``retry`` the server asks for."""
MAX_RECONNECTS: Final = 3
"""Reconnection attempts in a row that may bring nothing before a stream is given up."""
LISTEN_WAIT_S: Final = 2.0
"""Longest the handshake waits for the server to answer the GET stream before going on."""

__all__ = [
    "HttpSseTransport",
    "SessionExpired",
    "StatelessHTTPTransport",
    "StreamableHTTPTransport",
    "connect_http",
    "connect_http_auto",
]


class StreamableHTTPTransport(HTTPTransportBase):
    """The client's end of a Streamable HTTP connection to the MCP endpoint ``url``."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth_token: str | None = None,
        http_client: aiohttp.ClientSession | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry_delay: float = RETRY_DELAY_S,
        max_reconnects: int = MAX_RECONNECTS,
        sse_fallback: bool = True,
        auth: HttpAuth | None = None,
        listen_wait: float = LISTEN_WAIT_S,
    ) -> None:
        super().__init__(
            url,
            headers=headers,
            auth_token=auth_token,
            http_client=http_client,
            timeout=timeout,
            auth=auth,
        )
        self.retry_delay = retry_delay
        self.max_reconnects = max_reconnects
        self.sse_fallback = sse_fallback
        self.listen_wait = listen_wait
        """Seconds the write of ``notifications/initialized`` waits for the GET stream to open."""
        self.session_id: str | None = None
        """The server's ``Mcp-Session-Id``, sent on every request once known."""
        self.protocol_version: str | None = None
        """The version the server chose at initialize, sent as ``MCP-Protocol-Version``."""
        self.session_expired = False
        """Whether the server forgot our session (404); cleared by the next ``initialize``."""
        self.http_sse: HttpSseTransport | None = None
        """The HTTP+SSE transport everything goes through after a fallback."""
        self._first_post = True
        self._listener: asyncio.Task[None] | None = None
        self._exchanges: dict[RequestId, asyncio.Task[None]] = {}

    # -- writing -------------------------------------------------------------------------

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """POST one message; for a request the POST runs in the background."""
        self._check_open()
        message = outbound(message)
        if self.http_sse is not None:
            await self.http_sse.write(message, related)
            return
        frame = message.data
        ids = list(message.ids) if message.kind == "request" else []
        initialize = message.method == "initialize"
        if initialize:
            self._new_session()
        elif self.session_expired:
            raise SessionExpired(f"the session at {self.url} expired; initialize a new one")
        if message.cancels is not None:
            self._abandon(message.cancels)
        if ids and not initialize:  # sent now, answered in the background
            task = self._spawn_eagerly(self._exchange(message, ids))
            if task is not None and len(ids) == 1:  # None: answered (or failed) already
                self._exchanges[ids[0]] = task  # forgotten by the task as it ends
            return
        sent_session, first, self._first_post = self.session_id is not None, self._first_post, False
        response = await self._send("POST", self.url, self._headers(), frame, stream=bool(ids))
        stream = await self._answer(
            response, message, ids, sent_session, initialize, fall_back=initialize and first
        )
        if stream is not None:
            self._track(ids[0], self._spawn(self._resume(stream, ids)))
        if message.method == "notifications/initialized" and response.status < 300:
            opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._listener = self._spawn(self._listen(opened))
            await asyncio.wait((opened, self._listener), timeout=self.listen_wait)

    def _headers(self, accept: str = f"{JSON}, {EVENT_STREAM}") -> dict[str, str]:
        headers = {**self.headers, "Accept": accept}
        if accept != EVENT_STREAM:
            headers["Content-Type"] = JSON
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        if self.protocol_version is not None:
            headers[VERSION_HEADER] = self.protocol_version
        return headers

    def _new_session(self) -> None:
        """An initialize starts a new session: no session id, version or GET stream yet."""
        self.session_id = self.protocol_version = None
        self.session_expired = False
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None

    def _expire(self) -> None:
        """The server forgot our session: forget its id and stop listening on it."""
        self.session_id = self.protocol_version = None
        self.session_expired = True
        if self._listener is not None and self._listener is not asyncio.current_task():
            self._listener.cancel()
        self._listener = None

    def _track(self, rid: RequestId, task: asyncio.Task[None]) -> None:
        """Remember the task serving a request's POST, to drop it if we cancel the request."""
        self._exchanges[rid] = task
        task.add_done_callback(lambda _: self._exchanges.pop(rid, None))

    def _abandon(self, request_id: RequestId) -> None:
        """Stop reading the answer stream of a request we are cancelling."""
        task = self._exchanges.pop(request_id, None)
        if task is not None:
            task.cancel()

    async def _exchange(self, message: Outbound, ids: list[RequestId]) -> None:
        """POST requests and queue what comes back (the background half of ``write``); a
        lone request's task then forgets itself (no callback per request does)."""
        sent_session = self.session_id is not None
        try:
            try:
                response = await self._send(
                    "POST", self.url, self._headers(), message.data, stream=True
                )
                stream = await self._answer(response, message, ids, sent_session, False)
            except ConnectionClosed as exc:
                self._fail(str(exc))
                return
            except SessionExpired:
                return
            if stream is not None:
                await self._resume(stream, ids)
        finally:
            if len(ids) == 1:
                self._exchanges.pop(ids[0], None)

    async def _answer(
        self,
        response: aiohttp.ClientResponse,
        message: Outbound,
        ids: list[RequestId],
        sent_session: bool,
        initialize: bool,
        *,
        fall_back: bool = False,
    ) -> aiohttp.ClientResponse | None:
        """Act on a POST's response; return it if it is an SSE stream still to be read."""
        status = response.status
        if status >= 400:
            body = await read_body(response)
            if status == 404 and sent_session:
                self._expire()
                data = {"httpStatus": 404, "sessionExpired": True}
                self._fail_requests(ids, INVALID_REQUEST, "Session expired (HTTP 404)", data)
                raise SessionExpired(f"{self.url} answered 404 to session id: session expired")
            if fall_back and status < 500 and await self._fall_back(message):
                return None
            if ids:
                self._error_answers(
                    ids,
                    status,
                    response.reason or "",
                    body,
                    response.headers.get("www-authenticate"),
                )
            return None
        if initialize and SESSION_HEADER in response.headers:
            self.session_id = response.headers[SESSION_HEADER]
        kind = media_type(response)
        if ids and status != 202 and kind == EVENT_STREAM:
            return response
        body = await read_body(response)
        if not ids:
            return None
        if kind == JSON and body.strip():
            missing = set(ids).difference(self._deliver(body, _related(ids)))
            why = "the JSON body did not answer this request"
        else:
            missing = set(ids)
            why = f"HTTP {status} with {'no body' if not body else kind or 'an untyped body'}"
        if missing:
            self._fail_requests(missing, INTERNAL_ERROR, f"No response from the server: {why}")
        return None

    async def _fall_back(self, message: Outbound) -> bool:
        """Try the 2024-11-05 HTTP+SSE transport at our URL; send ``message`` if it answers."""
        if not self.sse_fallback:
            return False
        http_sse = HttpSseTransport.taking_over(self)
        try:
            await http_sse.open()
        except ConnectionClosed:
            return False  # not closed: that would end reading from the queue it shares
        self.http_sse = http_sse
        await http_sse.write(message)
        return True

    def negotiated(self, version: str) -> None:
        """Send the version the handshake chose as ``MCP-Protocol-Version`` from now on."""
        self.protocol_version = version
        if self.http_sse is not None:
            self.http_sse.negotiated(version)

    # -- streams -------------------------------------------------------------------------

    def _delay(self, parser: SSEParser) -> float:
        """The reconnection delay: the server's ``retry`` (bounded), else ``retry_delay``."""
        if parser.retry is None:
            return self.retry_delay
        return min(parser.retry / 1000, MAX_RETRY_DELAY_S)

    async def _reconnect(self, parser: SSEParser) -> aiohttp.ClientResponse | None:
        """GET the endpoint again, resuming after the last event id; None on network error."""
        await asyncio.sleep(self._delay(parser))
        headers = self._headers(EVENT_STREAM)
        if parser.last_event_id:
            headers["Last-Event-ID"] = parser.last_event_id
        try:
            return await self._send("GET", self.url, headers, stream=True)
        except ConnectionClosed:
            return None

    async def _usable(self, response: aiohttp.ClientResponse, sent_session: bool) -> bool | None:
        """Whether a GET gave an SSE stream (True), a hopeless refusal (None) or not (False)."""
        if response.status == 200 and media_type(response) == EVENT_STREAM:
            return True
        response.close()
        if response.status == 404 and sent_session:
            self._expire()
            return None
        return False if response.status >= 500 else None

    async def _resume(self, response: aiohttp.ClientResponse, ids: list[RequestId]) -> None:
        """Read a POST's SSE answer; resume it with Last-Event-ID until every id is answered.

        What comes on it relates to the POST's request (``Inbound.related``; a batch's: none).
        """
        pending, parser, failures, related = set(ids), SSEParser(), 0, _related(ids)
        current: aiohttp.ClientResponse | None = response
        while True:
            sent_session = self.session_id is not None
            usable = await self._usable(current, sent_session) if current is not None else False
            if usable is None:
                break
            got = 0
            if usable and current is not None:
                got = await self._consume(current, parser, pending, None, related)
            failures = 0 if got else failures + 1
            if not pending or self._closed is not None:
                return
            if not parser.last_event_id or failures > self.max_reconnects:
                break
            current = await self._reconnect(parser)
        if self.session_expired:
            data = {"httpStatus": 404, "sessionExpired": True}
            self._fail_requests(pending, INVALID_REQUEST, "Session expired (HTTP 404)", data)
        else:
            why = "its SSE stream ended before the response and could not be resumed"
            self._fail_requests(pending, INTERNAL_ERROR, f"No response from the server: {why}")

    async def _listen(self, opened: asyncio.Future[None]) -> None:
        """Keep a GET stream open for what the server sends unprompted (405: it has none);
        ``opened`` is set once the server answered the first GET (or it failed)."""
        parser, failures = SSEParser(), 0
        headers = self._headers(EVENT_STREAM)
        current: aiohttp.ClientResponse | None
        try:
            current = await self._send("GET", self.url, headers, stream=True)
        except ConnectionClosed:
            current = None
        finally:
            if not opened.done():
                opened.set_result(None)
        while self._closed is None:
            sent_session = self.session_id is not None
            usable = await self._usable(current, sent_session) if current is not None else False
            if usable is None:
                return
            got = await self._consume(current, parser, None) if usable and current else 0
            failures = 0 if got else failures + 1
            if failures > self.max_reconnects:
                return
            current = await self._reconnect(parser)

    # -- closing -------------------------------------------------------------------------

    async def close(self) -> None:
        """End the session (DELETE; 405 is fine), stop every stream, close our aiohttp session."""
        if self._closing:
            return
        self._closing = True
        self._fail("the transport was closed")
        if self.http_sse is not None:
            await self.http_sse.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.session_id is not None:
            with contextlib.suppress(Exception):  # best effort: the session may be gone already
                await read_body(await self._send("DELETE", self.url, self._headers(EVENT_STREAM)))
        await self._shutdown()


async def connect_http(
    client: ClientBase[InitT], url: str, *, http_sse: bool = False, **options: Any
) -> InitT:
    """Connect ``client`` to the MCP server at ``url``; return the initialize result.

    ``http_sse=True`` speaks the 2024-11-05 HTTP+SSE transport directly; otherwise Streamable
    HTTP, falling back to HTTP+SSE when the server refuses the initialize POST with a 4xx.
    ``options`` go to the transport (``headers``, ``auth_token``, ``auth``, ``http_client``,
    ``timeout``). A client without handshake probes ``server/discover`` (one POST per request, its
    headers; ``headers``, ``auth_token`` and ``auth`` apply) instead.
    """
    if not client.FACTS.handshake:
        stateless = StatelessHTTPTransport(url, **_base_options(options))
        try:
            return await client.connect_stateless(
                stateless, describe_close=stateless.describe_close
            )
        except BaseException:
            await client.close()
            await stateless.close()
            raise
    transport: StreamableHTTPTransport | HttpSseTransport
    if http_sse:
        transport = HttpSseTransport(url, **options)
    else:
        transport = StreamableHTTPTransport(url, **options)
    try:
        return await client.connect(transport, transport.describe_close)
    except BaseException:
        await transport.close()
        raise


async def connect_http_auto(
    stateless: StatelessT,
    handshake: Sequence[HandshakeT],
    url: str,
    *,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    headers: Mapping[str, str] | None = None,
    auth: HttpAuth | None = None,
) -> StatelessT | HandshakeT:
    """``connect_auto`` over HTTP: the probe as a POST without session, the handshake
    clients on Streamable HTTP (``auth``, an ``OAuthClient``, authorizes both)."""

    async def probe_transport() -> Transport:
        return StatelessHTTPTransport(url, headers=headers, auth=auth)

    async def handshake_transport() -> Transport:
        return StreamableHTTPTransport(url, headers=headers, auth=auth)

    return await connect_auto(
        stateless,
        handshake,
        probe_transport,
        probe_timeout=probe_timeout,
        open_handshake=handshake_transport,
    )


def _related(ids: list[RequestId]) -> RequestId | None:
    """The request a POST's answer relates to: its one request (a batch's: none of them)."""
    return ids[0] if len(ids) == 1 else None


def _base_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options every HTTP client transport takes (a POST per request takes no others)."""
    shared = ("headers", "auth_token", "http_client", "timeout", "auth")
    return {name: options[name] for name in shared if name in options}
