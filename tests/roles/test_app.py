"""The decorator app: the issue's server in examples/app_server.py served to the official SDK
client over stdio and HTTP, typed strictly with no Any; and the app's behaviour in detail."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypedDict

import jsonschema
import msgspec
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent, TextResourceContents

from generated import v2025_03_26, v2025_11_25
from generated.runtime import App, Context, MCPError, RequestContext, ToolError, memory_pair
from generated.v2025_11_25 import Client
from generated.v2025_11_25 import types as t
from tests.conftest import ROOT
from tests.support.process_support import serving
from tests.support.runtime_support import STEP_S, connected
from tests.support.typecheck_support import strict_check

EXAMPLE = ROOT / "examples" / "app_server.py"
SDK_EXAMPLE = ROOT / "bench" / "peers" / "sdk_app_server.py"
"""The same server on the official SDK's ``MCPServer``: the line count to beat, same behaviour."""
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
"""The example imports the checked-in package as a user imports an installed one."""

Streams = AbstractAsyncContextManager[Any]


@asynccontextmanager
async def _stdio(script: Path) -> AsyncIterator[tuple[Any, Any]]:
    params = StdioServerParameters(command=sys.executable, args=[str(script)], env=ENV)
    async with stdio_client(params) as (read, write):
        yield read, write


@asynccontextmanager
async def _http(script: Path) -> AsyncIterator[tuple[Any, Any]]:
    argv: Callable[[int], list[str]] = lambda port: [  # noqa: E731
        sys.executable,
        str(script),
        "--http",
        str(port),
    ]
    with serving(argv, ROOT, ENV) as port:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
            yield streams[0], streams[1]


@pytest.mark.parametrize("script", [EXAMPLE, SDK_EXAMPLE], ids=["ours", "sdk"])
@pytest.mark.parametrize("transport", [_stdio, _http], ids=["stdio", "http"])
async def test_sdk_client_uses_the_example(
    transport: Callable[[Path], AbstractAsyncContextManager[tuple[Any, Any]]], script: Path
) -> None:
    """Every tool called (structured output valid against its outputSchema), the resource
    read and the prompt got, by the official SDK client."""
    async with transport(script) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert sorted(tools) == ["add", "forecast"]
        assert tools["add"].description == "Add two numbers."
        assert tools["add"].input_schema["required"] == ["a"]
        calls = {"add": {"a": 40}, "forecast": {"city": "Paris"}}
        expected = {"add": {"result": 42}, "forecast": {"city": "Paris", "celsius": 15}}
        for name, arguments in calls.items():
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result
            assert result.structured_content == expected[name]
            schema = tools[name].output_schema
            assert schema is not None
            jsonschema.validate(result.structured_content, schema)
        failed = await session.call_tool("add", {"a": "forty"})
        assert failed.is_error
        read_back = await session.read_resource("demo://readme")
        (contents,) = read_back.contents
        assert isinstance(contents, TextResourceContents)
        assert contents.text == "# Weather\nTools: add, forecast."
        assert contents.mime_type == "text/markdown"
        prompt = await session.get_prompt("greet", {"name": "Ada"})
        assert isinstance(prompt.messages[0].content, TextContent)
        assert prompt.messages[0].content.text == "Say hello to Ada, casual."


def _lines(path: Path) -> int:
    return len([line for line in path.read_text().splitlines() if line.strip()])


def test_example_is_short() -> None:
    """The example stays within the issue's budget of lines (blank lines not counted) and is
    shorter than the same server on the official SDK."""
    assert _lines(EXAMPLE) <= 25, _lines(EXAMPLE)
    assert _lines(EXAMPLE) < _lines(SDK_EXAMPLE), (_lines(EXAMPLE), _lines(SDK_EXAMPLE))


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_example_type_checks_strictly_without_any(checker: str, tmp_path: Path) -> None:
    """mypy --strict and pyright strict (which reports unknown types) pass; the example
    writes no Any and its decorated functions keep their own types."""
    assert "Any" not in EXAMPLE.read_text()
    per_module = "[mypy-app_server]\ndisallow_any_explicit = True\n"
    strict_check(checker, EXAMPLE, tmp_path, per_module)


# -- behaviour in detail, with our own client over memory ------------------------------------


class Point(msgspec.Struct):
    """A point."""

    x: float
    y: float


class Stats(TypedDict):
    """Statistics."""

    count: int
    mean: float


@dataclasses.dataclass
class Pair:
    """Two names."""

    left: str
    right: str


