"""When our pending requests time out: one timer for the earliest deadline, not one per request.

A request with a timeout adds ``(deadline, id)`` to a heap; one loop timer is armed for the
earliest deadline. When it fires, every due request still waiting is timed out and the timer
is armed again for the next one still waiting. A request answered in time leaves its entry
behind (no timer to cancel): entries of requests no longer waiting are dropped when they reach
the top, and the heap is rebuilt from the waiting ones whenever it holds more than twice as
many entries as there are requests waiting (plus ``SLACK``), so it stays bounded.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable, Collection
from typing import Any, Final

SLACK: Final = 64
"""Entries of finished requests kept beyond twice the waiting ones before the heap is rebuilt."""

_PLAIN_TIME = asyncio.BaseEventLoop.time
"""The ``time`` of asyncio's own loops: ``time.monotonic()`` behind a Python method."""

Expire = Callable[[int, Any, float], None]
"""Told (request id, method, timeout) of a request whose deadline passed while it waited."""


class Deadlines:
    """The deadlines of our requests that wait with a timeout, under one loop timer."""

    def __init__(self, waiting: Collection[int], expire: Expire) -> None:
        self._waiting = waiting
        """The ids of the requests still waiting (an entry of any other id is stale)."""
        self._expire = expire
        self._heap: list[tuple[float, int, Any, float]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._at = 0.0
        """When the armed timer fires (loop time)."""

    def __len__(self) -> int:
        return len(self._heap)

    def add(
        self, loop: asyncio.AbstractEventLoop, request_id: int, method: Any, timeout: float
    ) -> None:
        """Time out request ``request_id`` after ``timeout`` seconds unless it is answered."""
        plain = type(loop).time is _PLAIN_TIME  # asyncio's own loop: its clock, without a frame
        deadline = (time.monotonic() if plain else loop.time()) + timeout
        heap = self._heap
        heapq.heappush(heap, (deadline, request_id, method, timeout))
        timer = self._timer
        if timer is None or deadline < self._at:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._fire, loop)
            self._at = deadline
        elif len(heap) > SLACK + 2 * len(self._waiting):
            self._compact()

    def _compact(self) -> None:
        """Rebuild the heap from the requests still waiting (stale entries outnumber them)."""
        waiting = self._waiting
        live = [entry for entry in self._heap if entry[1] in waiting]
        heapq.heapify(live)
        self._heap = live

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        """Time out what is due; arm the timer for the next request still waiting."""
        self._timer = None
        due = max(loop.time(), self._at)  # the loop fires a timer a clock tick early
        heap = self._heap
        waiting = self._waiting
        while heap and (heap[0][0] <= due or heap[0][1] not in waiting):
            _, request_id, method, timeout = heapq.heappop(heap)
            if request_id in waiting:
                self._expire(request_id, method, timeout)
        if heap:
            self._at = heap[0][0]
            self._timer = loop.call_at(self._at, self._fire, loop)

    def clear(self) -> None:
        """Forget every deadline and stop the timer (the connection closed)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._heap.clear()
