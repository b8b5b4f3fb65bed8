"""Our generated client against the official Python SDK's server, over stdio.

Per revision, our client of that revision proposes its version to one ``sdk_server.py``
subprocess (the SDK's low-level ``Server`` accepts every initialize-era revision) and the
whole module's tests share that connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import pytest_asyncio

from generated._runtime.roles.peer import MCPError, RequestTimeout
from generated.runtime import Unknown
from tests.support.runtime_support import wait_until

from ._support import (
    COMPLETIONS_CAP_SINCE,
    PYTHON,
    REQUEST_TIMEOUT_S,
    REVISIONS,
    SDK_SERVER,
    SLOW_TIMEOUT_S,
    STRUCTURED_SINCE,
    bounded,
    package,
    parse_status,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


def make_client(revision: str) -> Any:
    """Our client of ``revision``, answering sampling (and elicitation where it exists)."""
    pkg = package(revision)
    t = pkg.types

    class InteropClient(pkg.Client):  # type: ignore[name-defined,misc]
        """Records what the server sent and answers its requests."""

        def __init__(self) -> None:
            super().__init__(name="ours-interop-client", version="1", timeout=REQUEST_TIMEOUT_S)
            self.revision = revision
            self.types = t
            self.notifications: list[tuple[str, Any]] = []
            self.sampled: list[Any] = []
            self.elicited: list[Any] = []

        async def on_create_message(self, params: Any, ctx: Any) -> Any:
            """Answer sampling/createMessage with a fixed model reply."""
            self.sampled.append(params)
            text = t.TextContent(text="4")
            return t.CreateMessageResult(role="assistant", content=text, model="ours-model")

        async def on_notification(self, method: str, params: Any) -> None:
            """Record every server notification."""
            self.notifications.append((method, params))

        def logs(self) -> list[Any]:
            """The log messages received so far."""
            return [p for m, p in self.notifications if m == "notifications/message"]

        async def status(self) -> tuple[str, int]:
            """The state of the server's last ``slow`` call and its cancellation count."""
            return parse_status(text_of(await self.call_tool(name="slow_status")))

    if revision >= STRUCTURED_SINCE:

        async def on_elicit(self: Any, params: Any, ctx: Any) -> Any:
            """Answer elicitation/create as a user who fills in the form."""
            self.elicited.append(params)
            return t.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

        InteropClient.on_elicit = on_elicit
    return InteropClient()


def text_of(result: Any) -> str:
    """The text of a tool result's only content block."""
    assert len(result.content) == 1, result
    return str(result.content[0].text)


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=REVISIONS)
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """Our client of one revision connected to the SDK server, for the whole module."""
    ours = make_client(request.param)
    ours.init = await asyncio.wait_for(ours.connect_stdio(PYTHON, [SDK_SERVER]), 30)
    try:
        yield ours
    finally:
        await asyncio.wait_for(ours.close(), 30)


@bounded
async def test_initialize(client: Any) -> None:
    """The SDK server answers the version our client proposed; we see its info and caps."""
    rev = client.revision
    assert client.init.protocol_version == rev
    assert client.protocol_version == rev
    assert client.server_info == {"name": "sdk-interop", "version": "2.3.0"}
    assert client.instructions == "SDK interop server"
    caps = client.their_capabilities
    for name in ("tools", "resources", "prompts", "logging"):
        assert name in caps, caps
    if rev >= COMPLETIONS_CAP_SINCE:
        assert "completions" in caps
    await client.ping()


@bounded
async def test_list_tools(client: Any) -> None:
    """tools/list (and iter_tools over the pages)."""
    listed = await client.list_tools()
    assert listed.next_cursor is msgspec.UNSET
    tools = {tool.name: tool for tool in listed.tools}
    expected = {"echo", "add", "progress", "log", "sample", "slow", "slow_status"}
    newer = client.revision >= STRUCTURED_SINCE
    assert set(tools) == (expected | {"elicit"} if newer else expected)
    assert tools["echo"].description == "Echo the text back"
    assert tools["echo"].input_schema["required"] == ["text"]
    if newer:
        assert tools["add"].output_schema["required"] == ["sum"]
    assert [tool.name async for tool in client.iter_tools()] == list(tools)