def build_app() -> App:
    """An app using each feature."""
    app = App("detail", "2.0", revision=v2025_11_25, instructions="Be nice.")

    @app.tool
    def move(point: Point) -> Point:
        """One Struct parameter: the arguments are its fields."""
        return Point(x=point.x + 1, y=point.y)

    @app.tool(name="stats", title="Statistics")
    async def statistics(values: list[float], ctx: Context) -> Stats:
        """A context parameter gives progress and logging."""
        await ctx.progress(1, 1, "done")
        await ctx.log("info", {"values": len(values)})
        return Stats(count=len(values), mean=sum(values) / len(values))

    @app.tool
    def pair(left: str, right: str = "b") -> Pair:
        """A dataclass result."""
        return Pair(left, right)

    @app.tool
    def picture() -> list[t.TextContent | t.ImageContent]:
        """Content blocks are returned as content."""
        return [t.TextContent(text="a dot"), t.ImageContent(data="AA==", mime_type="image/png")]

    @app.tool
    def explode() -> str:
        """Always fails, on purpose: the model reads why."""
        raise ToolError("it blew up")

    @app.resource("notes://{folder}/{id}", mime_type="text/plain")
    def note(folder: str, id: str) -> str:
        """A note."""
        return f"{folder}:{id}"

    @app.resource("blobs://one")
    async def blob() -> bytes:
        """Bytes."""
        return b"\x00\x01"

    @app.completion("notes://{folder}/{id}", "id")
    def note_ids(prefix: str) -> list[str]:
        """Note ids starting with the prefix."""
        return [i for i in ("1", "12", "2") if i.startswith(prefix)]

    return app


async def _with_client(check: Callable[[Client], Awaitable[None]]) -> None:
    async with connected(build_app().server(), Client(timeout=STEP_S)) as (client, _, _):
        await check(client)


async def test_tools_in_detail() -> None:
    """Struct parameter, context, TypedDict and dataclass results, exceptions as isError."""

    async def check(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert listed["stats"].title == "Statistics"
        assert sorted(listed["move"].input_schema["required"]) == ["x", "y"]
        assert listed["explode"].output_schema is msgspec.UNSET
        moved = await client.call_tool(name="move", arguments={"x": 1, "y": 2})
        assert moved.structured_content == {"x": 2.0, "y": 2}
        progress: list[float] = []
        stats = await client.call_tool(
            name="stats",
            arguments={"values": [1, 2, 3]},
            progress=lambda p: progress.append(p.progress),
        )
        assert stats.structured_content == {"count": 3, "mean": 2.0}
        assert progress == [1]
        schema = listed["stats"].output_schema
        assert not isinstance(schema, msgspec.UnsetType)
        jsonschema.validate(stats.structured_content, schema)
        paired = await client.call_tool(name="pair", arguments={"left": "a"})
        assert paired.structured_content == {"left": "a", "right": "b"}
        assert listed["picture"].output_schema is msgspec.UNSET
        picture = await client.call_tool(name="picture")
        assert [type(block) for block in picture.content] == [t.TextContent, t.ImageContent]
        assert picture.structured_content is msgspec.UNSET
        failed = await client.call_tool(name="explode")
        assert failed.is_error is True
        assert isinstance(failed.content[0], t.TextContent)
        assert failed.content[0].text == "it blew up"
        unknown = await client.call_tool(name="nope")
        assert unknown.is_error is True

    await _with_client(check)


async def test_resources_templates_and_completion() -> None:
    """Templates match by their variables, bytes become a blob, unknown URIs are -32002."""

    async def check(client: Client) -> None:
        assert client.instructions == "Be nice."
        templates = (await client.list_resource_templates()).resource_templates
        assert [tpl.uri_template for tpl in templates] == ["notes://{folder}/{id}"]
        assert [r.uri for r in (await client.list_resources()).resources] == ["blobs://one"]
        (text,) = (await client.read_resource(uri="notes://work/7")).contents
        assert isinstance(text, t.TextResourceContents) and text.text == "work:7"
        (blob,) = (await client.read_resource(uri="blobs://one")).contents
        assert isinstance(blob, t.BlobResourceContents) and blob.blob == "AAE="
        with pytest.raises(MCPError) as info:
            await client.read_resource(uri="notes://nowhere")
        assert info.value.code == -32002
        completed = await client.complete(
            ref=t.ResourceTemplateReference(uri="notes://{folder}/{id}"),
            argument=t.CompleteRequestParamsArgument(name="id", value="1"),
        )
        assert completed.completion.values == ["1", "12"]

    await _with_client(check)


class Booking(msgspec.Struct):
    """What the user is asked for."""

    name: str
    guests: int


class Asking(Client):
    """A 2025-11-25 client that answers sampling, elicitation and roots."""

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: RequestContext
    ) -> t.CreateMessageResult:
        """Echo the prompt, upper-cased."""
        asked = msgspec.to_builtins(params.messages[0].content)["text"]
        answer = t.TextContent(text=str(asked).upper())
        return t.CreateMessageResult(role="assistant", content=answer, model="m")

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: RequestContext) -> t.ElicitResult:
        """Fill in the form."""
        return t.ElicitResult(action="accept", content={"name": "Ada", "guests": 4})

    async def on_list_roots(
        self, params: t.RequestParams, ctx: RequestContext
    ) -> t.ListRootsResult:
        """One root."""
        return t.ListRootsResult(roots=[t.Root(uri="file:///work")])


