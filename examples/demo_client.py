"""A demo MCP client (revision 2025-06-18): runs the demo server and exercises every feature.

It starts ``examples/demo_server.py`` over stdio (or the server command given on the command
line), answers the server's sampling, elicitation and roots requests, prints a transcript and
checks every answer: the exit status is 0 only if every step behaved as expected.

    python examples/demo_client.py [--revision REV] [SERVER_COMMAND ... | http://HOST:PORT/mcp]

``--revision`` speaks another protocol revision to the server (stdio): the client is still
written against 2025-06-18, its calls and the server's requests converted
(``generated.converters.connect``); the checks expect what that revision can carry.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from msgspec import UNSET

from generated.runtime import ConnectionClosed, MCPError, RequestContext, RequestTimeout
from generated.v2025_06_18 import Client
from generated.v2025_06_18 import types as t

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "demo_server.py")]
TOOLS = {"echo", "media", "weather", "divide", "count", "summarize", "book_table", "roots"}
TOOLS |= {"edit_note"}
NOTE_TEMPLATE = "demo://notes/{id}"


class DemoFailed(Exception):
    """A step of the demo did not behave as expected."""


def expect(condition: bool, what: str, got: Any = None) -> None:
    """Print a passed check, or raise ``DemoFailed`` showing what was got instead."""
    if not condition:
        raise DemoFailed(f"{what} (got {got!r})")
    print(f"  ok  {what}")


def show(block: Any) -> str:
    """A one-line view of a content block."""
    if isinstance(block, t.TextContent):
        return f"text {block.text!r}"
    if isinstance(block, t.ImageContent | t.AudioContent):
        kind = "image" if isinstance(block, t.ImageContent) else "audio"
        return f"{kind} {block.mime_type}, {len(base64.b64decode(block.data))} bytes"
    if isinstance(block, t.EmbeddedResource):
        return f"embedded resource {block.resource.uri}"
    if isinstance(block, t.ResourceLink):
        return f"resource link {block.uri}"
    return type(block).__name__


def text_of(result: t.CallToolResult) -> str:
    """The text of a tool result's first block (``""`` when it is not text)."""
    first = result.content[0] if result.content else None
    return first.text if isinstance(first, t.TextContent) else ""


class DemoClient(Client):
    """A client that answers the server's requests like a (very agreeable) user would."""

    def __init__(self) -> None:
        super().__init__(name="mcpgen-demo-client", version="1.0.0", timeout=30.0)
        self.logs: list[t.LoggingMessageNotificationParams] = []
        self.updated: list[str] = []

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: RequestContext
    ) -> t.CreateMessageResult:
        """Answer sampling as a fake model would."""
        asked = params.messages[0].content
        print(f"  <- sampling/createMessage: {show(asked)}, maxTokens={params.max_tokens}")
        answer = t.TextContent(text="Buy milk, call Ada.")
        return t.CreateMessageResult(role="assistant", content=answer, model="demo-model")

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: RequestContext) -> t.ElicitResult:
        """Answer elicitation as a user filling in the form would."""
        fields = ", ".join(params.requested_schema.properties)
        print(f"  <- elicitation/create: {params.message!r} asking for {fields}")
        form: dict[str, str | int | float | bool] = {"name": "Ada", "guests": 4, "terrace": True}
        return t.ElicitResult(action="accept", content=form)

    async def on_list_roots(
        self, params: t.ListRootsRequestParams | None, ctx: RequestContext
    ) -> t.ListRootsResult:
        """Offer one root."""
        print("  <- roots/list")
        return t.ListRootsResult(roots=[t.Root(uri="file:///tmp/demo-project", name="demo")])

    async def on_notification(self, method: str, params: Any) -> None:
        """Print and record log messages and resource updates."""
        if isinstance(params, t.LoggingMessageNotificationParams):
            print(f"  <- log {params.level}: {params.data!r}")
            self.logs.append(params)
        elif isinstance(params, t.ResourceUpdatedNotificationParams):
            print(f"  <- {method}: {params.uri}")
            self.updated.append(params.uri)
        else:
            print(f"  <- {method}")


