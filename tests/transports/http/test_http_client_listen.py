"""The Streamable HTTP client's GET stream is open when ``connect_http`` returns.

A server may send a request unprompted on the GET stream only (the official TypeScript SDK
does so for a request its tool handler sends without naming the call it serves) and drops it
when no GET stream is open yet. So the handshake waits, up to ``listen_wait`` seconds, for the
server to answer the GET before the first call can go out (scripted fakes of
``test_http_client_fake``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from generated import v2025_06_18
from generated._runtime.transports.http.client import connect_http
from generated.v2025_06_18 import types as t
from tests.support.http_support import bounded
from tests.transports.http.test_http_client_fake import SSE, Fake, Hit, Reply, Script, event, result

STEP_S = 30.0
ELICIT = {
    "jsonrpc": "2.0",
    "id": "q-1",
    "method": "elicitation/create",
    "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}},
}


class Answering(v2025_06_18.Client):
    """Accepts every elicitation with a fixed answer."""

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: Any) -> t.ElicitResult:
        """Accept, naming Ada."""
        return t.ElicitResult(action="accept", content={"name": "Ada"})


class SlowListener:
    """A server whose GET answer takes ``delay`` s; a tools/call asks its question on the GET
    stream if one is open (and answers with what the client said), else drops it."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.listening = asyncio.Event()
        self.ask = asyncio.Event()
        self.hold = asyncio.Event()
        self.said: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.fake = Fake(self.answer)

    async def answer(self, hit: Hit) -> Reply:
        """The GET after ``delay``; a tools/call; the client's answer to the question."""
        if hit.method == "GET":
            await asyncio.sleep(self.delay)
            self.listening.set()
            return Reply(200, headers=SSE, stream=Script(self.ask, event(ELICIT), self.hold))
        if "result" in hit.body:
            self.said.set_result(hit.body["result"])
            return Reply(202)
        rid = hit.body["id"]
        if not self.listening.is_set():  # nowhere to ask: the question is dropped
            text, error = "no GET stream to ask on", True
        else:
            self.ask.set()
            text, error = json.dumps(await self.said), False
        body = {"content": [{"type": "text", "text": text}], "isError": error}
        return Reply(200, headers={"content-type": "application/json"}, json=result(rid, body))


@bounded
async def test_a_question_on_the_get_stream_right_after_connect_is_answered() -> None:
    """The GET is answered 0.3 s after it came: the first call, made as soon as ``connect_http``
    returned, finds the stream open, and the client's answer reaches the tool."""
    server = SlowListener(0.3)
    client = Answering(timeout=STEP_S)
    await connect_http(client, await server.fake.start())
    try:
        assert server.listening.is_set()
        called = await client.call_tool(name="ask")
    finally:
        server.hold.set()
        await client.close()
    assert called.is_error is False
    assert isinstance(called.content[0], t.TextContent)
    assert json.loads(called.content[0].text) == {"action": "accept", "content": {"name": "Ada"}}
    hits = server.fake.hits
    methods = [hit.body.get("method", "answer") if hit.body else hit.method for hit in hits]
    assert methods[:4] == ["initialize", "notifications/initialized", "GET", "tools/call"]


@bounded
async def test_a_get_never_answered_holds_connect_only_listen_wait() -> None:
    """A server that never answers the GET: ``connect_http`` returns after ``listen_wait``
    seconds, and calls work (the tool reports it had nowhere to ask)."""
    server = SlowListener(STEP_S * 2)
    client = Answering(timeout=STEP_S)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await connect_http(client, await server.fake.start(), listen_wait=0.2)
    took = loop.time() - started
    try:
        called = await client.call_tool(name="ask")
    finally:
        server.hold.set()
        await client.close()
    assert 0.2 <= took < 5.0
    assert called.is_error is True
    assert isinstance(called.content[0], t.TextContent)
    assert called.content[0].text == "no GET stream to ask on"
