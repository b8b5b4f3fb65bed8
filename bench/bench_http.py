"""HTTP benchmarks, side by side, printed as ratios.

``tools/call`` requests per second, sequential and 16 concurrent: our client x our server
(SSE responses, JSON responses, stateless JSON), the official SDK's client x its server
(its default SSE mode and its stateless JSON mode), and the floor: aiohttp (the client
library our transport uses; measured here several times faster than httpx) posting to a
minimal ASGI endpoint that returns a fixed body. Every server runs under uvicorn (httptools,
uvloop) in its own process on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import ServerCPU  # noqa: E402
from generated._runtime.transports.http.client import connect_http  # noqa: E402
from generated.v2025_06_18 import Client  # noqa: E402

PEERS = Path(__file__).resolve().parent / "peers"
CALLS = 1000
CONCURRENCY = 16


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def server(script: str, *args: str) -> AsyncIterator[str]:
    """Run a server script on a free port; yield its base URL; stop it after."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(PEERS / script), str(port), *args])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


class Rate(NamedTuple):
    """Calls per second, and the server process's CPU time per call (microseconds)."""

    per_s: float
    server_us: float


async def timed(concurrency: int, call: Callable[[int], Awaitable[object]]) -> Rate:
    """Time ``CALLS`` calls with ``concurrency`` in flight."""
    numbers = iter(range(CALLS))

    async def worker() -> None:
        for i in numbers:
            await call(i)

    cpu = ServerCPU()
    cpu.start()
    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    cpu.stop()
    return Rate(CALLS / elapsed, cpu.spent_ns / 1000 / CALLS)


async def ours(mode: str, concurrency: int) -> Rate:
    """Our client against our server in ``mode`` (sse, json, stateless)."""
    async with server("ours_http.py", mode) as base:
        client = Client(name="bench")
        await connect_http(client, f"{base}/mcp")
        try:
            await client.call_tool(name="echo", arguments={"text": "warm"})
            return await timed(
                concurrency, lambda i: client.call_tool(name="echo", arguments={"text": f"m{i}"})
            )
        finally:
            await client.close()


async def sdk(mode: str, concurrency: int) -> Rate:
    """The official SDK's client against its server in ``mode``."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        server("sdk_http.py", mode) as base,
        streamable_http_client(f"{base}/mcp") as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        await session.call_tool("echo", {"text": "warm"})
        return await timed(concurrency, lambda i: session.call_tool("echo", {"text": f"m{i}"}))


async def floor(concurrency: int) -> Rate:
    """aiohttp (the client library our transport uses) POSTing to a fixed-body ASGI endpoint."""
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
    headers = {"content-type": "application/json", "accept": "application/json"}
    async with server("floor_http.py") as base, aiohttp.ClientSession() as http:

        async def call(i: int) -> None:
            async with http.post(f"{base}/mcp", data=body, headers=headers) as response:
                response.raise_for_status()
                await response.read()

        await call(-1)  # the same warm-up call as the other rows: a connection open before
        return await timed(concurrency, call)


async def main() -> None:
    """Run every configuration and print rates and ratios."""
    for concurrency in (1, CONCURRENCY):
        label = "sequential" if concurrency == 1 else f"{concurrency} concurrent"
        base = await floor(concurrency)
        sdk_sse = await sdk("sse", concurrency)
        sdk_stateless = await sdk("stateless", concurrency)
        print(
            f"HTTP tools/call, {label}: floor {base.per_s:,.0f}/s, "
            f"SDK SSE {sdk_sse.per_s:,.0f}/s ({sdk_sse.server_us:.0f} us server CPU/call), "
            f"SDK stateless JSON {sdk_stateless.per_s:,.0f}/s ({sdk_stateless.server_us:.0f} us)"
        )
        for mode in ("sse", "json", "stateless"):
            rate = await ours(mode, concurrency)
            print(
                f"  ours ({mode}): {rate.per_s:,.0f}/s ({rate.server_us:.0f} us server CPU/call); "
                f"ours/SDK SSE = {rate.per_s / sdk_sse.per_s:.1f}x, "
                f"ours/SDK stateless = {rate.per_s / sdk_stateless.per_s:.1f}x, "
                f"floor/ours = {base.per_s / rate.per_s:.2f}x; server CPU ours/SDK SSE = "
                f"{rate.server_us / sdk_sse.server_us:.2f}x"
            )


if __name__ == "__main__":
    asyncio.run(main())
