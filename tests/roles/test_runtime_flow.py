"""The async runtime in operation: ping, progress, cancellation, concurrency and logging."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from generated._runtime.core.errors import INVALID_PARAMS
from generated._runtime.roles.peer import MCPError, RequestTimeout
from generated._runtime.transports.memory import memory_pair
from generated.v2025_06_18 import Client
from generated.v2025_06_18 import types as t
from tests.support.runtime_support import (
    STEP_S,
    EchoServer,
    RawPeer,
    connected,
    first_text,
    init_result,
    methods,
    responses,
    serving,
)


class SlowSamplingClient(Client):
    """Declares sampling but never answers until cancelled; records the cancellation."""

    def __init__(self) -> None:
        super().__init__(timeout=STEP_S)
        self.cancelled = asyncio.Event()

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: Any
    ) -> t.CreateMessageResult:
        """Wait forever; note the cancellation."""
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


class Listener(Client):
    """Collects the server's notifications."""

    def __init__(self) -> None:
        super().__init__(timeout=STEP_S)
        self.notes: list[tuple[str, Any]] = []

    async def on_notification(self, method: str, params: Any) -> None:
        """Record the notification."""
        self.notes.append((method, params))


# -- ping --------------------------------------------------------------------------------------


async def test_client_pings_the_server() -> None:
    async with connected(EchoServer()) as (client, on_client, _):
        await client.ping()
        request = on_client.sent[-1]
        assert request == {"jsonrpc": "2.0", "id": request["id"], "method": "ping"}
        assert on_client.received[-1] == {"jsonrpc": "2.0", "id": request["id"], "result": {}}


async def test_server_pings_the_client() -> None:
    async with connected(EchoServer()) as (client, on_client, _):
        assert first_text(await client.call_tool(name="ping_client")) == {}
        [ping] = [f for f in on_client.received if f.get("method") == "ping"]
        assert responses(on_client.sent, ping["id"]) == [
            {"jsonrpc": "2.0", "id": ping["id"], "result": {}}
        ]


# -- progress ----------------------------------------------------------------------------------


async def test_progress_reaches_the_callback_in_order_with_the_token_on_the_wire() -> None:
    got: list[t.ProgressNotificationParams] = []
    async with connected(EchoServer()) as (client, on_client, on_server):
        result = await client.call_tool(name="progress", arguments={"n": 5}, progress=got.append)
        assert first_text(result) == "done"
        call = on_client.sent[-1]
        token = call["params"]["_meta"]["progressToken"]
        assert isinstance(token, int | str)
        wire = [f["params"] for f in on_server.sent if f.get("method") == "notifications/progress"]
        assert wire == [
            {"progressToken": token, "progress": i, "total": 5, "message": f"step {i}"}
            for i in range(1, 6)
        ]
        assert [(p.progress, p.total, p.message, p.progress_token) for p in got] == [
            (i, 5, f"step {i}", token) for i in range(1, 6)
        ]
        # The response comes after every progress notification.
        assert on_server.sent[-1]["id"] == call["id"] and "result" in on_server.sent[-1]


async def test_no_progress_is_sent_when_the_client_did_not_ask() -> None:
    async with connected(EchoServer()) as (client, on_client, on_server):
        await client.call_tool(name="progress", arguments={"n": 3})
        assert "_meta" not in on_client.sent[-1]["params"]
        assert "notifications/progress" not in methods(on_server.sent)


# -- cancellation ------------------------------------------------------------------------------


async def test_timeout_cancels_on_the_wire_and_the_handler_sends_no_response() -> None:
    server = EchoServer()
    async with connected(server) as (client, on_client, on_server):
        with pytest.raises(RequestTimeout, match="tools/call"):
            await client.call_tool(name="block", timeout=0.1)
        call, cancel = on_client.sent[-2:]
        assert call["method"] == "tools/call"
        assert cancel["method"] == "notifications/cancelled"
        assert cancel["params"]["requestId"] == call["id"]
        await asyncio.wait_for(server.cancelled.wait(), STEP_S)
        await client.ping()  # the server has read everything before the ping
        assert responses(on_server.sent, call["id"]) == []
        assert first_text(await client.call_tool(name="echo", arguments={"a": 1})) == {"a": 1}


async def test_cancelling_the_caller_task_cancels_on_the_wire() -> None:
    server = EchoServer()
    async with connected(server) as (client, on_client, on_server):
        call = asyncio.create_task(client.call_tool(name="block", timeout=None))
        await asyncio.wait_for(server.started.wait(), STEP_S)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.wait_for(server.cancelled.wait(), STEP_S)
        request = [f for f in on_client.sent if f.get("method") == "tools/call"][-1]
        cancel = on_server.received[-1]
        assert cancel["method"] == "notifications/cancelled"
        assert cancel["params"]["requestId"] == request["id"]
        await client.ping()
        assert responses(on_server.sent, request["id"]) == []