@bounded
async def test_resource_link_reaches_every_revision(client: Any) -> None:
    """The SDK server sends a resource_link at every revision: before 2025-06-18 it is Unknown."""
    result = await client.call_tool(name="links")
    text, link = result.content
    assert text.text == "see"
    if client.revision >= STRUCTURED_SINCE:
        assert isinstance(link, client.types.ResourceLink)
        assert link.uri == "file:///interop/readme.md"
    else:
        assert isinstance(link, Unknown)
        assert link.json == {
            "type": "resource_link",
            "name": "readme",
            "uri": "file:///interop/readme.md",
        }


@bounded
async def test_call_tool_text(client: Any) -> None:
    """tools/call with text content, non-ASCII intact."""
    result = await client.call_tool(name="echo", arguments={"text": "héllo ☃"})
    assert text_of(result) == "echo: héllo ☃"
    assert result.is_error in (False, msgspec.UNSET)


@bounded
async def test_large_and_concurrent_calls(client: Any) -> None:
    """A 2 MB argument and result cross the pipes intact; concurrent calls keep their ids."""
    big = "é" * 1_000_000
    result = await client.call_tool(name="echo", arguments={"text": big})
    assert text_of(result) == f"echo: {big}"
    texts = [f"n{i}" for i in range(25)]
    calls = [client.call_tool(name="echo", arguments={"text": x}) for x in texts]
    assert [text_of(r) for r in await asyncio.gather(*calls)] == [f"echo: {x}" for x in texts]


@bounded
async def test_call_tool_structured(client: Any) -> None:
    """tools/call with structuredContent."""
    if client.revision < STRUCTURED_SINCE:
        pytest.skip(
            f"{client.revision} has no structuredContent/outputSchema (added in 2025-06-18)"
        )
    result = await client.call_tool(name="add", arguments={"a": 2, "b": 3.5})
    assert result.structured_content == {"sum": 5.5}
    assert text_of(result) == "5.5"


@bounded
async def test_unknown_tool_is_protocol_error(client: Any) -> None:
    """The SDK server's -32602 for an unknown tool reaches us as MCPError."""
    with pytest.raises(MCPError) as caught:
        await client.call_tool(name="no_such_tool", arguments={})
    assert caught.value.code == -32602
    assert "no_such_tool" in caught.value.message


@bounded
async def test_resources(client: Any) -> None:
    """resources/list, resources/templates/list, resources/read (and a not-found error)."""
    listed = await client.list_resources()
    assert [(r.name, r.uri, r.mime_type) for r in listed.resources] == [
        ("greeting", "mem://greeting", "text/plain")
    ]
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["mem://items/{id}"]
    for uri, text in (("mem://greeting", "hello from sdk"), ("mem://items/42", "item 42")):
        read = await client.read_resource(uri=uri)
        [contents] = read.contents
        assert (contents.uri, contents.text, contents.mime_type) == (uri, text, "text/plain")
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri="mem://missing")
    assert caught.value.code == -32002


@bounded
async def test_prompts(client: Any) -> None:
    """prompts/list and prompts/get."""
    listed = await client.list_prompts()
    [prompt] = listed.prompts
    assert prompt.name == "greet"
    assert [(a.name, a.required) for a in prompt.arguments] == [("name", True)]
    got = await client.get_prompt(name="greet", arguments={"name": "Bo"})
    assert got.description == "A greeting"
    [message] = got.messages
    assert (message.role, message.content.text) == ("user", "Say hello to Bo")


@bounded
async def test_completion(client: Any) -> None:
    """completion/complete for a prompt argument and a resource template variable."""
    t = client.types
    argument = t.CompleteRequestParamsArgument
    done = await client.complete(
        ref=t.PromptReference(name="greet"), argument=argument(name="name", value="al")
    )
    assert (done.completion.values, done.completion.total) == (["alice", "albert"], 2)
    template_ref = getattr(t, "ResourceTemplateReference", None) or t.ResourceReference
    done = await client.complete(
        ref=template_ref(uri="mem://items/{id}"), argument=argument(name="id", value="1")
    )
    assert done.completion.values == ["1", "12"]


