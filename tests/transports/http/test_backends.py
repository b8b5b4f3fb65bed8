"""The shared-state seams of the HTTP app, in one process: the in-memory default, and what the
app demands of a backend shared with other workers."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

import pytest

from generated._runtime.backends.base import (
    BackendUnavailable,
    Handler,
    LeaseLost,
    LocalRouter,
    MemoryBackend,
    MemoryDirectory,
    share_task_store,
)
from generated._runtime.core.sealed import STATE_KEY_ENV, STATE_KEYS_ENV
from generated._runtime.roles.subscriptions import (
    RESOURCE_UPDATED,
    RESYNC,
    TOOLS_CHANGED,
    Change,
    Filter,
    Listeners,
)
from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.roles.taskstore import InMemoryTaskStore, TaskStore
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated.v2025_06_18 import Server as Server0618
from generated.v2026_07_28 import Server
from tests.support.http_support import STEP_S, Raw, initialize, raw_client, request, serve


class SharedDirectory:
    """A directory claiming to be shared with other workers (no I/O)."""

    worker = "me"

    async def claim(self, session: str) -> None:
        """Nothing to record."""

    async def owner(self, session: str) -> str | None:
        """No other worker owns anything."""
        return None

    async def touch(self, sessions: Collection[str]) -> None:
        """Nothing expires."""

    async def release(self, session: str) -> None:
        """Nothing to forget."""

    async def alive(self, worker: str) -> bool:
        """Only this worker."""
        return worker == self.worker

    def lease_held(self) -> bool:
        """Always held."""
        return True


class SharedBackend:
    """A backend that says it is shared; records whether it was started."""

    shared = True

    def __init__(self) -> None:
        self.directory = SharedDirectory()
        self.router = LocalRouter()
        self.bus = None
        self.task_store: TaskStore | None = None
        self.started = False

    async def start(self, serve: Handler, lease_lost: LeaseLost) -> None:
        """Note the start."""
        self.started = True

    async def stop(self) -> None:
        """Nothing to stop."""

    async def hold_lease(self) -> None:
        """Always held."""


class TaskServer(Server):
    """A server running tools as tasks in a store of its own."""

    task_support = TaskSupport(store=InMemoryTaskStore(), tools={"job": "optional"})


def test_a_backend_hands_its_task_store_to_servers_that_support_tasks() -> None:
    """The backend's shared task store replaces each task server's own (its other settings
    stay); a server without task support gets none."""
    backend, shared = SharedBackend(), InMemoryTaskStore()
    backend.task_store = shared
    tasks, plain = TaskServer(), Server()
    app = McpHttpApp([tasks], HttpOptions(backend=backend))
    share_task_store([plain], shared)
    assert tasks.task_support is not None and tasks.task_support.store is shared
    assert tasks.task_support.tools == {"job": "optional"}
    assert TaskServer.task_support is not None and TaskServer.task_support.store is not shared
    assert plain.task_support is None
    assert app.stateless is not None and app.stateless.tasks is not None
    assert app.stateless.tasks.support.store is shared


async def test_a_shared_backend_refuses_a_random_state_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers sharing a backend but each sealing MRTR state with a random key would refuse
    each other's rounds: the app refuses to start instead, and starts with a shared key."""
    monkeypatch.delenv(STATE_KEY_ENV, raising=False)
    monkeypatch.delenv(STATE_KEYS_ENV, raising=False)
    backend = SharedBackend()
    app = McpHttpApp([Server()], HttpOptions(backend=backend))
    with pytest.raises(RuntimeError, match="MCPGEN_STATE_KEYS"):
        await app.start()
    assert not backend.started
    monkeypatch.setenv(STATE_KEYS_ENV, "shared-key-" * 3)
    app = McpHttpApp([Server()], HttpOptions(backend=backend))
    await app.start()
    assert backend.started
    await app.stop()


async def test_the_default_backend_needs_no_shared_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """One process alone may seal with a random key."""
    monkeypatch.delenv(STATE_KEY_ENV, raising=False)
    monkeypatch.delenv(STATE_KEYS_ENV, raising=False)
    app = McpHttpApp([Server()], HttpOptions(backend=MemoryBackend()))
    await app.start()
    await app.stop()


