"""Our Streamable HTTP server under uvicorn, driven byte by byte with httpx.

Sessions (ids, 400/404, DELETE), the GET stream (409 on a second one), which stream each
server message travels on, JSON mode, and the MCP-Protocol-Version header. Security,
stateless mode and the HTTP+SSE transport are in ``test_http_security.py``; batches and
resumability in ``test_http_resume.py``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest_asyncio

from generated._runtime.transports.http.server import HttpOptions
from generated.v2025_06_18.methods import (
    NOTIFICATIONS_RESOURCES_LIST_CHANGED,
    NOTIFICATIONS_TOOLS_LIST_CHANGED,
)
from tests.support.http_support import (
    SSE,
    V0618,
    Live,
    OldServer,
    bounded,
    call,
    initialize,
    kinds,
    live_app,
    messages,
    notification,
    parse_events,
    request,
)
from tests.support.runtime_support import wait_until


@pytest_asyncio.fixture
async def live() -> AsyncIterator[Live]:
    """The test server under uvicorn (SSE mode) with a raw client."""
    async with live_app() as running:
        yield running


def visible_ascii(value: str) -> bool:
    """Whether every character is visible ASCII (0x21-0x7E), as session ids must be."""
    return all(0x21 <= ord(ch) <= 0x7E for ch in value)


@bounded
async def test_initialize_sse_mode(live: Live) -> None:
    """POST initialize: 200, an SSE stream holding the result, and an unguessable session id."""
    response = await live.raw.post(initialize(0))
    assert response.status_code == 200
    assert response.headers["content-type"] == SSE
    session_id = response.headers["mcp-session-id"]
    assert visible_ascii(session_id) and len(session_id) >= 32
    events = parse_events(response.content)
    assert [e.event for e in events] == ["message"] and events[0].id
    result = events[0].data["result"]
    assert events[0].data["id"] == 0
    assert result["protocolVersion"] == V0618
    assert result["serverInfo"] == {"name": "http-test", "version": "1"}
    assert "tools" in result["capabilities"]
    again = await live.raw.post(initialize(0))
    assert again.headers["mcp-session-id"] not in ("", session_id)
    assert set(live.app.sessions) == {session_id, again.headers["mcp-session-id"]}


@bounded
async def test_posted_notification_gets_202_without_body(live: Live) -> None:
    """A notification POSTed in a session is answered 202 Accepted with an empty body."""
    await live.raw.start()
    response = await live.raw.post(notification("notifications/roots/list_changed"))
    assert response.status_code == 202
    assert response.content == b""
    assert "content-type" not in response.headers


@bounded
async def test_session_id_required_then_checked(live: Live) -> None:
    """No session id -> 400; an unknown one -> 404; initialize must not carry one -> 400."""
    await live.raw.start()
    good = live.raw.session_id
    live.raw.session_id = None
    missing = await live.raw.post(request(1, "tools/list"))
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == -32600 and missing.json()["id"] is None
    live.raw.session_id = "no-such-session"
    for status in [
        (await live.raw.post(request(1, "tools/list"))).status_code,
        (await live.client.get("/mcp", headers=live.raw.headers(accept=SSE))).status_code,
        (await live.client.delete("/mcp", headers=live.raw.headers())).status_code,
    ]:
        assert status == 404
    live.raw.session_id = good
    refused = await live.raw.post(initialize(0))
    assert refused.status_code == 400
    assert set(live.app.sessions) == {good}


@bounded
async def test_delete_ends_the_session(live: Live) -> None:
    """DELETE ends a session: later POST, GET and DELETE with its id get 404."""
    await live.raw.start()
    assert (await live.raw.post(request(1, "ping"))).status_code == 200
    deleted = await live.client.delete("/mcp", headers=live.raw.headers())
    assert deleted.status_code == 200
    assert live.raw.session_id not in live.app.sessions
    assert (await live.raw.post(request(2, "ping"))).status_code == 404
    get = await live.client.get("/mcp", headers=live.raw.headers(accept=SSE))
    assert get.status_code == 404
    assert (await live.client.delete("/mcp", headers=live.raw.headers())).status_code == 404


@bounded
async def test_second_get_stream_conflicts(live: Live) -> None:
    """GET opens the session's SSE stream; a second concurrent GET gets 409; after, it reopens."""
    await live.raw.start()
    async with live.raw.stream("GET") as first:
        assert first.response.headers["mcp-session-id"] == live.raw.session_id
        second = await live.client.get("/mcp", headers=live.raw.headers(accept=SSE))
        assert second.status_code == 409
    session = live.app.sessions[live.raw.session_id or ""]
    await wait_until(lambda: not session.standalone.attached)  # the server notices the disconnect
    async with live.raw.stream("GET") as reopened:
        await live.connection().notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
        assert (await reopened.next()).data["method"] == "notifications/tools/list_changed"


