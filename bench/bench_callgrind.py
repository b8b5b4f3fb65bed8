"""Instructions per stdio ``tools/call`` (callgrind): server, client and bridge, x1 and x16.

Instruction counts do not move with the load of the machine, so two trees are compared by
their code alone. Server: the fixture server (``tests.support.era_fixture_server stdio``) of
a tree runs under ``valgrind --tool=callgrind`` and a raw NDJSON client (the same bytes for
every tree, bench/bench_percall.py) sends it ``FEW`` and then, in another run, ``MANY`` calls
the difference of the two totals over ``MANY - FEW`` calls leaves out start-up. Client: our
client of the tree (2026-07-28 or 2025-11-25) runs under callgrind against the same fixture
server (not under valgrind), the same way. The minimal NDJSON pair (bench/peers/raw_echo.py)
is measured beside them, server and client, as the floor. Bridge: ``mcpgen bridge`` of a tree
(its ``run_bridge``, without the command line) runs under callgrind between the same raw
client, asking for the handshake revision, and this tree's echo server of that revision (not
under valgrind): the same-revision relay's cost per call (``roles/bridge_relay.py``); its floor
is a minimal NDJSON byte relay (bench/peers/raw_relay.py) in front of the raw echo server.
Cross: the same bridge and client before an echo server of the stateless revision only: the
converting bridge's cost per call (a handshake client's requests to a stateless server).
``python bench/bench_callgrind.py [--root TREE ...] [server|client|bridge|cross]``: ratios to
the first root and to the floor are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_percall import (  # noqa: E402
    HANDSHAKE,
    STATELESS,
    TOOL,
    Lines,
    call_frame,
    fixture_module,
    initialize_frame,
    python_of,
)

FEW = 64
MANY = 576
FLOOR = str(ROOT / "bench" / "peers" / "raw_echo.py")
RELAY_FLOOR = str(ROOT / "bench" / "peers" / "raw_relay.py")
ECHO = [sys.executable, str(ROOT / "bench" / "peers" / "echo_server.py"), HANDSHAKE]
ECHO_STATELESS = [*ECHO[:-1], STATELESS]
"""The echo server of the stateless revision only: a handshake client's calls are converted."""
ENV = {**os.environ, "PYTHONHASHSEED": "0"}


def _valgrind(out: str) -> list[str]:
    return ["valgrind", "--tool=callgrind", "--trace-children=no", f"--callgrind-out-file={out}"]


def _total(out: str) -> int:
    """The instruction total of a callgrind output file."""
    for line in Path(out).read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


ECHO_PARAMS = {"name": "echo", "arguments": {"text": "x"}}
"""The params of a call to an echo server (the floors', the bridge's upstream)."""


async def _serve(root: Path | None, era: str, concurrent: int, calls: int, out: str) -> int:
    """Run a server under callgrind for ``calls`` calls; its instruction total."""
    if root is None:
        return await _drive([sys.executable, FLOOR], ROOT, STATELESS, concurrent, calls, out)
    argv = [python_of(root), "-m", fixture_module(root), "stdio"]
    return await _drive(argv, root, era, concurrent, calls, out, tool=None)


async def _bridge(
    root: Path | None, concurrent: int, calls: int, out: str, upstream: list[str] = ECHO
) -> int:
    """Run a bridge under callgrind for ``calls`` calls to ``upstream`` (a server of the
    client's revision: relayed; ``ECHO_STATELESS``: converted); its instruction total."""
    if root is None:
        argv = [sys.executable, RELAY_FLOOR, sys.executable, FLOOR]
        return await _drive(argv, ROOT, STATELESS, concurrent, calls, out)
    argv = [python_of(root), __file__, "--as-bridge", str(root), *upstream]
    return await _drive(argv, root, HANDSHAKE, concurrent, calls, out)


