"""Our HTTP server: Host/Origin checks, limits, bad requests, auth, stateless mode, HTTP+SSE."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Mapping

import httpx

from generated._runtime.transports.http.server import HttpOptions
from generated._runtime.transports.http.session import MemoryEventStore
from tests.support.http_support import (
    ACCEPT_BOTH,
    JSON_CT,
    SSE,
    V0618,
    EventReader,
    Raw,
    TestServer,
    bounded,
    call,
    initialize,
    kinds,
    live_app,
    messages,
    notification,
    parse_events,
    raw_client,
    request,
    serve,
)

METADATA = "http://127.0.0.1/.well-known/oauth-protected-resource"


async def post_init(client: httpx.AsyncClient, **headers: str) -> httpx.Response:
    """POST an initialize request with the usual headers plus ``headers``."""
    body = json.dumps(initialize(0)).encode()
    return await client.post("/mcp", content=body, headers={**ACCEPT_BOTH, **JSON_CT, **headers})


@bounded
async def test_host_and_origin_checks() -> None:
    """A Host not allowed -> 421; an Origin not allowed -> 403; allowed ones are served."""
    async with live_app() as live:
        for host in ["evil.example", "evil.example:80", "127.0.0.2:8000"]:
            response = await post_init(live.client, host=host)
            assert response.status_code == 421, host
        for origin in ["http://evil.example", "https://127.0.0.1.evil.example:443"]:
            response = await post_init(live.client, origin=origin)
            assert response.status_code == 403, origin
        assert "mcp-session-id" not in response.headers
        for headers in [
            {"host": "localhost:9"},
            {"origin": "http://localhost:5173"},
            {"origin": "http://127.0.0.1"},
            {"host": "[::1]:8000", "origin": "https://[::1]:1"},
        ]:
            response = await post_init(live.client, **headers)
            assert response.status_code == 200, headers
    options = HttpOptions(allowed_hosts=("mcp.example",), allowed_origins=("*",))
    async with live_app(options) as live:
        assert (await post_init(live.client)).status_code == 421
        accepted = await post_init(live.client, host="mcp.example:443", origin="http://x.y")
        assert accepted.status_code == 200


@bounded
async def test_host_and_origin_checks_with_remembered_values() -> None:
    """Host and Origin values let through before do not let others through; more allowed
    values than are remembered all pass; a new allow-list refuses what the old one allowed."""
    async with live_app() as live:
        for port in range(80):  # more than the values remembered
            response = await post_init(live.client, host=f"localhost:{port}")
            assert response.status_code == 200, port
            origin = f"http://127.0.0.1:{port}"
            assert (await post_init(live.client, origin=origin)).status_code == 200, port
        assert (await post_init(live.client, host="localhost.evil.example")).status_code == 421
        evil = await post_init(live.client, origin="http://localhost.evil.example:1")
        assert evil.status_code == 403
        assert (await post_init(live.client, host="localhost:3")).status_code == 200
        live.app.options.allowed_hosts = ("mcp.example",)
        live.app.options.allowed_origins = ("mcp.example",)
        assert (await post_init(live.client, host="localhost:3")).status_code == 421
        refused = await post_init(live.client, host="mcp.example", origin="http://127.0.0.1:3")
        assert refused.status_code == 403
        assert (await post_init(live.client, host="mcp.example:8")).status_code == 200


@bounded
async def test_body_limit_and_bad_bodies() -> None:
    """Oversize body -> 413; bad JSON -> 400 parse error (id null); wrong type -> 415."""
    async with live_app(HttpOptions(max_body=1000)) as live:
        await live.raw.start()
        big = call(1, "count", {"pad": "x" * 1000})
        assert (await live.raw.post(big)).status_code == 413
        small = call(2, "count", {"n": 1, "pad": "x" * 800})
        assert (await live.raw.post(small)).status_code == 200
        broken = await live.raw.post(b'{"jsonrpc": "2.0", "id": 3, "method": ')
        assert broken.status_code == 400
        assert broken.headers["content-type"] == "application/json"
        body = broken.json()
        assert (body["jsonrpc"], body["id"], body["error"]["code"]) == ("2.0", None, -32700)
        for nonsense in [b"5", b"[]", b'"ping"']:
            assert (await live.raw.post(nonsense)).status_code == 400, nonsense
        plain = await live.raw.post(request(4, "ping"), content_type="text/plain")
        assert plain.status_code == 415
        put = await live.client.put("/mcp", content=b"{}", headers=live.raw.headers())
        assert put.status_code == 405
        assert (await live.client.get("/elsewhere")).status_code == 404


@bounded
async def test_accept_header() -> None:
    """SSE mode: a POST must accept JSON and SSE, a GET must accept SSE, else 406."""
    async with live_app() as live:
        await live.raw.start()
        for accept in ["application/json", SSE, "text/html"]:
            response = await live.raw.post(request(1, "ping"), accept=accept)
            assert response.status_code == 406, accept
        assert (await live.raw.post(request(1, "ping"), accept="*/*")).status_code == 200
        get = await live.client.get("/mcp", headers=live.raw.headers(accept="application/json"))
        assert get.status_code == 406
    async with live_app(HttpOptions(json_response=True)) as live:
        response = await live.raw.post(initialize(0), accept="application/json")
        assert response.status_code == 200


@bounded
async def test_authenticate_hook() -> None:
    """``authenticate`` returning False -> 401 with a Bearer challenge naming resource_metadata."""
    seen: list[Mapping[str, str]] = []

    async def authenticate(headers: Mapping[str, str]) -> bool:
        seen.append(headers)
        return headers.get("authorization") == "Bearer good"

    options = HttpOptions(authenticate=authenticate, resource_metadata=METADATA)
    async with live_app(options) as live:
        for headers in [{}, {"authorization": "Bearer bad"}]:
            refused = await post_init(live.client, **headers)
            assert refused.status_code == 401
            challenge = refused.headers["www-authenticate"]
            assert challenge.startswith("Bearer ")
            assert f'resource_metadata="{METADATA}"' in challenge
        answered = await post_init(live.client, authorization="Bearer good")
        assert answered.status_code == 200
        assert seen[-1]["authorization"] == "Bearer good"
        get = await live.client.get("/sse", headers={"accept": SSE})
        assert get.status_code == 401


@bounded
async def test_stateless_mode() -> None:
    """Stateless: no session id, requests served without initialize, GET and DELETE -> 405."""
    async with live_app(HttpOptions(stateless=True)) as live:
        listed = await live.raw.post(request(1, "tools/list"))
        assert listed.status_code == 200
        assert "mcp-session-id" not in listed.headers
        tools = messages(parse_events(listed.content))[0]["result"]["tools"]
        assert {t["name"] for t in tools} == {"count", "slow", "sample", "edit"}
        counted = await live.raw.post(call(2, "count", {"n": 2}, token="s"))
        frames = messages(parse_events(counted.content))
        assert kinds(frames)[-1] == "response:2"
        assert [
            f["params"]["progress"] for f in frames if "progressToken" in f.get("params", {})
        ] == [1, 2]
        init = await live.raw.post(initialize(3))
        assert init.status_code == 200 and "mcp-session-id" not in init.headers
        assert messages(parse_events(init.content))[0]["result"]["protocolVersion"] == V0618
        note = await live.raw.post(notification("notifications/initialized"))
        assert (note.status_code, note.content) == (202, b"")
        get = await live.client.get("/mcp", headers=live.raw.headers(accept=SSE))
        assert get.status_code == 405
        assert (await live.client.delete("/mcp", headers=live.raw.headers())).status_code == 405
        assert live.app.sessions == {}
    async with live_app(HttpOptions(stateless=True, json_response=True)) as live:
        answer = await live.raw.post(request(1, "ping"))
        assert answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


@bounded
async def test_no_session_posts_start_from_a_fresh_connection() -> None:
    """No sessions, JSON answers: each POST is served as on a new connection, though the app
    reuses those of POSTs it answered: the same request id is answered again, and a log level
    one POST sets does not reach the next (``count`` logs at info: its logs still come)."""
    async with live_app(HttpOptions(stateless=True, json_response=True)) as live:
        for _ in range(3):
            answer = await live.raw.post(request(1, "ping"))
            assert answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        level = await live.raw.post(request(1, "logging/setLevel", {"level": "error"}))
        assert level.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        counted = await live.raw.post(call(1, "count", {"n": 1}, token="t"))
        frames = messages(parse_events(counted.content))
        assert kinds(frames) == ["notifications/progress", "notifications/message", "response:1"]
        assert frames[1]["params"]["data"] == "log1"
        assert live.app.sessions == {}


@bounded
async def test_no_session_sse_events_are_kept_nowhere() -> None:
    """No sessions, SSE answers: no client can resume a POST's stream (there is no GET), so
    its events carry no id and the event store keeps none of them; the next POST is served."""
    store = MemoryEventStore()
    async with live_app(HttpOptions(stateless=True, event_store=store)) as live:
        for id_ in (1, 2):
            counted = await live.raw.post(call(id_, "count", {"n": 2}, token="t"))
            events = parse_events(counted.content)
            assert kinds(messages(events)) == [
                "notifications/progress",
                "notifications/message",
                "notifications/progress",
                "notifications/message",
                f"response:{id_}",
            ]
            assert [event.id for event in events] == [None] * 5
        assert store.total_bytes == 0


@bounded
async def test_http_sse_of_2024_11_05() -> None:
    """GET /sse sends an endpoint event; POSTs there get 202; answers come on the SSE stream."""
    async with live_app() as live:
        async with live.client.stream("GET", "/sse", headers={"accept": SSE}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == SSE
            stream = EventReader(response)
            endpoint = await stream.next()
            assert endpoint.event == "endpoint"
            assert isinstance(endpoint.data, str)
            assert endpoint.data.startswith("/messages?session_id=")
            session_id = endpoint.data.partition("=")[2]
            assert len(session_id) >= 32

            async def send(message: object) -> httpx.Response:
                body = json.dumps(message).encode()
                return await live.client.post(endpoint.data, content=body, headers=JSON_CT)

            accepted = await send(initialize(0))
            assert accepted.status_code == 202
            answer = await stream.next()
            assert answer.event == "message"
            assert answer.data["id"] == 0
            assert answer.data["result"]["protocolVersion"] == V0618
            assert (await send(notification("notifications/initialized"))).status_code == 202
            assert (await send(call(1, "count", {"n": 2}, token=1))).status_code == 202
            frames = [(await stream.next()).data for _ in range(5)]
            step = ["notifications/progress", "notifications/message"]
            assert kinds(frames) == [*step, *step, "response:1"]
            unknown = await live.client.post(
                "/messages?session_id=nope", content=b"{}", headers=JSON_CT
            )
            assert unknown.status_code == 404
            missing = await live.client.post("/messages", content=b"{}", headers=JSON_CT)
            assert missing.status_code == 404
            bad = await live.client.post(endpoint.data, content=b"{nope", headers=JSON_CT)
            assert bad.status_code == 400 and bad.json()["error"]["code"] == -32700
            broken = b'{"jsonrpc":"2.0","id":5,"method":"ping\xff"}'
            bad = await live.client.post(endpoint.data, content=broken, headers=JSON_CT)
            assert bad.status_code == 400 and bad.json()["error"]["code"] == -32700
            deep = b"[" * 200 + b"]" * 200
            bad = await live.client.post(endpoint.data, content=deep, headers=JSON_CT)
            assert bad.status_code == 400 and bad.json()["error"]["code"] == -32600
            assert "nesting deeper than 128" in bad.json()["error"]["message"]
        gone = await live.client.post(endpoint.data, content=b"{}", headers=JSON_CT)
        for _ in range(50):  # the server notices the closed stream and drops the session
            if gone.status_code == 404:
                break
            await asyncio.sleep(0.02)
            gone = await live.client.post(endpoint.data, content=b"{}", headers=JSON_CT)
        assert gone.status_code == 404


@bounded
async def test_idle_sessions_are_ended() -> None:
    """A session unused for ``session_idle_timeout`` seconds is ended; a session in use is not."""
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    options = HttpOptions(session_idle_timeout=0.3)
    async with serve(TestServer(), options) as (_, url), raw_client(url) as http:
        idle, busy = Raw(http), Raw(http)
        await idle.start()
        await busy.start()
        for _ in range(8):  # keep one session in use while the other idles
            await asyncio.sleep(0.1)
            assert (await busy.post(ping)).status_code == 200
        assert (await idle.post(ping)).status_code == 404
        assert (await busy.post(ping)).status_code == 200


@bounded
async def test_http_sse_can_be_turned_off_also_by_its_former_name() -> None:
    """``http_sse=False`` offers no HTTP+SSE endpoints (404); ``legacy_sse=False`` still says
    the same, with a DeprecationWarning naming the new option."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        former = HttpOptions(legacy_sse=False)
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        "HttpOptions(legacy_sse=...) is deprecated: use http_sse=..."
    ]
    assert former.http_sse is False and HttpOptions().http_sse is True
    for options in (HttpOptions(http_sse=False), former):
        async with live_app(options) as live:
            response = await live.client.get("/sse", headers={"accept": SSE})
            assert response.status_code == 404
            posted = await live.client.post(
                "/messages?session_id=x", content=b"{}", headers=JSON_CT
            )
            assert posted.status_code == 404
