"""The task store in Redis: a task created by one worker's store is read, awaited and listed
through another's (separate connections, as two worker processes have)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from redis.asyncio.connection import Connection

from generated._runtime.backends.redis_tasks import RedisTaskStore
from generated._runtime.roles.taskstore import TaskRecord
from tests.support.topology_support import redis_server, start_redis, tools

STEP_S = 10.0


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of this module's own."""
    with redis_server() as url:
        yield url


@pytest.fixture
async def stores(redis_url: str) -> AsyncIterator[tuple[RedisTaskStore, RedisTaskStore]]:
    """Two workers' stores on the same Redis."""
    first, second = RedisTaskStore(redis_url), RedisTaskStore(redis_url, page_size=2)
    yield first, second
    await first.client.aclose()
    await second.client.aclose()


async def test_a_task_made_on_one_worker_is_read_and_awaited_on_the_other(
    stores: tuple[RedisTaskStore, RedisTaskStore],
) -> None:
    """Created by one store, read by the other (its requestor only); the other's ``wait``
    returns the outcome the first saved."""
    here, there = stores
    record = await here.create("alice", "tools/call", 60_000)
    seen = await there.get("alice", record.task_id)
    assert seen is not None and seen.status == "working" and seen.ttl == 60_000
    assert await there.get("mallory", record.task_id) is None
    waiter = asyncio.create_task(there.wait(seen))
    await asyncio.sleep(0.1)
    assert not waiter.done()
    record.status, record.result = "completed", {"content": [], "isError": False}
    await here.save(record)
    done = await asyncio.wait_for(waiter, STEP_S)
    assert done.status == "completed" and done.result == {"content": [], "isError": False}


async def test_a_task_cancelled_on_one_worker_stays_cancelled_when_its_handler_ends_on_another(
    stores: tuple[RedisTaskStore, RedisTaskStore],
) -> None:
    """A terminal status is final (2025-11-25 tasks: no transition out of one): the running
    worker's later ``completed`` does not overwrite the other worker's ``cancelled``, and the
    running worker's own record and waiters see the stored outcome."""
    here, there = stores
    running = await here.create("dave", "tools/call", 60_000)
    cancelling = await there.get("dave", running.task_id)
    assert cancelling is not None
    cancelling.status = "cancelled"
    await there.save(cancelling)
    running.status, running.result = "completed", {"content": [], "isError": False}
    await here.save(running)
    for store in (here, there):
        stored = await store.get("dave", running.task_id)
        assert stored is not None and stored.status == "cancelled" and stored.result is None
    assert running.status == "cancelled" and running.result is None and running.terminal
    assert (await asyncio.wait_for(here.wait(running), STEP_S)).status == "cancelled"


async def test_two_saves_of_one_task_in_flight_store_the_later_state(
    stores: tuple[RedisTaskStore, RedisTaskStore],
) -> None:
    """A status move saved while the previous save of the same task is still on its way
    (the handler asks for input right after its last answer moved it back to ``working``):
    the later state is the one stored, even when Redis gets the earlier write last."""
    here, _ = stores
    record = await here.create("erin", "tools/call", 60_000)
    original = here.client.eval
    calls = [0]

    async def first_one_late(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            await asyncio.sleep(0.1)  # this write reaches Redis after the next one
        return await original(*args)

    here.client.eval = first_one_late
    record.status = "input_required"
    earlier = asyncio.create_task(here.save(record))
    await asyncio.sleep(0)  # the earlier save has begun
    record.status = "working"
    await asyncio.gather(earlier, here.save(record))
    stored = await there_get(here, "erin", record.task_id)
    assert stored.status == "working"


async def there_get(store: RedisTaskStore, owner: str, task_id: str) -> TaskRecord:
    """The stored task, which must exist."""
    found = await store.get(owner, task_id)
    assert found is not None
    return found


async def test_creating_a_task_is_one_round_trip(
    stores: tuple[RedisTaskStore, RedisTaskStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting, admitting under the bounds, indexing and writing a new task are one script:
    one request to Redis (a pipeline or a command is one send), and the task is there."""
    here, there = stores
    await here.client.ping()  # connected before counting
    sends = [0]
    original = Connection.send_packed_command

    async def counted(self: Connection, *args: Any, **kwargs: Any) -> None:
        sends[0] += 1
        await original(self, *args, **kwargs)

    monkeypatch.setattr(Connection, "send_packed_command", counted)
    record = await here.create("fay", "tools/call", 60_000)
    assert sends[0] == 1
    monkeypatch.undo()
    seen = await there.get("fay", record.task_id)
    assert seen is not None and seen.status == "working" and seen.seq == record.seq > 0
    listed = [r.task_id for r in (await there.page("fay", None))[0]]
    assert listed == [record.task_id]


async def test_tasks_are_listed_in_creation_order_across_workers(
    stores: tuple[RedisTaskStore, RedisTaskStore],
) -> None:
    """``tasks/list`` on the other worker pages through every task of the requestor, in order."""
    here, there = stores
    made = [(await here.create("bob", "tools/call", None)).task_id for _ in range(5)]
    listed: list[str] = []
    cursor: str | None = None
    for _ in range(5):
        page, cursor = await there.page("bob", cursor)
        listed += [r.task_id for r in page]
        if cursor is None:
            break
    assert listed == made


async def test_a_restarted_redis_is_reached_again_on_the_first_call() -> None:
    """Redis restarted while a worker's pooled connection was idle: the worker's next call
    reconnects and succeeds (the dead pooled connection is not answered as unavailable)."""
    binary = tools()[0]
    server = start_redis(binary)
    store = RedisTaskStore(f"redis://127.0.0.1:{server.port}/0")
    try:
        made = await store.create("carol", "tools/call", None)
        assert (await store.get("carol", made.task_id)) is not None
        server.stop()
        server = start_redis(binary, server.port)  # empty again, same port
        assert await store.get("carol", made.task_id) is None
        again = await store.create("carol", "tools/call", None)
        assert (await store.get("carol", again.task_id)) is not None
    finally:
        await store.client.aclose()
        server.stop()
