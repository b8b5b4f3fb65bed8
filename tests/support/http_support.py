"""Helpers of the HTTP server tests: uvicorn on a free port, raw SSE reading, a test server."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import httpx
import uvicorn

from generated import v2025_03_26 as v0326
from generated._runtime.roles.server import ServerBase
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated.v2025_06_18 import Server, ServerContext, Tools
from generated.v2025_06_18 import types as t

STEP_S = 30.0
"""The longest any single network wait may take before it counts as a hang (an upper bound)."""
START_S = 30.0
"""How long uvicorn may take to start serving."""
SSE = "text/event-stream"
ACCEPT_BOTH = {"accept": f"application/json, {SSE}"}
JSON_CT = {"content-type": "application/json"}
V0618 = "2025-06-18"
CLIENT_CAPS: dict[str, Any] = {"sampling": {}, "elicitation": {}, "roots": {}}
TEST_TIMEOUT_S = 120.0
"""Bound on one test's body (several steps, each bounded by ``STEP_S``)."""

P = ParamSpec("P")
R = TypeVar("R")


def bounded(test: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Run an async test under ``TEST_TIMEOUT_S`` so a hang fails instead of blocking CI."""

    @functools.wraps(test)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT_S)

    return run


@dataclass
class Event:
    """One SSE event as sent: its type, id and data (decoded as JSON when possible)."""

    event: str
    id: str | None
    data: Any


def parse_events(raw: bytes) -> list[Event]:
    """Split a complete ``text/event-stream`` body (LF line ends) into events."""
    events: list[Event] = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        data = "\n".join(fields.get("data", []))
        with contextlib.suppress(ValueError):
            data = json.loads(data)
        ident = fields["id"][-1] if "id" in fields else None
        events.append(Event((fields.get("event") or ["message"])[-1], ident, data))
    return events


class EventReader:
    """Reads the events of a streamed SSE response one at a time, each wait bounded."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._chunks = response.aiter_bytes()
        self._buffer = b""
        self._ready: list[Event] = []

    async def next(self, timeout: float = STEP_S) -> Event:
        """Return the next event; fail if none comes in time or the stream ends."""
        while not self._ready:
            chunk = await asyncio.wait_for(anext(self._chunks), timeout)
            self._buffer += chunk
            head, sep, self._buffer = self._buffer.rpartition(b"\n\n")
            if sep:
                self._ready.extend(parse_events(head + sep))
            else:
                self._buffer = head + self._buffer
        return self._ready.pop(0)

    async def rest(self, timeout: float = STEP_S) -> list[Event]:
        """Return every remaining event until the server ends the stream."""

        async def drain() -> list[Event]:
            async for chunk in self._chunks:
                self._buffer += chunk
            return [*self._ready, *parse_events(self._buffer)]

        return await asyncio.wait_for(drain(), timeout)

    async def until_quiet(self, delay: float = 0.3) -> list[Event]:
        """Return the events arriving until none comes for ``delay`` seconds."""
        events: list[Event] = []
        with contextlib.suppress(TimeoutError):
            while len(events) < 100:
                events.append(await self.next(delay))
        return events

    async def quiet(self, delay: float = 0.2) -> None:
        """Assert that no event arrives within ``delay`` seconds."""
        with contextlib.suppress(TimeoutError):
            event = await self.next(delay)
            raise AssertionError(f"unexpected event {event}")


def request(id_: Any, method: str, params: Any = None, token: Any = None) -> dict[str, Any]:
    """A JSON-RPC request (with ``_meta.progressToken`` when ``token`` is given)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None or token is not None:
        message["params"] = dict(params or {})
    if token is not None:
        message["params"]["_meta"] = {"progressToken": token}
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    """A JSON-RPC notification."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize(id_: Any = 0, version: str = V0618) -> dict[str, Any]:
    """An initialize request declaring sampling, elicitation and roots."""
    info = {"name": "raw-test", "version": "1"}
    params = {"protocolVersion": version, "capabilities": CLIENT_CAPS, "clientInfo": info}
    return request(id_, "initialize", params)


def call(id_: Any, name: str, args: dict[str, Any], token: Any = None) -> dict[str, Any]:
    """A tools/call request."""
    return request(id_, "tools/call", {"name": name, "arguments": args}, token)


def messages(events: list[Event]) -> list[Any]:
    """The JSON-RPC messages carried by ``message`` events."""
    return [e.data for e in events if e.event == "message"]


def kinds(frames: list[Any]) -> list[str]:
    """A short description of each frame: its method, or ``response:<id>``."""
    return [f["method"] if "method" in f else f"response:{f.get('id')}" for f in frames]


class Raw:
    """A hand-driven Streamable HTTP client: exact headers and bodies, one session."""

    def __init__(self, client: httpx.AsyncClient, path: str = "/mcp") -> None:
        self.client = client
        self.path = path
        self.session_id: str | None = None

    def headers(self, **extra: str) -> dict[str, str]:
        """Accept, Content-Type and (once known) Mcp-Session-Id, plus ``extra``."""
        out = {**ACCEPT_BOTH, **JSON_CT}
        if self.session_id is not None:
            out["mcp-session-id"] = self.session_id
        out.update({k.replace("_", "-"): v for k, v in extra.items()})
        return out

    async def post(self, body: Any, **extra: str) -> httpx.Response:
        """POST a message (bytes as they are) and read the whole answer."""
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return await self.client.post(self.path, content=content, headers=self.headers(**extra))

    async def start(self, version: str = V0618) -> Any:
        """Initialize, remember the session id, send notifications/initialized."""
        response = await self.post(initialize(0, version))
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        done = await self.post(notification("notifications/initialized"))
        assert done.status_code == 202, done.text
        return response

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, body: Any = None, **extra: str
    ) -> AsyncIterator[EventReader]:
        """Open a streamed POST or GET and read its events with an ``EventReader``."""
        headers = self.headers(**extra)
        content = None if body is None else json.dumps(body).encode()
        async with self.client.stream(method, self.path, content=content, headers=headers) as r:
            assert r.status_code == 200, (r.status_code, await r.aread())
            assert r.headers["content-type"] == SSE
            yield EventReader(r)


