"""Instructions per ``tools/call`` of the client's own request path, without loop or driver.

The generated client of a tree (2026-07-28 or 2025-11-25) runs against a transport stub that
answers each request inside its write, with the bytes the fixture server sends: the answer is
taken before the caller awaits it, so a call never suspends and the event loop never turns.
What is counted is the client's work alone: the typed call, the capability check, the params
built and encoded, the frame queued and written, the answer decoded and handed back (plus the
stub's few lines that make the answer's bytes). Each run is under
``valgrind --tool=callgrind``; the difference of the totals of ``MANY`` and ``FEW`` calls
over ``MANY - FEW`` leaves out start-up. ``--profile`` prints the Python calls per request
instead (cProfile, which needs no valgrind).
``python bench/bench_client_path.py [--root TREE ...] [--profile]``: ratios to the first root.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_callgrind import _total, _valgrind  # noqa: E402
from bench.bench_percall import HANDSHAKE, STATELESS, TOOL  # noqa: E402

FEW = 200
MANY = 2200
ENV = {**os.environ, "PYTHONHASHSEED": "0"}
SERVER_INFO = b'{"name":"mcpgen-conformance-fixture","version":"1.0.0"}'
CAPABILITIES = b'{"tools":{"listChanged":true},"logging":{}}'
ANSWERS = {
    HANDSHAKE: {
        "initialize": b'{"protocolVersion":"2025-11-25","capabilities":'
        + CAPABILITIES
        + b',"serverInfo":'
        + SERVER_INFO
        + b"}",
        "tools/call": b'{"content":[{"type":"text","text":"This is a simple text response'
        b' for testing."}]}',
    },
    STATELESS: {
        "server/discover": b'{"supportedVersions":["2026-07-28"],"capabilities":'
        + CAPABILITIES
        + b',"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":'
        + SERVER_INFO
        + b'},"ttlMs":0,"cacheScope":"private"}',
        "tools/call": b'{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":'
        + SERVER_INFO
        + b'},"content":[{"type":"text","text":"This is a simple text response for testing."}]}',
    },
}
"""What the fixture server answers (``tests.support.era_fixture_server``), by method."""


class AnsweringStub:
    """A transport that answers each request of ours inside its write (nothing waits)."""

    def __init__(self, answers: dict[str, bytes]) -> None:
        self.answers = answers
        self.take: Any = None
        """The peer's ``take_now``, set once the client opened its connection."""
        self._closed = asyncio.Event()

    def write_now(self, message: Any) -> None:
        """Answer a request at once (its result's bytes, as the fixture server sends them)."""
        if message.kind == "request":
            answer = b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (
                message.ids[0],
                self.answers[message.method],
            )
            if self.take(answer) is not None:
                raise RuntimeError("taking an answer waited")

    async def write(self, message: Any, related: object = None) -> None:
        """As ``write_now``."""
        self.write_now(message)

    async def read(self) -> bytes | None:
        """Nothing to read until closed (answers are pushed by ``write_now``)."""
        await self._closed.wait()
        return None

    def negotiated(self, version: str) -> None:
        """Nothing to do."""

    async def close(self) -> None:
        """End ``read``."""
        self._closed.set()


class _Bound:
    """Hands the stub the peer's ``take_now`` once the client made its peer."""

    def __init__(self, client: Any, stub: AnsweringStub) -> None:
        self.client, self.stub = client, stub

    def __call__(self, frame: bytes) -> Any:
        self.stub.take = take = self.client.peer.take_now
        return take(frame)


async def _calls(tree: str, era: str, calls: int, profile: bool) -> None:
    """Connect a client of ``era`` to the stub and make ``calls`` calls, one after another."""
    sys.path.insert(0, tree)
    client: Any
    stub = AnsweringStub(ANSWERS[era])
    if era == STATELESS:
        from generated.v2026_07_28 import Client

        client = Client()
        stub.take = _Bound(client, stub)
        await client.connect_stateless(stub)
    else:
        from generated.v2025_11_25 import Client as HandshakeClient

        client = HandshakeClient()
        stub.take = _Bound(client, stub)
        await client.connect(stub)
    call = client.call_tool
    await call(name=TOOL)  # warm: whatever is made once
    profiler = cProfile.Profile() if profile else None
    if profiler is not None:
        profiler.enable()
    for _ in range(calls):
        await call(name=TOOL)
    if profiler is not None:
        print_profile(profiler, calls, era, "ncalls")
    await client.close()


def print_profile(profiler: cProfile.Profile, calls: int, label: str, order: str) -> None:
    """Print the Python calls per call of a profiled run, and its top functions by ``order``."""
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(entry[1] for entry in stats.stats.values())  # type: ignore[attr-defined]
    print(f"{label}: {total / calls:.1f} Python calls per request")
    stats.sort_stats(order).print_stats(40)


def counted(root: Path, argv: Callable[[int], list[str]], few: int, many: int) -> float:
    """Instructions per call: ``argv(calls)`` run under callgrind for ``few`` then ``many``
    calls, the difference of the totals over ``many - few`` (start-up left out)."""
    totals: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        for calls in (few, many):
            out = str(Path(folder) / f"cg.{calls}")
            subprocess.run([*_valgrind(out), *argv(calls)], cwd=root, env=ENV, check=True)
            totals.append(_total(out))
    return (totals[1] - totals[0]) / (many - few)


def ratios(roots: list[Path], figures: list[float], floor: float | None = None) -> str:
    """Each tree's figure in thousands, with its ratio to the first (and to ``floor``)."""
    cells: list[str] = []
    for root, figure in zip(roots, figures, strict=True):
        to_floor = "" if floor is None else f", floor {figure / floor:.2f}x"
        cells.append(f"{root.name} {figure / 1000:,.1f}k ({figure / figures[0]:.2f}x{to_floor})")
    return ", ".join(cells)


def per_call(root: Path, era: str) -> float:
    """Instructions per call of the client of ``root``'s tree."""
    here = [sys.executable, __file__, "--as-client", str(root), era]
    return counted(root, lambda calls: [*here, str(calls)], FEW, MANY)


def command_line(doc: str | None) -> tuple[list[Path], bool]:
    """The trees (``--root``, repeatable; this one by default) and ``--profile`` of a bench."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--root", type=Path, action="append", help="a source tree (repeatable)")
    parser.add_argument("--profile", action="store_true", help="Python calls, not instructions")
    args = parser.parse_args()
    return [r.resolve() for r in args.root or [ROOT]], args.profile


def main(roots: list[Path], profile: bool) -> None:
    """Print instructions (or Python calls) per call for each tree, with ratios."""
    for era in (STATELESS, HANDSHAKE):
        if profile:
            for root in roots:
                print(f"== {root}")
                asyncio.run(_calls(str(root), era, MANY, True))
            continue
        figures = [per_call(root, era) for root in roots]
        print(f"client path {era}: {ratios(roots, figures)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--as-client":
        tree, era, calls = sys.argv[2:5]
        asyncio.run(_calls(tree, era, int(calls), False))
        sys.exit(0)
    main(*command_line(__doc__))
