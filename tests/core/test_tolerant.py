"""Tolerant reading: fields and union members the revision lacks are kept; strict refuses them.

What is asserted about re-encoding: a value decoded tolerantly encodes back to the same bytes
when the input has its keys in the encoder's order (a tagged member's tag first, then the
revision's fields in schema order, then the extra keys in the order they came); in any other
order it encodes back to equal JSON (same keys, same values), the keys in that order.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
import pytest

from generated import v2025_03_26 as v0326
from generated import v2025_06_18 as v0618
from generated import v2025_11_25 as v1125
from generated._runtime.core import tolerant
from generated._runtime.core.errors import RemoteProtocolError
from generated._runtime.core.events import InvalidResponse, Request, Response
from generated._runtime.core.session import Session
from generated._runtime.transports.memory import memory_pair
from generated.runtime import Unknown, convert, decode, encode, extras, with_extras
from generated.v2025_03_26 import types as t0326
from generated.v2025_06_18 import types as t0618
from generated.v2025_11_25 import types as t1125
from generated.v2026_07_28 import types as t0728
from tests.support.runtime_support import STEP_S, RawPeer, init_result

# A 2025-03-26 tools/call result as the reference server sends it to a 2025-03-26 client: a
# resource_link block (2025-06-18 and later), plus fields no revision defines, at three depths.
RESULT_0326 = (
    b'{"content":['
    b'{"type":"text","annotations":{"priority":0.5,"x-ann":true},"text":"hi","x-block":[1,2]},'
    b'{"type":"resource_link","uri":"file:///a.txt","name":"a","mimeType":"text/plain"}'
    b'],"isError":false,"x-top":{"nested":{"k":null}}}'
)
STRIPPED_0326 = (
    b'{"content":[{"type":"text","annotations":{"priority":0.5},"text":"hi"}],"isError":false}'
)


def test_extra_fields_and_an_unknown_block_survive_byte_for_byte() -> None:
    """Tolerant: every extra field and the unknown block are kept, and encode back identically."""
    result = decode(RESULT_0326, t0326.CallToolResult)
    assert isinstance(result, t0326.CallToolResult)
    assert extras(result) == {"x-top": {"nested": {"k": None}}}
    block, link = result.content
    assert isinstance(block, t0326.TextContent) and block.text == "hi"
    assert extras(block) == {"x-block": [1, 2]}
    assert isinstance(block.annotations, t0326.Annotations)
    assert extras(block.annotations) == {"x-ann": True}
    assert isinstance(link, Unknown)
    assert link.kind == "resource_link"
    assert link.json == {
        "type": "resource_link",
        "uri": "file:///a.txt",
        "name": "a",
        "mimeType": "text/plain",
    }
    assert encode(result) == RESULT_0326


def test_strict_drops_the_extra_fields_and_refuses_the_unknown_block() -> None:
    """Strict: the unknown block fails the message as before; without it, extras are dropped."""
    with pytest.raises(
        msgspec.ValidationError,
        match=r"Invalid value 'resource_link' - at `\$\.content\[1\]\.type`",
    ):
        decode(RESULT_0326, t0326.CallToolResult, tolerant=False)
    without_link = json.loads(RESULT_0326)
    del without_link["content"][1]
    strict = decode(json.dumps(without_link).encode(), t0326.CallToolResult, tolerant=False)
    assert type(strict) is t0326.CallToolResult and extras(strict) == {}
    assert encode(strict) == STRIPPED_0326


def test_other_key_orders_come_back_as_equal_json() -> None:
    """Keys out of the encoder's order: equal JSON, the known fields first, extras after."""
    frame = b'{"x-first":1,"text":"hi","type":"text","x-last":[true]}'
    value = decode(frame, t0618.TextContent)
    assert encode(value) == b'{"type":"text","text":"hi","x-first":1,"x-last":[true]}'
    assert json.loads(encode(value)) == json.loads(frame)


def test_a_message_without_extras_decodes_to_the_plain_types() -> None:
    """Nothing changes for a message the revision fully defines: the generated classes as such."""
    result = decode(STRIPPED_0326, t0326.CallToolResult)
    assert type(result) is t0326.CallToolResult
    assert type(result.content[0]) is t0326.TextContent
    assert extras(result) == {} and extras(result.content[0]) == {}


def test_real_errors_stay_errors_in_tolerant_mode() -> None:
    """Tolerance is for what the revision lacks, not for what it defines wrongly."""
    with pytest.raises(
        msgspec.ValidationError, match=r"Expected `str`, got `int` - at `\$\.content\[0\]\.text`"
    ):
        decode(b'{"content":[{"type":"text","text":5,"x":1}]}', t0326.CallToolResult)
    bad_field = (
        b'{"message":"m","requestedSchema":{"type":"object",'
        b'"properties":{"a":{"type":"string","maxLength":"x"}}}}'
    )
    with pytest.raises(msgspec.ValidationError):
        decode(bad_field, t0618.ElicitRequestParams)


