"""Instructions per frame of the decode path (callgrind), frame by frame of bench/corpus.py.

The same three contenders as bench/bench_decode.py, on the same bytes: ours (the session's
decode path into typed, validated values, guard included), untyped msgspec (the floor:
``msgspec.json.Decoder().decode``, dicts and lists) and the official SDK. Instruction counts do
not move with the load of the machine. The process runs under ``valgrind --tool=callgrind``
collecting only inside ``functools.reduce`` (``--toggle-collect``) and dumping the counts on
leaving it (``--dump-after``): each contender decodes each frame ``CALLS`` times in one
``reduce`` (after a warm-up outside it), and an empty step measured the same way is taken off.
Ours is also measured in stages: its one-pass msgspec decode alone, then ``Reader.one`` (the
decode and the guard), so each frame's row says what the guard and the reading after it add.
``python bench/bench_decode_callgrind.py [--root TREE]``: TREE's ``generated`` and
``bench/bench_decode.py`` are measured (default: this tree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import reduce
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CALLS = 20
"""Decodes per frame and contender inside one collected ``reduce``."""
NAMES = ("empty", "ours", "untyped", "sdk", "typed", "reader")
"""``typed``: our one-pass msgspec decoder alone; ``reader``: ``Reader.one`` (that decode and
the guard); ``ours`` adds the reading of params or result after it (stages of ours)."""


def _contenders(tree: str) -> dict[str, Callable[[bytes, str | None], object]]:
    """The decode functions of ``tree`` (imported from its ``bench/bench_decode.py``)."""
    sys.path.insert(0, tree)
    import msgspec

    from bench.bench_decode import decode_path, sdk_decode_path
    from generated._runtime.core.reader import (
        _response_decoder,  # pyright: ignore[reportPrivateUsage]
        reader_for,
    )
    from generated.v2025_06_18.methods import METHODS

    methods = dict(METHODS)
    untyped = msgspec.json.Decoder()
    server_side, client_side = reader_for(methods, "client"), reader_for(methods, "server")
    # The one-pass decoder ``Reader.one`` uses, by what the frame answers (None: a frame
    # the server receives, "": a notification the client receives).
    one_pass: dict[str | None, Any] = {
        None: server_side._requests,  # pyright: ignore[reportPrivateUsage]
        "": client_side._requests,  # pyright: ignore[reportPrivateUsage]
    }
    one_pass.update({name: _response_decoder(spec.result) for name, spec in methods.items()})

    def reader(frame: bytes, answers: str | None) -> object:
        if answers is None:
            return server_side.one(frame)
        return client_side.one(frame, methods[answers].result if answers else None)

    return {
        "empty": lambda frame, answers: None,
        "ours": decode_path(methods),
        "untyped": lambda frame, answers: untyped.decode(frame),
        "sdk": sdk_decode_path,
        "typed": lambda frame, answers: one_pass[answers].decode(frame),
        "reader": reader,
    }


def corpus() -> list[tuple[str, bytes, str | None]]:
    """(label, frame, what it answers) for every frame, server side then client side."""
    sys.path.insert(0, str(ROOT))
    from bench.corpus import CLIENT_RECEIVES, SERVER_RECEIVES, frames

    items: list[tuple[str, bytes, str | None]] = []
    for message, frame in zip(SERVER_RECEIVES, frames(SERVER_RECEIVES), strict=True):
        kind = "request" if "id" in message else "notification"
        items.append((f"S {kind} {message['method']}", frame, None))
    received = [m for _, m in CLIENT_RECEIVES]
    for (answers, message), frame in zip(CLIENT_RECEIVES, frames(received), strict=True):
        if not answers:
            label = f"C notification {message['method']}"
        else:
            label = f"C {'error' if 'error' in message else 'result'} {answers}"
        items.append((label, frame, answers))
    return items


def measured(tree: str) -> None:
    """The run under callgrind: one collected ``reduce`` per frame and contender."""
    contenders = _contenders(tree)
    for _, frame, answers in corpus():
        for name in NAMES:
            decode = contenders[name]
            for _ in range(3):  # warm-up, not collected: decoders built, caches filled
                decode(frame, answers)

            def step(_: Any, __: int, run: Any = decode, frame: bytes = frame) -> None:
                run(frame, answers)  # noqa: B023 - runs here, in this iteration

            reduce(step, range(CALLS), None)


def totals(prefix: str) -> list[int]:
    """The instruction totals of the dumps ``prefix.1``, ``prefix.2``, ... in order."""
    found: list[int] = []
    part = 1
    while (path := Path(f"{prefix}.{part}")).exists():
        for line in path.read_text().splitlines():
            if line.startswith(("totals:", "summary:")):
                found.append(int(line.split()[1]))
                break
        part += 1
    return found


def run(tree: str) -> list[dict[str, Any]]:
    """Run the measurement under callgrind; per frame, instructions per decode of each."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.update({"MALLOC_MMAP_THRESHOLD_": str(16 << 20), "MALLOC_TRIM_THRESHOLD_": str(64 << 20)})
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "cg")
        argv = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            "--dump-after=functools_reduce",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--measured",
            "--root",
            tree,
        ]
        subprocess.run(argv, cwd=tree, env=env, check=True, stderr=subprocess.DEVNULL)
        counts = totals(out)
    items = corpus()
    if len(counts) != len(items) * len(NAMES):
        raise RuntimeError(f"{len(counts)} dumps for {len(items) * len(NAMES)} runs")
    rows: list[dict[str, Any]] = []
    for i, (label, frame, _) in enumerate(items):
        per = dict(zip(NAMES, counts[i * len(NAMES) : (i + 1) * len(NAMES)], strict=True))
        empty = per.pop("empty")
        row: dict[str, Any] = {"frame": label, "bytes": len(frame)}
        row.update({name: (total - empty) / CALLS for name, total in per.items()})
        rows.append(row)
    return rows


