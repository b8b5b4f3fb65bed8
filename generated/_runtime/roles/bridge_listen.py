# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The bridge's listen stream: a stateless upstream's changes as a session's notifications.

A stateless server sends list changes and resource updates only on ``subscriptions/listen``
streams. The bridge keeps one open upstream for what its downstream sessions can receive (the
list changes the upstream declares, and the URIs its sessions subscribed to with
``resources/subscribe``, which a handshake client sends and a stateless server does not know);
a new subscription opens a new stream with the new filter, acknowledged before the old one is
closed, so no change is missed between the two.

``UpstreamSubscriptions`` is the other way round: a handshake upstream sends resource updates
only for what was subscribed with ``resources/subscribe``, so a stateless downstream client's
listen stream subscribes upstream to its URIs while it is open (counted across streams).
``SessionSubscriptions`` does the same for handshake sessions' ``resources/subscribe`` on
that upstream, on the same count: the first subscriber of a URI subscribes upstream, the last
one gone unsubscribes, and each update goes only to the sessions subscribed to its URI.

``TaskListens`` carries the tasks extension's ``taskIds``: a downstream listen stream naming
task ids opens an upstream one naming them (declaring the extension) for as long as it runs;
its acknowledgement is acknowledged downstream with the ids the upstream honours, and its
``notifications/tasks`` are published to the downstream streams that named the task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, cast

from ..core.errors import MCPError
from ..core.wire import as_object
from .stateless_client import StatelessRequests
from .subscriptions import TASK_STATUS, Filter, Listeners, Send

if TYPE_CHECKING:
    from .client import ClientBase
    from .server import ServerBase

__all__ = [
    "SessionSubscriptions",
    "TaskListens",
    "UpstreamListen",
    "UpstreamSubscriptions",
    "counted_upstream",
    "subscribe_upstream",
]

ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
ACK_TIMEOUT_S: Final = 10.0
"""How long a new stream may take to be acknowledged before a subscription fails."""
MAX_URIS: Final = 1024
"""Most resource URIs the bridge subscribes to upstream at once (more: -32602 to the client)."""

Deliver = Callable[[str, Any], Awaitable[None]]
OnUri = Callable[[str], Awaitable[None]]


