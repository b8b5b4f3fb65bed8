"""The bridge's watch on its stdio upstream until it knows whether it relays (``UpstreamTap``),
and a client transport whose first frame was read to choose the path (``Replay``).
"""

from __future__ import annotations

import asyncio
from typing import Final, Protocol

import msgspec
from msgspec import UNSET

from ..core.events import RequestId
from ..core.transport import PushesFrames, RelatedId, Transport
from ..core.wire import ENVELOPE_DECODER, Inbound, Outbound

__all__ = ["DECODE_ERRORS", "Relays", "Replay", "UpstreamTap"]

DECODE_ERRORS: Final = (
    msgspec.DecodeError,
    msgspec.ValidationError,
    UnicodeDecodeError,
    RecursionError,
)
"""What decoding a peer's frame (or a part of it) may raise."""


class Relays(Protocol):
    """Where the tap hands the upstream's frames once the bridge relays (``bridge_relay.Relay``)."""

    def pushed_from_upstream(self, frame: bytes | Inbound) -> asyncio.Future[None] | None:
        """Pass one upstream frame on at once; a future if that waits."""
        ...

    async def upstream_gone(self, inner: Transport) -> None:
        """The upstream's output ended."""
        ...


class UpstreamTap:
    """The upstream's transport, watched until the bridge knows whether it relays.

    Until then it records what the relay needs (the ids of the bridge's requests, the
    upstream's answer to ``initialize``) and passes everything on. Relaying, the typed
    client's reader, which calls ``read``, carries every upstream frame to the relay instead
    and sees only the end of input (so the bridge learns the upstream went away as before).
    """

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.sent_ids: set[RequestId] = set()
        """The ids of the requests the bridge sent upstream before it knew."""
        self.initialize_answer: bytes | None = None
        """The upstream's answer to the bridge's ``initialize``, as it came."""
        self._initialize_id: RequestId | None = None
        self._watching = True
        self._relay: Relays | None = None

    async def read(self) -> bytes | Inbound | None:
        """The next upstream frame for the typed client, or (relaying) only the end of input."""
        frame = await self.inner.read()
        relay = self._relay
        if relay is None:
            if self._initialize_id is not None and type(frame) is bytes:
                self._watch(frame)
            return frame
        inner = self.inner
        while frame is not None:
            waiting = relay.pushed_from_upstream(frame)
            if waiting is not None:
                await waiting
            if isinstance(inner, PushesFrames):  # each frame relayed as its bytes arrive
                await inner.pump(relay.pushed_from_upstream)
                break
            frame = await inner.read()
        await relay.upstream_gone(self.inner)
        return None

    def _watch(self, frame: bytes) -> None:
        """Keep the upstream's answer to ``initialize``."""
        try:
            env = ENVELOPE_DECODER.decode(frame)
        except DECODE_ERRORS:
            return
        if env.id == self._initialize_id and env.method is UNSET and env.result is not UNSET:
            self.initialize_answer, self._initialize_id = frame, None

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Send one message upstream (the bridge's own: its ids are recorded until sealed)."""
        if self._watching and message.kind == "request":
            self.sent_ids.update(message.ids)
            if message.method == "initialize" and message.ids:
                self._initialize_id, self.initialize_answer = message.ids[0], None
        await self.inner.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass the version on."""
        self.inner.negotiated(version)

    async def close(self) -> None:
        """Close the upstream (for a spawned server: its shutdown sequence)."""
        await self.inner.close()

    def seal(self) -> None:
        """Stop recording: the path is chosen."""
        self._watching, self._initialize_id = False, None

    def relay_to(self, relay: Relays) -> None:
        """Hand every upstream frame to ``relay`` from now on."""
        self.seal()
        self._relay = relay


class Replay:
    """A transport whose first frame was read already (to choose the path): it comes first."""

    def __init__(self, inner: Transport, first: bytes | Inbound | None) -> None:
        self.inner = inner
        self._first: list[bytes | Inbound | None] = [first]

    async def read(self) -> bytes | Inbound | None:
        """The frame read already, then the transport's."""
        if self._first:
            return self._first.pop()
        return await self.inner.read()

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Write to the transport."""
        await self.inner.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass the version on."""
        self.inner.negotiated(version)

    async def close(self) -> None:
        """Close the transport."""
        await self.inner.close()
