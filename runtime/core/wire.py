"""The JSON-RPC wire format: envelope Structs, cached codecs and params helpers."""

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .codec import decoder
from .errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ErrorObject,
    LocalProtocolError,
    RemoteProtocolError,
)
from .events import ProgressToken, RequestId
from .methods import MethodSpec


class Envelope(msgspec.Struct):
    """Any JSON-RPC message, with params, result and error left undecoded."""

    jsonrpc: Any = UNSET
    id: str | int | UnsetType | None = UNSET
    method: str | UnsetType = UNSET
    params: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    error: Raw | UnsetType = UNSET


class _IdOnly(msgspec.Struct):
    """Just the id of a message that failed to decode, to address the error response."""

    id: Any = None


class _Meta(msgspec.Struct):
    """The part of ``params._meta`` the session reads."""

    progress_token: str | int | UnsetType = msgspec.field(default=UNSET, name="progressToken")


class _ParamsMeta(msgspec.Struct):
    """The part of any params object the session reads."""

    meta: _Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


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


def progress_token(params: Any) -> ProgressToken | None:
    """Return ``params._meta.progressToken`` of decoded params (a dict or a Struct), or None."""
    meta = params.get("_meta") if isinstance(params, dict) else getattr(params, "meta", None)
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if is_id(token) else None


def with_progress_token(params: Any, token: ProgressToken) -> dict[str, Any]:
    """Return params (None, a dict or a Struct) as a dict with ``_meta.progressToken`` set."""
    value = {} if params is None else msgspec.to_builtins(params)
    if not isinstance(value, dict):
        raise LocalProtocolError(f"params must be an object, not {type(params).__name__}")
    meta = value.get("_meta")
    value["_meta"] = {**(meta if isinstance(meta, dict) else {}), "progressToken": token}
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


def id_of(frame: bytes | Raw) -> RequestId | None:
    """The id of a message that failed validation, if it has a usable one."""
    try:
        value = _ID_DECODER.decode(frame).id
    except msgspec.DecodeError:
        return None
    return as_id(value)


def decode_params(spec: MethodSpec, raw: Raw | UnsetType) -> Any:
    """Decode params once with the method's params type."""
    if isinstance(raw, UnsetType):
        if spec.params_required:
            raise RemoteProtocolError(
                f"Invalid params: {spec.method} requires params", INVALID_PARAMS
            )
        return None
    if spec.params is None:
        return None
    try:
        return decoder(spec.params).decode(raw)
    except msgspec.ValidationError as exc:
        raise RemoteProtocolError(f"Invalid params: {exc}", INVALID_PARAMS) from None
    except Exception as exc:
        raise RemoteProtocolError(f"Internal error: {exc}", INTERNAL_ERROR) from None


def read_token(raw: Raw | UnsetType) -> ProgressToken | None:
    """Read ``_meta.progressToken`` from raw params (the params types may not keep ``_meta``)."""
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