class UpstreamListen:
    """One listen stream upstream, reopened when the filter changes."""

    def __init__(
        self, requests: StatelessRequests, changes: dict[str, bool], deliver: Deliver
    ) -> None:
        self._requests = requests
        self._changes = changes
        self._deliver = deliver
        self._by_session: dict[int, set[str]] = {}
        self._task: asyncio.Task[Any] | None = None
        self._lock = asyncio.Lock()

    @property
    def uris(self) -> list[str]:
        """Every URI some session subscribed to, in a stable order."""
        every: set[str] = set()
        for uris in self._by_session.values():
            every |= uris
        return sorted(every)

    def subscribers(self, uri: str) -> list[int]:
        """The sessions (by key) subscribed to ``uri``."""
        return [key for key, uris in self._by_session.items() if uri in uris]

    async def start(self) -> None:
        """Open the stream if there is anything to listen for."""
        await self._reopen()

    async def subscribe(self, session: int, uri: str) -> None:
        """Add ``uri`` for ``session``; the stream is reopened with it before this returns."""
        if uri in self._by_session.get(session, ()):
            return
        if len(self.uris) >= MAX_URIS:
            raise MCPError(-32602, f"the bridge subscribes to at most {MAX_URIS} resources")
        self._by_session.setdefault(session, set()).add(uri)
        await self._reopen()

    async def unsubscribe(self, session: int, uri: str) -> None:
        """Drop ``uri`` for ``session`` (updates stop at once; the stream is reopened later)."""
        uris = self._by_session.get(session)
        if uris is not None:
            uris.discard(uri)
            if not uris:
                del self._by_session[session]

    async def _reopen(self) -> None:
        """Open a stream with the current filter; once acknowledged, close the previous one."""
        async with self._lock:
            wanted: dict[str, Any] = dict(self._changes)
            if self.uris:
                wanted["resourceSubscriptions"] = self.uris
            if not wanted:
                return
            acked = asyncio.Event()

            async def deliver(method: str, params: Any) -> None:
                if method == ACKNOWLEDGED:
                    acked.set()
                    return
                await self._deliver(method, params)

            task = asyncio.create_task(self._requests.listen(wanted, deliver))
            waiting = asyncio.create_task(acked.wait())
            await asyncio.wait((task, waiting), timeout=ACK_TIMEOUT_S)
            waiting.cancel()
            if not acked.is_set():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
                raise MCPError(-32603, "the upstream server did not open a listen stream")
            previous, self._task = self._task, task
            if previous is not None:
                previous.cancel()
                await asyncio.gather(previous, return_exceptions=True)

    async def close(self) -> None:
        """Close the stream."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class TaskListens:
    """Downstream listen streams with ``taskIds``, each with its upstream stream for them."""

    def __init__(self, requests: StatelessRequests) -> None:
        self._requests = requests

    def wrap(self, listeners: Listeners) -> None:
        """Make ``listeners.listen`` open an upstream stream for the task ids it names."""
        inner = listeners.listen

        async def listen(
            subscription_id: Any, wanted: Filter, supported: Any, send: Send
        ) -> dict[str, Any]:
            if not wanted.task_order:
                return await inner(subscription_id, wanted, supported, send)
            acked: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()

            async def deliver(method: str, params: Any) -> None:
                if method == ACKNOWLEDGED and not acked.done():
                    agreed = as_object(params.get("notifications")) or {}
                    honoured: object = agreed.get("taskIds")
                    listed = cast("list[object]", honoured) if isinstance(honoured, list) else []
                    acked.set_result([i for i in listed if isinstance(i, str)])
                elif method == TASK_STATUS and isinstance(params.get("taskId"), str):
                    await listeners.notify_task(params["taskId"], params)

            ids = list(wanted.task_order)
            upstream = asyncio.ensure_future(self._requests.listen({"taskIds": ids}, deliver))
            try:
                first = asyncio.FIRST_COMPLETED
                await asyncio.wait((upstream, acked), timeout=ACK_TIMEOUT_S, return_when=first)
                if not acked.done():  # refused upstream (its error, named), or silence
                    failed = upstream.done() and not upstream.cancelled()
                    failure = upstream.exception() if failed else None
                    if failure is not None:
                        raise failure
                    raise MCPError(-32603, "the upstream server did not open a listen stream")
                wanted = wanted.only_tasks(acked.result())
                return await inner(subscription_id, wanted, supported, send)
            finally:
                upstream.cancel()
                await asyncio.gather(upstream, return_exceptions=True)

        listeners.listen = listen  # type: ignore[method-assign]


class UpstreamSubscriptions:
    """A handshake upstream subscribed to the URIs of the downstream listen streams open."""

    def __init__(self, subscribe: OnUri, unsubscribe: OnUri) -> None:
        self._subscribe = subscribe
        self._unsubscribe = unsubscribe
        self._count: dict[str, int] = {}

    def wrap(self, listeners: Listeners) -> None:
        """Make ``listeners.listen`` subscribe upstream to its URIs for as long as it runs."""
        inner = listeners.listen

        async def listen(
            subscription_id: Any, wanted: Filter, supported: Any, send: Send
        ) -> dict[str, Any]:
            supported = list(supported)
            added: list[str] = []
            try:
                for uri in sorted(wanted.honoured(supported).uris):
                    await self.add(uri)
                    added.append(uri)
                return await inner(subscription_id, wanted, supported, send)
            finally:
                for uri in added:
                    await self.drop(uri)

        listeners.listen = listen  # type: ignore[method-assign]

    async def add(self, uri: str) -> None:
        """Count one more stream on ``uri``; the first subscribes upstream."""
        if not self._count.get(uri):
            await self._subscribe(uri)
        self._count[uri] = self._count.get(uri, 0) + 1

    async def drop(self, uri: str) -> None:
        """Count one stream less on ``uri``; the last unsubscribes upstream (if it is there)."""
        left = self._count.get(uri, 0) - 1
        if left > 0:
            self._count[uri] = left
            return
        self._count.pop(uri, None)
        with contextlib.suppress(Exception):  # the upstream may be gone already
            await self._unsubscribe(uri)


def subscribe_upstream(counted: UpstreamSubscriptions, stateless: list[ServerBase]) -> None:
    """Subscribe a handshake upstream to the URIs the ``stateless`` servers' streams want."""
    from .stateless import StatelessServer

    for server in stateless:
        counted.wrap(StatelessServer.of(server).listeners)


