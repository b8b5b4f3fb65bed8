"""A server never loads an HTTP client library: checked in a fresh interpreter, by sys.modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SERVE = """
import asyncio, json, sys
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp, run_http
from generated._runtime.transports.stdio import stdio_server
from generated.v2025_06_18 import Server, ServerContext
from generated.v2025_06_18 import types as t


class Echo(Server):
    async def call_tool(self, params: t.CallToolRequestParams, ctx: ServerContext):
        return t.CallToolResult(content=[t.TextContent(text=params.name)])


async def post(app, body):
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
    ]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    sent, given = [], []

    async def receive():
        if given:
            await asyncio.sleep(3600)
        given.append(1)
        return {"type": "http.request", "body": json.dumps(body).encode()}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def main():
    app = McpHttpApp(Echo(), HttpOptions(json_response=True, stateless=True))
    call = {"name": "x"}
    sent = await post(app, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    assert sent[0]["status"] == 200, sent
    assert b'"result"' in sent[-1]["body"], sent


asyncio.run(main())
import uvicorn  # what run_http serves with
print(sorted(name for name in ("aiohttp", "httpx", "requests") if name in sys.modules))
"""


def test_a_server_imports_no_http_client_library() -> None:
    """Serving over HTTP (the ASGI app, uvicorn) and over stdio loads neither aiohttp nor httpx."""
    proc = subprocess.run(
        [sys.executable, "-c", SERVE], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_the_http_client_does_load_aiohttp() -> None:
    """The check above can fail: importing the client transport loads aiohttp."""
    code = (
        "import sys\n"
        "import generated._runtime.transports.http.client\n"
        "print('aiohttp' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