async def test_server_request_timeout_cancels_the_clients_handler(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR)
    client = SlowSamplingClient()
    async with connected(EchoServer(), client) as (_, on_client, on_server):
        with pytest.raises(MCPError, match="Internal error"):
            await client.call_tool(name="sample", arguments={"timeout": 0.1})
        assert "sampling/createMessage got no response" in caplog.text  # in the server's log
        await asyncio.wait_for(client.cancelled.wait(), STEP_S)
        request = next(f for f in on_server.sent if f.get("method") == "sampling/createMessage")
        cancel = next(f for f in on_server.sent if f.get("method") == "notifications/cancelled")
        assert cancel["params"]["requestId"] == request["id"]
        await client.ping()
        assert responses(on_client.sent, request["id"]) == []


async def test_late_response_to_a_cancelled_request_is_dropped() -> None:
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    client = Client(timeout=STEP_S)
    connecting = asyncio.create_task(client.connect(client_end))
    init = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": init["id"], "result": init_result("2025-06-18")})
    await asyncio.wait_for(connecting, STEP_S)
    assert (await fake.recv())["method"] == "notifications/initialized"

    with pytest.raises(RequestTimeout):
        await client.call_tool(name="slow", timeout=0.05)
    call, cancel = await fake.recv(), await fake.recv()
    assert cancel["params"]["requestId"] == call["id"]
    late = {"content": [{"type": "text", "text": "late"}]}
    await fake.send({"jsonrpc": "2.0", "id": call["id"], "result": late})

    fresh = asyncio.create_task(client.call_tool(name="fresh"))
    call2 = await fake.recv()
    assert call2["id"] != call["id"]
    await fake.send({"jsonrpc": "2.0", "id": call2["id"], "result": {"content": []}})
    assert (await asyncio.wait_for(fresh, STEP_S)).content == []
    assert client.peer.violations == []  # dropped silently, not a protocol violation
    await client.close()


async def test_sixteen_concurrent_calls_answered_out_of_order_are_correlated() -> None:
    async with connected(EchoServer()) as (client, on_client, _on_server):
        calls = [
            client.call_tool(name="sleep", arguments={"s": (16 - i) * 0.004, "tag": i})
            for i in range(16)
        ]
        results = await asyncio.wait_for(asyncio.gather(*calls), STEP_S)
        assert [first_text(r) for r in results] == list(range(16))
        requests = [f for f in on_client.sent if f.get("method") == "tools/call"]
        answers = [
            f
            for f in on_client.received
            if "result" in f and f["id"] in {r["id"] for r in requests}
        ]
        assert len(answers) == 16
        sent_order = [r["id"] for r in requests]
        answered_order = [a["id"] for a in answers]
        assert answered_order != sent_order and sorted(answered_order) == sorted(sent_order)
        by_id = {r["id"]: r["params"]["arguments"]["tag"] for r in requests}
        for answer in answers:
            assert json.loads(answer["result"]["content"][0]["text"]) == by_id[answer["id"]]


# -- logging -----------------------------------------------------------------------------------

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


async def test_log_notification_carries_level_data_and_logger() -> None:
    client = Listener()
    async with connected(EchoServer(), client) as (_, _, on_server):
        await client.call_tool(name="log", arguments={"levels": ["error"], "logger": "db"})
        [frame] = [f for f in on_server.sent if f.get("method") == "notifications/message"]
        assert frame == {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "error", "data": {"at": "error"}, "logger": "db"},
        }
        [(method, params)] = client.notes
        assert method == "notifications/message"
        assert (params.level, params.data, params.logger) == ("error", {"at": "error"}, "db")


@pytest.mark.parametrize("threshold", ["debug", "warning", "emergency"])
async def test_set_level_filters_log_messages(threshold: str) -> None:
    client = Listener()
    async with connected(EchoServer(), client) as (_, _, on_server):
        await client.set_level(level=threshold)  # type: ignore[arg-type]
        await client.call_tool(name="log", arguments={"levels": LEVELS})
        sent = [
            f["params"]["level"]
            for f in on_server.sent
            if f.get("method") == "notifications/message"
        ]
        assert sent == LEVELS[LEVELS.index(threshold) :]
        assert [p.level for _, p in client.notes] == sent


async def test_default_log_level_drops_debug() -> None:
    client = Listener()
    async with connected(EchoServer(), client):
        await client.call_tool(name="log", arguments={"levels": ["debug", "info"]})
        assert [p.level for _, p in client.notes] == ["info"]


async def test_set_level_refuses_an_unknown_level() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        reply = await raw.call(1, "logging/setLevel", {"level": "loud"})
        assert reply["id"] == 1 and reply["error"]["code"] == INVALID_PARAMS
        await raw.assert_serving()
