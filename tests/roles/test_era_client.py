"""2026-07-28 client against our server: _meta on the wire, MRTR via on_* handlers, listen."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated._runtime.roles.connect import attach_stateless, connect_stateless, listen
from generated._runtime.roles.peer import MCPError
from generated.v2026_07_28 import types as t
from tests.support.era_support import (
    EchoHandshake,
    EraClient,
    FixtureServer,
    HandshakeClient,
    served,
)


async def connected(end: Any, **options: Any) -> EraClient:
    client = EraClient()
    await connect_stateless(client, end, **options)
    return client


async def test_every_request_carries_the_per_request_meta() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end, log_level="debug")
        result = await client.call_tool(name="test_simple_text")
        assert result.content == [t.TextContent(text="This is a simple text response for testing.")]
        discover, call = end.sent
        assert discover["method"] == "server/discover"
        assert call["params"]["_meta"] == {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {},
                "roots": {},
                "sampling": {},
            },
            "io.modelcontextprotocol/clientInfo": {"name": "era-test-client", "version": "1.2.3"},
            "io.modelcontextprotocol/logLevel": "debug",
        }
        assert client.server_info == {"name": "mcpgen-conformance-fixture", "version": "1.0.0"}
        assert client.their_capabilities["tools"] == {"listChanged": True}
        await client.close()


async def test_capabilities_a_request_states_itself_stand() -> None:
    """A request whose ``_meta`` states client capabilities (a bridge forwarding for a client
    that cannot answer elicitation) keeps them; the other keys are the client's. The fixture's
    elicitation tool then asks for what that client declared, and is refused (-32021) rather
    than answered by ``on_elicit``."""
    async with served(FixtureServer()) as end:
        client = await connected(end)
        meta = {"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}, "k": "v"}
        params = t.CallToolRequestParams(name="test_input_required_result_elicitation", meta=meta)
        with pytest.raises(MCPError) as refused:
            await client.request(client.METHODS["tools/call"], params)
        assert refused.value.code == -32021
        sent = end.sent[-1]["params"]["_meta"]
        assert sent["io.modelcontextprotocol/clientCapabilities"] == {"sampling": {}}
        assert sent["k"] == "v" and sent["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert client.asked == []
        await client.close()


async def test_connect_of_a_2026_client_probes_and_returns_the_discover_result() -> None:
    async with served(FixtureServer()) as end:
        client = EraClient()
        result = await client.connect(end)
        assert isinstance(result, t.DiscoverResult)
        assert result.supported_versions == ["2026-07-28"]
        assert client.initialize_result is result
        assert [f["method"] for f in end.sent] == ["server/discover"]
        await client.close()


async def test_mrtr_elicitation_is_answered_by_on_elicit_and_retried() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end)
        result = await client.call_tool(name="test_input_required_result_elicitation")
        assert result.content == [t.TextContent(text="Hello, name-answer!")]
        assert client.asked == ["elicitation/create"]
        first, retry = end.sent[1], end.sent[2]
        assert first["id"] != retry["id"]
        interim = end.received[1]["result"]
        assert interim["resultType"] == "input_required"
        assert retry["params"]["requestState"] == interim["requestState"]
        assert retry["params"]["inputResponses"] == {
            "user_name": {"action": "accept", "content": {"name": "name-answer"}}
        }
        await client.close()


async def test_multi_round_and_gathered_inputs() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end)
        result = await client.call_tool(name="test_input_required_result_multi_round")
        assert result.content == [t.TextContent(text="name-answer likes color-answer")]
        client.asked.clear()
        result = await client.call_tool(name="test_input_required_result_multiple_inputs")
        assert sorted(client.asked) == [
            "elicitation/create",
            "roots/list",
            "sampling/createMessage",
        ]
        assert result.content == [t.TextContent(text="name-answer: Paris (1 roots)")]
        prompt = await client.get_prompt(name="test_input_required_result_prompt")
        assert prompt.messages[0].content == t.TextContent(text="Use this context: context-answer")
        await client.close()


async def test_rounds_are_bounded() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end, max_rounds=2)
        with pytest.raises(MCPError, match="still input_required after 2 rounds"):
            await client.call_tool(name="test_input_required_result_multi_round")
        await client.close()


async def test_missing_capability_is_minus_32021_with_the_capability() -> None:
    async with served(FixtureServer()) as end:
        client = EraClient()
        client.capabilities = lambda: {}  # type: ignore[method-assign]
        await connect_stateless(client, end)
        with pytest.raises(MCPError) as info:
            await client.call_tool(name="test_missing_capability")
        assert (info.value.code, info.value.data) == (
            -32021,
            {"requiredCapabilities": {"sampling": {}}},
        )
        assert end.received[-1]["error"]["code"] == -32021
        await client.close()


async def test_listen_delivers_only_opted_in_types_with_the_subscription_id() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end)
        got: list[tuple[str, Any]] = []
        acked = asyncio.Event()
        changed = asyncio.Event()

        async def on_note(method: str, params: Any) -> None:
            got.append((method, params))
            (acked if method.endswith("acknowledged") else changed).set()

        listen = asyncio.create_task(client.stateless.listen({"toolsListChanged": True}, on_note))
        await asyncio.wait_for(acked.wait(), 30)
        await client.call_tool(name="test_trigger_prompt_change")
        await client.call_tool(name="test_trigger_tool_change")
        await asyncio.wait_for(changed.wait(), 30)
        listen_id = next(f["id"] for f in end.sent if f["method"] == "subscriptions/listen")
        assert got == [
            (
                "notifications/subscriptions/acknowledged",
                {
                    "notifications": {"toolsListChanged": True},
                    "_meta": {"io.modelcontextprotocol/subscriptionId": listen_id},
                },
            ),
            (
                "notifications/tools/list_changed",
                {"_meta": {"io.modelcontextprotocol/subscriptionId": listen_id}},
            ),
        ]
        listen.cancel()
        await asyncio.sleep(0.05)
        cancel = end.sent[-1]
        assert cancel == {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": listen_id, "reason": "cancelled by the client"},
        }
        await client.close()


async def test_listen_as_an_async_iterator() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end)
        async with listen(client, promptsListChanged=True, toolsListChanged=True) as sub:
            assert sub.honored == {"toolsListChanged": True, "promptsListChanged": True}
            await client.call_tool(name="test_trigger_prompt_change")
            method, params = await asyncio.wait_for(sub.__anext__(), 30)
        assert method == "notifications/prompts/list_changed"
        assert "io.modelcontextprotocol/subscriptionId" in params["_meta"]
        await client.close()


async def test_the_server_object_publishes_to_every_listener() -> None:
    server = FixtureServer()
    async with served(server) as one, served(server) as two:
        first, second = await connected(one), await connected(two)
        async with (
            listen(first, resourceSubscriptions=["test://static-text"]) as a,
            listen(second, resourceSubscriptions=["test://other"], toolsListChanged=True) as b,
        ):
            await server.notify_resource_updated("test://static-text")
            await server.notify_tools_changed()
            got_a = await asyncio.wait_for(a.__anext__(), 30)
            got_b = await asyncio.wait_for(b.__anext__(), 30)
        assert got_a[0] == "notifications/resources/updated"
        assert got_a[1]["uri"] == "test://static-text"
        assert got_b[0] == "notifications/tools/list_changed"
        await first.close()
        await second.close()


async def test_progress_reaches_the_callback_and_logs_need_a_level() -> None:
    async with served(FixtureServer()) as end:
        client = await connected(end)
        seen: list[float] = []

        async def progress(params: t.ProgressNotificationParams) -> None:
            seen.append(params.progress)

        await client.call_tool(name="test_tool_with_progress", progress=progress)
        assert seen == [0, 50, 100]
        await client.call_tool(name="test_logging_tool")
        assert not [m for m, _ in client.notes if m == "notifications/message"]
        await client.close()
    async with served(FixtureServer()) as end:
        client = await connected(end, log_level="info")
        await client.call_tool(name="test_logging_tool")
        assert [p.data for m, p in client.notes if m == "notifications/message"] == [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        await client.close()


async def test_one_connection_serves_a_handshake_client_after_initialize() -> None:
    async with served(FixtureServer(), EchoHandshake()) as end:
        handshake = HandshakeClient()
        init = await handshake.connect(end)
        assert init.protocol_version == "2025-11-25"
        result = await handshake.call_tool(name="echo")
        assert result.content[0].text == "handshake echo"  # type: ignore[union-attr]
        await handshake.close()


async def test_unsupported_version_lists_every_version_served() -> None:
    async with served(FixtureServer(), EchoHandshake()) as end:
        client = EraClient()
        stateless = attach_stateless(client, end)
        stateless.version = "2099-01-01"
        with pytest.raises(MCPError) as info:
            await client.list_tools()
        assert info.value.code == -32022
        assert info.value.data == {
            "supported": ["2026-07-28", "2025-11-25"],
            "requested": "2099-01-01",
        }
        await client.close()


async def test_log_level_and_capabilities_belong_to_each_request() -> None:
    # The client reuses one encoded _meta and the server keeps no per-request objects:
    # a change between requests must show on the wire and in what each request gets.
    async with served(FixtureServer()) as end:
        client = await connected(end)
        for level in (None, "info", None):
            client.stateless.log_level = level
            await client.call_tool(name="test_logging_tool")
        levels = [
            f["params"]["_meta"].get("io.modelcontextprotocol/logLevel")
            for f in end.sent
            if f.get("method") == "tools/call"
        ]
        assert levels == [None, "info", None]
        logged = [m for m, _ in client.notes if m == "notifications/message"]
        assert len(logged) == 3  # all from the middle request
        bare = {**client.stateless.meta(), "io.modelcontextprotocol/clientCapabilities": {}}
        params = {"name": "test_input_required_result_elicitation", "_meta": bare}
        with pytest.raises(MCPError) as refused:
            await client.peer.request(client.METHODS["tools/call"], params, timeout=30.0)
        assert refused.value.code == -32021
        result = await client.call_tool(name="test_input_required_result_elicitation")
        assert result.content == [t.TextContent(text="Hello, name-answer!")]
        await client.close()
