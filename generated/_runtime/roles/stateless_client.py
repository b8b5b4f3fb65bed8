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
id under ``_meta`` and are routed to that listen's callback instead of ``on_notification``
(``listen_client.py``: the ``Subscription`` iterator over it).

``StatelessRequests`` is such a client's ``sender`` (``client_send.py``): the ``_meta`` is made
once per connection (again only when ``version`` or ``log_level`` is set), and how each row
is sent (itself, or the variant that may ask for input or become a task) once per row.

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
from collections.abc import Awaitable, Callable, Mapping
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
MAX_ROWS: Final = 256
"""Most rows (and variants) a client without handshake keeps how it sends them for."""
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


class _Untyped:
    """No params are of this type: a row whose params have no ``_meta`` field names it."""


class _Row(msgspec.Struct, frozen=True, gc=False):
    """How a client without handshake sends one row (worked out once per row)."""

    spec: MethodSpec[Any, Any]
    sent: MethodSpec[Any, Any]
    """The row itself, or the variant that may answer ``InputRequired`` (or a task)."""
    follows: bool
    """Whether a task the server makes of the call is followed to its end."""
    typed: type[Any]
    """The params Struct with a ``meta`` field whose ``_meta`` is set without a look."""


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
        self.max_rounds = max_rounds
        self.tasks = tasks
        """Whether the client declares the tasks extension: a plain ``tools/call`` that the
        server makes a task is followed to its end (``task_client.follow``)."""
        # Declared once, as initialize declares them: every request carries the same keys.
        self._capabilities = capabilities
        self._client_info = client_info
        self._version = version
        self._log_level = log_level
        self._meta = self._made_meta()
        self._rows: dict[int, _Row] = {}
        """How each row is sent, by the row's identity."""
        self._listeners: dict[object, _Listener] = {}
        self._opening: _Listener | None = None
        self._open_lock = asyncio.Lock()

    # -- _meta ---------------------------------------------------------------------------

    @property
    def version(self) -> str:
        """The protocol version every request states."""
        return self._version

    @version.setter
    def version(self, value: str) -> None:
        """State another version from the next request on."""
        self._version = value
        self._meta = self._made_meta()

    @property
    def log_level(self) -> str | None:
        """The log level every request asks for (None: no logs)."""
        return self._log_level

    @log_level.setter
    def log_level(self, value: str | None) -> None:
        """Ask for another log level from the next request on."""
        self._log_level = value
        self._meta = self._made_meta()

    def meta(self) -> dict[str, Any]:
        """The per-request ``_meta`` keys of this client (a copy to change at will)."""
        return copy.deepcopy(self._meta)

    def _made_meta(self) -> dict[str, Any]:
        """``meta()``, made once per version and log level; only ever read (encoded)."""
        meta: dict[str, Any] = {
            META_VERSION: self._version,
            META_CAPABILITIES: self._capabilities,
            META_CLIENT_INFO: self._client_info,
        }
        if self._log_level is not None:
            meta[META_LOG_LEVEL] = self._log_level
        return meta

    def with_meta(self, params: object) -> object:
        """``params`` (None, a JSON object or a generated Struct) with this client's ``_meta``.

        Client capabilities the params' own ``_meta`` states stand (a bridge forwarding for a
        client that lacks one of ours); the other keys of ours replace theirs.
        """
        meta = self._meta
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
        try:
            return await self.conn.peer.request(spec, body, timeout=timeout, progress=progress)
        except MCPError as exc:
            return await self._again(exc, spec, body, timeout, progress)

    async def _again(
        self,
        exc: MCPError,
        spec: MethodSpec[Any, Any],
        body: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """After an error answer: send again if it is -32022 naming our version (the server,
        or a proxy before it, changed between two requests), else raise it; a request whose
        stream ended before its answer raises ``ConnectionClosed``."""
        try:
            if not _lists_our_version(exc, self._version):
                raise exc
            return await self.conn.peer.request(spec, body, timeout=timeout, progress=progress)
        except MCPError as error:
            data = as_object(error.data)
            if data is not None and data.get(STREAM_CLOSED) is True:
                raise ConnectionClosed(error.message) from None
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
        row = self._rows.get(id(spec))
        if row is None or row.spec is not spec:
            row = self._row(spec)
        sent = row.sent
        found: Any = params  # the typed stubs' params: a Struct with ``_meta`` unset
        if type(params) is row.typed and found.meta is UNSET:
            body: Any = msgspec.structs.replace(found, meta=self._meta)
        else:
            body = self.with_meta(params)
        try:
            result = await self.conn.peer.request(sent, body, timeout=timeout, progress=progress)
        except MCPError as exc:
            result = await self._again(exc, sent, body, timeout, progress)
        if sent is spec:  # a request that asks for no input
            return result
        if row.follows and isinstance(result, CreatedTask):
            return await follow(self, spec, result, timeout)
        if not isinstance(result, InputRequired):
            return result
        return await self._rounds(spec, sent, params, result, timeout, progress, row.follows)

    def _row(self, spec: MethodSpec[Any, Any]) -> _Row:
        """How ``spec`` is sent (worked out once per row): as itself, or as the variant that
        may answer ``InputRequired`` (and a task, to follow when the extension is declared)."""
        follows = (
            spec.input_required
            and self.tasks
            and spec.method == "tools/call"
            and not accepts_task(spec)
        )
        sent = asking(accepting_task(spec) if follows else spec)
        fields: object = getattr(spec.params, "__struct_fields__", ())
        typed = spec.params if isinstance(fields, tuple) and "meta" in fields else _Untyped
        if len(self._rows) >= MAX_ROWS:  # rows are few; only tests make many variants
            self._rows.clear()
        row = self._rows[id(spec)] = _Row(spec, sent, follows, typed)
        return row

    async def _rounds(
        self,
        spec: MethodSpec[Any, Any],
        sent: MethodSpec[Any, Any],
        params: Any,
        asked: InputRequired,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
        follows: bool,
    ) -> Any:
        """The rounds after the first answer asked for input, at most ``max_rounds`` in all."""
        for _ in range(self.max_rounds - 1):
            params = await self._next_round(params, asked)
            result = await self.send(sent, params, timeout, progress)
            if follows and isinstance(result, CreatedTask):
                return await follow(self, spec, result, timeout)
            if not isinstance(result, InputRequired):
                return result
            asked = result
        message = f"{spec.method}: still input_required after {self.max_rounds} rounds"
        raise MCPError(INTERNAL_ERROR, message)

    async def notify(self, method: MethodSpec[Any, None], params: Any, related: bool) -> None:
        """Send a notification the capabilities allow (no ``_meta``: it answers nothing)."""
        spec = self.conn.check(method, sending=True)
        await self.conn.peer.notify(spec, params, related=related)

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
