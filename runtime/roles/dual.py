"""One stream connection (stdio, memory) serving both eras (``basic/versioning.mdx``).

The router reads each frame once to choose its era: ``initialize`` opens the legacy session of
this connection (a ``ServerConnection`` fed through an inner transport, as before); a request
whose ``_meta`` names a modern version, or any request while no legacy session exists, goes to
the ``ModernServer``, each in its own task (``notifications/cancelled`` cancels it, and a
cancelled request gets no response). After ``initialize`` the connection is legacy except for
requests that carry modern ``_meta``. A frame that is not JSON is answered -32700.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

import msgspec

from ..core.errors import RemoteProtocolError
from ..core.events import RequestId
from ..core.frame_guard import decode_untyped
from ..core.meta import META_VERSION
from ..core.transport import ConnectionClosed, RelatedId, Transport
from ..core.wire import Inbound, Malformed, Outbound, as_id
from .modern import LEGACY_VERSIONS, ModernServer, error_frame
from .modern_connection import Frame, field
from .running import RequestTasks

_ENCODER: Final = msgspec.json.Encoder()
CANCELLED: Final = "notifications/cancelled"


class _Inner:
    """The legacy connection's transport: frames the router hands it, writes to the real one."""

    def __init__(self, outer: Transport) -> None:
        self.inbox: asyncio.Queue[bytes | Inbound | None] = asyncio.Queue()
        self._outer = outer
        self._closed = False

    async def read(self) -> bytes | Inbound | None:
        """The next frame routed to the legacy session (None: the connection ended)."""
        return await self.inbox.get()

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Write to the real transport."""
        if self._closed:
            raise ConnectionClosed("the legacy session is closed")
        await self._outer.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass the negotiated version on to the real transport."""
        self._outer.negotiated(version)

    async def close(self) -> None:
        """End the legacy session; the real transport stays open for modern requests."""
        self._closed = True


def describe(frame: Frame) -> Outbound:
    """Encode a frame this module made, with what transports route on (no second parse)."""
    data = _ENCODER.encode(frame)
    method = frame.get("method")
    if method is None:
        request_id = frame.get("id")
        return Outbound(data, "response", None, () if request_id is None else (request_id,))
    if "id" in frame:
        return Outbound(data, "request", method, (frame["id"],))
    cancels = frame.get("params", {}).get("requestId") if method == CANCELLED else None
    return Outbound(data, "notification", method, (), cancels)


def is_modern(message: Any) -> bool:
    """Whether a decoded message carries modern per-request ``_meta`` (not an initialize one)."""
    version = field(message, "params", "_meta", META_VERSION)
    return isinstance(version, str) and version not in LEGACY_VERSIONS


async def serve_both(transport: Transport, engine: ModernServer, legacy: list[Any]) -> None:
    """Serve one connection until it closes: modern requests statelessly, legacy in a session."""
    from .server import ServerConnection

    inner: _Inner | None = None
    session_task: asyncio.Task[None] | None = None
    running = RequestTasks()

    async def write(frame: Frame) -> None:
        with contextlib.suppress(ConnectionClosed):
            await transport.write(describe(frame))

    async def answer(message: Any, request_id: RequestId) -> None:
        try:
            reply = await engine.handle(message, write)
        finally:
            running.answered(request_id)
        if reply.frame is not None:
            await write(reply.frame)

    try:
        while (frame := await transport.read()) is not None:
            if isinstance(frame, Inbound):  # refused unread (too long): answer its error
                for bad in frame.messages:
                    if isinstance(bad, Malformed):
                        await write(error_frame(bad.id, bad.error.code, bad.error.message))
                continue
            try:
                message = decode_untyped(frame)
            except RemoteProtocolError as exc:
                await write(error_frame(None, exc.code, exc.message))
                continue
            method = field(message, "method")
            if inner is None and method == "initialize" and legacy:
                inner = _Inner(transport)
                connection = ServerConnection(legacy, inner)
                session_task = asyncio.create_task(connection.run())
            if inner is not None and not is_modern(message):
                inner.inbox.put_nowait(frame)
                continue
            if method == "notifications/cancelled":
                target = as_id(field(message, "params", "requestId"))
                if target is not None:
                    running.cancel(target)
                continue
            request_id = as_id(field(message, "id"))
            if request_id is not None and isinstance(method, str):
                running.start(request_id, answer(message, request_id))
                continue
            # Not a request with a usable id: answered at once (an id of another type: -32600).
            reply = await engine.handle(message, write)
            if reply.frame is not None:
                await write(reply.frame)
    finally:
        running.cancel_all()
        if inner is not None:
            inner.inbox.put_nowait(None)
        if session_task is not None:
            with contextlib.suppress(Exception):
                await session_task
