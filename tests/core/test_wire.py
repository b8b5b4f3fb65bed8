"""The wire layer: queued messages say what they are; one-pass decoding changes nothing seen."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from generated._runtime.core.events import ProtocolViolation, Request, Response
from generated._runtime.core.session import Session
from generated._runtime.core.wire import Inbound, Malformed, Outbound, parse
from generated.v2025_03_26 import methods as m0326
from generated.v2025_06_18 import methods as m0618
from generated.v2025_06_18 import types as t


def frame(value: Any) -> bytes:
    """One JSON value as a frame."""
    return json.dumps(value).encode()


def test_queued_messages_carry_kind_method_and_ids() -> None:
    """Requests, notifications, answers and cancellations are described, not just encoded."""
    client = Session(m0618.METHODS, role="client")
    rid = client.send_request("tools/list", None)
    client.send_notification("notifications/roots/list_changed")
    client.cancel(rid, "no longer needed")
    request, note, cancel = client.messages_to_send()
    assert (request.kind, request.method, request.ids) == ("request", "tools/list", (rid,))
    assert (note.kind, note.method, note.ids) == ("notification", note.method, ())
    assert (cancel.method, cancel.cancels) == ("notifications/cancelled", rid)
    server = Session(m0618.METHODS, role="server")
    server.receive(frame({"jsonrpc": "2.0", "id": "a", "method": "ping"}))
    server.receive(frame({"jsonrpc": "2.0", "id": 7, "method": "no/such"}))
    server.send_response("a", {})
    refused, answer = server.messages_to_send()
    assert (refused.kind, refused.ids) == ("response", (7,))
    assert (answer.kind, answer.ids) == ("response", ("a",))
    assert json.loads(answer.data) == {"jsonrpc": "2.0", "id": "a", "result": {}}


def test_a_batch_answer_names_every_id_it_answers() -> None:
    """2025-03-26 batches: the one array sent back lists the ids of all its answers."""
    server = Session(m0326.METHODS, role="server", batch=True)
    server.receive(
        frame(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "id": 2, "method": "no/such"},
            ]
        )
    )
    server.send_response(1, {})
    [answer] = server.messages_to_send()
    assert answer.kind == "response" and set(answer.ids) == {1, 2}
    assert isinstance(json.loads(answer.data), list)


FRAMES = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "x", "arguments": {"a": 1}, "_meta": {"progressToken": "p"}},
    },
    {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"progressToken": 9}}},
    {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 5}},
    {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/call",
        "params": {"name": "x", "_meta": {"progressToken": 1.5}},
    },
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call"},
    {"jsonrpc": "2.0", "id": 8, "method": "no/such"},
    {"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {}},
    {"jsonrpc": "1.0", "id": 10, "method": "ping"},
    {"jsonrpc": "2.0", "id": 11, "method": "ping", "result": {}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
]


@pytest.mark.parametrize("value", FRAMES, ids=lambda v: f"{v.get('id')}-{v.get('method')}")
def test_one_pass_and_general_parse_mean_the_same(value: dict[str, Any]) -> None:
    """The typed one-pass decoders give the same events and answers as the general path."""
    one_pass, general = (Session(m0618.METHODS, role="server") for _ in range(2))
    data = frame(value)
    events = [one_pass.receive(one_pass.parse(data)), general.receive(parse(data))]
    assert repr(events[0]) == repr(events[1])  # (errors compare by identity, not by value)
    assert one_pass.data_to_send() == general.data_to_send()


def test_a_response_decodes_in_one_pass_only_when_its_type_is_known() -> None:
    """Pending requests of one result type: typed at once; of several: each by its request."""
    client = Session(m0618.METHODS, role="client")
    first, second = client.send_request("tools/list", None), client.send_request("tools/list")
    tools = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}
    parsed = client.parse(frame({"jsonrpc": "2.0", "id": first, "result": tools}))
    assert isinstance(parsed.messages[0].result, t.ListToolsResult)  # type: ignore[union-attr]
    [event] = client.receive(parsed)
    assert isinstance(event, Response) and isinstance(event.result, t.ListToolsResult)
    third = client.send_request("prompts/list", None)
    parsed = client.parse(frame({"jsonrpc": "2.0", "id": third, "result": {"prompts": []}}))
    assert isinstance(parsed.messages[0].result, t.ListPromptsResult)  # type: ignore[union-attr]
    [event] = client.receive(parsed)
    assert isinstance(event, Response) and isinstance(event.result, t.ListPromptsResult)
    # The id the type is picked by must be the message's own, not one nested before it.
    fourth = client.send_request("prompts/list", None)
    nested = {"tools": [{"name": "a", "inputSchema": {"type": "object"}, "_meta": {"id": fourth}}]}
    data = json.dumps({"jsonrpc": "2.0", "result": nested, "id": second}).encode()
    assert isinstance(client.parse(data).messages[0].result, msgspec.Raw)  # type: ignore[union-attr]
    [event] = client.receive(data)
    assert isinstance(event, Response) and event.id == second
    assert isinstance(event.result, t.ListToolsResult)
    second = client.send_request("tools/list", None)
    # A result that does not fit the awaited type is refused as before, for its request.
    [event] = client.receive(frame({"jsonrpc": "2.0", "id": second, "result": {"tools": 5}}))
    assert type(event).__name__ == "InvalidResponse"


def test_unparsable_frames_are_malformed_inbound() -> None:
    """Not JSON, not a message, an empty batch: what HTTP answers 400 to without a session."""
    assert parse(b"{").malformed is not None
    assert parse(b"5").malformed is not None
    assert parse(b"[]").batch and parse(b"[]").messages == []
    bad = parse(b'{"jsonrpc": "2.0", "id": 3, "method": 5}').malformed
    assert isinstance(bad, Malformed) and bad.id == 3
    assert Inbound([bad]).request_ids == [3]


def test_a_frame_made_by_hand_is_described_by_parsing_it() -> None:
    """Outbound.of (raw peers and tests) finds kind, method, ids and a cancelled request."""
    made = Outbound.of(b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
    assert (made.kind, made.method, made.ids) == ("request", "tools/list", (4,))
    cancel = Outbound.of(
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}'
    )
    assert (cancel.kind, cancel.cancels) == ("notification", 4)
    assert Outbound.of(b"nonsense").kind == "other"


def test_request_events_keep_their_progress_token() -> None:
    """The token comes from the typed params (no second parse) and a bad one is refused."""
    server = Session(m0618.METHODS, role="server")
    [good] = server.receive(frame(FRAMES[1]))
    assert isinstance(good, Request) and good.progress_token == "p"
    [bad] = server.receive(frame(FRAMES[5]))
    assert isinstance(bad, ProtocolViolation) and "$._meta.progressToken" in bad.error.message
