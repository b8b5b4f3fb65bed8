"""The receive-side decode path on a mixed corpus, as a ratio against untyped msgspec.

"Ours" is everything the session does to turn one received frame into typed values: check the
frame (UTF-8, nesting depth), parse it (in one pass where the types are known), decode params
with the method's type (and find the progress token), decode a result with the type of the
request it answers. The floor
is ``msgspec.json.Decoder().decode(frame)`` (dicts and lists, no types, no checks). The corpus
(bench/corpus.py) is what a 2025-06-18 server and client receive: requests with and without a
progress token, notifications, results (a 20-tool list and a 64 KB non-ASCII markdown
resource among them) and an error. Per frame, the guard's cost is printed against the untyped
decode of the same frame: the check made after the one pass (``decoded_problem``) and the scan
made before decoding on the general path and on HTTP arrival (``frame_problem``).

The official SDK (``mcp``) decodes and validates the same corpus side by side, as its stdio
transport and session do: ``jsonrpc_message_adapter.validate_json`` on the frame, then the
negotiated revision's model of the request, notification or result (``mcp_types.methods``:
the surface check and the version-free model), ``_meta`` lifted from request params first.

The 64 KB result decodes to a string of about 240 KB (emoji make it 4 bytes a character):
with glibc's default settings such a block is mapped and unmapped, or the heap trimmed and
grown, on every decode, and the page faults that follow cost 2-4x the decode itself, more or
less depending on the allocator's history. Every contender pays them alike but they hide
what is measured, so the bench runs itself with the allocator keeping its memory
(``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``), the same for all three.
"""

from __future__ import annotations

import os
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(16 << 20), "MALLOC_TRIM_THRESHOLD_": str(64 << 20)}
"""glibc settings that keep freed memory for the next decode (read at process start)."""
if __name__ == "__main__" and any(os.environ.get(k) != v for k, v in ALLOCATOR.items()):
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ALLOCATOR})

import msgspec  # noqa: E402
from mcp.server.runner import _extract_meta  # noqa: E402  # pyright: ignore[reportPrivateUsage]
from mcp_types import methods as sdk_methods  # noqa: E402
from mcp_types.jsonrpc import (  # noqa: E402
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)

from bench.corpus import CLIENT_RECEIVES, SERVER_RECEIVES, frames  # noqa: E402
from generated._runtime.core.frame_guard import (  # noqa: E402
    COUNTED_UP_TO,
    DEFAULT_MAX_DEPTH,
    decoded_problem,
    frame_problem,
)
from generated._runtime.core.methods import MethodSpec  # noqa: E402
from generated._runtime.core.reader import (  # noqa: E402
    decode_error,
    decode_result,
    read_params,
    reader_for,
    request_params,
)
from generated._runtime.core.wire import Malformed, parse  # noqa: E402
from generated.v2025_06_18.methods import METHODS  # noqa: E402

SDK_VERSION = "2025-06-18"
LIMIT = DEFAULT_MAX_DEPTH
SHORT = 2 * DEFAULT_MAX_DEPTH + 1
"""Frames of at most this many bytes nest too few levels to be counted."""
ROUNDS = 5
REPEAT = 300


def decode_path(
    methods: dict[str, MethodSpec[Any, Any]], *, tolerant: bool = True
) -> Callable[[bytes, str | None], None]:
    """The session's decode path: ``frame``, and for a frame the client receives the method a
    response answers ("" for a notification), None for a frame the server receives.

    As ``Session.receive`` does: the reader of the receiving side, told the result type the
    pending request awaits, gives the message decoded in one pass (else the general path
    parses the frame); then params, result or error are decoded if still raw.
    """
    server_side = reader_for(methods, "client")
    client_side = reader_for(methods, "server")

    def typed(message: Any, answers: str | None) -> None:
        if isinstance(message.method, str):
            spec = methods[message.method]
            if isinstance(message.id, msgspec.UnsetType):
                read_params(spec, message.params, tolerant)
            else:
                request_params(spec, message.params, tolerant)
        elif answers and not isinstance(message.result, msgspec.UnsetType):
            decode_result(methods[answers], message.result, tolerant)
        elif not isinstance(message.error, msgspec.UnsetType):
            decode_error(message.error)

    def decode(frame: bytes, answers: str | None) -> None:
        if answers is None:
            message = server_side.one(frame)
        elif answers:
            message = client_side.one(frame, methods[answers].result)
        else:
            message = client_side.one(frame)
        if message is not None:
            typed(message, answers)
            return
        for each in parse(frame).messages:
            if type(each) is not Malformed:
                typed(each, answers)

    return decode


def sdk_decode_path(frame: bytes, answers: str | None) -> None:
    """The official SDK's decode and validation of one received frame (same arguments)."""
    message = jsonrpc_message_adapter.validate_json(frame, by_name=False)
    if answers is None:  # the server's runner: _meta first, then the request or notification
        if isinstance(message, JSONRPCRequest):
            _extract_meta(message.params)
            sdk_methods.parse_client_request(message.method, SDK_VERSION, message.params)
        elif isinstance(message, JSONRPCNotification):
            _extract_meta(message.params)
            sdk_methods.parse_client_notification(message.method, SDK_VERSION, message.params)
    elif isinstance(message, JSONRPCNotification):
        sdk_methods.parse_server_notification(message.method, SDK_VERSION, message.params)
    elif isinstance(message, JSONRPCResponse):
        sdk_methods.parse_server_result(answers, SDK_VERSION, message.result)


