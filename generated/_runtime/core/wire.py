# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The JSON-RPC wire format: what a received frame holds, parsed once, and what the session sends.

Receiving: ``Reader.parse`` turns the bytes of one frame into an ``Inbound`` (its messages, or
why it could not be read) in ONE pass when the types are known up front: a request or
notification the peer may send decodes straight into a Struct tagged by its ``method``, params
typed; a response decodes with the result type of the requests awaiting one, when they all share
it. Anything else, and anything that fails there, takes the general path (``parse``): envelopes
with params and result left raw, decoded afterwards by ``read_params`` / ``decode_result``, so
errors name what is wrong exactly as before. Transports that must route on a frame (HTTP) get
the ``Inbound`` and hand it on, so no frame is parsed twice.

Sending: the session encodes each message and queues an ``Outbound``, which carries the bytes
and what transports route on (kind, method, ids), so no transport decodes what it writes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final, Literal, Protocol, TypeAlias, Union, cast, get_origin

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .codec import decoder
from .errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    PARSE_ERROR,
    ErrorObject,
    LocalProtocolError,
    RemoteProtocolError,
)
from .events import ProgressToken, RequestId
from .frame_guard import DEFAULT_MAX_DEPTH, frame_problem, well_formed
from .methods import MethodSpec
from .unions import dec_hook

AnySpec: TypeAlias = "MethodSpec[Any, Any]"
Kind: TypeAlias = Literal["request", "notification", "response", "other"]
"""What an outgoing frame is ("other": a frame made by hand that is none, or a mixed batch)."""
WireId: TypeAlias = "str | int | UnsetType | None"
"""An ``id`` as received: checked by the session (MCP forbids null and non-integers)."""


class Envelope(msgspec.Struct, gc=False):
    """Any JSON-RPC message, with params, result and error left undecoded."""

    jsonrpc: Any = UNSET
    id: str | int | UnsetType | None = UNSET
    method: str | UnsetType = UNSET
    params: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    error: Raw | UnsetType = UNSET


class Message(Protocol):
    """A received message as the session reads it: an ``Envelope`` or a one-pass typed one.

    ``params`` and ``result`` are ``Raw`` (decode them with ``read_params`` /
    ``decode_result``) or already decoded with the method's types.
    """

    @property
    def jsonrpc(self) -> Any:
        """Must be ``"2.0"``."""
        ...

    @property
    def id(self) -> WireId:
        """The id as sent (UNSET for a notification)."""
        ...

    @property
    def method(self) -> str | UnsetType:
        """The method of a request or notification."""
        ...

    @property
    def params(self) -> Any:
        """Raw params, decoded params, or UNSET."""
        ...

    @property
    def result(self) -> Any:
        """Raw result, decoded result, or UNSET."""
        ...

    @property
    def error(self) -> Raw | UnsetType:
        """The raw ``error`` member of an error response."""
        ...


class Malformed(msgspec.Struct, frozen=True, gc=False):
    """A frame (or a batch member) that is no usable message: the error to answer with."""

    error: RemoteProtocolError
    id: RequestId | None = None
    """The id to address the error response to, when one could be read."""


class Inbound(msgspec.Struct, gc=False):
    """One received frame, parsed once: its messages in order (a batch holds several)."""

    messages: list[Message | Malformed]
    batch: bool = False

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
                value = _object(msgspec.json.decode(params)) if isinstance(params, Raw) else None
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


class _Meta(msgspec.Struct):
    """The part of ``params._meta`` the session reads."""

    progress_token: str | int | UnsetType = msgspec.field(default=UNSET, name="progressToken")


class _ParamsMeta(msgspec.Struct):
    """The part of any params object the session reads."""

    meta: _Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class _HasMeta(Protocol):
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
_META_DECODER: Final = msgspec.json.Decoder(_ParamsMeta)
ERROR_DECODER: Final = msgspec.json.Decoder(ErrorObject)


def is_id(value: object) -> bool:
    """Whether ``value`` is a usable request id or progress token (a str or a non-bool int)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def as_id(value: object) -> RequestId | None:
    """Return ``value`` if it is a usable request id, else None."""
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


# -- receiving -----------------------------------------------------------------------------


def parse(frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Inbound:
    """The general path: a frame's messages as envelopes (params and result left raw)."""
    problem = frame_problem(frame, max_depth)  # what msgspec would raise, not answer
    if problem is not None:
        return Inbound([Malformed(problem)])
    try:
        # One object is by far the most common frame, and the plain decoder is the fastest.
        return Inbound([ENVELOPE_DECODER.decode(frame)])
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as exc:
        return Inbound([Malformed(RemoteProtocolError(f"Parse error: {exc}", PARSE_ERROR))])
    try:
        value = FRAME_DECODER.decode(frame)
    except msgspec.ValidationError as exc:
        if not well_formed(frame):  # a typed decode stops at the first wrong value
            error = RemoteProtocolError("Parse error: not well-formed JSON", PARSE_ERROR)
            return Inbound([Malformed(error)])
        return Inbound([Malformed(RemoteProtocolError(f"Invalid request: {exc}"), id_of(frame))])
    except msgspec.DecodeError as exc:  # an object ends early ("[1]]"): the plain one said no
        return Inbound([Malformed(RemoteProtocolError(f"Parse error: {exc}", PARSE_ERROR))])
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