async def test_context_asks_the_client() -> None:
    """A tool's Context samples the client's model, elicits a form and lists roots."""
    app = App("asking", revision=v2025_11_25)

    @app.tool
    async def plan(topic: str, ctx: Context) -> str:
        """Use every request to the client."""
        said = await ctx.sample(f"plan {topic}", max_tokens=20)
        booking = await ctx.elicit("Who?", Booking)
        roots = await ctx.roots()
        assert booking is not None
        return f"{said} for {booking.name} x{booking.guests} in {','.join(roots)}"

    async with connected(app.server(), Asking(timeout=STEP_S)) as (client, _, _):
        result = await client.call_tool(name="plan", arguments={"topic": "dinner"})
        assert isinstance(result.content[0], t.TextContent)
        assert result.content[0].text == "PLAN DINNER for Ada x4 in file:///work"


async def test_older_revisions_are_served_too() -> None:
    """``also=`` serves older revisions: a 2025-03-26 client negotiates its own and calls the
    tool (no structured content in that revision: the text carries the value)."""
    app = App("both", revision=v2025_11_25, also=[v2025_03_26])

    @app.tool
    def add(a: int, b: int = 2) -> int:
        """Add."""
        return a + b

    newest, older = app.servers()
    client_end, server_end = memory_pair()
    task = asyncio.create_task(newest.serve(server_end, older))
    client = v2025_03_26.Client(timeout=STEP_S)
    try:
        init = await client.connect(client_end)
        assert init.protocol_version == "2025-03-26"
        result = await client.call_tool(name="add", arguments={"a": 1})
        assert isinstance(result.content[0], v2025_03_26.types.TextContent)
        assert result.content[0].text == '{"result":3}'
    finally:
        await client.close()
        await asyncio.wait_for(task, STEP_S)


PINS = '''
from typing import assert_type

from generated import v2025_11_25
from generated.runtime import App, Context

app = App("pins", revision=v2025_11_25)


@app.tool
def add(a: int, b: int = 2) -> int:
    """Add."""
    return a + b


@app.tool(name="shout", title="Shout")
async def shout(text: str, ctx: Context) -> str:
    """Shout."""
    return text.upper()


@app.resource("notes://{id}")
def note(id: str) -> bytes:
    """A note."""
    return id.encode()


@app.prompt(name="hello")
def hello(name: str) -> str:
    """Hello."""
    return name


async def use(ctx: Context) -> None:
    """The decorated functions keep their own signatures."""
    assert_type(add(1), int)
    assert_type(add(1, b=3), int)
    assert_type(await shout("x", ctx), str)
    assert_type(note("1"), bytes)
    assert_type(hello("Ada"), str)
'''


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_decorators_keep_the_functions_types(checker: str, tmp_path: Path) -> None:
    """``@app.tool`` (bare or with options), ``@app.resource`` and ``@app.prompt`` return the
    function itself, typed as written."""
    target = tmp_path / "pins.py"
    target.write_text(PINS)
    strict_check(checker, target, tmp_path, "[mypy-pins]\ndisallow_any_explicit = True\n")


def test_default_revision_is_the_newest_initialize_era_one() -> None:
    """``App("name")`` serves the package's newest initialize-era revision."""
    assert App("plain").revisions == (v2025_11_25,)


def test_run_reads_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``app.run()`` serves HTTP for ``--http [HOST:]PORT``; other arguments: usage, exit 2."""
    from generated._runtime.roles.app import _listen_address

    assert _listen_address([]) is None
    assert _listen_address(["--http", "9000"]) == ("127.0.0.1", 9000)
    assert _listen_address(["--http", "0.0.0.0:9001"]) == ("0.0.0.0", 9001)
    assert _listen_address(["--http"]) == ("127.0.0.1", 8000)
    with pytest.raises(SystemExit) as exit_info:
        App("plain").run(["--htp", "9000"])
    assert exit_info.value.code == 2
    assert "usage:" in capsys.readouterr().err
