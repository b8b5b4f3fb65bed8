"""The official SDK's HTTP clients against our HTTP server (the demo server, under uvicorn).

Streamable HTTP in stateful SSE mode, JSON mode and stateless mode, and 2024-11-05's
HTTP+SSE client against ``/sse``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning

from generated._runtime.transports.http.server import HttpOptions
from tests.support.http_support import bounded, serve
from tests.support.runtime_support import wait_until

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo_server.py"
REQUEST_TIMEOUT_S = 30.0
MODES = {
    "sse": HttpOptions(),
    "json": HttpOptions(json_response=True),
    "stateless": HttpOptions(stateless=True),
}


def demo_server() -> Any:
    """A fresh ``DemoServer`` from ``examples/demo_server.py``."""
    spec = importlib.util.spec_from_file_location("http_interop_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DemoServer()


class Recorder:
    """The SDK client's callbacks: answers sampling and elicitation, records logs."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.sampled: list[types.CreateMessageRequestParams] = []
        self.elicited: list[types.ElicitRequestParams] = []

    async def sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        """Answer as a model would."""
        self.sampled.append(params)
        text = types.TextContent(type="text", text="short")
        return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")

    async def elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Fill in the form."""
        self.elicited.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})

    async def logging(self, params: types.LoggingMessageNotificationParams) -> None:
        """Keep a log message."""
        self.logs.append(params)


@contextlib.asynccontextmanager
async def sdk(url: str, http_sse: bool = False) -> AsyncIterator[tuple[ClientSession, Recorder]]:
    """An initialized SDK ``ClientSession`` over streamable HTTP (or HTTP+SSE) to ``url``."""
    recorder = Recorder()
    transport = (
        sse_client(url, timeout=REQUEST_TIMEOUT_S) if http_sse else streamable_http_client(url)
    )
    async with (
        transport as streams,
        ClientSession(
            streams[0],
            streams[1],
            read_timeout_seconds=REQUEST_TIMEOUT_S,
            sampling_callback=recorder.sampling,
            elicitation_callback=recorder.elicitation,
            logging_callback=recorder.logging,
        ) as session,
    ):
        init = await session.initialize()
        # The SDK proposes its newest revision; the demo serves every revision, so it is kept.
        assert init.protocol_version == "2025-11-25"
        assert init.server_info.name == "mcpgen-demo"
        yield session, recorder


def only_text(result: Any) -> str:
    """The text of a result's only text block."""
    assert isinstance(result, types.CallToolResult), result
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


async def exercise(session: ClientSession, recorder: Recorder, stateful: bool) -> None:
    """Tools with progress and structured content, resources, prompts and logging."""
    listed = await session.list_tools()
    assert {"count", "weather", "summarize", "book_table"} <= {t.name for t in listed.tools}
    if stateful:
        await session.set_logging_level("debug")
    steps: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, total, message))

    counted = await session.call_tool("count", {"n": 3}, progress_callback=on_progress)
    assert only_text(counted) == "counted to 3"
    assert steps == [(i, 3, f"step {i} of 3") for i in (1, 2, 3)]
    expected: list[Any] = [{"counted": 3}]
    if stateful:
        expected = ["counted 1", "counted 2", "counted 3", {"counted": 3}]
    # JSON mode: logs travel on the GET stream, maybe after the answer
    await wait_until(lambda: len(recorder.logs) >= len(expected))
    assert [log.data for log in recorder.logs] == expected
    weather = await session.call_tool("weather", {"city": "Lyon"})
    assert isinstance(weather, types.CallToolResult)
    assert weather.structured_content == {"city": "Lyon", "celsius": 14}
    failed = await session.call_tool("divide", {"a": 1, "b": 0})
    assert isinstance(failed, types.CallToolResult) and failed.is_error
    read = await session.read_resource("demo://readme")
    assert isinstance(read.contents[0], types.TextResourceContents)
    assert read.contents[0].text.startswith("# Demo")
    prompt = await session.get_prompt("greet", {"name": "Ada", "style": "formal"})
    assert isinstance(prompt, types.GetPromptResult)
    block = prompt.messages[0].content
    assert isinstance(block, types.TextContent)
    assert block.text == "Write a formal greeting for Ada."


@pytest.mark.parametrize("mode", ["sse", "json"])
@bounded
async def test_sdk_streamable_client_stateful(mode: str) -> None:
    """Stateful sessions: everything, plus sampling and elicitation answered by the SDK."""
    async with serve(demo_server(), MODES[mode]) as (app, url):
        async with sdk(url + "/mcp") as (session, recorder):
            assert len(app.sessions) == 1
            await exercise(session, recorder, stateful=True)
            summary = await session.call_tool("summarize", {"text": "a long text"})
            assert only_text(summary) == "sdk-model says: short"
            assert recorder.sampled[0].max_tokens == 50
            assert recorder.sampled[0].system_prompt == "You are terse."
            booked = await session.call_tool("book_table", {})
            assert only_text(booked) == "booked a table for 2 in the name of Ada, inside"
            assert recorder.elicited[0].message == "Who is the table for?"
        await wait_until(lambda: not app.sessions)  # the SDK ends its session with DELETE
        assert app.sessions == {}


@bounded
async def test_sdk_streamable_client_stateless() -> None:
    """Stateless: the SDK works without a session; requests to the client are refused."""
    async with serve(demo_server(), MODES["stateless"]) as (app, url):
        async with sdk(url + "/mcp") as (session, recorder):
            await exercise(session, recorder, stateful=False)
            refused = await session.call_tool("summarize", {"text": "x"})
            assert isinstance(refused, types.CallToolResult) and refused.is_error
            assert recorder.sampled == []
        assert app.sessions == {}


@bounded
async def test_sdk_http_sse_client() -> None:
    """The SDK's 2024-11-05 HTTP+SSE client against /sse: the same features work."""
    async with serve(demo_server()) as (app, url):
        async with sdk(url + "/sse", http_sse=True) as (session, recorder):
            assert [s.http_sse for s in app.sessions.values()] == [True]
            await exercise(session, recorder, stateful=True)
            summary = await session.call_tool("summarize", {"text": "a long text"})
            assert only_text(summary) == "sdk-model says: short"
            booked = await session.call_tool("book_table", {})
            assert only_text(booked) == "booked a table for 2 in the name of Ada, inside"
        await wait_until(lambda: not app.sessions)  # closing the SSE stream ends the session
        assert app.sessions == {}
