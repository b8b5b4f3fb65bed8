"""The HTTP client transports against scripted fake servers (``aiohttp.web`` on 127.0.0.1).

Each test starts its fakes on free ports (always stopped after it). A fake answers from a
script and records what it got (method, headers, body, time, client port), so the tests can
drop streams mid-answer, replay after ``Last-Event-ID``, refuse with HTTP errors, and check
the bytes and headers we sent.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
from aiohttp import web

from generated import v2025_03_26, v2025_06_18
from generated._runtime.core.transport import ConnectionClosed
from generated._runtime.core.wire import Inbound
from generated._runtime.roles.peer import MCPError, RequestTimeout
from generated._runtime.transports.http.client import (
    HttpSseTransport,
    SessionExpired,
    StreamableHTTPTransport,
    connect_http,
)
from tests.support.http_support import bounded

SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
INIT_RESULT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}, "logging": {}},
    "serverInfo": {"name": "fake", "version": "1"},
}
STOP_S = 5.0
"""Bound on stopping one fake server."""
NO_JSON = object()
INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x"}}'
RUNNERS: list[web.AppRunner] = []


class Drop(Exception):
    """The server cuts the connection: as a body step (mid-answer), or raised (no answer)."""


Step = bytes | Drop | asyncio.Event | float
"""Body steps: bytes to send, a cut, an Event to wait for, seconds to pause."""


class Script:
    """A streamed response body, played step by step (see ``Step``)."""

    def __init__(self, *steps: Step) -> None:
        self.steps = steps
        self.closed = False  # whether the client went away before the body's end

    async def play(self, response: web.StreamResponse) -> None:
        """Send the body (the headers are out already); a Drop step is raised."""
        try:
            for step in self.steps:
                if isinstance(step, Drop):
                    raise step
                if isinstance(step, asyncio.Event):
                    await step.wait()
                elif isinstance(step, float):
                    await asyncio.sleep(step)
                else:
                    await response.write(step)
        except (asyncio.CancelledError, ConnectionError):
            self.closed = True
            raise


class Reply:
    """A scripted HTTP response: status, headers and a body (JSON, text, or a Script)."""

    def __init__(
        self,
        status: int,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = NO_JSON,
        text: str | None = None,
        stream: Script | None = None,
    ) -> None:
        self.status, self.headers = status, dict(headers or {})
        self.body: bytes | Script = stream or b""
        if json is not NO_JSON:
            self.headers.setdefault("content-type", "application/json")
            self.body = msgspec.json.encode(json)
        elif text is not None:
            self.headers.setdefault("content-type", "text/plain; charset=utf-8")
            self.body = text.encode()


@pytest.fixture(autouse=True)
async def stop_servers() -> AsyncIterator[None]:
    """Stop every fake server a test started, whatever the outcome."""
    yield
    while RUNNERS:
        await asyncio.wait_for(RUNNERS.pop().cleanup(), STOP_S)


async def serve(answer: Callable[[web.Request], Awaitable[Reply]], path: str = "/mcp") -> str:
    """Start a server on a free 127.0.0.1 port answering every request; return its URL."""

    async def handle(request: web.Request) -> web.StreamResponse:
        try:
            reply = await answer(request)
            if not isinstance(reply.body, Script):
                return web.Response(status=reply.status, headers=reply.headers, body=reply.body)
            response = web.StreamResponse(status=reply.status, headers=reply.headers)
            await response.prepare(request)
            await reply.body.play(response)
            return response
        except Drop:
            assert request.transport is not None
            request.transport.close()  # cut the connection, whatever was sent on it
            return web.Response()  # never sent

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5, access_log=None)
    await runner.setup()
    RUNNERS.append(runner)
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return f"http://127.0.0.1:{runner.addresses[0][1]}{path}"


def event(message: dict[str, Any], event_id: str | None = None) -> bytes:
    """One SSE ``message`` event carrying ``message``."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {json.dumps(message)}\n\n".encode()


def result(rid: Any, value: Any) -> dict[str, Any]:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def progress(token: Any, value: float) -> dict[str, Any]:
    """A progress notification."""
    params = {"progressToken": token, "progress": value, "total": 4}
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def decoded(item: bytes | Inbound | None) -> Any:
    """A message the transport read, as plain JSON (it queues what it parsed, parsed)."""
    assert isinstance(item, Inbound) and len(item.messages) == 1
    return msgspec.json.decode(msgspec.json.encode(item.messages[0]))


@dataclass
class Hit:
    """One HTTP request the fake got."""

    method: str
    headers: Mapping[str, str]
    body: Any
    at: float
    port: int  # the client's: which TCP connection the request came on


