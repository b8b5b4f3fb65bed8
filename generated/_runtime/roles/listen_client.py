# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""A running ``subscriptions/listen`` of a client without handshake, as an async iterator.

``open_listen`` starts the listen request over the client's ``StatelessRequests`` and yields a
``Subscription`` once the server acknowledged it: ``honored`` is the filter the server honours,
and iterating gives (method, params) of each change notification until the server ends the
subscription; leaving the block cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ..core.errors import METHOD_NOT_FOUND, MCPError
from .stateless_client import StatelessRequests
from .subscriptions import ACKNOWLEDGED

__all__ = ["Subscription", "open_listen"]


class Subscription:
    """A running ``subscriptions/listen``: ``honored`` filter, then change notifications."""

    def __init__(self, requests: StatelessRequests, notifications: Mapping[str, Any]) -> None:
        self._queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue(maxsize=1024)
        self._acked = asyncio.Event()
        self.honored: dict[str, Any] = {}
        """The filter the server honours (from its acknowledgement)."""
        self.result: Any = None
        """The listen result, once the server ended the subscription."""
        self._task = asyncio.ensure_future(self._run(requests, notifications))

    async def _run(self, requests: StatelessRequests, notifications: Mapping[str, Any]) -> None:
        async def deliver(method: str, params: Any) -> None:
            if method == ACKNOWLEDGED:
                self.honored = dict(params.get("notifications") or {})
                self._acked.set()
                return
            if self._queue.full():  # a slow reader: drop the oldest change, keep the newest
                self._queue.get_nowait()
            self._queue.put_nowait((method, params))

        try:
            self.result = await requests.listen(notifications, deliver)
        finally:
            self._acked.set()
            if self._queue.full():
                self._queue.get_nowait()
            self._queue.put_nowait(None)

    async def started(self, timeout: float | None) -> Subscription:
        """Wait for the acknowledgement (or for the request to fail)."""
        async with asyncio.timeout(timeout):
            await self._acked.wait()
        if self._task.done() and (failure := self._task.exception()) is not None:
            raise failure
        return self

    def __aiter__(self) -> Subscription:
        """Iterate over (method, params) of each change notification."""
        return self

    async def __anext__(self) -> tuple[str, Any]:
        """The next change; the iteration ends when the server ends the subscription."""
        item = await self._queue.get()
        if item is None:
            raise StopAsyncIteration
        return item

    async def close(self) -> None:
        """Cancel the subscription (``notifications/cancelled``; over HTTP its stream closes)."""
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


@contextlib.asynccontextmanager  # pyright: ignore[reportDeprecated]
async def open_listen(
    requests: StatelessRequests | None, timeout: float | None, notifications: Mapping[str, Any]
) -> AsyncIterator[Subscription]:
    """A listen stream over ``requests`` (None: the client is not connected without handshake)."""
    if requests is None:
        raise MCPError(
            METHOD_NOT_FOUND, "subscriptions/listen needs a connection without handshake"
        )
    subscription = Subscription(requests, notifications)
    try:
        yield await subscription.started(timeout)
    finally:
        await subscription.close()
