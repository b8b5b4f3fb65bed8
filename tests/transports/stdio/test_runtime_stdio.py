"""The runtime over a real stdio subprocess: serving, bad lines, a dying server, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from generated._runtime.core.errors import INVALID_REQUEST, PARSE_ERROR
from generated._runtime.core.transport import ConnectionClosed
from generated._runtime.transports.stdio import (
    DEFAULT_MAX_FRAME,
    SHUTDOWN_GRACE_S,
    SubprocessTransport,
    spawn_server,
)
from generated.v2025_06_18 import Client
from tests.support.runtime_support import RawPeer, first_text

SCRIPT = str(Path(__file__).resolve().parents[2] / "support" / "stdio_server.py")
START_S = 30.0
"""Starting Python and importing the generated package may be slow on a loaded CI machine."""


def process_of(client: Client) -> asyncio.subprocess.Process:
    """The server process behind a client connected over stdio."""
    transport = client.peer.transport
    assert isinstance(transport, SubprocessTransport)
    return transport.process


@contextlib.asynccontextmanager
async def stdio_client() -> AsyncIterator[Client]:
    """A client connected to the stdio test server; closed (and the process gone) afterwards."""
    client = Client(name="stdio-test", timeout=START_S)
    await asyncio.wait_for(client.connect_stdio(sys.executable, [SCRIPT]), START_S)
    try:
        yield client
    finally:
        process = process_of(client)
        await asyncio.wait_for(client.close(), 3 * SHUTDOWN_GRACE_S + 1)
        if process.returncode is None:  # never leave a process behind, even on failure
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def raw_stdio() -> AsyncIterator[RawPeer]:
    """The stdio test server driven by hand, already initialized."""
    transport = await spawn_server(sys.executable, [SCRIPT])
    raw = RawPeer(transport)
    try:
        params = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        await raw.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert "result" in await raw.recv(START_S)
        await raw.notify("notifications/initialized")
        yield raw
    finally:
        await asyncio.wait_for(transport.close(), 3 * SHUTDOWN_GRACE_S + 1)


async def echo(raw: RawPeer, id_: int) -> None:
    """Prove the stdio server still serves."""
    reply = await raw.call(id_, "tools/call", {"name": "echo", "arguments": {"n": id_}})
    assert reply["id"] == id_ and reply["result"]["content"][0]["text"] == f'{{"n": {id_}}}'


async def test_call_over_stdio_and_close_runs_the_shutdown_sequence() -> None:
    async with stdio_client() as client:
        assert client.server_info["name"] == "stdio-echo"
        result = await client.call_tool(name="echo", arguments={"a": [1, "b"]})
        assert first_text(result) == {"a": [1, "b"]}
        await client.ping()
        process = process_of(client)
        await client.close()
        # Closing stdin was enough: the server exited by itself, cleanly, before any SIGTERM
        # (the server installs no SIGTERM handler, so a SIGTERM would read -15 here).
        assert process.returncode == 0


async def test_close_escalates_to_sigterm_when_the_server_ignores_end_of_input() -> None:
    async with stdio_client() as client:
        frozen = asyncio.Event()
        pending = asyncio.create_task(
            client.call_tool(name="freeze", arguments={"s": 30}, progress=lambda _: frozen.set())
        )
        await asyncio.wait_for(frozen.wait(), START_S)
        process = process_of(client)
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.wait_for(client.close(), 3 * SHUTDOWN_GRACE_S + 1)
        elapsed = loop.time() - start
        assert process.returncode == -signal.SIGTERM
        assert SHUTDOWN_GRACE_S - 0.5 <= elapsed < 2 * SHUTDOWN_GRACE_S
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(pending, START_S)


async def test_stray_print_in_a_handler_does_not_corrupt_stdout() -> None:
    async with stdio_client() as client:
        result = await client.call_tool(name="shout", arguments={"k": 1})
        assert first_text(result) == {"k": 1}
        await client.ping()
        assert client.peer.violations == []  # the print went to stderr, not the protocol


async def test_malformed_line_over_stdio_gets_parse_error() -> None:
    async with raw_stdio() as raw:
        await raw.send(b"{not json")
        reply = await raw.recv()
        assert reply["id"] is None and reply["error"]["code"] == PARSE_ERROR
        await echo(raw, 1)


@pytest.mark.parametrize(
    "size",
    [5 * 1024 * 1024, DEFAULT_MAX_FRAME + 1024],
    ids=["over-the-session-limit", "over-the-stdio-line-limit"],
)
async def test_oversized_stdio_line_is_refused_and_the_server_keeps_serving(size: int) -> None:
    async with raw_stdio() as raw:
        await raw.send(
            b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"p":"' + b"x" * size + b'"}}'
        )
        reply = await raw.recv(START_S)
        assert reply["id"] is None and reply["error"]["code"] == INVALID_REQUEST
        assert "exceeds" in reply["error"]["message"]
        await echo(raw, 2)


ROUNDS = 3
"""The exit status races the end of the pipe: a few rounds make a wrong message show."""


async def test_killed_server_fails_the_pending_call_naming_the_exit_code() -> None:
    for _ in range(ROUNDS):
        async with stdio_client() as client:
            pending = asyncio.create_task(client.call_tool(name="sleep", arguments={"s": 60}))
            await client.ping()  # the call is in flight
            process_of(client).kill()
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(pending, START_S)
            assert "exited with code -9" in str(info.value)


async def test_server_exiting_by_itself_fails_the_pending_call_naming_the_exit_code() -> None:
    for _ in range(ROUNDS):
        async with stdio_client() as client:
            pending = asyncio.create_task(client.call_tool(name="exit", arguments={"code": 3}))
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(pending, START_S)
            assert "exited with code 3" in str(info.value)
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(client.ping(), START_S)


async def test_a_command_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(ConnectionClosed, match="cannot start MCP server"):
        await Client().connect_stdio(str(Path(SCRIPT).with_name("no-such-server")))
