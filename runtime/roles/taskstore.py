"""Where a task receiver keeps its tasks: the ``TaskStore`` interface and a bounded in-memory one.

A store keeps ``TaskRecord``s (status, timestamps, TTL, and the outcome once terminal) per
requestor (``owner``: the connection, or an authorization context), pages them for
``tasks/list`` with opaque cursors, and lets ``tasks/result`` wait for a terminal status.
What a status may move to is the runner's business (``runtime/roles/tasks.py``), not the
store's. Another store (a database, a job queue) implements the same five methods.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError
from ..core.tasks import TERMINAL


def iso(when: float) -> str:
    """An epoch time as the ISO 8601 UTC timestamp tasks carry (``2025-11-25T10:30:00.000Z``)."""
    stamp = datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


@dataclass(slots=True)
class TaskRecord:
    """One task: what ``tasks/get`` shows, and the outcome ``tasks/result`` returns."""

    task_id: str
    owner: str
    method: str
    created: float
    ttl: int | None
    """Milliseconds from creation before the task may be deleted (None: unlimited)."""
    poll_interval: int | None
    status: str = "working"
    status_message: str | None = None
    updated: float = 0.0
    result: dict[str, Any] | None = None
    """The underlying request's result (JSON object), once completed or failed with one."""
    error: MCPError | None = None
    """The underlying request's JSON-RPC error, if it ended with one."""
    seq: int = 0
    input_requests: dict[str, Any] | None = None
    """The requests the task waits to have answered, by key (the tasks extension's
    ``inputRequests``), kept with the task so that any worker shows and checks them."""
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def terminal(self) -> bool:
        """Whether the task reached ``completed``, ``failed`` or ``cancelled``."""
        return self.status in TERMINAL

    def expired(self, now: float) -> bool:
        """Whether the task outlived its TTL."""
        return self.ttl is not None and now >= self.created + self.ttl / 1000

    def wire(self, ttl: str = "ttl", poll_interval: str = "pollInterval") -> dict[str, Any]:
        """The task as the spec's ``Task`` object (2025-11-25 names the TTL and poll interval
        ``ttl``/``pollInterval``, the 2026-07-28 extension ``ttlMs``/``pollIntervalMs``)."""
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        out["createdAt"] = iso(self.created)
        out["lastUpdatedAt"] = iso(self.updated or self.created)
        out[ttl] = self.ttl
        if self.poll_interval is not None:
            out[poll_interval] = self.poll_interval
        return out


class TaskStore(Protocol):
    """What a task receiver needs of a store; ``InMemoryTaskStore`` is the default."""

    async def create(self, owner: str, method: str, ttl: int | None) -> TaskRecord:
        """Create a ``working`` task (TTL as requested, or the store's own); raise when full."""
        ...

    async def get(self, owner: str, task_id: str) -> TaskRecord | None:
        """The owner's task, or None if unknown, expired or another requestor's."""
        ...

    async def save(self, record: TaskRecord) -> None:
        """Persist a status change or an outcome (and wake ``wait`` on a terminal status)."""
        ...

    async def wait(self, record: TaskRecord) -> TaskRecord:
        """Return the task once it is terminal."""
        ...

    async def page(self, owner: str, cursor: str | None) -> tuple[list[TaskRecord], str | None]:
        """One page of the owner's tasks and the next cursor; -32602 for a bad cursor."""
        ...


Delivered = Callable[[dict[str, Any]], Awaitable[None]]
"""Takes input responses another worker accepted for a task this worker runs."""


@runtime_checkable
class SharedTaskStore(Protocol):
    """A store several workers share (``RedisTaskStore``): the worker running a task's handler
    learns from it when another worker ended the task (``tasks/cancel`` answered there, or the
    task failed because this worker's lease lapsed), to stop the handler, and takes the input
    other workers were given for it (``tasks/update`` answered there)."""

    def watch(
        self,
        record: TaskRecord,
        ended: Callable[[], object],
        delivered: Delivered | None = None,
    ) -> Callable[[], None]:
        """Call ``ended`` once the stored task is terminal while ``record`` is not (``record``
        then takes the stored outcome), and ``delivered`` with each input ``deliver`` stored
        for it; the returned function ends the watch."""
        ...

    async def deliver(self, record: TaskRecord, responses: dict[str, Any]) -> None:
        """Hand input responses (already checked) to the worker running the task."""
        ...


