"""The JSON-RPC wire format: what a received frame holds, parsed once, and what the session sends.

Receiving: a frame becomes an ``Inbound`` (its messages, or why it could not be read). The
general path here (``parse``) gives envelopes with params and result left raw; ``reader.py``
decodes in one pass where the types are known and reads params and results. Transports that
must route on a frame (HTTP) get the ``Inbound`` and hand it on, so no frame is parsed twice.

Sending: the session encodes each message and queues an ``Outbound``, which carries the bytes
and what transports route on (kind, method, ids), so no transport decodes what it writes.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import Any, Final, Literal, Protocol, TypeAlias, final, get_origin

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .errors import (
    ErrorObject,
    LocalProtocolError,
    RemoteProtocolError,
)
from .events import ProgressToken, RequestId
from .frame_guard import DEFAULT_MAX_DEPTH, frame_problem, parse_error, well_formed
from .message import Message
from .methods import MethodSpec

AnySpec: TypeAlias = "MethodSpec[Any, Any]"
Kind: TypeAlias = Literal["request", "notification", "response", "other"]
"""What an outgoing frame is ("other": a frame made by hand that is none, or a mixed batch)."""


class Envelope(msgspec.Struct, gc=False):
    """Any JSON-RPC message, with params, result and error left undecoded."""

    jsonrpc: Any = UNSET
    id: str | int | UnsetType | None = UNSET
    method: str | UnsetType = UNSET
    params: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    error: Raw | UnsetType = UNSET

    @property
    def shaped(self) -> bool:
        """No: its shape is the session's to check (``shape_problem``)."""
        return False


@final  # never subclassed: ``type(m) is Malformed`` tells it apart (faster than isinstance)
class Malformed(msgspec.Struct, frozen=True, gc=False):
    """A frame (or a batch member) that is no usable message: the error to answer with."""

    error: RemoteProtocolError
    id: RequestId | None = None
    """The id to address the error response to, when one could be read."""


class Inbound(msgspec.Struct, gc=False):
    """One received frame, parsed once: its messages in order (a batch holds several)."""

    messages: list[Message | Malformed]
    batch: bool = False
    related: RequestId | None = None
    """The id of our request on whose response stream the frame came (a Streamable HTTP
    client: the SSE stream of that request's POST, or its resumption); None: no request's
    (the GET stream, a stream of several requests, a transport of one stream)."""

    @property
    def request_ids(self) -> list[RequestId]:
        """Ids of the requests and of the malformed messages with an id: answers owed for each."""
        ids: list[RequestId] = []
        for m in self.messages:
            if isinstance(m, Malformed):
                rid = m.id
            else:
                rid = as_id(m.id) if isinstance(m.method, str) else None
            if rid is not None:
                ids.append(rid)
        return ids

    @property
    def methods(self) -> list[str]:
        """The methods of the requests and notifications, in order."""
        return [
            m.method
            for m in self.messages
            if not isinstance(m, Malformed) and isinstance(m.method, str)
        ]

    @property
    def response_ids(self) -> list[RequestId]:
        """Ids of the responses (results and errors) in the frame."""
        ids: list[RequestId] = []
        for m in self.messages:
            if isinstance(m, Malformed) or not isinstance(m.method, UnsetType):
                continue
            rid = as_id(m.id)
            if rid is not None and (m.result is not UNSET or m.error is not UNSET):
                ids.append(rid)
        return ids

    @property
    def malformed(self) -> Malformed | None:
        """The error when the whole frame is unusable (not JSON, too large, wrong shape)."""
        first = self.messages[0] if len(self.messages) == 1 and not self.batch else None
        return first if isinstance(first, Malformed) else None


