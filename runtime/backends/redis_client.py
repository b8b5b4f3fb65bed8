"""The Redis client of the backends (the ``redis`` extra: redis-py with hiredis, asyncio)."""

from __future__ import annotations

from typing import Any

try:
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import RedisError
except ImportError as exc:  # pragma: no cover - the extra is missing
    from ..core.errors import MissingDependency

    raise MissingDependency("redis", "redis", "sharing state between workers") from exc

__all__ = ["RedisError", "client_for", "result"]


def client_for(url: str, socket_timeout: float, retries: bool = True) -> Any:
    """An asyncio Redis client (``retries=False``: a failure surfaces at once)."""
    client_class: Any = aioredis.Redis  # its stubs leave ``from_url``'s kwargs untyped
    options: dict[str, Any] = {}
    if not retries:
        options["retry"] = Retry(NoBackoff(), 0)
    return client_class.from_url(
        url, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout, **options
    )


async def result(call: Any) -> Any:
    """Await one redis-py call (its stubs type results as ``Awaitable | Any``)."""
    return await call
