"""Lease recovery with the event store in Redis while Redis is frozen: ending every session of
the worker goes on past a session whose events cannot be forgotten now, and those events are
forgotten once Redis answers again."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from generated._runtime.backends.base import BackendUnavailable, Handler, LeaseLost, MemoryBackend
from generated._runtime.backends.redis import RedisBackend, RedisDirectory
from generated._runtime.backends.redis_events import RedisEventStore
from generated._runtime.transports.http.server import HttpOptions
from generated.v2025_11_25 import Server
from tests.support.http_support import STEP_S, Raw, raw_client, request, serve
from tests.support.topology_support import Proc, start_redis, tools

SESSIONS = 3
V1125 = "2025-11-25"


class RecordingBackend(MemoryBackend):
    """The in-memory backend, keeping the ``lease_lost`` callback the app hands it (what a
    shared backend calls when it finds the worker's lease lapsed)."""

    def __init__(self) -> None:
        super().__init__()
        self.lease_lost: LeaseLost | None = None

    async def start(self, serve: Handler, lease_lost: LeaseLost) -> None:
        """Keep the callback."""
        self.lease_lost = lease_lost


class CountingStore(RedisEventStore):
    """The Redis event store, counting the sessions it was asked to forget."""

    forgets = 0

    async def forget(self, session: str) -> None:
        """Count, then forget."""
        self.forgets += 1
        await super().forget(session)


@pytest.fixture
def redis() -> Iterator[Proc]:
    """A redis-server of the test's own."""
    server = start_redis(tools()[0])
    yield server
    server.stop()


def events_key(session: str) -> str:
    """The Redis key of a session's events."""
    return f"mcpgen:{{{session}}}:events"


async def test_lease_recovery_ends_every_session_and_forgets_their_events_later(
    redis: Proc,
) -> None:
    """Three sessions with events in Redis; Redis frozen (SIGSTOP), the lease recovery runs:
    it returns without error and every session is ended (answered 404), not only those before
    the first that failed, and after one failed forget the others are not tried (one timeout,
    not one per session). Redis thawed: the events of every session are forgotten (retried),
    within a bounded wait."""
    url = f"redis://127.0.0.1:{redis.port}/0"
    store = CountingStore(url, socket_timeout=0.3)
    backend = RecordingBackend()
    admin = aioredis.Redis.from_url(url)
    options = HttpOptions(event_store=store, backend=backend)
    try:
        async with serve(Server(), options) as (app, base), raw_client(base) as client:
            raws = [Raw(client) for _ in range(SESSIONS)]
            for raw in raws:
                await raw.start(V1125)
            ids = [raw.session_id for raw in raws if raw.session_id is not None]
            assert await admin.exists(*(events_key(i) for i in ids)) == SESSIONS
            assert backend.lease_lost is not None
            redis.signal(signal.SIGSTOP)
            try:
                await asyncio.wait_for(backend.lease_lost(), STEP_S)
                assert app.sessions == {}
                assert store.forgets == 1  # Redis away: the others are not tried now
                for raw in raws:
                    response = await raw.post(request(1, "ping"), mcp_protocol_version=V1125)
                    assert response.status_code == 404, response.text
            finally:
                redis.signal(signal.SIGCONT)
            for _ in range(int(STEP_S / 0.05)):  # the retry waits 0.5 s at first: bounded
                if not await admin.exists(*(events_key(i) for i in ids)):
                    break
                await asyncio.sleep(0.05)
            assert await admin.exists(*(events_key(i) for i in ids)) == 0
    finally:
        await admin.aclose()
        await store.client.aclose()


async def test_renewing_sessions_with_redis_frozen_is_backend_unavailable(redis: Proc) -> None:
    """The directory's renewal of a worker's sessions fails as its other calls do when Redis
    does not answer (``BackendUnavailable``, which the idle sweep outlives), not with a
    Redis client error."""
    client = aioredis.Redis.from_url(f"redis://127.0.0.1:{redis.port}/0", socket_timeout=0.3)
    directory = RedisDirectory(client, "mcpgen", lease=2.0, session_ttl=60.0)
    redis.signal(signal.SIGSTOP)
    try:
        with pytest.raises(BackendUnavailable):
            await asyncio.wait_for(directory.touch(["a", "b"]), STEP_S)
    finally:
        redis.signal(signal.SIGCONT)
        await client.aclose()


async def test_a_delete_with_redis_away_is_503_and_the_session_lives_on(redis: Proc) -> None:
    """DELETE of a session while Redis does not answer: 503 with ``Retry-After`` (the session
    could not leave the directory the other workers route by), never a 200; the session still
    serves, and a DELETE once Redis answers again ends it (200, then 404)."""
    url = f"redis://127.0.0.1:{redis.port}/0"
    backend = RedisBackend(url, lease=30.0, socket_timeout=0.3)
    async with serve(Server(), HttpOptions(backend=backend)) as (_, base), raw_client(base) as c:
        raw = Raw(c)
        await raw.start(V1125)
        redis.signal(signal.SIGSTOP)
        try:
            gone = await c.delete("/mcp", headers=raw.headers(mcp_protocol_version=V1125))
        finally:
            redis.signal(signal.SIGCONT)
        assert gone.status_code == 503, gone.text
        assert gone.headers["retry-after"] == "1"
        ping = await raw.post(request(1, "ping"), mcp_protocol_version=V1125)
        assert ping.status_code == 200, ping.text
        gone = await c.delete("/mcp", headers=raw.headers(mcp_protocol_version=V1125))
        assert gone.status_code == 200, gone.text
        ping = await raw.post(request(2, "ping"), mcp_protocol_version=V1125)
        assert ping.status_code == 404, ping.text