async def tools(client: DemoClient) -> None:
    """List the tools and call each one."""
    page = await client.list_tools()
    names = [tool.name async for tool in client.iter_tools()]
    print(f"  tools: {', '.join(names)}")
    expect(set(names) == TOOLS, "tools/list lists every tool", names)
    expect(names == [tool.name for tool in page.tools], "iter_tools yields the same tools")

    result = await client.call_tool(name="echo", arguments={"text": "hello"})
    expect(text_of(result) == "hello", "echo returns its text", result)

    rev = client.protocol_version
    result = await client.call_tool(name="media")
    print(f"  media: {'; '.join(show(block) for block in result.content)}")
    kinds = [type(block) for block in result.content]
    # Blocks the revision lacks arrive as text (schema/converters.toml): never a wire error.
    link = t.ResourceLink if rev >= "2025-06-18" else t.TextContent
    sound = t.AudioContent if rev >= "2025-03-26" else t.TextContent
    expected = [t.ImageContent, sound, t.EmbeddedResource, link]
    expect(kinds == expected, "media returns image, audio, embedded resource, link", kinds)
    image, audio = result.content[0], result.content[1]
    assert isinstance(image, t.ImageContent)
    expect(base64.b64decode(image.data).startswith(b"\x89PNG"), "the image is a PNG")
    if isinstance(audio, t.AudioContent):
        expect(base64.b64decode(audio.data).startswith(b"RIFF"), "the audio is a WAV")

    result = await client.call_tool(name="weather", arguments={"city": "Lyon"})
    print(f"  weather: structuredContent={result.structured_content}")
    report = {"city": "Lyon", "celsius": 14}
    structured = report if rev >= "2025-06-18" else UNSET  # older revisions have no such field
    expect(result.structured_content == structured, "weather returns structured content", result)
    expect(json.loads(text_of(result)) == report, "... and the same JSON as text")

    result = await client.call_tool(name="divide", arguments={"a": 1, "b": 0})
    print(f"  divide by zero: isError={result.is_error}, {text_of(result)!r}")
    expect(result.is_error is True, "a failing tool returns isError", result)
    result = await client.call_tool(name="divide", arguments={"a": 1})
    expect(result.is_error is True, "missing arguments give an isError result", result)
    expect("'b' is a required property" in text_of(result), "... naming the argument")
    try:
        await client.call_tool(name="nope")
        raise DemoFailed("an unknown tool was not refused")
    except MCPError as exc:
        expect(exc.code == -32602, f"an unknown tool is a protocol error: {exc.message}", exc)


async def progress_and_logs(client: DemoClient) -> None:
    """Call a tool that reports progress and logs, before and after logging/setLevel."""
    seen: list[tuple[float, Any]] = []

    def on_progress(params: t.ProgressNotificationParams) -> None:
        print(f"  <- progress {params.progress}/{params.total}: {params.message}")
        seen.append((params.progress, params.total))

    result = await client.call_tool(name="count", arguments={"n": 3}, progress=on_progress)
    expect(text_of(result) == "counted to 3", "count returns", result)
    expect(seen == [(1, 3), (2, 3), (3, 3)], "progress arrived for each step", seen)
    levels = [log.level for log in client.logs]
    expect(levels == ["info"], "at the default level only the info log arrives", levels)

    await client.set_level(level="debug")
    client.logs.clear()
    await client.call_tool(name="count", arguments={"n": 2})
    levels = [log.level for log in client.logs]
    expect(levels == ["debug", "debug", "info"], "after setLevel debug, debug logs arrive", levels)
    expect(client.logs[0].logger == "count", "logs name their logger", client.logs[0])


