# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The client's request path without a handshake: per-request ``_meta``, input rounds, listen.

A client of a revision without ``initialize`` runs its ``Peer`` in the ``STATELESS`` phase and
sends every request through ``StatelessRequests``: the params get ``_meta`` with the protocol
version, the client's capabilities (from its overridden ``on_*`` handlers), its name and version
(fixed at connect, as ``initialize`` declares them) and, when set, the log level. Results are
decoded typed by the session's reader in one pass; a request that may ask for input first is
sent as a variant whose result is the method's result or an ``InputRequired``. Such an answer
is met by the client's own handlers (``on_elicit``, ``on_create_message``, ``on_list_roots``,
found through ``dispatch.py`` as a server's request would be) and the request is sent again
with ``inputResponses`` and the echoed ``requestState``, at most ``max_rounds`` times.

``subscriptions/listen`` runs over the same peer: its notifications carry the listen request's
id under ``_meta`` and are routed to that listen's callback instead of ``on_notification``.

``probe`` sends ``server/discover`` and raises ``HandshakeServer`` on the answers that mean the
server speaks the initialize era: -32601 or any error only a handshake server sends (anything
outside -32020/-32021/-32022), -32022 not listing our version, a version list without ours,
silence within the probe timeout, or a server that closed the connection (over HTTP: a 4xx
without a JSON-RPC error body).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final, Union, cast

import msgspec
from msgspec import UNSET, UnsetType

