# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The modern (2026-07-28) client: per-request ``_meta``, MRTR answered by ``on_*`` handlers.

A generated 2026-07-28 ``Client`` connected with ``connect_modern`` sends every request
through a ``ModernSession``: the params get ``_meta`` with ``protocolVersion``,
``clientCapabilities`` (from the overridden ``on_*`` handlers), ``clientInfo`` (both fixed at
connect, as ``initialize`` declares them) and, when set, ``logLevel``. An
``InputRequiredResult`` is answered by calling the client's own ``on_elicit`` /
``on_create_message`` / ``on_list_roots`` (the handlers that answer server->client requests
in the legacy era) and retried with ``inputResponses`` and the echoed ``requestState``, at
most ``max_rounds`` times. Results are told apart by ``resultType``; a missing one is
"complete" (older servers).

Channels carry one request and its related notifications: ``StreamChannel`` over a stdio or
memory transport (one reader; responses by id, listen notifications by subscriptionId),
``HttpChannel`` over Streamable HTTP (one POST per request, JSON or SSE answer, the
2026-07-28 headers). ``connect_auto`` probes ``server/discover`` and falls back to a legacy
client on -32601 or any non-modern error, HTTP 400/404/405 without a modern error body,
silence within ``probe_timeout``, or a server that exits (it is started again).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, cast

import msgspec

from ..core.codec import convert
from ..core.errors import MCPError, RemoteProtocolError
from ..core.events import Request
from ..core.frame_guard import decode_untyped
from ..core.meta import (
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_SERVER_INFO,
    META_VERSION,
    STATELESS_ERRORS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..core.transport import ConnectionClosed, Transport
from ..core.wire import Inbound, as_object
from .connection import RequestContext
from .dual import describe
from .modern_connection import field, obj
from .peer import ProgressCallback, report_progress
from .subscriptions import SUBSCRIPTION_ID

if TYPE_CHECKING:
    from .client import ClientBase

log = logging.getLogger(__name__)

DEFAULT_MAX_ROUNDS: Final = 8
DEFAULT_PROBE_TIMEOUT: Final = 5.0
SLOW_START_FACTOR: Final = 4
"""How much longer the second probe waits, after a silent first one and a refused initialize."""
_INPUT_ROUTES: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}

Frame = dict[str, Any]
OnNotification = Callable[[str, Any], Awaitable[None]]
ModernT = TypeVar("ModernT", bound="ClientBase[Any]")
LegacyT = TypeVar("LegacyT", bound="ClientBase[Any]")


class LegacyServer(Exception):
    """The probe says the server speaks the initialize era (the reason is the message)."""


class Channel(Protocol):
    """Carries one request at a time (several concurrently) and its related notifications."""

    async def call(
        self, frame: Frame, timeout: float | None, related: OnNotification | None
    ) -> Frame:
        """Send a request frame; return the response frame (result or error)."""
        ...

    async def close(self) -> None:
        """Release the channel."""
        ...


class StreamChannel:
    """A channel over a frame transport (stdio, memory): one reader routes what arrives."""

    def __init__(self, transport: Transport, on_notification: OnNotification) -> None:
        self.transport = transport
        self._on_notification = on_notification
        self._pending: dict[Any, asyncio.Future[Frame]] = {}
        self._related: dict[Any, OnNotification] = {}
        self._reader = asyncio.ensure_future(self._read())
        self.closed: BaseException | None = None

    async def _read(self) -> None:
        try:
            while (raw := await self.transport.read()) is not None:
                if isinstance(raw, Inbound):  # refused unread (too long)
                    continue
                try:
                    frame = decode_untyped(raw)
                except RemoteProtocolError:
                    continue
                message = as_object(frame)
                if message is not None:
                    await self._route(message)
            self.closed = ConnectionClosed("the server closed the connection")
        except ConnectionClosed as exc:
            self.closed = exc
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(self.closed or ConnectionClosed("closed"))

    async def _route(self, frame: Frame) -> None:
        method = frame.get("method")
        if method is None:
            future = self._pending.get(frame.get("id"))
            if future is not None and not future.done():
                future.set_result(frame)
            return
        if "id" in frame:  # no server->client requests in this era
            return
        params = obj(frame.get("params"))
        key: Any = field(params, "_meta", SUBSCRIPTION_ID)
        if key is None and method == "notifications/progress":
            key = ("progress", params.get("progressToken"))
        handler = self._related.get(key)
        with contextlib.suppress(Exception):
            await (handler or self._on_notification)(method, params)

    async def call(
        self, frame: Frame, timeout: float | None, related: OnNotification | None
    ) -> Frame:
        """Write the request and wait for its response; cancel it on timeout/cancellation."""
        if self.closed is not None:
            raise ConnectionClosed(str(self.closed))
        request_id = frame["id"]
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        keys = [request_id]
        token = frame.get("params", {}).get("_meta", {}).get("progressToken")
        if token is not None:
            keys.append(("progress", token))
        for key in keys:
            if related is not None:
                self._related[key] = related
        try:
            await self.transport.write(describe(frame))
            async with asyncio.timeout(timeout):  # no extra task per call, unlike wait_for
                return await future
        except (asyncio.CancelledError, TimeoutError):
            with contextlib.suppress(Exception):
                cancel = {"requestId": request_id, "reason": "cancelled by the client"}
                note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
                await self.transport.write(describe(note))
            raise
        finally:
            self._pending.pop(request_id, None)
            for key in keys:
                self._related.pop(key, None)

    async def detach(self) -> None:
        """Stop reading (the transport is handed to a legacy client)."""
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader

    async def close(self) -> None:
        """Close the transport."""
        await self.detach()
        await self.transport.close()


