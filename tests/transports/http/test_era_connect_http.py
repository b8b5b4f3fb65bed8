"""``connect_http`` with a 2026-07-28 client speaks that revision (discover, a POST per request)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from generated._runtime.core.transport import ConnectionClosed
from generated._runtime.transports.http.base import RawSend
from generated._runtime.transports.http.sse import DEFAULT_MAX_EVENT_CHARS
from generated.runtime import connect_http
from generated.v2026_07_28 import Client, Server, ServerContext
from generated.v2026_07_28 import types as t
from tests.support.http_support import serve


class Greeter(Server):
    """Asks a name (an MRTR round) and greets."""

    name = "greeter"

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Greet whoever the client says it is."""
        schema = t.ElicitRequestFormParamsRequestedSchema(properties={"name": t.StringSchema()})
        form = t.ElicitRequestFormParams(message="Name?", requested_schema=schema)
        answer = await ctx.elicit(params=form)
        return t.CallToolResult(
            content=[t.TextContent(text=f"hello {(answer.content or {})['name']}")]
        )


class Ada(Client):
    """Answers as Ada."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, as Ada."""
        return t.ElicitResult(action="accept", content={"name": "Ada"})


async def test_connect_http_with_a_2026_07_28_client_discovers_and_calls() -> None:
    async with serve(Greeter()) as (_, base), Ada() as client:
        found = await connect_http(client, f"{base}/mcp")
        assert isinstance(found, t.DiscoverResult)
        assert "2026-07-28" in found.supported_versions
        assert client.initialize_result is found
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool(name="greet")
        assert result.content == [t.TextContent(text="hello Ada")]


class CountingAuth:
    """An ``HttpAuth`` hook: no token on the first try; on 401 it "authorizes" and retries."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str | None]] = []
        self.token: str | None = None

    async def send(
        self,
        http: aiohttp.ClientSession,
        raw_send: RawSend,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        stream: bool,
    ) -> aiohttp.ClientResponse:
        """Send with the token if there is one; on 401 take one and send again."""
        for _ in range(2):
            with_token = dict(headers)
            if self.token is not None:
                with_token["Authorization"] = f"Bearer {self.token}"
            response = await raw_send(method, url, with_token, body, stream)
            self.sent.append((json.loads(body or b"{}").get("method"), self.token))
            if response.status != 401:
                return response
            response.release()
            self.token = "granted"
        return response


async def guarded(request: web.Request) -> web.StreamResponse:
    """A 2026-07-28 endpoint that wants ``Bearer granted`` and answers discover / echo."""
    if request.headers.get("Authorization") != "Bearer granted":
        return web.Response(status=401, headers={"WWW-Authenticate": 'Bearer realm="t"'})
    frame = await request.json()
    if frame["method"] == "server/discover":
        result: dict[str, Any] = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "guarded", "version": "1"},
        }
    else:
        result = {"resultType": "complete", "content": [{"type": "text", "text": "in"}]}
    return web.json_response({"jsonrpc": "2.0", "id": frame["id"], "result": result})


async def huge_event(request: web.Request) -> web.StreamResponse:
    """Answers discover, then streams one SSE event larger than the client's bound."""
    frame = await request.json()
    if frame["method"] == "server/discover":
        return await guarded_discover(frame)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    await response.write(b"event: message\ndata: " + b"x" * (DEFAULT_MAX_EVENT_CHARS + 10))
    await response.write(b"\n\n")
    return response


async def guarded_discover(frame: dict[str, Any]) -> web.Response:
    """The discover answer of ``guarded``, without the token check."""
    result = {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "huge", "version": "1"},
    }
    return web.json_response({"jsonrpc": "2.0", "id": frame["id"], "result": result})


@contextlib.asynccontextmanager
async def aiohttp_endpoint(handler: Any) -> AsyncIterator[str]:
    """Serve ``handler`` at /mcp on a free loopback port; yield its URL."""
    app = web.Application()
    app.router.add_post("/mcp", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        await runner.cleanup()


async def test_auth_hook_authorizes_every_2026_07_28_post() -> None:
    """``connect_http(auth=...)``: the probe and each call go through the hook (401 -> retry)."""
    auth = CountingAuth()
    async with aiohttp_endpoint(guarded) as url, Client() as client:
        await connect_http(client, url, auth=auth)
        result = await client.call_tool(name="echo")
        assert result.content == [t.TextContent(text="in")]
    assert auth.sent == [
        ("server/discover", None),
        ("server/discover", "granted"),
        ("tools/call", "granted"),
    ]


async def test_an_oversized_sse_event_fails_the_call_with_a_clear_error() -> None:
    """An SSE event past the bound ends that request with ConnectionClosed; nothing buffers it."""
    async with aiohttp_endpoint(huge_event) as url, Client() as client:
        await connect_http(client, url)
        with pytest.raises(ConnectionClosed, match="too large"):
            await client.call_tool(name="echo")


REGION_TOOL = {
    "name": "stamp",
    "inputSchema": {
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    },
}


def recording(seen: list[tuple[str, dict[str, str]]]) -> Any:
    """A 2026-07-28 endpoint that notes each POST's method and ``Mcp-*`` / version headers."""

    async def handler(request: web.Request) -> web.StreamResponse:
        frame = await request.json()
        mirrored = ("mcp-", "mcp-protocol-version")
        kept = {k.lower(): v for k, v in request.headers.items() if k.lower().startswith(mirrored)}
        seen.append((frame["method"], kept))
        if frame["method"] == "server/discover":
            return await guarded_discover(frame)
        result: dict[str, Any] = {"resultType": "complete"}
        if frame["method"] == "tools/list":
            result["tools"] = [REGION_TOOL]
        else:
            result["content"] = [{"type": "text", "text": "in"}]
        return web.json_response({"jsonrpc": "2.0", "id": frame["id"], "result": result})

    return handler


async def test_each_post_mirrors_its_request_in_headers() -> None:
    """The version of the request's ``_meta``, its method, its tool's name and the tool's
    ``x-mcp-header`` argument (learned from ``tools/list``) go out as headers."""
    seen: list[tuple[str, dict[str, str]]] = []
    async with aiohttp_endpoint(recording(seen)) as url, Client() as client:
        await connect_http(client, url)
        await client.list_tools()
        await client.call_tool(name="stamp", arguments={"region": "eu", "other": [1, 2]})
        await client.call_tool(name="plain", arguments={"region": "us"})
    assert seen[1:] == [
        ("tools/list", {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}),
        (
            "tools/call",
            {
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/call",
                "mcp-name": "stamp",
                "mcp-param-region": "eu",
            },
        ),
        (
            "tools/call",
            {
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/call",
                "mcp-name": "plain",
            },
        ),
    ]
