"""Benchmarks for the generator and the generated types, printed as ratios against baselines.

Run with `make bench`. Figures: time to generate all revisions (black included), time to import
one revision's types and methods in a fresh process (against importing msgspec alone), and typed
decode speed of a tools/list result and a tools/call request against untyped msgspec decoding.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if not os.environ.get("MCPGEN_SCHEMA_DIR") and (ROOT.parent / "shared" / "schema").is_dir():
    os.environ["MCPGEN_SCHEMA_DIR"] = str(ROOT.parent / "shared" / "schema")

import msgspec  # noqa: E402

from bench.corpus import tools  # noqa: E402
from generated._runtime.core.codec import decoder  # noqa: E402
from generated.v2025_11_25.methods import METHODS  # noqa: E402


def bench_generate(runs: int = 3) -> float:
    """Median seconds to render all revisions in a fresh process, black and writing included."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "mcpgen", "-r", "all", "-o", f"{tmp}/pkg"],
                check=True,
                capture_output=True,
            )
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def fresh_import(statement: str, runs: int = 7) -> float:
    """Median seconds a fresh interpreter spends on ``statement`` (interpreter start excluded)."""
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(samples)


def tools_list_payload(n: int = 50) -> bytes:
    """A realistic tools/list result: n tools with input schemas and annotations."""
    return json.dumps({"tools": tools(n), "nextCursor": "abc"}).encode()


CALL = json.dumps(
    {
        "name": "search",
        "arguments": {"query": "weather in Lyon", "limit": 5},
        "_meta": {"progressToken": 12},
    }
).encode()


def decode_ratio(payload: bytes, tp: object, number: int) -> tuple[float, float]:
    """Seconds per decode, typed (generated types) and untyped (plain msgspec objects)."""
    typed = decoder(tp)
    untyped = msgspec.json.Decoder()
    typed.decode(payload)
    t_typed = min(timeit.repeat(lambda: typed.decode(payload), number=number, repeat=5)) / number
    t_plain = min(timeit.repeat(lambda: untyped.decode(payload), number=number, repeat=5)) / number
    return t_typed, t_plain


def main() -> None:
    """Run every benchmark and print one line each, with its ratio."""
    gen = bench_generate()
    print(f"generate all 5 revisions (black included): {gen:.2f} s")
    base = fresh_import("import msgspec")
    rev = fresh_import("import generated.v2025_11_25.types, generated.v2025_11_25.methods")
    print(
        f"import 2025-11-25 types+methods: {rev * 1000:.1f} ms "
        f"(import msgspec alone: {base * 1000:.1f} ms, ratio {rev / base:.1f}x)"
    )
    for label, payload, tp, number in (
        ("tools/list result (50 tools)", tools_list_payload(), METHODS["tools/list"].result, 2000),
        ("tools/call request params", CALL, METHODS["tools/call"].params, 50000),
    ):
        typed, plain = decode_ratio(payload, tp, number)
        print(
            f"decode {label}: typed {typed * 1e6:.2f} us, untyped {plain * 1e6:.2f} us, "
            f"untyped/typed = {plain / typed:.2f}x (>= 1 means typed is at least as fast)"
        )


if __name__ == "__main__":
    main()
