"""The session cap under uvicorn: a full app makes room for new clients, never at the expense
of clients at work (issue #9 defect 10; issue 16 item 8).

The sessions' clock is a fake one the tests move (``Clock``), so the default thresholds
(5 s for a session unused after its ``initialize``, 60 s of idleness for the others) are
tested as they ship, without waiting for them.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from generated._runtime.transports.http import session as http_session
from generated._runtime.transports.http.server import HttpOptions
from generated._runtime.transports.http.session import HttpSession
from tests.support.http_support import (
    ACCEPT_BOTH,
    JSON_CT,
    Live,
    Raw,
    bounded,
    call,
    initialize,
    live_app,
)

HEADERS = {**ACCEPT_BOTH, **JSON_CT}


class Clock:
    """A monotonic clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        """The time now."""
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock the HTTP sessions read, replaced by a ``Clock``."""
    fake = Clock()
    monkeypatch.setattr(http_session, "time", fake)
    return fake


async def new_session(live: Live) -> httpx.Response:
    """POST an initialize without a session id (and nothing after it)."""
    return await live.client.post("/mcp", content=json.dumps(initialize()), headers=HEADERS)


async def admitted(live: Live) -> str:
    """The id of a new session made by a bare initialize (it must be admitted)."""
    response = await new_session(live)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


async def serves(raw: Raw, id_: int) -> int:
    """The status of a tool call on the raw client's session."""
    return (await raw.post(call(id_, "count", {"n": 1}))).status_code


async def attached(session: HttpSession) -> None:
    """Wait until the server reads the session's GET stream."""
    for _ in range(150):
        if session.standalone.attached:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the GET stream was never attached")


@bounded
async def test_session_cap_refuses_with_503_then_admits_after_delete(clock: Clock) -> None:
    """Defect 10: sessions were unbounded; over ``max_sessions`` a new one gets 503."""
    async with live_app(HttpOptions(max_sessions=3)) as live:
        ids = [await admitted(live) for _ in range(3)]
        refused = await new_session(live)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"  # when the oldest bare one may make room
        assert "3 sessions" in refused.json()["error"]["message"]
        await live.client.delete("/mcp", headers={"mcp-session-id": ids[0]})
        await admitted(live)
        assert len(live.app.sessions) == 3


@bounded
async def test_bare_initializes_lock_new_clients_out_only_for_their_grace(clock: Clock) -> None:
    """Item 8: a burst of bare initializes filled the cap; new clients got 503 for a minute.

    Now a session that made no request after its initialize may make room after 5 s, the
    oldest first, so a flood holds the door for 5 s at most.
    """
    async with live_app(HttpOptions(max_sessions=10)) as live:
        flood = []
        for _ in range(10):
            flood.append(await admitted(live))
            clock.now += 0.25
        refused = await new_session(live)  # the oldest is 2.5 s old: it may make room in 2.5 s
        assert refused.status_code == 503 and refused.headers["retry-after"] == "3"
        clock.now += 2.5  # the oldest is 5 s old, the next 4.75 s
        newcomers = [await admitted(live)]
        assert set(live.app.sessions) == {*flood[1:], *newcomers}
        assert (await new_session(live)).headers["retry-after"] == "1"
        clock.now += 2.25  # the youngest of the flood is 5 s old
        newcomers += [await admitted(live) for _ in range(9)]
        assert set(live.app.sessions) == set(newcomers)


@bounded
async def test_active_sessions_are_never_evicted_for_idle_ones(clock: Clock) -> None:
    """At the cap: unproven sessions go first, then proven ones idle 60 s; a session used
    within 60 s or with its GET stream open stays, however long a flood lasts."""
    async with live_app(HttpOptions(max_sessions=4)) as live:
        worker, listener, idler = Raw(live.client), Raw(live.client), Raw(live.client)
        for raw in (worker, listener, idler):
            await raw.start()
        bare = await admitted(live)
        async with listener.stream("GET"):
            await attached(live.app.sessions[listener.session_id or ""])
            clock.now += 60.0
            assert await serves(worker, 1) == 200  # worker: used just now
            first = await admitted(live)
            assert bare not in live.app.sessions  # the unproven one went first
            clock.now += 0.25
            second = await admitted(live)
            assert idler.session_id not in live.app.sessions  # then the one idle 60 s
            assert await serves(idler, 2) == 404
            refused = await new_session(live)  # worker used, listener listening, two young
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            clock.now += 60.0  # the worker is idle now; the listener still listens
            assert {await admitted(live) for _ in range(3)}.isdisjoint({first, second})
            assert worker.session_id not in live.app.sessions
            assert (await new_session(live)).status_code == 503
            assert listener.session_id in live.app.sessions
            assert await serves(listener, 3) == 200
