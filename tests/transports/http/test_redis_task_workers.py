"""Tasks of several workers on one Redis, through the 2026-07-28 tasks extension's messages:
a ``tasks/cancel`` answered by one worker stops the handler running on another, and a
``tasks/update`` answered there reaches it (its ``inputRequests`` shown by every worker); a
task whose worker is gone (its lease lapsed) becomes ``failed`` for every other worker; the
store bounds the tasks of a requestor; a Redis away is ``BackendUnavailable`` (503), not a crash."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from generated._runtime.backends.base import BackendUnavailable
from generated._runtime.backends.redis import RedisBackend
from generated._runtime.backends.redis_tasks import RedisTaskStore
from generated._runtime.core.errors import INTERNAL_ERROR, MCPError
from generated._runtime.roles.mrtr import ask
from generated._runtime.roles.stateless import StatelessServer
from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.roles.taskstore import TaskRecord
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.roles.test_stateless_tasks import form, frame, post_http, send
from tests.support.http_support import bounded
from tests.support.topology_support import free_port, redis_server

STEP_S = 10.0
"""The bound on what one step may take (a watcher polls every ``poll_every``, 0.1 s here)."""


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of this module's own."""
    with redis_server() as url:
        yield url


class HeldServer(Server):
    """One worker's server: ``hold`` runs until released or cancelled."""

    name = "held"

    def __init__(self, store: RedisTaskStore) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.task_support = TaskSupport(store=store, tools={"hold": "required", "ask": "required"})

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        if params.name == "ask":  # asks the client for a name, twice, through its task
            first = await ask(ctx, "elicitation/create", form("first?"), key="first")
            second = await ask(ctx, "elicitation/create", form("second?"), key="second")
            names = [(answer.content or {}).get("name") for answer in (first, second)]
            return t.CallToolResult(content=[t.TextContent(text=f"{names[0]}+{names[1]}")])
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return t.CallToolResult(content=[t.TextContent(text="done")])


class Worker:
    """A worker: its own Redis connections, its liveness lease, its stateless engine."""

    def __init__(self, url: str, name: str, **limits: Any) -> None:
        self.store = RedisTaskStore(url, worker=name, poll_every=0.1, **limits)
        self.lease = self.store.lease_key(name)
        self.server = HeldServer(self.store)
        self.engine = StatelessServer(self.server)

    async def renew(self) -> None:
        """Take the lease (as ``RedisBackend`` does for a live worker)."""
        await self.store.client.set(self.lease, b"1", px=60_000)

    async def stop_lease(self) -> None:
        """The lease lapses: the worker was killed or stopped."""
        await self.store.client.delete(self.lease)

    async def close(self) -> None:
        """Stop the store's watcher and disconnect."""
        await self.store.close()


@pytest.fixture
async def workers(redis_url: str) -> AsyncIterator[tuple[Worker, Worker]]:
    """Two live workers on the same Redis."""
    pair = Worker(redis_url, "worker-a"), Worker(redis_url, "worker-b")
    for worker in pair:
        await worker.renew()
    yield pair
    for worker in pair:
        worker.server.release.set()
        await worker.close()


async def start_held(worker: Worker) -> str:
    """Call ``hold`` on ``worker`` as a task; its id once the handler runs."""
    created = await send(worker.engine, "tools/call", {"name": "hold", "arguments": {}})
    assert created["resultType"] == "task" and created["status"] == "working", created
    await asyncio.wait_for(worker.server.started.wait(), STEP_S)
    return str(created["taskId"])


@bounded
async def test_a_cancel_answered_by_another_worker_stops_the_running_handler(
    workers: tuple[Worker, Worker],
) -> None:
    """Worker B answers ``tasks/cancel`` of a task running on worker A: A's handler is
    cancelled (as a local cancel does) and the task stays ``cancelled`` on both workers."""
    a, b = workers
    task_id = await start_held(a)
    assert (await send(b.engine, "tasks/cancel", {"taskId": task_id}))["resultType"] == "complete"
    await asyncio.wait_for(a.server.cancelled.wait(), STEP_S)
    for worker in (a, b):
        state = await send(worker.engine, "tasks/get", {"taskId": task_id})
        assert state["status"] == "cancelled", state


