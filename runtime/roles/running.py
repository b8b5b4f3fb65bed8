"""The peer's requests being handled: their tasks, by request id, and how they are started.

A handler starts at once, in a copy of the context, and becomes a task only if it waits. The
table keeps a task under its request's id for as long as the task runs and no longer: an entry
is removed when its task ends, whichever way, so a handler that answered and then waited on a
full pipe leaves nothing behind (its id, which the peer chooses and may make large, included).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import importlib
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final, TypeVar, cast

from ..core.events import RequestId

T = TypeVar("T")


def run_blocking(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on uvloop when it is installed, else on asyncio's own loop.

    The blocking runners (``run_stdio``, ``mcpgen bridge``; uvicorn does the same for
    ``run_http``) use it: uvloop's turn of the loop costs a fraction of asyncio's, which is
    most of a pipe hop's cost.
    """
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    with contextlib.suppress(ImportError):
        factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


class RequestTasks:
    """Tasks of the peer's requests still being handled, by request id."""

    def __init__(self) -> None:
        self.running: dict[RequestId, asyncio.Task[None]] = {}
        """The tasks by request id; popping one's id (answered) keeps cancellation off it."""

    def start(self, request_id: RequestId, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` now (``start_eagerly``); if it waits, keep its task until it ends."""
        task = start_eagerly(work)
        if task is not None:
            self.keep(request_id, task)

    def keep(self, request_id: RequestId, task: asyncio.Task[None]) -> None:
        """Keep the task of a handler that waits (``start_eagerly``'s) until it ends."""
        self.running[request_id] = task
        task.add_done_callback(lambda done: self._forget(request_id, done))

    def _forget(self, request_id: RequestId, task: asyncio.Task[None]) -> None:
        if self.running.get(request_id) is task:  # not a later request that reused the id
            del self.running[request_id]

    def answered(self, request_id: RequestId) -> None:
        """The handler answered: from now on no cancellation reaches its task."""
        self.running.pop(request_id, None)

    def cancel(self, request_id: RequestId) -> None:
        """Cancel the handler of ``request_id``, if it is still running."""
        task = self.running.pop(request_id, None)
        if task is not None:
            task.cancel()

    def cancel_all(self) -> None:
        """Cancel every handler still running."""
        for task in list(self.running.values()):
            task.cancel()

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks still running."""
        return list(self.running.values())

    def __len__(self) -> int:
        return len(self.running)


def start_eagerly(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coro`` now, in a copy of the context, up to its first wait; then go on in a Task.

    Returns the Task, or None when ``coro`` finished without waiting. (Python 3.12's
    ``eager_start`` does the same; this works on 3.11.) A runner (``_runner``) steps it: a
    coroutine that ends without waiting raises no ``StopIteration`` to catch here.
    """
    context = contextvars.copy_context()
    runner = _IDLE.pop() if _IDLE else _new_runner()
    waiting_on = context.run(runner.send, coro)
    if waiting_on is _DONE:
        _IDLE.append(runner)
        return None
    # A future awaited is marked blocking until the Task that waits on it takes it: unmarked
    # until that Task's first step, so another handler may await it meanwhile.
    blocking = getattr(waiting_on, "_asyncio_future_blocking", False) is True
    if blocking:
        waiting_on._asyncio_future_blocking = False
    # types.coroutine makes the generator a coroutine at run time; typeshed says Awaitable.
    resumed = cast("Generator[Any, Any, None]", _resume(runner, waiting_on, blocking))
    resumed.send(None)  # to its first yield: a cancellation before the Task's first step lands
    task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
        cast("Coroutine[Any, Any, None]", resumed), context=context
    )
    return task


_DONE: Final = object()
"""What a runner yields once the coroutine it runs ended (its value is not kept)."""
MAX_IDLE_RUNNERS: Final = 64
"""Most runners kept between coroutines (one is busy per handler that waits)."""
_IDLE: list[Generator[Any, Any, None]] = []
"""Runners between coroutines, for the next ``start_eagerly`` (one at a time each)."""


@types.coroutine
def _runner() -> Generator[Any, Any, None]:
    """Run each coroutine sent in to its end, passing on what it waits on, and yield
    ``_DONE``: ``yield from`` ends a coroutine without raising ``StopIteration``."""
    coro = yield None
    while True:
        yield from coro
        coro = None  # the ended one is not kept while idle
        coro = yield _DONE


def _new_runner() -> Generator[Any, Any, None]:
    """A runner waiting for its first coroutine."""
    # types.coroutine makes it a generator-based coroutine; typeshed says Awaitable.
    runner = cast("Generator[Any, Any, None]", _runner())
    runner.send(None)
    return runner


@types.coroutine
def _resume(
    runner: Generator[Any, Any, None], waiting_on: Any, blocking: bool
) -> Generator[Any, Any, None]:
    """Drive a runner whose coroutine waits on: pass what it waits on to the Task, and back
    what comes; the runner is kept for another coroutine once this one ended. Started before
    the Task takes it: the Task's first step lands in the ``try`` (a cancellation included)."""
    try:
        yield None
    except BaseException as exc:  # cancelled before the Task's first step
        waiting_on = runner.throw(exc)
    else:
        if blocking:  # marked again for the Task, which takes it now
            waiting_on._asyncio_future_blocking = True
    while waiting_on is not _DONE:
        try:
            sent = yield waiting_on
        except BaseException as exc:  # cancellation and the like go into the coroutine
            waiting_on = runner.throw(exc)
        else:
            waiting_on = runner.send(sent)
    if len(_IDLE) < MAX_IDLE_RUNNERS:
        _IDLE.append(runner)
