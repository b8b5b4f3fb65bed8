"""2026-07-28 interop with the official Python SDK (``mcp`` 2.3), both directions, stdio and HTTP.

The SDK's client in ``auto`` mode and pinned to 2026-07-28 against our dual-era fixture server
(tools, prompts, resources, completion, MRTR elicitation and sampling, listen), and its
handshake-era client (``mode="legacy"``) against the same server process; our client in auto
mode against an SDK server (``tests/support/era_sdk_server.py``), MRTR included.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from generated._runtime.roles.connect import connect_auto
from generated._runtime.transports.http.client import connect_http_auto
from generated._runtime.transports.stdio import spawn_server
from tests.support.era_support import EraClient, HandshakeClient
from tests.support.process_support import http_process

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ["-m", "tests.support.era_fixture_server"]
SDK_SERVER = [str(ROOT / "tests" / "support" / "era_sdk_server.py")]


async def elicit(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return types.ElicitResult(
        action="accept", content={"name": "Ada", "context": "ctx", "ok": True}
    )


async def sample(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    text = types.TextContent(type="text", text="Paris")
    return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")


def _text(result: Any) -> str:
    """The text of a result's first block (SDK or generated types)."""
    block = result.content[0]
    return str(block.text)


def http_server(args: list[str]) -> contextlib.AbstractContextManager[str]:
    """Run a server script on a free port (its last argument); yield its MCP URL."""
    return http_process(lambda port: [*args, str(port)])


@contextlib.asynccontextmanager
async def sdk(server: Any, mode: str) -> AsyncIterator[Client]:
    async with Client(
        server,
        mode=mode,  # type: ignore[arg-type]
        read_timeout_seconds=30,
        elicitation_callback=elicit,
        sampling_callback=sample,
        cache=None,
        client_info=types.Implementation(name="sdk-era-client", version="1"),
    ) as client:
        yield client


async def exercise_modern(client: Client, probed: bool = True) -> None:
    """What every modern SDK connection to our fixture checks (pinned mode does not probe)."""
    assert client.protocol_version == "2026-07-28"
    if probed:
        assert client.server_info is not None
        assert client.server_info.name == "mcpgen-conformance-fixture"
    tools = await client.list_tools()
    assert "test_simple_text" in [tool.name for tool in tools.tools]
    assert (
        _text(await client.call_tool("test_simple_text", {}))
        == "This is a simple text response for testing."
    )
    assert (
        _text(await client.call_tool("test_input_required_result_elicitation", {})) == "Hello, Ada!"
    )
    assert (
        _text(await client.call_tool("test_input_required_result_sampling", {}))
        == "LLM said: Paris"
    )
    assert (
        _text(await client.call_tool("test_input_required_result_multi_round", {}))
        == "Ada likes None"
    )
    prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    assert "arg1='a'" in prompt.messages[0].content.text  # type: ignore[union-attr]
    read = await client.read_resource("test://static-text")
    assert read.contents[0].text == "This is the content of the static text resource."  # type: ignore[union-attr]
    done = await client.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": "pa"},
    )
    assert done.completion.values == ["paris", "park", "party"]
    async with client.listen(tools_list_changed=True) as sub:
        await client.call_tool("test_trigger_tool_change", {})
        event = await asyncio.wait_for(sub.__anext__(), 10)
        assert "tools" in type(event).__name__.lower() or "ToolList" in repr(event)


async def test_sdk_auto_client_against_our_stdio_server() -> None:
    async with sdk(
        StdioServerParameters(command=sys.executable, args=[*FIXTURE, "stdio"], cwd=str(ROOT)),
        "auto",
    ) as client:
        await exercise_modern(client)


async def test_sdk_pinned_and_handshake_clients_against_one_http_server() -> None:
    with http_server(FIXTURE) as url:
        async with sdk(url, "2026-07-28") as client:
            await exercise_modern(client, probed=False)
        async with sdk(url, "legacy") as handshake:
            assert handshake.protocol_version == "2025-11-25"
            simple = await handshake.call_tool("test_simple_text", {})
            assert _text(simple) == "This is a simple text response for testing."
            read = await handshake.read_resource("test://static-text")
            assert read.contents[0].text == "This is the content of the static text resource."


async def test_our_auto_client_against_the_sdk_stdio_server() -> None:
    client = await connect_auto(
        EraClient(), [HandshakeClient()], lambda: spawn_server(sys.executable, SDK_SERVER)
    )
    try:
        assert isinstance(client, EraClient) and client.server_info["name"] == "sdk-era"
        assert _text(await client.call_tool(name="echo", arguments={"text": "hi"})) == "echo: hi"
        assert _text(await client.call_tool(name="greet")) == "hello name-answer (sdk-state-1)"
        assert client.asked == ["elicitation/create"]
    finally:
        await client.close()


async def test_our_auto_client_against_the_sdk_http_server() -> None:
    with http_server(SDK_SERVER) as url:
        client = await connect_http_auto(EraClient(), [HandshakeClient()], url)
        try:
            assert isinstance(client, EraClient)
            assert _text(await client.call_tool(name="greet")) == "hello name-answer (sdk-state-1)"
        finally:
            await client.close()
