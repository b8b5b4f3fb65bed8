"""Issue #9, defects 4-7 on the ASGI app under uvicorn: statuses, sessions, bounds."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from generated._runtime.transports.http.server import HttpOptions
from generated._runtime.transports.http.session import MemoryEventStore
from tests.support.harden_server import Server1125
from tests.support.harden_support import unread_post
from tests.support.http_support import (
    ACCEPT_BOTH,
    JSON_CT,
    STEP_S,
    Live,
    bounded,
    call,
    live_app,
    notification,
)

DEEP = b"[" * 1000 + b"]" * 1000
HEADERS = {**ACCEPT_BOTH, **JSON_CT}
BAD_UTF8 = b'{"jsonrpc":"2.0","id":1,"method":"pi\xffng"}'
BAD_BODIES = [
    (BAD_UTF8, -32700),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"\xc3\x28"}}', -32700),
    (DEEP, -32600),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + DEEP + b"}", -32600),
    (b"3,l", -32700),
]
# Not valid messages, and no request id to answer on a stream: each used to get 202.
NOT_MESSAGES: list[tuple[Any, Any]] = [
    ({"jsonrpc": "2.0", "id": 5}, 5),
    ({"jsonrpc": "1.0", "method": "notifications/initialized"}, None),
    ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "result": {}}, None),
    ({"jsonrpc": "2.0", "id": 3, "result": {}, "error": {"code": 1, "message": "x"}}, 3),
    ([notification("notifications/initialized")], None),  # no batches in 2025-06-18
    ([], None),
]


def rpc_error(response: Any, code: int, id_: Any = None) -> None:
    """``response`` is a 400 whose body is a JSON-RPC error with ``code``."""
    assert response.status_code == 400, (response.status_code, response.text)
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == id_, body
    assert body["error"]["code"] == code, body


async def still_serves(live: Live, id_: int) -> None:
    """A later request on the same session is answered (nothing hangs)."""
    response = await live.raw.post(call(id_, "count", {"n": 1}))
    assert response.status_code == 200
    assert f'"id":{id_}' in response.text.replace(" ", "") and "counted 1" in response.text


@bounded
@pytest.mark.parametrize(("body", "code"), BAD_BODIES)
async def test_bad_body_without_session_gets_400_not_500(body: bytes, code: int) -> None:
    """Defect 4: these bodies crashed the probe decode: uvicorn answered 500."""
    async with live_app() as live:
        rpc_error(await live.raw.post(body), code)


@bounded
async def test_bad_bodies_never_end_the_session() -> None:
    """Defect 5: one bad body killed the session's reader; later POSTs hung on 200."""
    async with live_app() as live:
        await live.raw.start()
        for n, (body, code) in enumerate(BAD_BODIES):
            rpc_error(await live.raw.post(body), code)
            await still_serves(live, 100 + n)
        assert not live.app.sessions[live.raw.session_id or ""].connection.peer.closed


@bounded
async def test_a_session_whose_connection_stopped_answers_404_not_a_hang() -> None:
    """Defect 5, the other half: a session whose connection stopped is ended, not waited on."""
    async with live_app() as live:
        await live.raw.start()
        session = live.app.sessions[live.raw.session_id or ""]
        await session.connection.peer.close()
        response = await live.raw.post(call(1, "count", {"n": 1}))
        assert response.status_code == 404
        assert live.raw.session_id not in live.app.sessions


@bounded
@pytest.mark.parametrize(("body", "id_"), NOT_MESSAGES)
async def test_invalid_message_without_request_id_gets_400_and_nothing_on_get(
    body: Any, id_: Any
) -> None:
    """Defect 6: such bodies got 202, and their error response went out on the GET stream."""
    async with live_app() as live:
        await live.raw.start()
        async with live.raw.stream("GET") as get:
            rpc_error(await live.raw.post(body), -32600, id_)
            await get.quiet(0.3)
        await still_serves(live, 7)


@bounded
async def test_valid_notifications_and_responses_still_get_202() -> None:
    """The intake refuses only what is invalid: a notification and a client's error report pass."""
    async with live_app() as live:
        await live.raw.start()
        note = notification("notifications/roots/list_changed")
        assert (await live.raw.post(note)).status_code == 202
        report = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "bad"}}
        assert (await live.raw.post(report)).status_code == 202