async def server_requests(client: DemoClient) -> None:
    """Tools that ask the client: sampling, elicitation, roots."""
    result = await client.call_tool(name="summarize", arguments={"text": "milk; Ada"})
    expected = "demo-model says: Buy milk, call Ada."
    expect(text_of(result) == expected, f"sampling answered: {expected!r}", result)
    if client.protocol_version >= "2025-06-18":
        result = await client.call_tool(name="book_table")
        expected = "booked a table for 4 in the name of Ada, on the terrace"
        expect(text_of(result) == expected, f"elicitation answered: {expected!r}", result)
    else:  # the revision has no elicitation: the server's handler is told so (isError), or a
        # stateless server behind a bridge refuses the call (-32021, a missing capability)
        try:
            result = await client.call_tool(name="book_table")
            refused = result.is_error is True
        except MCPError as exc:
            result, refused = exc, exc.code == -32021
        expect(refused, f"no elicitation in {client.protocol_version}", result)
    result = await client.call_tool(name="roots")
    expect(text_of(result) == "file:///tmp/demo-project", "roots answered", result)


async def resources(client: DemoClient) -> None:
    """List resources and templates; read text, blob and templated resources."""
    listed = [r.uri async for r in client.iter_resources()]
    print(f"  resources: {', '.join(listed)}")
    expect(listed == ["demo://readme", "demo://logo.png"], "resources/list", listed)
    templates = [r.uri_template async for r in client.iter_resource_templates()]
    expect(templates == [NOTE_TEMPLATE], f"resources/templates/list: {templates}", templates)

    readme = (await client.read_resource(uri="demo://readme")).contents[0]
    ok = isinstance(readme, t.TextResourceContents) and readme.text.startswith("# Demo")
    expect(ok, "read a text resource", readme)
    logo = (await client.read_resource(uri="demo://logo.png")).contents[0]
    ok = isinstance(logo, t.BlobResourceContents) and logo.blob.startswith("iVBOR")
    expect(ok, "read a blob resource", logo)
    note = (await client.read_resource(uri="demo://notes/1")).contents[0]
    ok = isinstance(note, t.TextResourceContents) and note.text == "buy milk"
    expect(ok, "read a templated resource: demo://notes/1 is 'buy milk'", note)
    try:
        await client.read_resource(uri="demo://notes/99")
        raise DemoFailed("an unknown resource was read")
    except MCPError as exc:
        expect(exc.code == -32002, "an unknown resource is -32002 Resource not found", exc)


async def soon(condition: Callable[[], bool], within: float = 2.0) -> bool:
    """Whether ``condition`` holds now or within ``within`` seconds."""
    deadline = asyncio.get_running_loop().time() + within
    while not condition() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    return condition()


async def subscriptions(client: DemoClient) -> None:
    """Subscribe to a note, change it with a tool, see the update; then unsubscribe."""
    uri = "demo://notes/2"
    await client.subscribe(uri=uri)
    await client.call_tool(name="edit_note", arguments={"id": "2", "text": "call Ada at 5"})
    # Not tied to the call: over HTTP it comes on the GET stream, maybe after the call's answer.
    arrived = await soon(lambda: client.updated == [uri])
    expect(arrived, "notifications/resources/updated arrived", client.updated)
    note = (await client.read_resource(uri=uri)).contents[0]
    ok = isinstance(note, t.TextResourceContents) and note.text == "call Ada at 5"
    expect(ok, "reading it again shows the change", note)
    await client.unsubscribe(uri=uri)
    await client.call_tool(name="edit_note", arguments={"id": "2", "text": "done"})
    expect(client.updated == [uri], "no update after unsubscribe", client.updated)


