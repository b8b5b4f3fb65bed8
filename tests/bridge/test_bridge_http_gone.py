"""``mcpgen bridge --http`` when its upstream goes away: the real command, as a subprocess.

A 2025-06-18 client over Streamable HTTP has a ``tools/call`` in flight at
``changing_server.py`` (spawned by the bridge over stdio) when that server is killed: the call
is answered with an error, the bridge logs one line and exits 1, and no traceback is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket

import pytest

from generated._runtime.core.errors import MCPError
from generated._runtime.transports.http.client import connect_http
from generated.v2025_06_18 import Client
from tests.bridge.test_bridge_lifecycle import BOUND_S, GONE, ROOT, UPSTREAM, children, running
from tests.bridge.test_bridge_stdio import MCPGEN
from tests.support.process_support import free_port


async def listening(port: int, process: asyncio.subprocess.Process) -> None:
    """Wait (bounded) until ``port`` accepts connections while ``process`` runs."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while True:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert process.returncode is None, "the bridge exited before listening"
        assert loop.time() < deadline, "the bridge did not listen"
        await asyncio.sleep(0.1)


async def test_upstream_killed_with_an_http_request_in_flight() -> None:
    """The HTTP request in flight gets an error; the bridge logs one line and exits 1."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        MCPGEN,
        "bridge",
        "--http",
        f"127.0.0.1:{port}",
        "--",
        *UPSTREAM,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    client = Client()
    upstream = 0
    try:
        await listening(port, process)
        [upstream] = children(process.pid)
        await asyncio.wait_for(connect_http(client, f"http://127.0.0.1:{port}/mcp"), BOUND_S)
        call = asyncio.create_task(client.call_tool(name="sleep", arguments={"s": 60}))
        await asyncio.wait_for(client.list_tools(), BOUND_S)  # served; the call is upstream
        await asyncio.sleep(0.5)
        os.kill(upstream, signal.SIGKILL)
        with pytest.raises(MCPError) as failed:
            await asyncio.wait_for(call, BOUND_S)
        assert GONE in failed.value.message, failed.value
        code = await asyncio.wait_for(process.wait(), BOUND_S)
        assert process.stderr is not None
        logged = (await asyncio.wait_for(process.stderr.read(), BOUND_S)).decode()
    finally:
        with contextlib.suppress(Exception):
            await client.close()
        for pid in (upstream, process.pid):
            if pid and running(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.wait_for(process.wait(), BOUND_S)
    assert code == 1, logged
    assert logged.count(GONE) == 1, logged
    assert "Traceback" not in logged, logged
