"""Input to a task of another worker (the 2026-07-28 tasks extension on one Redis): the
``inputRequests`` of a task running on worker A are shown by worker B's ``tasks/get``, and a
``tasks/update`` answered by B reaches A's handler, which then ends with the answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from generated._runtime.backends.redis_tasks import RedisTaskStore
from generated._runtime.roles.mrtr import ask
from generated._runtime.roles.stateless import StatelessServer
from generated._runtime.roles.tasks import TaskSupport
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.roles.test_stateless_tasks import form, send
from tests.support.http_support import bounded
from tests.support.topology_support import redis_server

STEP_S = 10.0
"""The bound on one step (the running worker reads delivered input every 0.1 s here)."""


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of this module's own."""
    with redis_server() as url:
        yield url


class AskingServer(Server):
    """One worker's server: ``ask`` asks the client for a name, twice, through its task."""

    name = "asking"

    def __init__(self, store: RedisTaskStore) -> None:
        self.task_support = TaskSupport(store=store, tools={"ask": "required"})

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        first = await ask(ctx, "elicitation/create", form("first?"), key="first")
        second = await ask(ctx, "elicitation/create", form("second?"), key="second")
        names = [(answer.content or {}).get("name") for answer in (first, second)]
        return t.CallToolResult(content=[t.TextContent(text=f"{names[0]}+{names[1]}")])


class Worker:
    """A worker: its own Redis connections and lease, its stateless engine."""

    def __init__(self, url: str, name: str) -> None:
        self.store = RedisTaskStore(url, prefix="input", worker=name, poll_every=0.1)
        self.engine = StatelessServer(AskingServer(self.store))
        self.name = name

    async def renew(self) -> None:
        """Take the lease (as ``RedisBackend`` does for a live worker)."""
        await self.store.client.set(self.store.lease_key(self.name), b"1", px=60_000)


@pytest.fixture
async def workers(redis_url: str) -> AsyncIterator[tuple[Worker, Worker]]:
    """Two live workers on the same Redis."""
    pair = Worker(redis_url, "worker-a"), Worker(redis_url, "worker-b")
    for worker in pair:
        await worker.renew()
    yield pair
    for worker in pair:
        await worker.store.close()


async def waiting_for(worker: Worker, task_id: str, key: str) -> dict[str, Any]:
    """``tasks/get`` on ``worker`` until the task waits for input under ``key``."""
    state: dict[str, Any] = {}
    for _ in range(int(STEP_S / 0.02)):
        state = await send(worker.engine, "tasks/get", {"taskId": task_id})
        if state["status"] == "input_required" and key in state.get("inputRequests", {}):
            return state
        await asyncio.sleep(0.02)
    raise AssertionError(f"the task never asked for {key!r} as seen by {worker.name}: {state}")


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
