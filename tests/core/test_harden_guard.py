"""Issue 18: the frame guard runs after msgspec's one pass, on what msgspec left unchecked.

Long non-ASCII frames take paths short ASCII ones never do (the depth counted on the decoded
value, the UTF-8 of raw parts checked on their own): each refusal the guard made before
decoding is still made, with the same code, whatever the frame's size and alphabet.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgspec
import pytest

from generated._runtime.core.errors import INVALID_REQUEST, PARSE_ERROR, RemoteProtocolError
from generated._runtime.core.frame_guard import (
    DEFAULT_MAX_DEPTH,
    decode_untyped,
    frame_problem,
    nesting_depth,
    too_deep,
)
from generated._runtime.core.reader import reader_for
from generated._runtime.core.session import Session
from generated._runtime.core.wire import Malformed
from generated.v2025_06_18 import types as t
from generated.v2025_06_18.methods import METHODS
from tests.core.test_harden_decode import answer, assert_error

TEXT = 'Résumé “quoted” [link](x) {b} \\ " 東京 😀 中文 ‘q’ «g»\n' * 1200
"""About 64 KB of non-ASCII text with brackets, quotes and backslashes (past every fast path)."""


def nested(levels: int) -> Any:
    """A value nesting ``levels`` objects."""
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def dump(value: Any) -> bytes:
    """Compact UTF-8 JSON, non-ASCII unescaped, as peers send it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def call(arguments: Any, id_: int = 1) -> bytes:
    """A ``tools/call`` request with these arguments."""
    params = {"name": "echo", "arguments": arguments}
    return dump({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params})


def read_result(extra: Any = None) -> bytes:
    """A ``resources/read`` response carrying ``TEXT`` (and ``extra`` in ``_meta``)."""
    content: dict[str, Any] = {"uri": "file:///r.md", "mimeType": "text/markdown", "text": TEXT}
    if extra is not None:
        content["_meta"] = extra
    return dump({"jsonrpc": "2.0", "id": 6, "result": {"contents": [content]}})


def client_reads(frame: bytes) -> Any:
    """What a client awaiting a ``resources/read`` result parses ``frame`` into."""
    reader = reader_for(METHODS, "server")
    (message,) = reader.parse(frame, METHODS["resources/read"].result).messages
    return message


@pytest.mark.parametrize("levels", [DEFAULT_MAX_DEPTH - 3, DEFAULT_MAX_DEPTH - 2])
def test_a_long_non_ascii_request_is_refused_exactly_past_the_bound(levels: int) -> None:
    """Arguments at the bound pass; one level more is -32600, with 64 KB of text beside them."""
    frame = call({"text": TEXT, "deep": nested(levels)})
    assert len(frame) > 64 * 1024 and not frame.isascii()
    if levels == DEFAULT_MAX_DEPTH - 3:  # frame, params, arguments, then ``levels``
        (event,) = Session(METHODS, role="server").receive(frame)
        assert type(event).__name__ == "Request"
    else:
        assert_error(answer(frame), None, INVALID_REQUEST)


def test_a_long_non_ascii_result_nesting_too_deep_is_refused() -> None:
    """A result a client awaits, walked on its decoded value: too deep in ``_meta`` is -32600."""
    assert isinstance(client_reads(read_result()).result, t.ReadResourceResult)
    message = client_reads(read_result({"x": nested(DEFAULT_MAX_DEPTH)}))
    assert type(message) is Malformed and message.error.code == INVALID_REQUEST


def test_brackets_and_escapes_in_a_long_text_do_not_count_as_nesting() -> None:
    """Thousands of brackets, escaped quotes and backslashes in the text: still two levels."""
    text = ('\\"[{' * 400 + "東京") * 20
    message = client_reads(read_result({"t": text}))
    assert type(message) is not Malformed
    assert message.result.contents[0].meta == {"t": text}


def test_broken_utf8_in_a_raw_part_of_a_long_non_ascii_frame_is_a_parse_error() -> None:
    """``error`` is kept raw by the one pass (msgspec checks no UTF-8 there): -32700."""
    good = dump({"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": TEXT}})
    assert type(client_reads(good)) is not Malformed
    bad = good.replace("東京".encode(), b"\xe6\x9d", 1)
    message = client_reads(bad)
    assert type(message) is Malformed and message.error.code == PARSE_ERROR