class ModernSession:
    """Sends a client's requests in the modern era (``_meta``, MRTR, resultType)."""

    def __init__(
        self,
        client: Any,
        channel: Channel,
        version: str,
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        log_level: str | None = None,
    ) -> None:
        self.client = client
        self.channel = channel
        self.version = version
        self.max_rounds = max_rounds
        self.log_level = log_level
        self._ids = itertools.count(1)
        # Declared once, as initialize declares them: every request carries the same keys.
        self._capabilities = client.capabilities()
        self._client_info = {"name": client.name, "version": client.version}
        self._cached: tuple[str, str | None, dict[str, Any]] | None = None

    def meta(self) -> dict[str, Any]:
        """The per-request ``_meta`` keys of this client (a copy to change at will)."""
        return copy.deepcopy(self._shared_meta())

    def _shared_meta(self) -> dict[str, Any]:
        """``meta()`` made once per (version, log level); only ever read (encoded into frames)."""
        cached = self._cached
        if cached is not None and cached[0] == self.version and cached[1] == self.log_level:
            return cached[2]
        meta: dict[str, Any] = {
            META_VERSION: self.version,
            META_CAPABILITIES: self._capabilities,
            META_CLIENT_INFO: self._client_info,
        }
        if self.log_level is not None:
            meta[META_LOG_LEVEL] = self.log_level
        self._cached = (self.version, self.log_level, meta)
        return meta

    async def send(
        self, method: str, params: Any, timeout: float | None, related: OnNotification | None
    ) -> Any:
        """One request/response, no MRTR; return the raw result or raise ``MCPError``."""
        body = as_object(params)
        if body is None:
            body = obj(msgspec.to_builtins(params))
        meta = self._shared_meta()
        own = as_object(body.get("_meta"))
        body = {**body, "_meta": meta if own is None else {**own, **meta}}
        frame = {"jsonrpc": "2.0", "id": f"m{next(self._ids)}", "method": method, "params": body}
        response = await self.channel.call(frame, timeout, related)
        if "error" in response and _retry_same_version(response, self.version):
            # -32022 that lists our version (a server that changed, or a proxy): retry once
            frame = {**frame, "id": f"m{next(self._ids)}"}
            response = await self.channel.call(frame, timeout, related)
        error = as_object(response.get("error"))
        if error is not None:
            code = error.get("code")
            code = code if isinstance(code, int) else -32603
            raise MCPError(code, str(error.get("message")), error.get("data"))
        result = as_object(response.get("result"))
        if result is None:
            raise MCPError(-32603, f"{method}: the response has no result object")
        return result

    async def request(
        self,
        method: str,
        params: Any,
        timeout: float | None = None,
        progress: ProgressCallback[Any] | None = None,
    ) -> Any:
        """Send a request, answer input rounds, return the typed result."""
        spec = self.client.METHODS[method]
        body = obj(msgspec.to_builtins(params))
        related = None
        if progress is not None:
            related = _progress_relay(progress, self.client.METHODS["notifications/progress"])
        if progress is not None:
            body["_meta"] = {**obj(body.get("_meta")), "progressToken": f"p{id(body)}"}
        for _ in range(self.max_rounds):
            result = await self.send(method, body, timeout, related)
            kind = result.get("resultType", "complete")
            if kind == "complete":
                return convert(result, spec.result) if spec.result is not None else result
            if kind != "input_required":
                raise MCPError(-32603, f"{method}: unknown resultType {kind!r}")
            body = {k: v for k, v in body.items() if k not in ("inputResponses", "requestState")}
            requests = as_object(result.get("inputRequests"))
            if requests:
                body["inputResponses"] = await self._answer(requests)
            if "requestState" in result:
                body["requestState"] = result["requestState"]
        raise MCPError(-32603, f"{method}: still input_required after {self.max_rounds} rounds")

    async def _answer(self, requests: Mapping[str, Any]) -> dict[str, Any]:
        async def one(key: str, request: Any) -> tuple[str, Any]:
            method = field(request, "method")
            attr = self.client.ROUTES.get(method) if isinstance(method, str) else None
            if attr is None or method not in _INPUT_ROUTES:
                raise MCPError(-32601, f"the server asked for {method!r}, which this client lacks")
            spec = self.client.METHODS[method]
            typed = convert(obj(field(request, "params")), spec.params)
            handler = getattr(self.client, attr)
            answer = await handler(typed, RequestContext(self.client, Request(key, method, typed)))
            return key, msgspec.to_builtins(answer)

        pairs = await asyncio.gather(*(one(k, r) for k, r in requests.items()))
        return dict(pairs)

    async def listen(
        self, notifications: Mapping[str, Any], on_notification: OnNotification
    ) -> Any:
        """Run ``subscriptions/listen``: deliver its notifications until it ends or is cancelled."""
        return await self.send(
            "subscriptions/listen", {"notifications": dict(notifications)}, None, on_notification
        )


