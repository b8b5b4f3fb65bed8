"""One frame answered on its own connection: what a transport that carries one request per
exchange (an HTTP POST without a session) gets back from ``StatelessServer.answer``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from ..core.errors import INVALID_PARAMS
from ..core.events import Event, ProtocolViolation, Request
from ..core.lifecycle import MetaRefused
from ..core.transport import ConnectionClosed, RelatedId
from ..core.wire import Inbound, Outbound

RequestCheck = Callable[[Request], Awaitable[None] | None]
"""A transport's check of one admitted request before its handler (raises ``MCPError``):
None when done at once, else what to await (most checks need no coroutine)."""
Emit = Callable[[Outbound], Coroutine[Any, Any, None]]
"""Writes one message that belongs to the request being answered, before its response (an
``async def``)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one frame: the response (None: none is due), and how it was reached."""

    response: Outbound | None
    request: bool
    """Whether the frame was a request admitted to its handler (False: refused before one,
    a notification, or a response)."""
    refused: bool
    """Whether the session refused the frame (framing, method table, ``_meta`` rows)."""


def refused(events: list[Event]) -> bool:
    """Whether the session refused the frame as such (not merely its params' types)."""
    return ProtocolViolation in map(type, events) and any(
        type(event) is ProtocolViolation
        and (event.error.code != INVALID_PARAMS or isinstance(event.error, MetaRefused))
        for event in events
    )


class OneFrame:
    """The transport of one frame: writes before the response go to ``emit``.

    It writes at once (``write_now``): keeping the response is a plain call, so the peer
    writes it without a lock or a coroutine; what goes to ``emit`` is returned to be awaited.
    """

    def __init__(self, emit: Emit | None) -> None:
        self._emit = emit
        self.response: Outbound | None = None
        self.done = False
        """Whether the response is written."""
        self._waiter: asyncio.Future[None] | None = None
        """Made only when someone waits for an answer not yet written (most come at once)."""

    async def answered(self) -> None:
        """Wait until the response is written (at once if it is)."""
        if self.done:
            return
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
        await self._waiter

    async def read(self) -> bytes | Inbound | None:
        """Nothing more is read: the one frame is fed."""
        return None

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Keep the response; hand anything else to ``emit``."""
        emitting = self.write_now(message)
        if emitting is not None:
            await emitting

    def write_now(self, message: Outbound | bytes) -> Coroutine[Any, Any, None] | None:
        """Keep the response at once (None); anything else goes to ``emit``: returned, to be
        awaited before the next write."""
        if isinstance(message, bytes):
            message = Outbound.of(message)
        if message.kind == "response":
            if self.response is None:
                self.response = message
            self.done = True
            if self._waiter is not None and not self._waiter.done():
                self._waiter.set_result(None)
            return None
        if self.done:
            raise ConnectionClosed("the request is answered")
        return None if self._emit is None else self._emit(message)

    def negotiated(self, version: str) -> None:
        """No version is negotiated without a handshake."""

    async def close(self) -> None:
        """Nothing to close."""
