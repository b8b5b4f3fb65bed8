"""What tolerant reading costs on the decode path, as ratios (bench/corpus.py, 2025-06-18).

Three figures, each per frame over the same corpus as ``bench_decode`` (what a server and a
client receive), runs interleaved:
- clean corpus, tolerant vs strict: the price of tolerance when no message has extras (the
  one-pass decode is the same; only a refused message takes the second reading);
- clean corpus, ours vs untyped msgspec: the decode-path ratio ``bench_decode`` reports;
- the corpus with one extra key in every params and result object (and one in the first content
  block), tolerant and strict, against the clean corpus: what a message with extras costs.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bench.bench_decode import decode_path, per_frame  # noqa: E402
from bench.corpus import CLIENT_RECEIVES, SERVER_RECEIVES, frames  # noqa: E402
from generated.v2025_06_18.methods import METHODS  # noqa: E402


def with_extras(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of a message with an undefined key in its params or result (and first block)."""
    out = copy.deepcopy(message)
    for member in ("params", "result"):
        body = out.get(member)
        if isinstance(body, dict):
            body["x-vendor"] = {"trace": "abc", "n": 1}
            content = body.get("content")
            if isinstance(content, list) and content and isinstance(content[0], dict):
                content[0]["x-block"] = True
    return out


def corpus(extras: bool) -> list[tuple[bytes, str | None]]:
    """The mixed corpus as (frame, what bench_decode's decode path takes: None for a frame the
    server receives, else the method a response answers)."""
    touch = with_extras if extras else (lambda m: m)
    received = frames([touch(m) for m in SERVER_RECEIVES])
    server: list[tuple[bytes, str | None]] = [(f, None) for f in received]
    answers = [method for method, _ in CLIENT_RECEIVES]
    client = frames([touch(m) for _, m in CLIENT_RECEIVES])
    return server + list(zip(client, answers, strict=True))


def main() -> None:
    """Print the ratios."""
    tolerant = decode_path(dict(METHODS))
    strict = decode_path(dict(METHODS), tolerant=False)
    untyped = msgspec.json.Decoder()
    clean, dirty = corpus(False), corpus(True)
    n = len(clean)
    t, s, u = per_frame([tolerant, strict, lambda frame, _: untyped.decode(frame)], clean)
    print(
        f"clean corpus ({n} frames): tolerant {t * 1e6:.2f} us/frame, strict {s * 1e6:.2f},"
        f" untyped msgspec {u * 1e6:.2f}; tolerant/strict = {t / s:.3f}x,"
        f" tolerant/untyped = {t / u:.2f}x"
    )
    td, sd = per_frame([tolerant, strict], dirty)
    print(
        f"every frame with extras: tolerant {td * 1e6:.2f} us/frame ({td / t:.1f}x clean),"
        f" strict {sd * 1e6:.2f} us/frame ({sd / s:.1f}x clean)"
    )


if __name__ == "__main__":
    main()
