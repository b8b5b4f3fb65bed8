"""The sans-I/O JSON-RPC session: bytes on the wire and events, against the generated tables."""

from __future__ import annotations

import json
from typing import Any

import pytest

from generated._runtime import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Cancelled,
    ErrorResponse,
    InvalidResponse,
    LocalProtocolError,
    MethodSpec,
    Notification,
    Progress,
    ProtocolViolation,
    RemoteProtocolError,
    Request,
    Response,
    Session,
    progress_frame,
    progress_token,
    with_progress_token,
)
from generated.v2025_03_26 import methods as m0326
from generated.v2025_03_26 import types as t0326
from generated.v2025_06_18 import methods as m0618


def server(batch: bool = True, **kwargs: Any) -> Session:
    """A server session of 2025-03-26 (batches on unless told otherwise)."""
    return Session(m0326.METHODS, role="server", batch=batch, **kwargs)


def client() -> Session:
    """A client session of 2025-03-26."""
    return Session(m0326.METHODS, role="client", batch=m0326.SUPPORTS_BATCH)


def sent(session: Session) -> list[Any]:
    """The queued frames, decoded."""
    return [json.loads(frame) for frame in session.data_to_send()]


def frame(value: Any) -> bytes:
    """Encode one JSON value as a frame."""
    return json.dumps(value).encode()


def check_error(reply: Any, id_: Any, code: int) -> str:
    """Assert that ``reply`` is an error response with this id and code; return its message."""
    assert set(reply) == {"jsonrpc", "id", "error"}
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == id_
    assert reply["error"]["code"] == code
    message: str = reply["error"]["message"]
    return message


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo"}}


# -- parse errors and invalid requests ---------------------------------------------------------


def test_malformed_json_gets_parse_error_with_null_id() -> None:
    s = server()
    events = s.receive(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    [reply] = sent(s)
    assert "Parse error" in check_error(reply, None, PARSE_ERROR)
    [violation] = events
    assert isinstance(violation, ProtocolViolation)
    assert isinstance(violation.error, RemoteProtocolError)
    assert violation.error.code == PARSE_ERROR


@pytest.mark.parametrize(
    ("value", "reply_id", "words"),
    [
        (42, None, "object | array"),
        ("ping", None, "object | array"),
        (None, None, "object | array"),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1, '"jsonrpc" must be "2.0"'),
        ({"id": 2, "method": "ping"}, 2, '"jsonrpc" must be "2.0"'),
        ({"jsonrpc": 2.0, "id": 3, "method": "ping"}, 3, '"jsonrpc" must be "2.0"'),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None, "$.id"),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None, "$.id"),
        ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, None, "$.id"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None, "string or an integer"),
        ({"jsonrpc": "2.0", "id": 4, "method": 5}, 4, "$.method"),
        ({"jsonrpc": "2.0", "id": "a", "method": "ping", "result": {}}, "a", "result or error"),
        # Notifications: the one-pass types refuse these shapes too, the general path says why.
        ({"jsonrpc": "1.0", "method": "notifications/initialized"}, None, '"jsonrpc" must be'),
        ({"jsonrpc": "2.0", "method": "notifications/initialized", "error": {}}, None, "result or"),
        (
            {"jsonrpc": "2.0", "id": 5, "result": {}, "error": {"code": 1, "message": "x"}},
            5,
            "both result and error",
        ),
        ({"jsonrpc": "2.0", "id": 6}, 6, "method, a result or an error"),
        ({"jsonrpc": "2.0"}, None, "method, a result or an error"),
        ({"jsonrpc": "2.0", "id": None, "result": {}}, None, "needs the id"),
    ],
)
def test_wrong_shapes_get_invalid_request(value: Any, reply_id: Any, words: str) -> None:
    s = server()
    events = s.receive(frame(value))
    [reply] = sent(s)
    assert words in check_error(reply, reply_id, INVALID_REQUEST)
    [violation] = events
    assert isinstance(violation, ProtocolViolation)
    assert violation.error.code == INVALID_REQUEST
    assert violation.id == reply_id