def test_broken_utf8_in_params_of_a_long_non_ascii_request_is_a_parse_error() -> None:
    """Broken UTF-8 in a string msgspec decodes (it raises there) is -32700 too."""
    params = {"text": TEXT, "x": "\ufffd"}
    frame = dump({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": params})
    assert_error(answer(frame.replace("\ufffd".encode(), b"\xc3\x28")), None, PARSE_ERROR)


def test_broken_utf8_in_an_unknown_member_is_a_parse_error() -> None:
    """msgspec skips unknown members unchecked: the one pass refuses them, the guard answers."""
    frame = dump({"jsonrpc": "2.0", "id": 3, "method": "ping", "x": TEXT + "\ufffd"})
    assert_error(answer(frame.replace("\ufffd".encode(), b"\xff")), None, PARSE_ERROR)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (call({"text": TEXT, "deep": nested(DEFAULT_MAX_DEPTH)}), INVALID_REQUEST),
        (call({"text": TEXT + "\ufffd"}).replace("\ufffd".encode(), b"\xf0\x9f"), PARSE_ERROR),
        (call({"text": TEXT})[:-1], PARSE_ERROR),
    ],
    ids=["deep", "broken-utf8", "truncated"],
)
def test_generic_decode_refuses_long_non_ascii_frames_with_the_guards_code(
    frame: bytes, code: int
) -> None:
    """The 2026-07-28 era's generic decode: the same refusals after decoding as before."""
    with pytest.raises(RemoteProtocolError) as caught:
        decode_untyped(frame)
    assert caught.value.code == code
    assert decode_untyped(call({"text": TEXT, "deep": nested(10)}))["id"] == 1


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_depth_walked_on_the_decoded_value_is_exact(extra: int) -> None:
    """Few containers in a long frame: counted on the value, Structs, dicts and raw parts alike.

    ``_meta`` sits at level 5 (frame, result, contents, item, _meta); ``error`` at level 2.
    """
    reader = reader_for(METHODS, "server")
    limit = 10
    meta = read_result({"x": nested(limit - 5 + extra)})
    error = dump(
        {
            "jsonrpc": "2.0",
            "id": 6,
            "error": {"code": 1, "message": TEXT, "data": nested(limit - 2 + extra)},
        }
    )
    for frame in (meta, error):
        (message,) = reader.parse(frame, METHODS["resources/read"].result, limit).messages
        refused = type(message) is Malformed and message.error.code == INVALID_REQUEST
        assert refused == bool(extra), frame[-40:]


def closing_text(levels: int) -> bytes:
    """A request whose text is all closing brackets, beside arguments nesting ``levels``
    objects: over 1 KB, so its depth is counted on the bytes (the quick passes)."""
    return call({"text": "]}" * 600, "deep": nested(levels)})


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_closing_brackets_in_a_string_hide_no_nesting(extra: int) -> None:
    """Brackets in strings are dropped before counting: here they would close every level."""
    frame = closing_text(DEFAULT_MAX_DEPTH - 3 + extra)  # frame, params, arguments first
    assert 1024 < len(frame) < 16 * 1024 and frame.isascii()
    assert too_deep(frame, DEFAULT_MAX_DEPTH) == bool(extra)
    if extra:
        assert_error(answer(frame), None, INVALID_REQUEST)
    else:
        (event,) = Session(METHODS, role="server").receive(frame)
        assert type(event).__name__ == "Request"


