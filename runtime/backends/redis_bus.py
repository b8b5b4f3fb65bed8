"""The ``subscriptions/listen`` bus of several workers on one Redis pub/sub channel.

Every worker subscribes to the channel and publishes its changes there, so a listener on any
worker hears a change made on any other (its own included: a change reaches local sinks only
through Redis, once). Pub/sub keeps nothing: what is published while a worker's subscription
is down is lost to it, so after re-subscribing the bus hands every sink a ``RESYNC`` change
(each listener re-cues what it opted in to). The subscription has a client of its own that
never retries: redis-py would otherwise reconnect and re-subscribe inside a read, silently
(a worker not scheduled while Redis restarted never saw it down), and no ``RESYNC`` would go.

The reader never ends but at ``close``: any error in it (Redis gone, its connection killed, a
reply it did not expect) is logged with its cause, and the reader drops the subscription,
waits (``RECONNECT_S``, doubling after each failure in a row up to ``MAX_RECONNECT_S``),
subscribes again and hands out the ``RESYNC``. A cancellation raised inside a read but not
asked for is handled the same way; only cancelling the task ends it, and an end not asked for
by ``close`` is logged as an error. A sink that raises is logged by the ``LocalBus`` and does
not keep the change from the other sinks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

import msgspec

from ..roles.subscriptions import RESYNC, Change, LocalBus
from .redis_client import client_for, stop_requested

logger = logging.getLogger(__name__)

RECONNECT_S: Final = 0.2
"""Seconds before subscribing again after the reader failed (doubling while it keeps failing)."""
MAX_RECONNECT_S: Final = 5.0
"""The bound on that wait."""


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
        self._closing = False
        self._lost = False
        """The subscription failed: drop it, wait ``_delay``, subscribe again, ``RESYNC``."""
        self._delay = RECONNECT_S

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
        self._run_reader()

    async def close(self) -> None:
        """Stop reading and disconnect."""
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self._drop()
        await self._subscriber.aclose()
        await self.client.aclose()

    def _run_reader(self) -> None:
        self._reader = asyncio.create_task(self._read())
        self._reader.add_done_callback(self._reader_ended)

    def _reader_ended(self, reader: asyncio.Task[None]) -> None:
        """The reader ends only when its task is cancelled: by ``close``, or else (the event
        loop stopping without closing the bus) loudly, since this worker's listeners hear no
        more."""
        if not self._closing:
            logger.error("the listen bus reader was stopped before the bus was closed")

    async def _subscribe(self) -> Any:
        pubsub = self._subscriber.pubsub()
        try:
            await pubsub.subscribe(self.channel)
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        return pubsub

    async def _drop(self) -> None:
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None

    async def _read(self) -> None:
        """Hand every published change to the sinks; after a failure, subscribe again and
        hand them a ``RESYNC``."""
        while True:
            try:
                if self._lost:
                    await self._drop()
                    await asyncio.sleep(self._delay)
                    self._delay = min(self._delay * 2, MAX_RECONNECT_S)
                    self._pubsub = await self._subscribe()
                    self._lost = False
                    logger.warning("the listen bus is back: listeners re-cue")
                    self._local.deliver(Change(RESYNC))
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
                self._delay = RECONNECT_S
                change = _change(message)
                if change is not None:
                    self._local.deliver(change)
            except asyncio.CancelledError as exc:
                if stop_requested():  # close() or the loop's shutdown: the reader ends
                    raise
                self._failed(exc)  # raised inside a read, not asked for
            except Exception as exc:
                self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        """Log why the reader failed (with the traceback) and subscribe afresh."""
        logger.warning(
            "the listen bus lost its subscription (%r): subscribing again in %.1f s",
            exc,
            self._delay,
            exc_info=exc,
        )
        self._lost = True


def _change(message: Any) -> Change | None:
    """The change a pub/sub message carries (None: not a published message, or undecodable)."""
    if message is None or message.get("type") != "message":
        return None
    try:
        wire = _DECODE(message["data"])
    except msgspec.DecodeError:
        return None
    return Change(wire.method, wire.uri, wire.params)
