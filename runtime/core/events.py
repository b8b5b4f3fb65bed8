"""The events ``Session.receive`` returns: what the peer said, already typed.

Frozen msgspec Structs: made on every message, and a Struct is made in a fraction of a
frozen dataclass's time (which sets each field through ``object.__setattr__``).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import msgspec

from .errors import ErrorObject, RemoteProtocolError

RequestId: TypeAlias = str | int
"""A JSON-RPC request id (MCP forbids ``null``)."""
ProgressToken: TypeAlias = str | int
"""A progress token from a request's ``params._meta.progressToken``."""


class Request(msgspec.Struct, frozen=True):
    """The peer asks us something; answer with ``send_response`` or ``send_error``."""

    id: RequestId
    method: str
    params: Any
    """The params decoded with the method's params type, or None when absent."""
    progress_token: ProgressToken | None = None
    """The token to pass to ``send_progress``, when the peer asked for progress."""


class Notification(msgspec.Struct, frozen=True):
    """The peer tells us something; no answer is due."""

    method: str
    params: Any


class Response(msgspec.Struct, frozen=True):
    """The peer answered one of our requests."""

    id: int
    method: str
    result: Any
    """The result decoded with the method's result type."""


class ErrorResponse(msgspec.Struct, frozen=True):
    """The peer answered one of our requests (or an unreadable frame: id None) with an error."""

    id: RequestId | None
    method: str | None
    error: ErrorObject


class InvalidResponse(msgspec.Struct, frozen=True):
    """The peer answered one of our requests with a result or error we cannot decode."""

    id: int
    method: str
    error: RemoteProtocolError


class Cancelled(msgspec.Struct, frozen=True):
    """The peer cancelled a request it sent us; its response will not be sent."""

    request_id: RequestId
    reason: str | None


class Progress(msgspec.Struct, frozen=True):
    """The peer reported progress on one of our requests."""

    request_id: int
    params: Any
    """The decoded ``notifications/progress`` params (token, progress, total, message)."""


class ProtocolViolation(msgspec.Struct, frozen=True):
    """A record that the peer misbehaved; any error response due was already queued."""

    error: RemoteProtocolError
    id: RequestId | None = None


Event: TypeAlias = (
    Request
    | Notification
    | Response
    | ErrorResponse
    | InvalidResponse
    | Cancelled
    | Progress
    | ProtocolViolation
)
"""Anything ``Session.receive`` returns."""
