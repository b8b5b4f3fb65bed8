"""The decorator app against the low-level ``Server`` it sits on: ``tools/call`` round trips per
second over the in-memory transport (no pipes: what is measured is the layer, not the OS),
sequential, counted in CPU time of the process (client and server both: robust when the cores
are shared), medians of 5 interleaved runs, printed side by side with the ratio.

Then the same over real stdio: each server in its own process (``--serve app|low``), the
client spawning it; printed are round trips per wall second and the server process's CPU
time per call (read from /proc, so on Linux), the figure robust to shared cores."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generated import v2025_11_25  # noqa: E402
from generated.runtime import App, ServerBase, memory_pair, spawn_server  # noqa: E402
from generated.v2025_11_25 import Client, Server, ServerContext  # noqa: E402
from generated.v2025_11_25 import types as t  # noqa: E402

CALLS = 3000
RUNS = 5


def decorated() -> ServerBase:
    """The ``add`` tool on the decorator app (arguments validated, structured result)."""
    app = App("bench", revision=v2025_11_25)

    @app.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    return app.server()


class LowLevel(Server):
    """The same tool written by hand on the low-level Server (same result on the wire)."""

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Add a and b."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        total = int(args["a"]) + int(args.get("b", 2))
        return t.CallToolResult(
            content=[t.TextContent(text=f'{{"result":{total}}}')],
            structured_content={"result": total},
        )


async def rate(server: ServerBase) -> float:
    """Sequential tools/call round trips per second."""
    client_end, server_end = memory_pair()
    task = asyncio.create_task(server.serve(server_end))
    client = Client(timeout=10.0)
    await client.connect(client_end)
    for _ in range(100):  # warm up
        await client.call_tool(name="add", arguments={"a": 1})
    start = time.process_time()
    for i in range(CALLS):
        await client.call_tool(name="add", arguments={"a": i})
    elapsed = time.process_time() - start
    await client.close()
    await task
    return CALLS / elapsed


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stdio_rate(kind: str) -> tuple[float, float]:
    """Sequential tools/call round trips per wall second over stdio, and server CPU s/call."""
    transport = await spawn_server(sys.executable, [__file__, "--serve", kind])
    client = Client(timeout=10.0)
    await client.connect(transport)
    for _ in range(100):  # warm up
        await client.call_tool(name="add", arguments={"a": 1})
    pid = transport.process.pid
    cpu, start = _cpu_seconds(pid), time.perf_counter()
    for i in range(CALLS):
        await client.call_tool(name="add", arguments={"a": i})
    elapsed, cpu = time.perf_counter() - start, _cpu_seconds(pid) - cpu
    await client.close()
    return CALLS / elapsed, cpu / CALLS


async def main() -> None:
    """Measure both, alternating, and print the medians and the ratio."""
    ours: list[float] = []
    low: list[float] = []
    for _ in range(RUNS):
        low.append(await rate(LowLevel()))
        ours.append(await rate(decorated()))
    low_rate, app_rate = statistics.median(low), statistics.median(ours)
    print(f"tools/call, sequential, in memory, per CPU second ({CALLS} calls, median of {RUNS})")
    print(f"  low-level Server  {low_rate:10.0f} calls/s  1.00x")
    print(f"  decorator App     {app_rate:10.0f} calls/s  {low_rate / app_rate:.2f}x the time")
    if not Path("/proc/self/stat").exists():
        return
    runs: dict[str, list[tuple[float, float]]] = {"low": [], "app": []}
    for _ in range(RUNS):
        for kind, found in runs.items():
            found.append(await stdio_rate(kind))
    (low_wall, low_cpu), (app_wall, app_cpu) = (
        (statistics.median(r for r, _ in found), statistics.median(c for _, c in found))
        for found in runs.values()
    )
    print(f"tools/call over stdio, sequential ({CALLS} calls, median of {RUNS})")
    for name, wall, cpu in (
        ("low-level Server", low_wall, low_cpu),
        ("decorator App", app_wall, app_cpu),
    ):
        print(
            f"  {name:16}  {wall:10.0f} calls/s  server {cpu * 1e6:6.1f} us CPU/call"
            f"  {cpu / low_cpu:.2f}x the server CPU"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        (decorated() if sys.argv[2] == "app" else LowLevel()).run_stdio()
    else:
        asyncio.run(main())
