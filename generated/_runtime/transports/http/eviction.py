# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Which session a full HTTP app ends to make room for a new one (``HttpOptions.max_sessions``).

A session is *unproven* until its client makes a request after its ``initialize``: any POST,
GET or DELETE naming its ``Mcp-Session-Id`` (``notifications/initialized`` counts), so a flood
of bare ``initialize`` POSTs makes only unproven sessions. A session is *active* while one of
its streams is open (a POST awaiting its answers, the GET stream, the HTTP+SSE stream).

When the app is full, a new session takes the place of

1. the oldest unproven session, once ``evict_unproven_after`` seconds (5) have passed since
   its ``initialize`` and it is not active;
2. else the proven session idle longest, once it has made no request and had no open stream
   for ``evict_idle_after`` seconds (60);
3. else of none: the new session is refused with 503 and a ``Retry-After`` of the seconds until
   the first of them may make room (at least 1).

An active session is never ended to make room, nor a proven one used within
``evict_idle_after``: a flood of new sessions cannot push out clients at work.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

from .session import HttpSession

EVICT_UNPROVEN_S: Final = 5.0
"""Seconds after its ``initialize`` an unproven session may be ended to make room."""
EVICT_IDLE_S: Final = 60.0
"""Seconds a proven session must be idle before it may be ended to make room."""


def choose_eviction(
    sessions: Iterable[HttpSession], unproven_after: float, idle_after: float
) -> tuple[HttpSession | None, int]:
    """The session to end for a new one (and 0), or None and the ``Retry-After`` seconds."""
    victim: HttpSession | None = None
    rank: tuple[bool, float] = (True, math.inf)
    wait = idle_after
    for session in sessions:
        idle = session.idle_for()  # 0 while active; an unproven one's age once its POST ended
        limit = idle_after if session.proven else unproven_after
        if idle < limit:
            wait = min(wait, limit - idle)
        elif (session.proven, -idle) < rank:  # unproven first, then the longest idle
            victim, rank = session, (session.proven, -idle)
    return victim, 0 if victim is not None else max(1, math.ceil(wait))
