"""Official-SDK MCP servers over real HTTP for the HTTP client tests, run by uvicorn in a thread.

``SDKServers`` serves, each on its own 127.0.0.1 port: the Streamable HTTP app in its default
SSE mode, in stateless JSON mode, with an event store (resumable streams), and the
HTTP+SSE (2024-11-05) app. ``REQUESTS`` records (method, path, headers) of every HTTP request
they get.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import threading
import warnings
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
REQUESTS: list[tuple[str, str, dict[str, str]]] = []
"""Every HTTP request the servers got: method, path and headers (lower-case names)."""


def build_server() -> MCPServer[Any]:
    """An SDK server with tools that echo, report progress and log, and pause a stream."""
    mcp: MCPServer[Any] = MCPServer(name="sdk-http", version="1.0")

    @mcp.tool()
    async def echo(text: str) -> str:
        """Echo the text back."""
        return f"echo: {text}"

    @mcp.tool()
    async def work(steps: int, ctx: Context) -> str:
        """Report progress ``steps`` times, log a message, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        await ctx.info(f"worked {steps} steps", logger_name="work")
        return f"done {steps}"

    @mcp.tool()
    async def ask(question: str, ctx: Context) -> str:
        """Ask the client's model (sampling) in the middle of the call, on the call's stream."""
        content = types.TextContent(type="text", text=question)
        reply = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=content)],
            max_tokens=10,
            related_request_id=ctx.request_id,
        )
        assert isinstance(reply.content, types.TextContent)
        return f"the model said {reply.content.text}"

    @mcp.tool()
    async def pause(ctx: Context) -> str:
        """Report progress, close the SSE stream (resumable servers), report again, answer."""
        await ctx.report_progress(1, 2, "before the break")
        await ctx.close_sse_stream()
        await asyncio.sleep(0.3)
        await ctx.report_progress(2, 2, "after the break")
        return "resumed"

    return mcp


class MemoryEventStore(EventStore):
    """Keeps every event of every stream, to replay those after a given id."""

    def __init__(self) -> None:
        self.events: list[tuple[StreamId, EventId, Any]] = []
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        """Keep one event; return its id."""
        event_id = f"e{next(self._ids)}"
        self.events.append((stream_id, event_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of the stream of ``last_event_id`` stored after it."""
        found = [i for i, (_, eid, _) in enumerate(self.events) if eid == last_event_id]
        if not found:
            return None
        stream_id = self.events[found[0]][0]
        for sid, eid, message in self.events[found[0] + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, eid))
        return stream_id


def _recording(app: ASGIApp) -> ASGIApp:
    """Wrap an ASGI app so each HTTP request is appended to ``REQUESTS``."""

    async def record(scope: Scope, receive: Any, send: Any) -> None:
        """Record the request, then pass it on."""
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            REQUESTS.append((scope["method"], scope["path"], headers))
        await app(scope, receive, send)

    return record


class SDKServers:
    """Four SDK apps under uvicorn on one event loop in a daemon thread; ``stop()`` ends it."""

    def __init__(self) -> None:
        self.urls: dict[str, str] = {}
        self._servers: list[uvicorn.Server] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()
        self.store = MemoryEventStore()

    def _apps(self) -> dict[str, tuple[Any, str]]:
        sse, json_mode, resumable, http_sse = (build_server() for _ in range(4))
        return {
            "sse": (sse.streamable_http_app(), "/mcp"),
            "json": (
                json_mode.streamable_http_app(json_response=True, stateless_http=True),
                "/mcp",
            ),
            "resumable": (
                resumable.streamable_http_app(event_store=self.store, retry_interval=200),
                "/mcp",
            ),
            "http_sse": (http_sse.sse_app(), "/sse"),
        }

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        jobs = []
        for name, (app, path) in self._apps().items():
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
            config = uvicorn.Config(_recording(app), log_level="warning", lifespan="on")
            server = uvicorn.Server(config)
            self._servers.append(server)
            self.urls[name] = f"http://127.0.0.1:{port}{path}"
            jobs.append(server.serve(sockets=[sock]))
        tasks = [asyncio.create_task(job) for job in jobs]
        while not all(server.started for server in self._servers):
            await asyncio.sleep(0.01)
        self._ready.set()
        await asyncio.gather(*tasks)

    def start(self) -> SDKServers:
        """Start serving; return once every server accepts connections."""
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            raise RuntimeError("the SDK servers did not start in time")
        return self

    def stop(self) -> None:
        """Ask every server to exit and wait (bounded) for the thread."""
        for server in self._servers:
            server.should_exit = True
        self._thread.join(STOP_TIMEOUT_S)
