"""A worker's Redis backend when Redis restarts under it (empty, same port) while the worker is
not scheduled: the restart happens with this test's event loop blocked, as a loaded machine
leaves a worker process asleep through it, so the worker never sees Redis refuse a connection."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from generated._runtime.backends.base import BackendUnavailable
from generated._runtime.backends.redis import RedisBackend
from generated._runtime.backends.redis_bus import RedisBus
from generated._runtime.roles.subscriptions import RESOURCE_UPDATED, RESYNC, TOOLS_CHANGED, Change
from tests.support.topology_support import Proc, start_redis, tools

STEP_S = 10.0
"""Bound on any one wait (a hang fails the test)."""


@pytest.fixture
def redis() -> Iterator[list[Proc]]:
    """A redis-server of the test's own (a list: the test replaces it when it restarts it)."""
    running = [start_redis(tools()[0])]
    yield running
    running[0].stop()


def restart(redis: list[Proc]) -> None:
    """Kill Redis and start it again on its port, blocking the event loop meanwhile."""
    old = redis[0]
    old.stop()
    redis[0] = start_redis(tools()[0], old.port)


def url_of(redis: list[Proc]) -> str:
    """The Redis URL."""
    return f"redis://127.0.0.1:{redis[0].port}/0"


@pytest.fixture
async def buses(redis: list[Proc]) -> AsyncIterator[tuple[RedisBus, RedisBus]]:
    """Two workers' buses on the same Redis, started."""
    pair = RedisBus(url_of(redis)), RedisBus(url_of(redis))
    for bus in pair:
        await bus.start()
    yield pair
    for bus in pair:
        await bus.close()


async def a_later_change_arrives(publisher: RedisBus, got: asyncio.Queue[Change]) -> None:
    """Publish changes until one reaches ``got`` (the publisher's own subscription may lag:
    bounded by ``STEP_S``); fail if none does."""
    for _ in range(int(STEP_S / 0.05)):
        await publisher.publish(Change(TOOLS_CHANGED))
        try:
            change = await asyncio.wait_for(got.get(), 0.05)
        except TimeoutError:
            continue
        if change.method == TOOLS_CHANGED:
            return
    raise AssertionError("no change arrived after the subscription came back")


async def test_a_bus_that_slept_through_a_redis_restart_hands_a_resync(
    redis: list[Proc], buses: tuple[RedisBus, RedisBus]
) -> None:
    """What was published while Redis was away is lost: the bus hands its sinks a ``RESYNC``
    (not a silent re-subscription), and changes published afterwards arrive again."""
    listener, publisher = buses
    got: asyncio.Queue[Change] = asyncio.Queue()
    listener.attach(got.put_nowait)
    await publisher.publish(Change(TOOLS_CHANGED))
    assert (await asyncio.wait_for(got.get(), STEP_S)).method == TOOLS_CHANGED
    restart(redis)
    assert (await asyncio.wait_for(got.get(), STEP_S)).method == RESYNC
    await a_later_change_arrives(publisher, got)


def fail_next_read(subscription: Any, error: BaseException) -> asyncio.Event:
    """Make the next read of a pub/sub ``subscription`` raise ``error`` (once); the returned
    event is set once it did."""
    read = subscription.get_message
    raised = asyncio.Event()

    async def broken(*args: Any, **kwargs: Any) -> Any:
        subscription.get_message = read
        raised.set()
        raise error

    subscription.get_message = broken
    return raised


