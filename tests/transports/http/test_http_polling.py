"""SSE polling: a handler ends the connection of its request's SSE stream (not the stream).

``ServerContext.close_sse_stream`` sends an event with an id and a ``retry`` field, ends the
POST's response, keeps what the handler sends next in the event store, and a GET with
``Last-Event-ID`` gets it and the answer. Where no client could resume (JSON body, a revision
before 2025-11-25) it returns False and the answer comes as usual.
"""

from __future__ import annotations

import asyncio
from typing import Any

from generated._runtime.transports.http.client import connect_http
from generated._runtime.transports.http.server import HttpOptions
from generated.v2025_11_25 import Client, Server, ServerContext, Tools
from generated.v2025_11_25 import types as t
from tests.support.http_support import (
    SSE,
    Event,
    Raw,
    bounded,
    call,
    kinds,
    live_app,
    messages,
    parse_events,
    raw_client,
    serve,
)

V1125 = "2025-11-25"


def frames(events: list[Event]) -> list[Any]:
    """The JSON-RPC messages of the events (priming and hang-up events carry none)."""
    return [frame for frame in messages(events) if frame != ""]


class PollingServer(Server):
    """A 2025-11-25 server whose ``poll`` tool closes its stream, then waits for a gate."""

    __test__ = False
    name = "polling-test"

    def __init__(self, retry_ms: int | None = 40) -> None:
        self.retry_ms = retry_ms
        self.go_on = asyncio.Event()
        self.closed: list[bool] = []
        self.tools = Tools()
        self.tools.add(t.Tool(name="poll", input_schema={"type": "object"}), self._poll)

    async def _poll(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        await ctx.progress(1, 2)
        self.closed.append(await ctx.close_sse_stream(self.retry_ms))
        if args.get("wait", True):
            await asyncio.wait_for(self.go_on.wait(), 30)
        await ctx.progress(2, 2)
        return t.CallToolResult(content=[t.TextContent(text="polled")])

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """The tools."""
        return t.ListToolsResult(tools=self.tools.definitions())

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run a tool."""
        return await self.tools.call(params, ctx)


@bounded
async def test_handler_closes_stream_client_resumes_with_last_event_id() -> None:
    """The POST stream ends after a ``retry`` event; the GET resuming from it gets the rest."""
    server = PollingServer(retry_ms=40)
    async with serve(server) as (_, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start(V1125)
        response = await raw.post(call(7, "poll", {}, token="p"))  # read until it ends
        assert response.headers["content-type"] == SSE
        body = response.content
        assert body.startswith(b"retry: 1000\n"), body  # the priming event's default delay
        events = parse_events(body)
        assert kinds(frames(events)) == ["notifications/progress"]
        assert b"retry: 40\nid: " in body and body.endswith(b"\ndata:\n\n")
        hang_up = events[-1]
        assert hang_up.id and hang_up.data == ""
        assert server.closed == [True]
        server.go_on.set()
        async with raw.stream("GET", last_event_id=hang_up.id) as resumed:
            rest = frames(await resumed.rest())
    assert kinds(rest) == ["notifications/progress", "response:7"], rest
    assert rest[0]["params"]["progress"] == 2
    assert rest[1]["result"]["content"][0]["text"] == "polled"


@bounded
async def test_resume_after_the_answer_was_sent_replays_it() -> None:
    """The handler answers before the client comes back: the GET replays the answer, then ends."""
    server = PollingServer()
    async with serve(server) as (_, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start(V1125)
        response = await raw.post(call(8, "poll", {"wait": False}))
        hang_up = parse_events(response.content)[-1]
        assert server.closed == [True] and hang_up.id
        async with raw.stream("GET", last_event_id=hang_up.id) as resumed:
            rest = frames(await resumed.rest())
    assert kinds(rest) == ["response:8"]


@bounded
async def test_our_client_polls_through_a_closed_stream() -> None:
    """The generated client waits the ``retry`` delay, resumes, and gets the result."""
    server = PollingServer(retry_ms=20)
    async with serve(server) as (_, url):
        client = Client()
        await connect_http(client, f"{url}/mcp")
        try:
            call_task = asyncio.create_task(client.call_tool(name="poll", arguments={}))
            while not server.closed:
                await asyncio.sleep(0.01)
            server.go_on.set()
            result = await asyncio.wait_for(call_task, 30)
        finally:
            await client.close()
    assert server.closed == [True]
    assert isinstance(result.content[0], t.TextContent) and result.content[0].text == "polled"


@bounded
async def test_no_polling_where_no_client_could_resume() -> None:
    """JSON mode and a 2025-06-18 session: ``close_sse_stream`` is False; the answer comes."""
    server = PollingServer()
    async with serve(server, HttpOptions(json_response=True)) as (_, url), raw_client(url) as c:
        raw = Raw(c)
        await raw.start(V1125)
        answer = await raw.post(call(9, "poll", {"wait": False}))
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["result"]["content"][0]["text"] == "polled"
    assert server.closed == [False]
    async with live_app() as live:  # 2025-06-18: its clients do not poll
        await live.raw.start()
        context: list[bool] = []

        async def poll(args: dict[str, Any], ctx: Any) -> Any:
            context.append(await ctx.close_sse_stream())
            return t.CallToolResult(content=[t.TextContent(text="done")])

        live.server.tools.add(t.Tool(name="poll", input_schema={"type": "object"}), poll)
        response = await live.raw.post(call(3, "poll", {}))
        assert kinds(frames(parse_events(response.content))) == ["response:3"]
    assert context == [False]
