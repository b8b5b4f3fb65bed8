# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The asyncio driver: one sans-I/O ``Session`` moved over one ``Transport``.

Reading: ``run()`` reads frames, feeds them to the session and acts on the events (each
incoming request runs its handler at once, in a task only if it waits;
``notifications/cancelled`` cancels that task). A frame of requests and responses is taken by
plain calls (``take_now``): a coroutine only where a notification handler or a write waits.
Writing: every frame the session queues goes through ``flush_now()``/``flush()``, in order: a
transport that writes at once (``WritesNow``: stdio) is written by plain calls while no write
waits; a write that waits (a full pipe, an HTTP stream) holds the lock the later ones queue on.
Requests we send wait on a future; a timeout cancels them on the wire (``deadlines.py``:
one loop timer for all of them).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

import msgspec

from ..core.errors import (
    INTERNAL_ERROR,
    RETRY_AFTER_S,
    UNAVAILABLE_MESSAGE,
    ConnectionClosed,
    LocalProtocolError,
    MCPError,
    RemoteProtocolError,
    RequestTimeout,
    SessionExpired,
    Unavailable,
)
from ..core.events import (
    Cancelled,
    ErrorResponse,
    Event,
    InvalidResponse,
    Notification,
    Progress,
    ProtocolViolation,
    Request,
    RequestId,
    Response,
)
from ..core.message import Message
from ..core.methods import MethodSpec
from ..core.session import Session
from ..core.transport import PushesFrames, Transport
from ..core.wire import Inbound, Outbound
from .deadlines import Deadlines
from .peer_writes import CURRENT_REQUEST, PeerWrites
from .running import RequestTasks, start_eagerly

__all__ = ["CURRENT_REQUEST", "MCPError", "Peer", "ProgressCallback", "RequestTimeout"]

logger = logging.getLogger(__name__)
"""Where a failing handler or callback is reported (the peer keeps going)."""

ProgressParamsT = TypeVar("ProgressParamsT")
ProgressCallback = Callable[[ProgressParamsT], Awaitable[None] | None]
"""Called with each ``notifications/progress`` params for a request we sent (the revision's
``ProgressNotificationParams``); sync or async."""
RequestHandler = Callable[[Request], Awaitable[Any]]
"""Answers one incoming request: returns the result, or raises ``MCPError``."""
NotificationHandler = Callable[[Notification], Awaitable[None] | None]
"""Receives each incoming notification, in order."""
RELATED_REQUEST: contextvars.ContextVar[RequestId | None] = contextvars.ContextVar(
    "mcpgen_related_request", default=None
)
"""The id of our request whose response stream carried the frame being handled
(``Inbound.related``): set while its notifications are handled, and kept by the handler tasks
of the requests it brings."""
REQUEST_SENT: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "mcpgen_request_sent", default=None
)
"""Told the id of each request ``Peer.request`` sends in this context: how a caller learns
which of its requests a peer's message relates to (``RELATED_REQUEST``)."""
VIOLATIONS_KEPT = 100
DRAIN_TIMEOUT_S = 2.0
"""How long handlers still running at end of input may take to send their responses."""


