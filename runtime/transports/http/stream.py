"""One SSE stream of an HTTP session (a POST's, or the GET stream): its queue of events,
bounded in bytes, and the reader attached to it.

A slow reader slows its producer; one that reads nothing for ``DEFAULT_STALL_TIMEOUT_S`` is
cut; with no reader attached the oldest queued events are dropped. A handler may end the
reader's connection without ending the stream (``HangUp``, SSE polling).
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Final, TypeAlias

from ...core.events import RequestId

DEFAULT_STREAM_BYTES: Final = 4 * 1024 * 1024
"""Bytes of events one SSE stream may queue unsent before its producer waits (or drops)."""
DEFAULT_STALL_TIMEOUT_S: Final = 30.0
"""Seconds a producer waits for a client reading nothing before its stream is cut."""


@dataclass(frozen=True, slots=True)
class HangUp:
    """Queued on a stream: end the connection reading it (not the stream) after a ``retry``."""

    event_id: str
    retry_ms: int


Item: TypeAlias = "tuple[str, bytes] | HangUp | None"
"""What a stream's queue holds: an event (id, data), a hang-up, or None (the stream ended)."""


class Stream:
    """One SSE stream (a POST's, or the GET stream): events queue here until sent.

    At most ``max_bytes`` of event data wait in the queue. Beyond that, while a client is
    attached, the producer waits for it to read; if it reads nothing for ``stall_timeout``
    seconds the stream is cut (its response ends; its events stay in the event store for
    ``Last-Event-ID``). With no client attached the oldest queued events are dropped instead.
    """

    def __init__(
        self,
        id: str,
        waiting_for: set[RequestId] | None = None,
        *,
        attached: bool = False,
        max_bytes: int = DEFAULT_STREAM_BYTES,
        stall_timeout: float = DEFAULT_STALL_TIMEOUT_S,
        json: bool = False,
    ) -> None:
        self.id = id
        self.waiting_for: set[RequestId] = waiting_for if waiting_for is not None else set()
        self._items: deque[Item] = deque()
        """What waits to be sent: a plain deque, woken readers re-check it (no asyncio.Queue
        and its events per POST; a reader cancelled while waiting takes nothing)."""
        self._readers: list[asyncio.Future[None]] = []
        self.json = json
        """Its answers go into one JSON body: no events, so its handlers' other messages use
        the GET stream."""
        self.done = False
        self.max_bytes = max_bytes
        self.stall_timeout = stall_timeout
        self.queued_bytes = 0
        """Bytes of event data waiting in the queue."""
        self.cut_reason: str | None = None
        """Why the stream was cut (a reader too slow), if it was."""
        self._attached = attached
        self._progress: asyncio.Event | None = None
        """Set when a producer waiting for room may re-check (made when one first waits)."""
        self._claims = 0
        """How many readers claimed the stream: the last one's claim is current."""
        self._preempt: asyncio.Event | None = None
        """Set when the reader waiting on it is replaced (made when one first waits)."""

    @property
    def attached(self) -> bool:
        """Whether a client is reading this stream now."""
        return self._attached

    @attached.setter
    def attached(self, value: bool) -> None:
        self._attached = value
        self._wake_producer()  # a waiting producer re-checks: it drops instead of waiting

    def _wake_producer(self) -> None:
        if self._progress is not None:
            self._progress.set()

    def claim(self) -> int:
        """Attach a new reader; a previous one is told to stop (it resumes elsewhere).

        Return this reader's claim: ``replaced(claim)`` says when another one took over.
        """
        self._claims += 1
        if self._preempt is not None:  # a reader waits: wake it
            self._preempt.set()
            self._preempt = None
        self.attached = True
        return self._claims

    def replaced(self, claim: int) -> bool:
        """Whether another reader claimed the stream after ``claim``."""
        return claim != self._claims

    async def wait_replaced(self, claim: int) -> None:
        """Return once another reader claimed the stream after ``claim`` (the event behind
        it is made only for a reader that waits: most POST streams never do)."""
        if claim != self._claims:
            return
        if self._preempt is None:
            self._preempt = asyncio.Event()
        await self._preempt.wait()

    def release(self, claim: int) -> None:
        """Detach the reader of ``claim``, unless another one took over since."""
        if claim == self._claims:
            self.attached = False

    def empty(self) -> bool:
        """Whether nothing waits to be sent."""
        return not self._items

    def get_nowait(self) -> Item:
        """Take the next item at once (the stream must not be ``empty``)."""
        return self._taken(self._items.popleft())

    def frames_left(self) -> list[bytes]:
        """Take at once the data of every event still queued (once the stream is ``done``,
        nothing more comes: a JSON answer's frames)."""
        frames: list[bytes] = []
        for item in self._items:  # a plain loop: no comprehension frame per JSON answer
            if isinstance(item, tuple):
                frames.append(item[1])
        self._items.clear()
        self.queued_bytes = 0
        self._wake_producer()
        return frames

    async def get(self) -> Item:
        """Take the next item to send (None: the stream ended)."""
        await self.ready()
        return self._taken(self._items.popleft())

    async def ready(self) -> None:
        """Return once an item waits, taking none: a reader that may be replaced meanwhile
        checks that it was not before it takes the item (``get_nowait``)."""
        while not self._items:
            reader = asyncio.get_running_loop().create_future()
            self._readers.append(reader)
            try:
                await reader
            finally:
                self._readers.remove(reader)

    def _push(self, item: Item) -> None:
        """Queue one item and wake the readers waiting for one."""
        self._items.append(item)
        for reader in self._readers:
            if not reader.done():
                reader.set_result(None)

    def _taken(self, item: Item) -> Item:
        """Account for an item leaving the queue; a waiting producer may go on."""
        if isinstance(item, tuple):
            self.queued_bytes -= len(item[1])
            self._wake_producer()
        return item

    def hang_up(self, event_id: str, retry_ms: int) -> None:
        """After what is queued, end the reader's connection with a ``retry`` event
        (``event_id``, no data); the stream goes on for a reader that resumes it."""
        if not self.done:
            self._push(HangUp(event_id, retry_ms))

    def put_now(self, event_id: str, frame: bytes) -> bool:
        """Queue an event if it fits now (or the stream ended: then it is not queued, the
        event store keeps it); False when ``put`` must wait or drop to make room."""
        if self.done:
            return True
        if self.queued_bytes and self.queued_bytes + len(frame) > self.max_bytes:
            return False
        self.queued_bytes += len(frame)
        self._push((event_id, frame))
        return True

    async def put(self, event_id: str, frame: bytes) -> None:
        """Queue an event, waiting for a slow reader (bounded), dropping for an absent one."""
        while (
            not self.done and self.queued_bytes and self.queued_bytes + len(frame) > self.max_bytes
        ):
            if not self._attached:
                self._drop_oldest()
                continue
            if self._progress is None:
                self._progress = asyncio.Event()
            self._progress.clear()
            try:
                await asyncio.wait_for(self._progress.wait(), self.stall_timeout)
            except TimeoutError:
                waited = f"{self.queued_bytes} bytes unread for {self.stall_timeout} s"
                self.close(f"the client reads too slowly ({waited})")
        if self.done:
            return  # ended or cut: the event store keeps the event for resumption
        self.queued_bytes += len(frame)
        self._push((event_id, frame))

    def _drop_oldest(self) -> None:
        item = self._items.popleft()
        if isinstance(item, tuple):
            self.queued_bytes -= len(item[1])

    def close(self, cut_reason: str | None = None) -> None:
        """End the stream; a cut one also drops what it still queued."""
        if self.done:
            return
        self.done = True
        if cut_reason is not None:
            self.cut_reason = cut_reason
            while self._items:
                self._drop_oldest()
        self._push(None)
        self._wake_producer()
