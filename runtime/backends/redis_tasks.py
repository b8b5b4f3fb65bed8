"""A ``TaskStore`` in Redis: a task created on one worker is read, listed and awaited on any.

Keys (``prefix`` ``mcpgen``; a task's key carries its id as a hash tag): ``<prefix>:{<task>}:task``
a hash of the record, expiring with the task's TTL; ``<prefix>:tasks:<owner>`` a sorted set of
the requestor's task ids by creation number (``tasks/list`` pages); ``<prefix>:tasks:seq`` the
creation counter. ``wait`` re-reads the hash until the task is terminal, every
``poll_every`` seconds at most (the worker running the task may be another process).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Final

from ..core.errors import INVALID_PARAMS, MCPError
from ..core.tasks import TERMINAL
from ..roles.taskstore import TaskRecord, new_record
from .redis_client import client_for, result

DEFAULT_TTL_MS: Final = 3_600_000
MAX_TTL_MS: Final = 86_400_000
SAVE_UNLESS_TERMINAL: Final = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if ARGV[1] ~= '' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return 1
"""
"""Write a task's hash unless the stored task is terminal already (one atomic step)."""
POLL_S: Final = 0.05
"""Seconds between reads of a task awaited by ``wait`` (doubling up to ``poll_every``)."""


class RedisTaskStore:
    """Tasks shared by the workers of one Redis (same interface as ``InMemoryTaskStore``)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "mcpgen",
        default_ttl: int = DEFAULT_TTL_MS,
        max_ttl: int = MAX_TTL_MS,
        poll_interval: int | None = 1000,
        page_size: int = 50,
        poll_every: float = 0.5,
        socket_timeout: float = 1.0,
    ) -> None:
        self.client = client_for(url, socket_timeout)
        self.prefix = prefix
        self.default_ttl = default_ttl
        self.max_ttl = max_ttl
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.poll_every = poll_every

    def _key(self, task_id: str) -> str:
        return f"{self.prefix}:{{{task_id}}}:task"

    def _owned(self, owner: str) -> str:
        return f"{self.prefix}:tasks:{owner}"

    async def create(self, owner: str, method: str, ttl: int | None) -> TaskRecord:
        """Create a ``working`` task; the TTL is the one asked for, capped at ``max_ttl``."""
        seq = int(await result(self.client.incr(f"{self.prefix}:tasks:seq")))
        record = new_record(owner, method, ttl, self, time.time(), seq)
        pipe = self.client.pipeline(transaction=True)
        pipe.zadd(self._owned(owner), {record.task_id: seq})
        pipe.pexpire(self._owned(owner), (record.ttl or 0) + 60_000)
        await self._write(pipe, record)
        return record

    async def _write(self, pipe: Any, record: TaskRecord) -> None:
        """Put the record's hash (with its TTL) in ``pipe`` and run it."""
        key = self._key(record.task_id)
        pipe.hset(key, mapping=_fields(record))
        if record.ttl is not None:
            pipe.pexpireat(key, int(record.created * 1000) + record.ttl)
        await pipe.execute()

    async def get(self, owner: str, task_id: str) -> TaskRecord | None:
        """The owner's task, if it is still kept."""
        raw = await result(self.client.hgetall(self._key(task_id)))
        record = _record(task_id, raw) if raw else None
        return record if record is not None and record.owner == owner else None

    async def save(self, record: TaskRecord) -> None:
        """Write a status change or an outcome; a terminal one also wakes local waiters.

        A task already terminal in Redis stays as it is (a status is final once terminal:
        another worker's ``tasks/cancel`` is not overwritten by the handler's outcome here),
        and ``record`` takes the stored outcome."""
        expire = "" if record.ttl is None else str(int(record.created * 1000) + record.ttl)
        fields = [part for pair in _fields(record).items() for part in pair]
        key = self._key(record.task_id)
        if not await result(self.client.eval(SAVE_UNLESS_TERMINAL, 1, key, expire, *fields)):
            stored = await result(self.client.hgetall(key))
            if stored:
                _adopt(record, _record(record.task_id, stored))
        if record.terminal:
            record.done.set()

    async def wait(self, record: TaskRecord) -> TaskRecord:
        """Return the task once it is terminal (re-read from Redis; bounded polling)."""
        delay = POLL_S
        while not record.done.is_set():
            fresh = await self.get(record.owner, record.task_id)
            if fresh is None:
                raise MCPError(INVALID_PARAMS, f"Task {record.task_id} expired")
            if fresh.terminal:
                return fresh
            try:
                await asyncio.wait_for(record.done.wait(), delay)
            except TimeoutError:
                delay = min(delay * 2, self.poll_every)
        return record

    async def page(self, owner: str, cursor: str | None) -> tuple[list[TaskRecord], str | None]:
        """The owner's live tasks in creation order, ``page_size`` at a time."""
        start = 0 if cursor is None else _cursor_seq(cursor)
        ids = await result(
            self.client.zrangebyscore(self._owned(owner), start, "+inf", 0, self.page_size + 1)
        )
        records = [await self.get(owner, bytes(i).decode()) for i in ids[: self.page_size]]
        page = [r for r in records if r is not None]
        if len(ids) <= self.page_size:
            return page, None
        next_seq = await result(self.client.zscore(self._owned(owner), ids[self.page_size]))
        return page, f"t{int(next_seq)}"


def _adopt(record: TaskRecord, stored: TaskRecord) -> None:
    """Give ``record`` the stored task's status and outcome."""
    record.status, record.status_message = stored.status, stored.status_message
    record.updated, record.result, record.error = stored.updated, stored.result, stored.error


def _cursor_seq(cursor: str) -> int:
    if cursor.startswith("t") and cursor[1:].isdigit():
        return int(cursor[1:])
    raise MCPError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}")


def _fields(record: TaskRecord) -> dict[str, str]:
    """The record as hash fields (JSON where a value is not a string)."""
    error = record.error
    return {
        "owner": record.owner,
        "method": record.method,
        "created": repr(record.created),
        "updated": repr(record.updated),
        "ttl": json.dumps(record.ttl),
        "poll_interval": json.dumps(record.poll_interval),
        "status": record.status,
        "status_message": json.dumps(record.status_message),
        "result": json.dumps(record.result),
        "error": json.dumps(None if error is None else [error.code, error.message, error.data]),
        "seq": str(record.seq),
    }


def _record(task_id: str, raw: dict[Any, Any]) -> TaskRecord:
    """A record read back from its hash."""
    fields = {bytes(k).decode(): bytes(v).decode() for k, v in raw.items()}
    error = json.loads(fields["error"])
    record = TaskRecord(
        task_id=task_id,
        owner=fields["owner"],
        method=fields["method"],
        created=float(fields["created"]),
        ttl=json.loads(fields["ttl"]),
        poll_interval=json.loads(fields["poll_interval"]),
        status=fields["status"],
        status_message=json.loads(fields["status_message"]),
        updated=float(fields["updated"]),
        result=json.loads(fields["result"]),
        error=None if error is None else MCPError(error[0], error[1], error[2]),
        seq=int(fields["seq"]),
    )
    if record.status in TERMINAL:
        record.done.set()
    return record
