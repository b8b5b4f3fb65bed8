# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Cached JSON encoder and decoders for generated types (reuse beats re-creation in msgspec)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeVar, cast

import msgspec

from .unions import dec_hook

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()


@lru_cache(maxsize=1024)
def decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """Return the cached JSON decoder for a type, with the untagged-union hook installed."""
    return msgspec.json.Decoder(tp, dec_hook=dec_hook)


def decode(data: bytes | str, tp: type[T]) -> T:
    """Decode JSON into a generated type; raises ``msgspec.ValidationError`` naming the field."""
    result: T = decoder(cast(Any, tp)).decode(data)
    return result


def convert(value: Any, tp: type[T]) -> T:
    """Convert already-decoded JSON (dicts, lists) into a generated type."""
    result: T = msgspec.convert(value, tp, dec_hook=dec_hook)
    return result


def encode(value: Any) -> bytes:
    """Encode a generated value (or any msgspec-supported value) as JSON."""
    return _ENCODER.encode(value)