def test_opening_brackets_in_strings_invent_no_nesting() -> None:
    """Hundreds of strings opening brackets in a shallow frame: three levels, accepted."""
    frame = call({"items": ["[{" * 3] * 300})
    assert 1024 < len(frame) < 16 * 1024
    assert nesting_depth(frame) == 4 and not too_deep(frame, 4) and too_deep(frame, 3)
    (event,) = Session(METHODS, role="server").receive(frame)
    assert type(event).__name__ == "Request"


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_one_deep_chain_among_many_shallow_siblings_is_counted_exactly(extra: int) -> None:
    """Many more brackets than levels allowed, most of them leaves peeled in the first pass:
    the chain beside them is still counted to its last level."""
    frame = call({"leaves": [{}] * 300, "deep": nested(DEFAULT_MAX_DEPTH - 3 + extra)})
    assert nesting_depth(frame) == DEFAULT_MAX_DEPTH + extra
    assert too_deep(frame, DEFAULT_MAX_DEPTH) == bool(extra)
    if extra:
        assert_error(answer(frame), None, INVALID_REQUEST)


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_the_shortest_frame_nesting_too_deep_is_refused(extra: int) -> None:
    """Arrays nest a level in two bytes: a frame just past twice the bound is counted."""
    levels = DEFAULT_MAX_DEPTH - 1 + extra  # the frame is level 1
    frame = b'{"jsonrpc":"2.0","id":6,"error":' + b"[" * levels + b"]" * levels + b"}"
    assert len(frame) < 4 * DEFAULT_MAX_DEPTH
    message = client_reads(frame)
    refused = type(message) is Malformed and message.error.code == INVALID_REQUEST
    assert refused == bool(extra)


def test_broken_utf8_in_a_raw_part_of_a_short_frame_is_a_parse_error() -> None:
    """A short frame is skipped by the guard only when ASCII: here ``error`` (kept raw) is not."""
    good = dump({"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": "東京"}})
    assert len(good) < 2 * DEFAULT_MAX_DEPTH and type(client_reads(good)) is not Malformed
    message = client_reads(good.replace("東京".encode(), b"\xe6\x9d", 1))
    assert type(message) is Malformed and message.error.code == PARSE_ERROR


class _Forbids(msgspec.Struct, forbid_unknown_fields=True):
    """A Struct refusing unknown members, as every one-pass type does."""

    a: Any = None


class _Ignores(msgspec.Struct):
    """A Struct skipping unknown members (never a one-pass type)."""

    a: Any = None


class _Version(msgspec.Struct):
    """A member matched against a constant, as ``jsonrpc`` is in the one pass."""

    v: Literal["2.0"]


BROKEN = b"\xed\xa0\x80"
"""An encoded surrogate: not UTF-8 (the subtlest case ``bytes.decode`` refuses)."""


@pytest.mark.parametrize(
    ("frame", "tp"),
    [
        (b'{"a":"x' + BROKEN + b'"}', Any),
        (b'{"a":"\\n' + BROKEN + b'"}', Any),
        (b'{"' + BROKEN + b'":1}', Any),
        (b'{"\\n' + BROKEN + b'":1}', Any),
        (b'{"' + BROKEN + b'":1}', _Forbids),
        (b'{"v":"' + BROKEN + b'"}', _Version),
    ],
    ids=["value", "escaped-value", "key", "escaped-key", "unknown-key", "constant"],
)
def test_msgspec_checks_the_utf8_of_every_string_it_reads(frame: bytes, tp: Any) -> None:
    """What the guard leaves to msgspec after the one pass: every string it decodes or
    matches (values, keys, unknown keys of a Struct refusing them, constants) is checked."""
    with pytest.raises(UnicodeDecodeError):
        msgspec.json.decode(frame, type=tp)


@pytest.mark.parametrize(
    ("frame", "tp"),
    [(b'{"b":"' + BROKEN + b'"}', _Ignores), (b'{"a":"' + BROKEN + b'"}', msgspec.Raw)],
    ids=["skipped-member", "raw-part"],
)
def test_msgspec_leaves_skipped_and_raw_parts_unchecked(frame: bytes, tp: Any) -> None:
    """Why one-pass types refuse unknown members and the guard checks raw parts itself."""
    msgspec.json.decode(frame, type=tp)
    assert frame_problem(frame) is not None


def test_msgspec_refuses_no_nesting_below_the_recursion_limit() -> None:
    """Why the guard counts depth itself: msgspec decodes far past the bound."""
    levels = 4 * DEFAULT_MAX_DEPTH
    assert msgspec.json.decode(b"[" * levels + b"]" * levels) is not None