class Subscription:
    """A running ``subscriptions/listen``: ``honored`` filter, then change notifications."""

    def __init__(self, session: ModernSession, notifications: Mapping[str, Any]) -> None:
        self._queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue(maxsize=1024)
        self._acked = asyncio.Event()
        self.honored: dict[str, Any] = {}
        self.result: Any = None
        self._task = asyncio.ensure_future(self._run(session, notifications))

    async def _run(self, session: ModernSession, notifications: Mapping[str, Any]) -> None:
        async def deliver(method: str, params: Any) -> None:
            if method == "notifications/subscriptions/acknowledged":
                self.honored = dict(params.get("notifications") or {})
                self._acked.set()
                return
            if self._queue.full():  # a slow reader: drop the oldest change, keep the newest
                self._queue.get_nowait()
            self._queue.put_nowait((method, params))

        try:
            self.result = await session.listen(notifications, deliver)
        finally:
            self._acked.set()
            self._queue.put_nowait(None)

    async def started(self, timeout: float | None) -> Subscription:
        """Wait for the acknowledgement (or for the request to fail)."""
        async with asyncio.timeout(timeout):
            await self._acked.wait()
        if self._task.done() and self._task.exception() is not None:
            raise self._task.exception()  # type: ignore[misc]
        return self

    def __aiter__(self) -> Subscription:
        """Iterate over (method, params) of each change notification."""
        return self

    async def __anext__(self) -> tuple[str, Any]:
        """The next change; the iteration ends when the server ends the subscription."""
        item = await self._queue.get()
        if item is None:
            raise StopAsyncIteration
        return item

    async def close(self) -> None:
        """Cancel the subscription (stdio: notifications/cancelled; HTTP: close the stream)."""
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


@contextlib.asynccontextmanager  # pyright: ignore[reportDeprecated]
async def listen(
    client: Any, *, timeout: float | None = 30.0, **notifications: Any
) -> AsyncIterator[Subscription]:
    """Open a listen stream: ``async with listen(c, toolsListChanged=True) as sub``, iterate."""
    if client.modern is None:
        raise MCPError(-32601, "subscriptions/listen needs a 2026-07-28 connection")
    subscription = Subscription(client.modern, notifications)
    try:
        yield await subscription.started(timeout)
    finally:
        await subscription.close()


