"""The official Python SDK's client against our generated server, over stdio.

One server subprocess per revision (``ours_server.py REV``) serves a whole module's worth
of tests through one SDK ``Client`` (``mode="legacy"``: the initialize handshake). The SDK
always proposes its newest handshake revision (2025-11-25); a single-revision server
answers its own, so these runs also check that the SDK accepts the downgrade. Pinned
proposals against a multi-revision server are in ``test_pinned_proposal_picks_revision``.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import AsyncIterator

import mcp_types as types
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests.support.runtime_support import wait_until

from ._support import (
    COMPLETIONS_CAP_SINCE,
    OURS_SERVER,
    PYTHON,
    REQUEST_TIMEOUT_S,
    REVISIONS,
    SLOW_TIMEOUT_S,
    STRUCTURED_SINCE,
    bounded,
    parse_status,
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


class SdkConnection:
    """An SDK ``Client`` connected to our server, owned by a task of its own.

    The SDK's anyio task group must be entered and left by the same task, which pytest's
    fixture setup and teardown are not; the owner task holds it until ``stop``.
    """

    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.sampled: list[types.CreateMessageRequestParams] = []
        self.elicited: list[types.ElicitRequestParams] = []
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def client(self) -> Client:
        """The connected client."""
        assert self._client is not None, f"not connected: {self._error!r}"
        return self._client

    async def _sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampled.append(params)
        text = types.TextContent(type="text", text="4")
        return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")

    async def _elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.elicited.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def _logging(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def _own(self) -> None:
        server = StdioServerParameters(command=PYTHON, args=[OURS_SERVER, self.revision])
        try:
            async with Client(
                server,
                mode="legacy",
                read_timeout_seconds=REQUEST_TIMEOUT_S,
                sampling_callback=self._sampling,
                elicitation_callback=self._elicitation,
                logging_callback=self._logging,
                client_info=types.Implementation(name="sdk-interop-client", version="1"),
            ) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:
            self._error = exc
            raise
        finally:
            self._ready.set()

    async def start(self) -> None:
        """Spawn the server and run the handshake."""
        self._task = asyncio.create_task(self._own())
        await asyncio.wait_for(self._ready.wait(), 30)
        if self._client is None:
            raise RuntimeError(f"the SDK client did not connect: {self._error!r}")

    async def stop(self) -> None:
        """Leave the client's context (closes the server's stdin; it exits)."""
        self._stop.set()
        if self._task is not None:
            await asyncio.wait_for(asyncio.gather(self._task, return_exceptions=True), 30)

    async def status(self) -> tuple[str, int]:
        """The state of the server's last ``slow`` call and its cancellation count."""
        result = await self.client.call_tool("slow_status")
        return parse_status(_text(result))


def _text(result: types.CallToolResult) -> str:
    """The text of a tool result's only content block."""
    assert len(result.content) == 1, result
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=REVISIONS)
async def conn(request: pytest.FixtureRequest) -> AsyncIterator[SdkConnection]:
    """One SDK client connected to our server of one revision, for the whole module."""
    connection = SdkConnection(request.param)
    try:
        await connection.start()
        yield connection
    finally:
        await connection.stop()


@bounded
async def test_initialize(conn: SdkConnection) -> None:
    """The SDK accepts our revision's answer and sees our serverInfo and capabilities."""
    client, rev = conn.client, conn.revision
    assert client.protocol_version == rev
    assert client.server_info is not None
    assert (client.server_info.name, client.server_info.version) == ("ours-interop", rev)
    assert client.instructions == "ours interop server"
    caps = client.server_capabilities
    assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
    assert caps.logging is not None
    # ``completions`` is a capability from 2025-03-26 on; 2024-11-05 has no such field.
    assert (caps.completions is not None) == (rev >= COMPLETIONS_CAP_SINCE)
    await client.send_ping()


@bounded
async def test_list_tools(conn: SdkConnection) -> None:
    """tools/list: every tool, with outputSchema and elicitation where the revision has them."""
    listed = await conn.client.list_tools(cache_mode="bypass")
    tools = {tool.name: tool for tool in listed.tools}
    expected = {"echo", "add", "progress", "log", "sample", "slow", "slow_status"}
    newer = conn.revision >= STRUCTURED_SINCE
    assert set(tools) == (expected | {"elicit"} if newer else expected)
    assert tools["echo"].description == "Echo the text back"
    assert tools["echo"].input_schema["required"] == ["text"]
    assert (tools["add"].output_schema is not None) == newer
    assert listed.next_cursor is None