@bounded
async def test_a_task_ended_by_its_own_worker_is_not_cancelled_by_the_watch(
    workers: tuple[Worker, Worker],
) -> None:
    """The handler's own outcome ends the watch: the task is ``completed`` with its result."""
    a, b = workers
    task_id = await start_held(a)
    a.server.release.set()
    for _ in range(200):
        state = await send(b.engine, "tasks/get", {"taskId": task_id})
        if state["status"] != "working":
            break
        await asyncio.sleep(0.02)
    assert state["status"] == "completed" and state["result"]["content"][0]["text"] == "done"
    assert not a.server.cancelled.is_set() and not a.store.watching


@bounded
async def test_a_dead_workers_task_becomes_failed_on_the_other_worker(
    workers: tuple[Worker, Worker],
) -> None:
    """While worker A's lease lives its task is ``working`` everywhere; once the lease lapsed
    (A killed or stopped), worker B reads it ``failed`` with a statusMessage naming why and the
    JSON-RPC error ``tasks/result`` returns (a waiter on B is answered too)."""
    a, b = workers
    task_id = await start_held(a)
    state = await send(b.engine, "tasks/get", {"taskId": task_id})
    assert state["status"] == "working", state
    seen = await b.store.get("", task_id)
    assert seen is not None
    waiter = asyncio.create_task(b.store.wait(seen))
    await asyncio.sleep(0.2)
    assert not waiter.done()
    await a.stop_lease()
    done = await asyncio.wait_for(waiter, STEP_S)
    assert done.status == "failed" and done.error is not None
    assert done.error.code == INTERNAL_ERROR and "worker" in done.error.message
    state = await send(b.engine, "tasks/get", {"taskId": task_id})
    assert state["status"] == "failed", state
    assert "worker" in state["statusMessage"]
    assert state["error"] == {"code": INTERNAL_ERROR, "message": done.error.message}
    await a.renew()  # A comes back (it was stopped): its handler ends, the failure stays
    await asyncio.wait_for(a.server.cancelled.wait(), STEP_S)
    assert (await send(a.engine, "tasks/get", {"taskId": task_id}))["status"] == "failed"


@bounded
async def test_a_killed_backends_task_fails_once_its_lease_lapses(redis_url: str) -> None:
    """With ``RedisBackend`` (its store names the worker, its lease renewed in the
    background): worker A stops renewing as a killed process does, and once its lease lapsed
    worker B's ``tasks/result`` wait ends with the task ``failed``."""

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        """No request is forwarded here."""

    async def lease_lost() -> None:
        """No session is held here."""

    # The lease is 15 renewals long: a loaded machine may delay a few of them, not all.
    here = RedisBackend(redis_url, prefix="killed", lease=1.5, renew_every=0.1)
    there = RedisBackend(redis_url, prefix="killed", lease=1.5, renew_every=0.1)
    await here.start(serve, lease_lost)
    await there.start(serve, lease_lost)
    try:
        running = await here.task_store.create("ivan", "tools/call", None)
        await asyncio.sleep(2.0)  # longer than the lease: renewed, so still working
        seen = await there.task_store.get("ivan", running.task_id)
        assert seen is not None and seen.status == "working"
        here.renew_every = 3600.0  # as if killed: no more renewals, the lease lapses
        done = await asyncio.wait_for(there.task_store.wait(seen), STEP_S)
        assert done.status == "failed" and done.error is not None
        assert done.status_message == done.error.message and "worker" in done.error.message
    finally:
        await there.stop()
        await here.stop()


