"""The mcpgen runtime, copied into every generated package as ``_runtime``.

It depends on msgspec only, and nothing here imports the generator. What the generated
types need is imported here at once; the session core is loaded on first use, so that
importing a revision's types stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core.base import MCPStruct
from .core.codec import convert, decode, decoder, encode
from .core.methods import MethodSpec
from .core.unions import UntaggedUnion, Variant, dec_hook, untagged_union

if TYPE_CHECKING:
    from .core.errors import (
        INTERNAL_ERROR,
        INVALID_PARAMS,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        PARSE_ERROR,
        ErrorObject,
        LocalProtocolError,
        ProtocolError,
        RemoteProtocolError,
    )
    from .core.events import (
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
    from .core.session import DEFAULT_MAX_FRAME_SIZE, Session
    from .core.wire import progress_frame, progress_token, with_progress_token

_LAZY = {
    **dict.fromkeys(
        [
            "INTERNAL_ERROR",
            "INVALID_PARAMS",
            "INVALID_REQUEST",
            "METHOD_NOT_FOUND",
            "PARSE_ERROR",
            "ErrorObject",
            "LocalProtocolError",
            "ProtocolError",
            "RemoteProtocolError",
        ],
        "core.errors",
    ),
    **dict.fromkeys(
        [
            "Cancelled",
            "ErrorResponse",
            "Event",
            "InvalidResponse",
            "Notification",
            "Progress",
            "ProgressToken",
            "ProtocolViolation",
            "Request",
            "RequestId",
            "Response",
        ],
        "core.events",
    ),
    "DEFAULT_MAX_FRAME_SIZE": "core.session",
    "Session": "core.session",
    "progress_frame": "core.wire",
    "progress_token": "core.wire",
    "with_progress_token": "core.wire",
}

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "Cancelled",
    "ErrorObject",
    "ErrorResponse",
    "Event",
    "InvalidResponse",
    "LocalProtocolError",
    "MCPStruct",
    "MethodSpec",
    "Notification",
    "Progress",
    "ProgressToken",
    "ProtocolError",
    "ProtocolViolation",
    "RemoteProtocolError",
    "Request",
    "RequestId",
    "Response",
    "Session",
    "UntaggedUnion",
    "Variant",
    "convert",
    "dec_hook",
    "decode",
    "decoder",
    "encode",
    "progress_frame",
    "progress_token",
    "untagged_union",
    "with_progress_token",
]


def __getattr__(name: str) -> Any:
    """Load the session core's names on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