class Outbound(msgspec.Struct, frozen=True, gc=False):
    """One encoded frame the session queued, with what transports route on."""

    data: bytes
    kind: Kind
    method: str | None = None
    """The method of a request or notification."""
    ids: tuple[RequestId, ...] = ()
    """A request: its id. A response: the ids it answers (a batch answer: several)."""
    cancels: RequestId | None = None
    """A ``notifications/cancelled``: the id of the request it cancels."""

    @classmethod
    def of(cls, data: bytes) -> Outbound:
        """Describe a frame made elsewhere (a raw peer, a test) by parsing it."""
        inbound = parse(data)
        kinds: set[Kind] = {_kind(m) for m in inbound.messages}
        kind = kinds.pop() if len(kinds) == 1 else _kind(None)
        methods = inbound.methods
        ids = inbound.request_ids if kind == "request" else inbound.response_ids
        method = methods[0] if len(methods) == 1 else None
        cancels = None
        if method == "notifications/cancelled" and not inbound.batch:
            first = inbound.messages[0]
            params = None if isinstance(first, Malformed) else first.params
            with contextlib.suppress(msgspec.DecodeError):
                value = as_object(msgspec.json.decode(params)) if isinstance(params, Raw) else None
                cancels = None if value is None else as_id(value.get("requestId"))
        return cls(data, kind, method, tuple(ids), cancels)


def outbound(message: Outbound | bytes) -> Outbound:
    """The message to send: as given, or described by parsing it (a frame made by hand)."""
    return message if isinstance(message, Outbound) else Outbound.of(message)


def _kind(m: Message | Malformed | None) -> Kind:
    """The kind of one parsed message (None, a malformed one: "other")."""
    if m is None or isinstance(m, Malformed):
        return "other"
    if isinstance(m.method, str):
        return "notification" if m.id is UNSET else "request"
    return "response"


class _IdOnly(msgspec.Struct):
    """Just the id of a message that failed to decode, to address the error response."""

    id: Any = None


class HasMeta(Protocol):
    """Generated params types that keep ``_meta`` (most do)."""

    @property
    def meta(self) -> Any:
        """The ``_meta`` object, or UNSET."""
        ...


class OutRequest(msgspec.Struct):
    """An outgoing request or notification (``id`` UNSET)."""

    jsonrpc: str
    id: int | UnsetType
    method: str
    params: Any = UNSET


class OutResult(msgspec.Struct):
    """An outgoing success response."""

    jsonrpc: str
    id: RequestId
    result: Any


class OutError(msgspec.Struct):
    """An outgoing error response."""

    jsonrpc: str
    id: RequestId | None
    error: ErrorObject


ENCODER: Final = msgspec.json.Encoder()
FRAME_DECODER: Final = msgspec.json.Decoder(Envelope | list[Raw])
ENVELOPE_DECODER: Final = msgspec.json.Decoder(Envelope)
_ID_DECODER: Final = msgspec.json.Decoder(_IdOnly)
ERROR_DECODER: Final = msgspec.json.Decoder(ErrorObject)


