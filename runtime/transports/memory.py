"""An in-memory transport pair: a client and a server in one process (tests, embedding)."""

from __future__ import annotations

import asyncio

from ..core.transport import ConnectionClosed, RelatedId
from ..core.wire import Outbound


class MemoryTransport:
    """One end of an in-memory connection; frames are handed over through queues."""

    def __init__(self, inbox: asyncio.Queue[bytes | None], outbox: asyncio.Queue[bytes | None]):
        self._inbox = inbox
        self._outbox = outbox
        self._closed = False

    async def read(self) -> bytes | None:
        """Return the next frame the other end wrote; None once it closed."""
        frame = await self._inbox.get()
        if frame is None:
            self._inbox.put_nowait(None)
        return frame

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """Hand one message's frame (or a frame made by hand) to the other end."""
        if self._closed:
            raise ConnectionClosed("the transport is closed")
        self._outbox.put_nowait(message if isinstance(message, bytes) else message.data)

    def negotiated(self, version: str) -> None:
        """Nothing to do: the ends share no headers."""

    async def close(self) -> None:
        """Close this end; the other end reads end of input."""
        if not self._closed:
            self._closed = True
            self._outbox.put_nowait(None)
            self._inbox.put_nowait(None)


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Return two connected transports: (client end, server end)."""
    a: asyncio.Queue[bytes | None] = asyncio.Queue()
    b: asyncio.Queue[bytes | None] = asyncio.Queue()
    return MemoryTransport(a, b), MemoryTransport(b, a)
