"""A task whose outcome is saved while its store cannot be reached (a Redis away): nothing
escapes the background task that saves it (asyncio would log "Task exception was never
retrieved"), and the outcome is stored once the store is back, with the status it had."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from generated._runtime.core.errors import Unavailable
from generated._runtime.roles.stateless import StatelessServer
from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.roles.taskstore import InMemoryTaskStore, TaskRecord
from generated._runtime.roles.taskwork import TaskWork
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.roles.test_stateless_tasks import send
from tests.support.http_support import bounded

STEP_S = 10.0


class AwayStore(InMemoryTaskStore):
    """An in-memory store whose saves fail as a Redis away does while ``away`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.away = False
        self.stored: list[str] = []
        """The statuses saved, in order."""

    async def save(self, record: TaskRecord) -> None:
        """Fail while away, else keep the status."""
        if self.away:
            raise Unavailable("the task store: Redis is unavailable")
        self.stored.append(record.status)
        await super().save(record)


class HeldServer(Server):
    """``hold`` runs until released."""

    name = "held"

    def __init__(self, store: AwayStore) -> None:
        self.release = asyncio.Event()
        self.task_support = TaskSupport(store=store, tools={"hold": "required"})

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        await self.release.wait()
        return t.CallToolResult(content=[t.TextContent(text="done")])


async def stored(store: AwayStore, status: str) -> None:
    """Wait until ``status`` was saved."""
    for _ in range(int(STEP_S / 0.05)):
        if status in store.stored:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{status} was never stored: {store.stored}")


@bounded
async def test_a_tasks_outcome_saved_while_the_store_is_away_is_stored_once_it_is_back() -> None:
    """The handler ends while the store is away: no exception escapes the task that saves
    the outcome; once the store is back, ``completed`` is stored and ``tasks/get`` shows it."""
    seen: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: seen.append(context))
    store = AwayStore()
    server = HeldServer(store)
    engine = StatelessServer(server)
    task_id = (await send(engine, "tools/call", {"name": "hold", "arguments": {}}))["taskId"]
    store.away = True
    server.release.set()
    await asyncio.sleep(0.3)  # the outcome's first save failed meanwhile
    gc.collect()
    assert not seen, seen
    store.away = False
    await stored(store, "completed")
    state = await send(engine, "tasks/get", {"taskId": task_id})
    assert state["status"] == "completed" and state["result"]["content"][0]["text"] == "done"
    gc.collect()
    assert not seen, seen


@bounded
async def test_a_2025_11_25_runner_saving_while_the_store_is_away_raises_nothing() -> None:
    """As 2025-11-25's runner does (its asyncio task is ``settle`` itself, never awaited):
    a failed save of the outcome does not end the runner with an exception; the outcome is
    stored once the store is back."""
    store = AwayStore()
    work = TaskWork(store)
    record = await store.create("", "tools/call", None)

    async def handler() -> dict[str, Any]:
        return {"content": []}

    store.away = True
    runner = asyncio.get_running_loop().create_task(work.settle(record, handler()))
    work.track(record, runner)
    await asyncio.sleep(0.3)
    assert not runner.done() or runner.exception() is None
    store.away = False
    await asyncio.wait_for(runner, STEP_S)
    assert runner.exception() is None and store.stored == ["completed"]
