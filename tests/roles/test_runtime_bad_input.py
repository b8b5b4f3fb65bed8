"""Bad input over a raw in-memory transport: the error frames sent back, and serving goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated._runtime.core.errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RemoteProtocolError,
)
from generated._runtime.core.session import DEFAULT_MAX_FRAME_SIZE
from generated._runtime.core.transport import ConnectionClosed
from generated._runtime.roles import peer
from generated._runtime.transports.memory import memory_pair
from generated.v2025_06_18 import Client
from tests.support.runtime_support import (
    STEP_S,
    Echo0326,
    EchoServer,
    RawPeer,
    init_result,
    serving,
    text_result,
)


def check_error(reply: Any, id_: Any, code: int) -> str:
    """Assert ``reply`` is exactly an error response with this id and code; return its message."""
    assert set(reply) == {"jsonrpc", "id", "error"}, reply
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == id_
    assert reply["error"]["code"] == code, reply
    message: str = reply["error"]["message"]
    return message


async def test_malformed_json_gets_parse_error_with_null_id() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        await raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": ')
        check_error(await raw.recv(), None, PARSE_ERROR)
        await raw.send(b"\xff\xfe not utf-8")
        check_error(await raw.recv(), None, PARSE_ERROR)
        await raw.assert_serving()


@pytest.mark.parametrize(
    ("frame", "id_"),
    [
        (b"42", None),
        (b'"a string"', None),
        (b"null", None),
        ({"jsonrpc": "1.0", "id": 5, "method": "ping"}, 5),
        ({"id": 5, "method": "ping"}, 5),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 6, "method": 5}, 6),
        ({"jsonrpc": "2.0", "id": "s", "method": ["ping"]}, "s"),
        ({"jsonrpc": "2.0", "id": 7}, 7),
        ({"jsonrpc": "2.0", "id": 9, "method": "ping", "result": {}}, 9),
    ],
)
async def test_wrong_json_rpc_shapes_get_invalid_request(frame: Any, id_: Any) -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        await raw.send(frame)
        check_error(await raw.recv(), id_, INVALID_REQUEST)
        await raw.assert_serving()


@pytest.mark.parametrize("method", ["tools/nope", "sampling/createMessage", "roots/list", ""])
async def test_unknown_or_wrong_direction_method_gets_method_not_found(method: str) -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        message = check_error(await raw.call(3, method, {}), 3, METHOD_NOT_FOUND)
        assert method in message
        await raw.assert_serving()


async def test_unknown_notification_is_ignored() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        await raw.notify("notifications/whatever", {"x": 1})
        await raw.silent()
        await raw.assert_serving()


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("tools/call", {"name": 5}, "name"),
        ("tools/call", {"arguments": {}}, "name"),
        ("tools/call", {"name": "echo", "arguments": [1, 2]}, "arguments"),
        ("tools/call", [1, 2], "object"),
        ("tools/call", None, "params"),
        ("logging/setLevel", {"level": 3}, "level"),
        ("tools/list", {"cursor": 3}, "cursor"),
        ("tools/call", {"name": "echo", "_meta": {"progressToken": 1.5}}, "progressToken"),
    ],
)
async def test_params_of_the_wrong_type_get_invalid_params_naming_the_field(
    method: str, params: Any, field: str
) -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        message = check_error(await raw.call(4, method, params), 4, INVALID_PARAMS)
        assert field in message
        await raw.assert_serving()


async def test_response_to_an_unknown_id_is_ignored() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        await raw.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        await raw.send({"jsonrpc": "2.0", "id": "zz", "error": {"code": 1, "message": "x"}})
        await raw.send({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}})
        await raw.silent()
        await raw.assert_serving()


async def test_bad_cancellations_are_ignored() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        await raw.notify("notifications/cancelled", {"requestId": 12345})
        await raw.notify("notifications/cancelled", {"requestId": [1]})
        await raw.notify("notifications/cancelled", "junk")
        await raw.silent()
        await raw.assert_serving()


async def test_request_id_reused_while_in_flight_is_refused_and_the_first_still_answered() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        slow = {"name": "sleep", "arguments": {"s": 0.1, "tag": "first"}}
        await raw.send({"jsonrpc": "2.0", "id": "dup", "method": "tools/call", "params": slow})
        await raw.send({"jsonrpc": "2.0", "id": "dup", "method": "ping"})
        message = check_error(await raw.recv(), "dup", INVALID_REQUEST)
        assert "already in flight" in message
        first = await raw.recv()
        assert first == {"jsonrpc": "2.0", "id": "dup", "result": text_result("first")}
        # Once answered, the id may be used again.
        assert await raw.call("dup", "ping") == {"jsonrpc": "2.0", "id": "dup", "result": {}}


async def test_batch_on_2025_03_26_is_answered_as_one_array() -> None:
    async with serving(EchoServer(), Echo0326()) as raw:
        assert (await raw.initialize("2025-03-26"))["protocolVersion"] == "2025-03-26"
        await raw.send(
            [
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "sleep", "arguments": {"s": 0.05}},
                },
                {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "id": 3, "method": "nope"},
                {
                    "jsonrpc": "2.0",
                    "id": 4,
                    "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"k": 4}},
                },
            ]
        )
        reply = await raw.recv()
        assert isinstance(reply, list)
        assert [r["id"] for r in reply] == [1, 2, 3, 4]
        assert reply[0]["result"] == text_result({"s": 0.05})
        assert reply[1]["result"] == {}
        check_error(reply[2], 3, METHOD_NOT_FOUND)
        assert reply[3]["result"] == text_result({"k": 4})
        await raw.silent()
        await raw.send([])
        check_error(await raw.recv(), None, INVALID_REQUEST)
        await raw.assert_serving()


async def test_batch_of_notifications_only_gets_no_answer() -> None:
    async with serving(EchoServer(), Echo0326()) as raw:
        await raw.initialize("2025-03-26")
        await raw.send([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}])
        await raw.silent()
        await raw.assert_serving()


async def test_batch_on_2025_06_18_is_refused() -> None:
    async with serving(EchoServer(), Echo0326()) as raw:
        await raw.initialize("2025-06-18")
        await raw.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        message = check_error(await raw.recv(), None, INVALID_REQUEST)
        assert "batch" in message
        await raw.silent()
        await raw.assert_serving()


async def test_oversized_frame_is_refused_and_serving_goes_on() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        big = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "ping",
            "params": {"pad": "x" * DEFAULT_MAX_FRAME_SIZE},
        }
        await raw.send(big)
        message = check_error(await raw.recv(), None, INVALID_REQUEST)
        assert "exceeds" in message
        await raw.assert_serving()


async def test_client_pending_call_fails_promptly_when_the_server_closes() -> None:
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    client = Client(timeout=None)
    connecting = asyncio.create_task(client.connect(client_end))
    init = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": init["id"], "result": init_result("2025-06-18")})
    await asyncio.wait_for(connecting, STEP_S)
    call = asyncio.create_task(client.call_tool(name="anything"))
    await fake.recv()  # initialized
    assert (await fake.recv())["method"] == "tools/call"
    await server_end.close()
    with pytest.raises(ConnectionClosed, match="closed"):
        await asyncio.wait_for(call, STEP_S)
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(client.ping(), STEP_S)
    await client.close()


async def test_server_stops_its_handlers_when_the_client_goes_away_mid_request() -> None:
    server = EchoServer()
    client_end, server_end = memory_pair()
    serve = asyncio.create_task(server.serve(server_end))
    raw = RawPeer(client_end)
    await raw.initialize()
    await raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "block"}})
    await asyncio.wait_for(server.started.wait(), STEP_S)
    await client_end.close()
    # Handlers in flight at end of input may get a grace period to finish; then they stop.
    await asyncio.wait_for(serve, getattr(peer, "DRAIN_TIMEOUT_S", 0.0) + STEP_S)
    assert server.cancelled.is_set()


async def test_invalid_result_from_the_server_is_an_error_and_the_client_goes_on() -> None:
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    client = Client(timeout=STEP_S)
    connecting = asyncio.create_task(client.connect(client_end))
    init = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": init["id"], "result": init_result("2025-06-18")})
    await asyncio.wait_for(connecting, STEP_S)
    await fake.recv()  # initialized
    listing = asyncio.create_task(client.list_tools())
    request = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": 5}})
    with pytest.raises(RemoteProtocolError, match="Invalid result"):
        await asyncio.wait_for(listing, STEP_S)
    pinging = asyncio.create_task(client.ping())
    ping = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": ping["id"], "result": {}})
    await asyncio.wait_for(pinging, STEP_S)
    await client.close()