async def prompts(client: DemoClient) -> None:
    """List prompts and get each; complete a prompt argument and a template variable."""
    names = [p.name async for p in client.iter_prompts()]
    expect(names == ["greet", "describe_logo", "review_note"], f"prompts/list: {names}", names)
    got = await client.get_prompt(name="greet", arguments={"name": "Ada", "style": "formal"})
    first = got.messages[0].content
    print(f"  greet: {show(first)}")
    ok = isinstance(first, t.TextContent) and first.text == "Write a formal greeting for Ada."
    expect(ok, "a prompt with arguments", first)
    got = await client.get_prompt(name="describe_logo")
    expect(isinstance(got.messages[0].content, t.ImageContent), "a prompt with an image", got)
    got = await client.get_prompt(name="review_note", arguments={"id": "1"})
    first = got.messages[0].content
    ok = isinstance(first, t.EmbeddedResource) and first.resource.uri == "demo://notes/1"
    expect(ok, "a prompt with an embedded resource", first)
    try:
        await client.get_prompt(name="greet")
        raise DemoFailed("a missing prompt argument was accepted")
    except MCPError as exc:
        expect(exc.code == -32602, "a missing required argument is -32602", exc)

    done = await client.complete(
        ref=t.PromptReference(name="greet"),
        argument=t.CompleteRequestParamsArgument(name="style", value="c"),
    )
    values = done.completion.values
    expect(values == ["casual", "cheerful"], f"complete greet style 'c': {values}", values)
    done = await client.complete(
        ref=t.ResourceTemplateReference(uri=NOTE_TEMPLATE),
        argument=t.CompleteRequestParamsArgument(name="id", value="1"),
    )
    values = done.completion.values
    expect(values == ["1", "12"], f"complete {NOTE_TEMPLATE} id '1': {values}", values)


STEPS: list[tuple[str, Callable[[DemoClient], Awaitable[None]]]] = [
    ("tools", tools),
    ("progress and logging", progress_and_logs),
    ("sampling, elicitation, roots", server_requests),
    ("resources", resources),
    ("subscriptions", subscriptions),
    ("prompts and completion", prompts),
]


async def run(command: list[str], revision: str | None = None) -> None:
    """Connect to the server, run every step, close."""
    client = DemoClient()
    print(f"== connect: {' '.join(command)}")
    if revision is not None:
        from generated.converters import connect
        from generated.runtime import spawn_server

        await connect(client, await spawn_server(command[0], command[1:]), revision)
        assert client.initialize_result is not None
        init = client.initialize_result
    elif command[0].startswith(("http://", "https://")):
        from generated.runtime import connect_http  # loads aiohttp: HTTP only

        init = await connect_http(client, command[0])
    else:
        init = await client.connect_stdio(command[0], command[1:])
    info = client.server_info
    print(f"  server {info.get('name')} {info.get('version')}, protocol {init.protocol_version}")
    print(f"  capabilities: {json.dumps(client.their_capabilities, sort_keys=True)}")
    try:
        rev = revision or "2025-06-18"
        expect(init.protocol_version == rev, f"protocol {rev} negotiated")
        caps = client.their_capabilities
        wanted = {"tools", "resources", "prompts", "logging"}
        if rev >= "2025-03-26":
            wanted.add("completions")
        expect(wanted <= caps.keys(), "every server capability declared", caps)
        expect(caps["resources"].get("subscribe") is True, "resources.subscribe declared", caps)
        expect(client.instructions is not None, f"instructions: {client.instructions}")
        for title, step in STEPS:
            print(f"== {title}")
            await step(client)
        print("== ping")
        await client.ping()
        expect(True, "the server answered ping")
    finally:
        await client.close()


def main(argv: list[str] | None = None) -> int:
    """Run the demo; return 0 only if every step behaved as expected."""
    parser = argparse.ArgumentParser(description="Exercise every feature of an MCP server.")
    parser.add_argument("--revision", help="the protocol revision to speak (stdio)")
    parser.add_argument(
        "server",
        nargs=argparse.REMAINDER,
        help="server command, or the URL of a Streamable HTTP endpoint (default: the demo)",
    )
    args = parser.parse_args(argv)
    command = args.server or SERVER
    try:
        asyncio.run(run(command, args.revision))
    except (DemoFailed, MCPError, RequestTimeout, ConnectionClosed) as exc:
        print(f"FAILED: {type(exc).__name__}: {exc}")
        return 1
    print("== demo finished: every step behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
