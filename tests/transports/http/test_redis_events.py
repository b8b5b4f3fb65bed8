"""The event store in Redis Streams: what one worker stored, another replays for
``Last-Event-ID`` (the stream of that event, the later events with data, in order)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from generated._runtime.backends.redis_events import RedisEventStore
from tests.support.topology_support import redis_server


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of this module's own."""
    with redis_server() as url:
        yield url


@pytest.fixture
async def stores(redis_url: str) -> AsyncIterator[tuple[RedisEventStore, RedisEventStore]]:
    """Two workers' event stores on the same Redis."""
    first, second = RedisEventStore(redis_url), RedisEventStore(redis_url)
    yield first, second
    await first.client.aclose()
    await second.client.aclose()


async def test_events_stored_on_one_worker_replay_on_the_other(
    stores: tuple[RedisEventStore, RedisEventStore],
) -> None:
    """Replay after event 10 of 50 gives 11-50 of that stream only, in order; a priming event
    (no data) is a place to resume from but is not replayed."""
    here, there = stores
    ids = [await here.store("s1", "post-1", b"")]
    for n in range(1, 51):
        ids.append(await here.store("s1", "post-1", b"%d" % n))
        await here.store("s1", "get", b"other stream %d" % n)
    replay = await there.replay("s1", ids[10])
    assert replay is not None
    stream, events = replay
    assert stream == "post-1"
    assert [data for _, data in events] == [b"%d" % n for n in range(11, 51)]
    assert [event_id for event_id, _ in events] == ids[11:]
    primed = await there.replay("s1", ids[0])
    assert primed is not None and len(primed[1]) == 50


async def test_unknown_ids_and_forgotten_sessions_replay_nothing(
    stores: tuple[RedisEventStore, RedisEventStore],
) -> None:
    """A malformed id, another session's id, or a forgotten session: None (answered 404)."""
    here, there = stores
    event_id = await here.store("s2", "get", b"x")
    assert await there.replay("s2", "not-an-id") is None
    assert await there.replay("s3", event_id) is None
    await there.forget("s2")
    assert await here.replay("s2", event_id) is None
