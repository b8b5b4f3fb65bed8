"""Running handlers as tasks, shared by both task designs (2025-11-25 and the 2026-07-28
``io.modelcontextprotocol/tasks`` extension).

``TaskWork`` owns what does not depend on the wire: the background handlers of one receiver,
each tied to its ``TaskRecord`` in a ``TaskStore``; the status moves (the spec's lifecycle,
``core/tasks.py``), each saved and then announced through a callback the era supplies; the
outcome of a handler (a result, a JSON-RPC error, a crash, a cancellation) recorded on its
task; and cancellation. The eras differ only in what they put on the wire around it
(``tasks.py``: ``tasks/result``, ``notifications/tasks/status``; ``stateless_tasks.py``:
``tasks/get`` with the outcome inlined, ``tasks/update``, ``notifications/tasks``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any, Final

from ..core.errors import INTERNAL_ERROR, MCPError, Unavailable
from ..core.lifecycle import as_json
from ..core.tasks import may_move
from .taskstore import Delivered, InMemoryTaskStore, SharedTaskStore, TaskRecord, TaskStore

logger = logging.getLogger(__name__)

SAVE_RETRY_S: Final = 0.5
"""Seconds before saving again a task's outcome the store could not take (a Redis away)."""
MAX_SAVE_RETRY_S: Final = 5.0
"""The bound on that wait as it doubles."""

Announce = Callable[[TaskRecord], Awaitable[None]]
"""Tells the requestor about a task's new state (a notification), after it is saved."""


class TaskWork:
    """The background handlers of one task receiver and the status moves of their tasks.

    ``error_result``: the status of a task whose handler returned a result with
    ``isError: true`` (2025-11-25: ``failed``; the 2026-07-28 extension: ``completed``).
    """

    def __init__(
        self, store: TaskStore, announce: Announce | None = None, *, error_result: str = "failed"
    ) -> None:
        self.store = store
        self.announce = announce
        self.error_result = error_result
        self.running: dict[str, tuple[TaskRecord, asyncio.Task[Any]]] = {}

    def clock(self) -> float:
        """The store's clock when it has one (the in-memory store's), else the time."""
        store = self.store
        return store.clock() if isinstance(store, InMemoryTaskStore) else time.time()

    def track(
        self, record: TaskRecord, runner: asyncio.Task[Any], delivered: Delivered | None = None
    ) -> None:
        """Remember the asyncio task running ``record``'s handler until it ends; with a store
        shared by several workers, cancel it when another worker ends the task (a
        ``tasks/cancel`` answered there), as a local ``cancel`` does, and hand ``delivered``
        the input other workers took for it (a ``tasks/update`` answered there)."""
        self.running[record.task_id] = (record, runner)
        store = self.store
        unwatch = (
            store.watch(record, runner.cancel, delivered)
            if isinstance(store, SharedTaskStore)
            else None
        )

        def ended(_: asyncio.Task[Any]) -> None:
            self.running.pop(record.task_id, None)
            if unwatch is not None:
                unwatch()

        runner.add_done_callback(ended)

    async def move(self, record: TaskRecord, status: str, message: str | None = None) -> None:
        """Move a task to ``status`` (as the spec's lifecycle allows), save it, announce it."""
        if not may_move(record.status, status):
            raise ValueError(f"a task may not move from {record.status!r} to {status!r}")
        record.status = status
        record.status_message = message
        record.updated = max(self.clock(), record.created)
        await self.save(record)

    async def finish(
        self,
        record: TaskRecord,
        status: str,
        *,
        result: dict[str, Any] | None = None,
        error: MCPError | None = None,
        message: str | None = None,
    ) -> None:
        """Record the outcome and move to a terminal ``status`` (a cancelled task stays so)."""
        if not may_move(record.status, status):
            return
        record.result, record.error = result, error
        await self.move(record, status, message)

    async def settle(self, record: TaskRecord, call: Awaitable[Any]) -> None:
        """Await the handler's ``call`` and record its outcome on the task. Nothing escapes
        (it runs in the background): a store away is tried again until the outcome is stored
        or the task expired (``store_outcome``); any other failure is logged."""
        try:
            await self._settle(record, call)
        except Unavailable as exc:
            await self.store_outcome(record, exc)
        except Exception:
            logger.exception("the outcome of task %s was not recorded", record.task_id)

    async def store_outcome(self, record: TaskRecord, failure: Unavailable) -> None:
        """Save the outcome ``record`` holds once the store is back (every ``SAVE_RETRY_S``
        seconds, doubling up to ``MAX_SAVE_RETRY_S``), logging why it waits; given up when
        the task expired. A terminal status stored meanwhile (a cancel) stays."""
        delay = SAVE_RETRY_S
        while not record.expired(self.clock()):
            logger.warning(
                "task %s: its status %s is not stored (%s): trying again in %.1f s",
                *(record.task_id, record.status, failure, delay),
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_SAVE_RETRY_S)
            try:
                await self.save(record)
                return
            except Unavailable as exc:
                failure = exc

    async def _settle(self, record: TaskRecord, call: Awaitable[Any]) -> None:
        try:
            result = await call
        except asyncio.CancelledError:
            return
        except MCPError as exc:
            await self.finish(record, "failed", error=exc, message=exc.message)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            error = MCPError(INTERNAL_ERROR, f"Internal error: {exc}")
            await self.finish(record, "failed", error=error, message=error.message)
        else:
            data = as_json(result)
            status = self.error_result if data.get("isError") is True else "completed"
            await self.finish(record, status, result=data)

    async def cancel(self, record: TaskRecord, message: str) -> None:
        """Stop the task's handler (if it runs) and move the task to ``cancelled``."""
        running = self.running.pop(record.task_id, None)
        if running is not None:
            running[1].cancel()
        if may_move(record.status, "cancelled"):
            await self.move(record, "cancelled", message)

    async def close(self, message: str) -> None:
        """Stop every handler still running; their tasks become ``cancelled`` (not announced:
        the requestor is gone), so that they no longer hold a place in the store."""
        running = list(self.running.values())
        self.running.clear()
        for record, runner in running:
            runner.cancel()
            if may_move(record.status, "cancelled"):
                record.status = "cancelled"
                record.status_message = message
                record.updated = max(self.clock(), record.created)
                await self.store.save(record)

    async def save(self, record: TaskRecord) -> None:
        """Save and announce a change that is not a status move (the input it waits for)."""
        await self.store.save(record)
        if self.announce is not None:
            try:
                await self.announce(record)
            except Exception:  # the peer went away: the task's state is kept all the same
                traceback.print_exc(file=sys.stderr)