ELICIT_0618 = (
    b'{"message":"pick","requestedSchema":{"type":"object","properties":{'
    b'"colors":{"type":"array","items":{"type":"string","enum":["red","blue"]}},'
    b'"name":{"type":"string","title":"Name","x-hint":"short"}},"required":["name"]}}'
)


def test_array_elicitation_fields_reach_a_0618_reader_as_unknown() -> None:
    """2025-11-25's array fields, sent to 2025-06-18: Unknown, the known fields typed."""
    params = decode(ELICIT_0618, t0618.ElicitRequestParams)
    props = params.requested_schema.properties
    assert isinstance(props["colors"], Unknown) and props["colors"].kind == "array"
    assert props["colors"].json["items"] == {"type": "string", "enum": ["red", "blue"]}
    assert isinstance(props["name"], t0618.StringSchema)
    assert extras(props["name"]) == {"x-hint": "short"}
    assert encode(params) == ELICIT_0618
    with pytest.raises(msgspec.ValidationError, match='type "array" that matches none'):
        decode(ELICIT_0618, t0618.ElicitRequestParams, tolerant=False)


@pytest.mark.parametrize("types", [t1125, t0728], ids=["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("tolerant_mode", [True, False])
def test_a_defined_kind_without_its_keys_is_refused_not_unknown(
    types: Any, tolerant_mode: bool
) -> None:
    """Only a kind no member takes is Unknown; a kind some member takes must have its shape."""
    multi = r'type "array" fits no member: UntitledMultiSelectEnumSchema needs `items`'
    with pytest.raises(msgspec.ValidationError, match=multi):
        convert({"type": "array"}, types.PrimitiveSchemaDefinition, tolerant=tolerant_mode)
    single = (
        r'type "string" fits no member: UntitledSingleSelectEnumSchema needs `enum`, '
        r"TitledSingleSelectEnumSchema needs `oneOf`, LegacyTitledEnumSchema needs `enum`"
    )
    with pytest.raises(msgspec.ValidationError, match=single):
        convert({"type": "string"}, types.EnumSchema, tolerant=tolerant_mode)
    # In the wider union a plain {"type": "string"} is a StringSchema.
    plain = convert({"type": "string"}, types.PrimitiveSchemaDefinition, tolerant=tolerant_mode)
    assert isinstance(plain, types.StringSchema)
    # "array" is a kind of EnumSchema but not of SingleSelectEnumSchema: newer there, kept.
    newer = {"type": "array", "x": 1}
    if tolerant_mode:
        kept = convert(newer, types.SingleSelectEnumSchema)
        assert isinstance(kept, Unknown) and kept.json == newer
    else:
        with pytest.raises(msgspec.ValidationError, match='type "array" that matches none'):
            convert(newer, types.SingleSelectEnumSchema, tolerant=False)


def _elicit_frame(request_id: int, field: dict[str, Any]) -> bytes:
    schema = {"type": "object", "properties": {"tags": field, "name": {"type": "string"}}}
    params = {"mode": "form", "message": "m", "requestedSchema": schema}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "elicitation/create"}
    return json.dumps({**message, "params": params}).encode()


def test_session_answers_a_malformed_field_schema_and_keeps_a_newer_one() -> None:
    """A 2025-11-25 client: an array field without ``items`` gets -32602 naming ``items``; a
    field of a kind the revision lacks reaches the handler as Unknown; the session goes on."""
    session = Session(v1125.methods.METHODS, role="client")
    session.receive(_elicit_frame(3, {"type": "array"}))
    [answer] = [json.loads(frame) for frame in session.data_to_send()]
    assert answer["id"] == 3 and answer["error"]["code"] == -32602
    assert "UntitledMultiSelectEnumSchema needs `items`" in answer["error"]["message"]
    [event] = session.receive(_elicit_frame(4, {"type": "date", "format": "iso"}))
    assert isinstance(event, Request) and event.id == 4
    assert isinstance(event.params, t1125.ElicitRequestFormParams)
    tags = event.params.requested_schema.properties["tags"]
    assert isinstance(tags, Unknown) and tags.json == {"type": "date", "format": "iso"}
    assert session.data_to_send() == []


def test_with_extras_adds_fields_a_user_wants_to_send() -> None:
    """A value built by hand can carry fields beyond the revision too."""
    block = with_extras(t0618.TextContent(text="x"), {"x-a": 1})
    assert isinstance(block, t0618.TextContent)
    assert encode(block) == b'{"type":"text","text":"x","x-a":1}'
    more = with_extras(block, {"x-b": 2})
    assert extras(more) == {"x-a": 1, "x-b": 2}
    assert encode(more) == b'{"type":"text","text":"x","x-a":1,"x-b":2}'


def test_keys_invented_by_a_peer_do_not_grow_memory() -> None:
    """Each new key set makes a class; past a bound they are not cached (memory stays bounded)."""
    for i in range(2 * tolerant._CACHE_LIMIT):
        value = decode(b'{"type":"text","text":"t","k%d":1}' % i, t0618.TextContent)
        assert extras(value) == {f"k{i}": 1}
    assert len(tolerant._EXTENDED) <= tolerant._CACHE_LIMIT


def _call_tool_frame(params: dict[str, Any]) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    ).encode()