class Reader:
    """Parses frames for one method table and role, in one pass where the types are known."""

    def __init__(self, methods: Mapping[str, AnySpec], peer: Literal["client", "server"]) -> None:
        self.methods = methods
        self._responses: dict[Any, msgspec.json.Decoder[Any]] = {}
        variants = [
            _message_type(spec) for spec in methods.values() if spec.direction in (peer, "both")
        ]
        self._requests: msgspec.json.Decoder[Any] | None = (
            msgspec.json.Decoder(Union[tuple(variants)], dec_hook=dec_hook)  # noqa: UP007
            if variants
            else None
        )

    def parse(self, frame: bytes, awaiting: Any = None) -> Inbound:
        """Parse one frame. ``awaiting``: what our pending requests expect, if any.

        ``None``: nothing is awaited, so requests and notifications are expected; a type: the
        result type every pending request shares; ``MIXED``: results of several types. What
        the one-pass decoders refuse (a batch, an unknown method, bad params, a result of
        another type) is parsed again on the general path, which says what is wrong.
        """
        if awaiting is None:
            one_pass = self._requests
        elif awaiting is MIXED:
            return parse(frame)
        else:
            one_pass = self._responses.get(awaiting)
            if one_pass is None:
                one_pass = self._responses[awaiting] = _response_decoder(awaiting)
        if one_pass is not None:
            try:
                return Inbound([one_pass.decode(frame)])
            except msgspec.DecodeError:
                pass
        return parse(frame)


MIXED: Final = object()
"""``Reader.parse(awaiting=MIXED)``: the pending requests expect results of several types."""
_READERS: dict[tuple[int, str], tuple[Mapping[str, AnySpec], Reader]] = {}


def reader_for(methods: Mapping[str, AnySpec], peer: Literal["client", "server"]) -> Reader:
    """The shared ``Reader`` of a method table for messages sent by ``peer`` (built once)."""
    key = (id(methods), peer)
    entry = _READERS.get(key)
    if entry is None or entry[0] is not methods:
        if len(_READERS) > 64:  # tables are module constants; only tests make many
            _READERS.clear()
        entry = _READERS[key] = (methods, Reader(methods, peer))
    return entry[1]


def _message_type(spec: AnySpec) -> type[msgspec.Struct]:
    """A Struct for one method's messages, tagged by ``method``, params typed when possible."""
    params: Any = spec.params if spec.params is not None and keeps_meta(spec.params) else Raw
    return msgspec.defstruct(
        "Message",
        [
            ("jsonrpc", Any, UNSET),
            ("id", WireId, UNSET),
            ("params", Union[params, UnsetType], UNSET),  # noqa: UP007
            ("result", Union[Raw, UnsetType], UNSET),  # noqa: UP007
            ("error", Union[Raw, UnsetType], UNSET),  # noqa: UP007
        ],
        tag_field="method",
        tag=spec.method,
        namespace={"method": spec.method},
        gc=False,
    )


@lru_cache(maxsize=256)
def _response_decoder(result_type: Any) -> msgspec.json.Decoder[Any]:
    """A decoder of any message whose result, if any, has ``result_type``."""
    struct = msgspec.defstruct(
        "Envelope",
        [
            ("jsonrpc", Any, UNSET),
            ("id", WireId, UNSET),
            ("method", Union[str, UnsetType], UNSET),  # noqa: UP007
            ("params", Union[Raw, UnsetType], UNSET),  # noqa: UP007
            ("result", Union[result_type, UnsetType], UNSET),  # noqa: UP007
            ("error", Union[Raw, UnsetType], UNSET),  # noqa: UP007
        ],
        gc=False,
    )
    return msgspec.json.Decoder(struct, dec_hook=dec_hook)


@lru_cache(maxsize=1024)
def keeps_meta(params_type: Any) -> bool:
    """Whether decoded params of this type still hold ``_meta`` (a dict, or a Struct field)."""
    if params_type is dict or get_origin(params_type) is dict:
        return True
    if not (isinstance(params_type, type) and issubclass(params_type, msgspec.Struct)):
        return False
    return any(f.encode_name == "_meta" for f in msgspec.structs.fields(params_type))


