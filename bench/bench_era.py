"""2026-07-28 against 2025-11-25 on our stack, and the official SDK's 2026-07-28 stack.

``tools/call`` per second, sequential and 16 in flight, over stdio and Streamable HTTP:
our 2026-07-28 client (stateless, per-request ``_meta``) and our 2025-11-25 client (session)
against our dual-era fixture server, and the SDK's client pinned to 2026-07-28 against the
SDK's low-level server (over HTTP: JSON responses, stateless). Both of our clients call the
same fixture tool (``test_simple_text``).
Beside them runs the floor, printed as floor/ours: over stdio a minimal asyncio NDJSON pair with
msgspec (bench/peers/raw_echo.py); over HTTP aiohttp (the client library of our transport)
POSTing to a fixed-body ASGI app on the same uvicorn + httptools + uvloop stack
(bench/peers/floor_http.py).
Medians of 3 runs; printed with ratios. ``python bench/bench_era.py stdio`` (or ``http``) runs
one transport only.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.peers.raw_echo import RawClient  # noqa: E402
from generated._runtime.roles.connect import connect_stateless  # noqa: E402
from generated._runtime.transports.http.client import connect_http  # noqa: E402
from generated._runtime.transports.stdio import spawn_server  # noqa: E402
from generated.v2025_11_25 import Client as HandshakeClient  # noqa: E402
from generated.v2026_07_28 import Client  # noqa: E402

CALLS = 1000
CONCURRENCY = 16
RUNS = 3
FIXTURE = ["-m", "tests.support.era_fixture_server"]
TOOL = "test_simple_text"
"""A fixture tool both eras serve (the handshake side converts the same handler's result)."""
SDK_SERVER = str(ROOT / "tests" / "support" / "era_sdk_server.py")
SDK_HTTP = str(ROOT / "bench" / "peers" / "sdk_http.py")
"""The SDK's server over HTTP: JSON responses and stateless, as its docs advise for one request
per POST (its 2026-07-28 JSON mode answers in the ASGI task), under ``uvicorn.run`` (uvloop,
httptools) as ours and the floor."""


async def rate(call: Callable[[], Awaitable[Any]], concurrent: int) -> float:
    """Calls per second: ``CALLS`` calls, ``concurrent`` in flight."""
    for _ in range(50):
        await call()
    start = time.perf_counter()
    if concurrent == 1:
        for _ in range(CALLS):
            await call()
    else:
        for _ in range(CALLS // concurrent):
            await asyncio.gather(*(call() for _ in range(concurrent)))
    return CALLS / (time.perf_counter() - start)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _wait_port(port: int) -> None:
    for _ in range(1200):  # up to 60 s: the SDK's server starts slowly on a busy machine
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        await asyncio.sleep(0.05)
    raise RuntimeError("server did not start")


async def ours(era: str, transport: str, concurrent: int) -> float:
    """Our client of ``era`` against our dual-era fixture server."""
    process = None
    if transport == "http":
        port = _port()
        process = subprocess.Popen([sys.executable, *FIXTURE, str(port)], cwd=ROOT)
        await _wait_port(port)
    try:
        if era == "2026-07-28":
            client: Any = Client()
            if process is None:
                end = await spawn_server(sys.executable, [*FIXTURE, "stdio"], cwd=str(ROOT))
                await connect_stateless(client, end)
            else:
                await connect_http(client, f"http://127.0.0.1:{port}/mcp")
            call = lambda: client.call_tool(name=TOOL)  # noqa: E731
        else:
            client = HandshakeClient()
            if process is None:
                await client.connect_stdio(sys.executable, [*FIXTURE, "stdio"], cwd=str(ROOT))
            else:
                await connect_http(client, f"http://127.0.0.1:{port}/mcp")
            call = lambda: client.call_tool(name=TOOL)  # noqa: E731
        try:
            if (await call()).is_error is True:  # timing error results measures nothing
                raise RuntimeError(f"{era}: the fixture's {TOOL} failed")
            return await rate(call, concurrent)
        finally:
            await client.close()
    finally:
        if process is not None:
            process.terminate()
            process.wait(5)


async def sdk(transport: str, concurrent: int) -> float:
    """The SDK's client pinned to 2026-07-28 against its low-level server."""
    import mcp_types as types
    from mcp import Client as SdkClient
    from mcp.client.stdio import StdioServerParameters

    warnings.filterwarnings("ignore")
    process = None
    target: Any = StdioServerParameters(command=sys.executable, args=[SDK_SERVER])
    if transport == "http":  # its fastest documented setup, on the same uvicorn stack as ours
        port = _port()
        process = subprocess.Popen([sys.executable, SDK_HTTP, str(port), "stateless"], cwd=ROOT)
        await _wait_port(port)
        target = f"http://127.0.0.1:{port}/mcp"
    try:
        async with SdkClient(target, mode="2026-07-28", cache=None) as client:
            args = {"text": "x"}
            result = await rate(lambda: client.call_tool("echo", args), concurrent)
            del types
            return result
    finally:
        if process is not None:
            process.terminate()
            process.wait(5)


async def http_floor(concurrent: int) -> float:
    """The HTTP floor: aiohttp POSTing to a fixed-body ASGI app (bench/peers/floor_http.py)."""
    import aiohttp

    port = _port()
    script = str(ROOT / "bench" / "peers" / "floor_http.py")
    process = subprocess.Popen([sys.executable, script, str(port)], cwd=ROOT)
    await _wait_port(port)
    url = f"http://127.0.0.1:{port}/mcp"
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
    headers = {"content-type": "application/json", "accept": "application/json"}
    try:
        async with aiohttp.ClientSession() as http:

            async def call() -> None:
                async with http.post(url, data=body, headers=headers) as response:
                    response.raise_for_status()
                    await response.read()

            return await rate(call, concurrent)
    finally:
        process.terminate()
        process.wait(5)


async def floor(concurrent: int) -> float:
    """The stdio floor: a minimal asyncio NDJSON pair with msgspec (bench/peers/raw_echo.py)."""
    client = await RawClient.spawn(sys.executable, str(ROOT / "bench" / "peers" / "raw_echo.py"))
    ids = iter(range(1 << 30))
    try:
        return await rate(lambda: client.call(next(ids), "x"), concurrent)
    finally:
        client.close()


async def main(transports: list[str]) -> None:
    """Print the table."""
    for transport in transports:
        for concurrent in (1, CONCURRENCY):
            row: dict[str, float] = {}
            runs: list[tuple[str, Callable[[], Awaitable[float]]]] = [
                ("ours 2026-07-28", functools.partial(ours, "2026-07-28", transport, concurrent)),
                ("ours 2025-11-25", functools.partial(ours, "2025-11-25", transport, concurrent)),
                ("sdk 2026-07-28", functools.partial(sdk, transport, concurrent)),
            ]
            floor_run = floor if transport == "stdio" else http_floor
            runs.append(("floor", functools.partial(floor_run, concurrent)))
            for name, run in runs:
                row[name] = statistics.median([await run() for _ in range(RUNS)])
            base = row["sdk 2026-07-28"]
            cells = ", ".join(f"{k} {v:,.0f}/s ({v / base:.1f}x sdk)" for k, v in row.items())
            print(f"{transport:5} x{concurrent:<2} tools/call: {cells}")
            if "floor" in row:
                print(
                    "  floor/ours: "
                    + ", ".join(f"{k} {row['floor'] / row[k]:.2f}x" for k in row if "ours" in k)
                )


if __name__ == "__main__":
    chosen = [t for t in sys.argv[1:] if t in ("stdio", "http")]
    asyncio.run(main(chosen or ["stdio", "http"]))
