# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The shared state of several workers in Redis (the ``redis`` extra: redis-py with hiredis).

Keys (``prefix`` ``mcpgen`` by default; a session's keys carry its id as a hash tag, so a
Redis Cluster can place them together later):

- ``mcpgen:{<session>}:session``: a hash naming the owning worker, with a TTL the owner renews
  while the session lives (``session_ttl``), deleted when it ends;
- ``mcpgen:worker:<id>:lease``: the worker's liveness lease, renewed every ``renew_every``
  seconds for ``lease`` seconds;
- ``mcpgen:worker:<id>:inbox``: the pub/sub channel on which the worker takes forwarded
  requests and the answers to the requests it forwarded.

A worker is alive while its lease exists and it listens on its inbox: a killed worker's inbox
loses its listener at once (its connection closes), a stopped one's lease lapses. A worker
that finds its own lease lapsed (it was stopped, or Redis was away) ends every session it held:
others may already have answered 404 for them, so none comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Collection
from typing import Any, Final

import msgspec

from ..transports.http.asgi import Receive, Scope, Send
from .base import (
    FORWARDED,
    BackendUnavailable,
    Handler,
    Lease,
    LeaseLost,
    new_worker_id,
)
from .redis_bus import RedisBus
from .redis_client import RedisError, client_for, lease_key, reachable, result, stop_requested
from .redis_tasks import RedisTaskStore

logger = logging.getLogger(__name__)

DEFAULT_LEASE_S: Final = 2.0
"""Seconds a worker's liveness lease lasts without renewal."""
DEFAULT_RENEW_S: Final = 0.5
"""Seconds between renewals of the lease."""
DEFAULT_SESSION_TTL_S: Final = 3900.0
"""Seconds a session's directory entry lives without being touched by its owner."""
CHECK_OWNER_S: Final = 0.25
"""Seconds a relay waits for its owner's next message before checking that it is alive."""
MAX_RELAY_MESSAGES: Final = 4096
"""Messages a relay may hold unsent to its client; beyond, the relay is cut."""


class Envelope(msgspec.Struct, omit_defaults=True):
    """One message between workers: a forwarded request, a part of its answer, or a hang-up."""

    kind: str
    """``request``, ``start`` (status and headers), ``body`` or ``disconnect``."""
    rid: str
    reply_to: str = ""
    method: str = ""
    path: str = ""
    query: bytes = b""
    headers: list[tuple[bytes, bytes]] = msgspec.field(default_factory=lambda: _no_headers())
    body: bytes = b""
    status: int = 0
    more: bool = False


def _no_headers() -> list[tuple[bytes, bytes]]:
    return []


_ENCODE: Final = msgspec.msgpack.Encoder().encode
_DECODE: Final = msgspec.msgpack.Decoder(Envelope).decode


