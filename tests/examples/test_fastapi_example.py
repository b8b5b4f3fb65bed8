"""The FastAPI example: the MCP app mounted at ``/mcp`` routes relative to ``root_path``, our
client follows the mount's trailing-slash redirect, the SDK client works, and the mount type
checks under mypy and pyright strict."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent

from generated.runtime import HttpOptions, McpHttpApp, connect_http
from generated.v2025_11_25 import Client, Server
from generated.v2025_11_25 import types as t
from tests.conftest import ROOT
from tests.support.process_support import serving
from tests.support.typecheck_support import strict_check

EXAMPLE = ROOT / "examples" / "fastapi_app.py"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """The example application under uvicorn, in its own process."""
    with serving(lambda port: [sys.executable, str(EXAMPLE), str(port)], ROOT) as port:
        yield f"http://127.0.0.1:{port}"


def greeting(result: t.CallToolResult) -> str:
    """The text of the only block."""
    (block,) = result.content
    assert isinstance(block, t.TextContent), block
    return block.text


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
async def test_our_client_through_the_mount(base_url: str, path: str) -> None:
    """/mcp (redirected by Starlette to /mcp/) and /mcp/ both reach the MCP endpoint."""
    client = Client(timeout=30.0)
    init = await connect_http(client, base_url + path)
    try:
        assert init.protocol_version == "2025-11-25"
        assert [tool.name for tool in (await client.list_tools()).tools] == ["greet"]
        assert greeting(await client.call_tool(name="greet", arguments={"name": "Ada"})) == (
            "Hello, Ada!"
        )
    finally:
        await client.close()


async def test_sdk_client_through_the_mount(base_url: str) -> None:
    """The official SDK client speaks to the mounted app at /mcp."""
    async with (
        streamable_http_client(base_url + "/mcp") as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        result = await session.call_tool("greet", {"name": "Bo"})
        assert isinstance(result.content[0], TextContent)
        assert result.content[0].text == "Hello, Bo!"


def test_ordinary_routes_still_work(base_url: str) -> None:
    """The application's own routes are untouched by the mount."""
    assert httpx.get(base_url + "/health").json() == {"status": "ok"}
    assert httpx.get(base_url + "/elsewhere").status_code == 404


async def test_root_path_routing_without_a_framework() -> None:
    """Under a root_path the mount point and the configured path answer; others are 404; the
    HTTP+SSE endpoint event names the mounted messages path."""
    app = McpHttpApp(Server(), HttpOptions(http_sse=True))
    for path, expected in [("/api", 405), ("/api/", 405), ("/api/mcp", 405), ("/api/x", 404)]:
        assert await _status(app, path, "/api") == expected, path
    assert await _status(app, "/mcp", "") == 405
    assert await _status(app, "/", "") == 404


async def _status(app: McpHttpApp, path: str, root_path: str) -> int:
    """The status of a PUT (no MCP method takes it, so routing alone decides 404 vs 405)."""
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "PUT",
        "path": path,
        "root_path": root_path,
        "headers": [(b"host", b"127.0.0.1")],
        "query_string": b"",
    }
    await app(scope, receive, send)
    status = sent[0]["status"]
    assert isinstance(status, int)
    return status


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_the_example_type_checks_strictly(checker: str, tmp_path: Path) -> None:
    """``app.mount("/mcp", McpHttpApp(...))`` is assignable to Starlette's ASGIApp."""
    strict_check(checker, EXAMPLE, tmp_path)


class _Answer:
    """What ``_same_origin_redirect`` reads of a response."""

    def __init__(self, status: int, location: str | None) -> None:
        self.status = status
        self.headers = {} if location is None else {"Location": location}


@pytest.mark.parametrize(
    ("status", "location", "expected"),
    [
        (307, "/mcp/", "http://h:1/mcp/"),
        (308, "http://h:1/other", "http://h:1/other"),
        (307, "http://evil:1/mcp/", None),  # another origin: never re-sent there
        (307, "https://h:1/mcp/", None),  # another scheme
        (302, "/mcp/", None),  # 301/302/303 would turn a POST into a GET
        (307, None, None),
    ],
)
def test_only_same_origin_307_308_are_followed(
    status: int, location: str | None, expected: str | None
) -> None:
    """The client re-sends a request only where the same origin sends it, method kept."""
    from generated._runtime.transports.http.base import _same_origin_redirect

    answer: Any = _Answer(status, location)
    assert _same_origin_redirect(answer, "http://h:1/mcp") == expected
