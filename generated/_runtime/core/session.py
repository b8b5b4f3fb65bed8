# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""A sans-I/O JSON-RPC 2.0 session for MCP, modelled on h11: frames in, events out, bytes to send.

``Session.receive(frame)`` takes the bytes of one JSON value (one stdio line, one HTTP body)
and returns events; ``data_to_send()`` returns the frames the session queued (our requests,
notifications and responses, and the error responses it sent on its own). No sockets, no
threads, no asyncio: the caller moves the bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .errors import (
    INTERNAL_ERROR,
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
from .lifecycle import Lifecycle, Phase, Sender, Served, StatedVersion
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
from .tasks import variant
from .wire import (
    ENCODER,
    Inbound,
    Malformed,
    Outbound,
    OutError,
    OutRequest,
    OutResult,
    as_id,
    encode_frame,
    is_id,
    meta_of,
    parse,
    progress_frame,
    too_large,
    with_progress_token,
)

DEFAULT_MAX_FRAME_SIZE: Final = 4 * 1024 * 1024
"""Frames longer than this many bytes are refused unparsed unless the session says otherwise."""


class Session:
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
        self._awaiting: dict[int, tuple[Any, int]] = {}
        """How many of our pending requests await each result type (for one-pass decoding),
        by the type's id: a union type hashes its members on every lookup."""

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

    def _admit_sent(self, method: str, request: bool) -> None:
        """Refuse what our phase does not admit from us; record what it does."""
        refused = self.lifecycle.admit(method, request, self.role)
        if refused is not None:
            raise LocalProtocolError(refused)

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
        found = self._read(frame)
        return found if isinstance(found, Inbound) else Inbound([found])

    def _read(self, frame: bytes) -> Message | Inbound:
        """One frame's message decoded in one pass, or its ``Inbound`` from the general path
        (a batch, what the one pass refuses, a frame too large: ``frame_problem`` there)."""
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

    def receive(self, frame: bytes | Inbound) -> list[Event]:
        """Process one incoming frame (one JSON value, or ``parse``'s result); say what it meant."""
        inbound = frame if isinstance(frame, Inbound) else self._read(frame)
        events: list[Event] = []
        if not isinstance(inbound, Inbound):  # one message decoded in one pass: no batch
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
        elif not self._peer_may_send(spec, "request"):
            error = RemoteProtocolError(f"Method not found: {method}", METHOD_NOT_FOUND)
        elif (refused := self.lifecycle.admit(method, True, self._peer)) is not None:
            error = RemoteProtocolError(f"Invalid request: {refused}", INVALID_REQUEST)
        else:
            assert spec is not None
            try:
                params, token = request_params(spec, raw, self.tolerant)
                if self._per_request:
                    refused_meta = self.lifecycle.admit_meta(meta_of(params), self.stated)
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
        self, id_: RequestId | None, result: Any, raw_error: Raw | None, events: list[Event]
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
        self._expect(pending.spec, -1)
        if pending.progress_token is not None:
            self._out_tokens.pop(pending.progress_token, None)
        method = pending.spec.method
        try:
            if raw_error is not None:
                events.append(ErrorResponse(id_, method, decode_error(raw_error)))
            else:
                assert result is not None
                decoded = decode_result(pending.spec, result, self.tolerant)
                events.append(Response(id_, method, decoded))
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

    def _expect(self, spec: MethodSpec[Any, Any], delta: int) -> None:
        """Count our pending requests per result type (one shared type: one-pass decoding)."""
        result = spec.result
        entry = self._awaiting.get(id(result))
        count = (0 if entry is None else entry[1]) + delta
        if count > 0:
            self._awaiting[id(result)] = (result, count)
        else:
            self._awaiting.pop(id(result), None)

    # -- outgoing ----------------------------------------------------------------------------

    def _spec_we_send(self, method: str, kind: str) -> MethodSpec[Any, Any]:
        spec = self.methods.get(method)
        if spec is None:
            raise LocalProtocolError(f"unknown method {method!r}")
        if spec.kind != kind:
            raise LocalProtocolError(f"{method!r} is a {spec.kind}, not a {kind}")
        if spec.direction not in (self.role, "both"):
            raise LocalProtocolError(f"a {self.role} may not send {method!r}")
        return spec

    def send_request(
        self,
        method: str | MethodSpec[Any, Any],
        params: Any = None,
        *,
        progress_token: ProgressToken | None = None,
    ) -> int:
        """Queue a request (by wire name or spec) and return its id (ints, increasing from 1)."""
        given = method
        if not isinstance(method, str):
            method = method.method
        spec = variant(self._spec_we_send(method, "request"), given)
        if params is None and spec.params_required and progress_token is None:
            raise LocalProtocolError(f"{method!r} requires params")
        if progress_token is not None:
            if not is_id(progress_token):
                raise LocalProtocolError("a progress token must be a string or an integer")
            if progress_token in self._out_tokens:
                raise LocalProtocolError(f"progress token {progress_token!r} is already in use")
            params = with_progress_token(params, progress_token)
        request_id = self._next_id
        frame = encode_frame(
            OutRequest("2.0", request_id, method, UNSET if params is None else params)
        )
        self._admit_sent(method, True)
        self._queue.append(Outbound(frame, "request", method, (request_id,)))
        self._next_id += 1
        self._outgoing[request_id] = Outgoing(spec, progress_token)
        self._expect(spec, 1)
        if progress_token is not None:
            self._out_tokens[progress_token] = request_id
        return request_id

    def send_notification(self, method: str | MethodSpec[Any, Any], params: Any = None) -> None:
        """Queue a notification (by wire name or spec)."""
        if not isinstance(method, str):
            method = method.method
        spec = self._spec_we_send(method, "notification")
        if params is None and spec.params_required:
            raise LocalProtocolError(f"{method!r} requires params")
        frame = encode_frame(OutRequest("2.0", UNSET, method, UNSET if params is None else params))
        self._admit_sent(method, False)
        self._queue.append(Outbound(frame, "notification", method))

    def send_response(self, request_id: RequestId, result: Any) -> bool:
        """Answer a peer's request; False (nothing sent) when the peer had cancelled it."""
        return self._answer(request_id, lambda: encode_frame(OutResult("2.0", request_id, result)))

    def send_error(
        self,
        request_id: RequestId,
        code: int = INTERNAL_ERROR,
        message: str = "Internal error",
        data: Any = UNSET,
    ) -> bool:
        """Answer a peer's request with an error; False when the peer had cancelled it."""
        error = ErrorObject(code, message, data)
        return self._answer(request_id, lambda: encode_frame(OutError("2.0", request_id, error)))

    def _answer(self, request_id: RequestId, build: Callable[[], bytes]) -> bool:
        """Send the frame ``build`` makes for an in-flight request, unless it was cancelled."""
        entry = self._incoming.get(request_id)
        if entry is None:
            if self._cancelled_in.take(request_id):
                return False
            raise LocalProtocolError(f"no request {request_id!r} from the peer is in flight")
        frame = Outbound(build(), "response", ids=(request_id,))
        del self._incoming[request_id]
        if entry.progress_token is not None:
            self._in_tokens.pop(entry.progress_token, None)
        self._settle(entry, frame)
        return True

    def _settle(self, entry: Incoming, frame: Outbound | None) -> None:
        """Send a response frame, or fill its batch slot (None: cancelled, no entry)."""
        if entry.batch is None:
            if frame is not None:
                self._queue.append(frame)
            return
        entry.batch.entries[entry.slot] = frame
        entry.batch.pending -= 1
        self._flush(entry.batch)

    def _flush(self, batch: Batch) -> None:
        if batch.open or batch.pending:
            return
        parts = [entry for entry in batch.entries if entry is not None]
        if parts:
            data = b"[" + b",".join(part.data for part in parts) + b"]"
            ids = tuple(rid for part in parts for rid in part.ids)
            self._queue.append(Outbound(data, "response", ids=ids))

    def cancel(self, request_id: int, reason: str | None = None) -> None:
        """Cancel one of our requests: send ``notifications/cancelled``, drop any late answer."""
        pending = self._outgoing.get(request_id)
        if pending is None:
            raise LocalProtocolError(f"no request {request_id!r} of ours is in flight")
        if pending.spec.method == "initialize":
            raise LocalProtocolError("the initialize request must not be cancelled")
        self._spec_we_send("notifications/cancelled", "notification")
        params: dict[str, Any] = {"requestId": request_id}
        if reason is not None:
            params["reason"] = reason
        frame = encode_frame(OutRequest("2.0", UNSET, "notifications/cancelled", params))
        self._queue.append(
            Outbound(frame, "notification", "notifications/cancelled", cancels=request_id)
        )
        del self._outgoing[request_id]
        self._expect(pending.spec, -1)
        if pending.progress_token is not None:
            self._out_tokens.pop(pending.progress_token, None)
        self._cancelled_out.add(request_id)

    def send_progress(
        self,
        token: ProgressToken,
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> bool:
        """Queue ``notifications/progress`` for a peer's request; False if it was cancelled."""
        if token not in self._in_tokens:
            if token in self._cancelled_tokens:
                return False
            raise LocalProtocolError(f"progress token {token!r} names no request in flight")
        self._spec_we_send("notifications/progress", "notification")
        frame = progress_frame(token, progress, total, message)
        self._queue.append(Outbound(frame, "notification", "notifications/progress"))
        return True
