"""``mcpgen bridge`` ends when either side goes away: the real command, as a subprocess.

The downstream client is raw JSON lines on the bridge's stdio (2025-06-18); the upstream is
``changing_server.py`` (2025-06-18 only), spawned by the bridge and found as its child process.
Upstream killed (with and without a request in flight): the request in flight gets an error,
the bridge logs one line and exits non-zero. Downstream stdin closed: the bridge ends its
upstream (no orphan left) and exits 0. Every wait is bounded: a hang fails, it does not hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from tests.bridge.test_bridge_stdio import BRIDGE

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = [sys.executable, str(ROOT / "tests" / "bridge" / "changing_server.py")]
BOUND_S = 20.0
"""The most any step may take: generous, so only a hang fails it."""
GONE = "the upstream server went away"


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Downstream:
    """The bridge subprocess and a JSON-lines client on its stdio."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.upstream_pid = 0
        self.initialized = b""
        """The bridge's answer to ``initialize``, as it came."""

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message."""
        await self.write(json.dumps(message).encode())

    async def write(self, frame: bytes) -> None:
        """Write one line as it is."""
        assert self.process.stdin is not None
        self.process.stdin.write(frame + b"\n")
        await self.process.stdin.drain()

    async def answer(self, request_id: Any) -> dict[str, Any]:
        """Read until the response to ``request_id`` (a hang fails after the bound)."""
        return dict(json.loads(await self.reply(request_id)))

    async def reply(self, request_id: Any) -> bytes:
        """The line answering ``request_id``, as it came (other lines skipped)."""
        while True:
            line = await self.line()
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return line

    async def line(self) -> bytes:
        """The next line the bridge writes (a hang fails after the bound)."""
        assert self.process.stdout is not None
        got = await asyncio.wait_for(self.process.stdout.readline(), BOUND_S)
        assert got, "the bridge closed its stdout"
        return got.rstrip(b"\n")

    async def exit_code(self) -> int:
        """Wait for the bridge to end (bounded)."""
        return await asyncio.wait_for(self.process.wait(), BOUND_S)

    async def stderr(self) -> str:
        """What the bridge logged (after it ended)."""
        assert self.process.stderr is not None
        return (await asyncio.wait_for(self.process.stderr.read(), BOUND_S)).decode()


@contextlib.asynccontextmanager
async def bridge(
    upstream: list[str] = UPSTREAM,
    revision: str = "2025-06-18",
    capabilities: dict[str, Any] | None = None,
    options: tuple[str, ...] = (),
) -> AsyncGenerator[Downstream]:
    """A started bridge to ``upstream``, a client of ``revision`` initialized (its answer kept
    as ``initialized``); both processes killed (by PID) after.

    ``options``: more options of ``mcpgen bridge`` (before the upstream's command).
    """
    process = await asyncio.create_subprocess_exec(
        *BRIDGE[:-1],
        *options,
        "--",
        *upstream,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    down = Downstream(process)
    try:
        await down.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": revision,
                    "capabilities": capabilities or {},
                    "clientInfo": {"name": "lifecycle", "version": "1"},
                },
            }
        )
        down.initialized = await down.reply(1)
        assert json.loads(down.initialized)["result"]["protocolVersion"] == revision
        await down.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        [down.upstream_pid] = children(process.pid)
        yield down
    finally:
        for pid in (down.upstream_pid, process.pid):
            if pid and running(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.wait_for(process.wait(), BOUND_S)


async def test_upstream_killed_with_a_request_in_flight() -> None:
    """The request in flight gets an error, the bridge logs one line (no traceback) and exits non-
    zero."""
    async with bridge() as down:
        call = {"name": "sleep", "arguments": {"s": 60}}
        await down.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        await down.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert "result" in await down.answer(3)  # the bridge is serving; the call is upstream
        await asyncio.sleep(0.5)
        os.kill(down.upstream_pid, signal.SIGKILL)
        answered = await down.answer(2)
        assert "error" in answered and "result" not in answered, answered
        code = await down.exit_code()
        logged = await down.stderr()
    assert code != 0, logged
    assert logged.count(GONE) == 1, logged
    assert "Traceback" not in logged, logged


async def test_upstream_killed_while_idle() -> None:
    """An idle bridge whose upstream is killed logs one line and exits non-zero."""
    async with bridge() as down:
        os.kill(down.upstream_pid, signal.SIGKILL)
        code = await down.exit_code()
        logged = await down.stderr()
    assert code != 0, logged
    assert logged.count(GONE) == 1, logged
    assert "Traceback" not in logged, logged


async def test_downstream_stdin_closed_ends_the_upstream_and_exits_0() -> None:
    """The client closing stdin ends the bridge with exit 0 and no upstream left running."""
    async with bridge() as down:
        upstream = down.upstream_pid
        assert running(upstream)
        assert down.process.stdin is not None
        down.process.stdin.close()
        code = await down.exit_code()
        logged = await down.stderr()
        assert code == 0, logged
        assert not running(upstream), "the upstream outlived the bridge"
    assert GONE not in logged, logged
    assert "Traceback" not in logged, logged


async def test_downstream_stdin_closed_with_a_request_in_flight() -> None:
    """The same with a call still running upstream: exit 0, no orphan, no traceback."""
    async with bridge() as down:
        upstream = down.upstream_pid
        call = {"name": "sleep", "arguments": {"s": 60}}
        await down.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        await asyncio.sleep(0.5)
        assert down.process.stdin is not None
        down.process.stdin.close()
        code = await down.exit_code()
        logged = await down.stderr()
        assert code == 0, logged
        assert not running(upstream), "the upstream outlived the bridge"
    assert "Traceback" not in logged, logged