def read_params(spec: AnySpec, params: Any) -> Any:
    """The typed params of a received message (decoded now if still raw)."""
    if isinstance(params, UnsetType):
        if spec.params_required:
            raise RemoteProtocolError(
                f"Invalid params: {spec.method} requires params", INVALID_PARAMS
            )
        return None
    if spec.params is None:
        return None
    if not isinstance(params, Raw):
        return params  # decoded in the one pass already
    try:
        return decoder(spec.params).decode(params)
    except msgspec.ValidationError as exc:
        raise RemoteProtocolError(f"Invalid params: {exc}", INVALID_PARAMS) from None
    except Exception as exc:
        raise RemoteProtocolError(f"Internal error: {exc}", INTERNAL_ERROR) from None


def request_params(spec: AnySpec, params: Any) -> tuple[Any, ProgressToken | None]:
    """The typed params of a received request and its ``_meta.progressToken`` (or None)."""
    if isinstance(params, msgspec.Struct):  # decoded in the one pass: it keeps _meta
        with_meta: _HasMeta = params  # type: ignore[assignment]
        return params, None if with_meta.meta is UNSET else _token_of(params)
    decoded = read_params(spec, params)
    if spec.params is not None and keeps_meta(spec.params):
        return decoded, _token_of(decoded)
    return decoded, read_token(params) if isinstance(params, Raw) else None


def _token_of(params: Any) -> ProgressToken | None:
    """The progress token in decoded params that keep ``_meta``; a bad one is refused."""
    meta = _meta_of(params)
    if isinstance(meta, UnsetType):
        return None
    found = _object(meta)
    if found is None:
        raise _bad_meta("object", meta, "$._meta")
    token = found.get("progressToken", UNSET)
    if isinstance(token, UnsetType):
        return None
    checked = as_id(token)
    if checked is None:
        raise _bad_meta("str | int", token, "$._meta.progressToken")
    return checked


def _meta_of(params: Any) -> object:
    """``_meta`` of decoded params (a dict, or a Struct keeping it), UNSET when absent."""
    if params is None:
        return UNSET
    found = _object(params)
    if found is not None:
        return found.get("_meta", UNSET)
    with_meta: _HasMeta = params
    meta: object = with_meta.meta
    return meta


def _object(value: object) -> dict[str, Any] | None:
    """``value`` as a JSON object, if it is one."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def _bad_meta(expected: str, value: object, path: str) -> RemoteProtocolError:
    """The error for a malformed ``_meta`` (worded as msgspec words its own)."""
    got = "null" if value is None else type(value).__name__
    message = f"Invalid params: Expected `{expected}`, got `{got}` - at `{path}`"
    return RemoteProtocolError(message, INVALID_PARAMS)


def decode_result(spec: AnySpec, result: Any) -> Any:
    """The typed result of a response to ``spec`` (raises ``msgspec.ValidationError``)."""
    return decoder(spec.result).decode(result) if isinstance(result, Raw) else result


def decode_error(error: Raw) -> ErrorObject:
    """The ``error`` member of an error response (raises ``msgspec.ValidationError``)."""
    return ERROR_DECODER.decode(error)


def decode_params(spec: AnySpec, raw: Raw | UnsetType) -> Any:
    """Decode params with the method's params type (None when absent and optional)."""
    return read_params(spec, raw)


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
    meta = _object(_meta_of(params))
    return None if meta is None else as_id(meta.get("progressToken"))


def read_token(raw: Raw | UnsetType) -> ProgressToken | None:
    """Read ``_meta.progressToken`` from raw params (for params types that drop ``_meta``)."""
    # Most requests carry no token: skip the second parse unless the key can be there.
    if isinstance(raw, UnsetType) or b"progressToken" not in bytes(raw):
        return None
    try:
        meta = _META_DECODER.decode(raw).meta
    except msgspec.ValidationError as exc:
        raise RemoteProtocolError(f"Invalid params: {exc}", INVALID_PARAMS) from None
    if isinstance(meta, UnsetType) or isinstance(meta.progress_token, UnsetType):
        return None
    return meta.progress_token


# -- sending -------------------------------------------------------------------------------


def with_progress_token(params: Any, token: ProgressToken) -> dict[str, Any]:
    """Return params (None, a dict or a Struct) as a dict with ``_meta.progressToken`` set."""
    value = _object({} if params is None else msgspec.to_builtins(params))
    if value is None:
        raise LocalProtocolError(f"params must be an object, not {type(params).__name__}")
    previous = _object(value.get("_meta")) or {}
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
