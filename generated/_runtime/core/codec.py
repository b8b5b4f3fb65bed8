# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Cached JSON encoder and decoders for generated types (reuse beats re-creation in msgspec)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeVar, cast

import msgspec

from .tolerant import recoverable, reread
from .unions import dec_hook

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()


@lru_cache(maxsize=1024)
def decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """Return the cached JSON decoder for a type, with the untagged-union hook installed."""
    return msgspec.json.Decoder(tp, dec_hook=dec_hook)


def decode(data: bytes | str, tp: type[T], *, tolerant: bool = True) -> T:
    """Decode JSON into a generated type; raises ``msgspec.ValidationError`` naming the field.

    ``tolerant`` keeps fields and union members the revision does not define (see
    ``tolerant.py``); strict drops those fields and refuses those members.
    """
    result: T = read_json(data, cast(Any, tp), tolerant=tolerant)
    return result


def read_json(data: bytes | str, tp: Any, *, tolerant: bool = True) -> Any:
    """``decode`` for any type: one pass, then a second reading only if the first refused."""
    try:
        return decoder(tp).decode(data)
    except msgspec.ValidationError as exc:
        if not recoverable(exc):
            raise
    return reread(msgspec.json.decode(data), tp, keep=tolerant)


def convert(value: Any, tp: type[T], *, tolerant: bool = True) -> T:
    """Convert already-decoded JSON (dicts, lists) into a generated type (``tolerant``: as in
    ``decode``)."""
    try:
        result: T = msgspec.convert(value, tp, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        if not recoverable(exc):
            raise
        result = reread(value, tp, keep=tolerant)
    return result


def encode(value: Any) -> bytes:
    """Encode a generated value (or any msgspec-supported value) as JSON."""
    return _ENCODER.encode(value)