class RedisDirectory:
    """The session directory in Redis: a hash per session, a lease per worker."""

    def __init__(self, client: Any, prefix: str, lease: float, session_ttl: float) -> None:
        self.client = client
        self.prefix = prefix
        self.lease = Lease(lease)
        self.session_ttl_ms = int(session_ttl * 1000)
        self._worker = new_worker_id()

    @property
    def worker(self) -> str:
        """This worker's id."""
        return self._worker

    def session_key(self, session: str) -> str:
        """The hash of a session (hash-tagged by its id)."""
        return f"{self.prefix}:{{{session}}}:session"

    def lease_key(self, worker: str) -> str:
        """A worker's liveness lease."""
        return lease_key(self.prefix, worker)

    def inbox(self, worker: str) -> str:
        """A worker's pub/sub channel."""
        return f"{self.prefix}:worker:{worker}:inbox"

    async def claim(self, session: str) -> None:
        """Record this worker as the session's owner, expiring unless touched, and renew the
        lease in the same round trip.

        A lease Redis no longer holds (Redis restarted, or this worker stalled) is not taken
        back here: the claim is undone and refused (``BackendUnavailable``, 503 with
        ``Retry-After``) and the lease marked lost, so the sessions held before the lapse are
        ended (``hold_lease``) before a new one is handed out, never after.
        """
        sent = time.monotonic()
        key = self.session_key(session)
        pipe = self.client.pipeline(transaction=False)
        pipe.set(self.lease_key(self._worker), b"1", px=int(self.lease.seconds * 1000), xx=True)
        pipe.hset(key, "owner", self._worker)
        pipe.pexpire(key, self.session_ttl_ms)
        with reachable("a new session"):
            held, _, _ = await pipe.execute()
        if held:
            self.lease.renewed(sent)
            return
        self.lease.lost(sent)
        with contextlib.suppress(BackendUnavailable):  # refused all the same; it expires
            await self.release(session)
        raise BackendUnavailable("a new session: this worker's lease lapsed (Redis restarted?)")

    async def owner(self, session: str) -> str | None:
        """The owning worker, if the session is known."""
        with reachable("the session directory"):
            found = await result(self.client.hget(self.session_key(session), "owner"))
        return None if found is None else bytes(found).decode()

    async def touch(self, sessions: Collection[str]) -> None:
        """Renew the TTL of this worker's sessions."""
        if not sessions:
            return
        pipe = self.client.pipeline(transaction=False)
        for session in sessions:
            pipe.pexpire(self.session_key(session), self.session_ttl_ms)
        with reachable("the session directory"):
            await pipe.execute()

    async def release(self, session: str) -> None:
        """Forget the session; ``BackendUnavailable`` when Redis is away (the entry stays,
        expiring unless touched: the caller tries again or leaves it to expire)."""
        with reachable("the session directory"):
            await result(self.client.delete(self.session_key(session)))

    async def alive(self, worker: str) -> bool:
        """Whether the worker's lease exists and someone listens on its inbox."""
        pipe = self.client.pipeline(transaction=False)
        pipe.exists(self.lease_key(worker))
        pipe.pubsub_numsub(self.inbox(worker))
        with reachable("a worker's lease"):
            lease, listeners = await pipe.execute()
        return bool(lease) and bool(listeners) and int(listeners[0][1]) > 0

    def lease_held(self) -> bool:
        """Whether this worker's lease is current."""
        return self.lease.held()

    async def renew(self, take: bool = False) -> bool:
        """Renew the lease (``take``: set it whether or not it exists); False if it had
        lapsed meanwhile."""
        sent = time.monotonic()
        key, ms = self.lease_key(self._worker), int(self.lease.seconds * 1000)
        with reachable("the worker lease"):
            done = await result(self.client.set(key, b"1", px=ms, xx=not take))
        if done:
            self.lease.renewed(sent)
        else:
            self.lease.lost(sent)  # expired in Redis: others saw it lapse
        return bool(done)