@bounded
async def test_logging(client: Any) -> None:
    """logging/setLevel, then the SDK server's notifications/message reach on_notification."""
    await client.set_level(level="warning")
    client.notifications.clear()
    assert text_of(await client.call_tool(name="log")) == "logged"
    await wait_until(lambda: len(client.logs()) >= 1)
    await asyncio.sleep(0.1)
    assert [(m.level, m.data, m.logger) for m in client.logs()] == [
        ("warning", {"msg": "w"}, "sdk")
    ]
    await client.set_level(level="debug")
    client.notifications.clear()
    await client.call_tool(name="log")
    await wait_until(lambda: len(client.logs()) >= 3)
    assert [m.level for m in client.logs()] == ["debug", "info", "warning"]
    await client.set_level(level="info")


@bounded
async def test_progress(client: Any) -> None:
    """The SDK server's report_progress reaches our progress callback, in order."""
    got: list[Any] = []
    result = await client.call_tool(name="progress", progress=got.append)
    assert text_of(result) == "done"
    await wait_until(lambda: len(got) >= 3)
    assert [(p.progress, p.total) for p in got] == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
    assert len({p.progress_token for p in got}) == 1
    if client.revision >= COMPLETIONS_CAP_SINCE:  # progress ``message`` is 2025-03-26+
        assert [p.message for p in got] == ["step 1", "step 2", "step 3"]


@bounded
async def test_cancel_on_timeout(client: Any) -> None:
    """Our timeout cancels the slow call on the wire; the SDK stops it; the link still works."""
    _, before = await client.status()
    with pytest.raises(RequestTimeout):
        await client.call_tool(name="slow", timeout=SLOW_TIMEOUT_S)

    async def stopped() -> bool:
        return bool(await client.status() == ("cancelled", before + 1))

    await wait_until(stopped)
    result = await client.call_tool(name="echo", arguments={"text": "still here"})
    assert text_of(result) == "echo: still here"


@bounded
async def test_cancel_by_caller(client: Any) -> None:
    """Cancelling the awaiting task sends notifications/cancelled; the SDK stops the handler."""
    _, before = await client.status()
    call = asyncio.create_task(client.call_tool(name="slow"))

    async def running() -> bool:
        return bool((await client.status())[0] == "running")

    await wait_until(running)
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call

    async def stopped() -> bool:
        return bool(await client.status() == ("cancelled", before + 1))

    await wait_until(stopped)
    await client.ping()


@bounded
async def test_sampling(client: Any) -> None:
    """The SDK server's sampling/createMessage is answered by our on_create_message."""
    client.sampled.clear()
    result = await client.call_tool(name="sample")
    assert text_of(result) == "model ours-model said 4"
    [params] = client.sampled
    assert params.max_tokens == 20
    [message] = params.messages
    assert (message.role, message.content.text) == ("user", "What is 2+2?")


@bounded
async def test_elicitation(client: Any) -> None:
    """The SDK server's elicitation/create is answered by our on_elicit.

    Before 2025-06-18 the method does not exist; the SDK server sends it anyway (it checks
    neither the revision nor the client's capabilities) and our client answers -32601,
    which the SDK passes back as the tools/call error.
    """
    if client.revision < STRUCTURED_SINCE:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(name="elicit")
        assert caught.value.code == -32601
        assert "elicitation/create" in caught.value.message
        assert "elicitation" not in client.our_capabilities
        return
    client.elicited.clear()
    result = await client.call_tool(name="elicit")
    assert text_of(result) == "accept: {'name': 'Ada', 'age': 36}"
    [params] = client.elicited
    assert params.message == "Who are you?"
    schema = msgspec.to_builtins(params.requested_schema)
    assert schema["required"] == ["name"]
    assert schema["properties"]["age"] == {"type": "integer"}
