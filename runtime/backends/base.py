"""The seams of an HTTP server's shared state, and the in-memory default behind them.

One worker process needs nothing shared: the ``MemoryBackend`` keeps its sessions in memory and
never forwards. Several workers behind a load balancer share a backend (``RedisBackend``):

- the session directory says which worker owns a session (claimed at ``initialize``, released
  when it ends, touched while it lives) and whether that worker is alive;
- owner routing: a worker that receives a request for a session it does not own forwards it,
  as an ASGI request, to the owner and relays the answer (an SSE stream included).

``HttpOptions(backend=...)`` wires one; the ASGI lifespan starts and stops it.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import Any, Protocol

from ..core.errors import Unavailable
from ..roles.subscriptions import Bus
from ..roles.tasks import TaskSupport
from ..roles.taskstore import TaskStore
from ..transports.http.asgi import ASGIApp, Receive, Scope, Send

Handler = ASGIApp
"""An ASGI callable: how an owner serves the requests forwarded to it."""
LeaseLost = Callable[[], Awaitable[None]]
"""Called when this worker lost its liveness lease: every session it held is gone."""
FORWARDED: str = "mcpgen.forwarded"
"""The ASGI scope key marking a request forwarded by another worker (never forwarded again)."""


class BackendUnavailable(Unavailable):
    """The shared backend cannot be reached (the HTTP app answers 503 at once)."""


class SessionDirectory(Protocol):
    """Which worker owns each session, and whether a worker is alive."""

    @property
    def worker(self) -> str:
        """This worker's id."""
        ...

    async def claim(self, session: str) -> None:
        """Record this worker as the owner of a new session."""
        ...

    async def owner(self, session: str) -> str | None:
        """The worker owning ``session``, or None when no live session has that id."""
        ...

    async def touch(self, sessions: Collection[str]) -> None:
        """Keep this worker's live sessions from expiring in the directory."""
        ...

    async def release(self, session: str) -> None:
        """Forget a session (it ended, or its owner is gone); ``BackendUnavailable`` when
        the backend cannot be reached."""
        ...

    async def alive(self, worker: str) -> bool:
        """Whether ``worker`` holds its liveness lease and listens for forwarded requests."""
        ...

    def lease_held(self) -> bool:
        """Whether this worker's own lease is current (no I/O; False after a long stall)."""
        ...


class OwnerRouter(Protocol):
    """Carries a request to the worker owning its session and its answer back."""

    async def forward(
        self, owner: str, scope: Scope, body: bytes, receive: Receive, send: Send
    ) -> bool:
        """Serve the request at ``owner`` and relay its answer to ``send``.

        False when the owner is gone before answering (nothing was sent); once an answer has
        begun, an owner that goes away ends it.
        """
        ...


class Backend(Protocol):
    """The shared state of the workers of one deployment."""

    @property
    def shared(self) -> bool:
        """Whether other processes share it (then the sealing key must be shared too)."""
        ...

    @property
    def directory(self) -> SessionDirectory:
        """The session directory."""
        ...

    @property
    def router(self) -> OwnerRouter:
        """Owner routing."""
        ...

    @property
    def bus(self) -> Bus | None:
        """The ``subscriptions/listen`` bus shared by the workers (None: this process's own)."""
        ...

    @property
    def task_store(self) -> TaskStore | None:
        """The task store shared by the workers (None: each server keeps its own)."""
        ...

    async def start(self, serve: Handler, lease_lost: LeaseLost) -> None:
        """Connect and serve forwarded requests with ``serve`` (from the ASGI lifespan)."""
        ...

    async def stop(self) -> None:
        """Stop serving forwarded requests, give up the lease and disconnect."""
        ...

    async def hold_lease(self) -> None:
        """Make sure this worker holds its lease; one that lapsed first ends every session the
        worker held (``lease_lost``), since other workers may have answered 404 for them."""
        ...


def share_task_store(servers: Iterable[Any], store: TaskStore | None) -> None:
    """Give every server that supports tasks ``store`` (one shared by the workers) instead of
    its own; its other task settings stay. Nothing changes when ``store`` is None."""
    if store is None:
        return
    for server in servers:
        support = getattr(server, "task_support", None)
        if isinstance(support, TaskSupport):
            server.task_support = dataclasses.replace(support, store=store)


def new_worker_id() -> str:
    """A worker id unique across the processes of a deployment."""
    return uuid.uuid4().hex


class MemoryDirectory:
    """One process: every session is this worker's, and no other worker exists."""

    def __init__(self) -> None:
        self._worker = new_worker_id()
        self._sessions: set[str] = set()

    @property
    def worker(self) -> str:
        """This worker's id."""
        return self._worker

    async def claim(self, session: str) -> None:
        """Remember the session."""
        self._sessions.add(session)

    async def owner(self, session: str) -> str | None:
        """This worker for a session it claimed, else None."""
        return self._worker if session in self._sessions else None

    async def touch(self, sessions: Collection[str]) -> None:
        """Nothing expires here."""

    async def release(self, session: str) -> None:
        """Forget the session."""
        self._sessions.discard(session)

    async def alive(self, worker: str) -> bool:
        """Only this worker is alive."""
        return worker == self._worker

    def lease_held(self) -> bool:
        """Always: there is no lease to lose."""
        return True


class LocalRouter:
    """One process: no other owner to forward to."""

    async def forward(
        self, owner: str, scope: Scope, body: bytes, receive: Receive, send: Send
    ) -> bool:
        """Nothing to forward to: the owner is gone."""
        return False


class MemoryBackend:
    """The default: sessions, events and tasks live in this process's memory."""

    def __init__(self) -> None:
        self._directory = MemoryDirectory()
        self._router = LocalRouter()

    @property
    def shared(self) -> bool:
        """Not shared with other processes."""
        return False

    @property
    def directory(self) -> MemoryDirectory:
        """The in-memory session directory."""
        return self._directory

    @property
    def router(self) -> LocalRouter:
        """The router that never forwards."""
        return self._router

    @property
    def bus(self) -> None:
        """The listeners keep their in-process bus."""
        return None

    @property
    def task_store(self) -> None:
        """Each server keeps its own task store."""
        return None

    async def start(self, serve: Handler, lease_lost: LeaseLost) -> None:
        """Nothing to connect."""

    async def stop(self) -> None:
        """Nothing to disconnect."""

    async def hold_lease(self) -> None:
        """There is no lease to lose."""


class Lease:
    """This worker's view of its own liveness lease: when it was last renewed (monotonic)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._renewed = -float("inf")

    def renewed(self, at: float) -> None:
        """The lease was renewed by a request sent at ``at`` (``time.monotonic()``)."""
        self._renewed = max(self._renewed, at)

    def lost(self, at: float) -> None:
        """A request sent at ``at`` found the lease gone; a renewal sent after it stands."""
        if at >= self._renewed:
            self._renewed = -float("inf")

    def held(self) -> bool:
        """Whether the last renewal is recent enough that no other worker saw it lapse."""
        return time.monotonic() - self._renewed < self.seconds
