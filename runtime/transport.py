"""The whole transport interface: read a frame, write a frame, close."""

from __future__ import annotations

from typing import Protocol


class ConnectionClosed(Exception):
    """The transport is gone: the peer closed it, died, or we closed it."""


class Transport(Protocol):
    """Moves whole JSON-RPC frames (one JSON value each) between two peers."""

    async def read(self) -> bytes | None:
        """Return the next frame, or None once the peer has closed the connection."""
        ...

    async def write(self, frame: bytes) -> None:
        """Send one frame; raises ``ConnectionClosed`` when the peer is gone."""
        ...

    async def close(self) -> None:
        """Close the connection; further writes raise ``ConnectionClosed``."""
        ...
