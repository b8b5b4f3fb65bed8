"""Our generated clients over the HTTP client transports, against official-SDK servers.

The servers (``tests/support/http_sdk_servers.py``) run under uvicorn on 127.0.0.1 in a thread:
Streamable HTTP in SSE mode, in stateless JSON mode, with an event store (resumable streams),
and the HTTP+SSE (2024-11-05) app. Fake-server tests (drops, replays, errors) are in
``test_http_client_fake.py``; the SSE parser's in ``test_sse.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import aiohttp
import httpx
import pytest

from generated import v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25
from generated._runtime.core.transport import ConnectionClosed
from generated._runtime.roles.peer import MCPError
from generated._runtime.transports.http.client import (
    HttpSseTransport,
    StreamableHTTPTransport,
    connect_http,
)
from tests.support.http_sdk_servers import REQUESTS, SDKServers

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
P = ParamSpec("P")
T = TypeVar("T")
TEST_TIMEOUT_S = 120.0
REQUEST_TIMEOUT_S = 30.0


def bounded(test: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Fail a test that takes longer than ``TEST_TIMEOUT_S`` instead of hanging."""

    @functools.wraps(test)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT_S)

    return run


@pytest.fixture(scope="module")
def servers() -> Iterator[SDKServers]:
    """The SDK servers, started once for this module and always stopped."""
    running = SDKServers().start()
    try:
        yield running
    finally:
        running.stop()


def seen(url: str) -> list[tuple[str, str, dict[str, str]]]:
    """The HTTP requests the server at ``url`` received so far (method, path, headers)."""
    host = httpx.URL(url).netloc.decode()
    return [r for r in REQUESTS if r[2].get("host") == host]


def recorder(package: Any) -> Any:
    """A client of ``package``'s revision that records the notifications it receives."""

    class Recorder(package.Client):  # type: ignore[misc]
        """Records the notifications it receives."""

        def __init__(self) -> None:
            super().__init__(name="http-test", version="1", timeout=REQUEST_TIMEOUT_S)
            self.notes: list[tuple[str, Any]] = []

        async def on_notification(self, method: str, params: Any) -> None:
            """Keep the notification."""
            self.notes.append((method, params))

    return Recorder()


def texts(result: Any) -> list[str]:
    """The text of each content block of a tool result."""
    return [block.text for block in result.content]