@dataclass
class Fake:
    """A scripted server: ``answer`` returns the response for each request after the handshake."""

    answer: Callable[[Hit], Reply | Awaitable[Reply]]
    session: str | None = "s-1"
    hits: list[Hit] = field(default_factory=list)

    async def __call__(self, request: web.Request) -> Reply:
        raw = await request.read()
        body = json.loads(raw) if request.method == "POST" else None
        assert request.transport is not None
        port = request.transport.get_extra_info("peername")[1]
        hit = Hit(request.method, request.headers, body, asyncio.get_running_loop().time(), port)
        self.hits.append(hit)
        if isinstance(body, dict) and body.get("method") == "initialize":
            headers = {**JSON, "mcp-session-id": self.session} if self.session else JSON
            chosen = {**INIT_RESULT, "protocolVersion": body["params"]["protocolVersion"]}
            return Reply(200, headers=headers, json=result(body["id"], chosen))
        if isinstance(body, dict) and body.get("method") == "notifications/initialized":
            return Reply(202)
        if request.method == "DELETE":
            return Reply(405)
        reply = self.answer(hit)
        return await reply if inspect.isawaitable(reply) else reply

    async def start(self) -> str:
        """Serve on a free port; return the MCP endpoint's URL."""
        return await serve(self)


def no_get(hit: Hit) -> Reply | None:
    """405 to the GET stream (a server without one); None for anything else."""
    return Reply(405) if hit.method == "GET" else None


def calls(fake: Fake) -> list[Hit]:
    """The tools/call POSTs the fake got."""
    return [h for h in fake.hits if (h.body or {}).get("method") == "tools/call"]


def tool_call(hit: Hit) -> tuple[Any, Any]:
    """The id and progress token of a tools/call body."""
    return hit.body["id"], hit.body["params"]["_meta"]["progressToken"]


async def connected(fake: Fake, package: Any = v2025_06_18, **kw: Any) -> Any:
    """A client of ``package`` connected to ``fake``; its retry delay is long unless given."""
    client = package.Client(timeout=30.0)
    kw.setdefault("retry_delay", 5.0)
    await connect_http(client, await fake.start(), **kw)
    return client


@pytest.mark.parametrize("clean_end", [False, True], ids=["dropped", "ended"])
@bounded
async def test_post_stream_resumed_with_last_event_id(clean_end: bool) -> None:
    """The answer stream breaks after two events; GET + Last-Event-ID gets the rest, in order."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "POST":
            rid, token = tool_call(hit)
            end: tuple[Step, ...] = () if clean_end else (Drop(),)
            events = (
                event(progress(token, 1), "a1") + b"retry: 300\n" + event(progress(token, 2), "a2")
            )
            return Reply(200, headers=SSE, stream=Script(events, *end))
        if hit.headers.get("last-event-id") == "a2":
            rid, token = tool_call(calls(fake)[0])
            replay = event(progress(token, 3), "a3") + event(result(rid, {"content": []}), "a4")
            return Reply(200, headers=SSE, stream=Script(replay))
        return Reply(405)

    fake = Fake(answer)
    client = await connected(fake)
    got: list[float] = []
    await client.call_tool(name="t", progress=lambda p: got.append(p.progress))
    assert got == [1, 2, 3]
    post, resume = calls(fake)[0], fake.hits[-1]
    assert resume.method == "GET" and resume.headers["last-event-id"] == "a2"
    assert resume.headers["mcp-session-id"] == "s-1"
    assert resume.headers["mcp-protocol-version"] == "2025-06-18"
    assert resume.headers["accept"] == "text/event-stream"
    assert 0.3 <= resume.at - post.at < 2.0  # the server's retry, not our 5 s default
    await client.close()


@bounded
async def test_gives_up_after_bounded_reconnects() -> None:
    """Reconnecting brings nothing: after max_reconnects the caller gets an error, no hang."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "POST":
            return Reply(200, headers=SSE, stream=Script(event(progress(1, 1), "x1")))
        if "last-event-id" in hit.headers:
            return Reply(503)
        return Reply(405)

    fake = Fake(answer)
    client = await connected(fake, retry_delay=0.01, max_reconnects=2)
    with pytest.raises(MCPError) as info:
        await client.call_tool(name="t")
    assert info.value.code == -32603 and "could not be resumed" in info.value.message
    assert sum(1 for h in fake.hits if "last-event-id" in h.headers) == 3
    await client.close()