@bounded
async def test_call_tool_text(conn: SdkConnection) -> None:
    """tools/call with text content, and a tool error for arguments the schema refuses."""
    result = await conn.client.call_tool("echo", {"text": "héllo ☃"})
    assert _text(result) == "echo: héllo ☃"
    assert not result.is_error
    bad = await conn.client.call_tool("echo", {"text": 5})
    assert bad.is_error
    assert "Invalid arguments for tool echo" in _text(bad)


@bounded
async def test_large_and_concurrent_calls(conn: SdkConnection) -> None:
    """A 2 MB argument and result cross the pipes intact; concurrent calls keep their ids."""
    big = "é" * 1_000_000
    result = await conn.client.call_tool("echo", {"text": big})
    assert _text(result) == f"echo: {big}"
    texts = [f"n{i}" for i in range(25)]
    calls = [conn.client.call_tool("echo", {"text": x}) for x in texts]
    assert [_text(r) for r in await asyncio.gather(*calls)] == [f"echo: {x}" for x in texts]


@bounded
async def test_call_tool_structured(conn: SdkConnection) -> None:
    """tools/call with structuredContent (validated by the SDK against the outputSchema)."""
    if conn.revision < STRUCTURED_SINCE:
        pytest.skip(f"{conn.revision} has no structuredContent/outputSchema (added in 2025-06-18)")
    await conn.client.list_tools(cache_mode="bypass")  # the SDK checks results against this
    result = await conn.client.call_tool("add", {"a": 2, "b": 3.5})
    assert result.structured_content == {"sum": 5.5}
    assert _text(result) == "5.5"


@bounded
async def test_unknown_tool_is_protocol_error(conn: SdkConnection) -> None:
    """An unknown tool is a JSON-RPC error (-32602) the SDK raises as MCPError."""
    with pytest.raises(MCPError) as caught:
        await conn.client.call_tool("no_such_tool", {})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert "no_such_tool" in caught.value.error.message


@bounded
async def test_resources(conn: SdkConnection) -> None:
    """resources/list, resources/templates/list, resources/read (and a not-found error)."""
    client = conn.client
    listed = await client.list_resources(cache_mode="bypass")
    assert [(r.name, str(r.uri), r.mime_type) for r in listed.resources] == [
        ("greeting", "mem://greeting", "text/plain")
    ]
    templates = await client.list_resource_templates(cache_mode="bypass")
    assert [t.uri_template for t in templates.resource_templates] == ["mem://items/{id}"]
    for uri, text in (("mem://greeting", "hello from ours"), ("mem://items/42", "item 42")):
        read = await client.read_resource(uri, cache_mode="bypass")
        [contents] = read.contents
        assert isinstance(contents, types.TextResourceContents)
        assert (str(contents.uri), contents.text, contents.mime_type) == (uri, text, "text/plain")
    with pytest.raises(MCPError) as caught:
        await client.read_resource("mem://missing", cache_mode="bypass")
    assert caught.value.error.code == -32002


@bounded
async def test_prompts(conn: SdkConnection) -> None:
    """prompts/list and prompts/get."""
    listed = await conn.client.list_prompts(cache_mode="bypass")
    [prompt] = listed.prompts
    assert prompt.name == "greet"
    assert [(a.name, a.required) for a in prompt.arguments or []] == [("name", True)]
    got = await conn.client.get_prompt("greet", {"name": "Bo"})
    assert got.description == "A greeting"
    [message] = got.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Say hello to Bo"


@bounded
async def test_completion(conn: SdkConnection) -> None:
    """completion/complete for a prompt argument and a resource template variable."""
    prompt = types.PromptReference(type="ref/prompt", name="greet")
    done = await conn.client.complete(prompt, {"name": "name", "value": "al"})
    assert (done.completion.values, done.completion.total) == (["alice", "albert"], 2)
    template = types.ResourceTemplateReference(type="ref/resource", uri="mem://items/{id}")
    done = await conn.client.complete(template, {"name": "id", "value": "1"})
    assert done.completion.values == ["1", "12"]


