"""Issue #9, defects 1-3: frames that used to end a process or get the wrong code.

Each case is fed to the sans-I/O session core, and the ones that used to end the process are
also sent to a real stdio server process, which must answer and then still answer a ping.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from generated._runtime.core.errors import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from generated._runtime.core.frame_guard import DEFAULT_MAX_DEPTH, nesting_depth, too_deep
from generated._runtime.core.session import Session
from generated.v2025_06_18.methods import METHODS
from tests.transports.stdio.test_runtime_stdio import raw_stdio

BAD_UTF8_METHOD = b'{"jsonrpc":"2.0","id":1,"method":"pi\xffng"}'
BAD_UTF8_PARAMS = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\xc3\x28"}}'
DEEP_ARRAY = b"[" * 1000 + b"]" * 1000
DEEP_PARAMS = (
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":'
    + (b'{"a":' * 1000 + b"1" + b"}" * 1000)
    + b"}}"
)
TRAILING_JUNK = [b"3,l", b'"abc"xyz', b"12 junk", b'{"jsonrpc":"2.0","id":1}x', b"[1]]"]


def answer(frame: bytes) -> Any:
    """Feed one frame to a fresh server session; return the one frame it answers, decoded."""
    session = Session(METHODS, role="server")
    session.receive(frame)
    (reply,) = session.data_to_send()
    return json.loads(reply)


def assert_error(reply: Any, id_: Any, code: int) -> None:
    """``reply`` is an error response with this id and code."""
    assert reply["jsonrpc"] == "2.0" and reply["id"] == id_, reply
    assert reply["error"]["code"] == code, reply


def test_invalid_utf8_in_method_is_a_parse_error() -> None:
    """Defect 1: invalid UTF-8 inside a string used to raise UnicodeDecodeError out of receive."""
    assert_error(answer(BAD_UTF8_METHOD), None, PARSE_ERROR)


def test_invalid_utf8_in_params_is_a_parse_error() -> None:
    """Defect 3: invalid UTF-8 in params used to be answered -32603 (internal error)."""
    assert_error(answer(BAD_UTF8_PARAMS), None, PARSE_ERROR)


@pytest.mark.parametrize("frame", [DEEP_ARRAY, DEEP_PARAMS], ids=["array", "params"])
def test_deep_nesting_is_refused_not_a_recursion_error(frame: bytes) -> None:
    """Defect 2: ~1000 levels used to raise RecursionError; now refused unparsed (-32600)."""
    reply = answer(frame)
    assert_error(reply, None, INVALID_REQUEST)
    assert str(DEFAULT_MAX_DEPTH) in reply["error"]["message"]


def test_nesting_within_the_bound_is_decoded() -> None:
    """Exactly ``max_depth`` levels (the frame is level 1) still get through to the handler."""
    inner = DEFAULT_MAX_DEPTH - 2  # the frame and params are the first two levels
    args = b'{"a":' * inner + b"1" + b"}" * inner
    frame = b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":'
    frame += args + b"}}"
    assert nesting_depth(frame) == DEFAULT_MAX_DEPTH
    session = Session(METHODS, role="server")
    (event,) = session.receive(frame)
    assert type(event).__name__ == "Request"
    assert too_deep(frame + b"", DEFAULT_MAX_DEPTH - 1)


def test_brackets_inside_strings_do_not_count() -> None:
    """Depth ignores brackets in strings (escaped quotes included)."""
    frame = json.dumps({"s": "[" * 500 + '\\"{' * 300, "t": ["]]"]}).encode()
    assert nesting_depth(frame) == 2
    assert not too_deep(frame, 2)


@pytest.mark.parametrize("frame", TRAILING_JUNK)
def test_invalid_json_texts_are_parse_errors(frame: bytes) -> None:
    """Defect 3: a value followed by junk was answered -32600; it is not JSON at all."""
    assert_error(answer(frame), None, PARSE_ERROR)


def test_wrong_shape_with_valid_json_stays_invalid_request() -> None:
    """The fix keeps -32600 (with the id) for well-formed JSON of the wrong shape."""
    assert_error(answer(b'{"jsonrpc":"2.0","id":7,"method":5}'), 7, INVALID_REQUEST)
    assert_error(answer(b"42"), None, INVALID_REQUEST)


def test_huge_number_in_params_is_invalid_params() -> None:
    """A number beyond float range where a number is expected is the params' fault (-32602)."""
    frame = b'{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":1e99999}}'
    assert_error(answer(frame), 8, INVALID_PARAMS)


async def test_stdio_server_survives_each_frame_that_used_to_end_it() -> None:
    """Defects 1-3 over a real stdio process: each answered, and the process still pings."""
    async with raw_stdio() as raw:
        cases = [
            (BAD_UTF8_METHOD, PARSE_ERROR),
            (BAD_UTF8_PARAMS, PARSE_ERROR),
            (DEEP_ARRAY, INVALID_REQUEST),
            (DEEP_PARAMS, INVALID_REQUEST),
            *[(junk, PARSE_ERROR) for junk in TRAILING_JUNK],
        ]
        for n, (frame, code) in enumerate(cases):
            await raw.send(frame)
            assert_error(await raw.recv(), None, code)
            assert await raw.call(f"ping-{n}", "ping") == {
                "jsonrpc": "2.0",
                "id": f"ping-{n}",
                "result": {},
            }


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b'\\""' + b"[" * 200 + b"]" * 200, INVALID_REQUEST),  # deep once the quotes pair up
        (b'[\\"' + b"[" * 200 + b"]" * 200 + b"]", PARSE_ERROR),  # the rest is one string
    ],
    ids=["hidden-depth", "no-depth"],
)
def test_backslashes_neither_hide_nor_invent_nesting(frame: bytes, code: int) -> None:
    """A backslash outside a string (never JSON) counts as a parser meets it: plain text."""
    assert_error(answer(frame), None, code)


def test_escaped_quotes_keep_brackets_in_their_string() -> None:
    """An escaped backslash then an escaped quote stay in the string: its brackets never count."""
    args = b'{"s":"\\\\\\"' + b"[" * 200 + b'"}'
    frame = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":'
    (event,) = Session(METHODS, role="server").receive(frame + args + b"}}")
    assert type(event).__name__ == "Request"


def test_depth_of_a_long_frame_with_escapes_and_bracketed_strings() -> None:
    """Past the quick count (many brackets), escapes and brackets in strings still not counted."""
    frame = json.dumps({"a": [[{"s": '\\"[' * 50, "t": "]]"}]] * 70}).encode()
    assert nesting_depth(frame) == 4
    assert too_deep(frame, 3)
    assert not too_deep(frame, 4)