def is_id(value: object) -> bool:
    """Whether ``value`` is a usable request id or progress token (a str or a non-bool int)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def as_id(value: object) -> RequestId | None:
    """Return ``value`` if it is a usable request id, else None."""
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


# -- receiving -----------------------------------------------------------------------------


def parse(frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH, *, checked: bool = False) -> Inbound:
    """The general path: a frame's messages as envelopes (params and result left raw).

    ``checked``: ``frame_problem`` already passed the frame (not checked again).
    """
    problem = None if checked else frame_problem(frame, max_depth)  # what msgspec would raise
    if problem is not None:
        return Inbound([Malformed(problem)])
    try:
        # One object is by far the most common frame, and the plain decoder is the fastest.
        return Inbound([ENVELOPE_DECODER.decode(frame)])
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as exc:
        return Inbound([Malformed(parse_error(frame, str(exc), max_depth))])
    try:
        value = FRAME_DECODER.decode(frame)
    except msgspec.ValidationError as exc:
        if not well_formed(frame):  # a typed decode stops at the first wrong value
            error = parse_error(frame, "not well-formed JSON", max_depth)
            return Inbound([Malformed(error)])
        return Inbound([Malformed(RemoteProtocolError(f"Invalid request: {exc}"), id_of(frame))])
    except msgspec.DecodeError as exc:  # an object ends early ("[1]]"): the plain one said no
        return Inbound([Malformed(parse_error(frame, str(exc), max_depth))])
    if isinstance(value, Envelope):  # pragma: no cover - the plain decoder took it above
        return Inbound([value])
    messages: list[Message | Malformed] = []
    for raw in value:
        try:
            messages.append(ENVELOPE_DECODER.decode(raw))
        except msgspec.ValidationError as exc:
            messages.append(Malformed(RemoteProtocolError(f"Invalid request: {exc}"), id_of(raw)))
    return Inbound(messages, batch=True)


def too_large(size: int, limit: int) -> Inbound:
    """The ``Inbound`` of a frame refused unparsed because it exceeds ``limit`` bytes."""
    message = f"Frame of {size} bytes exceeds the limit of {limit}"
    return Inbound([Malformed(RemoteProtocolError(message))])


@lru_cache(maxsize=1024)
def keeps_meta(params_type: Any) -> bool:
    """Whether decoded params of this type still hold ``_meta`` (a dict, or a Struct field)."""
    if params_type is dict or get_origin(params_type) is dict:
        return True
    if not (isinstance(params_type, type) and issubclass(params_type, msgspec.Struct)):
        return False
    return any(f.encode_name == "_meta" for f in msgspec.structs.fields(params_type))


def meta_of(params: Any) -> object:
    """``_meta`` of decoded params (a dict, or a Struct keeping it), UNSET when absent."""
    if params is None:
        return UNSET
    found = as_object(params)
    if found is not None:
        return found.get("_meta", UNSET)
    with_meta: HasMeta = params
    meta: object = with_meta.meta
    return meta


def as_object(value: object) -> dict[str, Any] | None:
    """``value`` as a JSON object, if it is one."""
    found: Any = value  # not ``cast``: a call on every message's hot path
    return found if isinstance(value, dict) else None


def id_of(frame: bytes | Raw) -> RequestId | None:
    """The id of a message that failed validation, if it has a usable one."""
    try:
        value = _ID_DECODER.decode(frame).id
    except msgspec.DecodeError:
        return None
    return as_id(value)


def progress_token(params: Any) -> ProgressToken | None:
    """Return ``params._meta.progressToken`` of decoded params (a dict or a Struct), or None."""
    if not isinstance(params, dict | msgspec.Struct) or (
        isinstance(params, msgspec.Struct) and not keeps_meta(type(params))
    ):
        return None
    meta = as_object(meta_of(params))
    return None if meta is None else as_id(meta.get("progressToken"))


class _MetaOnly(msgspec.Struct):
    """The ``_meta`` of a request's params, the rest skipped."""

    meta: dict[str, Any] | None = msgspec.field(default=None, name="_meta")


_META_DECODER: Final = msgspec.json.Decoder(_MetaOnly)


def asks_progress(message: Message | Malformed) -> bool:
    """Whether a received request asks for progress: its params (raw or decoded) carry
    ``_meta.progressToken``."""
    if isinstance(message, Malformed) or not isinstance(message.method, str):
        return False
    params = message.params
    if not isinstance(params, Raw):
        return progress_token(params) is not None
    try:
        meta = _META_DECODER.decode(params).meta
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return meta is not None and as_id(meta.get("progressToken")) is not None


# -- sending -------------------------------------------------------------------------------


def with_progress_token(params: Any, token: ProgressToken) -> dict[str, Any]:
    """Return params (None, a dict or a Struct) as a dict with ``_meta.progressToken`` set."""
    value = as_object({} if params is None else msgspec.to_builtins(params))
    if value is None:
        raise LocalProtocolError(f"params must be an object, not {type(params).__name__}")
    previous = as_object(value.get("_meta")) or {}
    value["_meta"] = {**previous, "progressToken": token}
    return value


def progress_frame(
    token: ProgressToken, progress: float, total: float | None = None, message: str | None = None
) -> bytes:
    """Encode a ``notifications/progress`` frame."""
    params: dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    return ENCODER.encode(OutRequest("2.0", UNSET, "notifications/progress", params))


def encode_frame(value: Any) -> bytes:
    """Encode an outgoing message; what cannot be encoded is our mistake."""
    try:
        return ENCODER.encode(value)
    except (TypeError, msgspec.EncodeError) as exc:
        raise LocalProtocolError(f"cannot encode: {exc}") from exc
