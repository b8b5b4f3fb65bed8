"""The runtime reports through ``logging`` (one logger per module), and the blocking HTTP runner
says where it listens."""

from __future__ import annotations

import asyncio
import logging
import re
import sys

import httpx
import pytest

from generated.v2025_06_18 import Client, Server, ServerContext
from generated.v2025_06_18 import types as t
from tests.conftest import ROOT
from tests.examples.test_demo import INITIALIZE
from tests.support.runtime_support import STEP_S, connected


class Broken(Server):
    """A tool handler with a bug."""

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Fail as a bug would."""
        raise ZeroDivisionError("bug in the tool")


async def test_failing_handler_is_logged_on_the_peer_logger(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """A handler's exception goes to the peer module's logger with its traceback, not stderr."""
    caplog.set_level(logging.ERROR, logger="generated._runtime.roles.peer")
    async with connected(Broken(), Client(timeout=STEP_S)) as (client, _, _):
        with pytest.raises(Exception, match="Internal error") as info:
            await client.call_tool(name="x")
        assert "bug in the tool" not in str(info.value)
    records = [r for r in caplog.records if r.name == "generated._runtime.roles.peer"]
    assert len(records) == 1, caplog.records
    assert records[0].getMessage() == "handler of tools/call (request 2) failed"
    assert records[0].exc_info is not None and records[0].exc_info[0] is ZeroDivisionError
    assert "Traceback" not in capfd.readouterr().err


async def test_http_runner_says_where_it_listens() -> None:
    """``run_http`` on port 0 logs the real URL of the MCP endpoint, and that URL answers."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "demo_server.py"),
        "--http",
        "127.0.0.1:0",
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        found = re.fullmatch(
            r"INFO \S+\.transports\.http\.server: serving MCP over HTTP at "
            r"(http://127\.0\.0\.1:(\d+)/mcp) \(Ctrl\+C to stop\)\n",
            line,
        )
        assert found, line
        assert int(found.group(2)) > 0
        async with httpx.AsyncClient() as http:
            reply = await http.post(
                found.group(1),
                json=INITIALIZE,
                headers={"Accept": "application/json, text/event-stream"},
            )
        assert reply.status_code == 200, reply.text
        assert "2025-06-18" in reply.text
    finally:
        proc.terminate()
        await proc.wait()


def test_the_announced_socket_listens_before_uvicorn_starts() -> None:
    """The runner announces its URL only once the socket listens: a client that connects at
    once (before uvicorn's loop has started) is queued, not refused."""
    import socket

    import uvicorn

    from generated._runtime.transports.http.server import listening_socket

    config = uvicorn.Config(lambda *_: None, host="127.0.0.1", port=0)
    sock = listening_socket(config)
    try:
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1
        with socket.create_connection(sock.getsockname()[:2], timeout=5):
            pass  # accepted by the kernel's backlog, though nothing serves yet
    finally:
        sock.close()
