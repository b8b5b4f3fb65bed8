# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The whole transport interface: read a frame, write a frame, close."""

from __future__ import annotations

from typing import Protocol

RelatedId = str | int | None
"""The id of the peer's request a written frame belongs to (None: to none)."""


class ConnectionClosed(Exception):
    """The transport is gone: the peer closed it, died, or we closed it."""


class SessionExpired(Exception):
    """The server no longer knows our session (HTTP 404): the client starts a new one.

    Raised by ``Transport.write``; deliberately not a ``ConnectionClosed``, since the
    connection itself is fine.
    """


class Transport(Protocol):
    """Moves whole JSON-RPC frames (one JSON value each) between two peers."""

    async def read(self) -> bytes | None:
        """Return the next frame, or None once the peer has closed the connection."""
        ...

    async def write(self, frame: bytes, related: RelatedId = None) -> None:
        """Send one frame; raises ``ConnectionClosed`` when the peer is gone.

        ``related`` names the peer's request the frame belongs to (a handler's progress,
        log messages and requests); transports with one stream ignore it.
        """
        ...

    async def close(self) -> None:
        """Close the connection; further writes raise ``ConnectionClosed``."""
        ...
