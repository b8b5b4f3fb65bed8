"""What the HTTP client transports received, handed to their reader as it arrives.

A response body or SSE event is parsed where it arrives (the task that POSTed, or the one
reading a stream) and given to the reader's ``take`` (``Transport.pump``) in that same step:
no queue between the HTTP response and the session, so no turn of the event loop. Frames
arriving while a ``take`` waits (a notification handler that awaits), or before anyone
pumps, wait in order; a reader that pulls (``read()``) gets them the same way.
"""

from __future__ import annotations

import asyncio
import collections

from ...core.transport import Taker
from ...core.wire import Inbound

Frame = bytes | Inbound


class Inbox:
    """Frames for one reader: pushed to its ``take`` at once when it is free, else kept."""

    def __init__(self) -> None:
        self._kept: collections.deque[Frame] = collections.deque()
        self._take: Taker | None = None
        self._taking = False
        """A ``take`` is running: a frame put from inside it is kept, and taken after it."""
        self._busy: asyncio.Future[None] | None = None
        """The ``take`` that waits: frames are kept until it is done."""
        self._error: BaseException | None = None
        self._ended = False
        self._signal: asyncio.Future[None] | None = None

    def put(self, frame: Frame) -> None:
        """Hand ``frame`` to the reader now if it is free, else keep it for later."""
        self._kept.append(frame)
        if self._take is not None and not self._taking and self._busy is None:
            self._hand_on()
        else:
            self._wake()

    def end(self) -> None:
        """Nothing more comes: the reader gets what is kept, then the end."""
        self._ended = True
        self._wake()

    async def read(self) -> Frame | None:
        """The next frame, or None once the input ended and every frame was read."""
        while not self._kept and not self._ended:
            await self._changed()
        return self._kept.popleft() if self._kept else None

    async def pump(self, take: Taker) -> None:
        """Hand every frame to ``take`` in order until the input ends (see ``Transport.pump``);
        what ``take`` raises, or the future it returned fails with, ends it and is raised."""
        if self._take is not None:
            raise RuntimeError("this inbox is already pumped")
        self._take, self._error = take, None
        try:
            self._hand_on()
            while self._error is None:
                busy = self._busy
                if busy is not None:
                    await _settled(busy)
                    self._busy = None
                    self._hand_on()
                elif self._ended and not self._kept:
                    return
                else:
                    await self._changed()
            raise self._error
        finally:
            self._take = None

    def _hand_on(self) -> None:
        """Give kept frames to ``take`` until one waits or none is left."""
        kept, take = self._kept, self._take
        while kept and take is not None and self._error is None:
            self._taking = True
            try:
                waiting = take(kept.popleft())
            except Exception as exc:  # the reader stopped (its connection closed)
                self._error = exc
                self._wake()
                return
            finally:
                self._taking = False
            if waiting is not None:
                self._busy = waiting
                self._wake()
                return

    async def _changed(self) -> None:
        """Wait until a frame is kept, a ``take`` waits or fails, or the input ends."""
        signal = self._signal
        if signal is None or signal.done():
            signal = self._signal = asyncio.get_running_loop().create_future()
        await signal

    def _wake(self) -> None:
        signal = self._signal
        if signal is not None and not signal.done():
            signal.set_result(None)


async def _settled(busy: asyncio.Future[None]) -> None:
    """Wait for a ``take`` that waits; its failure is raised, its cancellation is not."""
    try:
        await busy
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if not busy.cancelled() or (task is not None and task.cancelling()):
            raise
