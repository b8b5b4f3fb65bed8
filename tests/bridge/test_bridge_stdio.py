"""``mcpgen bridge`` over stdio on both sides: clients of one era through it to the other era.

Forward: the demo client (every step of ``examples/demo_client.py``) at each initialize-era
revision, and the official SDK's client pinned to each of them (tools, MRTR elicitation and
sampling, prompts, resources, completion), to servers that speak 2026-07-28 only: ours
(``demo_server.py --only``, the fixture's ``stdio-stateless``) and the SDK's. Reverse: the SDK's
client pinned to 2026-07-28 and our auto client, through the bridge to a 2025-06-18-only server,
elicitation included (an MRTR round downstream, a server->client request upstream).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

from generated._runtime.roles.connect import connect_auto
from generated._runtime.transports.stdio import spawn_server
from tests.support.era_support import EraClient, HandshakeClient
from tests.support.sdk_support import sample_paris, sdk_client

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
MCPGEN = shutil.which("mcpgen", path=str(Path(PYTHON).parent)) or "mcpgen"
BRIDGE = [MCPGEN, "bridge", "--log-level", "info", "--"]
DEMO = str(ROOT / "examples" / "demo_server.py")
DEMO_CLIENT = str(ROOT / "examples" / "demo_client.py")
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS_UPSTREAMS = {
    "ours": [PYTHON, "-m", "tests.support.era_fixture_server", "stdio-stateless"],
    "sdk": [PYTHON, str(ROOT / "tests" / "support" / "era_sdk_server.py")],
}


async def elicit(context: ClientRequestContext, params: Any) -> types.ElicitResult:
    """Answer an elicitation with the booking the fixtures ask for."""
    content = {"name": "Ada", "context": "ctx", "guests": 4, "terrace": True}
    return types.ElicitResult(action="accept", content=content)


def sdk_through_bridge(
    upstream: list[str], mode: str
) -> contextlib.AbstractAsyncContextManager[Client]:
    """The SDK's ``Client`` in ``mode`` (a 2026-era version) on a bridge to ``upstream``."""
    command = [*BRIDGE, *upstream]
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    return sdk_client(server, mode, name="sdk-through-bridge", elicit=elicit)


@contextlib.asynccontextmanager
async def sdk_pinned(upstream: list[str], revision: str) -> AsyncIterator[ClientSession]:
    """The SDK's session proposing ``revision`` at ``initialize`` (its ``Client`` always
    proposes 2025-11-25), with sampling and elicitation, on a bridge to ``upstream``."""
    command = [*BRIDGE, *upstream]
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    async with (
        stdio_client(server) as (read, write),
        ClientSession(
            read,
            write,
            read_timeout_seconds=30,
            sampling_callback=sample_paris,
            elicitation_callback=elicit,
        ) as session,
    ):
        caps = types.ClientCapabilities(
            sampling=types.SamplingCapability(), elicitation=types.ElicitationCapability()
        )
        init = types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=revision,
                capabilities=caps,
                client_info=types.Implementation(name="sdk-pinned", version="1"),
            )
        )
        result = await session.send_request(init, types.InitializeResult)
        assert result.protocol_version == revision
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        yield session


def text(result: Any) -> str:
    """The text of a result's first block."""
    return str(result.content[0].text)


