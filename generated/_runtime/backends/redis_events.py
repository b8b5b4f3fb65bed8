# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""An ``EventStore`` in Redis: a Redis Stream per session (``<prefix>:{<session>}:events``).

Each SSE event is one stream entry (fields ``s``: the SSE stream it belongs to, ``d``: its
data); the entry id is the event id ``Last-Event-ID`` names. A session's stream keeps at most
about ``limit`` events (``MAXLEN ~``) and expires ``ttl`` seconds after its last event, so a
session that vanished without ending leaves nothing behind for long.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .redis_client import client_for, reachable, result

DEFAULT_LIMIT: Final = 1000
"""Events kept per session (approximately: Redis trims whole nodes)."""
DEFAULT_TTL_S: Final = 3900.0
"""Seconds a session's events outlive its last event."""
_EVENT_ID: Final = re.compile(r"\A\d{1,20}-\d{1,20}\Z")


class RedisEventStore:
    """Events of every session in Redis Streams, readable by every worker."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "mcpgen",
        limit: int = DEFAULT_LIMIT,
        ttl: float = DEFAULT_TTL_S,
        socket_timeout: float = 1.0,
    ) -> None:
        self.client = client_for(url, socket_timeout)
        self.prefix = prefix
        self.limit = limit
        self.ttl_ms = int(ttl * 1000)

    def _key(self, session: str) -> str:
        return f"{self.prefix}:{{{session}}}:events"

    async def store(self, session: str, stream: str, data: bytes) -> str:
        """Append one event; return its id (the stream entry id)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.xadd(self._key(session), {"s": stream, "d": data}, maxlen=self.limit)
        pipe.pexpire(self._key(session), self.ttl_ms)
        with reachable("the event store"):
            event_id, _ = await pipe.execute()
        return bytes(event_id).decode()

    async def replay(
        self, session: str, last_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """The stream of event ``last_id`` and its later events with data, or None."""
        if not _EVENT_ID.match(last_id):
            return None
        key = self._key(session)
        with reachable("the event store"):
            found = await result(self.client.xrange(key, last_id, last_id))
            if not found:
                return None
            later = await result(self.client.xrange(key, f"({last_id}", "+"))
        stream = _field(found[0][1], b"s").decode()
        events = [
            (bytes(entry_id).decode(), _field(fields, b"d"))
            for entry_id, fields in later
            if _field(fields, b"s").decode() == stream
        ]
        return stream, [(event_id, data) for event_id, data in events if data]

    async def forget(self, session: str) -> None:
        """Drop the session's events."""
        with reachable("the event store"):
            await result(self.client.delete(self._key(session)))


def _field(fields: dict[Any, Any], name: bytes) -> bytes:
    """One field of a stream entry (absent: empty)."""
    value = fields.get(name)
    return b"" if value is None else bytes(value)
