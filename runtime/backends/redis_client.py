"""The Redis client of the backends (the ``redis`` extra: redis-py with hiredis, asyncio)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Generator
from typing import Any

from .base import BackendUnavailable

try:
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import RedisError
except ImportError as exc:  # pragma: no cover - the extra is missing
    from ..core.errors import MissingDependency

    raise MissingDependency("redis", "redis", "sharing state between workers") from exc

__all__ = ["RedisError", "client_for", "lease_key", "result", "stop_requested"]


def client_for(url: str, socket_timeout: float, *, retry: bool = True) -> Any:
    """An asyncio Redis client that retries a call once, at once, and only when its pooled
    connection turned out dead (Redis restarted while it was idle: a new connection succeeds
    or is refused at once); a timeout is never retried, so a frozen Redis surfaces within the
    socket timeout (callers answer 503 or try again on their own schedule).

    Without ``retry`` every lost connection surfaces as an error: what a subscriber needs,
    since a retried read would reconnect and re-subscribe silently, hiding that the messages
    published meanwhile were lost.
    """
    client_class: Any = aioredis.Redis  # its stubs leave ``from_url``'s kwargs untyped
    return client_class.from_url(
        url,
        socket_timeout=socket_timeout,
        socket_connect_timeout=socket_timeout,
        retry=Retry(NoBackoff(), 1 if retry else 0, supported_errors=(RedisConnectionError,)),
    )


def lease_key(prefix: str, worker: str) -> str:
    """A worker's liveness lease (it exists while the worker lives and renews it)."""
    return f"{prefix}:worker:{worker}:lease"


async def result(call: Any) -> Any:
    """Await one redis-py call (its stubs type results as ``Awaitable | Any``)."""
    return await call


@contextlib.contextmanager
def reachable(what: str) -> Generator[None]:
    """Turn a failure to reach Redis into ``BackendUnavailable`` (answered 503)."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise BackendUnavailable(f"{what}: Redis is unavailable ({exc})") from exc


def stop_requested() -> bool:
    """Whether the running task was asked to stop (``Task.cancel``): a ``CancelledError``
    raised inside a Redis read without that is a failure of the read, not a stop."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
