"""Issue 18: each received message is decoded once, errors included, every guard kept.

The one pass of a response decodes its ``error`` member into an ``ErrorObject`` (not kept raw
and decoded again); what msgspec skips there unchecked (unknown members) is still refused by
the guard with the code it had before.
"""

from __future__ import annotations

from typing import Any

from generated._runtime.core.errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorObject,
)
from generated._runtime.core.reader import decode_error, reader_for
from generated._runtime.core.session import Session
from generated._runtime.core.wire import Malformed, parse
from generated.v2025_06_18.methods import METHODS
from tests.core.test_harden_guard import TEXT, dump, nested


def error_frame(error: dict[str, Any], id_: int = 6) -> bytes:
    """An error response with this ``error`` member."""
    return dump({"jsonrpc": "2.0", "id": id_, "error": error})


def client_reads(frame: bytes) -> Any:
    """What a client awaiting a ``tools/call`` result parses ``frame`` into."""
    reader = reader_for(METHODS, "server")
    (message,) = reader.parse(frame, METHODS["tools/call"].result).messages
    return message


def test_an_error_response_is_decoded_in_the_one_pass() -> None:
    """The one pass gives the typed error; ``decode_error`` hands it on as it is."""
    frame = error_frame({"code": -32602, "message": "bad", "data": {"field": ["x", 1]}})
    message = reader_for(METHODS, "server").one(frame, METHODS["tools/call"].result)
    assert message is not None
    assert type(message.error) is ErrorObject
    assert decode_error(message.error) is message.error
    assert message.error == ErrorObject(-32602, "bad", {"field": ["x", 1]})


def test_the_general_path_gives_the_same_error() -> None:
    """A raw ``error`` (the general path) decodes to the same value."""
    frame = error_frame({"code": 1, "message": "m", "data": [1, 2]})
    (envelope,) = parse(frame).messages
    assert type(envelope) is not Malformed
    assert decode_error(envelope.error) == client_reads(frame).error == ErrorObject(1, "m", [1, 2])


def test_a_malformed_error_member_is_still_an_invalid_error() -> None:
    """An error the one pass refuses takes the general path and is reported as before."""
    session = Session(METHODS, role="client")
    frame = error_frame({"code": "x", "message": "m"}, id_=0)
    events = session.receive(frame)
    assert [type(e).__name__ for e in events] == ["ProtocolViolation"]


def test_broken_utf8_in_an_unknown_member_of_an_error_is_a_parse_error() -> None:
    """msgspec skips an error's unknown members unchecked: a long non-ASCII frame is -32700."""
    good = error_frame({"code": 1, "message": "m", "x": TEXT})
    assert type(client_reads(good).error) is ErrorObject
    bad = good.replace("東京".encode(), b"\xe6\x9d", 1)
    message = client_reads(bad)
    assert type(message) is Malformed and message.error.code == PARSE_ERROR


def test_nesting_in_an_unknown_member_of_an_error_is_counted() -> None:
    """Too deep in an unknown member msgspec skips, beside 64 KB of text: -32600."""
    frame = error_frame({"code": 1, "message": TEXT, "x": nested(DEPTH)})
    message = client_reads(frame)
    assert type(message) is Malformed and message.error.code == INVALID_REQUEST
    short = error_frame({"code": 1, "message": "m", "x": nested(DEPTH)})
    message = client_reads(short)
    assert type(message) is Malformed and message.error.code == INVALID_REQUEST


DEPTH = 130
"""Past the default bound (128) with the frame and the error object around it."""


def test_a_received_error_reaches_the_caller_with_its_data() -> None:
    """A client session's error event carries the error as sent, ``data`` kept; a malformed
    one (the general path) is an invalid error of that request."""
    client = Session(METHODS, role="client")
    first = client.send_request("ping")
    second = client.send_request("ping")
    client.data_to_send()
    sent = {"code": -32001, "message": "gone", "data": {"why": ["x", 2]}}
    (event,) = client.receive(error_frame(sent, first))
    assert type(event).__name__ == "ErrorResponse"
    assert (event.id, event.method, event.error) == (
        first,
        "ping",
        ErrorObject(-32001, "gone", {"why": ["x", 2]}),
    )
    (event,) = client.receive(error_frame({"code": 1.5, "message": "m"}, second))
    assert type(event).__name__ == "InvalidResponse" and event.id == second
