"""A sans-I/O JSON-RPC 2.0 session for MCP, modelled on h11: frames in, events out, bytes to send.

``Session.receive(frame)`` takes the bytes of one JSON value (one stdio line, one HTTP body)
and returns events; ``data_to_send()`` returns the frames the session queued (our requests,
notifications and responses, and the error responses it sent on its own). No sockets, no
threads, no asyncio: the caller moves the bytes. This module reads what the peer sends; what
we send is ``sending.py`` (``Session``'s base).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .errors import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorObject,
    LocalProtocolError,
    RemoteProtocolError,
)
from .events import (
    Cancelled,
    ErrorResponse,
    Event,
    InvalidResponse,
    Notification,
    Progress,
    ProgressToken,
    ProtocolViolation,
    Request,
    RequestId,
    Response,
)
from .frame_guard import DEFAULT_MAX_DEPTH, shape_problem
from .ledger import Batch, CancelledParams, Incoming, Outgoing, ProgressParams, Recent
from .lifecycle import OWN_KIND, Lifecycle, Phase, Sender, Served, StatedVersion
from .message import Message
from .methods import MethodSpec
from .reader import (
    MIXED,
    Reader,
    decode_error,
    decode_result,
    read_params,
    reader_for,
    request_params,
    sniff_id,
)
from .sending import Sending
from .wire import (
    ENCODER,
    Inbound,
    Malformed,
    Outbound,
    OutError,
    OutResult,
    as_id,
    meta_of,
    parse,
    too_large,
)

DEFAULT_MAX_FRAME_SIZE: Final = 4 * 1024 * 1024
"""Frames longer than this many bytes are refused unparsed unless the session says otherwise."""


class Session(Sending):
    """One side (client or server) of an MCP JSON-RPC connection, without any I/O.

    ``phase`` is where the lifecycle starts: a bare session (tests, embedding) is
    ``UNMANAGED`` (its caller keeps the lifecycle); connections start theirs in
    ``initial_phase(methods)`` and ``negotiate`` once the handshake chose a revision.
    """

    def __init__(
        self,
        methods: Mapping[str, MethodSpec[Any, Any]],
        *,
        role: Literal["client", "server"],
        batch: bool = False,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        phase: Phase = Phase.UNMANAGED,
        max_depth: int = DEFAULT_MAX_DEPTH,
        tolerant: bool = True,
        served: Served | None = None,
    ) -> None:
        if role not in ("client", "server"):
            raise LocalProtocolError(f"role must be 'client' or 'server', not {role!r}")
        self.methods = methods
        self.role: Sender = role
        self.batch = batch
        """Whether incoming batches are accepted (the revision's ``SUPPORTS_BATCH``)."""
        self.max_frame_size = max_frame_size
        self.max_depth = max_depth
        """Frames nesting arrays and objects deeper than this are refused unparsed (-32600)."""
        self.tolerant = tolerant
        """Keep fields and union members the revision lacks (False: drop them, refuse them)."""
        self.lifecycle = Lifecycle(phase, served)
        self._per_request = served is not None and phase is Phase.STATELESS
        """Whether each request's ``_meta`` is checked (``PER_REQUEST`` rows of the phase,
        against the versions ``served``; a bare stateless session leaves it to its caller)."""
        self.stated: StatedVersion | None = None
        """The transport's check of each request's ``_meta`` version (HTTP: its header)."""
        self._peer: Final[Sender] = "server" if role == "client" else "client"
        self._next_id = 1
        self._outgoing: dict[int, Outgoing] = {}
        self._out_tokens: dict[ProgressToken, int] = {}
        self._incoming: dict[RequestId, Incoming] = {}
        self._in_tokens: dict[ProgressToken, RequestId] = {}
        self._cancelled_out = Recent()
        self._cancelled_in = Recent()
        self._cancelled_tokens = Recent()
        self._queue: list[Outbound] = []
        self._reader: Reader | None = None
        self._awaiting: dict[int, list[Any]] = {}
        """How many of our pending requests await each result type (for one-pass decoding):
        ``[type, count]`` by the type's id (a union type hashes its members on every lookup)."""
        self._rows: dict[object, tuple[object, MethodSpec[Any, Any]]] = {}
        """The checked row each request we send goes with, by its spec's identity or name."""
        self._rows_of: Mapping[str, MethodSpec[Any, Any]] | None = None
        """The method table ``_rows`` were checked against (another one: checked anew)."""

    # -- state -------------------------------------------------------------------------------

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the connection is in the lifecycle."""
        return self.lifecycle.phase

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version ("" before negotiation and when stateless)."""
        return self.lifecycle.version

    def negotiate(
        self,
        version: str,
        methods: Mapping[str, MethodSpec[Any, Any]],
        *,
        batch: bool,
        handshake: bool = True,
    ) -> None:
        """Adopt what the handshake chose: the version, its method table, batch support.

        ``handshake=False`` serves a version without a handshake (stateless HTTP of an
        initialize-era revision): the connection is operating at once.
        """
        self.lifecycle.negotiated(version, handshake=handshake)
        self.methods = methods
        self.batch = batch

    def restart(self) -> None:
        """Go back to awaiting ``initialize`` (the client starts a new HTTP session)."""
        self.lifecycle.restart()

    def close(self) -> None:
        """Record that the connection ended; nothing may be sent or received any more."""
        self.lifecycle.close()

    def _admit_received(self, method: str, request: bool) -> str | None:
        """Return why the peer's message is refused in our phase, or record it and None."""
        return self.lifecycle.admit(method, request, self._peer)

    # -- state ---------------------------------------------------------------------------

    @property
    def pending_requests(self) -> frozenset[int]:
        """Ids of our requests still waiting for a response."""
        return frozenset(self._outgoing)

    @property
    def requests_in_flight(self) -> frozenset[RequestId]:
        """Ids of the peer's requests we have not answered (nor seen cancelled)."""
        return frozenset(self._incoming)

    @property
    def has_output(self) -> bool:
        """Whether messages are queued for ``messages_to_send``."""
        return bool(self._queue)

    def messages_to_send(self) -> list[Outbound]:
        """Return the messages queued since the last call, oldest first, and forget them."""
        messages, self._queue = self._queue, []
        return messages

    def data_to_send(self) -> list[bytes]:
        """Return the frames queued since the last call, oldest first, and forget them."""
        return [message.data for message in self.messages_to_send()]

    # -- incoming ----------------------------------------------------------------------------

    def parse(self, frame: bytes) -> Inbound:
        """Parse one incoming frame without acting on it (``receive`` takes the result).

        Decodes in one pass what the expected types allow: the peer's requests and
        notifications, or the results our pending requests await. The HTTP server routes a
        POST on the result before handing it to ``receive``, so nothing is parsed twice.
        """
        found = self.read(frame)
        return found if isinstance(found, Inbound) else Inbound([found])

    def read(self, frame: bytes) -> Message | Inbound:
        """One frame's message decoded in one pass, or its ``Inbound`` from the general path
        (a batch, what the one pass refuses, a frame too large: ``frame_problem`` there).
        ``receive`` takes either (a router reads the message first: no wrapping)."""
        if len(frame) > self.max_frame_size:
            return too_large(len(frame), self.max_frame_size)
        reader = self._reader
        if reader is None or reader.methods is not self.methods:
            reader = self._reader = reader_for(self.methods, self._peer)
        awaiting = self._awaiting
        if not awaiting:
            found = reader.one(frame, None, self.max_depth)
        elif len(awaiting) == 1:
            found = reader.one(frame, next(iter(awaiting.values()))[0], self.max_depth)
        else:  # results of several types awaited: the id the frame seems to answer picks one
            rid = sniff_id(frame)
            pending = None if rid is None else self._outgoing.get(rid)
            result = MIXED if pending is None else pending.spec.result
            found = reader.one(frame, result, self.max_depth, rid)
        return parse(frame, self.max_depth) if found is None else found

    def receive(self, frame: bytes | Inbound | Message) -> list[Event]:
        """Process one incoming frame (one JSON value, or ``parse``'s or ``read``'s result);
        say what it meant."""
        inbound = self.read(frame) if isinstance(frame, bytes) else frame
        events: list[Event] = []
        if not isinstance(inbound, Inbound):  # one message decoded in one pass: no batch
            if inbound.shaped and inbound.id is not UNSET:  # a request (the common case)
                method: Any = inbound.method  # a str, and the id a str or an int: no cast call
                shaped_id: Any = inbound.id
                self._on_request(shaped_id, method, inbound.params, events, None)
            elif (  # a result with an integer id: what ``shape_problem`` passes, tested here
                type(inbound.id) is int
                and inbound.method is UNSET
                and inbound.error is UNSET
                and inbound.result is not UNSET
                and inbound.jsonrpc == "2.0"
            ):
                answered: Any = inbound.id
                self._on_response(answered, inbound.result, None, events)
            else:
                self._dispatch(inbound, events, None)
            return events
        batch: Batch | None = None
        if inbound.batch:
            if not self.batch:
                error = RemoteProtocolError("Invalid request: batches are not supported")
                self._refuse(events, error, None, None)
                return events
            if not inbound.messages:
                error = RemoteProtocolError("Invalid request: empty batch")
                self._refuse(events, error, None, None)
                return events
            batch = Batch()
        for message in inbound.messages:
            if type(message) is Malformed:
                self._refuse(events, message.error, message.id, batch)
            else:
                self._dispatch(message, events, batch)
        if batch is not None:
            batch.open = False
            self._flush(batch)
        return events

    def _dispatch(self, env: Message, events: list[Event], batch: Batch | None) -> None:
        """Classify one decoded message and handle it."""
        if env.shaped:  # a one-pass request or notification: its type checked the shape
            method: Any = env.method  # a str, and the id a str, an int or UNSET (no cast call)
            shaped_id: Any = env.id
            if shaped_id is UNSET:
                self._on_notification(method, env.params, events)
            else:
                self._on_request(shaped_id, method, env.params, events, batch)
            return
        id_ = as_id(env.id)
        problem = shape_problem(env)
        if problem is not None:
            self._refuse(events, RemoteProtocolError(f"Invalid request: {problem}"), id_, batch)
        elif isinstance(env.method, str):
            if id_ is None:
                self._on_notification(env.method, env.params, events)
            else:
                self._on_request(id_, env.method, env.params, events, batch)
        elif not isinstance(env.result, UnsetType):
            self._on_response(id_, env.result, None, events)
        else:
            assert not isinstance(env.error, UnsetType)
            self._on_response(id_, None, env.error, events)

    def _peer_may_send(self, spec: MethodSpec[Any, Any] | None, kind: str) -> bool:
        return spec is not None and spec.kind == kind and spec.direction in (self._peer, "both")

    def _on_request(
        self,
        id_: RequestId,
        method: str,
        raw: Any,
        events: list[Event],
        b: Batch | None,
    ) -> None:
        """Check, decode and register one incoming request."""
        spec = self.methods.get(method)
        if id_ in self._incoming:
            error = RemoteProtocolError(f"Invalid request: request id {id_!r} is already in flight")
        elif (
            spec is None
            or spec.kind != "request"
            or (spec.direction != self._peer and spec.direction != "both")
        ):  # what ``_peer_may_send`` says, without the call
            error = RemoteProtocolError(f"Method not found: {method}", METHOD_NOT_FOUND)
        elif (  # a plain request the phase admits changes nothing: ``admit`` only otherwise
            method in OWN_KIND or self._peer not in self.lifecycle.requests_from
        ) and (refused := self.lifecycle.admit(method, True, self._peer)) is not None:
            error = RemoteProtocolError(f"Invalid request: {refused}", INVALID_REQUEST)
        else:
            try:
                params, token = request_params(spec, raw, self.tolerant)
                if self._per_request:
                    with_meta: Any = params  # typed params: their ``_meta`` field, read here
                    if params is None or isinstance(params, dict):
                        meta = meta_of(params)
                    else:
                        meta = with_meta.meta
                    refused_meta = self.lifecycle.admit_meta(meta, self.stated)
                    if refused_meta is not None:
                        raise refused_meta
            except RemoteProtocolError as exc:
                error = exc
            else:
                if b is not None:
                    b.entries.append(None)
                    b.pending += 1
                slot = len(b.entries) - 1 if b is not None else -1
                self._incoming[id_] = Incoming(method, token, b, slot)
                if token is not None:
                    self._in_tokens[token] = id_
                events.append(Request(id_, method, params, token))
                return
        self._refuse(events, error, id_, b)

    def answer_line(self, request_id: RequestId, result: Any) -> bytes | None:
        """Answer the peer's request ``request_id`` with ``result`` as one line to write now
        (the frame and its newline, encoded once), or None where the answer goes the usual way
        instead (``send_response``: behind what is queued, into its batch, or nowhere, the
        request cancelled). Raises ``LocalProtocolError`` (the request stays in flight) when
        ``result`` cannot be encoded."""
        entry = self._incoming.get(request_id)
        if entry is None or entry.batch is not None or self._queue:
            self.send_response(request_id, result)
            return None
        try:
            line = ENCODER.encode(OutResult("2.0", request_id, result)) + b"\n"
        except (TypeError, msgspec.EncodeError) as exc:
            raise LocalProtocolError(f"cannot encode: {exc}") from exc
        self._answered(request_id, entry)
        return line

    def _on_notification(self, method: str, raw: Any, events: list[Event]) -> None:
        """Decode one incoming notification; unknown ones are ignored, bad ones recorded."""
        spec = self.methods.get(method)
        if spec is None or not self._peer_may_send(spec, "notification"):
            return
        refused = self._admit_received(method, False)
        if refused is not None:
            events.append(ProtocolViolation(RemoteProtocolError(refused)))
            return
        try:
            params = read_params(spec, raw, self.tolerant)
        except RemoteProtocolError as exc:
            events.append(ProtocolViolation(exc))
            return
        if method == "notifications/cancelled":
            self._on_cancelled(params, events)
        elif method == "notifications/progress":
            progress: ProgressParams | None = params
            token = None if progress is None else as_id(progress.progress_token)
            ours = None if token is None else self._out_tokens.get(token)
            if ours is not None:  # progress for a finished or unknown request is dropped
                events.append(Progress(ours, params))
        else:
            events.append(Notification(method, params))

    def _on_cancelled(self, params: CancelledParams | None, events: list[Event]) -> None:
        """Mark an incoming request cancelled; unknown ids and ``initialize`` are ignored."""
        if params is None:
            return
        request_id = as_id(params.request_id)
        entry = None if request_id is None else self._incoming.get(request_id)
        if request_id is None or entry is None or entry.method == "initialize":
            return
        del self._incoming[request_id]
        self._cancelled_in.add(request_id)
        if entry.progress_token is not None:
            self._in_tokens.pop(entry.progress_token, None)
            self._cancelled_tokens.add(entry.progress_token)
        self._settle(entry, None)
        reason = params.reason
        events.append(Cancelled(request_id, reason if isinstance(reason, str) else None))

    def _on_response(
        self,
        id_: RequestId | None,
        result: Any,
        raw_error: Raw | ErrorObject | None,
        events: list[Event],
    ) -> None:
        """Correlate a response with our request and decode it."""
        pending = self._outgoing.pop(id_, None) if isinstance(id_, int) else None
        if pending is None:
            if id_ is not None and self._cancelled_out.take(id_):
                return  # the late answer to a request we cancelled
            if raw_error is not None and id_ is None:
                try:
                    error = decode_error(raw_error)
                except msgspec.ValidationError as exc:
                    events.append(ProtocolViolation(RemoteProtocolError(f"Invalid error: {exc}")))
                else:
                    events.append(ErrorResponse(None, None, error))
                return
            message = f"Response to unknown request id {id_!r}"
            events.append(ProtocolViolation(RemoteProtocolError(message), id_))
            return
        assert isinstance(id_, int)
        spec = pending.spec
        result_type = spec.result  # ``_expect(spec, -1)``, inlined
        entry = self._awaiting.get(id(result_type))
        if entry is not None:
            if entry[1] > 1:
                entry[1] -= 1
            else:
                del self._awaiting[id(result_type)]
        if pending.progress_token is not None:
            self._out_tokens.pop(pending.progress_token, None)
        method = spec.method
        try:
            if raw_error is not None:
                events.append(ErrorResponse(id_, method, decode_error(raw_error)))
            else:
                assert result is not None
                if type(result) is Raw:  # else decoded in the one pass (``decode_result``)
                    result = decode_result(spec, result, self.tolerant)
                events.append(Response(id_, method, result))
        except msgspec.ValidationError as exc:
            kind = "error" if raw_error is not None else "result"
            events.append(
                InvalidResponse(id_, method, RemoteProtocolError(f"Invalid {kind}: {exc}"))
            )

    def _refuse(
        self,
        events: list[Event],
        error: RemoteProtocolError,
        id_: RequestId | None,
        b: Batch | None,
    ) -> None:
        """Queue the error response for a bad message and record the violation."""
        events.append(ProtocolViolation(error, id_))
        frame = ENCODER.encode(OutError("2.0", id_, error.error_object()))
        message = Outbound(frame, "response", ids=() if id_ is None else (id_,))
        if b is None:
            self._queue.append(message)
        else:
            b.entries.append(message)
