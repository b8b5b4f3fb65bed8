# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The bridge's same-revision path: frames relayed as they came, not converted.

A stdio client asking for the revision its handshake upstream speaks (``bridge_stdio.py``
chooses) has every frame after its ``initialize`` relayed by ``Relay``: the client's
``notifications/initialized`` is dropped (the upstream had the bridge's), and every other
frame goes through unchanged, unknown fields and all. Each frame is still read: one
decode of the envelope, params and results kept raw. What the client sends passes the
guard first (frame size, UTF-8, depth, JSON, JSON-RPC shape, a request id in flight twice);
a frame that fails is answered with the error a server gives and nothing goes upstream.
A request from the upstream that needs a capability the client did not declare is refused
with the converting bridge's error (-32603, naming the capability); log messages below the
client's level (``info`` until it sets one) are dropped, the bridge having asked the
upstream for all. The ids the bridge itself used upstream (the probe, ``initialize``,
``logging/setLevel``: the tap records them) are never reused: a client request with one
(or with a string id in the bridge's own form) goes upstream under another id, mapped back
on its answer and its cancellation. The upstream going away answers the requests in flight
with -32603 before the bridge ends; the client closing its input waits (a bound) for
the answers in flight."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Final, Literal, cast

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..core.errors import INTERNAL_ERROR, ConnectionClosed, ErrorObject, RemoteProtocolError
from ..core.events import RequestId
from ..core.frame_guard import DEFAULT_MAX_DEPTH, decoded_problem, shape_problem
from ..core.lifecycle import gate
from ..core.message import WireId
from ..core.transport import PushesFrames, Transport
from ..core.wire import ENCODER, Envelope, Inbound, OutError, as_id, parse
from ..transports.lines import WRITE_GONE, HasPipeEnd, PipeEnd
from .bridge_tap import DECODE_ERRORS, UpstreamTap
from .connection import LOG_LEVELS, reaches
from .handshake import DEFAULT_LOG_LEVEL
from .peer import DRAIN_TIMEOUT_S

if TYPE_CHECKING:
    from .client import ClientBase

__all__ = ["Relay", "guarded", "with_member"]

LOG: Final = logging.getLogger(__name__)
OWN_IDS: Final = "mcpgen-bridge:"
"""The prefix of the ids a client request goes upstream under when its own cannot go."""
_MISSING: Final[Any] = object()
_NOTED: Final = frozenset({"initialize", "logging/setLevel"})
"""Client requests the relay does more with than pass them on (refused; the level noted)."""


class _Strict(Envelope, forbid_unknown_fields=True, gc=False):
    """An envelope with no other member: when it decodes, msgspec skipped nothing unchecked."""


class _Sent(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A client request or notification valid JSON-RPC by its types alone (``shape_problem``
    has nothing to say of it), with no other member: checked so in msgspec's one pass. What
    does not decode so (an answer to the upstream, anything wrong) takes ``guarded``."""

    jsonrpc: Literal["2.0"]
    method: str
    id: int | str | UnsetType = UNSET
    params: Raw | UnsetType = UNSET

    @property
    def result(self) -> UnsetType:
        """Never there: a ``result`` member is unknown, so it fails the decode (no default
        to fill per frame)."""
        return UNSET

    @property
    def error(self) -> UnsetType:
        """Never there: an ``error`` member is unknown, so it fails the decode."""
        return UNSET

    @property
    def shaped(self) -> bool:
        """Yes: its types checked the JSON-RPC shape."""
        return True


class _Head(msgspec.Struct, gc=False):
    """What the relay reads of an upstream frame (the rest, a result above all, is skipped)."""

    id: str | int | UnsetType | None = UNSET
    method: str | UnsetType = UNSET


class _Message(msgspec.Struct):
    """The params of an upstream ``notifications/message`` (read for its level alone)."""

    params: Raw | UnsetType = UNSET


class _Level(msgspec.Struct):
    """The ``level`` of ``logging/setLevel`` and ``notifications/message`` params."""

    level: object = None


class _Cancel(msgspec.Struct):
    """The ``requestId`` of ``notifications/cancelled`` params."""

    requestId: object = None


_SENT: Final = msgspec.json.Decoder(_Sent)
_STRICT: Final = msgspec.json.Decoder(_Strict)
_HEAD: Final = msgspec.json.Decoder(_Head)
_MESSAGE: Final = msgspec.json.Decoder(_Message)
_LEVEL: Final = msgspec.json.Decoder(_Level)
_CANCEL: Final = msgspec.json.Decoder(_Cancel)
_MEMBERS: Final = msgspec.json.Decoder(dict[str, Raw])

Pending = asyncio.Task[None] | None
"""What relaying a frame still waits for: a write to a full pipe (None: nothing)."""
NOT_SENT: Final = (*DECODE_ERRORS, TypeError)
"""What the one-pass decode of a frame raises when it is not one to relay at once (a
``TypeError``: an ``Inbound``, a frame the transport refused)."""


def guarded(frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Envelope | Inbound:
    """The envelope of one client frame that passes the guard, else ``parse``'s ``Inbound``.

    One pass where it is exact (an envelope with no other member: msgspec checked the UTF-8
    of every string but the raw parts, which are checked on their own); else the general
    path, which scans the bytes first and says what is wrong.
    """
    try:
        env = _STRICT.decode(frame)
    except DECODE_ERRORS:
        pass
    else:
        if not decoded_problem(env, frame, max_depth):
            return env
    inbound = parse(frame, max_depth)
    if not inbound.batch and len(inbound.messages) == 1:
        only = inbound.messages[0]
        if type(only) is Envelope:
            return only
    return inbound


def with_member(frame: bytes, name: str, value: object) -> bytes:
    """``frame`` (a JSON object) with member ``name`` set to ``value``; every other member
    kept, in its place, its value byte for byte (raises what decoding may raise)."""
    members = cast("dict[str, object]", _MEMBERS.decode(frame))
    members[name] = value
    return ENCODER.encode(members)


def _error(id_: RequestId | None, code: int, message: str, data: Any = UNSET) -> bytes:
    """An error response, ready to write."""
    return ENCODER.encode(OutError("2.0", id_, ErrorObject(code, message, data)))


def _pipe_end(transport: Transport) -> PipeEnd:
    """How the relay writes a frame to ``transport``: the pipe's own write (``HasPipeEnd``:
    no call between; ``serve_stdio`` relays only between two such transports)."""
    if not isinstance(transport, HasPipeEnd):
        raise TypeError(f"the relay writes to pipes only, not {type(transport).__name__}")
    return transport.pipe_end()


async def _finish(pending: Awaitable[None]) -> None:
    """Wait for a write to a full pipe (a peer gone meanwhile ends its side as it would)."""
    try:  # noqa: SIM105 (once per full pipe: the same as contextlib.suppress)
        await pending
    except ConnectionClosed:
        pass


def _later(full: Awaitable[None]) -> asyncio.Task[None]:
    """The task that waits for a write to a full pipe (the next frame waits for it)."""
    return asyncio.ensure_future(_finish(full))


class Relay:
    """Frames between a client and an upstream of the same revision, relayed as bytes.

    Each frame is relayed by plain calls inside the ``data_received`` that brought it; only a
    write to a full pipe leaves something to wait for (``Pending``), which the transport's
    push then waits on before it takes the next frame, so order is kept.
    """

    def __init__(
        self,
        down: Transport,
        tap: UpstreamTap,
        upstream: ClientBase[Any],
        client_capabilities: dict[str, Any],
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        self.down = down
        self.up = tap.inner
        self._down_write, self._down_flow, self._down_full = _pipe_end(down)
        self._up_write, self._up_flow, self._up_full = _pipe_end(tap.inner)
        self.methods = upstream.METHODS
        self.server_capabilities = upstream.their_capabilities
        self.client_capabilities = client_capabilities
        self.max_depth = max_depth
        self._short = 2 * max_depth + 1
        """A frame this short, and ASCII, leaves the guard nothing to check once it decoded."""
        self.reserved = frozenset(tap.sent_ids)
        """Ids the bridge used upstream: a client request with one goes under another."""
        self.level = DEFAULT_LOG_LEVEL
        """The client's log level (the upstream was asked for every message)."""
        self._flight: dict[RequestId | UnsetType | None, RequestId] = {}
        """The client's requests in flight: upstream id -> the client's id (looked up with
        any upstream frame's id)."""
        self._drained: asyncio.Future[None] | None = None

    # -- from the client ------------------------------------------------------------------------

    async def run(self) -> None:
        """Relay what the client sends until its input ends; then wait for the answers due."""
        down = self.down
        if isinstance(down, PushesFrames):  # each frame relayed as its bytes arrive
            await down.pump(self.pushed_from_client)
        else:
            while (frame := await down.read()) is not None:
                pending = self.pushed_from_client(frame)
                if pending is not None:
                    await pending
        if self._flight:  # answers in flight may still go out, as a server drains
            self._drained = asyncio.get_running_loop().create_future()
            await asyncio.wait((self._drained,), timeout=DRAIN_TIMEOUT_S)

    def pushed_from_client(self, frame: bytes | Inbound) -> Pending:
        """Pass one client frame upstream at once, or answer it when it fails the guard (a
        task only if a write waits)."""
        try:
            sent = _SENT.decode(frame)  # type: ignore[arg-type] # pyright: ignore[reportArgumentType]
        except NOT_SENT:  # not a request or notification as the guard wants it: checked in full
            return self._from_client(frame)
        line: bytes = frame  # type: ignore[assignment] # pyright: ignore[reportAssignmentType]
        if (len(line) <= self._short and line.isascii()) or not decoded_problem(
            sent, line, self.max_depth
        ):  # only the guard's own checks were left: passed
            wire_id = sent.id
            if (
                type(wire_id) is int
                and wire_id not in self._flight
                and wire_id not in self.reserved
                and sent.method not in _NOTED
            ):  # most frames: a request upstream as it came (``_client_message`` in short)
                self._flight[wire_id] = wire_id
                try:
                    self._up_write(line + b"\n")
                except WRITE_GONE:  # the upstream gone: the tap meets the end of its output
                    return None
                return _later(self._up_full()) if self._up_flow.paused else None
            return self._client_message(wire_id, sent.method, sent.params, line)
        return self._from_client(line)

    def _from_client(self, frame: bytes | Inbound) -> Pending:
        """A client frame the one-pass decode did not take: the guard in full, then on."""
        if not isinstance(frame, bytes):  # refused by the transport (too large)
            return self._refuse_inbound(frame)
        env = guarded(frame, self.max_depth)
        if isinstance(env, Inbound):
            return self._refuse_inbound(env)
        id_ = as_id(env.id)
        problem = shape_problem(env)
        if problem is not None:
            return self._refuse(f"Invalid request: {problem}", id_)
        method = env.method
        if type(method) is str:
            return self._client_message(env.id, method, env.params, frame)
        return self._up(frame)  # an answer to the upstream's request

    def _client_message(
        self, id_: WireId, method: str, params: Raw | UnsetType, frame: bytes
    ) -> Pending:
        """Send one client request (under another id when its own cannot go) or notification
        upstream; the client's ``initialized`` is dropped, a second ``initialize`` refused."""
        if id_ is UNSET or id_ is None:
            if method == "notifications/initialized":
                return None
            if method == "notifications/cancelled":
                frame = self._cancelled(params, frame)
            return self._up(frame)
        if method == "initialize":
            return self._refuse(
                "Invalid request: initialize was already sent on this connection", id_
            )
        flight = self._flight
        sent = id_ if type(id_) is int and id_ not in self.reserved else self._upstream_id(id_)
        if sent in flight:
            return self._refuse(f"Invalid request: request id {id_!r} is already in flight", id_)
        if method == "logging/setLevel":
            self._note_level(params)
        if sent != id_:
            frame = with_member(frame, "id", sent)
        flight[sent] = id_
        return self._up(frame)

    def _cancelled(self, params: Raw | UnsetType, frame: bytes) -> bytes:
        """A cancellation, naming the request as it went upstream; it is in flight no more."""
        if type(params) is not Raw:
            return frame
        try:
            request_id = as_id(_CANCEL.decode(params).requestId)
        except DECODE_ERRORS:
            return frame
        if request_id is None:
            return frame
        sent = self._upstream_id(request_id)
        self._answered(sent)
        if sent == request_id:
            return frame
        return with_member(frame, "params", Raw(with_member(bytes(params), "requestId", sent)))

    def _upstream_id(self, id_: RequestId) -> RequestId:
        """The id a client request goes upstream under: its own, unless the bridge's could clash."""
        if type(id_) is int:
            return f"{OWN_IDS}i{id_}" if id_ in self.reserved else id_
        assert isinstance(id_, str)
        return f"{OWN_IDS}s{id_}" if id_.startswith(OWN_IDS) else id_

    def _note_level(self, params: Raw | UnsetType) -> None:
        """The client's log level, from its ``logging/setLevel``."""
        try:
            level = _LEVEL.decode(params).level if type(params) is Raw else None
        except DECODE_ERRORS:
            return
        if isinstance(level, str) and level in LOG_LEVELS:
            self.level = level

    def _refuse(self, why: str, id_: RequestId | None) -> Pending:
        """Answer a client frame that failed the guard (nothing goes upstream)."""
        error = RemoteProtocolError(why)
        return self._down(_error(id_, error.code, error.message, error.data))

    def _refuse_inbound(self, inbound: Inbound) -> Pending:
        """Answer a frame the transport or the general path refused (one message: a batch is
        refused whole)."""
        if inbound.batch:
            return self._refuse("Invalid request: batches are not supported", None)
        message = inbound.malformed
        if message is None:
            return None
        return self._down(
            _error(message.id, message.error.code, message.error.message, message.error.data)
        )

    # -- from the upstream -----------------------------------------------------------------------

    def pushed_from_upstream(self, frame: bytes | Inbound) -> Pending:
        """Pass one upstream frame to the client at once, an answer under the client's own id
        (a task only if a write waits)."""
        try:
            head = _HEAD.decode(frame)  # type: ignore[arg-type] # pyright: ignore[reportArgumentType]
        except NOT_SENT as exc:
            _unread(frame, exc)
            return None
        line: bytes = frame  # type: ignore[assignment] # pyright: ignore[reportAssignmentType]
        method, sent = head.method, head.id
        if method is UNSET:  # an answer: to the client under its id, unless cancelled
            client_id = self._flight.pop(sent, _MISSING)
            if client_id == sent and self._drained is None:  # most frames: as it came
                try:
                    self._down_write(line + b"\n")
                except WRITE_GONE:  # the client gone: its input ends too, which ends the relay
                    return None
                return _later(self._down_full()) if self._down_flow.paused else None
            return self._answer(sent, client_id, line)
        if sent is UNSET:
            if method != "notifications/message" or self._shown(line):
                return self._down(line)
            return None
        return self._server_request(method, as_id(sent), line)

    def _answer(self, sent: WireId | None, client_id: object, frame: bytes) -> Pending:
        """An upstream answer that needs more than passing on: an error about no request (the
        client may read it), one to a cancelled request (dropped), one under another id."""
        if sent is None or sent is UNSET:
            return self._down(frame)
        if client_id is _MISSING:
            return None
        if self._drained is not None:
            self._check_drained()
        if client_id != sent:
            try:
                frame = with_member(frame, "id", client_id)
            except DECODE_ERRORS as exc:
                LOG.info("an answer from the upstream could not be read: %s", exc)
                return None
        return self._down(frame)

    def _answered(self, sent: RequestId) -> None:
        """A client request is no longer in flight."""
        self._flight.pop(sent, None)
        self._check_drained()

    def _check_drained(self) -> None:
        """Wake ``run`` waiting for the answers in flight once none is left."""
        drained = self._drained
        if drained is not None and not self._flight and not drained.done():
            drained.set_result(None)

    def _server_request(self, method: str, id_: RequestId | None, frame: bytes) -> Pending:
        """A request of the upstream: to the client, unless it lacks the capability."""
        spec = self.methods.get(method)
        why = None
        if spec is not None:
            why = gate(
                spec, ours=self.server_capabilities, theirs=self.client_capabilities, sending=True
            )
        if why is None:
            return self._down(frame)
        LOG.info("not forwarded downstream: %s", why)
        return self._up(_error(id_, INTERNAL_ERROR, why))

    def _shown(self, frame: bytes) -> bool:
        """Whether a log message (``frame``, read already) reaches the client's level."""
        if self.level == "debug":
            return True
        try:
            params = _MESSAGE.decode(frame).params
            level = _LEVEL.decode(params).level if type(params) is Raw else None
        except DECODE_ERRORS:
            return True  # not ours to judge: the client reads it
        return not isinstance(level, str) or level not in LOG_LEVELS or reaches(level, self.level)

    async def upstream_gone(self, inner: Transport) -> None:
        """The upstream's output ended: answer every request in flight with an error."""
        how = getattr(inner, "exit_description", None)
        detail = f" (server process {how()})" if callable(how) else ""
        message = f"the upstream server went away{detail}"
        flight, self._flight = self._flight, {}
        for client_id in flight.values():
            pending = self._down(_error(client_id, INTERNAL_ERROR, message))
            if pending is not None:
                await pending
        self._check_drained()

    # -- writing ---------------------------------------------------------------------------------

    def _down(self, frame: bytes) -> Pending:
        """Write to the client (gone: its input ends too, which ends the relay)."""
        try:
            self._down_write(frame + b"\n")
        except WRITE_GONE:
            return None
        return _later(self._down_full()) if self._down_flow.paused else None

    def _up(self, frame: bytes) -> Pending:
        """Write to the upstream (gone: the tap meets the end of its output, and answers)."""
        try:
            self._up_write(frame + b"\n")
        except WRITE_GONE:
            return None
        return _later(self._up_full()) if self._up_flow.paused else None


def _unread(frame: bytes | Inbound, exc: Exception) -> None:
    """An upstream frame refused by the transport, or no message: not relayed (logged)."""
    if isinstance(frame, bytes):
        LOG.info("a frame from the upstream is no message, not relayed: %s", exc)
    else:
        LOG.info("a frame from the upstream was refused: %s", _why(frame))


def _why(inbound: Inbound) -> str:
    """What made a transport refuse a frame."""
    malformed = inbound.malformed
    return malformed.error.message if malformed is not None else "not one message"