@pytest.mark.parametrize("revision", HANDSHAKE)
def test_demo_client_through_the_bridge_to_a_stateless_only_server(revision: str) -> None:
    """The demo client at each handshake revision passes every step through the bridge to a
    2026-07-28-only server."""
    upstream = [PYTHON, DEMO, "--only", "2026-07-28"]
    done = subprocess.run(
        [PYTHON, DEMO_CLIENT, "--revision", revision, *BRIDGE, *upstream],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every step behaved as expected" in done.stdout
    session = f"session: client {revision} over stdio <-> server 2026-07-28 over stdio"
    assert done.stderr.count(session) == 1, done.stderr[-2000:]


@pytest.mark.parametrize("revision", HANDSHAKE)
async def test_sdk_client_through_the_bridge_to_our_stateless_server(revision: str) -> None:
    """The SDK client pinned to each handshake revision drives our 2026-07-28 fixture through the
    bridge."""
    async with sdk_pinned(STATELESS_UPSTREAMS["ours"], revision) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        assert "test_simple_text" in tools
        simple = await client.call_tool("test_simple_text", {})
        assert text(simple) == "This is a simple text response for testing."
        if revision >= "2025-06-18":  # MRTR upstream, server->client requests downstream
            elicited = await client.call_tool("test_input_required_result_elicitation", {})
            assert text(elicited) == "Hello, Ada!"
        sampled = await client.call_tool("test_input_required_result_sampling", {})
        assert text(sampled) == "LLM said: Paris"
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        assert "arg1='a'" in prompt.messages[0].content.text  # type: ignore[union-attr]
        read = await client.read_resource("test://static-text")
        assert read.contents[0].text == "This is the content of the static text resource."  # type: ignore[union-attr]
        if revision >= "2025-03-26":
            done = await client.complete(
                types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "pa"},
            )
            assert done.completion.values == ["paris", "park", "party"]


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
async def test_sdk_client_through_the_bridge_to_the_sdk_stateless_server(revision: str) -> None:
    """The SDK client drives the SDK's 2026-07-28 server through the bridge, its MRTR round
    included."""
    async with sdk_pinned(STATELESS_UPSTREAMS["sdk"], revision) as client:
        assert text(await client.call_tool("echo", {"text": "hi"})) == "echo: hi"
        # the SDK server's MRTR round becomes our elicitation/create to the SDK client
        assert text(await client.call_tool("greet", {})) == "hello Ada (sdk-state-1)"


async def test_sdk_client_2024_through_the_bridge_to_the_sdk_stateless_server() -> None:
    """A 2024-11-05 SDK client calls a tool of the SDK's 2026-07-28 server through the bridge."""
    async with sdk_pinned(STATELESS_UPSTREAMS["sdk"], "2024-11-05") as client:
        assert text(await client.call_tool("echo", {"text": "old"})) == "echo: old"


async def test_sdk_stateless_client_through_the_bridge_to_a_handshake_only_server() -> None:
    """A 2026-07-28 SDK client drives a 2025-06-18-only server through the bridge, elicitation and
    sampling included."""
    upstream = [PYTHON, DEMO, "--only", "2025-06-18"]
    async with sdk_through_bridge(upstream, "2026-07-28") as client:
        assert client.protocol_version == "2026-07-28"
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"echo", "book_table", "summarize"} <= tools
        assert text(await client.call_tool("echo", {"text": "hello"})) == "hello"
        # upstream asks elicitation/create (a request); downstream it is an MRTR round
        booked = await client.call_tool("book_table", {})
        assert text(booked).startswith("booked a table for"), booked
        summary = await client.call_tool("summarize", {"text": "milk; Ada"})
        assert text(summary) == "sdk-model says: Paris"
        read = await client.read_resource("demo://readme")
        assert "demo" in read.contents[0].text.lower()  # type: ignore[union-attr]


async def test_our_auto_client_through_the_bridge_to_a_handshake_only_server() -> None:
    """Our auto-mode client reaches 2026-07-28 through the bridge to a 2025-06-18-only server."""
    command = [*BRIDGE, PYTHON, DEMO, "--only", "2025-06-18"]

    async def spawn() -> Any:
        return await spawn_server(command[0], command[1:], cwd=str(ROOT))

    # The bridge answers server/discover once its upstream is connected: on a loaded machine that
    # can take longer than a client's default probe timeout, after which it would pick initialize.
    client = await connect_auto(EraClient(), [HandshakeClient()], spawn, probe_timeout=30)
    try:
        assert isinstance(client, EraClient) and client.protocol_version == "2026-07-28"
        booked = await asyncio.wait_for(client.call_tool(name="book_table"), 30)
        assert text(booked).startswith("booked a table for"), booked
        assert client.asked == ["elicitation/create"]
    finally:
        await client.close()