def test_oversize_frame_is_refused_without_parsing() -> None:
    s = server(max_frame_size=64)
    # Not even JSON: a parse would answer -32700, the size check answers first.
    events = s.receive(b"{" * 65)
    [reply] = sent(s)
    assert "exceeds the limit of 64" in check_error(reply, None, INVALID_REQUEST)
    assert isinstance(events[0], ProtocolViolation)
    # At the limit the frame is parsed.
    ok = frame({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert len(ok) <= 64
    assert [type(e) for e in s.receive(ok)] == [Request]


# -- methods and params ------------------------------------------------------------------------


def test_unknown_method_gets_method_not_found() -> None:
    s = server()
    events = s.receive(frame({"jsonrpc": "2.0", "id": 9, "method": "tools/explode"}))
    [reply] = sent(s)
    assert check_error(reply, 9, METHOD_NOT_FOUND) == "Method not found: tools/explode"
    assert isinstance(events[0], ProtocolViolation)


def test_method_of_the_wrong_side_gets_method_not_found() -> None:
    c = client()  # the peer is a server, which may not send tools/call
    c.receive(frame(CALL))
    [reply] = sent(c)
    check_error(reply, 1, METHOD_NOT_FOUND)
    # A notification name used as a request is not a request method either.
    s = server()
    s.receive(frame({"jsonrpc": "2.0", "id": 2, "method": "notifications/initialized"}))
    check_error(sent(s)[0], 2, METHOD_NOT_FOUND)


def test_unknown_and_wrong_side_notifications_are_ignored() -> None:
    s = server()
    assert s.receive(frame({"jsonrpc": "2.0", "method": "notifications/whatever"})) == []
    wrong_side = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert s.receive(frame(wrong_side)) == []
    assert s.data_to_send() == []


def test_wrong_params_type_names_the_field() -> None:
    s = server()
    bad = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}}
    events = s.receive(frame(bad))
    [reply] = sent(s)
    message = check_error(reply, 3, INVALID_PARAMS)
    assert message == "Invalid params: Expected `str`, got `int` - at `$.name`"
    assert isinstance(events[0], ProtocolViolation)
    assert s.requests_in_flight == frozenset()


