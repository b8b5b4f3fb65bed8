"""The ``subscriptions/listen`` bus of several workers on one Redis pub/sub channel.

Every worker subscribes to the channel and publishes its changes there, so a listener on any
worker hears a change made on any other (its own included: a change reaches local sinks only
through Redis, once). Pub/sub keeps nothing: what is published while a worker's subscription
is down is lost to it, so after re-subscribing the bus hands every sink a ``RESYNC`` change
(each listener re-cues what it opted in to). The subscription has a client of its own that
never retries: redis-py would otherwise reconnect and re-subscribe inside a read, silently
(a worker not scheduled while Redis restarted never saw it down), and no ``RESYNC`` would go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

import msgspec

from ..roles.subscriptions import RESYNC, Change, LocalBus
from .redis_client import RedisError, client_for

logger = logging.getLogger(__name__)

RECONNECT_S: Final = 0.2
"""Seconds between attempts to subscribe again after the connection to Redis failed."""


class _Wire(msgspec.Struct, array_like=True):
    """A change as published (inside this deployment only)."""

    method: str
    uri: str | None = None
    params: dict[str, Any] | None = None


_ENCODE: Final = msgspec.msgpack.Encoder().encode
_DECODE: Final = msgspec.msgpack.Decoder(_Wire).decode


class RedisBus:
    """A ``Bus`` on one Redis channel (``<prefix>:bus``)."""

    def __init__(self, url: str, *, prefix: str = "mcpgen", socket_timeout: float = 1.0) -> None:
        self.channel = f"{prefix}:bus"
        self.client = client_for(url, socket_timeout)
        self._subscriber = client_for(url, socket_timeout, retry=False)
        """The subscription's own client: a lost connection ends the subscription loudly."""
        self._local = LocalBus()
        """This worker's sinks."""
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def publish(self, change: Change) -> None:
        """Publish a change to every worker (fails fast when Redis is away)."""
        payload = _ENCODE(_Wire(change.method, change.uri, change.params))
        await self.client.publish(self.channel, payload)

    def attach(self, sink: Callable[[Change], None]) -> Callable[[], None]:
        """Attach a sink of this worker; the returned function detaches it."""
        return self._local.attach(sink)

    async def start(self) -> None:
        """Subscribe, then keep reading (and re-subscribing) in the background."""
        self._pubsub = await self._subscribe()
        self._reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        """Stop reading and disconnect."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self._drop()
        await self._subscriber.aclose()
        await self.client.aclose()

    async def _subscribe(self) -> Any:
        pubsub = self._subscriber.pubsub()
        await pubsub.subscribe(self.channel)
        return pubsub

    async def _drop(self) -> None:
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
            self._pubsub = None

    async def _read(self) -> None:
        """Hand every published change to the sinks; after a reconnect, a ``RESYNC``."""
        while True:
            try:
                if self._pubsub is None:
                    self._pubsub = await self._subscribe()
                    logger.warning("the listen bus is back: listeners re-cue")
                    self._local.deliver(Change(RESYNC))
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
            except (RedisError, OSError) as exc:
                logger.warning("the listen bus lost Redis: %s", exc)
                await self._drop()
                await asyncio.sleep(RECONNECT_S)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                wire = _DECODE(message["data"])
            except msgspec.DecodeError:
                continue
            self._local.deliver(Change(wire.method, wire.uri, wire.params))
