"""An answer encoded once into the line written (``Session.answer_line``): the same bytes as
the queued answer, the request settled, and the usual way wherever the line cannot go now."""

from __future__ import annotations

import json

import pytest

from generated._runtime import LocalProtocolError, Session
from generated.v2025_03_26 import methods as m0326
from generated.v2025_03_26 import types as t0326

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
RESULT = t0326.CallToolResult(content=[t0326.TextContent(text="hi")])
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'


def server() -> Session:
    """A server session of 2025-03-26 (batches allowed)."""
    return Session(m0326.METHODS, role="server", batch=True)


def test_the_line_is_the_answer_and_its_newline_and_settles_the_request() -> None:
    s = server()
    s.receive(CALL)
    assert s.answer_line(1, RESULT) == ANSWER + b"\n"
    assert s.requests_in_flight == frozenset() and s.data_to_send() == []
    with pytest.raises(LocalProtocolError, match="no request 1"):
        s.send_response(1, RESULT)


def test_a_progress_token_of_the_request_is_released() -> None:
    s = server()
    s.receive(CALL.replace(b'"name"', b'"_meta":{"progressToken":"t"},"name"'))
    assert s.answer_line(1, RESULT) is not None
    with pytest.raises(LocalProtocolError, match="names no request"):
        s.send_progress("t", 1.0)


def test_behind_a_queued_frame_the_answer_is_queued_after_it() -> None:
    s = server()
    s.receive(CALL)
    s.send_notification("notifications/tools/list_changed")
    assert s.answer_line(1, RESULT) is None
    methods = [json.loads(f).get("method") for f in s.data_to_send()]
    assert methods == ["notifications/tools/list_changed", None]
    assert s.requests_in_flight == frozenset()


def test_a_batch_member_is_answered_in_its_batch() -> None:
    s = server()
    s.receive(b"[" + CALL + b"]")
    assert s.answer_line(1, RESULT) is None
    assert s.data_to_send() == [b"[" + ANSWER + b"]"]


def test_a_cancelled_request_gets_no_line() -> None:
    s = server()
    s.receive(CALL)
    s.receive(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}')
    assert s.answer_line(1, RESULT) is None
    assert s.data_to_send() == []


def test_a_result_that_cannot_be_encoded_leaves_the_request_to_answer() -> None:
    s = server()
    s.receive(CALL)
    with pytest.raises(LocalProtocolError, match="cannot encode"):
        s.answer_line(1, {"content": object()})
    assert s.requests_in_flight == {1}
    assert s.send_error(1) is True