def test_missing_params_and_bad_meta_get_invalid_params() -> None:
    s = server()
    s.receive(frame({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}))
    assert "requires params" in check_error(sent(s)[0], 1, INVALID_PARAMS)
    meta = {"name": "x", "_meta": {"progressToken": 1.5}}
    s.receive(frame({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": meta}))
    assert "$._meta.progressToken" in check_error(sent(s)[0], 2, INVALID_PARAMS)


def test_bad_notification_params_are_recorded_not_answered() -> None:
    s = server()
    events = s.receive(frame({"jsonrpc": "2.0", "method": "notifications/progress"}))
    assert s.data_to_send() == []
    [violation] = events
    assert isinstance(violation, ProtocolViolation)
    assert violation.error.code == INVALID_PARAMS


def test_request_is_decoded_once_and_answered() -> None:
    s = server()
    [event] = s.receive(frame(CALL))
    assert isinstance(event, Request)
    assert event.id == 1 and event.method == "tools/call" and event.progress_token is None
    assert event.params == t0326.CallToolRequestParams(name="echo")
    assert s.requests_in_flight == {1}
    result = t0326.CallToolResult(content=[t0326.TextContent(text="hi")])
    assert s.send_response(1, result) is True
    assert s.data_to_send() == [
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'
    ]
    assert s.requests_in_flight == frozenset()
    with pytest.raises(LocalProtocolError, match="no request 1"):
        s.send_response(1, {})


def test_ping_without_params_and_send_error() -> None:
    s = server()
    [event] = s.receive(b'{"jsonrpc":"2.0","id":"p","method":"ping"}')
    assert isinstance(event, Request) and event.params is None
    assert s.send_error("p", INTERNAL_ERROR, "boom", {"why": 1}) is True
    assert s.data_to_send() == [
        b'{"jsonrpc":"2.0","id":"p","error":{"code":-32603,"message":"boom","data":{"why":1}}}'
    ]


def test_reused_request_id_in_flight_gets_invalid_request() -> None:
    s = server()
    assert [type(e) for e in s.receive(frame(CALL))] == [Request]
    events = s.receive(frame({**CALL, "params": {"name": "other"}}))
    [reply] = sent(s)
    assert "already in flight" in check_error(reply, 1, INVALID_REQUEST)
    assert isinstance(events[0], ProtocolViolation)
    # The first request is still the one in flight and still answerable.
    assert s.send_response(1, {"content": []})
    assert sent(s) == [{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}]
    # Once answered, the id is free again.
    assert [type(e) for e in s.receive(frame(CALL))] == [Request]


# -- outgoing requests and responses -----------------------------------------------------------


def test_outgoing_request_bytes_and_increasing_ids() -> None:
    c = client()
    first = c.send_request("tools/call", t0326.CallToolRequestParams(name="echo"))
    second = c.send_request("ping")
    assert (first, second) == (1, 2)
    assert c.data_to_send() == [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}',
        b'{"jsonrpc":"2.0","id":2,"method":"ping"}',
    ]
    assert c.pending_requests == {1, 2}
    c.send_notification("notifications/initialized")
    assert c.data_to_send() == [b'{"jsonrpc":"2.0","method":"notifications/initialized"}']


def test_local_misuse_raises_local_protocol_error() -> None:
    c = client()
    with pytest.raises(LocalProtocolError, match="may not send 'roots/list'"):
        c.send_request("roots/list")
    with pytest.raises(LocalProtocolError, match="unknown method"):
        c.send_request("nope")
    with pytest.raises(LocalProtocolError, match="is a notification"):
        c.send_request("notifications/initialized")
    with pytest.raises(LocalProtocolError, match="requires params"):
        c.send_request("tools/call")
    with pytest.raises(LocalProtocolError, match="cannot encode"):
        c.send_request("tools/call", {"name": object()})
    with pytest.raises(LocalProtocolError, match="no request 7"):
        c.cancel(7)
    with pytest.raises(LocalProtocolError, match="role"):
        Session(m0326.METHODS, role="peer")  # type: ignore[arg-type]
    assert c.data_to_send() == [] and c.pending_requests == frozenset()


def test_concurrent_requests_answered_out_of_order_are_correlated() -> None:
    c = client()
    ids = [
        c.send_request("tools/call", {"name": "slow"}),
        c.send_request("ping"),
        c.send_request("tools/list"),
    ]
    assert ids == [1, 2, 3]
    c.data_to_send()
    tools = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    r3 = c.receive(frame({"jsonrpc": "2.0", "id": 3, "result": tools}))
    r1 = c.receive(frame({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}}))
    r2 = c.receive(frame({"jsonrpc": "2.0", "id": 2, "result": {}}))
    [e3], [e1], [e2] = r3, r1, r2
    assert isinstance(e3, Response) and e3.id == 3 and e3.method == "tools/list"
    assert isinstance(e3.result, t0326.ListToolsResult)
    assert e3.result.tools[0].name == "echo"
    assert isinstance(e1, Response) and e1.id == 1 and e1.method == "tools/call"
    assert e1.result == t0326.CallToolResult(content=[], is_error=True)
    assert isinstance(e2, Response) and (e2.id, e2.method, e2.result) == (2, "ping", {})
    assert c.pending_requests == frozenset()
    assert c.data_to_send() == []


def test_error_response_is_correlated() -> None:
    c = client()
    rid = c.send_request("ping")
    c.data_to_send()
    [event] = c.receive(frame({"jsonrpc": "2.0", "id": rid, "error": {"code": -1, "message": "x"}}))
    assert isinstance(event, ErrorResponse)
    assert (event.id, event.method, event.error.code, event.error.message) == (1, "ping", -1, "x")
    [anonymous] = c.receive(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}')
    assert isinstance(anonymous, ErrorResponse) and anonymous.id is None
    assert c.data_to_send() == []


def test_response_to_unknown_id_is_reported_not_raised() -> None:
    c = client()
    rid = c.send_request("ping")
    c.data_to_send()
    for id_ in (99, "1"):  # "1" is not the int id 1
        [event] = c.receive(frame({"jsonrpc": "2.0", "id": id_, "result": {}}))
        assert isinstance(event, ProtocolViolation) and event.id == id_
        assert "unknown request id" in event.error.message
    [event] = c.receive(frame({"jsonrpc": "2.0", "id": 42, "error": {"code": 1, "message": "m"}}))
    assert isinstance(event, ProtocolViolation)
    assert c.data_to_send() == []  # never answer a response
    assert c.pending_requests == {rid}


def test_undecodable_result_is_an_invalid_response() -> None:
    c = client()
    rid = c.send_request("tools/call", {"name": "echo"})
    [event] = c.receive(frame({"jsonrpc": "2.0", "id": rid, "result": {"content": 5}}))
    assert isinstance(event, InvalidResponse)
    assert (event.id, event.method) == (rid, "tools/call")
    assert "$.content" in event.error.message
    assert c.pending_requests == frozenset()


# -- cancellation ------------------------------------------------------------------------------


def test_incoming_cancel_suppresses_the_response() -> None:
    s = server()
    s.receive(frame({**CALL, "id": "abc"}))
    cancel = {"requestId": "abc", "reason": "user"}
    events = s.receive(
        frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
    )
    assert events == [Cancelled("abc", "user")]
    assert s.requests_in_flight == frozenset()
    assert s.send_response("abc", {"content": []}) is False
    assert s.data_to_send() == []
    with pytest.raises(LocalProtocolError):  # the no-op answer settled it
        s.send_error("abc")


def test_cancel_of_unknown_request_or_initialize_is_ignored() -> None:
    s = server()
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 77}}
    assert s.receive(frame(note)) == []
    init = {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    s.receive(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
    assert s.receive(frame({**note, "params": {"requestId": 0}})) == []
    assert s.requests_in_flight == {0}
    malformed = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}
    assert isinstance(s.receive(frame(malformed))[0], ProtocolViolation)
    assert s.data_to_send() == []


def test_outgoing_cancel_sends_notification_and_drops_late_response() -> None:
    c = client()
    rid = c.send_request("tools/call", {"name": "slow"})
    c.data_to_send()
    c.cancel(rid, "too slow")
    assert c.data_to_send() == [
        b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
        b'"params":{"requestId":1,"reason":"too slow"}}'
    ]
    assert c.pending_requests == frozenset()
    assert c.receive(frame({"jsonrpc": "2.0", "id": rid, "result": {"content": []}})) == []
    # Only the first late answer is expected; a second one is unknown.
    [again] = c.receive(frame({"jsonrpc": "2.0", "id": rid, "result": {"content": []}}))
    assert isinstance(again, ProtocolViolation)
    with pytest.raises(LocalProtocolError):
        c.cancel(rid)


def test_initialize_must_not_be_cancelled() -> None:
    c = client()
    params = {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    rid = c.send_request("initialize", params)
    with pytest.raises(LocalProtocolError, match="initialize"):
        c.cancel(rid)


# -- progress ----------------------------------------------------------------------------------


def test_progress_token_round_trip() -> None:
    c, s = client(), server()
    rid = c.send_request("tools/call", {"name": "slow"}, progress_token="tok")
    [wire] = c.data_to_send()
    assert json.loads(wire)["params"] == {"name": "slow", "_meta": {"progressToken": "tok"}}
    [request] = s.receive(wire)
    assert isinstance(request, Request) and request.progress_token == "tok"
    assert s.send_progress("tok", 0.5, total=1, message="half") is True
    [note] = s.data_to_send()
    assert note == progress_frame("tok", 0.5, 1, "half")
    assert json.loads(note) == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "tok", "progress": 0.5, "total": 1, "message": "half"},
    }
    [event] = c.receive(note)
    assert isinstance(event, Progress) and event.request_id == rid
    assert (event.params.progress, event.params.total, event.params.message) == (0.5, 1, "half")
    s.send_response(request.id, {"content": []})
    assert isinstance(c.receive(s.data_to_send()[0])[0], Response)
    # After the response the token is no longer active on either side.
    assert c.receive(note) == []
    with pytest.raises(LocalProtocolError, match="names no request"):
        s.send_progress("tok", 0.9)