async def test_a_requestors_running_tasks_are_bounded_across_workers(redis_url: str) -> None:
    """At most ``max_running_per_owner`` of a requestor's tasks run at once, counted over
    every worker (-32603 beyond); a task that ends makes room."""
    here = RedisTaskStore(redis_url, prefix="bound1", max_running_per_owner=2)
    there = RedisTaskStore(redis_url, prefix="bound1", max_running_per_owner=2)
    try:
        first = await here.create("erin", "tools/call", None)
        await there.create("erin", "tools/call", None)
        with pytest.raises(MCPError) as refused:
            await there.create("erin", "tools/call", None)
        assert refused.value.code == INTERNAL_ERROR and "2" in refused.value.message
        await here.create("frank", "tools/call", None)  # another requestor is not counted
        await finish(here, first)
        await there.create("erin", "tools/call", None)
    finally:
        await here.close()
        await there.close()


async def test_a_dead_workers_tasks_stop_counting_against_the_bound(redis_url: str) -> None:
    """The running tasks of a worker whose lease lapsed make room for new ones (they are
    stored ``failed`` when the bound is reached), on the worker that still lives."""
    dead = RedisTaskStore(redis_url, prefix="bound3", worker="w1", max_running_per_owner=2)
    live = RedisTaskStore(redis_url, prefix="bound3", worker="w2", max_running_per_owner=2)
    try:
        await dead.client.set(dead.lease_key("w1"), b"1", px=60_000)
        await live.client.set(live.lease_key("w2"), b"1", px=60_000)
        made = [await dead.create("judy", "tools/call", None) for _ in range(2)]
        with pytest.raises(MCPError):
            await live.create("judy", "tools/call", None)
        await dead.client.delete(dead.lease_key("w1"))
        await live.create("judy", "tools/call", None)
        for record in made:
            stored = await live.get("judy", record.task_id)
            assert stored is not None and stored.status == "failed"
    finally:
        await dead.close()
        await live.close()


async def test_a_requestors_kept_tasks_are_bounded_the_oldest_ended_making_room(
    redis_url: str,
) -> None:
    """At most ``max_tasks_per_owner`` tasks are kept per requestor: the oldest ended task
    makes room for a new one (gone from ``tasks/get`` and the list); when every kept task
    still runs, a new one is refused (-32603)."""
    store = RedisTaskStore(redis_url, prefix="bound2", max_tasks_per_owner=3)
    try:
        made = [await store.create("gina", "tools/call", None) for _ in range(3)]
        with pytest.raises(MCPError) as refused:
            await store.create("gina", "tools/call", None)
        assert refused.value.code == INTERNAL_ERROR
        await finish(store, made[1])
        newest = await store.create("gina", "tools/call", None)
        assert await store.get("gina", made[1].task_id) is None
        listed = [r.task_id for r in (await store.page("gina", None))[0]]
        assert listed == [made[0].task_id, made[2].task_id, newest.task_id]
    finally:
        await store.close()


