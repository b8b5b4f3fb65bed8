"""A ``TaskStore`` in Redis: a task created on one worker is read, listed and awaited on any.

Keys (``prefix`` ``mcpgen``; a task's key carries its id as a hash tag): ``<prefix>:{<task>}:task``
a hash of the record (with the ``worker`` running it), expiring with the task's TTL;
``<prefix>:tasks:<owner>`` a sorted set of the requestor's task ids by creation number
(``tasks/list`` pages); ``<prefix>:running:<owner>`` the set of its running ones;
``<prefix>:tasks:seq`` the creation counter; ``<prefix>:{<task>}:input`` a list of the input
responses other workers took for the task (``tasks/update``), until its worker takes them.
``wait`` re-reads the hash until the task is terminal, every ``poll_every`` seconds at most
(the worker running the task may be another process).

A task runs on the worker that created it. That worker watches its running tasks (one read of
their statuses and delivered input every ``poll_every`` seconds, while any runs): one ended by
another worker (a ``tasks/cancel`` answered there) has its handler cancelled, and input another
worker accepted (``deliver``) is handed to the handler. A worker saves one task's changes one
after the other, so the last change it made is the one stored. A task whose worker's liveness
lease (``<prefix>:worker:<id>:lease``, kept by ``RedisBackend``) is gone is read as ``failed``
by any worker, and stored so: its handler cannot end it any more (the spec: ``failed``, the
request did not complete; ``tasks/result`` returns the JSON-RPC error).

Bounds, as the in-memory store's: at most ``max_running_per_owner`` running tasks per requestor
over every worker (-32603 beyond), at most ``max_tasks_per_owner`` kept (the oldest ended one
makes room; -32603 when all still run). A Redis that cannot be reached is
``BackendUnavailable`` (503), as for the other shared state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any, Final

from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError
from ..core.tasks import TERMINAL
from ..roles.taskstore import Delivered, TaskRecord, new_record
from .redis_client import RedisError, client_for, lease_key, reachable, result

logger = logging.getLogger(__name__)

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
CREATE: Final = """
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[1]) then
  return -1
end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[2]) then
  return -2
end
local seq = redis.call('INCR', KEYS[1])
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[3], seq, ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('HSET', KEYS[4], 'seq', seq, unpack(ARGV, 6))
if ARGV[5] ~= '' then
  redis.call('PEXPIREAT', KEYS[4], ARGV[5])