@bounded
async def test_get_stream_delivers_and_resumes() -> None:
    """The GET stream's notifications arrive; after a drop it resumes after its last id."""
    hold = asyncio.Event()
    log = {"jsonrpc": "2.0", "method": "notifications/message"}

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET" and "last-event-id" not in hit.headers:
            first = event({**log, "params": {"level": "info", "data": 1}}, "g1")
            return Reply(200, headers=SSE, stream=Script(first, Drop()))
        if hit.method == "GET":
            later = event({**log, "params": {"level": "info", "data": 2}}, "g2")
            return Reply(200, headers=SSE, stream=Script(later, hold))
        return Reply(202)

    fake = Fake(answer)
    notes: list[Any] = []

    class Listener(v2025_06_18.Client):
        """Records the data of log notifications."""

        async def on_notification(self, method: str, params: Any) -> None:
            """Keep the log data."""
            notes.append(params.data)

    client = Listener(timeout=30.0)
    await connect_http(client, await fake.start(), retry_delay=0.05)
    while len(notes) < 2:
        await asyncio.sleep(0.01)
    assert notes == [1, 2]
    gets = [h for h in fake.hits if h.method == "GET"]
    assert [h.headers.get("last-event-id") for h in gets] == [None, "g1"]
    await client.close()
    assert fake.hits[-1].method == "DELETE" and fake.hits[-1].headers["mcp-session-id"] == "s-1"


@bounded
async def test_session_expiry_and_new_session() -> None:
    """404 to our session id: the client starts a new session and retries that very call."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET" or hit.headers.get("mcp-session-id") == "s-1":
            return no_get(hit) or Reply(404)
        if hit.body.get("method") == "tools/list":
            return Reply(200, json=result(hit.body["id"], {"tools": []}))
        return Reply(200, json=result(hit.body["id"], {}))

    fake = Fake(answer)
    transport = StreamableHTTPTransport(await fake.start(), retry_delay=5.0)
    client = v2025_06_18.Client(timeout=30.0)
    await client.connect(transport)
    fake.session = "s-2"  # the next initialize gets a new session id
    assert (await client.list_tools()).tools == []  # 404, new session, retried
    inits = [h for h in fake.hits if h.body and h.body.get("method") == "initialize"]
    assert len(inits) == 2 and "mcp-session-id" not in inits[1].headers
    calls = [h for h in fake.hits if h.body and h.body.get("method") == "tools/list"]
    assert [c.headers["mcp-session-id"] for c in calls] == ["s-1", "s-2"]
    assert transport.session_id == "s-2" and not transport.session_expired
    assert not issubclass(SessionExpired, ConnectionClosed)
    await client.close()


@bounded
async def test_notification_post_404_raises_session_expired() -> None:
    """A notification POST answered 404 raises SessionExpired from write itself."""
    fake = Fake(lambda hit: no_get(hit) or Reply(404))
    transport = StreamableHTTPTransport(await fake.start())
    await transport.write(INIT)
    assert await transport.read() is not None and transport.session_id == "s-1"
    with pytest.raises(SessionExpired):
        await transport.write(b'{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}')
    assert fake.hits[-1].headers["mcp-session-id"] == "s-1"
    assert transport.session_id is None and transport.session_expired
    await transport.close()
    assert fake.hits[-1].method == "POST"  # no DELETE: the session is already gone


@bounded
async def test_http_errors_become_jsonrpc_errors() -> None:
    """A 500 with text, and a 400 carrying a JSON-RPC error (id null), reach the caller."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        if hit.body["method"] == "tools/list":
            return Reply(500, text="database on fire")
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": "bad args"}}
        return Reply(400, json=error)

    client = await connected(Fake(answer))
    with pytest.raises(MCPError) as info:
        await client.list_tools()
    assert info.value.code == -32603 and "500" in info.value.message
    assert info.value.data == {"httpStatus": 500, "body": "database on fire"}
    with pytest.raises(MCPError) as info:
        await client.call_tool(name="t")
    assert (info.value.code, info.value.message) == (-32602, "bad args")
    await client.close()


@bounded
async def test_network_error_closes_the_connection() -> None:
    """A request POST that cannot reach the server ends the connection: ConnectionClosed."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        raise Drop()  # the connection is cut, no answer

    client = await connected(Fake(answer))
    with pytest.raises(ConnectionClosed):
        await client.list_tools()
    await client.close()


@bounded
async def test_json_batch_is_split() -> None:
    """A 2025-03-26 JSON answer that is an array: each message is read on its own."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        rid, token = tool_call(hit)
        return Reply(200, json=[progress(token, 4), result(rid, {"content": []})])

    got: list[float] = []
    client = await connected(Fake(answer), v2025_03_26)
    await client.call_tool(name="t", progress=lambda p: got.append(p.progress))
    assert got == [4]
    await client.close()