@bounded
async def test_unsolicited_message_goes_to_get_stream_only(live: Live) -> None:
    """A message tied to no request goes to the GET stream, not to an open POST stream."""
    await live.raw.start()
    async with (
        live.raw.stream("GET") as get,
        live.raw.stream("POST", call(1, "slow", {}, 7)) as post,
    ):
        assert (await post.next()).data["params"]["progress"] == 1  # the handler is running
        await live.connection().notify(NOTIFICATIONS_RESOURCES_LIST_CHANGED, None)
        event = await get.next()
        assert event.data == {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}
        live.server.gate("a").set()
        live.server.gate("b").set()
        rest = messages(await post.rest())
        expected = ["notifications/progress", "notifications/message", "notifications/progress"]
        assert kinds(rest) == [*expected, "response:1"]
        await get.quiet()


@bounded
async def test_notifications_sent_from_a_handler_unrelated_to_it_go_to_get_stream(
    live: Live,
) -> None:
    """resources/updated and tools/list_changed sent by an edit tool travel on the GET stream.

    They are not about the tools/call request, so they must not ride on its POST stream
    (2025-06-18 transports: the POST stream carries messages relating to its request).
    """
    await live.raw.start()
    async with live.raw.stream("GET") as get:
        subscribed = await live.raw.post(request(1, "resources/subscribe", {"uri": "test://note"}))
        assert subscribed.status_code == 200
        edited = await live.raw.post(call(2, "edit", {}))
        on_post = messages(parse_events(edited.content))
        assert kinds(on_post) == ["response:2"], on_post
        seen = [(await get.next()).data["method"], (await get.next()).data["method"]]
        assert seen == ["notifications/resources/updated", "notifications/tools/list_changed"]


@bounded
async def test_handler_progress_and_logs_use_its_post_stream(live: Live) -> None:
    """A handler's progress and logs arrive on its request's POST stream, before the response."""
    await live.raw.start()
    async with live.raw.stream("GET") as get:
        response = await live.raw.post(call(5, "count", {"n": 3}, token="tok"))
        events = parse_events(response.content)
        frames = messages(events)
        step = ["notifications/progress", "notifications/message"]
        assert kinds(frames) == [*step, *step, *step, "response:5"]
        progress = [f["params"] for f in frames if f.get("method") == "notifications/progress"]
        assert progress == [
            {"progressToken": "tok", "progress": i, "total": 3, "message": str(i)}
            for i in (1, 2, 3)
        ]
        logs = [f["params"]["data"] for f in frames if f.get("method") == "notifications/message"]
        assert logs == ["log1", "log2", "log3"]
        assert frames[-1]["result"]["content"][0]["text"] == "counted 3"
        assert len({e.id for e in events}) == len(events)
        # Nothing of the handler's reached the GET stream: the marker is its first event.
        await live.connection().notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
        assert (await get.next()).data["method"] == "notifications/tools/list_changed"


