"""Write once, serve every revision: the demo server (written against 2025-11-25) answers the
official SDK's client pinned to each initialize-era revision, over stdio, in that revision.

The SDK's client types are a superset of every revision, so what reaches it shows what the
bridge converted: a ``resource_link`` block arrives as text where the revision lacks it,
audio as text in 2024-11-05, structured content only where the revision has it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.support.process_support import demo_over_http
from tests.support.runtime_support import wait_until

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "examples" / "demo_server.py"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TIMEOUT_S = 20.0

pytestmark = [pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")]
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


class Seen:
    """What the client's callbacks received."""

    def __init__(self) -> None:
        self.sampled: list[types.CreateMessageRequestParams] = []
        self.elicited: list[types.ElicitRequestParams] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.updated: list[str] = []

    async def sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampled.append(params)
        text = types.TextContent(type="text", text="short")
        return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")

    async def elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.elicited.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})

    async def logging(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/project", name="p")])

    async def message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updated.append(message.params.uri)


@contextlib.asynccontextmanager
async def pinned(
    revision: str, seen: Seen, url: str | None
) -> AsyncIterator[tuple[ClientSession, Any]]:
    """An SDK session (stdio, or Streamable HTTP to ``url``) whose initialize proposes
    ``revision``; yields it and the initialize result."""
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)], cwd=str(ROOT))
    transport = stdio_client(params) if url is None else streamable_http_client(url)
    caps = types.ClientCapabilities(
        roots=types.RootsCapability(list_changed=True),
        sampling=types.SamplingCapability(),
        elicitation=types.ElicitationCapability() if revision >= "2025-06-18" else None,
    )
    async with (
        transport as streams,
        ClientSession(
            streams[0],
            streams[1],
            read_timeout_seconds=TIMEOUT_S,
            sampling_callback=seen.sampling,
            elicitation_callback=seen.elicitation,
            logging_callback=seen.logging,
            list_roots_callback=seen.roots,
            message_handler=seen.message,
        ) as session,
    ):
        init = types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=revision,
                capabilities=caps,
                client_info=types.Implementation(name="pinned", version="1"),
            )
        )
        result = await session.send_request(init, types.InitializeResult)
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        yield session, result


def texts(result: types.CallToolResult) -> list[str]:
    """The text of every text block of a tool result."""
    return [b.text for b in result.content if isinstance(b, types.TextContent)]


async def feature_steps(revision: str, url: str | None = None) -> None:
    """The demo's features, as the client of ``revision`` sees them."""
    seen = Seen()
    async with pinned(revision, seen, url) as (session, init):
        assert init.protocol_version == revision
        assert init.server_info.name == "mcpgen-demo"
        has_completions = init.capabilities.completions is not None
        assert has_completions == (revision >= "2025-03-26")  # 2024-11-05 has no such capability

        # tools: listing (annotations, titles, outputSchema only where the revision has them)
        listed = await session.list_tools()
        by_name = {tool.name: tool for tool in listed.tools}
        assert {"echo", "media", "weather", "divide", "count", "summarize"} <= set(by_name)
        assert (by_name["weather"].output_schema is not None) == (revision >= "2025-06-18")

        echoed = await session.call_tool("echo", {"text": revision})
        assert texts(echoed) == [revision]

        # content blocks the revision lacks are mapped, never a wire error
        media = await session.call_tool("media", {})
        kinds = [block.type for block in media.content]
        link = "logo: demo://logo.png"
        if revision >= "2025-06-18":
            assert kinds == ["image", "audio", "resource", "resource_link"]
        elif revision == "2025-03-26":
            assert kinds == ["image", "audio", "resource", "text"]
            assert texts(media) == [link]
        else:
            assert kinds == ["image", "text", "resource", "text"]
            assert texts(media)[1] == link
            assert "audio/wav" in texts(media)[0]

        weather = await session.call_tool("weather", {"city": "Oslo"})
        assert json.loads(texts(weather)[0]) == {"city": "Oslo", "celsius": 14}
        assert weather.structured_content == (
            {"city": "Oslo", "celsius": 14} if revision >= "2025-06-18" else None
        )

        failed = await session.call_tool("divide", {"a": 1, "b": 0})
        assert failed.is_error and texts(failed) == ["cannot divide by zero"]

        # progress and logs (the notifications go down to the revision too)
        await session.set_logging_level("debug")
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        counted = await session.call_tool("count", {"n": 3}, progress_callback=on_progress)
        assert texts(counted) == ["counted to 3"]
        for _ in range(50):
            if len(progress) == 3 and len(seen.logs) >= 4:
                break
            await asyncio.sleep(0.02)
        assert progress == [1, 2, 3]
        assert [log.data for log in seen.logs][-1] == {"counted": 3}

        # a request from the handler to the client: params down, result up
        summary = await session.call_tool("summarize", {"text": "a long text"})
        assert texts(summary) == ["sdk-model says: short"]
        assert len(seen.sampled) == 1
        question = seen.sampled[0].messages[0].content
        assert isinstance(question, types.TextContent) and "a long text" in question.text

        booked = await session.call_tool("book_table", {})
        if revision >= "2025-06-18":
            assert "in the name of Ada" in texts(booked)[0]
            assert len(seen.elicited) == 1
        else:  # the revision has no elicitation: the handler is told, the client sees a tool error
            assert booked.is_error and not seen.elicited

        roots = await session.call_tool("roots", {})
        assert texts(roots) == ["file:///tmp/project"]

        # subscriptions: a change made by a tool is notified (down-converted), then not
        uri = "demo://notes/2"
        await session.subscribe_resource(uri)
        await session.call_tool("edit_note", {"id": "2", "text": f"call Ada ({revision})"})
        await wait_until(lambda: bool(seen.updated))
        assert seen.updated == [uri]
        await session.unsubscribe_resource(uri)

        # resources, templates, prompts, completion
        resources = await session.list_resources()
        assert {r.uri for r in resources.resources} >= {"demo://readme", "demo://logo.png"}
        readme = await session.read_resource("demo://readme")
        first = readme.contents[0]
        assert isinstance(first, types.TextResourceContents) and first.text.startswith("# Demo")
        templates = await session.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["demo://notes/{id}"]
        prompts = await session.list_prompts()
        assert "greet" in {p.name for p in prompts.prompts}
        greeting = await session.get_prompt("greet", {"name": "Ada"})
        content = greeting.messages[0].content
        assert isinstance(content, types.TextContent) and "Ada" in content.text
        completion = await session.complete(
            types.PromptReference(type="ref/prompt", name="greet"),
            {"name": "style", "value": "f"},
        )
        assert completion.completion.values == ["formal"]