class Peer(PeerWrites):
    """Runs one connection: the read loop, handler tasks, and our pending requests."""

    def __init__(
        self,
        session: Session,
        transport: Transport,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        describe_close: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(session, transport)
        self._on_request = on_request
        self._on_notification = on_notification
        self._describe_close = describe_close
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._deadlines = Deadlines(self._waiting, self._time_out)
        self._progress: dict[int, ProgressCallback[Any]] = {}
        self._handlers = RequestTasks()
        self._running = self._handlers.running
        self.drain_timeout = DRAIN_TIMEOUT_S
        self.violations: list[ProtocolViolation] = []
        """The latest protocol violations of the peer (bounded), for diagnostics."""
        self.complete: Callable[[str, Any], Any] | None = None
        """What a handler's result becomes before it is sent, given its method (a server
        without a handshake: ``resultType``, serverInfo, cache hints); None: sent as returned."""
        self.rescue: Callable[[Exception], Any] | None = None
        """The result a handler's exception stands for (an MRTR round's
        ``InputRequiredResult``), else the error to answer, raised; None: every exception is
        answered as an error. Both hooks run in the handler's context, with no coroutine."""

    def negotiate(
        self,
        version: str,
        methods: Mapping[str, MethodSpec[Any, Any]],
        *,
        batch: bool,
        handshake: bool = True,
    ) -> None:
        """Adopt the revision the handshake chose: the session's one negotiation call."""
        self.session.negotiate(version, methods, batch=batch, handshake=handshake)
        self.transport.negotiated(version)

    def retarget(self, on_request: RequestHandler, on_notification: NotificationHandler) -> None:
        """Send incoming requests and notifications to other handlers from now on."""
        self._on_request = on_request
        self._on_notification = on_notification

    async def progress(
        self,
        token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> None:
        """Report progress on one of the peer's requests (nothing if it was cancelled)."""
        if self.session.send_progress(token, progress, total, message):
            await self.flush()

    async def request(
        self,
        method: str | MethodSpec[Any, Any],
        params: Any = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback[Any] | None = None,
        progress_token: str | int | None = None,
    ) -> Any:
        """Send a request and return its decoded result; raise ``MCPError`` on an error answer."""
        if self._closed is not None:
            raise self._closed
        token = progress_token
        if progress is not None and token is None:
            token = _next_token()
        request_id = self.session.send_request(method, params, progress_token=token)
        sent = REQUEST_SENT.get()
        if sent is not None:
            sent(request_id)
        loop = asyncio.get_running_loop()  # once: on Python 3.11 each call is a getpid()
        future: asyncio.Future[Any]
        if type(loop).create_future is _PLAIN_CREATE_FUTURE:  # what it does, without its frame
            future = asyncio.Future(loop=loop)
        else:  # a loop of its own kind (uvloop) makes its futures its way
            future = loop.create_future()
        self._waiting[request_id] = future
        if progress is not None:
            self._progress[request_id] = progress
        if timeout is not None:  # one timer for all deadlines: none to cancel per request
            self._deadlines.add(loop, request_id, method, timeout)
        try:
            rest = self.flush_now()  # ``flush`` without its coroutine
            if rest is not None:
                await rest
            try:
                return await future
            except RequestTimeout:
                await self.flush()
                raise
        except asyncio.CancelledError:
            self._cancel(request_id, "cancelled by the caller")
            with contextlib.suppress(ConnectionClosed, LocalProtocolError):
                await asyncio.shield(self.flush())
            raise
        finally:
            self._waiting.pop(request_id, None)
            if progress is not None:
                self._progress.pop(request_id, None)

    def _expired(self, message: Outbound, error: SessionExpired) -> None:
        """A message the transport refused because the session expired: fail its request.

        The caller (the client) then starts a new session and retries; a notification or
        response written into an expired session is dropped, as the session it was for is gone.
        """
        if message.kind != "request":
            return
        for request_id in message.ids:
            future = self._waiting.get(request_id) if isinstance(request_id, int) else None
            if future is not None and not future.done():
                future.set_exception(error)

    def _time_out(
        self, request_id: int, method: str | MethodSpec[Any, Any], timeout: float
    ) -> None:
        """Fail a request that got no response in time, and cancel it on the wire."""
        future = self._waiting.get(request_id)
        if future is None or future.done():
            return
        self._cancel(request_id, f"timed out after {timeout} s")
        message = f"{_name(method)} got no response within {timeout} s"
        future.set_exception(RequestTimeout(message))

    def _cancel(self, request_id: int, reason: str) -> None:
        """Cancel one of our requests on the wire, if it still can be."""
        if request_id in self.session.pending_requests and self._closed is None:
            # initialize may not be cancelled (the spec says so): it is only abandoned here.
            with contextlib.suppress(LocalProtocolError):
                self.session.cancel(request_id, reason)

    async def notify(
        self, method: str | MethodSpec[Any, Any], params: Any = None, *, related: bool = True
    ) -> None:
        """Send a notification; ``related=False``: it belongs to no request even in a handler."""
        if self._closed is not None:
            raise self._closed
        self.session.send_notification(method, params)
        if related:
            await self.flush()
            return
        token = CURRENT_REQUEST.set(None)
        try:
            await self.flush()
        finally:
            CURRENT_REQUEST.reset(token)

    # -- reading -------------------------------------------------------------------------

    async def run(self) -> None:
        """Read until the peer closes; then fail what is pending and stop the handlers.

        At end of input, requests already being handled get ``drain_timeout`` seconds to
        finish, so their responses still go out (the peer may still be reading).
        """
        try:
            if isinstance(self.transport, PushesFrames):
                with contextlib.suppress(ConnectionClosed):  # raised by ``_pushed``: we closed
                    await self.transport.pump(self._pushed)
                    await self._drain()
                return
            while self._closed is None:
                frame = await self.transport.read()
                if frame is None:
                    await self._drain()
                    break
                await self.take(frame)
        finally:
            self._input_ended()

    def _pushed(self, frame: bytes | Inbound) -> asyncio.Task[None] | None:
        """Take a frame the transport pushes, at once; a task only if taking it waits."""
        if self._closed is not None:
            raise self._closed
        rest = self.take_now(frame)
        return None if rest is None else start_eagerly(rest)

    async def take(self, frame: bytes | Inbound) -> None:
        """Act on one frame and write what it queued: a step of ``run``, or of a router that
        reads the stream itself and hands each connection its frames (``era.py``)."""
        rest = self.take_now(frame)
        if rest is not None:
            await rest

    def take_now(self, frame: bytes | Inbound | Message) -> Coroutine[Any, Any, None] | None:
        """``take`` by plain calls as far as nothing waits: None, or the rest to await at once
        (a notification handler, progress callback or write that waits)."""
        if type(frame) is Inbound and frame.related is not None:
            return self._take_related(frame, frame.related)
        events = self.session.receive(frame)
        for index, event in enumerate(events):
            if type(event) is Request:  # started at once: a handler that answers without
                task = start_eagerly(self._answer(event))  # waiting costs no task, no turn
                if task is not None:
                    self._handlers.keep(event.id, task)
            elif type(event) is Response:  # ``_settle``, inlined
                future = self._waiting.get(event.id)
                if future is not None and not future.done():
                    future.set_result(event.result)
            elif isinstance(event, (Notification, Progress)):
                return self._take_rest(events, index)
            else:
                self._handle_now(event)
        if self._writers or self.session.has_output:
            return self.flush_now()  # handlers that answered at once flushed their answers
        return None

    async def _take_related(self, frame: Inbound, related: RequestId) -> None:
        """``take`` of a frame that came on the response stream of our request ``related``
        (``Inbound.related``): handled with ``RELATED_REQUEST`` naming it, which the handler
        tasks of the requests it brings keep."""
        told = RELATED_REQUEST.set(related)
        try:
            await self.feed(frame)
        finally:
            RELATED_REQUEST.reset(told)
        if self.flush_due:
            await self.flush()

    async def _take_rest(self, events: list[Event], index: int) -> None:
        """The events of a frame from the first one that may wait, then the frame's writes."""
        for event in events[index:]:
            await self._handle(event)
        if self.flush_due:
            await self.flush()

    async def finish(self) -> None:
        """The input a router fed us ended: as ``run`` ends at end of input."""
        try:
            await self._drain()
        finally:
            self._input_ended()

    async def _drain(self) -> None:
        """Give handlers still running ``drain_timeout`` seconds to send their answers."""
        if self._handlers:
            await asyncio.wait(self._handlers.tasks(), timeout=self.drain_timeout)

    def _input_ended(self) -> None:
        detail = self._describe_close() if self._describe_close else "closed the connection"
        self._close_with(ConnectionClosed(f"the peer {detail}"))

    async def feed(self, frame: bytes | Inbound) -> list[Event]:
        """Act on one frame a transport pushes (an HTTP POST) without flushing; return its events.

        The caller routes on the events (which requests are answered, which were cancelled),
        then calls ``flush()`` when it is ready for what the session queued.
        """
        events = self.session.receive(frame)
        for event in events:
            await self._handle(event)
        return events

    async def _handle(self, event: Event) -> None:
        if isinstance(event, Notification):
            try:
                outcome = self._on_notification(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:  # a faulty notification handler must not stop the connection
                logger.exception("handler of notification %s failed", event.method)
        elif isinstance(event, Progress):
            await self._report_progress(event)
        else:
            self._handle_now(event)

    def _handle_now(self, event: Event) -> None:
        """Act on an event that needs no waiting (all but notifications and progress)."""
        if isinstance(event, Request):
            # Started at once: a handler that answers without waiting costs no task, no turn.
            self._handlers.start(event.id, self._answer(event))
        elif isinstance(event, Response):
            self._settle(event.id, result=event.result)
        elif isinstance(event, ErrorResponse):
            if isinstance(event.id, int):
                self._settle(event.id, error=MCPError.from_error(event.error))
        elif isinstance(event, InvalidResponse):
            self._settle(event.id, error=event.error)
        elif isinstance(event, Cancelled):
            self._handlers.cancel(event.request_id)
        elif isinstance(event, ProtocolViolation):
            self.violations.append(event)
            del self.violations[:-VIOLATIONS_KEPT]

    def _settle(
        self, request_id: int, *, result: Any = None, error: BaseException | None = None
    ) -> None:
        future = self._waiting.get(request_id)
        if future is None or future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    async def _report_progress(self, event: Progress) -> None:
        callback = self._progress.get(event.request_id)
        if callback is not None:
            await report_progress(callback, event.params, event.request_id)

    async def _answer(self, request: Request) -> None:
        """Run the handler of one incoming request and send its result or error (a result
        by plain calls where the transport takes lines: ``answer_now``)."""
        CURRENT_REQUEST.set(request.id)
        complete = self.complete
        try:
            try:
                result = await self._on_request(request)
            except Exception as exc:
                if self.rescue is None:
                    raise
                result = self.rescue(exc)
            if complete is not None:
                result = complete(request.method, result)
        except asyncio.CancelledError:
            # Cancelled by the peer (no answer is due) or by our shutdown.
            return
        except MCPError as exc:
            self.session.send_error(request.id, exc.code, exc.message, _data(exc.data))
        except RemoteProtocolError as exc:
            self.session.send_error(request.id, exc.code, exc.message, exc.data)
        except Unavailable as exc:  # a shared service away: worth trying again, no bug here
            logger.warning("handler of %s (request %s): %s", request.method, request.id, exc)
            retry = {"retryAfter": RETRY_AFTER_S}
            self.session.send_error(request.id, INTERNAL_ERROR, UNAVAILABLE_MESSAGE, retry)
        except Exception:  # logged here; the client reads no detail of our internals
            logger.exception("handler of %s (request %s) failed", request.method, request.id)
            self.session.send_error(request.id, INTERNAL_ERROR, "Internal error")
        else:
            try:
                rest = self.answer_now(request.id, result)
            except LocalProtocolError as exc:
                logger.exception("cannot send the answer to %s %s", request.method, request.id)
                self.session.send_error(request.id, INTERNAL_ERROR, f"Internal error: {exc}")
            else:
                if rest is not None:
                    self._running.pop(request.id, None)
                    await rest
                return
        finally:
            self._running.pop(request.id, None)  # answered: no cancellation reaches it now
        rest = self.flush_now()
        if rest is not None:
            await rest

    # -- closing -------------------------------------------------------------------------

    def _close_with(self, error: ConnectionClosed) -> None:
        if self._closed is None:
            self._closed = error
            self.session.close()
        self._deadlines.clear()
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(self._closed)
        self._handlers.cancel_all()

    @property
    def idle(self) -> bool:
        """Whether nothing is under way: no handler running, no request of ours pending."""
        return self._closed is None and not self._handlers and not self._waiting

    @property
    def closed(self) -> bool:
        """Whether the connection has ended."""
        return self._closed is not None

    async def close(self) -> None:
        """Close the transport and fail whatever is still pending."""
        self._close_with(ConnectionClosed("the connection was closed"))
        await self.transport.close()


_TOKENS = iter(range(1, sys.maxsize))
_PLAIN_CREATE_FUTURE = asyncio.BaseEventLoop.create_future
"""asyncio's own loops' ``create_future``: a Python method making an ``asyncio.Future``."""


async def report_progress(
    callback: ProgressCallback[ProgressParamsT], params: ProgressParamsT, request: object
) -> None:
    """Call a progress callback (sync or async); its failure is logged, never raised."""
    try:
        outcome = callback(params)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception:
        logger.exception("progress callback of request %s failed", request)


def _next_token() -> int:
    """Return a fresh progress token (unique in this process)."""
    return next(_TOKENS)


def _name(method: str | MethodSpec[Any, Any]) -> str:
    return method if isinstance(method, str) else method.method


def _data(value: Any) -> Any:
    return msgspec.UNSET if value is None else value
