# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Every exception type of the runtime and the JSON-RPC error codes (after h11's ``_util``).

``LocalProtocolError`` means this side misused the API (a bug in our code); it is raised at
once. ``RemoteProtocolError`` means the peer sent something invalid; the session turns it
into an error response (when one is due) and reports it as a ``ProtocolViolation`` event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import msgspec

PARSE_ERROR: Final = -32700
"""The frame is not well-formed JSON."""
INVALID_REQUEST: Final = -32600
"""The JSON value is not a valid JSON-RPC message (or the frame was refused)."""
METHOD_NOT_FOUND: Final = -32601
"""The method does not exist, or the peer may not send it."""
INVALID_PARAMS: Final = -32602
"""The params do not match the method's params type."""
INTERNAL_ERROR: Final = -32603
"""The receiver failed while handling the message."""


class ErrorObject(msgspec.Struct, omit_defaults=True):
    """The ``error`` member of a JSON-RPC error response."""

    code: int
    message: str
    data: Any = msgspec.UNSET


class ProtocolError(Exception):
    """Base of the session's protocol errors; never raised itself."""

    def __init__(self, message: str, code: int = INVALID_REQUEST, data: Any = msgspec.UNSET):
        if type(self) is ProtocolError:
            raise TypeError("use LocalProtocolError or RemoteProtocolError")
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data

    def error_object(self) -> ErrorObject:
        """Return this error as the ``error`` member of a response."""
        return ErrorObject(code=self.code, message=self.message, data=self.data)


class LocalProtocolError(ProtocolError):
    """We tried to do something the protocol or the session state forbids."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids."""


RETRY_AFTER_S: Final = 1
"""Seconds a requestor is asked to wait before trying again what met an ``Unavailable``."""
UNAVAILABLE_MESSAGE: Final = "Service unavailable: try again later"


class Unavailable(Exception):
    """A shared service an answer needs cannot be reached now (a Redis away): the request is
    answered -32603 with ``data.retryAfter`` (seconds), over HTTP without a session 503 with
    ``Retry-After``; the connection serves on."""


class MCPError(Exception):
    """An error answer: raised by a handler to send it, or raised to a caller who received it."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_error(cls, error: ErrorObject) -> MCPError:
        """Build from the ``error`` member of a received error response."""
        data = None if error.data is msgspec.UNSET else error.data
        return cls(error.code, error.message, data)


class ToolError(Exception):
    """Raised by a tool on purpose: the client reads its message in a tool error result.

    Any other exception from a tool is logged on the server with its traceback, and the client
    reads a generic text that leaks nothing of the server's internals.
    """


class RoundTripSignal(Exception):
    """Raised inside a 2026-07-28 handler for the multi round-trip driver to answer (input
    required, a missing client capability, a bad input response): never a handler's failure."""


class RequestTimeout(Exception):
    """A request got no response in time; it was cancelled on the wire."""


class CapabilityError(Exception):
    """A method may not be used: one side did not declare the capability it needs."""


class UnsupportedVersion(Exception):
    """The peer chose a protocol version this side does not support."""


class ConnectionClosed(Exception):
    """The transport is gone: the peer closed it, died, or we closed it."""


class SessionExpired(Exception):
    """The server no longer knows our session (HTTP 404): the client starts a new one.

    Raised by ``Transport.write``; deliberately not a ``ConnectionClosed``, since the
    connection itself is fine.
    """


class MissingDependency(ImportError):
    """An optional package that a feature needs is not installed; the message names the extra
    and the two ways to install it: the generated package's requirements file, or the extra
    from a checkout of mcpgen (it is on no package index)."""

    def __init__(self, package: str, extra: str, feature: str) -> None:
        name = "requirements.txt" if extra == "runtime" else f"requirements-{extra}.txt"
        beside = Path(__file__).resolve().parents[2] / name  # <package>/_runtime/core/errors.py
        where = str(beside) if beside.is_file() else f"<generated package>/{name}"
        super().__init__(
            f"{feature} needs {package}, which is not installed: install the {extra!r} extra: "
            f'pip install -r {where} (or, in a checkout of mcpgen, pip install ".[{extra}]")',
            name=package,
        )
        self.package = package
        self.extra = extra


class ConversionError(MCPError):
    """A value cannot be converted to another revision: it names the member and the reason.

    An ``MCPError`` (internal error by default), so a handler's result that an older client
    cannot take is answered as an error response instead of ending the session; params the
    peer sent that cannot be converted are invalid params (``code``).
    """

    def __init__(self, message: str, code: int = INTERNAL_ERROR) -> None:
        super().__init__(code, message)
