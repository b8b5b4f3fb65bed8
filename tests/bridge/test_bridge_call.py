"""A forwarded call's upstream half (``bridge_sessions.Call``): run in the call's context; its
end, whichever way, wakes the downstream handler, without a done callback's extra turn; work
it sends meanwhile runs in the handler's task first.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from generated._runtime.roles.bridge_sessions import Call, current_call


def _call() -> Call:
    """A call of a downstream request (only its connection's identity is used here)."""
    ctx: Any = SimpleNamespace(connection=object())
    return Call(ctx)


async def test_the_upstream_call_runs_in_the_calls_context() -> None:
    seen: list[Any] = []

    async def upstream() -> str:
        seen.append(current_call())  # the request is sent from here
        return "done"

    call = _call()
    task = call.start(upstream())
    assert current_call() is None  # the caller's context is not changed
    assert await call.run(task) == "done"
    assert seen == [call]


async def test_an_upstream_call_cancelled_while_waiting_ends_the_handlers_wait() -> None:
    seen: list[str] = []
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def upstream() -> str:
        try:
            return await answer
        except asyncio.CancelledError:
            seen.append("cancelled")  # e.g. notifications/cancelled sent upstream
            raise

    call = _call()
    task = call.start(upstream())
    handler = asyncio.ensure_future(call.run(task))
    for _ in range(3):  # both wait
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handler
    assert seen == ["cancelled"]


async def test_an_upstream_call_that_ends_without_waiting_gives_its_outcome() -> None:
    async def fails() -> str:
        raise ConnectionError("upstream gone")

    async def returns() -> str:
        return "at once"

    failed = _call().start(fails())
    with pytest.raises(ConnectionError, match="upstream gone"):
        await failed
    call = _call()
    assert await call.run(call.start(returns())) == "at once"


async def test_work_sent_meanwhile_runs_in_the_handlers_task_before_the_result() -> None:
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    order: list[str] = []
    call = _call()

    async def progress() -> None:
        order.append("progress")

    async def upstream() -> str:
        await asyncio.sleep(0)
        call.send(progress)
        await asyncio.sleep(0)
        answer.set_result("result")
        return await answer

    got = await call.run(call.start(upstream()))
    order.append(got)
    assert order == ["progress", "result"]


async def test_the_handler_wakes_in_the_turn_after_the_upstream_call_ends() -> None:
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def upstream() -> str:
        return await answer

    call = _call()
    handler = asyncio.ensure_future(call.run(call.start(upstream())))
    for _ in range(3):  # both tasks now wait
        await asyncio.sleep(0)
    answer.set_result("done")
    turns = 0
    while not handler.done():
        await asyncio.sleep(0)
        turns += 1
    # the upstream task resumes and ends (waking the handler), the handler returns: a done
    # callback in between (the upstream task's) would take one more turn
    assert turns == 2
    assert handler.result() == "done"