def _retry_same_version(response: Frame, version: str) -> bool:
    """Whether an answer is -32022 naming ``version`` as supported (worth one retry)."""
    if field(response, "error", "code") != UNSUPPORTED_PROTOCOL_VERSION:
        return False
    supported = field(response, "error", "data", "supported")
    return isinstance(supported, list) and version in cast("list[object]", supported)


def _progress_relay(progress: ProgressCallback[Any], spec: Any) -> OnNotification:
    """Hand each progress notification of one request to its callback, as the revision's
    typed params (as the initialize era does); params that do not fit are dropped."""

    async def relay(method: str, params: Any) -> None:
        if method != "notifications/progress":
            return
        try:
            typed = convert(params, spec.params)
        except msgspec.ValidationError as exc:
            log.warning("progress notification dropped: %s", exc)
            return
        await report_progress(progress, typed, params.get("progressToken"))

    return relay


async def probe(session: ModernSession, timeout: float | None) -> tuple[str, dict[str, Any]]:
    """Send ``server/discover``; return (version, result) or raise ``LegacyServer``."""
    try:
        result = await session.send("server/discover", None, timeout, None)
    except TimeoutError:
        raise LegacyServer("the server did not answer server/discover") from None
    except ConnectionClosed as exc:
        raise LegacyServer(f"the server closed the connection on server/discover: {exc}") from None
    except MCPError as exc:
        supported = field(exc.data, "supported")
        listed = cast("list[object]", supported) if isinstance(supported, list) else None
        unsupported = exc.code == UNSUPPORTED_PROTOCOL_VERSION
        if unsupported and listed is not None and session.version not in listed:
            raise LegacyServer(f"the server supports {listed}") from None
        if exc.code not in STATELESS_ERRORS:
            raise LegacyServer(f"server/discover answered {exc.code}: {exc.message}") from None
        raise
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or session.version not in cast("list[object]", versions):
        raise LegacyServer(f"the server supports {versions}, not {session.version}")
    return session.version, result


async def connect_modern(
    client: Any,
    channel: Channel,
    *,
    discover: bool = True,
    probe_timeout: float | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    log_level: str | None = None,
) -> dict[str, Any]:
    """Attach a 2026-07-28 client to a channel (probing ``server/discover``); return its result."""
    session = ModernSession(
        client, channel, client.PROTOCOL_VERSION, max_rounds=max_rounds, log_level=log_level
    )
    result: dict[str, Any] = {}
    if discover:
        _, result = await probe(
            session, probe_timeout if probe_timeout is not None else client.timeout
        )
        client.their_capabilities = dict(obj(result.get("capabilities")))
        info = field(result, "_meta", META_SERVER_INFO)
        client.server_info = dict(obj(info))
        client.instructions = result.get("instructions")
    else:  # pinned without a probe: the server's capabilities are unknown, refuse nothing locally
        client.their_capabilities = {
            spec.capability.split(".")[0]: {}
            for spec in client.METHODS.values()
            if spec.capability is not None
        }
    client.protocol_version = client.PROTOCOL_VERSION
    client.modern = session
    return result


async def connect_auto(
    modern: ModernT,
    legacy: Sequence[LegacyT],
    open_transport: Callable[[], Awaitable[Transport]],
    *,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
) -> ModernT | LegacyT:
    """Connect over a stream transport in auto mode; return the client that connected.

    Probe with ``server/discover`` (modern client); on a legacy answer, silence, or exit, the
    newest-first ``legacy`` clients negotiate with ``initialize`` (on the same transport, or
    on a new one from ``open_transport`` when the server exited).
    """
    from .client import connect_any

    transport = await open_transport()
    channel = StreamChannel(transport, modern.on_notification)
    try:
        await connect_modern(modern, channel, probe_timeout=probe_timeout)
        return modern
    except LegacyServer:
        if not legacy:
            await channel.close()
            raise
    exited = channel.closed is not None
    await channel.detach()
    if exited:
        with contextlib.suppress(Exception):
            await transport.close()
        transport = await open_transport()
    try:
        return await connect_any(transport, list(legacy))
    except MCPError:
        # Silence, then an error to initialize: a modern server that was slow to start.
        # Start it again and probe patiently (connect_any closed the transport).
        channel = StreamChannel(await open_transport(), modern.on_notification)
        try:
            await connect_modern(modern, channel, probe_timeout=probe_timeout * SLOW_START_FACTOR)
        except BaseException:
            await channel.close()
            raise
        return modern
