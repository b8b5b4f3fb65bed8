"""The mcpgen runtime, copied into every generated package as ``_runtime``.

It depends on msgspec only, and nothing here imports the generator.
"""

from .base import MCPStruct
from .codec import convert, decode, decoder, encode
from .errors import (
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
from .jsonrpc import DEFAULT_MAX_FRAME_SIZE, Session
from .methods import MethodSpec
from .unions import UntaggedUnion, Variant, dec_hook, untagged_union
from .wire import progress_frame, progress_token, with_progress_token

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
