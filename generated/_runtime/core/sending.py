# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""What a session sends: our requests and notifications, answers to the peer's requests,
cancellation and progress (the ``Session``'s outgoing half; ``session.py`` reads).

Every frame is encoded here and queued for ``Session.messages_to_send``; the lifecycle
admits what we send as it admits what we receive, and refuses it with ``LocalProtocolError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from msgspec import UNSET, EncodeError

from .errors import INTERNAL_ERROR, ErrorObject, LocalProtocolError
from .events import ProgressToken, RequestId
from .ledger import Batch, Incoming, Outgoing, Recent
from .lifecycle import OWN_KIND, Lifecycle, Sender
from .methods import MethodSpec
from .tasks import variant
from .wire import (
    ENCODER,
    Outbound,
    OutError,
    OutRequest,
    OutResult,
    encode_frame,
    is_id,
    progress_frame,
    with_progress_token,
)

MAX_ROWS: Final = 256
"""Most specs (rows and variants) a session keeps the checked row to send for."""


class Sending:
    """The outgoing half of a ``Session`` (its state is made by ``Session.__init__``)."""

    methods: Mapping[str, MethodSpec[Any, Any]]
    role: Sender
    lifecycle: Lifecycle
    _next_id: int
    _outgoing: dict[int, Outgoing]
    _out_tokens: dict[ProgressToken, int]
    _incoming: dict[RequestId, Incoming]
    _in_tokens: dict[ProgressToken, RequestId]
    _cancelled_out: Recent
    _cancelled_in: Recent
    _cancelled_tokens: Recent
    _queue: list[Outbound]
    _awaiting: dict[int, list[Any]]
    _rows: dict[object, tuple[object, MethodSpec[Any, Any]]]
    _rows_of: Mapping[str, MethodSpec[Any, Any]] | None

    def _admit_sent(self, method: str, request: bool) -> None:
        """Refuse what our phase does not admit from us; record what it does."""
        refused = self.lifecycle.admit(method, request, self.role)
        if refused is not None:
            raise LocalProtocolError(refused)

    def _expect(self, spec: MethodSpec[Any, Any], delta: int) -> None:
        """Count our pending requests per result type (one shared type: one-pass decoding):
        ``[type, count]`` by the type's identity, dropped at 0 (inlined where sent and
        answered)."""
        result = spec.result
        entry = self._awaiting.get(id(result))
        if entry is None:
            if delta > 0:
                self._awaiting[id(result)] = [result, delta]
        elif entry[1] + delta > 0:
            entry[1] += delta
        else:
            del self._awaiting[id(result)]

    def _row_to_send(self, given: str | MethodSpec[Any, Any]) -> MethodSpec[Any, Any]:
        """The row a request ``given`` (a wire name or a spec) is sent with, checked once per
        table: kept by the spec's identity, or the name, until ``methods`` changes."""
        if self._rows_of is not self.methods:
            self._rows, self._rows_of = {}, self.methods
        name = given if isinstance(given, str) else given.method
        spec = self._spec_we_send(name, "request")
        if spec is not given and not isinstance(given, str):
            spec = variant(spec, given)
        if len(self._rows) >= MAX_ROWS:  # rows are few; only tests make many variants
            self._rows.clear()
        self._rows[given if isinstance(given, str) else id(given)] = (given, spec)
        return spec

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
        found = self._rows.get(method if type(method) is str else id(method))
        if found is not None and found[0] is method and self._rows_of is self.methods:
            spec = found[1]
        else:
            spec = self._row_to_send(method)
        name = spec.method
        if params is None and spec.params_required and progress_token is None:
            raise LocalProtocolError(f"{name!r} requires params")
        if progress_token is not None:
            if not is_id(progress_token):
                raise LocalProtocolError("a progress token must be a string or an integer")
            if progress_token in self._out_tokens:
                raise LocalProtocolError(f"progress token {progress_token!r} is already in use")
            params = with_progress_token(params, progress_token)
        request_id = self._next_id
        try:  # ``encode_frame``, inlined
            frame = ENCODER.encode(
                OutRequest("2.0", request_id, name, UNSET if params is None else params)
            )
        except (TypeError, EncodeError) as exc:
            raise LocalProtocolError(f"cannot encode: {exc}") from exc
        # A plain request the phase admits changes nothing: ``admit`` only otherwise.
        if name in OWN_KIND or self.role not in self.lifecycle.requests_from:
            self._admit_sent(name, True)
        self._queue.append(Outbound(frame, "request", name, (request_id,)))
        self._next_id += 1
        self._outgoing[request_id] = Outgoing(spec, progress_token)
        result = spec.result  # ``_expect(spec, 1)``, inlined
        entry = self._awaiting.get(id(result))
        if entry is None:
            self._awaiting[id(result)] = [result, 1]
        else:
            entry[1] += 1
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
        return self._answer(request_id, OutResult("2.0", request_id, result))

    def send_error(
        self,
        request_id: RequestId,
        code: int = INTERNAL_ERROR,
        message: str = "Internal error",
        data: Any = UNSET,
    ) -> bool:
        """Answer a peer's request with an error; False when the peer had cancelled it."""
        error = ErrorObject(code, message, data)
        return self._answer(request_id, OutError("2.0", request_id, error))

    def _answer(self, request_id: RequestId, answer: OutResult | OutError) -> bool:
        """Send ``answer`` to an in-flight request, unless it was cancelled (encoded first:
        what cannot be encoded leaves the request in flight, for an error answer)."""
        entry = self._incoming.get(request_id)
        if entry is None:
            if self._cancelled_in.take(request_id):
                return False
            raise LocalProtocolError(f"no request {request_id!r} from the peer is in flight")
        frame = Outbound(encode_frame(answer), "response", ids=(request_id,))
        self._answered(request_id, entry)
        if entry.batch is None:
            self._queue.append(frame)
        else:
            self._settle(entry, frame)
        return True

    def _answered(self, request_id: RequestId, entry: Incoming) -> None:
        """Forget a request of the peer's once its answer is encoded: its in-flight entry and
        its progress token (``_answer``, ``Session.answer_line``)."""
        del self._incoming[request_id]
        token = entry.progress_token
        if token is not None:
            self._in_tokens.pop(token, None)

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
