"""The events ``Session.receive`` returns: what the peer said, already typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from .errors import ErrorObject, RemoteProtocolError

RequestId: TypeAlias = str | int
"""A JSON-RPC request id (MCP forbids ``null``)."""
ProgressToken: TypeAlias = str | int
"""A progress token from a request's ``params._meta.progressToken``."""


@dataclass(frozen=True, slots=True)
class Request:
    """The peer asks us something; answer with ``send_response`` or ``send_error``."""

    id: RequestId
    method: str
    params: Any
    """The params decoded with the method's params type, or None when absent."""
    progress_token: ProgressToken | None = None
    """The token to pass to ``send_progress``, when the peer asked for progress."""


@dataclass(frozen=True, slots=True)
class Notification:
    """The peer tells us something; no answer is due."""

    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Response:
    """The peer answered one of our requests."""

    id: int
    method: str
    result: Any
    """The result decoded with the method's result type."""


@dataclass(frozen=True, slots=True)
class ErrorResponse:
    """The peer answered one of our requests (or an unreadable frame: id None) with an error."""

    id: RequestId | None
    method: str | None
    error: ErrorObject


@dataclass(frozen=True, slots=True)
class InvalidResponse:
    """The peer answered one of our requests with a result or error we cannot decode."""

    id: int
    method: str
    error: RemoteProtocolError


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The peer cancelled a request it sent us; its response will not be sent."""

    request_id: RequestId
    reason: str | None


@dataclass(frozen=True, slots=True)
class Progress:
    """The peer reported progress on one of our requests."""

    request_id: int
    params: Any
    """The decoded ``notifications/progress`` params (token, progress, total, message)."""


@dataclass(frozen=True, slots=True)
class ProtocolViolation:
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