async def _drive(
    argv: list[str],
    cwd: Path,
    era: str,
    concurrent: int,
    calls: int,
    out: str,
    tool: dict[str, object] | None = ECHO_PARAMS,
) -> int:
    """Run ``argv`` under callgrind, send it ``calls`` calls of ``era`` (after the handshake
    for the handshake era), ``tool``'s params in them (None: the fixture's); its total."""
    process = await asyncio.create_subprocess_exec(
        *_valgrind(out),
        *argv,
        cwd=cwd,
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    lines = Lines(process)
    try:
        if era == HANDSHAKE:
            await lines.exchange([initialize_frame()], 1)
            await lines.exchange([{"jsonrpc": "2.0", "method": "notifications/initialized"}], 0)
        ids = itertools.count(1)
        for _ in range(calls // concurrent):
            frames = [call_frame(next(ids), era) for _ in range(concurrent)]
            if tool is not None:
                for frame in frames:
                    frame["params"] = tool
            await lines.exchange(frames, concurrent)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        await process.wait()
    return _total(out)


def _as_bridge(tree: str, upstream: list[str]) -> None:
    """The bridge of one run (this process is the one under callgrind): stdio to ``upstream``."""
    sys.path.insert(0, tree)
    from generated._runtime.roles import bridge_run
    from generated.converters import BRIDGE

    main = bridge_run.run_bridge(
        BRIDGE, bridge_run.Upstream(command=upstream), bridge_run.Downstream()
    )
    try:
        from generated._runtime.roles.running import run_blocking
    except ImportError:  # a tree from before the bridge ran on uvloop
        asyncio.run(main)
    else:
        run_blocking(main)


def _client(root: Path | None, era: str, concurrent: int, calls: int, out: str) -> int:
    """Run a client under callgrind for ``calls`` calls; its instruction total."""
    tree = str(root) if root is not None else "floor"
    argv = [*_valgrind(out), sys.executable, __file__, "--as-client", tree, era, str(concurrent)]
    subprocess.run([*argv, str(calls)], cwd=root or ROOT, env=ENV, check=True)
    return _total(out)


async def _as_client(tree: str, era: str, concurrent: int, calls: int) -> None:
    """The client side of one run (this process is the one under callgrind)."""
    if tree == "floor":
        from bench.peers.raw_echo import RawClient

        raw = await RawClient.spawn(sys.executable, FLOOR)
        ids = itertools.count()
        for _ in range(calls // concurrent):
            await asyncio.gather(*(raw.call(next(ids), "x") for _ in range(concurrent)))
        await raw.wait_closed()
        return
    sys.path.insert(0, tree)
    fixture = ["-m", fixture_module(Path(tree)), "stdio"]
    client: object
    if era == STATELESS:
        from generated._runtime.roles.connect import connect_stateless
        from generated._runtime.transports.stdio import spawn_server
        from generated.v2026_07_28 import Client

        client = Client()
        await connect_stateless(client, await spawn_server(sys.executable, fixture, cwd=tree))
    else:
        from generated.v2025_11_25 import Client as HandshakeClient

        client = HandshakeClient()
        await client.connect_stdio(sys.executable, fixture, cwd=tree)
    call = client.call_tool  # type: ignore[attr-defined]
    for _ in range(calls // concurrent):
        await asyncio.gather(*(call(name=TOOL) for _ in range(concurrent)))
    await client.close()  # type: ignore[attr-defined]


def per_call(side: str, root: Path | None, era: str, concurrent: int) -> float:
    """Instructions per call: (total of ``MANY`` calls - total of ``FEW``) / (MANY - FEW)."""
    totals: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        for calls in (FEW, MANY):
            out = str(Path(folder) / f"cg.{calls}")
            if side == "server":
                totals.append(asyncio.run(_serve(root, era, concurrent, calls, out)))
            elif side == "bridge":
                totals.append(asyncio.run(_bridge(root, concurrent, calls, out)))
            elif side == "cross":
                upstream = ECHO_STATELESS
                totals.append(asyncio.run(_bridge(root, concurrent, calls, out, upstream)))
            else:
                totals.append(_client(root, era, concurrent, calls, out))
    return (totals[1] - totals[0]) / (MANY - FEW)


def main(roots: list[Path], sides: list[str]) -> None:
    """Print instructions per call for each tree and the floor, with ratios."""
    for side in sides:
        for concurrent in (1, 16):
            floor = per_call(side, None, STATELESS, concurrent)
            for era in (STATELESS, HANDSHAKE) if side not in ("bridge", "cross") else (HANDSHAKE,):
                figures = [per_call(side, root, era, concurrent) for root in roots]
                cells = ", ".join(
                    f"{root.name} {f / 1000:,.0f}k ({f / figures[0]:.2f}x, {f / floor:.2f}x floor)"
                    for root, f in zip(roots, figures, strict=True)
                )
                print(f"{side:6} {era} x{concurrent:<2}: {cells}; floor {floor / 1000:,.0f}k")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--as-client":
        tree, era, concurrent, calls = sys.argv[2:6]
        asyncio.run(_as_client(tree, era, int(concurrent), int(calls)))
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--as-bridge":
        _as_bridge(sys.argv[2], sys.argv[3:])
        sys.exit(0)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", type=Path, action="append", help="a source tree (repeatable)")
    parser.add_argument("sides", nargs="*", default=[])
    args = parser.parse_args()
    main(
        [r.resolve() for r in args.root or [ROOT]],
        args.sides or ["server", "client", "bridge", "cross"],
    )