@pytest.mark.parametrize("tolerant_mode", [True, False])
def test_session_keeps_or_drops_extra_params(tolerant_mode: bool) -> None:
    """A server session passes extra params fields on (tolerant) or drops them (strict)."""
    session = Session(v0618.methods.METHODS, role="server", tolerant=tolerant_mode)
    params = {"name": "echo", "arguments": {}, "x-trace": "abc"}
    [event] = session.receive(_call_tool_frame(params))
    assert isinstance(event, Request)
    assert isinstance(event.params, t0618.CallToolRequestParams)
    expected = params if tolerant_mode else {"name": "echo", "arguments": {}}
    assert json.loads(encode(event.params)) == expected


@pytest.mark.parametrize("tolerant_mode", [True, False])
def test_session_result_with_an_unknown_block(tolerant_mode: bool) -> None:
    """A client session: the unknown block is a Response (tolerant) or an InvalidResponse."""
    session = Session(v0326.methods.METHODS, role="client", tolerant=tolerant_mode)
    request_id = session.send_request(
        v0326.methods.TOOLS_CALL, t0326.CallToolRequestParams(name="x")
    )
    session.data_to_send()
    frame = b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (request_id, RESULT_0326)
    [event] = session.receive(frame)
    if tolerant_mode:
        assert isinstance(event, Response)
        assert encode(event.result) == RESULT_0326
    else:
        assert isinstance(event, InvalidResponse)
        assert "resource_link" in str(event.error)


async def _connect(client: Any, version: str) -> tuple[RawPeer, Any]:
    """Connect ``client`` to a hand-driven fake server of ``version``."""
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    connecting = asyncio.create_task(client.connect(client_end))
    init = await fake.recv()
    result = init_result(version)
    await fake.send({"jsonrpc": "2.0", "id": init["id"], "result": result})
    await asyncio.wait_for(connecting, STEP_S)
    await fake.recv()  # notifications/initialized
    return fake, client


@pytest.mark.parametrize("tolerant_mode", [True, False])
async def test_resource_link_to_a_0326_client(tolerant_mode: bool) -> None:
    """What the reference server sends a 2025-03-26 client: the call succeeds (strict: fails)."""
    client = v0326.Client(timeout=STEP_S)
    client.tolerant = tolerant_mode
    fake, _ = await _connect(client, "2025-03-26")
    calling = asyncio.create_task(client.call_tool(name="get-resource-links"))
    request = await fake.recv()
    frame = b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (
        json.dumps(request["id"]).encode(),
        RESULT_0326,
    )
    await fake.send(frame)
    if tolerant_mode:
        result = await asyncio.wait_for(calling, STEP_S)
        assert isinstance(result.content[1], Unknown)
        assert encode(result) == RESULT_0326
    else:
        with pytest.raises(RemoteProtocolError, match="resource_link"):
            await asyncio.wait_for(calling, STEP_S)
    await client.close()


class _Elicited(v0618.Client):
    """A 2025-06-18 client that records the elicitation it is asked and declines it."""

    seen: list[t0618.ElicitRequestParams]

    async def on_elicit(self, params: t0618.ElicitRequestParams, ctx: Any) -> t0618.ElicitResult:
        """Record and decline."""
        self.seen.append(params)
        return t0618.ElicitResult(action="decline")


@pytest.mark.parametrize("tolerant_mode", [True, False])
async def test_array_elicitation_fields_to_a_0618_client(tolerant_mode: bool) -> None:
    """What the reference server sends a 2025-06-18 client: the handler sees Unknown fields."""
    client = _Elicited(timeout=STEP_S)
    client.seen = []
    client.tolerant = tolerant_mode
    fake, _ = await _connect(client, "2025-06-18")
    await fake.send(
        b'{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":%s}' % ELICIT_0618
    )
    reply = await fake.recv()
    if tolerant_mode:
        assert reply == {"jsonrpc": "2.0", "id": "e1", "result": {"action": "decline"}}
        [params] = client.seen
        assert isinstance(params.requested_schema.properties["colors"], Unknown)
        assert encode(params) == ELICIT_0618
    else:
        assert reply["error"]["code"] == -32602 and "array" in reply["error"]["message"]
        assert client.seen == []
    await client.close()


def test_keys_msgspec_cannot_write_are_the_one_thing_left_out() -> None:
    """A key with a quote, backslash or control character is dropped; the rest are kept."""
    frame = b'{"type":"text","text":"t","x-ok":1,"x-\\"q":2,"x-\\\\b":3,"x-\\u0001c":4}'
    value = decode(frame, t0618.TextContent)
    assert extras(value) == {"x-ok": 1}
    assert encode(value) == b'{"type":"text","text":"t","x-ok":1}'
