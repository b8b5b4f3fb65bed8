"""The whole transport interface: read a frame, write a message, learn the version, close.

A transport moves messages, not bare bytes: what it writes is an ``Outbound`` (the encoded
frame plus its kind, method and ids, so HTTP routes without decoding), and what it reads is
the bytes of one frame, or an ``Inbound`` when it had to parse the frame to route it (HTTP),
which the session then takes as it is. The connection tells it the negotiated protocol
version through ``negotiated`` instead of letting it sniff the initialize result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

from .errors import ConnectionClosed, SessionExpired
from .wire import Inbound, Outbound

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "STREAM_CLOSED",
    "ClosesStreams",
    "ConnectionClosed",
    "Inbound",
    "Outbound",
    "PushesFrames",
    "RelatedId",
    "SessionExpired",
    "Taker",
    "Transport",
]

STREAM_CLOSED: Final = "streamClosed"
"""The ``data`` key of the error a transport answers one request with when that request's
stream ended before its response (its caller gets ``ConnectionClosed``, the rest go on)."""

RelatedId = str | int | None
"""The id of the peer's request a written message belongs to (None: to none)."""


class Transport(Protocol):
    """Moves whole JSON-RPC messages (one JSON value each) between two peers."""

    async def read(self) -> bytes | Inbound | None:
        """Return the next frame (parsed, if the transport had to), or None once closed."""
        ...

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Send one message; raises ``ConnectionClosed`` when the peer is gone.

        ``related`` names the peer's request the message belongs to (a handler's progress,
        log messages and requests); transports with one stream ignore it.
        """
        ...

    def negotiated(self, version: str) -> None:
        """Learn the protocol version the handshake chose (HTTP sends it as a header)."""
        ...

    async def close(self) -> None:
        """Close the connection; further writes raise ``ConnectionClosed``."""
        ...


Taker = Callable[[bytes | Inbound], "asyncio.Future[None] | None"]
"""Takes one frame a transport pushes: returns None when done with it, or a future (a task)
to wait for before the next frame is taken; raises to stop the transport pushing."""


@runtime_checkable
class PushesFrames(Protocol):
    """A transport that hands each frame to its reader as the bytes arrive (stdio): no read
    loop, so a frame costs no turn of the event loop between the pipe and the session."""

    async def pump(self, take: Taker) -> None:
        """Hand every frame to ``take``, in order, until the input ends (then return).

        The next frame is taken once the last one's future is done; frames meanwhile wait in
        a bounded queue (reading pauses while it is full). What ``take`` raises ends the
        pumping and is raised here.
        """
        ...


@runtime_checkable
class ClosesStreams(Protocol):
    """A transport whose request streams a handler may close for the client to resume
    (Streamable HTTP's SSE polling)."""

    async def close_stream(self, related: RelatedId, retry_ms: int | None) -> bool:
        """End the connection of request ``related``'s stream, not the stream: the client
        reconnects after ``retry_ms`` (None: the transport's delay) and gets the rest.
        Return False when the stream cannot be resumed (then nothing happens)."""
        ...