async def test_redis_away_is_backend_unavailable() -> None:
    """Every call of a store whose Redis cannot be reached raises ``BackendUnavailable``
    (the HTTP app answers 503 with ``Retry-After``), naming the task store."""
    store = RedisTaskStore(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    record = TaskRecord("t", "hal", "tools/call", 0.0, None, None)
    calls: list[Any] = [
        lambda: store.create("hal", "tools/call", None),
        lambda: store.get("hal", "t"),
        lambda: store.save(record),
        lambda: store.page("hal", None),
        lambda: store.wait(record),
    ]
    try:
        for call in calls:
            with pytest.raises(BackendUnavailable, match="task store"):
                await call()
    finally:
        await store.close()


@bounded
async def test_a_task_request_meeting_redis_away_is_answered_503_over_http() -> None:
    """Over HTTP without a session, a ``tasks/get`` or a task ``tools/call`` whose store
    cannot reach Redis is answered 503 with ``Retry-After`` (as the other Redis-backed paths),
    its body a JSON-RPC error saying to try again; the worker serves on."""
    store = RedisTaskStore(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    engine = StatelessServer(HeldServer(store))
    asked = [
        ("tasks/get", {"taskId": "t1"}, "t1"),
        ("tools/call", {"name": "hold", "arguments": {}}, "hold"),
    ]
    try:
        for method, params, name in asked:
            headers = {
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": method,
                "mcp-name": name,
            }
            start, body = await post_http(engine, frame(method, params), headers)
            assert start["status"] == 503, (method, body)
            assert (b"retry-after", b"1") in start["headers"]
            error = body["error"]
            assert error["code"] == INTERNAL_ERROR and "unavailable" in error["message"].lower()
            assert error["data"] == {"retryAfter": 1}
    finally:
        await store.close()


async def finish(store: RedisTaskStore, record: TaskRecord) -> None:
    """End ``record`` as its handler does."""
    record.status, record.result = "completed", {"content": []}
    await store.save(record)


async def waiting_for(worker: Worker, task_id: str, key: str) -> dict[str, Any]:
    """``tasks/get`` on ``worker`` until the task waits for input under ``key``."""
    state: dict[str, Any] = {}
    for _ in range(int(STEP_S / 0.02)):
        state = await send(worker.engine, "tasks/get", {"taskId": task_id})
        if state["status"] == "input_required" and key in state.get("inputRequests", {}):
            return state
        await asyncio.sleep(0.02)
    raise AssertionError(f"the task never asked for {key!r} as seen by {worker.lease}: {state}")


async def ended(worker: Worker, task_id: str) -> dict[str, Any]:
    """``tasks/get`` on ``worker`` until the task is terminal."""
    state: dict[str, Any] = {}
    for _ in range(int(STEP_S / 0.02)):
        state = await send(worker.engine, "tasks/get", {"taskId": task_id})
        if state["status"] in ("completed", "failed", "cancelled"):
            return state
        await asyncio.sleep(0.02)
    raise AssertionError(f"the task never ended: {state}")


def update(task_id: str, key: str, name: str) -> dict[str, Any]:
    """``tasks/update`` params accepting ``key``'s form with ``name``."""
    answer = {"action": "accept", "content": {"name": name}}
    return {"taskId": task_id, "inputResponses": {key: answer}}


@bounded
async def test_an_update_answered_by_another_worker_reaches_the_running_handler(
    workers: tuple[Worker, Worker],
) -> None:
    """The task runs on A; B shows its ``inputRequests`` and takes the first answer, A the
    second: the handler gets both and the task completes with them, as seen from B."""
    a, b = workers
    created = await send(a.engine, "tools/call", {"name": "ask", "arguments": {}})
    task_id = created["taskId"]
    state = await waiting_for(b, task_id, "first")
    assert state["inputRequests"]["first"]["method"] == "elicitation/create"
    assert await send(b.engine, "tasks/update", update(task_id, "first", "ann")) == {
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": b.engine.server.server_info()},
    }
    await waiting_for(b, task_id, "second")
    await send(a.engine, "tasks/update", update(task_id, "second", "bo"))
    done = await ended(b, task_id)
    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == "ann+bo"


@bounded
async def test_an_invalid_answer_is_refused_by_the_worker_that_takes_it(
    workers: tuple[Worker, Worker],
) -> None:
    """B checks the answer against the request A stored (-32602 for one that is not a valid
    result), as A does for its own; the task still waits for a valid one."""
    a, b = workers
    task_id = (await send(a.engine, "tools/call", {"name": "ask", "arguments": {}}))["taskId"]
    await waiting_for(b, task_id, "first")
    bad = {"taskId": task_id, "inputResponses": {"first": {"action": "maybe"}}}
    assert (await send(b.engine, "tasks/update", bad))["code"] == -32602
    await send(b.engine, "tasks/update", update(task_id, "first", "cy"))
    await waiting_for(a, task_id, "second")
    await send(b.engine, "tasks/update", update(task_id, "second", "di"))
    done = await ended(a, task_id)
    assert done["result"]["content"][0]["text"] == "cy+di"