@bounded
async def test_sse_mode_session_progress_log_and_delete(servers: SDKServers) -> None:
    """Default (SSE) mode: session header, version header, progress and log on the stream."""
    url = servers.urls["sse"]
    before = len(seen(url))
    client = recorder(v2025_06_18)
    init = await connect_http(client, url, auth_token="tok-1")
    assert init.protocol_version == "2025-06-18"
    assert client.server_info["name"] == "sdk-http"
    transport = client.peer.transport
    assert isinstance(transport, StreamableHTTPTransport)
    session = transport.session_id
    assert session and transport.protocol_version == "2025-06-18"
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert {"echo", "work", "pause"} <= names
    progress: list[Any] = []
    result = await client.call_tool(name="work", arguments={"steps": 3}, progress=progress.append)
    assert texts(result) == ["done 3"]
    assert [(p.progress, p.total, p.message) for p in progress] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]
    logs = [p for m, p in client.notes if m == "notifications/message"]
    assert [(p.level, p.logger, p.data) for p in logs] == [("info", "work", "worked 3 steps")]
    await client.close()
    wire = seen(url)[before:]
    assert wire[0][0] == "POST" and "mcp-session-id" not in wire[0][2]
    assert "mcp-protocol-version" not in wire[0][2]
    assert "application/json" in wire[0][2]["accept"]
    assert "text/event-stream" in wire[0][2]["accept"]
    for _method, _path, headers in wire[1:]:
        assert headers["mcp-session-id"] == session
        assert headers["mcp-protocol-version"] == "2025-06-18"
    assert all(h["authorization"] == "Bearer tok-1" for _, _, h in wire)
    methods = [m for m, _, _ in wire]
    assert "GET" in methods  # the stream for server-initiated messages
    assert methods[-1] == "DELETE"
    async with httpx.AsyncClient() as raw:  # DELETE ended the session on the server
        answer = await raw.post(
            url,
            content=b'{"jsonrpc":"2.0","id":9,"method":"ping"}',
            headers={
                "Mcp-Session-Id": session,
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
        )
    assert answer.status_code == 404


@bounded
async def test_server_request_during_a_call(servers: SDKServers) -> None:
    """The server asks for sampling on the call's stream; our answer is POSTed meanwhile."""
    url = servers.urls["sse"]

    class Sampler(v2025_06_18.Client):
        """Answers sampling requests."""

        async def on_create_message(self, params: Any, ctx: Any) -> Any:
            """Answer as a model would."""
            t = v2025_06_18.types
            content = t.TextContent(text=f"yes to {params.messages[0].content.text}")
            return t.CreateMessageResult(role="assistant", content=content, model="m")

    client = Sampler(timeout=REQUEST_TIMEOUT_S)
    await connect_http(client, url)
    result = await client.call_tool(name="ask", arguments={"question": "ok?"})
    assert texts(result) == ["the model said yes to ok?"]
    await client.close()


@bounded
async def test_stateless_json_mode(servers: SDKServers) -> None:
    """Stateless JSON mode: no session id; each answer is one JSON body."""
    url = servers.urls["json"]
    before = len(seen(url))
    client = recorder(v2025_06_18)
    await connect_http(client, url)
    assert client.peer.transport.session_id is None
    assert texts(await client.call_tool(name="echo", arguments={"text": "hi"})) == ["echo: hi"]
    assert texts(await client.call_tool(name="work", arguments={"steps": 1})) == ["done 1"]
    with pytest.raises(MCPError):  # a method 2025-06-18 does not have
        await client.request(v2025_11_25.methods.TASKS_LIST, None)
    await client.close()
    wire = seen(url)[before:]
    assert all("mcp-session-id" not in h for _, _, h in wire)
    assert "DELETE" not in [m for m, _, _ in wire]  # no session, nothing to delete


@bounded
async def test_given_session_is_used_and_left_open(servers: SDKServers) -> None:
    """A caller's aiohttp session carries every request and stays open; ours is closed."""
    url = servers.urls["json"]
    before = len(seen(url))
    async with aiohttp.ClientSession(headers={"X-Via": "caller"}) as session:
        client = recorder(v2025_06_18)
        await connect_http(client, url, http_client=session)
        assert texts(await client.call_tool(name="echo", arguments={"text": "a"})) == ["echo: a"]
        transport = client.peer.transport
        await client.close()
        assert transport.http_client is session and not session.closed
    wire = seen(url)[before:]
    assert len(wire) >= 3 and all(h["x-via"] == "caller" for _, _, h in wire)
    client = recorder(v2025_06_18)
    await connect_http(client, url)
    own = client.peer.transport.http_client
    assert isinstance(own, aiohttp.ClientSession) and not own.closed
    await client.ping()
    await client.close()
    assert own.closed and "x-via" not in seen(url)[-1][2]


@bounded
async def test_2025_03_26_client(servers: SDKServers) -> None:
    """A 2025-03-26 client: the negotiated version goes in the header all the same."""
    url = servers.urls["sse"]
    before = len(seen(url))
    client = recorder(v2025_03_26)
    init = await connect_http(client, url)
    assert init.protocol_version == "2025-03-26"
    progress: list[Any] = []
    result = await client.call_tool(name="work", arguments={"steps": 2}, progress=progress.append)
    assert texts(result) == ["done 2"] and [p.progress for p in progress] == [1, 2]
    await client.close()
    wire = seen(url)[before:]
    assert {h.get("mcp-protocol-version") for _, _, h in wire[1:]} == {"2025-03-26"}


@bounded
async def test_resumes_a_stream_the_server_closed(servers: SDKServers) -> None:
    """2025-11-25 resumability: the server closes the POST stream mid-call; GET resumes it."""
    url = servers.urls["resumable"]
    before = len(seen(url))
    client = recorder(v2025_11_25)
    await connect_http(client, url, retry_delay=5.0)  # the server's retry (200 ms) must win
    progress: list[Any] = []
    loop = asyncio.get_running_loop()
    start = loop.time()
    result = await client.call_tool(name="pause", progress=progress.append)
    assert loop.time() - start < 3.0
    assert texts(result) == ["resumed"]
    assert [p.message for p in progress] == ["before the break", "after the break"]
    await client.close()
    resumed = [h for m, _, h in seen(url)[before:] if m == "GET" and "last-event-id" in h]
    assert len(resumed) == 1
    stored = {eid for _, eid, _ in servers.store.events}
    assert resumed[0]["last-event-id"] in stored


@bounded
async def test_session_expired_starts_a_new_session(servers: SDKServers) -> None:
    """The server ends the session: the GET stream sees 404; the next call re-initializes."""
    url = servers.urls["sse"]
    client = recorder(v2025_06_18)
    await connect_http(client, url, retry_delay=0.05)
    transport = client.peer.transport
    old = transport.session_id
    async with httpx.AsyncClient() as raw:
        gone = await raw.delete(url, headers={"Mcp-Session-Id": old})
    assert gone.status_code == 200
    while not transport.session_expired:  # the GET stream ends; reconnecting gets 404
        await asyncio.sleep(0.02)
    assert transport.session_id is None
    before = len(seen(url))
    assert texts(await client.call_tool(name="echo", arguments={"text": "x"})) == ["echo: x"]
    assert transport.session_id not in (None, old) and not transport.session_expired
    wire = seen(url)[before:]
    assert wire[0][0] == "POST" and "mcp-session-id" not in wire[0][2]  # a new initialize
    assert all(h.get("mcp-session-id") != old for _, _, h in wire)
    await client.close()


@bounded
async def test_falls_back_to_http_sse(servers: SDKServers) -> None:
    """The initialize POST gets 405 from an HTTP+SSE server: GET, endpoint, POSTs there."""
    url = servers.urls["http_sse"]
    before = len(seen(url))
    client = recorder(v2024_11_05)
    init = await connect_http(client, url, headers={"X-Trace": "fallback"})
    assert init.protocol_version == "2024-11-05"
    transport = client.peer.transport
    assert isinstance(transport, StreamableHTTPTransport) and transport.http_sse is not None
    progress: list[Any] = []
    result = await client.call_tool(name="work", arguments={"steps": 2}, progress=progress.append)
    assert texts(result) == ["done 2"] and [p.progress for p in progress] == [1, 2]
    assert [m for m, _ in client.notes] == ["notifications/message"]
    await client.close()
    wire = [(m, p) for m, p, _ in seen(url)[before:]]
    assert wire[:3] == [("POST", "/sse"), ("GET", "/sse"), ("POST", "/messages/")]
    assert all(p == "/messages/" for m, p in wire[3:])
    assert all(h["x-trace"] == "fallback" for _, _, h in seen(url)[before:])


@bounded
async def test_http_sse_transport_directly(servers: SDKServers) -> None:
    """``HttpSseTransport``: no POST to the SSE URL; the stream is opened by the first write."""
    url = servers.urls["http_sse"]
    before = len(seen(url))
    client = recorder(v2024_11_05)
    await connect_http(client, url, http_sse=True)
    transport = client.peer.transport
    assert isinstance(transport, HttpSseTransport)
    assert transport.endpoint is not None and "/messages/?session_id=" in transport.endpoint
    assert texts(await client.call_tool(name="echo", arguments={"text": "old"})) == ["echo: old"]
    await client.close()
    wire = [(m, p) for m, p, _ in seen(url)[before:]]
    assert wire[0] == ("GET", "/sse") and ("POST", "/sse") not in wire


@bounded
async def test_unreachable_server_fails_connect() -> None:
    """Nothing listens: connecting raises ConnectionClosed instead of hanging."""
    with socket_closed_port() as port:
        client = recorder(v2025_06_18)
        with pytest.raises(ConnectionClosed):
            await connect_http(client, f"http://127.0.0.1:{port}/mcp", timeout=2.0)


@contextlib.contextmanager
def socket_closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that nothing listens on (bound, never listening)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
