"""How a handler starts (``running.start_eagerly``): at once, up to its first wait.

- A handler that ends without waiting runs to its end inside the call: no Task, and what it
  sets in its context stays in its own copy.
- A handler that waits goes on in a Task: what it awaits comes back to it, cancelling the Task
  (even before the Task's first step) reaches it where it waits, and its context is the copy
  it started in.
- An exception raised before any wait leaves the call as raised; handlers started afterwards
  (and handlers started from inside a running one) still run.
- Handlers started at once may await one future (a shared task): each goes on when it is done.
- Runners kept between handlers are bounded however many handlers waited at once.
"""

from __future__ import annotations

import asyncio
import contextvars

from generated._runtime.roles import running
from generated._runtime.roles.running import start_eagerly

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="outside")


async def test_a_handler_that_does_not_wait_ends_inside_the_call() -> None:
    """What it did is done when the call returns None; its context changes stay its own."""
    done: list[str] = []

    async def handler() -> None:
        SEEN.set("inside")
        done.append(SEEN.get())

    assert start_eagerly(handler()) is None
    assert done == ["inside"]
    assert SEEN.get() == "outside"


async def test_a_handler_that_waits_goes_on_in_a_task_with_what_it_awaited() -> None:
    """The first part runs in the call; the rest in a Task, in the same copied context."""
    loop = asyncio.get_running_loop()
    gate: asyncio.Future[int] = loop.create_future()
    steps: list[object] = []

    async def handler() -> None:
        SEEN.set("handler")
        steps.append("started")
        steps.append(await gate)
        steps.append(SEEN.get())

    task = start_eagerly(handler())
    assert task is not None
    assert steps == ["started"]
    gate.set_result(7)
    await task
    assert steps == ["started", 7, "handler"]
    assert SEEN.get() == "outside"


async def test_cancelling_the_task_reaches_the_waiting_handler() -> None:
    """The handler sees CancelledError where it waits and may clean up."""
    loop = asyncio.get_running_loop()
    cleaned: list[str] = []

    async def handler() -> None:
        try:
            await loop.create_future()
        finally:
            cleaned.append("cleaned")

    task = start_eagerly(handler())
    assert task is not None
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert cleaned == ["cleaned"]


async def test_a_handler_that_raises_before_waiting_raises_from_the_call() -> None:
    """The exception leaves ``start_eagerly``; later handlers still run."""

    async def failing() -> None:
        raise ValueError("boom")

    async def fine(out: list[int]) -> None:
        out.append(1)

    for _ in range(3):
        try:
            start_eagerly(failing())
        except ValueError as exc:
            assert str(exc) == "boom"
        else:
            raise AssertionError("the handler's exception was lost")
        out: list[int] = []
        assert start_eagerly(fine(out)) is None
        assert out == [1]


async def test_a_handler_may_start_another_one_while_it_runs() -> None:
    """A handler started from inside a running one (a router feeding a connection) runs."""
    order: list[str] = []

    async def inner() -> None:
        order.append("inner")

    async def outer() -> None:
        order.append("outer")
        assert start_eagerly(inner()) is None
        order.append("outer again")

    assert start_eagerly(outer()) is None
    assert order == ["outer", "inner", "outer again"]


async def test_handlers_waiting_on_one_future_all_go_on() -> None:
    """Several handlers started at once may await the same future (a shared task)."""
    loop = asyncio.get_running_loop()
    shared: asyncio.Future[int] = loop.create_future()
    got: list[int] = []

    async def handler() -> None:
        got.append(await shared)

    tasks = [start_eagerly(handler()) for _ in range(3)]
    shared.set_result(5)
    await asyncio.gather(*(task for task in tasks if task is not None))
    assert got == [5, 5, 5]


async def test_the_runners_kept_are_bounded() -> None:
    """However many handlers waited at once, at most ``MAX_IDLE_RUNNERS`` runners stay."""
    loop = asyncio.get_running_loop()
    gates = [loop.create_future() for _ in range(3 * running.MAX_IDLE_RUNNERS)]

    async def handler(gate: asyncio.Future[None]) -> None:
        await gate

    tasks = [start_eagerly(handler(gate)) for gate in gates]
    for gate in gates:
        gate.set_result(None)
    await asyncio.gather(*(task for task in tasks if task is not None))
    assert all(task is not None for task in tasks)
    assert len(running._IDLE) <= running.MAX_IDLE_RUNNERS