def report(rows: list[dict[str, Any]]) -> None:
    """Print instructions per frame, ratios, and the sums per side and for the mix."""
    print(
        f"{'frame':44s} {'bytes':>6s} {'ours':>9s} {'untyped':>9s} {'sdk':>10s} o/u   s/o "
        f"{'typed':>9s} {'+guard':>7s} {'+read':>6s}"
    )
    for row in rows:
        ours, untyped, sdk = row["ours"], row["untyped"], row["sdk"]
        typed, reader = row["typed"], row["reader"]
        print(
            f"{row['frame'][:44]:44s} {row['bytes']:6d} {ours:9.0f} {untyped:9.0f} {sdk:10.0f} "
            f"{ours / untyped:4.2f} {sdk / ours:5.1f} {typed:9.0f} {reader - typed:7.0f} "
            f"{ours - reader:6.0f}"
        )
    print(
        "typed: our one-pass decode alone; +guard: what Reader.one adds (the call, the guard);"
        " +read: what the path adds after it (params or result read, the dispatch)"
    )
    for label, chosen in (
        ("server receives", [r for r in rows if r["frame"].startswith("S")]),
        ("client receives", [r for r in rows if r["frame"].startswith("C")]),
        ("mixed corpus", rows),
    ):
        ours, untyped, sdk = (sum(r[k] for r in chosen) for k in ("ours", "untyped", "sdk"))
        print(
            f"{label} ({len(chosen)} frames): ours/untyped = {ours / untyped:.2f}x, "
            f"SDK/ours = {sdk / ours:.1f}x (instructions, summed per frame)"
        )


def main() -> None:
    """Measure (or be the measured run) and print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=str(ROOT), help="the tree to measure")
    parser.add_argument("--measured", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    tree = str(Path(args.root).resolve())
    if args.measured:
        measured(tree)
        return
    rows = run(tree)
    if args.json:
        print(json.dumps(rows))
    else:
        report(rows)


if __name__ == "__main__":
    main()
