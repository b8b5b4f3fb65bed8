"""Which of our requests a server's message relates to, over the HTTP client transports: what
comes on a request's POST stream (or its JSON answer) relates to that request, what comes on
the GET stream to none; a client's handlers read it as ``ctx.related_request_id`` and
``related_request_id()`` (scripted fake servers of ``test_http_client_fake``)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from aiohttp import web

from generated import v2025_06_18
from generated._runtime.core.events import RequestId
from generated._runtime.core.wire import Inbound, Outbound
from generated._runtime.roles.connection import related_request_id
from generated._runtime.transports.http.client import StatelessHTTPTransport, connect_http
from generated.v2025_06_18 import types as t
from tests.support.http_support import bounded
from tests.transports.http.test_http_client_fake import (
    JSON,
    SSE,
    Fake,
    Hit,
    Reply,
    Script,
    calls,
    event,
    result,
    serve,
)

STEP_S = 30.0


def log(data: str) -> dict[str, Any]:
    """A log message notification carrying ``data``."""
    params = {"level": "info", "data": data}
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": params}


def elicit(rid: str, message: str) -> dict[str, Any]:
    """An elicitation request of the server's."""
    params = {"message": message, "requestedSchema": {"type": "object", "properties": {}}}
    return {"jsonrpc": "2.0", "id": rid, "method": "elicitation/create", "params": params}


class Noting(v2025_06_18.Client):
    """Notes, for each question and log message, what it said and what it relates to."""

    def __init__(self) -> None:
        super().__init__(timeout=STEP_S)
        self.seen: list[tuple[str, RequestId | None]] = []

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: Any) -> t.ElicitResult:
        """Note the question and the request it relates to; decline it."""
        self.seen.append((params.message, ctx.related_request_id))
        return t.ElicitResult(action="decline")

    async def on_notification(self, method: str, params: Any) -> None:
        """Note the log message and the request it relates to."""
        if method == "notifications/message":
            self.seen.append((str(params.data), related_request_id()))


@bounded
async def test_a_message_relates_to_the_request_whose_post_stream_it_came_on() -> None:
    """Two calls in flight: each call's stream brings a log message and a question (the first
    call's only once the second call's POST is in), and each relates to its own call; the
    GET stream's relate to none."""
    answered: dict[str, asyncio.Event] = {}
    second_posted, hold = asyncio.Event(), asyncio.Event()

    def asked(rid: str) -> asyncio.Event:
        return answered.setdefault(rid, asyncio.Event())

    def answer(hit: Hit) -> Reply:
        if hit.method == "GET":
            steps = event(log("get")) + event(elicit("q-get", "get"))
            return Reply(200, headers=SSE, stream=Script(steps, asked("q-get"), hold))
        if "result" in hit.body:  # our answer to a question
            asked(hit.body["id"]).set()
            return Reply(202)
        name, rid = hit.body["params"]["name"], hit.body["id"]
        first = (second_posted,) if name == "one" else ()
        if name == "two":
            second_posted.set()
        steps = event(log(name)) + event(elicit(f"q-{name}", name))
        done = event(result(rid, {"content": []}))
        return Reply(200, headers=SSE, stream=Script(*first, steps, asked(f"q-{name}"), done))

    fake = Fake(answer)
    client = Noting()
    await connect_http(client, await fake.start())
    try:
        one = asyncio.create_task(client.call_tool(name="one"))
        two = asyncio.create_task(client.call_tool(name="two"))
        await asyncio.wait_for(asyncio.gather(one, two), STEP_S)
        await asyncio.wait_for(asked("q-get").wait(), STEP_S)
    finally:
        hold.set()
        await client.close()
    ids = {hit.body["params"]["name"]: hit.body["id"] for hit in calls(fake)}
    twice = {("one", ids["one"]): 2, ("two", ids["two"]): 2, ("get", None): 2}
    assert Counter(client.seen) == twice  # the log message and the question of each stream


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
@bounded
async def test_a_stateless_posts_answer_relates_to_its_request(streamed: bool) -> None:
    """Without a handshake each request has its own POST: its notifications and its response,
    streamed or in one JSON body, are read as related to it."""

    async def answer(request: web.Request) -> Reply:
        rid = (await request.json())["id"]
        frames = [log("working"), result(rid, {"tools": []})]
        if streamed:
            return Reply(200, headers=SSE, stream=Script(b"".join(map(event, frames))))
        return Reply(200, headers=JSON, json=frames)

    transport = StatelessHTTPTransport(await serve(answer))
    try:
        request = b'{"jsonrpc":"2.0","id":"r-7","method":"tools/list"}'
        await transport.write(Outbound.of(request))
        got = [await asyncio.wait_for(transport.read(), STEP_S) for _ in range(2)]
    finally:
        await transport.close()
    assert all(isinstance(frame, Inbound) and frame.related == "r-7" for frame in got), got
