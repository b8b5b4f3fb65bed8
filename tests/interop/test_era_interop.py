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
from tests.support.sdk_support import sdk_client

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ["-m", "tests.support.era_fixture_server"]
SDK_SERVER = [str(ROOT / "tests" / "support" / "era_sdk_server.py")]


async def elicit(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """Answer an elicitation as Ada."""
    return types.ElicitResult(
        action="accept", content={"name": "Ada", "context": "ctx", "ok": True}
    )


def _text(result: Any) -> str:
    """The text of a result's first block (SDK or generated types)."""
    block = result.content[0]
    return str(block.text)


def http_server(args: list[str]) -> contextlib.AbstractContextManager[str]:
    """Run a server script on a free port (its last argument); yield its MCP URL."""
    return http_process(lambda port: [*args, str(port)])


def sdk(server: Any, mode: str) -> contextlib.AbstractAsyncContextManager[Client]:
    """The SDK's client of ``server`` in ``mode``, answering elicitation as Ada."""
    return sdk_client(server, mode, name="sdk-era-client", elicit=elicit)


async def exercise_stateless(client: Client, probed: bool = True) -> None:
    """What every stateless SDK connection to our fixture checks (pinned mode does not probe)."""
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
        event = await asyncio.wait_for(sub.__anext__(), 30)
        assert "tools" in type(event).__name__.lower() or "ToolList" in repr(event)


async def test_sdk_auto_client_against_our_stdio_server() -> None:
    async with sdk(
        StdioServerParameters(command=sys.executable, args=[*FIXTURE, "stdio"], cwd=str(ROOT)),
        "auto",
    ) as client:
        await exercise_stateless(client)


async def test_sdk_pinned_and_handshake_clients_against_one_http_server() -> None:
    with http_server(FIXTURE) as url:
        async with sdk(url, "2026-07-28") as client:
            await exercise_stateless(client, probed=False)
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