@bounded
async def test_sampling_request_rides_on_the_post_stream(live: Live) -> None:
    """The handler's sampling request arrives on its POST stream; the POSTed answer gets 202."""
    await live.raw.start()
    async with live.raw.stream("GET") as get:
        async with live.raw.stream("POST", call(3, "sample", {})) as post:
            asked = (await post.next()).data
            assert asked["method"] == "sampling/createMessage"
            assert asked["params"]["maxTokens"] == 5
            answer = {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"}
            posted = await live.raw.post({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
            assert (posted.status_code, posted.content) == (202, b"")
            final = messages(await post.rest())
        assert final == [
            {
                "jsonrpc": "2.0",
                "id": 3,
                "result": {"content": [{"type": "text", "text": "model said 4"}]},
            }
        ]
        await live.connection().notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
        assert (await get.next()).data["method"] == "notifications/tools/list_changed"


@bounded
async def test_protocol_version_header() -> None:
    """MCP-Protocol-Version: absent or negotiated -> served; unsupported or other -> 400."""
    async with live_app(servers=[OldServer()]) as live:
        await live.raw.start()
        assert (await live.raw.post(request(1, "ping"))).status_code == 200
        ok = await live.raw.post(request(2, "ping"), mcp_protocol_version=V0618)
        assert ok.status_code == 200
        for version in ["1999-01-01", "2025-03-26", "garbage"]:
            bad = await live.raw.post(request(3, "ping"), mcp_protocol_version=version)
            assert bad.status_code == 400, version
            assert bad.json()["error"]["code"] == -32600
            headers = live.raw.headers(accept=SSE, mcp_protocol_version=version)
            assert (await live.client.get("/mcp", headers=headers)).status_code == 400


COUNTED = {
    "jsonrpc": "2.0",
    "id": 4,
    "result": {"content": [{"type": "text", "text": "counted 2"}]},
}


@bounded
async def test_json_mode() -> None:
    """JSON mode: one JSON body per POST; a handler's logs go to the GET stream."""
    async with live_app(HttpOptions(json_response=True)) as live:
        response = await live.raw.post(initialize(0), accept="application/json")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert response.json()["result"]["protocolVersion"] == V0618
        live.raw.session_id = response.headers["mcp-session-id"]
        assert visible_ascii(live.raw.session_id)
        assert (await live.raw.post(notification("notifications/initialized"))).status_code == 202
        async with live.raw.stream("GET") as get:
            answer = await live.raw.post(call(4, "count", {"n": 2}))
            assert answer.headers["content-type"] == "application/json"
            assert json.loads(answer.content) == COUNTED
            seen = [(await get.next()).data for _ in range(2)]
            assert kinds(seen) == ["notifications/message"] * 2


@bounded
async def test_json_mode_request_asking_progress_gets_sse() -> None:
    """JSON mode: a request with a progress token is answered on its own SSE stream, its
    progress and logs before its answer (none of them on the GET stream)."""
    async with live_app(HttpOptions(json_response=True)) as live:
        await live.raw.start()
        async with live.raw.stream("GET") as get:
            answer = await live.raw.post(call(4, "count", {"n": 2}, token=1))
            assert answer.headers["content-type"] == SSE
            seen = messages(parse_events(answer.content))
            assert kinds(seen) == ["notifications/progress", "notifications/message"] * 2 + [
                "response:4"
            ]
            assert [s["params"]["progress"] for s in seen[:4:2]] == [1, 2]
            assert seen[-1] == COUNTED
            await get.quiet()


@bounded
async def test_json_mode_progress_without_sse_accept_goes_to_get() -> None:
    """JSON mode: a client that accepts only JSON gets a JSON body; progress uses GET."""
    async with live_app(HttpOptions(json_response=True)) as live:
        await live.raw.start()
        async with live.raw.stream("GET") as get:
            answer = await live.raw.post(
                call(4, "count", {"n": 2}, token=1), accept="application/json"
            )
            assert answer.headers["content-type"] == "application/json"
            assert json.loads(answer.content) == COUNTED
            seen = [(await get.next()).data for _ in range(4)]
            assert kinds(seen) == ["notifications/progress", "notifications/message"] * 2
