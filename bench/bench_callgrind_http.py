"""Instructions per HTTP ``tools/call`` POST of the server alone (callgrind), with the floor.

The HTTP server of ``bench/bench_http_server.py`` (the same modes and the same raw-socket
client) runs under ``valgrind --tool=callgrind``; after a warm-up its counters are zeroed
(``callgrind_control -z``), ``CALLS`` POSTs are made (sequential, then over 16 connections)
and the counters dumped (``callgrind_control -d``): the dump's total over ``CALLS`` is the
instructions per POST, start-up left out. Instruction counts do not move with the machine's
load, so trees are compared by their code alone: ``--root TREE`` (repeatable) runs that tree's
``bench/peers`` with its own virtualenv. The fixed-body ASGI app (``peers/floor_http.py``) on
the same uvicorn + httptools + uvloop stack is the floor.
``python bench/bench_callgrind_http.py [--root TREE ...] [MODE ...]`` (modes: json, sse,
stateless, 2026-07-28, and json-2025-11-25: a 2025-11-25 session with JSON answers; default all).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_http import free_port  # noqa: E402
from bench.bench_http_server import (  # noqa: E402
    META,
    MODES,
    STATELESS,
    VERSION,
    Connection,
    message,
    start_session,
)
from bench.bench_percall import python_of  # noqa: E402

CALLS = 400
WARMUP = 48
CONNECTIONS = (1, 16)
ENV = {**os.environ, "PYTHONHASHSEED": "0"}
SESSIONS = {"json": VERSION, "sse": VERSION, "json-2025-11-25": "2025-11-25"}
"""The modes with a session, and the revision each one initializes."""
CG_MODES = (*MODES, "json-2025-11-25")


async def _post_all(base: str, mode: str, session_id: str | None, conns: int, calls: int) -> None:
    """Make ``calls`` tools/call POSTs over ``conns`` keep-alive connections."""
    opened = [await Connection.open(base) for _ in range(conns)]
    numbers = iter(range(calls))

    async def worker(conn: Connection) -> None:
        conn.session_id = session_id
        conn.version = SESSIONS.get(mode, conn.version)
        if mode == STATELESS:
            conn.version = STATELESS
            conn.extra = "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
        for i in numbers:
            params: dict[str, object] = {"name": "echo", "arguments": {"text": f"m{i}"}}
            if mode == STATELESS:
                params["_meta"] = META
            status, _, answer = await conn.post(message(i + 1, "tools/call", params))
            if status != 200 or b'"result"' not in answer:
                raise RuntimeError(f"unexpected answer {status}: {answer[:200]!r}")

    await asyncio.gather(*(worker(conn) for conn in opened))
    for conn in opened:
        conn.close()


def _control(flag: str, pid: int) -> None:
    subprocess.run(["callgrind_control", flag, str(pid)], check=True, capture_output=True)


def _total(path: Path) -> int:
    """The instruction total of a callgrind output file."""
    for line in path.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


async def _wait_port(port: int, process: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.returncode is not None:
            raise RuntimeError("the server under callgrind exited")
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        await asyncio.sleep(0.5)
    raise RuntimeError("the server under callgrind did not start")


async def per_post(root: Path | None, mode: str) -> dict[int, float]:
    """Instructions per POST of one server (``root`` None: the floor), by connections."""
    tree = root or ROOT
    script = "floor_http.py" if root is None else "ours_http.py"
    port = free_port()
    figures: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cg.out"
        argv = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            python_of(tree),
            str(tree / "bench" / "peers" / script),
            str(port),
            *([mode] if root is not None else []),
        ]
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=tree, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            await _wait_port(port, process)
            base = f"http://127.0.0.1:{port}"
            session = await start_session(base, SESSIONS[mode]) if mode in SESSIONS else None
            for dump, conns in enumerate(CONNECTIONS, 1):
                await _post_all(base, mode, session, conns, WARMUP)
                _control("-z", process.pid)
                await _post_all(base, mode, session, conns, CALLS)
                _control("-d", process.pid)
                figures[conns] = _total(Path(f"{out}.{dump}")) / CALLS
        finally:
            process.terminate()
            await process.wait()
    return figures


async def main(roots: list[Path], modes: list[str]) -> None:
    """Print instructions per POST for the floor and each mode of each tree, with ratios."""
    floor = await per_post(None, "")
    print("floor: " + ", ".join(f"x{c} {f / 1000:,.0f}k" for c, f in floor.items()), flush=True)
    for mode in modes:
        figures = [await per_post(root, mode) for root in roots]
        for conns in CONNECTIONS:
            first = figures[0][conns]
            cells = ", ".join(
                f"{root.name} {f[conns] / 1000:,.0f}k ({f[conns] / first:.2f}x, "
                f"{f[conns] / floor[conns]:.2f}x floor)"
                for root, f in zip(roots, figures, strict=True)
            )
            print(f"{mode:10} x{conns:<2}: {cells}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", type=Path, action="append", help="a source tree (repeatable)")
    parser.add_argument("modes", nargs="*", help=f"any of {', '.join(CG_MODES)} (default: all)")
    args = parser.parse_args()
    if unknown := set(args.modes) - set(CG_MODES):
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    roots = [r.resolve() for r in args.root or [ROOT]]
    asyncio.run(main(roots, args.modes or list(CG_MODES)))
