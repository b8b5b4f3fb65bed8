"""``mcpgen bridge`` with Streamable HTTP on one side: a stdio client to an HTTP server, an HTTP
client to a stdio server (the demo's every step, to a 2026-07-28-only server), the reverse
direction over HTTP, and the downstream bearer check."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.support.process_support import http_process

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
MCPGEN = str(Path(PYTHON).parent / "mcpgen")
DEMO = str(ROOT / "examples" / "demo_server.py")
DEMO_CLIENT = str(ROOT / "examples" / "demo_client.py")
STATELESS_ONLY = [DEMO, "--only", "2026-07-28"]


def bridge_http(port: int, *upstream: str) -> list[str]:
    """``python -m mcpgen bridge --http 127.0.0.1:PORT -- UPSTREAM`` (for ``http_process``)."""
    return ["-m", "mcpgen", "bridge", "--http", f"127.0.0.1:{port}", "--", PYTHON, *upstream]


def demo_client(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the demo client (every step, checked) with ``args``."""
    return subprocess.run(
        [PYTHON, DEMO_CLIENT, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-06-18"])
def test_stdio_client_to_an_http_upstream(revision: str) -> None:
    """The demo client over stdio passes every step through the bridge to a 2026-07-28 HTTP server;
    one session line."""
    with http_process(lambda port: [*STATELESS_ONLY, "--http", f"127.0.0.1:{port}"]) as url:
        done = demo_client("--revision", revision, MCPGEN, "bridge", "--url", url)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every step behaved as expected" in done.stdout
    assert f"session: client {revision} over stdio <-> server 2026-07-28 over HTTP" in done.stderr


def test_http_client_to_a_stdio_upstream() -> None:
    """The demo client over Streamable HTTP passes every step through the bridge to a stdio
    upstream."""
    with http_process(lambda port: bridge_http(port, *STATELESS_ONLY)) as url:
        done = demo_client(url)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every step behaved as expected" in done.stdout


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    """Answer an elicitation as Ada with two guests."""
    return types.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})


async def test_stateless_http_client_to_a_handshake_stdio_upstream() -> None:
    """A 2026-07-28 SDK client over HTTP reaches a 2025-06-18-only stdio server; its elicitation is
    an MRTR round."""
    with http_process(lambda port: bridge_http(port, DEMO, "--only", "2025-06-18")) as url:
        async with Client(
            url, mode="2026-07-28", elicitation_callback=elicit, read_timeout_seconds=30
        ) as client:
            echoed = await client.call_tool("echo", {"text": "over http"})
            assert echoed.content[0].text == "over http"  # type: ignore[union-attr]
            booked = await client.call_tool("book_table", {})
            assert booked.content[0].text.startswith("booked a table for 2")  # type: ignore[union-attr]


def test_the_http_side_checks_the_bearer_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """With MCPGEN_BRIDGE_TOKEN set, a POST without the token is 401 and one with it is served."""
    monkeypatch.setenv("MCPGEN_BRIDGE_TOKEN", "s3cret")
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with http_process(lambda port: bridge_http(port, *STATELESS_ONLY)) as url:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 401
        init = (
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
        )
        signed = {**headers, "Authorization": "Bearer s3cret"}
        request = urllib.request.Request(url, data=init, headers=signed, method="POST")
        with urllib.request.urlopen(request, timeout=30) as answered:
            assert answered.status == 200
            assert b'"protocolVersion":"2025-06-18"' in answered.read()


def test_the_bridge_exits_with_one_line_when_the_upstream_goes_away() -> None:
    """An upstream that exits before answering ends the bridge with one stderr line and exit 1."""
    gone = [PYTHON, "-c", "import sys; sys.stdin.read(1)"]  # reads one byte, exits silently
    done = subprocess.run(
        [MCPGEN, "bridge", "--", *gone], input="", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcpgen bridge: stopped:"), done.stderr