def per_frame(
    decoders: list[Callable[[bytes, str | None], None]], corpus: list[tuple[bytes, str | None]]
) -> list[float]:
    """Best seconds per frame over the corpus for each decoder, runs interleaved (noise).

    Each timed run follows an untimed pass of the same decoder over the corpus: the run
    before it was another contender's (the SDK's evicts the caches and the branch history),
    and ``ROUNDS`` passes are too few to hide a cold first one, which costs the decoder with
    the larger working set (ours: the runtime's Python) more than the untyped floor.
    """

    def runner(decode: Callable[[bytes, str | None], None]) -> Callable[[], None]:
        def run() -> None:
            for frame, answers in corpus:
                decode(frame, answers)

        return run

    runs = [runner(decode) for decode in decoders]
    best = [float("inf")] * len(runs)
    for _ in range(REPEAT):
        for i, run in enumerate(runs):
            run()  # warm: this contender's code and data back in the caches
            best[i] = min(best[i], timeit.timeit(run, number=ROUNDS))
    return [b / (ROUNDS * len(corpus)) for b in best]


def best_of(run: Callable[[], object], number: int = 200) -> float:
    """Best seconds per call of ``run`` over a few repeats, less the cost of an empty call."""
    empty = min(timeit.repeat(lambda: None, number=number, repeat=15))
    return (min(timeit.repeat(run, number=number, repeat=15)) - empty) / number


def guard_costs(corpus: list[tuple[bytes, str | None]]) -> None:
    """Per frame: the guard after the one pass and the scan before decoding, vs untyped."""
    methods = dict(METHODS)
    untyped = msgspec.json.Decoder()
    worst = 0.0
    for frame, answers in corpus:
        awaiting = methods[answers].result if answers else None
        side = reader_for(methods, "client" if answers is None else "server")
        (message,) = side.parse(frame, awaiting).messages
        assert type(message) is not Malformed, frame[:80]
        plain = best_of(lambda frame=frame: untyped.decode(frame))
        # As ``Reader.one`` runs it after the one pass: ASCII frames too short to nest too
        # deep, or opening few brackets, tested inline.
        after = best_of(
            lambda m=message, f=frame: (
                (len(f) <= SHORT and f.isascii())
                or (
                    len(f) <= COUNTED_UP_TO
                    and f.isascii()
                    and f.count(b"{") + f.count(b"[") <= LIMIT
                )
                or not decoded_problem(m, f, LIMIT)
            )
        )
        before = best_of(lambda frame=frame: frame_problem(frame))
        worst = max(worst, after / plain)
        print(
            f"  {len(frame):6d} B {'ascii' if frame.isascii() else 'utf-8'}: untyped "
            f"{plain * 1e6:7.2f} us; guard after the one pass {after * 1e6:6.2f} us "
            f"({after / plain:.2f}x), scan before decoding {before * 1e6:7.2f} us "
            f"({before / plain:.2f}x)"
        )
    print(f"guard after the one pass, worst frame: {worst:.2f}x an untyped decode")


def main() -> None:
    """Print the decode path against untyped msgspec, per side and for the whole corpus."""
    untyped = msgspec.json.Decoder()
    ours = decode_path(dict(METHODS))
    server: list[tuple[bytes, str | None]] = [(f, None) for f in frames(SERVER_RECEIVES)]
    answers = [method for method, _ in CLIENT_RECEIVES]
    client: list[tuple[bytes, str | None]] = list(
        zip(frames([m for _, m in CLIENT_RECEIVES]), answers, strict=True)
    )
    print("guard cost per frame (bench/corpus.py):")
    guard_costs(server + client)
    largest = max(client, key=lambda item: len(item[0]))
    typed, plain, sdk = per_frame(
        [ours, lambda frame, _: untyped.decode(frame), sdk_decode_path], [largest]
    )
    print(
        f"the {len(largest[0])} B non-ASCII {largest[1]} result alone: ours {typed * 1e6:.0f} us, "
        f"untyped msgspec {plain * 1e6:.0f} us, SDK {sdk * 1e6:.0f} us; "
        f"ours/untyped = {typed / plain:.2f}x, SDK/ours = {sdk / typed:.1f}x"
    )
    for label, corpus in (
        ("server receives", server),
        ("client receives", client),
        ("mixed corpus", server + client),
    ):
        typed, plain, sdk = per_frame(
            [ours, lambda frame, _: untyped.decode(frame), sdk_decode_path], corpus
        )
        print(
            f"decode path, {label} ({len(corpus)} frames): ours {typed * 1e6:.2f} us/frame, "
            f"untyped msgspec {plain * 1e6:.2f}, SDK {sdk * 1e6:.2f}; "
            f"ours/untyped = {typed / plain:.2f}x, SDK/ours = {sdk / typed:.1f}x"
        )


if __name__ == "__main__":
    main()
