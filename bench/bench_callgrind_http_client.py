"""Instructions per HTTP ``tools/call`` of the client alone (callgrind), with aiohttp's floor.

Our client of a tree (2026-07-28: a POST per request without a session; 2025-11-25: a
session answered with JSON bodies) runs under ``valgrind --tool=callgrind`` against that
tree's HTTP server (``bench/peers/ours_http.py``, not under valgrind) and makes ``FEW`` and
then, in another run, ``MANY`` calls, sequential or ``CONCURRENCY`` at a time; the difference
of the two totals over ``MANY - FEW`` leaves out start-up. The floor is aiohttp (the client
library our transport uses) POSTing a fixed request to the fixed-body ASGI endpoint
(``bench/peers/floor_http.py``), measured the same way. Instruction counts do not move with
the load of the machine, so trees are compared by their code alone.
``python bench/bench_callgrind_http_client.py [--root TREE ...] [--profile]``: ratios to the
first root and to the floor (``--profile``: Python calls per call, cProfile, no valgrind).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import os
import socket
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_client_path import command_line, counted, print_profile, ratios  # noqa: E402
from bench.bench_percall import HANDSHAKE, STATELESS, python_of  # noqa: E402

FEW = 100
MANY = 900
CONCURRENCY = 16
ENV = {**os.environ, "PYTHONHASHSEED": "0"}
SERVER_MODE = {STATELESS: "2026-07-28", HANDSHAKE: "json-2025-11-25"}
"""The mode of ``ours_http.py`` each client era talks to."""
FLOOR = "floor"


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (``bench_http``'s is not imported: it imports this tree's
    generated package, and the client of each ``--root`` must be that root's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(root: Path, argv: list[str]) -> Generator[str]:
    """Run an HTTP server (not under valgrind) on a free port; yield its MCP URL."""
    port = free_port()
    process = subprocess.Popen([*argv[:2], str(port), *argv[2:]], cwd=root, env=ENV)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def _spread(call: Any, calls: int, concurrent: int) -> None:
    """Make ``calls`` calls, ``concurrent`` at a time."""
    numbers = iter(range(calls))

    async def worker() -> None:
        for _ in numbers:
            await call()

    await asyncio.gather(*(worker() for _ in range(concurrent)))


async def _ours(tree: str, era: str, url: str, calls: int, concurrent: int, profile: bool) -> None:
    """Connect our client of ``era`` to ``url`` and make ``calls`` calls."""
    sys.path.insert(0, tree)
    from generated._runtime.transports.http.client import connect_http

    client: Any
    if era == STATELESS:
        from generated.v2026_07_28 import Client

        client = Client(name="bench")
    else:
        from generated.v2025_11_25 import Client as HandshakeClient

        client = HandshakeClient(name="bench")
    await connect_http(client, url)

    async def call() -> None:
        await client.call_tool(name="echo", arguments={"text": "m"})

    await _spread(call, concurrent, concurrent)  # warm: every connection of the pool open
    profiler = cProfile.Profile() if profile else None
    if profiler is not None:
        profiler.enable()
    await _spread(call, calls, concurrent)
    if profiler is not None:
        print_profile(profiler, calls, f"{era} x{concurrent}", "tottime")
    await client.close()


async def _floor(url: str, calls: int, concurrent: int) -> None:
    """aiohttp POSTing a fixed request to the fixed-body endpoint ``calls`` times."""
    import aiohttp

    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
    headers = {"content-type": "application/json", "accept": "application/json"}
    async with aiohttp.ClientSession() as http:

        async def call() -> None:
            async with http.post(url, data=body, headers=headers) as response:
                response.raise_for_status()
                await response.read()

        await _spread(call, concurrent, concurrent)
        await _spread(call, calls, concurrent)


def per_call(root: Path, era: str, concurrent: int) -> float:
    """Instructions per call of the client of ``root`` (or the floor, ``era`` FLOOR)."""
    python = python_of(root)
    peer = str(root / "bench" / "peers" / ("floor_http.py" if era == FLOOR else "ours_http.py"))
    argv = [python, peer] if era == FLOOR else [python, peer, SERVER_MODE[era]]
    with serving(root, argv) as url:
        here = [python, __file__, "--as-client", str(root), era, url]
        return counted(root, lambda calls: [*here, str(calls), str(concurrent)], FEW, MANY)


def main(roots: list[Path], profile: bool) -> None:
    """Print instructions (or Python calls) per call for each tree and the floor."""
    for concurrent in (1, CONCURRENCY):
        if profile:
            for era in (STATELESS, HANDSHAKE):
                python = python_of(roots[0])
                argv = [python, str(roots[0] / "bench" / "peers" / "ours_http.py")]
                with serving(roots[0], [*argv, SERVER_MODE[era]]) as url:
                    asyncio.run(_ours(str(roots[0]), era, url, MANY, concurrent, True))
            continue
        floor = per_call(roots[0], FLOOR, concurrent)
        print(f"HTTP client x{concurrent}: floor (aiohttp) {floor / 1000:,.1f}k")
        for era in (STATELESS, HANDSHAKE):
            figures = [per_call(root, era, concurrent) for root in roots]
            print(f"  {era}: {ratios(roots, figures, floor)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--as-client":
        tree, era, url, calls, concurrent = sys.argv[2:7]
        if era == FLOOR:
            asyncio.run(_floor(url, int(calls), int(concurrent)))
        else:
            asyncio.run(_ours(tree, era, url, int(calls), int(concurrent), False))
        sys.exit(0)
    main(*command_line(__doc__))
