"""Server CPU per ``tools/call``, both eras, stdio and HTTP, 1 and 16 in flight (us/call).

The fixture server (``tests.support.era_fixture_server``) of a source tree runs as a child
process; a raw client (no MCP code: the same bytes for every tree) sends ``tools/call`` frames
and this script reads the CPU the server spent from ``/proc/<pid>/schedstat`` (bench/cpu.py).
So two trees are compared by the server code alone, and other work on the machine changes the
figures little. ``python bench/bench_percall.py [--root TREE ...] [stdio|http]``: with several
roots the runs alternate between them; medians of 3 are printed, with ratios to the first root.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import socket
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import ServerCPU  # noqa: E402

CALLS = 2000
WARMUP = 200
RUNS = 3
TOOL = "test_simple_text"
STATELESS = "2026-07-28"
HANDSHAKE = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
Send = Callable[[int], Awaitable[None]]


def call_frame(ident: int, era: str) -> dict[str, Any]:
    """A ``tools/call`` request of ``era`` (with its ``_meta`` when stateless)."""
    params: dict[str, Any] = {"name": TOOL, "arguments": {}}
    if era == STATELESS:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}


def initialize_frame() -> dict[str, Any]:
    """The ``initialize`` request of the handshake era."""
    params = {
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


class Lines:
    """A raw NDJSON client of a child process's stdin/stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def exchange(self, frames: list[dict[str, Any]], answers: int) -> None:
        """Write ``frames``, read ``answers`` response lines (each must carry a result)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(b"".join(msgspec.json.encode(f) + b"\n" for f in frames))
        for _ in range(answers):
            line = await self.process.stdout.readline()
            if b'"result"' not in line:
                raise RuntimeError(f"not a result: {line[:300]!r}")


async def _stdio(root: Path, era: str, concurrent: int) -> float:
    process = await asyncio.create_subprocess_exec(
        python_of(root),
        "-m",
        fixture_module(root),
        "stdio",
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    lines = Lines(process)
    try:
        if era == HANDSHAKE:
            await lines.exchange([initialize_frame()], 1)
            await lines.exchange([{"jsonrpc": "2.0", "method": "notifications/initialized"}], 0)
        ids = itertools.count(1)

        async def send(n: int) -> None:
            await lines.exchange([call_frame(next(ids), era) for _ in range(n)], n)

        return await _measure(send, concurrent)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        await process.wait()


async def _http(root: Path, era: str, concurrent: int) -> float:
    port = _port()
    process = subprocess.Popen(
        [python_of(root), "-m", fixture_module(root), str(port), "--json"],
        cwd=root,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    try:
        await _wait_port(port)
        async with httpx.AsyncClient(timeout=30) as client:
            if era == HANDSHAKE:
                answer = await client.post(url, json=initialize_frame(), headers=headers)
                headers["mcp-session-id"] = answer.headers["mcp-session-id"]
                headers["mcp-protocol-version"] = HANDSHAKE
                note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await client.post(url, json=note, headers=headers)
            else:
                headers |= {
                    "mcp-protocol-version": STATELESS,
                    "mcp-method": "tools/call",
                    "mcp-name": TOOL,
                }
            ids = itertools.count(1)

            async def post() -> None:
                body = msgspec.json.encode(call_frame(next(ids), era))
                answer = await client.post(url, content=body, headers=headers)
                if b'"result"' not in answer.content:
                    raise RuntimeError(f"not a result: {answer.content[:300]!r}")

            async def send(n: int) -> None:
                await asyncio.gather(*(post() for _ in range(n)))

            return await _measure(send, concurrent)
    finally:
        process.terminate()
        process.wait(5)


async def _measure(send: Send, concurrent: int) -> float:
    """Server microseconds of CPU per call, ``concurrent`` calls in flight."""
    for _ in range(WARMUP // concurrent):
        await send(concurrent)
    cpu = ServerCPU()
    cpu.start()
    for _ in range(CALLS // concurrent):
        await send(concurrent)
    cpu.stop()
    return cpu.spent_ns / 1000 / (CALLS // concurrent * concurrent)


def python_of(root: Path) -> str:
    """The Python of ``root``'s own virtualenv, else this one."""
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def fixture_module(root: Path) -> str:
    """The fixture server's module in ``root`` (tests/support/, or tests/ in older trees)."""
    if (root / "tests" / "support" / "era_fixture_server.py").exists():
        return "tests.support.era_fixture_server"
    return "tests.era_fixture_server"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _wait_port(port: int) -> None:
    for _ in range(200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        await asyncio.sleep(0.05)
    raise RuntimeError("server did not start")


async def main(roots: list[Path], transports: list[str]) -> None:
    """Print us/call per tree, medians of ``RUNS`` alternating runs, with ratios."""
    for transport in transports:
        run = _stdio if transport == "stdio" else _http
        for era in (STATELESS, HANDSHAKE):
            for concurrent in (1, 16):
                figures: dict[Path, list[float]] = {root: [] for root in roots}
                for _ in range(RUNS):
                    for root in roots:
                        figures[root].append(await run(root, era, concurrent))
                medians = [statistics.median(figures[root]) for root in roots]
                cells = ", ".join(
                    f"{root.name} {m:.1f} us ({m / medians[0]:.2f}x)"
                    for root, m in zip(roots, medians, strict=True)
                )
                print(f"{transport:5} {era} x{concurrent:<2}: {cells}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", type=Path, action="append", help="a source tree (repeatable)")
    parser.add_argument("transports", nargs="*", default=[])
    args = parser.parse_args()
    asyncio.run(main(args.root or [ROOT], args.transports or ["stdio", "http"]))
