# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""What the HTTP client transports share: the aiohttp session, headers, the inbox, SSE reading.

Imported only by users of HTTP (it needs aiohttp); the rest of the runtime never imports it.
The ``aiohttp.ClientSession`` is made on first use, inside the running loop (aiohttp needs
one), and kept for the transport's life (one connection pool); it is closed on ``close()``
only if the transport made it. Our session ignores proxy settings from the environment
(aiohttp's ``trust_env``); pass your own session to use them.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Any, Final, Protocol, TypeAlias
from urllib.parse import urljoin, urlsplit

import msgspec

from ...core.errors import INTERNAL_ERROR, ErrorObject, MissingDependency
from ...core.events import RequestId
from ...core.reader import decode_error
from ...core.transport import ConnectionClosed, Taker
from ...core.wire import ENCODER, Inbound, Malformed, parse
from ...roles.running import start_eagerly
from .inbox import Inbox
from .sse import EventTooLarge, SSEParser

try:
    import aiohttp
except ImportError:
    raise MissingDependency("aiohttp", "http", "the MCP HTTP client") from None

MAX_REDIRECTS: Final = 3
"""Same-origin 307/308 redirects followed for one request."""
DEFAULT_TIMEOUT_S: Final = 30.0
"""Bound on connecting, and on each wait for the answer or body of a request not streamed."""
JSON: Final = "application/json"
EVENT_STREAM: Final = "text/event-stream"
BODY_EXCERPT: Final = 500
"""How many characters of an HTTP error body a synthesized JSON-RPC error carries."""
END_GRACE_S: Final = 0.05
"""How long a stream may take to end after its last awaited answer (to reuse its connection)."""
NETWORK_ERRORS: Final = (aiohttp.ClientError, asyncio.TimeoutError)
"""What aiohttp raises when the network, the server or a timeout fails a request or a body."""
STALE_ATTEMPTS: Final = 3
"""Most times one request is sent while each attempt meets a stale pooled connection."""


RawSend: TypeAlias = Callable[
    [str, str, Mapping[str, str], bytes | None, bool], Awaitable[aiohttp.ClientResponse]
]
"""The transport's own send: (method, url, headers, body, stream) -> the response."""


class HttpAuth(Protocol):
    """What the transport needs of an authorization hook (``_runtime.auth.OAuthClient``)."""

    async def send(
        self,
        http: aiohttp.ClientSession,
        raw_send: RawSend,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        stream: bool,
    ) -> aiohttp.ClientResponse:
        """Send one request through ``raw_send`` with authorization; return the response."""
        ...


def media_type(response: aiohttp.ClientResponse) -> str:
    """The response's media type, lower case, without parameters ("" if none)."""
    value: str = response.headers.get("content-type", "")
    return value.split(";")[0].strip().lower()


class HTTPTransportBase:
    """An aiohttp session, the request headers, the queue ``read()`` serves, background tasks."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth_token: str | None = None,
        http_client: aiohttp.ClientSession | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        auth: HttpAuth | None = None,
    ) -> None:
        self.url = url
        self.auth = auth
        """OAuth (``_runtime.auth.OAuthClient``): every request goes through its ``send``."""
        self.timeout = timeout
        self.headers: dict[str, str] = dict(headers or {})
        """Sent on every HTTP request (with ``Authorization: Bearer`` when a token is given)."""
        if auth_token is not None:
            self.headers["Authorization"] = f"Bearer {auth_token}"
        self._own_client = http_client is None
        self.http_client = http_client
        """The session requests go through (made on first use unless one was given)."""
        self._inbox = Inbox()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed: ConnectionClosed | None = None
        self._closing = False
        self._timeouts: dict[tuple[float, bool], aiohttp.ClientTimeout] = {}

    # -- reading -------------------------------------------------------------------------

    async def read(self) -> bytes | Inbound | None:
        """Return the next message the server sent (parsed); None once the connection is over."""
        return await self._inbox.read()

    async def pump(self, take: Taker) -> None:
        """Hand each message to ``take`` where it arrives, until the connection is over."""
        await self._inbox.pump(take)

    def _deliver(self, data: bytes, related: RequestId | None = None) -> list[RequestId]:
        """Hand on the messages of one body or event, parsed once; return the ids answered.

        A batch goes message by message (our session takes no batches); what cannot be
        parsed is handed on as it is, for the session to report. ``related``: the id of our
        request whose stream it came on (``Inbound.related``).
        """
        inbound = parse(data)
        if not inbound.batch:
            inbound.related = related
            self._inbox.put(inbound)
        for message in inbound.messages if inbound.batch else ():
            self._inbox.put(Inbound([message], related=related))
        return inbound.response_ids

    async def _consume(
        self,
        response: aiohttp.ClientResponse,
        parser: SSEParser,
        pending: set[RequestId] | None,
        problems: list[str] | None = None,
        related: RequestId | None = None,
    ) -> int:
        """Queue each ``message`` event of an SSE body; return how many arrived.

        With ``pending``, answered ids are removed and reading stops once none is left.
        A dropped connection just ends the body (an event too large is said in ``problems``);
        the response is always closed. Each event is queued as related to ``related``.
        """
        count = 0
        parser.reconnected()  # nothing half-read on an earlier connection carries over
        try:
            async for chunk in response.content.iter_any():
                for event in parser.feed(chunk):
                    if event.event != "message" or not event.data.strip():
                        continue  # priming events carry no data; other types are not MCP
                    answered = self._deliver(event.data.encode(), related)
                    count += 1
                    if pending is not None:
                        pending.difference_update(answered)
                if pending is not None and not pending:
                    await settle(response)
                    break
        except NETWORK_ERRORS:
            pass
        except EventTooLarge as exc:  # as if the connection dropped: what it sent is not kept
            if problems is not None:
                problems.append(f"the response stream sent an event too large: {exc}")
        finally:
            response.close()
        return count

    def _fail_requests(
        self, ids: set[RequestId] | list[RequestId], code: int, message: str, data: Any = None
    ) -> None:
        """Answer our own requests with a JSON-RPC error, so their callers do not wait forever."""
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        for rid in ids:
            self._inbox.put(ENCODER.encode({"jsonrpc": "2.0", "id": rid, "error": error}))

    def _error_answers(
        self,
        ids: list[RequestId],
        status: int,
        reason: str,
        body: bytes,
        challenge: str | None = None,
    ) -> None:
        """Answer requests refused with an HTTP error status, never reading the body as a message.

        A body that is exactly one valid JSON-RPC error response (our server's 400s) gives
        its error to a lone request; anything else (an OAuth error body, HTML, text) becomes
        an error naming the HTTP status, with ``WWW-Authenticate`` and the start of the body.
        """
        error = json_rpc_error(body) if len(ids) == 1 else None
        if error is not None:
            frame = {"jsonrpc": "2.0", "id": ids[0], "error": error}
            self._inbox.put(ENCODER.encode(frame))
            return
        data: dict[str, Any] = {"httpStatus": status}
        if challenge is not None:
            data["wwwAuthenticate"] = challenge
        data["body"] = body.decode("utf-8", "replace")[:BODY_EXCERPT]
        self._fail_requests(ids, INTERNAL_ERROR, f"HTTP error {status} {reason}".strip(), data)

    # -- sending -------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None = None,
        *,
        stream: bool = False,
    ) -> Awaitable[aiohttp.ClientResponse]:
        """Send one HTTP request; awaited, the response once its headers are in (the body is
        not read). A plain call handing back the sending coroutine: none of its own per POST.

        ``stream``: the body may take forever (an SSE stream, a slow JSON answer), so no
        read timeout. Only 307/308 redirects on the same origin are followed (they keep the
        method and body: a mounted app's trailing slash). Network failures raise
        ``ConnectionClosed``. With ``auth``, the request goes through it (it adds the token,
        authorizes on 401).
        """
        if self.auth is not None:
            return self.auth.send(
                self._client(), self._request, method, url, headers, content, stream
            )
        return self._request(method, url, headers, content, stream)

    async def _request(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None,
        stream: bool,
    ) -> aiohttp.ClientResponse:
        """``_send`` without authorization."""
        timeout = self._timeouts.get((self.timeout, stream))
        if timeout is None:  # made once per limit (a frozen value): not on every request
            limit = self.timeout
            timeout = aiohttp.ClientTimeout(
                total=None, connect=limit, sock_connect=limit, sock_read=None if stream else limit
            )
            if len(self._timeouts) < 4:
                self._timeouts[limit, stream] = timeout
        try:
            hops = 0
            while True:
                response = await self._attempt(method, url, headers, content, timeout)
                moved = _same_origin_redirect(response, url)
                if moved is None or hops == MAX_REDIRECTS:
                    return response
                await settle(response)
                if url == self.url:  # the endpoint moved (a mount's trailing slash): go there
                    self.url = moved
                url, hops = moved, hops + 1
        except NETWORK_ERRORS as exc:
            raise ConnectionClosed(f"HTTP {method} {url} failed: {exc!r}") from None

    async def _attempt(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None,
        timeout: aiohttp.ClientTimeout,
    ) -> aiohttp.ClientResponse:
        """Send one request until its response head arrives; resend it only if it met a stale
        keep-alive connection (``is_stale``), at most ``STALE_ATTEMPTS`` times in all.

        An HTTP/1.1 server may close an idle keep-alive connection at any moment; a request
        written into a pooled connection while that close is on the way meets a closed socket
        and gets no byte back. A server closes only a connection on which no request is being
        read or answered, so that request was never read and no handler saw it: sending it
        again on another connection is safe for any method. A load balancer asks the same of
        its clients on purpose: HAProxy, when a worker connection it reused fails, and when a
        worker dies during a request that was not the first on the client's connection, closes
        the client's connection without an answer so that the client resends the request (as
        browsers do). Behind it, a request in flight on a worker that dies may therefore run
        again on another: at least once, like the balancer's own retries. What is never
        resent: a request on a new connection (it may have reached a handler before the
        server died), one whose response had begun to arrive, and a failure to connect.
        """
        for attempt in range(1, STALE_ATTEMPTS + 1):
            trace = ConnectionUse()
            told = _CONNECTION_USE.set(trace)  # for our own session's connector
            try:
                return await self._client().request(
                    method,
                    url,
                    headers=headers,
                    data=content,
                    timeout=timeout,
                    allow_redirects=False,
                    trace_request_ctx=trace,  # for a session given with the trace
                )
            except NETWORK_ERRORS as exc:
                if attempt == STALE_ATTEMPTS or not is_stale(exc, trace):
                    raise
            finally:
                _CONNECTION_USE.reset(told)
        raise AssertionError("unreachable")  # pragma: no cover (the last attempt raises)

    def _client(self) -> aiohttp.ClientSession:
        """The session, made now (in the running loop) if none was given and none made yet."""
        if self.http_client is None:
            self.http_client = aiohttp.ClientSession(connector=_ReuseConnector())
        return self.http_client

    def _check_open(self) -> None:
        if self._closed is not None:
            raise self._closed

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` in the background until it ends or the transport closes."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _spawn_eagerly(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run ``work`` now up to its first wait (the request sent), then in the background as
        ``_spawn`` does: no turn of the event loop before the request goes out. None when it
        ended without waiting."""
        try:
            task = start_eagerly(work)
        except Exception as exc:  # as a failed task would: end the connection
            self._fail(f"the HTTP transport failed: {exc!r}")
            return None
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """Forget a finished task; if it failed, end the connection rather than leave waiters."""
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._fail(f"the HTTP transport failed: {task.exception()!r}")

    def _fail(self, reason: str) -> None:
        """End the connection: writes raise ``ConnectionClosed``, reads return None."""
        if self._closed is None:
            self._closed = ConnectionClosed(reason)
            self._inbox.end()

    async def _shutdown(self) -> None:
        """Stop the background tasks, end reading, close the aiohttp session if it is ours."""
        self._fail("the transport was closed")
        current = asyncio.current_task()
        tasks = [task for task in self._tasks if task is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._own_client and self.http_client is not None:
            await self.http_client.close()

    def describe_close(self) -> str:
        """Say how the connection ended, completing "the peer ..." in errors."""
        reason = self._closed if self._closed is not None else "nothing yet"
        return f"closed the HTTP connection ({reason})"


class ConnectionUse:
    """What ``connection_reuse_trace`` learned of one request: whether its connection was pooled."""

    __slots__ = ("reused",)

    def __init__(self) -> None:
        self.reused = False


async def _pooled(
    session: aiohttp.ClientSession,
    context: SimpleNamespace,
    params: aiohttp.TraceConnectionReuseconnParams,
) -> None:
    """Mark the request's ``ConnectionUse`` as sent on a connection taken from the pool."""
    use = getattr(context, "trace_request_ctx", None)
    if isinstance(use, ConnectionUse):
        use.reused = True


async def _opened(
    session: aiohttp.ClientSession,
    context: SimpleNamespace,
    params: aiohttp.TraceConnectionCreateEndParams,
) -> None:
    """Mark the request's ``ConnectionUse`` as sent on a new connection."""
    use = getattr(context, "trace_request_ctx", None)
    if isinstance(use, ConnectionUse):
        use.reused = False


_CONNECTION_USE: ContextVar[ConnectionUse | None] = ContextVar(
    "mcpgen_connection_use", default=None
)
"""The ``ConnectionUse`` of the request being sent in this task (read by ``_ReuseConnector``)."""


_USED_PROTOCOLS: weakref.WeakSet[Any] = weakref.WeakSet()
"""The protocols (one per TCP connection) that a request of ours was given already."""


class _ReuseConnector(aiohttp.TCPConnector):
    """The transport's own connector: tells each request whether its connection was pooled.

    It learns what ``connection_reuse_trace`` does without a trace on the session, whose
    signals aiohttp builds and sends on every request whether anyone listens or not: a
    connection whose protocol served a request before came from the pool.
    """

    async def connect(
        self, req: Any, traces: list[Any], timeout: aiohttp.ClientTimeout
    ) -> aiohttp.connector.Connection:
        """Get a connection (from the pool or new) and say which in the request's use."""
        connection = await super().connect(req, traces, timeout)
        protocol = connection.protocol
        use = _CONNECTION_USE.get()
        if use is not None:
            use.reused = protocol in _USED_PROTOCOLS
        if protocol is not None:
            _USED_PROTOCOLS.add(protocol)
        return connection


def connection_reuse_trace() -> aiohttp.TraceConfig:
    """The aiohttp trace that tells the transports whether a request's connection was pooled.

    The transport's own session carries it; give it to a session you pass in
    (``aiohttp.ClientSession(trace_configs=[connection_reuse_trace()])``) for the same resend
    of requests that met a stale keep-alive connection; without it nothing is resent.
    """
    trace = aiohttp.TraceConfig()
    trace.on_connection_reuseconn.append(_pooled)
    trace.on_connection_create_end.append(_opened)
    return trace


def is_stale(exc: BaseException, use: ConnectionUse) -> bool:
    """Whether a failed request met a stale keep-alive connection: taken from the pool, and
    closed by the server before any byte of a response (not a failure to connect)."""
    if not use.reused or isinstance(exc, aiohttp.ClientConnectorError):
        return False
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return isinstance(exc.message, str)  # else the response head that had begun to come
    return isinstance(exc, aiohttp.ClientOSError)


def json_rpc_error(body: bytes) -> ErrorObject | None:
    """The error of a body that is one valid JSON-RPC 2.0 error response, else None."""
    if not media_type_is_json(body):
        return None
    inbound = parse(body)
    if inbound.batch or len(inbound.messages) != 1:
        return None
    (message,) = inbound.messages
    if isinstance(message, Malformed) or message.jsonrpc != "2.0":
        return None
    if isinstance(message.method, str) or isinstance(message.error, msgspec.UnsetType):
        return None
    try:
        return decode_error(message.error)
    except msgspec.DecodeError:
        return None


def media_type_is_json(body: bytes) -> bool:
    """Whether an error body looks like JSON (an object or an array)."""
    return body.lstrip()[:1] in (b"{", b"[")


async def read_body(response: aiohttp.ClientResponse) -> bytes:
    """Read a whole (non-stream) body and close the response; b"" if the connection drops."""
    try:
        return await response.read()
    except NETWORK_ERRORS:
        return b""
    finally:
        # aiohttp gives a connection back to the pool once its body was read to the end:
        # close() only cuts connections whose body we stop reading mid-way.
        response.close()


async def settle(response: aiohttp.ClientResponse) -> None:
    """Give a stream whose answers all came ``END_GRACE_S`` to end, so its connection is kept."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(END_GRACE_S):
            await response.content.wait_eof()


def _same_origin_redirect(response: aiohttp.ClientResponse, url: str) -> str | None:
    """Where a 307/308 answer on the same origin sends the request again, else None."""
    location = response.headers.get("Location")
    if response.status not in (307, 308) or location is None:
        return None
    target = urljoin(url, location)
    old, new = urlsplit(url), urlsplit(target)
    same = (old.scheme, old.netloc) == (new.scheme, new.netloc)
    return target if same else None
