"""The receive-side decode path on a mixed corpus, as a ratio against untyped msgspec.

"Ours" is everything the session does to turn one received frame into typed values: parse the
frame into envelopes (params and result left raw), decode params with the method's type (and
find the progress token), decode a result with the type of the request it answers. The floor
is ``msgspec.json.Decoder().decode(frame)`` (dicts and lists, no types, no checks). The corpus
(bench/corpus.py) is what a 2025-06-18 server and client receive: requests with and without a
progress token, notifications, results (a 20-tool list among them) and an error.
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bench.corpus import CLIENT_RECEIVES, SERVER_RECEIVES, frames  # noqa: E402
from generated._runtime.core.methods import MethodSpec  # noqa: E402
from generated._runtime.core.wire import decode_error, decode_result, parse, read_params  # noqa: E402
from generated.v2025_06_18.methods import METHODS  # noqa: E402

ROUNDS = 2000


def decode_path(methods: dict[str, MethodSpec[Any, Any]]) -> Callable[[bytes, str], None]:
    """The session's decode path: ``frame`` and the method a response answers ("" if none)."""

    def decode(frame: bytes, answers: str) -> None:
        for message in parse(frame).messages:
            if isinstance(message.method, str):
                read_params(methods[message.method], message.params)
            elif not isinstance(message.result, msgspec.UnsetType):
                decode_result(methods[answers], message.result)
            elif not isinstance(message.error, msgspec.UnsetType):
                decode_error(message.error)

    return decode


def per_frame(decode: Callable[[bytes, str], None], corpus: list[tuple[bytes, str]]) -> float:
    """Best seconds per frame over the corpus."""

    def run() -> None:
        for frame, answers in corpus:
            decode(frame, answers)

    best = min(timeit.repeat(run, number=ROUNDS, repeat=7))
    return best / (ROUNDS * len(corpus))


def main() -> None:
    """Print the decode path against untyped msgspec, per side and for the whole corpus."""
    untyped = msgspec.json.Decoder()
    ours = decode_path(dict(METHODS))
    server = [(f, "") for f in frames(SERVER_RECEIVES)]
    client = list(zip(frames([m for _, m in CLIENT_RECEIVES]), [a for a, _ in CLIENT_RECEIVES]))
    for label, corpus in (
        ("server receives", server),
        ("client receives", client),
        ("mixed corpus", server + client),
    ):
        typed = per_frame(ours, corpus)
        plain = per_frame(lambda frame, _: untyped.decode(frame), corpus)
        print(
            f"decode path, {label} ({len(corpus)} frames): ours {typed * 1e6:.2f} us/frame, "
            f"untyped msgspec {plain * 1e6:.2f} us/frame; ours/untyped = {typed / plain:.2f}x"
        )


if __name__ == "__main__":
    main()
