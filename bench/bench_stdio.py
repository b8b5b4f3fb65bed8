"""stdio benchmarks, run side by side and printed as ratios.

- ``tools/call`` round trips per second, sequential and 16 in flight: our client x our server,
  the official SDK's client x its low-level server, and the floor: a minimal asyncio NDJSON
  client/server pair with msgspec (bench/peers/raw_echo.py: no MCP, one line in and one out
  per call, no drain, no stream reader).
- Cold start: spawn a server and time until the initialize response arrives (ours vs the SDK's).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import ServerCPU  # noqa: E402
from bench.peers.raw_echo import RawClient  # noqa: E402
from generated.v2025_06_18 import Client  # noqa: E402

PEERS = Path(__file__).resolve().parent / "peers"
CALLS = 2000
CONCURRENCY = 16
COLD_RUNS = 5
ROUNDS = 3


class Rate(NamedTuple):
    """Calls per second, and the server process's CPU time per call (microseconds)."""

    per_s: float
    server_us: float


async def timed(calls: int, concurrency: int, call: Callable[[int], Awaitable[object]]) -> Rate:
    """Time ``calls`` calls with ``concurrency`` in flight."""
    queue = iter(range(calls))

    async def worker() -> None:
        for i in queue:
            await call(i)

    cpu = ServerCPU()
    cpu.start()
    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    cpu.stop()
    return Rate(calls / elapsed, cpu.spent_ns / 1000 / calls)


async def bench_ours(concurrency: int) -> Rate:
    """Our client against our server."""
    client = Client(name="bench")
    await client.connect_stdio(sys.executable, [str(PEERS / "echo_server.py"), "2025-06-18"])
    try:
        await client.call_tool(name="echo", arguments={"text": "warm"})
        return await timed(
            CALLS, concurrency, lambda i: client.call_tool(name="echo", arguments={"text": f"m{i}"})
        )
    finally:
        await client.close()


async def bench_sdk(concurrency: int) -> Rate:
    """The official SDK's client against its low-level server."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(PEERS / "sdk_server.py")])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("echo", {"text": "warm"})
        return await timed(
            CALLS, concurrency, lambda i: session.call_tool("echo", {"text": f"m{i}"})
        )


async def bench_raw(concurrency: int) -> Rate:
    """The floor: a minimal asyncio NDJSON pair with msgspec (bench/peers/raw_echo.py)."""
    client = await RawClient.spawn(sys.executable, str(PEERS / "raw_echo.py"))
    try:
        await client.call(-1, "warm")
        return await timed(CALLS, concurrency, lambda i: client.call(i, f"m{i}"))
    finally:
        client.close()


async def cold_ours() -> float:
    """Seconds from spawn to initialize result, our server."""
    start = time.perf_counter()
    client = Client(name="bench")
    await client.connect_stdio(sys.executable, [str(PEERS / "echo_server.py"), "2025-06-18"])
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed


async def cold_sdk() -> float:
    """Seconds from spawn to initialize result, the SDK's server (timed with our client)."""
    start = time.perf_counter()
    client = Client(name="bench")
    await client.connect_stdio(sys.executable, [str(PEERS / "sdk_server.py")])
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed


async def main() -> None:
    """Run everything and print rates and ratios."""
    for concurrency in (1, CONCURRENCY):
        # Rounds side by side, medians: other processes share the cores.
        rounds = [
            (
                await bench_ours(concurrency),
                await bench_sdk(concurrency),
                await bench_raw(concurrency),
            )
            for _ in range(ROUNDS)
        ]
        ours, sdk, raw = (
            Rate(*(statistics.median(r[i][k] for r in rounds) for k in range(2))) for i in range(3)
        )
        label = "sequential" if concurrency == 1 else f"{concurrency} in flight"
        print(
            f"stdio tools/call, {label}: ours {ours.per_s:,.0f}/s, SDK {sdk.per_s:,.0f}/s, "
            f"raw floor {raw.per_s:,.0f}/s; ours/SDK = {ours.per_s / sdk.per_s:.1f}x, "
            f"raw/ours = {raw.per_s / ours.per_s:.2f}x (time)"
        )
        print(
            f"  server CPU per call: ours {ours.server_us:.1f} us, SDK {sdk.server_us:.1f} us, "
            f"raw floor {raw.server_us:.1f} us; ours/raw = {ours.server_us / raw.server_us:.2f}x"
        )
    ours_cold = statistics.median([await cold_ours() for _ in range(COLD_RUNS)])
    sdk_cold = statistics.median([await cold_sdk() for _ in range(COLD_RUNS)])
    print(
        f"cold start to initialize result: ours {ours_cold * 1000:.0f} ms, "
        f"SDK {sdk_cold * 1000:.0f} ms; ours/SDK = {ours_cold / sdk_cold:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