async def until_started(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    """Wait (at most ``START_S``) until uvicorn serves; fail if it ended or did not start."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_S
    while not server.started and not task.done() and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert server.started, "uvicorn did not start"


@contextlib.asynccontextmanager
async def serve(
    servers: ServerBase | list[ServerBase],
    options: HttpOptions | None = None,
    nodelay: bool = False,
) -> AsyncIterator[tuple[McpHttpApp, str]]:
    """Run ``McpHttpApp`` under uvicorn on a free port of 127.0.0.1; always shut it down.

    Connections accepted on the socket made here keep Nagle's algorithm (about 40 ms per
    response) unless ``nodelay``; some tests depend on that pace (JSON-mode progress on GET).
    """
    app = McpHttpApp(servers, options)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if nodelay:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await until_started(server, task)
        yield app, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(task, 5)
        except TimeoutError:
            task.cancel()
        sock.close()


@contextlib.asynccontextmanager
async def raw_client(url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for ``url`` with bounded timeouts."""
    async with httpx.AsyncClient(base_url=url, timeout=STEP_S) as client:
        yield client


# -- the server under test ------------------------------------------------------------------


def text(value: str) -> t.CallToolResult:
    """A tool result with one text block."""
    return t.CallToolResult(content=[t.TextContent(text=value)])