async def test_event_store_is_bounded_in_bytes() -> None:
    """Defect 7: 30 events of 3.9 MB were all kept; now at most the byte bound (newest kept)."""
    store = MemoryEventStore(max_session_bytes=4_000_000, max_total_bytes=10_000_000)
    big = b"x" * 3_900_000
    ids = [await store.store("s", "post-1", big) for _ in range(30)]
    assert store.total_bytes == len(big)
    small = await store.store("s", "post-1", b"{}")
    assert await store.replay("s", ids[-1]) == ("post-1", [(small, b"{}")])
    assert await store.replay("s", ids[-2]) is None  # dropped: resuming it is refused (404)
    for session in "abc":
        await store.store(session, "get", big)
    assert store.total_bytes <= 10_000_000
    await store.forget("s")
    await store.forget("a")
    assert store.total_bytes == 2 * len(big)  # b and c


@bounded
async def test_unread_stream_slows_then_cuts_its_producer() -> None:
    """Defect 7: an unread SSE stream held everything; now it holds ``max_stream_bytes`` at most.

    The handler sends ~60 MB of progress to a client that reads nothing: it is held back
    (backpressure), then its stream is cut after ``stream_stall_timeout``, and the handler
    finishes instead of growing the process.
    """
    options = HttpOptions(max_stream_bytes=1 << 20, stream_stall_timeout=1.0)
    async with live_app(options) as live:
        await live.raw.start()
        session = live.app.sessions[live.raw.session_id or ""]
        tag = "x" * 30_000
        body = json.dumps(call(9, "count", {"n": 1000, "tag": tag}, token="t")).encode()
        writer = await unread_post(live.url, live.raw.session_id or "", body)
        peak, stream = 0, None
        for _ in range(int(STEP_S * 2 / 0.01)):
            stream = stream or next((s for s in session.streams.values() if s.id != "get"), None)
            if stream is not None:
                peak = max(peak, stream.queued_bytes)
                if stream.cut_reason:
                    break
            await asyncio.sleep(0.01)
        cut = stream
        assert cut is not None and cut.cut_reason, "the stalled stream was never cut"
        assert "reads too slowly" in cut.cut_reason
        assert peak <= (1 << 20) + 70_000  # the bound, plus at most one event over it
        assert cut.queued_bytes == 0  # what it queued was dropped with it
        writer.close()
        await still_serves(live, 10)


@bounded
async def test_post_stream_of_2025_11_25_starts_with_a_priming_event_before_its_events() -> None:
    """Defect 8, server side: a stream cut before its first message can still be resumed.

    The priming event (an id, no data) comes first and its id is older than every event of the
    stream, so resuming from it replays them all.
    """
    async with live_app(servers=[Server1125()]) as live:
        await live.raw.start("2025-11-25")
        body = call(3, "blast", {"n": 3, "size": 5}, token="p")
        response = await live.raw.post(body, mcp_protocol_version="2025-11-25")
        retry, *lines = response.text.split("\n")
        assert retry == "retry: 1000", retry  # the default reconnection delay
        assert lines[0].startswith("id: ") and lines[1] == "data:", lines[:3]
        prime = int(lines[0][4:])
        ids = [int(line[4:]) for line in lines[2:] if line.startswith("id: ")]
        assert len(ids) == 4 and all(prime < n for n in ids)
        get = {"accept": "text/event-stream", "last-event-id": str(prime)}
        get["mcp-session-id"] = live.raw.session_id or ""
        replay = await live.client.get("/mcp", headers=get)
        assert replay.text.count("data: {") == 4 and '"id":3' in replay.text.replace(" ", "")


@bounded
async def test_a_raised_max_depth_reaches_the_session() -> None:
    """``HttpOptions(max_depth=200)``: a 150-deep ping is answered, a 250-deep one refused.

    The app's guard and the session's parse read the same bound (the session used to keep
    the default 128 and refuse what the app had let through).
    """

    def ping(id_: int, depth: int) -> bytes:
        deep = b"[" * depth + b"]" * depth
        return b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"x":%s}}}' % (
            id_,
            deep,
        )

    async with live_app(HttpOptions(max_depth=200)) as live:
        await live.raw.start()
        answered = await live.raw.post(ping(7, 150))
        assert answered.status_code == 200, answered.text
        assert '"id":7' in answered.text.replace(" ", "") and '"result":{}' in answered.text
        refused = await live.raw.post(ping(8, 250))
        rpc_error(refused, -32600)
        assert "nesting deeper than 200" in refused.json()["error"]["message"]