end
return seq
"""
"""Create a task in one step (keys: the creation counter, the requestor's running set and
kept index, the task's hash): -1 when the requestor's running tasks are at the bound, -2 when
its kept ones are; else count it running, index it, write it and return its number."""
FULL_RUNNING: Final = -1
FULL_KEPT: Final = -2
MAX_QUEUED_INPUT: Final = 64
"""Most ``tasks/update`` deliveries queued for one task between two reads of its worker (the
oldest are kept; a task's worker takes them every ``poll_every`` seconds)."""
POLL_S: Final = 0.05
"""Seconds between reads of a task awaited by ``wait`` (doubling up to ``poll_every``)."""
WHAT: Final = "the task store"
WORKER_GONE: Final = "The worker running the task stopped before it ended."
"""The ``statusMessage`` (and error message) of a task whose worker's lease lapsed."""


class RedisTaskStore:
    """Tasks shared by the workers of one Redis (same interface as ``InMemoryTaskStore``).

    ``worker``: the id whose liveness lease says whether the tasks created here still run
    (``RedisBackend`` gives its own); None: no lease, tasks are never taken for orphans.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "mcpgen",
        worker: str | None = None,
        default_ttl: int = DEFAULT_TTL_MS,
        max_ttl: int = MAX_TTL_MS,
        max_running_per_owner: int = 100,
        max_tasks_per_owner: int = 1000,
        poll_interval: int | None = 1000,
        page_size: int = 50,
        poll_every: float = 0.5,
        socket_timeout: float = 1.0,
    ) -> None:
        self.client = client_for(url, socket_timeout)
        self.prefix = prefix
        self.worker = worker
        self.default_ttl = default_ttl
        self.max_ttl = max_ttl
        self.max_running_per_owner = max_running_per_owner
        self.max_tasks_per_owner = max_tasks_per_owner
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.poll_every = poll_every
        self._watched: dict[str, tuple[TaskRecord, Callable[[], object], Delivered | None]] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._saving: dict[str, tuple[asyncio.Lock, int]] = {}
        """Per task: the lock its saves take in turn, and how many saves use it."""

    def _key(self, task_id: str) -> str:
        return f"{self.prefix}:{{{task_id}}}:task"

    def _input(self, task_id: str) -> str:
        return f"{self.prefix}:{{{task_id}}}:input"

    def _owned(self, owner: str) -> str:
        return f"{self.prefix}:tasks:{owner}"

    def _running(self, owner: str) -> str:
        return f"{self.prefix}:running:{owner}"

    def lease_key(self, worker: str) -> str:
        """The liveness lease of ``worker`` (as ``RedisBackend`` keeps it)."""
        return lease_key(self.prefix, worker)

    @property
    def watching(self) -> list[str]:
        """The ids of the tasks this worker runs and watches."""
        return list(self._watched)

    async def close(self) -> None:
        """Stop watching and disconnect."""
        self._watched.clear()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        await self.client.aclose()

    async def create(self, owner: str, method: str, ttl: int | None) -> TaskRecord:
        """Create a ``working`` task; the TTL is the one asked for, capped at ``max_ttl``;
        -32603 when the requestor has too many tasks running or kept.

        One script (one round trip) admits, counts, indexes and writes it; only a requestor
        at a bound costs more: its ended tasks are forgotten (running) or removed (kept, the
        oldest first) and the script runs again, once per bound."""
        record = new_record(owner, method, ttl, self, time.time(), 0)
        fields = _fields(record)
        del fields["seq"]
        if self.worker is not None:
            fields["worker"] = self.worker
        keys = (
            f"{self.prefix}:tasks:seq",
            self._running(owner),
            self._owned(owner),
            self._key(record.task_id),
        )
        index_ms = str((record.ttl or 0) + 60_000)
        expire = "" if record.ttl is None else str(int(record.created * 1000) + record.ttl)
        limits = (self.max_running_per_owner, self.max_tasks_per_owner, record.task_id)
        args = [*limits, index_ms, expire, *(part for pair in fields.items() for part in pair)]
        tried: set[int] = set()
        with reachable(WHAT):
            while True:
                seq = int(await result(self.client.eval(CREATE, len(keys), *keys, *args)))
                if seq > 0:
                    record.seq = seq
                    return record
                if seq in tried:
                    break
                tried.add(seq)
                if seq == FULL_RUNNING:
                    await self._prune(owner)
                else:
                    await self._make_room(owner)
        if seq == FULL_RUNNING:
            limit = self.max_running_per_owner
            raise MCPError(INTERNAL_ERROR, f"Too many tasks: {limit} of this requestor are running")
        limit = self.max_tasks_per_owner
        raise MCPError(INTERNAL_ERROR, f"Too many tasks: {limit} of this requestor are kept")

    async def _prune(self, owner: str) -> None:
        """Forget the running tasks of ``owner`` that ended, expired or lost their worker."""
        key = self._running(owner)
        ids = [bytes(member).decode() for member in await result(self.client.smembers(key))]
        gone = [
            task_id for task_id, ended in zip(ids, await self._ended(ids), strict=True) if ended
        ]
        if gone:
            await result(self.client.srem(key, *gone))

    async def _make_room(self, owner: str) -> None:
        """Keep at most ``max_tasks_per_owner`` tasks: the oldest ended or expired ones go."""
        owned = self._owned(owner)
        excess = int(await result(self.client.zcard(owned))) - self.max_tasks_per_owner + 1
        if excess <= 0:
            return
        oldest = await result(self.client.zrange(owned, 0, self.max_running_per_owner + excess))
        ids = [bytes(member).decode() for member in oldest]
        ended = await self._ended(ids)
        gone = [task_id for task_id, done in zip(ids, ended, strict=True) if done][:excess]
        if gone:
            pipe = self.client.pipeline(transaction=False)
            pipe.zrem(owned, *gone)
            pipe.delete(*(self._key(task_id) for task_id in gone))
            await pipe.execute()
        if len(gone) < excess:
            limit = self.max_tasks_per_owner
            raise MCPError(INTERNAL_ERROR, f"Too many tasks: {limit} of this requestor are kept")

    async def _ended(self, ids: list[str]) -> list[bool]:
        """For each task: whether it is gone, terminal, or running on a worker whose lease is
        gone (then stored ``failed``). Two pipelined reads, whatever the number of tasks."""
        if not ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for task_id in ids:
            pipe.hmget(self._key(task_id), "status", "worker")
        found: list[tuple[str | None, str | None]] = [
            (
                None if status is None else bytes(status).decode(),
                None if w is None else bytes(w).decode(),
            )
            for status, w in await pipe.execute()
        ]
        workers = sorted({w for status, w in found if w is not None and status not in TERMINAL})
        alive: dict[str, bool] = {}
        if workers:
            pipe = self.client.pipeline(transaction=False)
            for name in workers:
                pipe.exists(self.lease_key(name))
            alive = dict(zip(workers, map(bool, await pipe.execute()), strict=True))
        ended: list[bool] = []
        for task_id, (status, runs_on) in zip(ids, found, strict=True):
            if status is None or status in TERMINAL:
                ended.append(True)
            elif runs_on is not None and not alive.get(runs_on, True):
                await self._read(task_id)  # stores it failed
                ended.append(True)
            else:
                ended.append(False)
        return ended

    async def get(self, owner: str, task_id: str) -> TaskRecord | None:
        """The owner's task, if it is still kept."""
        with reachable(WHAT):
            record = await self._read(task_id)
        return record if record is not None and record.owner == owner else None

    async def _read(self, task_id: str) -> TaskRecord | None:
        """The stored task; one still running whose worker's lease is gone is ``failed`` now."""
        raw = await result(self.client.hgetall(self._key(task_id)))
        if not raw:
            return None
        record = _record(task_id, raw)
        worker = raw.get(b"worker")
        if record.terminal or worker is None:
            return record
        if await result(self.client.exists(self.lease_key(bytes(worker).decode()))):
            return record
        record.status = "failed"
        record.status_message = WORKER_GONE
        record.error = MCPError(INTERNAL_ERROR, WORKER_GONE)
        record.updated = max(time.time(), record.created)
        await self._save(record)
        return record

    async def save(self, record: TaskRecord) -> None:
        """Write a status change or an outcome; a terminal one also wakes local waiters.

        A task already terminal in Redis stays as it is (a status is final once terminal:
        another worker's ``tasks/cancel`` is not overwritten by the handler's outcome here),
        and ``record`` takes the stored outcome."""
        with reachable(WHAT):
            await self._save(record)

    async def _save(self, record: TaskRecord) -> None:
        """Write ``record`` after the saves of the same task begun before (each sends the
        record as it is when its turn comes, so none overwrites a later state)."""
        task_id = record.task_id
        lock, users = self._saving.get(task_id) or (asyncio.Lock(), 0)
        self._saving[task_id] = (lock, users + 1)
        try:
            async with lock:
                await self._save_now(record)
        finally:
            lock, users = self._saving[task_id]
            if users > 1:
                self._saving[task_id] = (lock, users - 1)
            else:
                del self._saving[task_id]

    async def _save_now(self, record: TaskRecord) -> None:
        expire = "" if record.ttl is None else str(int(record.created * 1000) + record.ttl)
        fields = [part for pair in _fields(record).items() for part in pair]
        key = self._key(record.task_id)
        if not await result(self.client.eval(SAVE_UNLESS_TERMINAL, 1, key, expire, *fields)):
            stored = await result(self.client.hgetall(key))
            if stored:
                _adopt(record, _record(record.task_id, stored))
        if record.terminal:
            await result(self.client.srem(self._running(record.owner), record.task_id))
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
        with reachable(WHAT):
            ids = await result(
                self.client.zrangebyscore(self._owned(owner), start, "+inf", 0, self.page_size + 1)
            )
            records = [await self._read(bytes(i).decode()) for i in ids[: self.page_size]]
            page = [r for r in records if r is not None and r.owner == owner]
            if len(ids) <= self.page_size:
                return page, None
            next_seq = await result(self.client.zscore(self._owned(owner), ids[self.page_size]))
        return page, f"t{int(next_seq)}"

    # -- the tasks this worker runs --------------------------------------------------------

    async def deliver(self, record: TaskRecord, responses: dict[str, Any]) -> None:
        """Queue input responses (checked by the caller) for the worker running the task; it
        takes them at its next read of its tasks (at most ``MAX_QUEUED_INPUT`` wait)."""
        key = self._input(record.task_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.rpush(key, json.dumps(responses))
        pipe.ltrim(key, 0, MAX_QUEUED_INPUT - 1)
        if record.ttl is not None:
            pipe.pexpireat(key, int(record.created * 1000) + record.ttl)
        with reachable(WHAT):
            await pipe.execute()

    def watch(
        self, record: TaskRecord, ended: Callable[[], object], delivered: Delivered | None = None
    ) -> Callable[[], None]:
        """Call ``ended`` once another worker ended the task while ``record`` is not terminal
        (``record`` takes the stored outcome first), and ``delivered`` with each input another
        worker queued for it (``deliver``); the returned function ends the watch."""
        entry = (record, ended, delivered)
        self._watched[record.task_id] = entry
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.get_running_loop().create_task(self._watch())

        def unwatch() -> None:
            if self._watched.get(record.task_id) is entry:
                del self._watched[record.task_id]

        return unwatch

    async def _watch(self) -> None:
        """Read the statuses of the watched tasks every ``poll_every`` seconds while any is
        watched; a Redis away is logged and read again at the next round."""
        while self._watched:
            await asyncio.sleep(self.poll_every)
            try:
                await self._check_watched()
            except (RedisError, OSError) as exc:
                logger.warning("cannot read the status of this worker's tasks: %s", exc)

    async def _check_watched(self) -> None:
        """One round: the tasks ended elsewhere take their stored outcome and are told; the
        input queued for the others is handed to their handlers."""
        ids = list(self._watched)
        if not ids:
            return
        pipe = self.client.pipeline(transaction=False)
        for task_id in ids:
            pipe.hget(self._key(task_id), "status")
            pipe.lpop(self._input(task_id), MAX_QUEUED_INPUT)
        replies = await pipe.execute()
        for task_id, status, queued in zip(ids, replies[::2], replies[1::2], strict=True):
            if status is None or bytes(status).decode() not in TERMINAL:
                await self._hand_input(task_id, queued or [])
                continue
            entry = self._watched.get(task_id)
            if entry is None:
                continue
            stored = await result(self.client.hgetall(self._key(task_id)))
            record, ended, _ = entry
            if self._watched.get(task_id) is not entry or record.terminal:
                continue  # ended here meanwhile: its own outcome was saved
            if stored:
                _adopt(record, _record(task_id, stored))
            record.done.set()
            del self._watched[task_id]
            ended()

    async def _hand_input(self, task_id: str, queued: list[Any]) -> None:
        """Hand each queued ``tasks/update`` to the task's handler, if it still runs here; one
        it refuses is logged (the worker that took it checked it against the same requests)."""
        for payload in queued:
            entry = self._watched.get(task_id)
            delivered = None if entry is None else entry[2]
            if delivered is None:
                return
            try:
                await delivered(json.loads(payload))
            except Exception as exc:
                logger.warning("input delivered to task %s was not taken: %r", task_id, exc)


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
        "input_requests": json.dumps(record.input_requests),
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
        input_requests=json.loads(fields.get("input_requests", "null")),
    )
    if record.status in TERMINAL:
        record.done.set()
    return record