from ..core.codec import convert
from ..core.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    ConnectionClosed,
    MCPError,
    RemoteProtocolError,
    RequestTimeout,
)
from ..core.events import Notification, Request
from ..core.meta import (
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_VERSION,
    STATELESS_ERRORS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..core.methods import MethodSpec, VariantSpec
from ..core.transport import STREAM_CLOSED
from ..core.wire import as_object
from .connection import Connection
from .dispatch import dispatch_request
from .peer import ProgressCallback
from .subscriptions import ACKNOWLEDGED, SUBSCRIPTION_ID
from .task_client import CreatedTask, accepting_task, accepts_task, declaring, follow

log = logging.getLogger(__name__)

DEFAULT_MAX_ROUNDS: Final = 8
"""How many times a request is sent before an answer that still asks for input fails it."""
DEFAULT_PROBE_TIMEOUT: Final = 5.0
"""How long auto mode waits for ``server/discover`` before trying ``initialize``."""

OnNotification = Callable[[str, Any], Awaitable[None]]
"""Receives (method, params as a JSON object) of each notification of one listen stream."""


class HandshakeServer(Exception):
    """The probe says the server speaks the initialize era (the reason is the message)."""

    def __init__(self, reason: str, *, exited: bool = False) -> None:
        super().__init__(reason)
        self.exited = exited
        """Whether the server closed the connection on the probe (start it again to retry)."""


class InputRequest(msgspec.Struct, kw_only=True):
    """One question of an ``InputRequiredResult``: a server request, decoded once its method
    is known (its params by that method's type)."""

    method: str
    params: Any = None


class InputRequired(msgspec.Struct, kw_only=True, tag_field="resultType", tag="input_required"):
    """The interim answer of a request that needs input first (what the client reads of it)."""

    input_requests: dict[str, InputRequest] | UnsetType = msgspec.field(
        default=UNSET, name="inputRequests"
    )
    request_state: str | UnsetType = msgspec.field(default=UNSET, name="requestState")


def asking(spec: MethodSpec[Any, Any]) -> MethodSpec[Any, Any]:
    """The variant of a row that may ask for input: its result or an ``InputRequired``.

    Made once per row and kept by the row's identity (hashing a row hashes its types)."""
    if not spec.input_required:
        return spec
    found = _ASKING.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    row = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    row["result"] = Union[spec.result, InputRequired]  # noqa: UP007 (a runtime type object)
    variant: MethodSpec[Any, Any] = VariantSpec(**row)
    if len(_ASKING) >= 256:  # rows are few; only tests make many
        _ASKING.clear()
    _ASKING[id(spec)] = (spec, variant)
    return variant


_ASKING: dict[int, tuple[MethodSpec[Any, Any], MethodSpec[Any, Any]]] = {}


class _Listener:
    """Where the notifications of one listen stream go, once its id is known."""

    def __init__(self, deliver: OnNotification) -> None:
        self.deliver = deliver
        self.id: object = None
        self.claimed = asyncio.Event()


class StatelessRequests:
    """Sends a client's requests without a handshake (``_meta``, input rounds, listen)."""

    def __init__(
        self,
        conn: Connection,
        version: str,
        capabilities: dict[str, Any],
        client_info: dict[str, Any],
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        log_level: str | None = None,
        tasks: bool = False,
    ) -> None:
        self.conn = conn
        self.version = version
        self.max_rounds = max_rounds
        self.log_level = log_level
        self.tasks = tasks
        """Whether the client declares the tasks extension: a plain ``tools/call`` that the
        server makes a task is followed to its end (``task_client.follow``)."""
        # Declared once, as initialize declares them: every request carries the same keys.
        self._capabilities = capabilities
        self._client_info = client_info
        self._cached: tuple[str, str | None, dict[str, Any]] | None = None
        self._listeners: dict[object, _Listener] = {}
        self._opening: _Listener | None = None
        self._open_lock = asyncio.Lock()

    # -- _meta ---------------------------------------------------------------------------

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

    def with_meta(self, params: object) -> object:
        """``params`` (None, a JSON object or a generated Struct) with this client's ``_meta``.

        Client capabilities the params' own ``_meta`` states stand (a bridge forwarding for a
        client that lacks one of ours); the other keys of ours replace theirs.
        """
        meta = self._shared_meta()
        if params is None:
            return {"_meta": meta}
        if isinstance(params, msgspec.Struct) and "meta" in params.__struct_fields__:
            stated = getattr(params, "meta")  # noqa: B009 (a field of any params Struct)
            if stated is UNSET:  # the common case: ours as they are
                return msgspec.structs.replace(params, meta=meta)
            return msgspec.structs.replace(params, meta=_merged(as_object(stated), meta))
        body = as_object(msgspec.to_builtins(params))
        if body is None:
            raise MCPError(INVALID_PARAMS, f"params must be an object, not {type(params).__name__}")
        return {**body, "_meta": _merged(as_object(body.get("_meta")), meta)}

    # -- requests ------------------------------------------------------------------------

    async def send(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """One request with this client's ``_meta``; once more on -32022 naming our version."""
        body = self.with_meta(params)
        peer = self.conn.peer
        try:
            try:
                return await peer.request(spec, body, timeout=timeout, progress=progress)
            except MCPError as exc:
                if not _lists_our_version(exc, self.version):
                    raise
            # the server (or a proxy before it) changed between two requests: retry once
            return await peer.request(spec, body, timeout=timeout, progress=progress)
        except MCPError as exc:
            data = as_object(exc.data)
            if data is not None and data.get(STREAM_CLOSED) is True:
                raise ConnectionClosed(exc.message) from None
            raise

    async def request(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """Send a request, answer its input rounds, return its typed result (a task the server
        made of a plain ``tools/call`` of a client declaring the tasks extension: followed)."""
        if not spec.input_required:
            return await self.send(spec, params, timeout, progress)
        follows = self.tasks and spec.method == "tools/call" and not accepts_task(spec)
        variant = asking(accepting_task(spec) if follows else spec)
        for _ in range(self.max_rounds):
            result = await self.send(variant, params, timeout, progress)
            if follows and isinstance(result, CreatedTask):
                return await follow(self, spec, result, timeout)
            if not isinstance(result, InputRequired):
                return result
            params = await self._next_round(params, result)
        message = f"{spec.method}: still input_required after {self.max_rounds} rounds"
        raise MCPError(INTERNAL_ERROR, message)

    async def _next_round(self, params: Any, asked: InputRequired) -> Any:
        """The params of the next round: the answers to what was asked, the echoed state."""
        answers: dict[str, Any] | UnsetType = UNSET
        if not isinstance(asked.input_requests, UnsetType) and asked.input_requests:
            answers = await self._answer(asked.input_requests)
        state = asked.request_state
        if isinstance(params, msgspec.Struct):
            return msgspec.structs.replace(params, input_responses=answers, request_state=state)
        body = {
            k: v
            for k, v in cast(dict[str, Any], params).items()
            if k not in ("inputResponses", "requestState")
        }
        if not isinstance(answers, UnsetType):
            body["inputResponses"] = answers
        if not isinstance(state, UnsetType):
            body["requestState"] = state
        return body

    async def answer_json(self, requests: Mapping[str, Any]) -> dict[str, Any]:
        """Answer input requests given as JSON (a task's ``inputRequests``), by key."""
        try:
            asked = {key: convert(value, InputRequest) for key, value in requests.items()}
        except msgspec.ValidationError as exc:
            raise MCPError(INVALID_PARAMS, f"the server asked with a bad request: {exc}") from None
        return await self._answer(asked)

    async def _answer(self, requests: Mapping[str, InputRequest]) -> dict[str, Any]:
        """Answer every question at once with the client's handlers (through ``dispatch``)."""

        async def one(key: str, asked: InputRequest) -> tuple[str, Any]:
            spec = self.conn.methods.get(asked.method)
            if spec is None or spec.kind != "request" or spec.direction == "client":
                raise MCPError(METHOD_NOT_FOUND, f"the server asked for {asked.method!r}")
            try:
                typed = None if asked.params is None else convert(asked.params, spec.params)
            except msgspec.ValidationError as exc:
                message = f"{asked.method} asked with bad params: {exc}"
                raise MCPError(INVALID_PARAMS, message) from None
            return key, await dispatch_request(self.conn, Request(key, asked.method, typed))

        return dict(await asyncio.gather(*(one(k, r) for k, r in requests.items())))

    # -- listen --------------------------------------------------------------------------

    async def listen(self, notifications: Mapping[str, Any], deliver: OnNotification) -> Any:
        """Run ``subscriptions/listen``: hand its notifications to ``deliver`` until the server
        ends it (its typed result) or the caller cancels it (``notifications/cancelled``)."""
        spec = self.conn.methods["subscriptions/listen"]
        listener = _Listener(deliver)
        params: dict[str, Any] = {"notifications": dict(notifications)}
        if "taskIds" in notifications:  # the tasks extension's filter: declare it for this one
            caps = as_object(self._capabilities) or {}
            params["_meta"] = {META_CAPABILITIES: declaring(caps)}
        call: asyncio.Future[Any] | None = None
        try:
            async with self._open_lock:  # one listen awaits its acknowledgement at a time
                self._opening = listener
                try:
                    call = asyncio.ensure_future(self.send(spec, params, None, None))
                    claimed = asyncio.ensure_future(listener.claimed.wait())
                    await asyncio.wait((call, claimed), return_when=asyncio.FIRST_COMPLETED)
                    claimed.cancel()
                finally:
                    self._opening = None
            return await asyncio.shield(call)  # a cancelled caller cancels it below, by name
        finally:
            self._listeners.pop(listener.id, None)
            if call is not None and not call.done():
                self._cancel_listen(listener)
                call.cancel()
                with contextlib.suppress(BaseException):
                    await call

    def _cancel_listen(self, listener: _Listener) -> None:
        """Cancel a listen request on the wire, saying the client ended it."""
        peer = self.conn.peer
        if isinstance(listener.id, int) and listener.id in peer.session.pending_requests:
            peer.session.cancel(listener.id, "cancelled by the client")

    async def route(self, notification: Notification) -> bool:
        """Hand a listen stream's notification to its listener; False when it is none's."""
        params: object = notification.params
        meta: object = (
            cast(dict[str, Any], params).get("_meta")
            if isinstance(params, dict)  # a runtime row's params (the tasks extension's)
            else getattr(params, "meta", None)
        )
        if not isinstance(meta, dict) or SUBSCRIPTION_ID not in meta:
            return False
        key: object = cast(dict[str, Any], meta)[SUBSCRIPTION_ID]
        listener = self._listeners.get(key)
        opening = self._opening
        if listener is None and opening is not None and notification.method == ACKNOWLEDGED:
            listener = self._listeners[key] = opening
            opening.id = key
            opening.claimed.set()
        if listener is None:
            return False
        try:
            await listener.deliver(notification.method, msgspec.to_builtins(notification.params))
        except Exception:  # a faulty listener must not stop the connection
            log.exception("listener of %s failed", notification.method)
        return True


class Subscription:
    """A running ``subscriptions/listen``: ``honored`` filter, then change notifications."""

    def __init__(self, requests: StatelessRequests, notifications: Mapping[str, Any]) -> None:
        self._queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue(maxsize=1024)
        self._acked = asyncio.Event()
        self.honored: dict[str, Any] = {}
        """The filter the server honours (from its acknowledgement)."""
        self.result: Any = None
        """The listen result, once the server ended the subscription."""
        self._task = asyncio.ensure_future(self._run(requests, notifications))

    async def _run(self, requests: StatelessRequests, notifications: Mapping[str, Any]) -> None:
        async def deliver(method: str, params: Any) -> None:
            if method == ACKNOWLEDGED:
                self.honored = dict(params.get("notifications") or {})
                self._acked.set()
                return
            if self._queue.full():  # a slow reader: drop the oldest change, keep the newest
                self._queue.get_nowait()
            self._queue.put_nowait((method, params))

        try:
            self.result = await requests.listen(notifications, deliver)
        finally:
            self._acked.set()
            if self._queue.full():
                self._queue.get_nowait()
            self._queue.put_nowait(None)

    async def started(self, timeout: float | None) -> Subscription:
        """Wait for the acknowledgement (or for the request to fail)."""
        async with asyncio.timeout(timeout):
            await self._acked.wait()
        if self._task.done() and (failure := self._task.exception()) is not None:
            raise failure
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
        """Cancel the subscription (``notifications/cancelled``; over HTTP its stream closes)."""
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


@contextlib.asynccontextmanager  # pyright: ignore[reportDeprecated]
async def open_listen(
    requests: StatelessRequests | None, timeout: float | None, notifications: Mapping[str, Any]
) -> AsyncIterator[Subscription]:
    """A listen stream over ``requests`` (None: the client is not connected without handshake)."""
    if requests is None:
        raise MCPError(
            METHOD_NOT_FOUND, "subscriptions/listen needs a connection without handshake"
        )
    subscription = Subscription(requests, notifications)
    try:
        yield await subscription.started(timeout)
    finally:
        await subscription.close()


def _merged(own: dict[str, Any] | None, meta: dict[str, Any]) -> dict[str, Any]:
    """A request's own ``_meta`` with the client's keys, its own capabilities kept."""
    if own is None:
        return meta
    if META_CAPABILITIES in own:
        return {**own, **meta, META_CAPABILITIES: own[META_CAPABILITIES]}
    return {**own, **meta}


async def probe(requests: StatelessRequests, timeout: float | None) -> Any:
    """Send ``server/discover``; return its typed result or raise ``HandshakeServer``."""
    spec = requests.conn.methods["server/discover"]
    try:
        result = await requests.send(spec, None, timeout, None)
    except RequestTimeout:
        raise HandshakeServer("the server did not answer server/discover") from None
    except ConnectionClosed as exc:
        reason = f"the server closed the connection on server/discover: {exc}"
        raise HandshakeServer(reason, exited=True) from None
    except RemoteProtocolError as exc:  # a result that is no discover result: not ours
        raise HandshakeServer(f"server/discover answered no discover result: {exc}") from None
    except MCPError as exc:
        listed = _supported(exc)
        unsupported = exc.code == UNSUPPORTED_PROTOCOL_VERSION
        if unsupported and listed is not None and requests.version not in listed:
            raise HandshakeServer(f"the server supports {listed}") from None
        if exc.code not in STATELESS_ERRORS:
            raise HandshakeServer(f"server/discover answered {exc.code}: {exc.message}") from None
        raise
    versions: object = getattr(result, "supported_versions", None)
    if not isinstance(versions, list) or requests.version not in cast(list[object], versions):
        raise HandshakeServer(f"the server supports {versions}, not {requests.version}")
    return result


def _supported(error: MCPError) -> list[object] | None:
    """The ``data.supported`` list of an error answer, if it has one."""
    data = as_object(error.data)
    found: object = None if data is None else data.get("supported")
    return cast(list[object], found) if isinstance(found, list) else None


def _lists_our_version(error: MCPError, version: str) -> bool:
    """Whether an error is -32022 naming ``version`` as supported (worth one retry)."""
    listed = _supported(error)
    return error.code == UNSUPPORTED_PROTOCOL_VERSION and listed is not None and version in listed