@bounded
async def test_logging(conn: SdkConnection) -> None:
    """logging/setLevel filters our notifications/message; the SDK's callback receives them."""
    client = conn.client
    await client.set_logging_level("warning")
    conn.logs.clear()
    assert _text(await client.call_tool("log")) == "logged"
    await wait_until(lambda: len(conn.logs) >= 1)
    await asyncio.sleep(0.1)  # anything below warning would have arrived by now
    assert [(m.level, m.data, m.logger) for m in conn.logs] == [("warning", {"msg": "w"}, "ours")]
    await client.set_logging_level("debug")
    conn.logs.clear()
    await client.call_tool("log")
    await wait_until(lambda: len(conn.logs) >= 3)
    assert [m.level for m in conn.logs] == ["debug", "info", "warning"]
    await client.set_logging_level("info")


@bounded
async def test_progress(conn: SdkConnection) -> None:
    """Our ctx.progress reaches the SDK's progress callback, in order."""
    got: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        got.append((progress, total, message))

    result = await conn.client.call_tool("progress", progress_callback=on_progress)
    assert _text(result) == "done"
    await wait_until(lambda: len(got) >= 3)
    with_message = conn.revision >= COMPLETIONS_CAP_SINCE  # progress ``message`` is 2025-03-26+
    assert got == [(float(n), 3.0, f"step {n}" if with_message else None) for n in (1, 2, 3)]


@bounded
async def test_cancel_on_timeout(conn: SdkConnection) -> None:
    """The SDK times out a slow call and cancels it; our handler stops; the link still works."""
    _, before = await conn.status()
    with pytest.raises(MCPError) as caught:
        await conn.client.call_tool("slow", read_timeout_seconds=SLOW_TIMEOUT_S)
    assert caught.value.error.code == types.REQUEST_TIMEOUT

    async def stopped() -> bool:
        return await conn.status() == ("cancelled", before + 1)

    await wait_until(stopped)
    assert _text(await conn.client.call_tool("echo", {"text": "still here"})) == "echo: still here"


@bounded
async def test_cancel_by_caller(conn: SdkConnection) -> None:
    """Cancelling the awaiting task sends notifications/cancelled; our handler stops."""
    _, before = await conn.status()
    call = asyncio.create_task(conn.client.call_tool("slow"))

    async def running() -> bool:
        return (await conn.status())[0] == "running"

    await wait_until(running)
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call

    async def stopped() -> bool:
        return await conn.status() == ("cancelled", before + 1)

    await wait_until(stopped)
    await conn.client.send_ping()


@bounded
async def test_sampling(conn: SdkConnection) -> None:
    """Our server's sampling/createMessage is answered by the SDK's sampling callback."""
    conn.sampled.clear()
    result = await conn.client.call_tool("sample")
    assert _text(result) == "model sdk-model said 4"
    [params] = conn.sampled
    assert params.max_tokens == 20
    [message] = params.messages
    assert isinstance(message.content, types.TextContent)
    assert (message.role, message.content.text) == ("user", "What is 2+2?")


@bounded
async def test_elicitation(conn: SdkConnection) -> None:
    """Our server's elicitation/create is answered by the SDK's elicitation callback."""
    if conn.revision < STRUCTURED_SINCE:
        pytest.skip(f"{conn.revision} has no elicitation/create (added in 2025-06-18)")
    conn.elicited.clear()
    result = await conn.client.call_tool("elicit")
    assert _text(result) == "accept: {'name': 'Ada', 'age': 36}"
    [params] = conn.elicited
    assert isinstance(
        params, types.ElicitRequestFormParams
    )  # form mode (no ``mode`` before 2025-11-25)
    assert params.message == "Who are you?"
    schema = params.requested_schema
    assert schema["type"] == "object" and schema["required"] == ["name"]
    assert schema["properties"]["age"] == {"type": "integer"}


@pytest.mark.parametrize("revision", [*REVISIONS, "1999-01-01"])
@bounded
async def test_pinned_proposal_picks_revision(revision: str) -> None:
    """A server offering every revision answers the one the SDK proposes (else its newest).

    The SDK's ``Client`` always proposes 2025-11-25 (``mode`` only takes 'legacy', 'auto'
    or a 2026-era version), so the handshake is driven through ``ClientSession`` by hand.
    """
    args = [OURS_SERVER, *sorted(REVISIONS, reverse=True)]
    server = StdioServerParameters(command=PYTHON, args=args)
    expected = revision if revision in REVISIONS else max(REVISIONS)
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT_S) as session,
    ):
        init = types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=revision,
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="pinned", version="1"),
            )
        )
        result = await session.send_request(init, types.InitializeResult)
        assert result.protocol_version == expected
        assert result.server_info.version == expected  # that revision's Server answered
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        echoed = await session.call_tool("echo", {"text": revision})
        assert _text(echoed) == f"echo: {revision}"