class TestServer(Server):
    """A 2025-06-18 server whose ``slow`` tool waits for gates the test opens."""

    __test__ = False
    name = "http-test"
    version = "1"
    list_changed = frozenset({"tools", "resources"})

    def __init__(self) -> None:
        self.gates: dict[str, asyncio.Event] = {}
        self.tools = Tools()
        plain: dict[str, Any] = {"type": "object"}
        for name, fn in [
            ("count", self._count),
            ("slow", self._slow),
            ("sample", self._sample),
            ("edit", self._edit),
        ]:
            self.tools.add(t.Tool(name=name, input_schema=plain), fn)

    def gate(self, name: str) -> asyncio.Event:
        """The event the ``slow`` tool waits on at step ``name``."""
        return self.gates.setdefault(name, asyncio.Event())

    async def _count(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        n = int(args.get("n", 2))
        for i in range(1, n + 1):
            await ctx.progress(i, n, f"{args.get('tag', '')}{i}")
            await ctx.log("info", f"{args.get('tag', '')}log{i}")
        return text(f"{args.get('tag', '')}counted {n}")

    async def _slow(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        await ctx.progress(1, 3)
        await asyncio.wait_for(self.gate("a").wait(), STEP_S)
        await ctx.progress(2, 3)
        await ctx.log("info", "half way")
        await asyncio.wait_for(self.gate("b").wait(), STEP_S)
        await ctx.progress(3, 3)
        return text("slow done")

    async def _sample(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        ask = t.SamplingMessage(role="user", content=t.TextContent(text="2+2?"))
        answer = await ctx.create_message(messages=[ask], max_tokens=5, timeout=STEP_S)
        assert isinstance(answer.content, t.TextContent)
        return text(f"model said {answer.content.text}")

    async def _edit(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        await ctx.notify_resource_updated(uri="test://note")
        await ctx.notify_tool_list_changed()
        return text("edited")

    async def list_tools(
        self, params: t.ListToolsRequestParams, ctx: ServerContext
    ) -> t.ListToolsResult:
        """The tools."""
        return t.ListToolsResult(tools=self.tools.definitions())

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run a tool."""
        return await self.tools.call(params, ctx)

    async def list_resources(
        self, params: t.ListResourcesRequestParams, ctx: ServerContext
    ) -> t.ListResourcesResult:
        """One resource."""
        return t.ListResourcesResult(resources=[t.Resource(uri="test://note", name="note")])

    async def subscribe(
        self, params: t.SubscribeRequestParams, ctx: ServerContext
    ) -> t.EmptyResult:
        """Accept any subscription (``edit`` always sends the update)."""
        return {}


class OldServer(v0326.Server):
    """A 2025-03-26 server (batches allowed) with one echo tool."""

    name = "http-test-0326"

    async def list_tools(
        self, params: v0326.types.ListToolsRequestParams, ctx: v0326.ServerContext
    ) -> v0326.types.ListToolsResult:
        """One tool."""
        tool = v0326.types.Tool(name="echo", input_schema={"type": "object"})
        return v0326.types.ListToolsResult(tools=[tool])

    async def call_tool(
        self, params: v0326.types.CallToolRequestParams, ctx: v0326.ServerContext
    ) -> v0326.types.CallToolResult:
        """Echo the ``text`` argument."""
        args = params.arguments if isinstance(params.arguments, dict) else {}
        block = v0326.types.TextContent(text=f"echo {args.get('text')}")
        return v0326.types.CallToolResult(content=[block])


@dataclass
class Live:
    """A running app with its test server and a raw client of it."""

    server: TestServer
    app: McpHttpApp
    url: str
    client: httpx.AsyncClient
    raw: Raw

    def connection(self, session_id: str | None = None) -> Any:
        """The ServerConnection of a session (the raw client's by default)."""
        return self.app.sessions[session_id or self.raw.session_id or ""].connection


@contextlib.asynccontextmanager
async def live_app(
    options: HttpOptions | None = None,
    servers: list[ServerBase] | None = None,
    nodelay: bool = False,
) -> AsyncIterator[Live]:
    """Serve a fresh ``TestServer`` (plus ``servers``) and connect a raw client."""
    server = TestServer()
    async with (
        serve([server, *(servers or [])], options, nodelay) as (app, url),
        raw_client(url) as c,
    ):
        yield Live(server, app, url, c, Raw(c))


async def wait_detached(live: Live) -> None:
    """Wait until the server noticed that every SSE stream of the raw session was dropped."""
    session = live.app.sessions[live.raw.session_id or ""]
    for _ in range(150):
        if not any(stream.attached for stream in session.streams.values()):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the server did not notice the dropped stream")
