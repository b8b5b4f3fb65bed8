"""Decoding received frames: in one pass where the types are known, then params and results.

``Reader.one`` decodes one frame in ONE pass when the types are known up front (``Reader.parse``
wraps it in an ``Inbound``; ``Session.receive`` of bytes does not): a request or notification
the peer may send decodes straight into a Struct tagged by its ``method``, params typed; a
response decodes with the result type of the requests awaiting one, when they all share it
(an error response: its ``error`` into an ``ErrorObject``, not kept raw to be decoded again).
Anything else, and anything that fails there, takes the general path (``wire.parse``):
envelopes with params and result left raw, decoded afterwards here by ``read_params`` /
``request_params`` / ``decode_result``, so errors name what is wrong exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final, Literal, Union, cast

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .codec import read_json
from .errors import INTERNAL_ERROR, INVALID_PARAMS, ErrorObject, RemoteProtocolError
from .events import ProgressToken
from .frame_guard import COUNTED_UP_TO, DEFAULT_MAX_DEPTH, decoded_problem
from .message import Message, WireId
from .unions import dec_hook
from .wire import (
    ERROR_DECODER,
    AnySpec,
    HasMeta,
    Inbound,
    as_id,
    as_object,
    keeps_meta,
    meta_of,
    parse,
)


class Reader:
    """Parses frames for one method table and role, in one pass where the types are known."""

    def __init__(self, methods: Mapping[str, AnySpec], peer: Literal["client", "server"]) -> None:
        self.methods = methods
        self._responses: dict[int, tuple[Any, msgspec.json.Decoder[Any]]] = {}
        """Result type -> its one-pass decoder, by the type's identity (a ``Union`` of a
        variant row hashes its members in Python on every lookup)."""
        variants = [
            _message_type(spec) for spec in methods.values() if spec.direction in (peer, "both")
        ]
        self._requests: msgspec.json.Decoder[Any] | None = (
            msgspec.json.Decoder(Union[tuple(variants)], dec_hook=dec_hook)  # noqa: UP007
            if variants
            else None
        )

    def parse(
        self,
        frame: bytes,
        awaiting: Any = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        answers: int | None = None,
    ) -> Inbound:
        """Parse one frame. ``awaiting``: what our pending requests expect, if any.

        ``None``: nothing is awaited, so requests and notifications are expected; a type: the
        result type every pending request shares (or, with ``answers``, the type of the one
        request whose id the frame seems to answer: kept only if its ``id`` is that one);
        ``MIXED``: results of several types. What the one-pass decoders refuse (a batch, an
        unknown method, bad params, a result of another type) is parsed again on the general
        path, which says what is wrong, as it does for a frame the guard refuses (broken UTF-8,
        nesting past ``max_depth``): checked after the one pass, on what msgspec left unchecked.
        """
        message = self.one(frame, awaiting, max_depth, answers)
        return parse(frame, max_depth) if message is None else Inbound([message])

    def one(
        self,
        frame: bytes,
        awaiting: Any = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        answers: int | None = None,
    ) -> Message | None:
        """The one message of ``frame`` decoded in one pass and passed by the guard, or None
        for the general path (``parse``, whose arguments these are)."""
        if awaiting is None:
            one_pass = self._requests
        elif awaiting is MIXED:
            return None
        else:
            found = self._responses.get(id(awaiting))
            if found is not None and found[0] is awaiting:
                one_pass = found[1]
            else:
                one_pass = _response_decoder(awaiting)
                if len(self._responses) >= MAX_RESPONSE_TYPES:  # types are few: tests make many
                    self._responses.clear()
                self._responses[id(awaiting)] = (awaiting, one_pass)
        if one_pass is None:
            return None
        try:
            message: Message = one_pass.decode(frame)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return None
        # An ASCII frame too short to nest too deep, or one of up to 4 KB opening no more
        # brackets than levels allowed, leaves the guard nothing to check: tested here,
        # without a call per frame (two counts in C, no copy).
        if answers is not None and message.id != answers:
            return None
        size = len(frame)
        if (size <= 2 * max_depth + 1 and frame.isascii()) or (
            size <= COUNTED_UP_TO
            and frame.isascii()
            and frame.count(b"{") + frame.count(b"[") <= max_depth
        ):
            return message
        return None if decoded_problem(message, frame, max_depth) else message


MAX_RESPONSE_TYPES: Final = 256
"""Most result types a reader keeps a one-pass decoder for (as ``_response_decoder``)."""
MIXED: Final = object()
"""``Reader.parse(awaiting=MIXED)``: the pending requests expect results of several types."""
_ID: Final = re.compile(rb'"id"\s*:\s*(\d{1,18})\s*[,}]')


def sniff_id(frame: bytes) -> int | None:
    """The integer after the first ``"id":`` key in ``frame`` (a guess: it may be nested)."""
    found = _ID.search(frame)
    return None if found is None else int(found[1])


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
    """A Struct for one method's messages, tagged by ``method``, params typed when possible.

    Its fields carry the JSON-RPC shape of a request or notification (``"jsonrpc": "2.0"``
    required, an id that is a string or an integer if any, no ``result`` or ``error``), so a
    message it decodes is ``shaped`` and the session checks none of that again; a message
    outside that shape fails here and the general path says what is wrong.
    """
    params: Any = spec.params if spec.params is not None and keeps_meta(spec.params) else Raw
    return msgspec.defstruct(
        "Message",
        [
            ("jsonrpc", Literal["2.0"]),
            ("id", Union[int, str, UnsetType], UNSET),  # noqa: UP007
            ("params", Union[params, UnsetType], UNSET),  # noqa: UP007
        ],
        tag_field="method",
        tag=spec.method,
        namespace={"method": spec.method, "result": UNSET, "error": UNSET, "shaped": True},
        forbid_unknown_fields=True,  # nothing skipped: msgspec checks the UTF-8 of what it reads
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
            ("error", Union[ErrorObject, UnsetType], UNSET),  # noqa: UP007
        ],
        namespace={"shaped": False},
        forbid_unknown_fields=True,  # nothing skipped: msgspec checks the UTF-8 of what it reads
        gc=False,
    )
    return msgspec.json.Decoder(struct, dec_hook=dec_hook)


def read_params(spec: AnySpec, params: Any, tolerant: bool = True) -> Any:
    """The typed params of a received message (decoded now if still raw).

    ``tolerant``: fields and union members the revision lacks are kept (strict: dropped,
    refused).
    """
    if type(params) is spec.params:
        return params  # decoded in the one pass (the common case, checked first)
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
        return read_json(params, spec.params, tolerant=tolerant)
    except msgspec.ValidationError as exc:
        raise RemoteProtocolError(f"Invalid params: {exc}", INVALID_PARAMS) from None
    except Exception as exc:
        raise RemoteProtocolError(f"Internal error: {exc}", INTERNAL_ERROR) from None


def request_params(
    spec: AnySpec, params: Any, tolerant: bool = True
) -> tuple[Any, ProgressToken | None]:
    """The typed params of a received request and its ``_meta.progressToken`` (or None)."""
    kind: Any = params.__class__
    if kind is spec.params and kind is not dict:  # decoded in the one pass, keeps _meta
        with_meta: HasMeta = params
        meta = with_meta.meta
        if meta is UNSET:
            return params, None
        if meta.__class__ is dict:  # the common token, read here; anything else checked below
            token = meta.get("progressToken", UNSET)
            if token.__class__ is int or token.__class__ is str:
                return params, token
            if token is UNSET:  # a _meta without a token (every stateless request's)
                return params, None
        return params, _token_of(params)
    if kind is UnsetType and not spec.params_required:  # before the Struct check (~10x slower)
        return None, None
    if kind is dict and spec.params is not None:  # dict-typed params, decoded in the one pass
        return params, _token_of(params) if "_meta" in params else None
    if isinstance(params, msgspec.Struct):  # decoded in the one pass (a subclass: extras)
        return params, _token_of(params) if keeps_meta(kind) else None
    decoded = read_params(spec, params, tolerant=tolerant)
    if spec.params is not None and keeps_meta(spec.params):
        return decoded, _token_of(decoded)
    return decoded, read_token(params) if isinstance(params, Raw) else None


def _token_of(params: Any) -> ProgressToken | None:
    """The progress token in decoded params that keep ``_meta``; a bad one is refused."""
    meta = meta_of(params)
    if meta is UNSET:
        return None
    found = as_object(meta)
    if found is None:
        raise _bad_meta("object", meta, "$._meta")
    token: object = found.get("progressToken", UNSET)
    kind = type(token)
    if kind is int or kind is str:  # bool, a subclass of int, is no token
        return cast(ProgressToken, token)
    if token is UNSET:
        return None
    checked = as_id(token)
    if checked is None:
        raise _bad_meta("str | int", token, "$._meta.progressToken")
    return checked


def _bad_meta(expected: str, value: object, path: str) -> RemoteProtocolError:
    """The error for a malformed ``_meta`` (worded as msgspec words its own)."""
    got = "null" if value is None else type(value).__name__
    message = f"Invalid params: Expected `{expected}`, got `{got}` - at `{path}`"
    return RemoteProtocolError(message, INVALID_PARAMS)


def decode_result(spec: AnySpec, result: Any, tolerant: bool = True) -> Any:
    """The typed result of a response to ``spec`` (raises ``msgspec.ValidationError``)."""
    if isinstance(result, Raw):
        return read_json(result, spec.result, tolerant=tolerant)
    return result


def decode_error(error: Raw | ErrorObject) -> ErrorObject:
    """The ``error`` member of an error response: decoded in the one pass, else now (raises
    ``msgspec.ValidationError``)."""
    return ERROR_DECODER.decode(error) if isinstance(error, Raw) else error


def decode_params(spec: AnySpec, raw: Raw | UnsetType) -> Any:
    """Decode params with the method's params type (None when absent and optional)."""
    return read_params(spec, raw)


class _Meta(msgspec.Struct):
    """The part of ``params._meta`` the session reads."""

    progress_token: str | int | UnsetType = msgspec.field(default=UNSET, name="progressToken")


class _ParamsMeta(msgspec.Struct):
    """The part of any params object the session reads."""

    meta: _Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


_META_DECODER: Final = msgspec.json.Decoder(_ParamsMeta)


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