def test_progress_token_rules() -> None:
    c = client()
    c.send_request("ping", progress_token=7)
    with pytest.raises(LocalProtocolError, match="already in use"):
        c.send_request("ping", progress_token=7)
    with pytest.raises(LocalProtocolError, match="string or an integer"):
        c.send_request("ping", progress_token=1.5)  # type: ignore[arg-type]
    assert json.loads(c.data_to_send()[0])["params"] == {"_meta": {"progressToken": 7}}
    # Progress for a cancelled request is a no-op, not an error.
    s = server()
    s.receive(
        frame(
            {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"progressToken": 3}}}
        )
    )
    s.receive(
        frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    )
    assert s.send_progress(3, 1.0) is False
    assert s.data_to_send() == []


def test_progress_helpers() -> None:
    assert progress_token({"_meta": {"progressToken": "a"}}) == "a"
    assert progress_token({"_meta": {"progressToken": True}}) is None
    assert progress_token({"x": 1}) is None
    assert progress_token(None) is None
    result = t0326.ListToolsResult(tools=[], meta={"progressToken": 4})
    assert progress_token(result) == 4
    params = with_progress_token(t0326.CallToolRequestParams(name="n"), 9)
    assert params == {"name": "n", "_meta": {"progressToken": 9}}
    assert with_progress_token({"_meta": {"k": 1}}, "t") == {
        "_meta": {"k": 1, "progressToken": "t"}
    }
    with pytest.raises(LocalProtocolError):
        with_progress_token([1], "t")