@pytest.mark.parametrize(
    "error",
    [RuntimeError("injected reader failure"), asyncio.CancelledError("injected cancel")],
    ids=["error", "cancelled"],
)
async def test_a_bus_reader_that_fails_says_why_and_reads_again(
    buses: tuple[RedisBus, RedisBus], error: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected error (or a stray cancellation) inside the reader does not end it
    silently: it is logged with its cause, the bus subscribes again and hands its sinks a
    ``RESYNC``, and a change published afterwards reaches a listener on that worker."""
    listener, publisher = buses
    got: asyncio.Queue[Change] = asyncio.Queue()
    listener.attach(got.put_nowait)
    await publisher.publish(Change(TOOLS_CHANGED))
    assert (await asyncio.wait_for(got.get(), STEP_S)).method == TOOLS_CHANGED
    with caplog.at_level(logging.WARNING):
        fail_next_read(listener._pubsub, error)  # the test breaks the reader on purpose
        assert (await asyncio.wait_for(got.get(), STEP_S)).method == RESYNC
    causes = [r.exc_info[1] for r in caplog.records if r.exc_info is not None]
    assert error in causes, [r.getMessage() for r in caplog.records]
    await a_later_change_arrives(publisher, got)


async def test_a_bus_reader_stopped_without_close_says_so(
    buses: tuple[RedisBus, RedisBus], caplog: pytest.LogCaptureFixture
) -> None:
    """Only cancelling its task ends the reader; unless ``close`` asked, that is an error in
    the log (this worker's listeners would hear nothing more)."""
    listener, _ = buses
    reader = listener._reader  # the test stops the reader on purpose
    assert reader is not None
    with caplog.at_level(logging.ERROR):
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(reader, STEP_S)
        await asyncio.sleep(0)  # the task's done callbacks run
    assert any("reader was stopped" in r.getMessage() for r in caplog.records), caplog.text


async def test_a_bus_whose_connection_is_killed_reads_again(
    redis: list[Proc], buses: tuple[RedisBus, RedisBus]
) -> None:
    """``CLIENT KILL`` of every subscriber connection: each bus hands its sinks a ``RESYNC``
    and a later change reaches the listener again."""
    listener, publisher = buses
    got: asyncio.Queue[Change] = asyncio.Queue()
    listener.attach(got.put_nowait)
    admin = aioredis.Redis.from_url(url_of(redis))
    try:
        assert await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub") >= 2
    finally:
        await admin.aclose()
    assert (await asyncio.wait_for(got.get(), STEP_S)).method == RESYNC
    await a_later_change_arrives(publisher, got)


async def test_a_sink_that_raises_does_not_starve_the_others(
    buses: tuple[RedisBus, RedisBus], caplog: pytest.LogCaptureFixture
) -> None:
    """A sink raising on a change is logged with its error; the other sinks of that worker get
    that change and every later one."""
    listener, publisher = buses
    broken = RuntimeError("a broken sink")

    def raises(change: Change) -> None:
        raise broken

    listener.attach(raises)
    got: asyncio.Queue[Change] = asyncio.Queue()
    listener.attach(got.put_nowait)
    with caplog.at_level(logging.WARNING):
        await publisher.publish(Change(TOOLS_CHANGED))
        assert (await asyncio.wait_for(got.get(), STEP_S)).method == TOOLS_CHANGED
    assert broken in [r.exc_info[1] for r in caplog.records if r.exc_info is not None]
    await publisher.publish(Change(RESOURCE_UPDATED, "a://1"))
    later = await asyncio.wait_for(got.get(), STEP_S)
    assert (later.method, later.uri) == (RESOURCE_UPDATED, "a://1")


class Worker:
    """A ``RedisBackend`` started as the HTTP app starts it, recording what happens to its
    sessions: ``claimed <id>`` and ``lease lost`` (every session it held is ended)."""

    def __init__(self, url: str) -> None:
        self.backend = RedisBackend(url, lease=5.0, renew_every=3600.0)
        """Renewed by the test (``renew``), so no background renewal races its claims."""
        self.log: list[str] = []

    async def serve(self, scope: Any, receive: Any, send: Any) -> None:
        """No request is forwarded here."""

    async def lease_lost(self) -> None:
        """The app ends its sessions."""
        self.log.append("lease lost")

    async def claim(self, session: str) -> None:
        """Claim a new session as the app does on ``initialize``: recover a lapsed lease first
        (the app's check before every request), then claim; note a claim that succeeded."""
        if not self.backend.directory.lease_held():
            await self.backend.hold_lease()
        await self.backend.directory.claim(session)
        self.log.append(f"claimed {session}")


@pytest.fixture
async def worker(redis: list[Proc]) -> AsyncIterator[Worker]:
    """A started worker backend."""
    started = Worker(url_of(redis))
    await started.backend.start(started.serve, started.lease_lost)
    yield started
    await started.backend.stop()


async def test_a_session_claimed_after_a_redis_restart_outlives_the_lease_recovery(
    redis: list[Proc], worker: Worker
) -> None:
    """Redis restarted, so the worker's lease is gone. A session is claimed only once the
    worker has ended what it held before (a claim that finds the lease gone is refused, 503),
    so no recovery ends a session handed out after it: the lease is in Redis again when the
    new session is, and the next renewal finds it (a lapse found there would end them all)."""
    await worker.claim("before")
    restart(redis)
    claimed = ""
    for attempt in range(int(STEP_S / 0.05)):  # a refused claim is tried again, as clients do
        try:
            await worker.claim(f"after-{attempt}")
        except BackendUnavailable:
            await asyncio.sleep(0.05)
            continue
        claimed = f"after-{attempt}"
        break
    assert claimed, "no session could be claimed after the restart"
    assert await worker.backend.directory.renew(), "the lease was not in Redis"
    assert worker.log == ["claimed before", "lease lost", f"claimed {claimed}"]
    assert await worker.backend.directory.owner(claimed) == worker.backend.directory.worker


async def test_an_inbox_reader_that_fails_says_why_and_serves_forwarded_requests_again(
    redis: list[Proc], caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected error inside a worker's inbox reader is logged with its cause and the
    reader goes on: a request another worker forwards to it afterwards is served (before, the
    reader ended silently, the worker still looked alive, and the forward hung)."""
    owner, forwarder = RedisBackend(url_of(redis)), RedisBackend(url_of(redis))
    answered: list[dict[str, Any]] = []

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"served"})

    async def nothing() -> None:
        """No request is forwarded to the forwarder, and no lease is lost."""

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()  # the client never goes away
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        answered.append(message)

    await owner.start(serve, nothing)
    await forwarder.start(serve, nothing)
    try:
        error = RuntimeError("injected inbox failure")
        with caplog.at_level(logging.WARNING):
            raised = fail_next_read(owner._pubsub, error)  # breaks the reader on purpose
            await asyncio.wait_for(raised.wait(), STEP_S)
            scope = {"method": "POST", "path": "/mcp", "headers": []}
            forward = forwarder.forward(owner.directory.worker, scope, b"{}", receive, send)
            assert await asyncio.wait_for(forward, STEP_S)
        assert error in [r.exc_info[1] for r in caplog.records if r.exc_info is not None]
        assert answered[0]["status"] == 200 and answered[-1]["body"] == b"served"
    finally:
        await forwarder.stop()
        await owner.stop()
