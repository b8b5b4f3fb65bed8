"""2026-07-28 over Streamable HTTP on the wire: exact error frames and statuses, SSE, listen."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.support.era_support import EchoHandshake, FixtureServer
from tests.support.http_support import parse_events, serve

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
}
SERVER_INFO = {"name": "mcpgen-conformance-fixture", "version": "1.0.0"}


def headers(method: str, name: str | None = None, version: str = V) -> dict[str, str]:
    out = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": version,
        "mcp-method": method,
    }
    if name is not None:
        out["mcp-name"] = name
    return out


async def post(
    client: httpx.AsyncClient, method: str, params: dict[str, Any], extra: dict[str, str]
) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return await client.post("/mcp", content=json.dumps(body), headers=extra)


@pytest.fixture
async def client() -> Any:
    async with (
        serve([FixtureServer(), EchoHandshake()]) as (_, url),
        httpx.AsyncClient(base_url=url, timeout=30) as http,
    ):
        yield http


@pytest.mark.parametrize(
    ("params", "hdrs", "status", "error"),
    [
        (
            {},
            headers("tools/list"),
            400,
            {"code": -32602, "message": "Invalid params: _meta is required"},
        ),
        (
            {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}},
            headers("tools/list", version="1900-01-01"),
            400,
            {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": [V, "2025-11-25"], "requested": "1900-01-01"},
            },
        ),
        (
            {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}},
            headers("tools/list"),
            400,
            {
                "code": -32020,
                "message": "Header mismatch: MCP-Protocol-Version '2026-07-28' does not match "
                "_meta '1900-01-01'",
            },
        ),
        (
            {"_meta": META},
            headers("prompts/list"),
            400,
            {
                "code": -32020,
                "message": "Header mismatch: Mcp-Method header value 'prompts/list' does not "
                "match body value 'tools/list'",
            },
        ),
    ],
)
async def test_refusals_are_exact(
    client: httpx.AsyncClient,
    params: dict[str, Any],
    hdrs: dict[str, str],
    status: int,
    error: dict[str, Any],
) -> None:
    response = await post(client, "tools/list", params, hdrs)
    assert response.status_code == status
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "error": error}


async def test_unknown_and_removed_methods_are_404_minus_32601(client: httpx.AsyncClient) -> None:
    for method in ("ping", "logging/setLevel", "nope/nope"):
        response = await post(client, method, {"_meta": META}, headers(method))
        assert response.status_code == 404
        assert response.json() == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32601, "message": f"Method not found: {method}"},
        }


async def test_missing_client_capability_is_400_minus_32021(client: httpx.AsyncClient) -> None:
    params = {"_meta": META, "name": "test_missing_capability", "arguments": {}}
    response = await post(
        client, "tools/call", params, headers("tools/call", "test_missing_capability")
    )
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32021,
            "message": "this request needs the client capability 'sampling'",
            "data": {"requiredCapabilities": {"sampling": {}}},
        },
    }


async def test_custom_header_must_mirror_the_argument(client: httpx.AsyncClient) -> None:
    await post(client, "tools/list", {"_meta": META}, headers("tools/list"))
    params = {"_meta": META, "name": "test_custom_header", "arguments": {"region": "日本"}}
    missing = await post(client, "tools/call", params, headers("tools/call", "test_custom_header"))
    assert missing.status_code == 400 and missing.json()["error"]["code"] == -32020
    ok_headers = {
        **headers("tools/call", "test_custom_header"),
        "mcp-param-region": "=?base64?5pel5pys?=",
    }
    ok = await post(client, "tools/call", params, ok_headers)
    assert ok.status_code == 200
    assert ok.json()["result"]["content"] == [{"type": "text", "text": "region 日本"}]


async def test_cacheable_results_carry_hints_and_server_info(client: httpx.AsyncClient) -> None:
    tools = (await post(client, "tools/list", {"_meta": META}, headers("tools/list"))).json()[
        "result"
    ]
    assert (tools["ttlMs"], tools["cacheScope"], tools["resultType"]) == (
        60000,
        "public",
        "complete",
    )
    assert tools["_meta"] == {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
    names = [tool["name"] for tool in tools["tools"]]
    assert names == sorted(names)
    prompts = (await post(client, "prompts/list", {"_meta": META}, headers("prompts/list"))).json()
    assert (prompts["result"]["ttlMs"], prompts["result"]["cacheScope"]) == (0, "private")


async def test_notifications_turn_the_answer_into_sse(client: httpx.AsyncClient) -> None:
    meta = {**META, "io.modelcontextprotocol/logLevel": "info", "progressToken": "t"}
    params = {"_meta": meta, "name": "test_tool_with_progress", "arguments": {}}
    response = await post(
        client, "tools/call", params, headers("tools/call", "test_tool_with_progress")
    )
    assert response.headers["content-type"] == "text/event-stream"
    events = [e.data for e in parse_events(response.content)]
    assert [e.get("method") for e in events[:3]] == ["notifications/progress"] * 3
    assert events[1]["params"] == {"progressToken": "t", "progress": 50, "total": 100}
    assert events[-1]["id"] == 7 and events[-1]["result"]["resultType"] == "complete"


async def test_get_and_delete_are_405_for_the_stateless_era(client: httpx.AsyncClient) -> None:
    for verb in ("GET", "DELETE"):
        response = await client.request(verb, "/mcp", headers=headers("tools/list"))
        assert response.status_code == 405


async def test_tampered_state_is_minus_32602(client: httpx.AsyncClient) -> None:
    name = "test_input_required_result_request_state"
    params: dict[str, Any] = {
        "_meta": {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "name": name,
        "arguments": {},
    }
    first = (await post(client, "tools/call", params, headers("tools/call", name))).json()["result"]
    assert first["resultType"] == "input_required" and "ttlMs" not in first
    params["requestState"] = first["requestState"] + "x"
    params["inputResponses"] = {"confirm": {"action": "accept", "content": {"ok": True}}}
    response = await post(client, "tools/call", params, headers("tools/call", name))
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32602, "message": "Invalid params: invalid requestState: tampered"},
    }


async def test_a_stateless_post_whose_client_leaves_cancels_its_handler() -> None:
    """A handler that waits runs on after the POST's first turn; the client closing the
    connection cancels it and nothing is sent. One that answers at once is answered."""
    import asyncio

    from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
    from generated.v2026_07_28 import Server, ServerContext
    from generated.v2026_07_28 import types as t

    started, cancelled = asyncio.Event(), asyncio.Event()

    class Waiting(Server):
        """``wait`` waits until cancelled; other tools answer at once."""

        async def call_tool(self, params: t.CallToolRequestParams, ctx: ServerContext) -> Any:
            """Wait (for ``wait``) or answer."""
            if params.name == "wait":
                started.set()
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    cancelled.set()
                    raise
            return t.CallToolResult(content=[t.TextContent(text=params.name)])

    app = McpHttpApp([Waiting()], HttpOptions(json_response=True))

    async def call(name: str, leave: asyncio.Event) -> list[dict[str, Any]]:
        params = {"name": name, "arguments": {}, "_meta": META}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        messages = [{"type": "http.request", "body": body.encode(), "more_body": False}]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            await leave.wait()
            return {"type": "http.disconnect"}

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/mcp",
            "headers": [(k.encode(), v.encode()) for k, v in headers("tools/call", name).items()]
            + [(b"host", b"127.0.0.1")],
            "query_string": b"",
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 2),
            "scheme": "http",
            "root_path": "",
        }
        await app(scope, receive, send)
        return sent

    answered = await asyncio.wait_for(call("now", asyncio.Event()), 5)
    assert answered[0]["status"] == 200
    assert json.loads(answered[1]["body"])["result"]["content"][0]["text"] == "now"
    leave = asyncio.Event()
    waiting = asyncio.create_task(call("wait", leave))
    await asyncio.wait_for(started.wait(), 30)
    leave.set()
    assert await asyncio.wait_for(waiting, 30) == []
    assert cancelled.is_set()
