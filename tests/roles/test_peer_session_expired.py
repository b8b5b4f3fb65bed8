"""The Peer when the transport raises SessionExpired (Streamable HTTP, HTTP 404).

- When ``write`` raises ``SessionExpired`` for one queued frame, the frames queued after it
  are not dropped: their callers get ``SessionExpired`` too instead of waiting for a timeout.
- A request cancelled after its session expired ends as cancelled (the flush of
  ``notifications/cancelled`` does not replace the CancelledError with SessionExpired).
"""

from __future__ import annotations

import asyncio

import pytest

from generated import v2025_06_18
from generated._runtime.core.events import Notification, Request
from generated._runtime.core.session import Session
from generated._runtime.core.transport import RelatedId, SessionExpired
from generated._runtime.roles.peer import Peer


class ExpiringTransport:
    """Holds the first write until ``gate`` opens; every write after ``expired`` raises."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.expired = False
        self.written: list[bytes] = []
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def read(self) -> bytes | None:
        """Nothing ever arrives."""
        return await self._inbox.get()

    async def write(self, frame: bytes, related: RelatedId = None) -> None:
        """Record the frame; wait on the gate for the first; raise once expired."""
        if not self.written:
            self.written.append(frame)
            await self.gate.wait()
            return
        if self.expired:
            raise SessionExpired("404")
        self.written.append(frame)

    async def close(self) -> None:
        """End reading."""
        self._inbox.put_nowait(None)


async def _refuse(request: Request) -> None:
    raise AssertionError("no request expected")


async def _ignore(notification: Notification) -> None:
    return None


async def test_frames_behind_a_session_expired_write_are_not_lost() -> None:
    """Two requests queued while a write is in progress; the session then expires.

    The first gets SessionExpired from its flush; the second must not be left waiting for its
    timeout: it gets SessionExpired too.
    """
    transport = ExpiringTransport()
    session = Session(v2025_06_18.Client.METHODS, role="client")
    peer = Peer(session, transport, _refuse, _ignore)
    holder = asyncio.create_task(peer.notify("notifications/initialized"))
    await asyncio.sleep(0)  # the notification's write holds the write lock
    first = asyncio.create_task(peer.request("ping", timeout=60.0))
    second = asyncio.create_task(peer.request("ping", timeout=60.0))
    await asyncio.sleep(0)  # both frames are queued, both callers wait for the lock
    transport.expired = True
    transport.gate.set()
    await holder
    with pytest.raises(SessionExpired):
        await asyncio.wait_for(first, 30.0)
    try:
        done, _ = await asyncio.wait({second}, timeout=30.0)
        assert second in done, "the second request's frame was dropped: it waits for its timeout"
        with pytest.raises(SessionExpired):
            second.result()
    finally:
        second.cancel()
        await asyncio.gather(second, return_exceptions=True)
        await peer.close()


async def test_cancelling_a_request_stays_a_cancellation() -> None:
    """Cancelling a request whose session then expired must still end it as cancelled.

    ``Peer.request`` flushes ``notifications/cancelled`` on cancellation; a SessionExpired
    from that flush must not replace the CancelledError.
    """
    transport = ExpiringTransport()
    transport.gate.set()
    peer = Peer(Session(v2025_06_18.Client.METHODS, role="client"), transport, _refuse, _ignore)
    call = asyncio.create_task(peer.request("ping", timeout=5.0))
    await asyncio.sleep(0.01)  # the ping is written; no answer comes
    transport.expired = True
    call.cancel()
    await asyncio.gather(call, return_exceptions=True)
    try:
        assert call.cancelled(), f"ended with {call.exception()!r} instead of being cancelled"
    finally:
        await peer.close()
