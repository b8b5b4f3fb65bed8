"""The async runtime through the generated API: lifecycle, version negotiation, capabilities."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated import v2024_11_05 as v1105
from generated import v2025_03_26 as v0326
from generated._runtime.core.errors import INVALID_REQUEST, METHOD_NOT_FOUND
from generated._runtime.core.lifecycle import UnsupportedVersion
from generated._runtime.roles.client import connect_any
from generated._runtime.roles.server import CapabilityError
from generated._runtime.transports.memory import memory_pair
from generated.v2025_06_18 import Client, Server, ServerContext
from generated.v2025_06_18 import types as t
from tests.support.runtime_support import (
    STEP_S,
    Echo0326,
    EchoServer,
    RawPeer,
    Recorder,
    connected,
    first_text,
    init_result,
    methods,
    serving,
)


class SamplingClient(Client):
    """A client that answers sampling requests (so it declares ``sampling``)."""

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: Any
    ) -> t.CreateMessageResult:
        """Answer every sampling request with "hello"."""
        return t.CreateMessageResult(
            role="assistant", content=t.TextContent(text="hello"), model="m"
        )


# -- lifecycle ---------------------------------------------------------------------------------


async def test_handshake_frames_on_the_wire() -> None:
    async with connected(EchoServer()) as (client, on_client, _):
        assert on_client.sent[:2] == [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test-client", "version": "0.0.0"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
        assert on_client.received[0] == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "echo-server", "version": "1.2.3"},
            },
        }
        assert client.protocol_version == "2025-06-18"
        assert client.server_info == {"name": "echo-server", "version": "1.2.3"}


@pytest.mark.parametrize(
    ("asked", "answered", "served_by"),
    [
        ("2025-06-18", "2025-06-18", "echo-server"),
        ("2025-03-26", "2025-03-26", "echo-0326"),
        ("2099-01-01", "2025-06-18", "echo-server"),
        ("2024-11-05", "2025-06-18", "echo-server"),
    ],
)
async def test_server_answers_the_clients_version_else_its_newest(
    asked: str, answered: str, served_by: str
) -> None:
    async with serving(EchoServer(), Echo0326()) as raw:
        result = await raw.initialize(asked)
        assert result["protocolVersion"] == answered
        assert result["serverInfo"]["name"] == served_by
        await raw.assert_serving()


async def test_typed_older_client_gets_its_own_revision_from_a_two_revision_server() -> None:
    client = v0326.Client(timeout=STEP_S)
    client_end, server_end = memory_pair()
    task = asyncio.create_task(EchoServer().serve(server_end, Echo0326()))
    init = await client.connect(client_end)
    assert init.protocol_version == "2025-03-26"
    assert client.server_info["name"] == "echo-0326"
    result = await client.call_tool(name="echo", arguments={"a": 1})
    assert result.content[0].text == '{"a": 1}'  # type: ignore[union-attr]
    await client.close()
    await asyncio.wait_for(task, STEP_S)


async def fake_server_answering(version: str) -> tuple[Exception, RawPeer]:
    """Connect a 2025-06-18 client to a fake server answering ``version``; return the error."""
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    connecting = asyncio.create_task(Client(timeout=STEP_S).connect(client_end))
    request = await fake.recv()
    assert request["method"] == "initialize"
    await fake.send({"jsonrpc": "2.0", "id": request["id"], "result": init_result(version)})
    with pytest.raises(UnsupportedVersion) as info:
        await asyncio.wait_for(connecting, STEP_S)
    return info.value, fake


async def test_client_refuses_a_version_it_does_not_support() -> None:
    error, fake = await fake_server_answering("2024-11-05")
    assert "'2024-11-05'" in str(error)
    assert "2025-06-18" in str(error)
    # The client disconnects without sending notifications/initialized.
    assert await asyncio.wait_for(fake.transport.read(), STEP_S) is None


async def test_requests_before_initialize_are_refused_but_ping_is_answered() -> None:
    async with serving(EchoServer()) as raw:
        reply = await raw.call(1, "tools/list")
        assert reply["id"] == 1 and reply["error"]["code"] == INVALID_REQUEST
        assert "initialize" in reply["error"]["message"]
        assert await raw.call(2, "ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}
        await raw.initialize()
        reply = await raw.call(3, "tools/list")
        assert reply["result"]["tools"][0]["name"] == "echo"


async def test_second_initialize_is_refused_and_the_session_keeps_its_version() -> None:
    async with serving(EchoServer(), Echo0326()) as raw:
        await raw.initialize("2025-06-18")
        params = {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "x", "version": "0"},
        }
        reply = await raw.call(7, "initialize", params)
        assert reply["id"] == 7 and reply["error"]["code"] == INVALID_REQUEST
        assert "already" in reply["error"]["message"]
        await raw.assert_serving()
        # Still 2025-06-18: batches stay refused.
        await raw.send([{"jsonrpc": "2.0", "id": 8, "method": "ping"}])
        assert (await raw.recv())["error"]["code"] == INVALID_REQUEST


async def test_connect_any_picks_the_client_of_the_version_the_server_chose() -> None:
    on_client_end, server_end = memory_pair()
    recorder = Recorder(on_client_end)
    task = asyncio.create_task(Echo0326().serve(server_end))
    new, old = Client(timeout=STEP_S), v0326.Client(timeout=STEP_S)
    chosen = await asyncio.wait_for(connect_any(recorder, [new, old]), STEP_S)
    assert chosen is old
    assert recorder.sent[0]["params"]["protocolVersion"] == "2025-06-18"
    assert recorder.received[0]["result"]["protocolVersion"] == "2025-03-26"
    assert old.protocol_version == "2025-03-26"
    assert isinstance(old.initialize_result, v0326.types.InitializeResult)
    result = await old.call_tool(name="echo", arguments={"via": "old"})
    assert result.content[0].text == '{"via": "old"}'  # type: ignore[union-attr]
    await old.close()
    await asyncio.wait_for(task, STEP_S)


async def test_connect_any_keeps_the_newest_client_when_the_server_speaks_it() -> None:
    client_end, server_end = memory_pair()
    task = asyncio.create_task(EchoServer().serve(server_end, Echo0326()))
    new, old = Client(timeout=STEP_S), v0326.Client(timeout=STEP_S)
    chosen = await asyncio.wait_for(connect_any(client_end, [old, new]), STEP_S)
    assert chosen is new and new.protocol_version == "2025-06-18"
    await new.ping()
    await new.close()
    await asyncio.wait_for(task, STEP_S)


async def test_connect_any_refuses_when_no_client_speaks_the_chosen_version() -> None:
    client_end, server_end = memory_pair()

    class Old(v1105.Server):
        """A 2024-11-05 server with tools."""

        async def list_tools(self, params: Any, ctx: Any) -> v1105.types.ListToolsResult:
            """No tools."""
            return v1105.types.ListToolsResult(tools=[])

    task = asyncio.create_task(Old().serve(server_end))
    with pytest.raises(UnsupportedVersion, match="2024-11-05"):
        await asyncio.wait_for(connect_any(client_end, [Client(), v0326.Client()]), STEP_S)
    await asyncio.wait_for(task, STEP_S)  # the client disconnected, so the server stops


# -- capabilities ------------------------------------------------------------------------------


async def test_client_request_for_an_undeclared_capability_is_refused_without_a_frame() -> None:
    async with connected(EchoServer()) as (client, on_client, _):
        before = list(on_client.sent)
        with pytest.raises(CapabilityError, match="'prompts'"):
            await client.list_prompts()
        with pytest.raises(CapabilityError, match="'resources'"):
            await client.read_resource(uri="file:///x")
        assert on_client.sent == before
        await client.ping()  # the connection is unharmed


class ResourceServer(Server):
    """Resources without subscriptions."""

    async def read_resource(
        self, params: t.ReadResourceRequestParams, ctx: ServerContext
    ) -> t.ReadResourceResult:
        """Read any URI as empty text."""
        return t.ReadResourceResult(contents=[t.TextResourceContents(uri=params.uri, text="")])


async def test_sub_capability_is_checked_too() -> None:
    async with connected(ResourceServer()) as (client, on_client, _):
        assert (await client.read_resource(uri="file:///a")).contents[0].uri == "file:///a"
        before = list(on_client.sent)
        with pytest.raises(CapabilityError, match=r"resources\.subscribe"):
            await client.subscribe(uri="file:///a")
        assert on_client.sent == before


async def test_server_sampling_request_is_refused_locally_when_client_did_not_declare_it() -> None:
    server = EchoServer()
    async with connected(server) as (client, _, on_server):
        result = await client.call_tool(name="sample")
        assert first_text(result) == "refused"
        assert len(server.refusals) == 1 and "'sampling'" in server.refusals[0]
        assert "sampling/createMessage" not in methods(on_server.sent)


async def test_server_sampling_request_is_sent_when_client_declared_it() -> None:
    async with connected(EchoServer(), SamplingClient(timeout=STEP_S)) as (client, on_client, _):
        assert on_client.sent[0]["params"]["capabilities"] == {"sampling": {}}
        assert first_text(await client.call_tool(name="sample")) == "hello"
        [request] = [f for f in on_client.received if f.get("method") == "sampling/createMessage"]
        [answer] = [f for f in on_client.sent if f.get("id") == request["id"] and "result" in f]
        assert answer["result"]["content"] == {"type": "text", "text": "hello"}


async def test_raw_request_for_an_undeclared_capability_gets_method_not_found() -> None:
    async with serving(EchoServer()) as raw:
        await raw.initialize()
        for id_, method, params in [
            (1, "prompts/list", {}),
            (2, "resources/read", {"uri": "file:///x"}),
            (
                3,
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "p"},
                    "argument": {"name": "a", "value": ""},
                },
            ),
        ]:
            reply = await raw.call(id_, method, params)
            assert reply["id"] == id_ and reply["error"]["code"] == METHOD_NOT_FOUND, reply
        await raw.assert_serving()


async def test_raw_set_level_gets_method_not_found_when_logging_is_not_declared() -> None:
    class Quiet(EchoServer):
        """Declares no logging."""

        logging = False

    async with serving(Quiet()) as raw:
        result = await raw.initialize()
        assert "logging" not in result["capabilities"]
        reply = await raw.call(1, "logging/setLevel", {"level": "debug"})
        assert reply.get("error", {}).get("code") == METHOD_NOT_FOUND, reply


async def test_client_answers_method_not_found_for_an_undeclared_server_request() -> None:
    client_end, server_end = memory_pair()
    fake = RawPeer(server_end)
    client = Client(timeout=STEP_S)
    connecting = asyncio.create_task(client.connect(client_end))
    request = await fake.recv()
    await fake.send({"jsonrpc": "2.0", "id": request["id"], "result": init_result("2025-06-18")})
    await asyncio.wait_for(connecting, STEP_S)
    assert (await fake.recv())["method"] == "notifications/initialized"
    sampling = {"messages": [], "maxTokens": 1}
    for id_, method, params in [(5, "sampling/createMessage", sampling), (6, "roots/list", {})]:
        reply = await fake.call(id_, method, params)
        assert reply["id"] == id_ and reply["error"]["code"] == METHOD_NOT_FOUND
    assert await fake.call(7, "ping") == {"jsonrpc": "2.0", "id": 7, "result": {}}
    await client.close()


class FullServer(Server):
    """Overrides tools, prompts, resources with subscriptions, and completions."""

    list_changed = frozenset({"tools", "prompts", "resources"})

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """No tools."""
        return t.ListToolsResult(tools=[])

    async def list_prompts(self, params: Any, ctx: ServerContext) -> t.ListPromptsResult:
        """No prompts."""
        return t.ListPromptsResult(prompts=[])

    async def list_resources(self, params: Any, ctx: ServerContext) -> t.ListResourcesResult:
        """No resources."""
        return t.ListResourcesResult(resources=[])

    async def subscribe(self, params: Any, ctx: ServerContext) -> t.EmptyResult:
        """Accept every subscription."""
        return t.EmptyResult()

    async def complete(self, params: Any, ctx: ServerContext) -> t.CompleteResult:
        """No completions."""
        return t.CompleteResult(completion=t.CompleteResultCompletion(values=[]))


class RootsClient(SamplingClient):
    """Declares sampling, roots with listChanged, and elicitation."""

    roots_list_changed = True

    async def on_list_roots(self, params: Any, ctx: Any) -> t.ListRootsResult:
        """No roots."""
        return t.ListRootsResult(roots=[])

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Decline."""
        return t.ElicitResult(action="decline")


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        (Server(), {"logging": {}}),
        (EchoServer(), {"tools": {}, "logging": {}}),
        (
            FullServer(),
            {
                "tools": {"listChanged": True},
                "prompts": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
                "completions": {},
                "logging": {},
            },
        ),
    ],
)
async def test_declared_capabilities_follow_the_overridden_handlers(
    server: Server, expected: dict[str, Any]
) -> None:
    async with connected(server, RootsClient(timeout=STEP_S)) as (client, on_client, on_server):
        assert on_client.sent[0]["params"]["capabilities"] == {
            "sampling": {},
            "roots": {"listChanged": True},
            "elicitation": {},
        }
        assert on_server.sent[0]["result"]["capabilities"] == expected
        assert client.their_capabilities == expected