@pytest.mark.parametrize("revision", REVISIONS)
def test_demo_serves_every_revision_over_stdio(revision: str) -> None:
    """The SDK client pinned to ``revision`` negotiates it and every feature step passes."""
    asyncio.run(asyncio.wait_for(feature_steps(revision), 60))


async def over_http() -> None:
    """One demo server over Streamable HTTP; the SDK client pinned to each revision in turn."""
    with demo_over_http() as url:
        for revision in REVISIONS:
            await feature_steps(revision, url)


def test_demo_serves_every_revision_over_http() -> None:
    """The same, over Streamable HTTP: one endpoint, every revision."""
    asyncio.run(asyncio.wait_for(over_http(), 120))


# -- a client written for 2025-11-25 against a server that speaks only 2024-11-05 ---------------

OLD_SERVER = """
import sys
sys.path.insert(0, ".")
from generated.v2024_11_05 import Server
from generated.v2024_11_05 import types as t

class Old(Server):
    name = "old-server"

    async def list_tools(self, params, ctx):
        return t.ListToolsResult(tools=[t.Tool(name="ask", input_schema={"type": "object"})])

    async def call_tool(self, params, ctx):
        msg = t.SamplingMessage(role="user", content=t.TextContent(text="2+2?"))
        answer = await ctx.create_message(messages=[msg], max_tokens=5)
        text = f"{answer.model}: {answer.content.text}"
        return t.CallToolResult(content=[t.TextContent(text=text)])

Old().run_stdio()
"""


async def newest_client_against_old_server() -> None:
    """The client's calls go down to 2024-11-05 and results come up as 2025-11-25 types."""
    from generated.converters import connect
    from generated.runtime import spawn_server
    from generated.v2025_11_25 import Client
    from generated.v2025_11_25 import types as n

    asked: list[n.CreateMessageRequestParams] = []

    class Newest(Client):
        async def on_create_message(
            self, params: n.CreateMessageRequestParams, ctx: Any
        ) -> n.CreateMessageResult:
            asked.append(params)
            assert isinstance(params, n.CreateMessageRequestParams)  # its own revision's type
            return n.CreateMessageResult(
                role="assistant", model="m", content=n.TextContent(text="4")
            )

    client = Newest(name="newest")
    transport = await spawn_server(sys.executable, ["-c", OLD_SERVER], cwd=str(ROOT))
    await connect(client, transport)
    try:
        assert client.protocol_version == "2024-11-05"
        init = client.initialize_result
        assert isinstance(init, n.InitializeResult) and init.server_info.name == "old-server"
        listed = await client.list_tools()
        assert isinstance(listed, n.ListToolsResult) and listed.tools[0].name == "ask"
        called = await client.call_tool(name="ask", arguments={})
        assert isinstance(called, n.CallToolResult)
        assert called.content == [n.TextContent(text="m: 4")]
        assert len(asked) == 1
        with pytest.raises(Exception, match="does not exist in 2024-11-05"):
            await client.list_tasks()
        with pytest.raises(Exception, match="does not exist in 2024-11-05"):
            await client.notify_task_status(
                created_at="now", last_updated_at="now", status="working", task_id="t", ttl=None
            )
        await client.ping()  # the connection is fine after both refusals
    finally:
        await client.close()


def test_newest_client_talks_to_an_old_server() -> None:
    """A client written for 2025-11-25 negotiates 2024-11-05 and sees only its own types."""
    asyncio.run(asyncio.wait_for(newest_client_against_old_server(), 60))


# -- our own demo client (written for 2025-06-18) at every revision -----------------------------


@pytest.mark.parametrize("revision", REVISIONS)
def test_demo_client_passes_at_every_revision(revision: str) -> None:
    """``demo_client.py --revision REV``: every step passes, its checks follow the revision."""

    async def run() -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / "examples" / "demo_client.py"),
            "--revision",
            revision,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode is not None
        return proc.returncode, out.decode()

    code, out = asyncio.run(run())
    assert code == 0, out
    assert f"ok  protocol {revision} negotiated" in out
    assert "== demo finished: every step behaved as expected" in out