async def test_a_resync_re_cues_everything_a_listener_asked_for() -> None:
    """After a bus reconnect (changes may be lost) a listener gets one notification of every
    kind it opted in to, and nothing it did not ask for."""
    listeners = Listeners()
    got: list[tuple[str, Any]] = []
    cued = asyncio.Event()

    async def send(method: str, params: dict[str, Any]) -> None:
        got.append((method, params.get("uri")))
        if len(got) == 3:
            cued.set()

    wanted = Filter.parse({"toolsListChanged": True, "resourceSubscriptions": ["a://1"]})
    supported = ["toolsListChanged", "promptsListChanged", "resourceSubscriptions"]
    task = asyncio.create_task(listeners.listen(1, wanted, supported, send))
    while not got:
        await asyncio.sleep(0)
    await listeners.bus.publish(Change(RESYNC))
    await asyncio.wait_for(cued.wait(), 30)
    task.cancel()
    assert got[1:] == [(TOOLS_CHANGED, None), (RESOURCE_UPDATED, "a://1")]


class HeldClaimDirectory(SharedDirectory):
    """A shared directory whose ``claim`` waits until the test lets it finish."""

    def __init__(self) -> None:
        self.claiming = asyncio.Event()
        self.finish = asyncio.Event()
        self.log: list[str] = []
        """What was recorded in the directory, in order."""

    async def claim(self, session: str) -> None:
        """Wait (Redis slow to answer) until ``finish`` is set, then record the owner."""
        self.claiming.set()
        await self.finish.wait()
        self.log.append(f"claimed {session}")

    async def release(self, session: str) -> None:
        """Forget the session."""
        self.log.append(f"released {session}")


async def test_a_session_ended_while_it_is_claimed_is_refused_not_left_hanging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker ends its sessions (its lease lapsed) while a new one waits for its claim:
    the initialize POST is answered 503 with ``Retry-After`` (the client tries again), the
    claim is undone, and the next initialize gets a session."""
    monkeypatch.setenv(STATE_KEYS_ENV, "shared-key-" * 3)
    backend = SharedBackend()
    directory = backend.directory = HeldClaimDirectory()
    options = HttpOptions(backend=backend)
    async with serve(Server0618(), options) as (app, url), raw_client(url) as client:
        raw = Raw(client)
        posted = asyncio.create_task(raw.post(initialize()))
        await asyncio.wait_for(directory.claiming.wait(), STEP_S)
        (session,) = app.sessions
        await app.end_sessions()  # what the lease recovery does (``lease_lost``)
        directory.finish.set()
        response = await asyncio.wait_for(posted, STEP_S)
        assert response.status_code == 503, response.text
        assert response.headers["retry-after"] == "1"
        assert directory.log[-2:] == [f"claimed {session}", f"released {session}"]
        again = await raw.post(initialize())
        assert again.status_code == 200 and "mcp-session-id" in again.headers


class AwayOnceDirectory(MemoryDirectory):
    """The in-memory directory, whose first ``touch`` finds the shared backend away."""

    def __init__(self) -> None:
        super().__init__()
        self.touches = 0

    async def touch(self, sessions: Collection[str]) -> None:
        """Fail the first time (Redis away), count every call."""
        self.touches += 1
        if self.touches == 1:
            raise BackendUnavailable("the session directory: Redis is unavailable (test)")


class AwayOnceBackend(MemoryBackend):
    """The in-memory backend with an ``AwayOnceDirectory``."""

    def __init__(self) -> None:
        super().__init__()
        self._directory = self.away = AwayOnceDirectory()


async def test_the_idle_sweep_goes_on_after_the_backend_was_away() -> None:
    """The sweep that ends idle sessions and keeps the others in the directory does not stop
    when a renewal finds the backend away (it did, silently, until the next new session): the
    directory is renewed again and an idle session is still ended."""
    backend = AwayOnceBackend()
    options = HttpOptions(session_idle_timeout=0.3, backend=backend)
    async with serve(Server0618(), options) as (app, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start()
        for _ in range(int(STEP_S / 0.05)):  # bounded wait for the sweeps (every 0.15 s)
            if not app.sessions and backend.away.touches >= 2:
                break
            await asyncio.sleep(0.05)
        assert backend.away.touches >= 2
        assert (await raw.post(request(1, "ping"))).status_code == 404