async def test_server_notification_needs_its_capability() -> None:
    contexts: list[ServerContext] = []

    class Keeper(EchoServer):
        """Keeps the context of its last list_tools call."""

        async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
            """Remember ctx."""
            contexts.append(ctx)
            return t.ListToolsResult(tools=[])

    async with connected(Keeper()) as (client, _, on_server):
        await client.list_tools()
        with pytest.raises(CapabilityError, match=r"tools\.listChanged"):
            await contexts[0].notify_tool_list_changed()
        assert "notifications/tools/list_changed" not in methods(on_server.sent)


def test_implemented_task_capabilities_are_objects_where_the_schema_says_so() -> None:
    """Task handlers declare ``tasks.cancel: {}``, nested request kinds, flags stay ``true``."""
    from generated._runtime.roles.connection import RequestContext, implemented_capabilities
    from generated.v2025_11_25 import Client as TaskClient
    from generated.v2025_11_25 import Server as TaskServer
    from generated.v2025_11_25 import ServerContext as ServerContext11
    from generated.v2025_11_25 import types as t11

    class Cancels(TaskClient):
        """A 2025-11-25 client that lists and cancels its own tasks."""

        async def on_cancel_task(
            self, params: t11.CancelTaskRequestParams, ctx: RequestContext
        ) -> t11.CancelTaskResult:
            """Never called: only its presence counts."""
            raise NotImplementedError

        async def on_list_tasks(
            self, params: t11.PaginatedRequestParams | None, ctx: RequestContext
        ) -> t11.ListTasksResult:
            """Never called: only its presence counts."""
            raise NotImplementedError

    caps = implemented_capabilities(Cancels(name="c"), Cancels.ROUTES, Cancels.METHODS)
    assert caps["tasks"] == {"cancel": {}, "list": {}}

    class Subscribes(TaskServer):
        """A server that takes resource subscriptions."""

        async def subscribe(
            self, params: t11.SubscribeRequestParams, ctx: ServerContext11
        ) -> t11.EmptyResult:
            """Never called: only its presence counts."""
            raise NotImplementedError

    caps = implemented_capabilities(Subscribes(), Subscribes.ROUTES, Subscribes.METHODS)
    assert caps["resources"] == {"subscribe": True}