class TaskLimits(Protocol):
    """A store's TTL rules and poll interval (what ``new_record`` grants)."""

    default_ttl: int
    max_ttl: int
    poll_interval: int | None


def new_record(
    owner: str, method: str, ttl: int | None, limits: TaskLimits, now: float, seq: int
) -> TaskRecord:
    """A new ``working`` task: the TTL asked for (else the default), capped at the maximum."""
    asked = ttl if ttl is not None and ttl >= 0 else limits.default_ttl
    return TaskRecord(
        task_id=str(uuid.uuid4()),
        owner=owner,
        method=method,
        created=now,
        updated=now,
        ttl=min(asked, limits.max_ttl),
        poll_interval=limits.poll_interval,
        seq=seq,
    )


class InMemoryTaskStore:
    """Tasks in a dict, bounded: at most ``max_tasks`` (``max_running_per_owner`` running per
    requestor), TTLs capped at ``max_ttl`` ms.

    Expired tasks are purged whenever the store is used; when it is full, the oldest
    terminal task makes room, and a new task is refused (-32603) if every task is running.
    """

    def __init__(
        self,
        *,
        max_tasks: int = 1000,
        max_running_per_owner: int = 100,
        default_ttl: int = 3_600_000,
        max_ttl: int = 86_400_000,
        poll_interval: int | None = 1000,
        page_size: int = 50,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_tasks = max_tasks
        self.max_running_per_owner = max_running_per_owner
        self.default_ttl = default_ttl
        self.max_ttl = max_ttl
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.clock = clock
        self._tasks: dict[str, TaskRecord] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._tasks)

    def _purge(self) -> None:
        now = self.clock()
        for task_id in [k for k, r in self._tasks.items() if r.expired(now)]:
            del self._tasks[task_id]

    def _make_room(self) -> None:
        self._purge()
        if len(self._tasks) < self.max_tasks:
            return
        oldest = next((k for k, r in self._tasks.items() if r.terminal), None)
        if oldest is None:
            raise MCPError(INTERNAL_ERROR, f"Too many tasks: {self.max_tasks} are still running")
        del self._tasks[oldest]

    async def create(self, owner: str, method: str, ttl: int | None) -> TaskRecord:
        """Create a ``working`` task; the TTL is the one asked for, capped at ``max_ttl``."""
        self._make_room()
        running = sum(1 for r in self._tasks.values() if r.owner == owner and not r.terminal)
        if running >= self.max_running_per_owner:
            limit = self.max_running_per_owner
            raise MCPError(INTERNAL_ERROR, f"Too many tasks: {limit} of this requestor are running")
        self._seq += 1
        record = new_record(owner, method, ttl, self, self.clock(), self._seq)
        self._tasks[record.task_id] = record
        return record

    async def get(self, owner: str, task_id: str) -> TaskRecord | None:
        """The owner's task, if it is still kept."""
        self._purge()
        record = self._tasks.get(task_id)
        return record if record is not None and record.owner == owner else None

    async def save(self, record: TaskRecord) -> None:
        """Records live in the dict already: only wake the waiters of a terminal task."""
        if record.terminal:
            record.done.set()

    async def wait(self, record: TaskRecord) -> TaskRecord:
        """Return the task once it is terminal."""
        await record.done.wait()
        return record

    async def page(self, owner: str, cursor: str | None) -> tuple[list[TaskRecord], str | None]:
        """The owner's tasks in creation order, ``page_size`` at a time."""
        self._purge()
        start = 0 if cursor is None else _decode_cursor(cursor)
        mine = [r for r in self._tasks.values() if r.owner == owner and r.seq >= start]
        page = mine[: self.page_size]
        more = len(mine) > self.page_size
        return page, _encode_cursor(mine[self.page_size].seq) if more else None


def _encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(f"t{seq}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if text.startswith("t") and text[1:].isdigit():
            return int(text[1:])
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise MCPError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
