"""Where the events of HTTP sessions are kept for ``Last-Event-ID``: the ``EventStore``
interface and its in-memory default, bounded in count and in bytes.

``MemoryEventStore`` keeps ``DEFAULT_SESSION_EVENT_BYTES`` per session and
``DEFAULT_TOTAL_EVENT_BYTES`` in all; the oldest events go first.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from typing import Final, Protocol

DEFAULT_EVENTS_KEPT: Final = 1000
"""Events kept per session by ``MemoryEventStore`` for ``Last-Event-ID``."""
DEFAULT_SESSION_EVENT_BYTES: Final = 4 * 1024 * 1024
"""Bytes of event data ``MemoryEventStore`` keeps per session (the newest event always)."""
DEFAULT_TOTAL_EVENT_BYTES: Final = 64 * 1024 * 1024
"""Bytes of event data ``MemoryEventStore`` keeps over all sessions."""


class EventStore(Protocol):
    """Where events are kept for replay; an in-memory default is ``MemoryEventStore``."""

    async def store(self, session: str, stream: str, data: bytes) -> str:
        """Keep one event of a stream and return its id (unique within the session)."""
        ...

    async def replay(
        self, session: str, last_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """Return the stream of event ``last_id`` and its later events, or None if unknown."""
        ...

    async def forget(self, session: str) -> None:
        """Drop every event of a session (it ended)."""
        ...


class MemoryEventStore:
    """Keeps the latest events of each session in memory, bounded in count and in bytes.

    Per session at most ``limit`` events and ``max_session_bytes`` bytes of event data
    (default 4 MiB); over all sessions ``max_total_bytes`` (default 64 MiB). The oldest
    events go first; the newest event of a session is kept even when it alone is larger.
    An event dropped here can no longer be resumed with ``Last-Event-ID``.
    """

    def __init__(
        self,
        limit: int = DEFAULT_EVENTS_KEPT,
        max_session_bytes: int = DEFAULT_SESSION_EVENT_BYTES,
        max_total_bytes: int = DEFAULT_TOTAL_EVENT_BYTES,
    ) -> None:
        self.limit = limit
        self.max_session_bytes = max_session_bytes
        self.max_total_bytes = max_total_bytes
        self.total_bytes = 0
        """Bytes of event data kept now, over all sessions."""
        self._events: OrderedDict[int, tuple[str, str, bytes]] = OrderedDict()
        self._numbers: dict[str, deque[int]] = {}
        self._bytes: dict[str, int] = {}
        self._counter = itertools.count(1)

    async def store(self, session: str, stream: str, data: bytes) -> str:
        """Keep one event; drop the oldest ones beyond the bounds."""
        return self.keep(session, stream, data)

    def keep(self, session: str, stream: str, data: bytes) -> str:
        """``store`` by a plain call (nothing here waits): what a session's writes use."""
        number = next(self._counter)
        self._events[number] = (session, stream, data)
        numbers = self._numbers.setdefault(session, deque())
        numbers.append(number)
        self._bytes[session] = self._bytes.get(session, 0) + len(data)
        self.total_bytes += len(data)
        while len(numbers) > 1 and (
            len(numbers) > self.limit or self._bytes[session] > self.max_session_bytes
        ):
            self._evict(numbers[0])
        while self.total_bytes > self.max_total_bytes and len(self._events) > 1:
            self._evict(next(iter(self._events)))
        return str(number)

    def _evict(self, number: int) -> None:
        """Drop one event, the oldest of its session."""
        session, _, data = self._events.pop(number)
        self._numbers[session].popleft()
        self._bytes[session] -= len(data)
        self.total_bytes -= len(data)

    async def replay(
        self, session: str, last_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """Return the stream of ``last_id`` and the events of that stream after it."""
        if not last_id.isdigit():
            return None
        last = int(last_id)
        found = self._events.get(last)
        if found is None or found[0] != session:
            return None
        stream = found[1]
        later = (n for n in self._numbers.get(session, ()) if n > last)
        events = [(str(n), self._events[n][2]) for n in later if self._events[n][1] == stream]
        return stream, [(n, data) for n, data in events if data]

    async def forget(self, session: str) -> None:
        """Drop the session's events."""
        for number in self._numbers.pop(session, ()):
            self.total_bytes -= len(self._events.pop(number)[2])
        self._bytes.pop(session, None)