# -- batches -----------------------------------------------------------------------------------


def test_batch_accepted_on_2025_03_26_and_answered_as_one_array() -> None:
    assert m0326.SUPPORTS_BATCH is True
    s = server(batch=m0326.SUPPORTS_BATCH)
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "nope"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x"}},
        7,
    ]
    events = s.receive(frame(batch))
    kinds = [type(e) for e in events]
    assert kinds == [Request, Notification, ProtocolViolation, Request, ProtocolViolation]
    assert s.data_to_send() == []  # held until every request of the batch is answered
    s.send_response(3, {"content": []})
    assert s.data_to_send() == []
    s.send_response(1, {})
    [reply] = s.data_to_send()
    entries = json.loads(reply)
    assert entries[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    check_error(entries[1], 2, METHOD_NOT_FOUND)
    assert entries[2] == {"jsonrpc": "2.0", "id": 3, "result": {"content": []}}
    check_error(entries[3], None, INVALID_REQUEST)
    assert len(entries) == 4  # the notification has no entry


def test_batch_of_notifications_gets_no_response() -> None:
    s = server()
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    events = s.receive(frame([note, note]))
    assert events == [Notification("notifications/initialized", None)] * 2
    assert s.data_to_send() == []


def test_batch_member_cancelled_is_omitted() -> None:
    s = server()
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    s.receive(frame(batch))
    s.receive(
        frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    )
    s.send_response(1, {})
    assert [json.loads(f) for f in s.data_to_send()] == [
        [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    ]
    s.receive(frame(batch[:1]))
    s.receive(
        frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    )
    assert s.data_to_send() == []  # every member cancelled: nothing to send


def test_batch_of_responses_is_correlated() -> None:
    c = client()
    c.send_request("ping")
    c.send_request("ping")
    assert len(c.data_to_send()) == 2
    events = c.receive(frame([{"jsonrpc": "2.0", "id": i, "result": {}} for i in (2, 1)]))
    assert [(type(e), e.id) for e in events if isinstance(e, Response)] == [
        (Response, 2),
        (Response, 1),
    ]
    assert c.data_to_send() == []


def test_batch_refused_on_2025_06_18() -> None:
    assert m0618.SUPPORTS_BATCH is False
    s = Session(m0618.METHODS, role="server", batch=m0618.SUPPORTS_BATCH)
    events = s.receive(frame([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
    [reply] = sent(s)
    assert "batches are not supported" in check_error(reply, None, INVALID_REQUEST)
    assert [type(e) for e in events] == [ProtocolViolation]
    assert s.requests_in_flight == frozenset()


def test_empty_batch_is_invalid() -> None:
    s = server()
    s.receive(b"[]")
    [reply] = sent(s)
    assert "empty batch" in check_error(reply, None, INVALID_REQUEST)


class _Opaque:
    """A params type no decoder supports, to reach the internal-error path."""


def test_failure_inside_params_decoding_is_an_internal_error() -> None:
    spec = MethodSpec(
        method="x/y",
        kind="request",
        direction="both",
        message=object,
        params=_Opaque,
        params_required=True,
        result=None,
    )
    s = Session({"x/y": spec}, role="server")
    events = s.receive(frame({"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": {}}))
    [reply] = sent(s)
    assert "Internal error" in check_error(reply, 1, INTERNAL_ERROR)
    assert isinstance(events[0], ProtocolViolation)