class _Relay:
    """The answer of one forwarded request on its way back: a bounded queue."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Envelope | None] = asyncio.Queue(MAX_RELAY_MESSAGES)

    def put(self, envelope: Envelope) -> None:
        """Queue a part of the answer; a client too slow to take them cuts the relay."""
        try:
            self.queue.put_nowait(envelope)
        except asyncio.QueueFull:
            self.queue.get_nowait()
            self.queue.put_nowait(None)  # the reader stops at the first None it meets


class RedisBackend:
    """Sessions owned per worker and requests forwarded to their owner, through one Redis."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "mcpgen",
        lease: float = DEFAULT_LEASE_S,
        renew_every: float = DEFAULT_RENEW_S,
        session_ttl: float = DEFAULT_SESSION_TTL_S,
        socket_timeout: float = 1.0,
    ) -> None:
        self.url = url
        self.client = client_for(url, socket_timeout)
        self._bus = RedisBus(url, prefix=prefix, socket_timeout=socket_timeout)
        self._directory = RedisDirectory(self.client, prefix, lease, session_ttl)
        self._task_store = RedisTaskStore(
            url, prefix=prefix, socket_timeout=socket_timeout, worker=self._directory.worker
        )
        self.renew_every = renew_every
        self._relays: dict[str, _Relay] = {}
        self._serving: dict[str, asyncio.Event] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._serve: Handler | None = None
        self._lease_lost: LeaseLost | None = None
        self._pubsub: Any = None
        self._recovering = asyncio.Lock()

    @property
    def shared(self) -> bool:
        """Shared with every worker using the same Redis and prefix."""
        return True

    @property
    def directory(self) -> RedisDirectory:
        """The session directory."""
        return self._directory

    @property
    def bus(self) -> RedisBus:
        """The listen bus on the ``<prefix>:bus`` channel."""
        return self._bus

    @property
    def task_store(self) -> RedisTaskStore:
        """The tasks of every worker (handed to the servers that support tasks)."""
        return self._task_store

    @property
    def router(self) -> RedisBackend:
        """This backend routes requests itself."""
        return self

    async def start(self, serve: Handler, lease_lost: LeaseLost) -> None:
        """Take the lease, listen on the inbox, keep renewing."""
        self._serve, self._lease_lost = serve, lease_lost
        await self._directory.renew(take=True)
        await self._bus.start()
        self._pubsub = self.client.pubsub()
        await self._pubsub.subscribe(self._directory.inbox(self._directory.worker))
        self._spawn(self._listen())
        self._spawn(self._keep_lease())
        logger.info("joined %s as worker %s", self.url, self._directory.worker)

    async def stop(self) -> None:
        """Stop listening and renewing, drop the lease, disconnect."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._bus.close()
        with contextlib.suppress(RedisError, OSError):
            await result(self.client.delete(self._directory.lease_key(self._directory.worker)))
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
        await self._task_store.close()
        await self.client.aclose()

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _keep_lease(self) -> None:
        """Renew the lease every ``renew_every`` seconds; recover when it lapsed."""
        while True:
            await asyncio.sleep(self.renew_every)
            try:
                if not self._directory.lease_held() or not await self._directory.renew():
                    await self.hold_lease()
            except BackendUnavailable as exc:
                logger.warning("cannot renew the worker lease: %s", exc)

    async def hold_lease(self) -> None:
        """After a lapse: end what this worker held (others may have answered 404 for it),
        then take the lease again. Several callers at once recover once."""
        async with self._recovering:
            if self._directory.lease_held():
                return
            if self._lease_lost is not None:
                await self._lease_lost()
            await self._directory.renew(take=True)

    async def _listen(self) -> None:
        """Take forwarded requests and the answers to ours from the inbox; any error is
        logged with its cause and reading goes on (its client re-subscribes by itself after a
        lost connection). It never ends quietly: the worker would still look alive to the
        others (its inbox has a listener) while serving nothing forwarded to it."""
        while True:
            try:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
                envelope = _envelope(message)
                if envelope is not None:
                    self._take(envelope)
                continue
            except asyncio.CancelledError as exc:
                if stop_requested():
                    raise
                failure: BaseException = exc  # raised inside a read, not asked for
            except Exception as exc:
                failure = exc
            logger.warning("the inbox reader failed (%r): reading again", failure, exc_info=failure)
            await asyncio.sleep(0.2)

    def _take(self, envelope: Envelope) -> None:
        """Route one inbox message."""
        if envelope.kind == "request":
            self._spawn(self._answer(envelope))
        elif envelope.kind == "disconnect":
            gone = self._serving.get(envelope.rid)
            if gone is not None:
                gone.set()
        else:
            relay = self._relays.get(envelope.rid)
            if relay is not None:
                relay.put(envelope)

    async def _answer(self, request: Envelope) -> None:
        """Serve a forwarded request here, publishing its answer to the forwarder."""
        assert self._serve is not None
        gone = asyncio.Event()
        self._serving[request.rid] = gone
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "scheme": "http",
            "path": request.path,
            "raw_path": request.path.encode(),
            "root_path": "",
            "query_string": request.query,
            "headers": request.headers,
            FORWARDED: True,
        }
        delivered = [False]
        ended = [False]

        async def receive() -> dict[str, Any]:
            if not delivered[0]:
                delivered[0] = True
                return {"type": "http.request", "body": request.body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
                reply = Envelope("start", request.rid, status=message["status"], headers=headers)
            else:
                more = bool(message.get("more_body", False))
                ended[0] = not more
                reply = Envelope("body", request.rid, body=message.get("body", b""), more=more)
            await self._reply(request.reply_to, reply, gone)

        try:
            await self._serve(scope, receive, send)
        except Exception:
            logger.exception("a forwarded request failed")
        finally:
            self._serving.pop(request.rid, None)
            if not ended[0]:
                await self._reply(request.reply_to, Envelope("body", request.rid), gone)

    async def _reply(self, channel: str, envelope: Envelope, gone: asyncio.Event) -> None:
        """Publish a part of an answer; a forwarder no longer listening means it went away."""
        if gone.is_set():
            raise OSError("the forwarding worker went away")
        try:
            receivers = await result(self.client.publish(channel, _ENCODE(envelope)))
        except (RedisError, OSError):
            receivers = 0
        if not receivers:
            gone.set()
            raise OSError("the forwarding worker went away")

    async def forward(
        self, owner: str, scope: Scope, body: bytes, receive: Receive, send: Send
    ) -> bool:
        """Serve the request at ``owner``; relay its answer. False: the owner is gone."""
        directory = self._directory
        rid = new_worker_id()
        relay = self._relays[rid] = _Relay()
        request = Envelope(
            "request",
            rid,
            reply_to=directory.inbox(directory.worker),
            method=scope["method"],
            path=scope["path"],
            query=scope.get("query_string", b""),
            headers=[(bytes(k), bytes(v)) for k, v in scope["headers"]],
            body=body,
        )
        watcher = asyncio.ensure_future(_disconnected(receive))
        started = False
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.exists(directory.lease_key(owner))
            pipe.publish(directory.inbox(owner), _ENCODE(request))
            with reachable("forwarding to the session's worker"):
                lease, receivers = await pipe.execute()
            if not lease or not receivers:
                return False
            while True:
                getter = asyncio.ensure_future(relay.queue.get())
                await asyncio.wait(
                    {getter, watcher}, timeout=CHECK_OWNER_S, return_when="FIRST_COMPLETED"
                )
                if getter.done():
                    part = getter.result()
                    if part is None:  # cut: the client read too slowly
                        await self._hang_up(owner, rid)
                        return await _finish(started, send)
                    if part.kind == "start":
                        started = True
                        start = {"status": part.status, "headers": part.headers}
                        await send({"type": "http.response.start", **start})
                        continue
                    chunk = {"body": part.body, "more_body": part.more}
                    await send({"type": "http.response.body", **chunk})
                    if not part.more:
                        return True
                    continue
                getter.cancel()
                if watcher.done():
                    await self._hang_up(owner, rid)
                    return True
                if not await directory.alive(owner):
                    return await _finish(started, send)
        finally:
            watcher.cancel()
            self._relays.pop(rid, None)

    async def _hang_up(self, owner: str, rid: str) -> None:
        """Tell the owner the client of a forwarded request went away."""
        with contextlib.suppress(RedisError, OSError):
            envelope = _ENCODE(Envelope("disconnect", rid))
            await result(self.client.publish(self._directory.inbox(owner), envelope))


def _envelope(message: Any) -> Envelope | None:
    """The envelope an inbox message carries (None: not a published message, or dropped)."""
    if message is None or message.get("type") != "message":
        return None
    try:
        return _DECODE(message["data"])
    except msgspec.DecodeError:
        logger.warning("dropped an undecodable inbox message")
        return None


async def _finish(started: bool, send: Send) -> bool:
    """End a relay cut short: an answer begun is ended; False if none had begun."""
    if started:
        await send({"type": "http.response.body", "body": b""})
    return started


async def _disconnected(receive: Receive) -> None:
    """Return when the client of a request goes away."""
    while (await receive())["type"] != "http.disconnect":
        pass
