"""A client whose HTTP session expired renews it once; calls made meanwhile wait for it."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from generated import v2025_06_18
from generated._runtime.transports.http.client import StreamableHTTPTransport
from tests.transports.http.test_http_client_fake import (
    Fake,
    Hit,
    Reply,
    bounded,
    no_get,
    result,
    stop_servers,
)

__all__ = ["stop_servers"]  # the fixture that stops the fake servers


class SlowSecondSession(Fake):
    """A fake whose second initialize waits until the test lets it through."""

    def __init__(self, answer: Any) -> None:
        super().__init__(answer)
        self.renewing = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, request: web.Request) -> Reply:
        """Hold the initialize of session s-2 until ``release``."""
        if request.method == "POST" and self.session == "s-2":
            body = await request.json()
            if body.get("method") == "initialize":
                self.renewing.set()
                await self.release.wait()
        return await super().__call__(request)


@bounded
async def test_a_call_made_while_the_session_is_renewed_goes_into_the_new_session() -> None:
    def answer(hit: Hit) -> Reply:
        if hit.method == "GET" or hit.headers.get("mcp-session-id") == "s-1":
            return no_get(hit) or Reply(404)
        return Reply(200, json=result(hit.body["id"], {"tools": []}))

    fake = SlowSecondSession(answer)
    client = v2025_06_18.Client(timeout=30.0)
    await client.connect(StreamableHTTPTransport(await fake.start(), retry_delay=5.0))
    fake.session = "s-2"
    first = asyncio.create_task(client.list_tools())  # 404: starts the renewal
    await asyncio.wait_for(fake.renewing.wait(), 30.0)
    second = asyncio.create_task(client.list_tools())  # made while initialize is in flight
    await asyncio.sleep(0.05)
    fake.release.set()
    assert [r.tools for r in await asyncio.gather(first, second)] == [[], []]
    lists = [h for h in fake.hits if h.body and h.body.get("method") == "tools/list"]
    assert [h.headers["mcp-session-id"] for h in lists] == ["s-1", "s-2", "s-2"]
    await client.close()