def counted_upstream(upstream: ClientBase[Any]) -> UpstreamSubscriptions | None:
    """A handshake upstream's ``resources/subscribe``, counted across downstream clients."""
    subscribe = upstream.METHODS.get("resources/subscribe")
    unsubscribe = upstream.METHODS.get("resources/unsubscribe")
    if subscribe is None or unsubscribe is None:
        return None

    async def on(uri: str) -> None:
        await upstream.request(subscribe, {"uri": uri})

    async def off(uri: str) -> None:
        await upstream.request(unsubscribe, {"uri": uri})

    return UpstreamSubscriptions(on, off)


class SessionSubscriptions:
    """Handshake sessions' resource subscriptions, each its own, on one upstream count."""

    def __init__(self, counted: UpstreamSubscriptions) -> None:
        self._counted = counted
        self._by_session: dict[int, tuple[Any, set[str]]] = {}
        """A session's key -> its connection (to see it closed) and the URIs it subscribed."""
        self._pruning: asyncio.Task[None] | None = None

    def subscribers(self, uri: str) -> list[int]:
        """The open sessions (by key) subscribed to ``uri``; closed ones are pruned meanwhile.

        Called from the upstream's reader (its notification), which must not wait for an
        upstream answer: the unsubscribing of closed sessions runs in its own task.
        """
        found = [key for key, (_, uris) in self._by_session.items() if uri in uris]
        if any(self._by_session[key][0].peer.closed for key in found) and self._pruning is None:
            self._pruning = asyncio.create_task(self.prune())
            self._pruning.add_done_callback(self._pruned)
        return [key for key in found if not self._by_session[key][0].peer.closed]

    def _pruned(self, task: asyncio.Task[None]) -> None:
        """The pruning task ended (an upstream gone meanwhile is no error here)."""
        self._pruning = None
        if not task.cancelled():
            task.exception()

    async def subscribe(self, key: int, connection: Any, uri: str) -> None:
        """Subscribe the session ``key`` to ``uri`` (upstream too if it is the first)."""
        await self.prune()
        _, uris = self._by_session.get(key, (connection, set[str]()))
        if uri in uris:
            return
        if len(uris) >= MAX_URIS:
            raise MCPError(-32602, f"a session subscribes to at most {MAX_URIS} resources")
        await self._counted.add(uri)  # an upstream refusal reaches the client; nothing counted
        uris.add(uri)
        self._by_session[key] = (connection, uris)

    async def unsubscribe(self, key: int, uri: str) -> None:
        """Unsubscribe the session ``key`` from ``uri`` (upstream too if it was the last)."""
        _, uris = self._by_session.get(key, (None, set[str]()))
        if uri in uris:
            uris.discard(uri)
            if not uris:
                del self._by_session[key]
            await self._counted.drop(uri)
        await self.prune()

    async def prune(self) -> None:
        """Forget the sessions that have closed, unsubscribing upstream what was theirs alone."""
        gone = [key for key, (conn, _) in self._by_session.items() if conn.peer.closed]
        for key in gone:
            _, uris = self._by_session.pop(key)
            for uri in sorted(uris):
                await self._counted.drop(uri)

    async def close(self) -> None:
        """Stop a pruning under way (the upstream is being closed)."""
        if self._pruning is not None:
            self._pruning.cancel()
            await asyncio.gather(self._pruning, return_exceptions=True)