@bounded
async def test_slow_answer_does_not_block_other_requests() -> None:
    """A request whose answer is held back does not delay a later one (writes do not wait)."""
    release = asyncio.Event()

    def answer(hit: Hit) -> Reply:
        if hit.method != "POST":
            return Reply(405)
        rid, slow = hit.body["id"], hit.body["method"] == "tools/call"
        held = (release,) if slow else ()
        answer = result(rid, {"content": []} if slow else {})
        return Reply(200, headers=SSE, stream=Script(*held, event(answer)))

    client = await connected(Fake(answer))
    slow = asyncio.create_task(client.call_tool(name="slow"))
    await asyncio.wait_for(client.ping(), 30.0)
    assert not slow.done()
    release.set()
    await asyncio.wait_for(slow, 30.0)
    await client.close()


@bounded
async def test_http_sse_endpoint_on_another_origin_is_refused() -> None:
    """An ``endpoint`` event naming another host is refused (headers would leak there)."""

    async def handler(request: web.Request) -> Reply:
        body = Script(b"event: endpoint\ndata: http://evil.test/messages\n\n", asyncio.Event())
        return Reply(200, headers=SSE, stream=body)

    transport = HttpSseTransport(await serve(handler, "/sse"))
    with pytest.raises(ConnectionClosed, match="origin"):
        await transport.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    await transport.close()


@bounded
async def test_no_fallback_when_the_get_is_no_http_sse_stream() -> None:
    """Initialize refused with 400 and the GET is no SSE stream: the caller gets the error."""

    async def handler(request: web.Request) -> Reply:
        if request.method == "POST":
            error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "nope"}}
            return Reply(400, json=error)
        return Reply(400, text="Missing session ID")

    client = v2025_06_18.Client(timeout=30.0)
    with pytest.raises(MCPError, match="nope"):
        await connect_http(client, await serve(handler))


@bounded
async def test_cancelled_request_stops_reading_its_stream() -> None:
    """A request that times out is cancelled on the wire and its answer stream is closed."""
    bodies: list[Script] = []

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        if hit.body.get("method") == "tools/call":
            bodies.append(Script(asyncio.Event()))
            return Reply(200, headers=SSE, stream=bodies[-1])
        return Reply(202)

    fake = Fake(answer)
    client = await connected(fake, auth_token="t0k")
    with pytest.raises(RequestTimeout):
        await client.call_tool(name="t", timeout=0.2)
    while not bodies[0].closed:
        await asyncio.sleep(0.01)
    cancel = fake.hits[-1].body
    assert cancel["method"] == "notifications/cancelled"
    assert cancel["params"]["requestId"] == calls(fake)[0].body["id"]
    await client.close()
    assert all(h.headers["authorization"] == "Bearer t0k" for h in fake.hits)


@bounded
async def test_connections_are_kept_and_reused() -> None:
    """Sequential calls reuse connections: JSON answers, and SSE streams ending just after."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        if hit.body["method"] == "tools/list":
            return Reply(200, json=result(hit.body["id"], {"tools": []}))
        return Reply(200, headers=SSE, stream=Script(event(result(hit.body["id"], {})), 0.01))

    fake = Fake(answer)
    client = await connected(fake)
    for _ in range(3):
        await client.list_tools()
    for _ in range(3):
        await client.ping()
        await asyncio.sleep(0.05)  # the stream has ended: its connection is free again
    await client.close()
    assert len(fake.hits) == 10  # initialize, initialized, GET, 6 calls, DELETE
    assert len({h.port for h in fake.hits}) <= 2  # the GET may race the first call


@bounded
async def test_timeout_bounds_plain_posts_not_answer_streams() -> None:
    """``timeout`` bounds waiting for a notification POST's answer, not a slow SSE answer."""
    never = asyncio.Event()

    async def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            return Reply(405)
        if hit.body.get("method") == "tools/call":
            slow = Script(0.6, event(result(hit.body["id"], {"content": []})))
            return Reply(200, headers=SSE, stream=slow)
        await never.wait()  # a notification POST never answered
        return Reply(202)

    transport = StreamableHTTPTransport(await Fake(answer).start(), timeout=0.3)
    await transport.write(INIT)
    assert await transport.read() is not None
    await transport.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}')
    assert decoded(await transport.read())["result"] == {"content": []}
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(ConnectionClosed):
        await transport.write(b'{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}')
    assert 0.25 <= loop.time() - start < 2.0
    await transport.close()
