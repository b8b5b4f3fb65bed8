"""Ending sessions while the shared backend may be away.

Ending a session (its lease lapsed, it idled out, it was evicted or deleted, the app stops)
first ends it here, then forgets what it left in the shared state: its events and its entry
in the session directory. With Redis away that second step fails; it must not stop the
ending of the other sessions (the lease recovery ends every session of the worker, one after
the other), so the session is ended all the same and its shared state is forgotten later:
retried in the background, after ``FORGET_RETRY_S`` doubling up to ``MAX_FORGET_RETRY_S``
while Redis stays away. What is still unforgotten when the app stops is left to expire
(events and directory entries carry a TTL).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from ...backends.base import BackendUnavailable
from .session import HttpSession

logger = logging.getLogger(__name__)

FORGET_RETRY_S: Final = 0.5
"""Seconds before forgetting again what an ended session left in an unreachable backend."""
MAX_FORGET_RETRY_S: Final = 30.0
"""The bound on that wait (it doubles while the backend stays away)."""


class SessionEnder:
    """Ends sessions; forgets their shared state now, or later when the backend is away."""

    def __init__(self) -> None:
        self.unforgotten: dict[str, HttpSession] = {}
        """Ended sessions whose shared state is still to be forgotten, by id."""
        self._retry: asyncio.Task[None] | None = None

    async def end(self, session: HttpSession) -> None:
        """End ``session``; never raises: a backend away has its shared state forgotten later,
        any other failure is logged with its cause.

        While the backend is known to be away (sessions wait to be forgotten), a session is not
        even tried now: ending every session of a worker costs one timeout, not one each."""
        if session.ended:
            return
        away = bool(self.unforgotten)
        try:
            await session.end(forget=not away)
        except BackendUnavailable as exc:
            logger.warning(
                "session %s ended; forgetting its shared state later: %s", session.id, exc
            )
            self._later(session)
        except Exception:
            logger.exception("ending session %s failed", session.id)
        else:
            if away:
                self._later(session)

    def _later(self, session: HttpSession) -> None:
        """Forget ``session``'s shared state in the background."""
        self.unforgotten[session.id] = session
        if self._retry is None or self._retry.done():
            self._retry = asyncio.create_task(self._forget_later())

    async def close(self) -> None:
        """Stop retrying; what is still unforgotten is left to expire in the backend."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
        if self.unforgotten:
            left = len(self.unforgotten)
            logger.warning("%d ended sessions left in the backend until they expire", left)
            self.unforgotten.clear()

    async def _forget_later(self) -> None:
        """Forget what the ended sessions left, until none is left; wait longer while the
        backend stays away."""
        delay = FORGET_RETRY_S
        while self.unforgotten:
            await asyncio.sleep(delay)
            for session_id, session in list(self.unforgotten.items()):
                try:
                    await session.forget()
                except BackendUnavailable as exc:
                    logger.warning("forgetting ended sessions failed again: %s", exc)
                    delay = min(delay * 2, MAX_FORGET_RETRY_S)
                    break
                except Exception:
                    logger.exception("forgetting ended session %s failed", session_id)
                self.unforgotten.pop(session_id, None)
            else:
                delay = FORGET_RETRY_S
