"""What a user of the generated package sees, pinned for mypy --strict and pyright strict.

Not run: ``tests/codegen/test_typing.py`` type-checks this module with both checkers and compares
each ``reveal_type`` with the assertion in its trailing comment (``typ`` is the revealed type's
text, as msgspec's ``tests/typing`` does). A line ending in ``# expect-error`` must be refused by
both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, reveal_type

import msgspec

from generated.runtime import (
    McpHttpApp,
    Transport,
    auth,
    connect_auto,
    connect_http_auto,
    connect_stateless,
    listen,
    spawn_server,
)
from generated.v2025_11_25 import Client, Server, ServerContext, Tools
from generated.v2025_11_25 import methods as m
from generated.v2025_11_25 import types as t
from generated.v2026_07_28 import Client as Client26
from generated.v2026_07_28 import Server as Server26
from generated.v2026_07_28 import ServerContext as Context26
from generated.v2026_07_28 import Tools as Tools26
from generated.v2026_07_28 import types as t26


async def check_call_result(client: Client) -> None:
    """A call returns its method's result type, not Any."""
    result = await client.call_tool(name="search", arguments={"q": "x"})
    reveal_type(result)  # assert "CallToolResult" in typ
    reveal_type(result.content)  # assert "list[" in typ and "TextContent" in typ
    tools = await client.list_tools()
    reveal_type(tools.tools)  # assert "list[" in typ and "Tool" in typ
    async for tool in client.iter_tools():
        reveal_type(tool)  # assert typ.endswith("Tool")


async def check_async_with() -> None:
    """``async with`` gives the generated subclass, not the runtime base."""
    async with Client() as client:
        reveal_type(client)  # assert typ.endswith("Client") and "Base" not in typ


async def check_connect(client: Client) -> None:
    """``connect*`` return the revision's InitializeResult."""
    init = await client.connect_stdio("server")
    reveal_type(init)  # assert typ.endswith("InitializeResult")
    reveal_type(init.protocol_version)  # assert typ == "str" or typ == "builtins.str"


class MyServer(Server):
    """A server that overrides two handlers."""

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Answer tools/call."""
        reveal_type(params)  # assert typ.endswith("CallToolRequestParams")
        reveal_type(ctx)  # assert typ.endswith("ServerContext")
        roots = await ctx.list_roots()
        reveal_type(roots)  # assert typ.endswith("ListRootsResult")
        return t.CallToolResult(content=[t.TextContent(text=params.name)])

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """Answer tools/list: params may be absent, as the method table says."""
        reveal_type(params)  # assert "PaginatedRequestParams" in typ and "None" in typ
        return t.ListToolsResult(tools=[])


def check_handler_signatures() -> None:
    """Handlers take the method's params (required, as in the table) and the revision's context."""
    reveal_type(Server.call_tool)  # assert "CallToolRequestParams, ctx" in typ
    reveal_type(Server.list_tools)  # assert "PaginatedRequestParams | None" in typ


def check_method_specs() -> None:
    """Each method's constant carries its params and result types."""
    reveal_type(m.TOOLS_CALL)  # assert "CallToolRequestParams, " in typ and "Result]" in typ
    reveal_type(m.NOTIFICATIONS_PROGRESS)  # assert "NotificationParams, None]" in typ
    reveal_type(m.ROOTS_LIST)  # assert "RequestParams | None" in typ and "ListRootsResult" in typ


async def check_context_request(ctx: ServerContext) -> None:
    """The runtime's request takes a spec and returns its result type."""
    result = await ctx.request(m.ROOTS_LIST, None)
    reveal_type(result)  # assert typ.endswith("ListRootsResult")


def check_union_members(block: t.ContentBlock, params: t.ElicitRequestParams) -> None:
    """Unions show their members, tagged (native) and untagged (decoded by shape) alike; an
    open union ends with the runtime's ``Unknown`` (a kind the revision does not define)."""
    reveal_type(block)  # assert typ.count(" | ") == 5 and typ.endswith("Unknown")
    reveal_type(params)  # assert "URLParams | " in typ and "FormParams" in typ


def check_result_union(result: t26.ServerResult) -> None:
    """2026-07-28: a result of unknown method is one of the results, told apart by resultType."""
    reveal_type(result)  # assert "InputRequiredResult" in typ and "ListenResult" in typ
    if isinstance(result, t26.InputRequiredResult):
        reveal_type(result.request_state)  # assert "str" in typ and "UnsetType" in typ


def check_json_value(value: t26.JSONObject) -> None:
    """JSON values are typed recursively, not as Any."""
    inner = value["key"]
    reveal_type(inner)  # assert "Any" not in typ and "str" in typ


async def check_refusals(client: Client, value: t26.JSONObject) -> None:
    """What the types refuse."""
    await client.call_tool()  # expect-error
    bad: t26.JSONObject = {"a": object()}  # expect-error
    del bad
    none_inside: t26.JSONValue = [None]  # expect-error
    del none_inside


async def check_task_calls(client: Client, ctx: ServerContext) -> None:
    """A request sent as a task answers CreateTaskResult; its tasks/result, the request's own."""
    created = await client.call_tool_as_task(name="slow", task=t.TaskMetadata(ttl=60_000))
    reveal_type(created)  # assert typ.endswith("CreateTaskResult")
    reveal_type(created.task.status)  # assert "working" in typ and "cancelled" in typ
    result = await client.call_tool_task_result(task_id=created.task.task_id)
    reveal_type(result)  # assert typ.endswith("CallToolResult")
    plain = await client.call_tool(name="slow")
    reveal_type(plain)  # assert typ.endswith("CallToolResult")
    reveal_type(m.TOOLS_CALL_AS_TASK)  # assert "TaskSpec[" in typ and "CreateTaskResult]" in typ
    payload = m.TOOLS_CALL_TASK_RESULT
    reveal_type(payload)  # assert "PayloadRequestParams, " in typ and "CallToolResult]" in typ
    sampled = await ctx.create_message_task_result(task_id="t")
    reveal_type(sampled)  # assert typ.endswith("CreateMessageResult")


async def check_task_refusals(client: Client) -> None:
    """A call as a task needs its ``task``."""
    await client.call_tool_as_task(name="slow")  # expect-error


async def check_2026_07_28_client(client: Client26, transport: Transport) -> None:
    """A 2026-07-28 client: ``connect`` answers DiscoverResult, calls their own results."""
    found = await client.connect(transport)
    reveal_type(found)  # assert typ.endswith("DiscoverResult")
    reveal_type(found.supported_versions)  # assert "list[" in typ and "str" in typ
    reveal_type(await client.connect_stdio("server"))  # assert typ.endswith("DiscoverResult")
    result = await client.call_tool(name="greet", arguments={"q": "x"})
    reveal_type(result)  # assert typ.endswith("CallToolResult") and "InputRequired" not in typ
    reveal_type(result.content)  # assert "list[" in typ and "TextContent" in typ
    tools = await client.list_tools()
    reveal_type(tools.ttl_ms)  # assert "int" in typ and "UnsetType" in typ
    reveal_type(tools.cache_scope)  # assert "public" in typ and "private" in typ
    async with listen(client, toolsListChanged=True) as changes:
        reveal_type(changes)  # assert typ.endswith("Subscription")
        async for method, _params in changes:
            reveal_type(method)  # assert typ == "str" or typ == "builtins.str"


async def check_connect_results(transport: Transport) -> None:
    """The client auto mode reached carries its era's typed connect result."""

    async def open_transport() -> Transport:
        return transport

    chosen = await connect_auto(Client26(), [Client()], open_transport)
    if isinstance(chosen, Client26):
        reveal_type(chosen.initialize_result)  # assert "DiscoverResult" in typ and "None" in typ
    else:
        reveal_type(chosen.initialize_result)  # assert "InitializeResult" in typ
    found = await connect_stateless(Client26(), transport, log_level="info")
    reveal_type(found)  # assert typ.endswith("DiscoverResult")


class MyServer26(Server26):
    """A 2026-07-28 server: the same handler signatures, MRTR behind ``ctx.elicit``."""

    async def call_tool(
        self, params: t26.CallToolRequestParams, ctx: Context26
    ) -> t26.CallToolResult:
        """Answer tools/call, asking the user first."""
        reveal_type(params)  # assert typ.endswith("CallToolRequestParams")
        reveal_type(params.request_state)  # assert "str" in typ and "UnsetType" in typ
        reveal_type(ctx)  # assert typ.endswith("ServerContext")
        schema = t26.ElicitRequestFormParamsRequestedSchema(properties={})
        form = t26.ElicitRequestFormParams(message="Name?", requested_schema=schema)
        answer = await ctx.elicit(params=form)
        reveal_type(answer)  # assert typ.endswith("ElicitResult")
        return t26.CallToolResult(content=[])


async def check_2026_07_28_refusals(client: Client26, ctx: Context26) -> None:
    """What the 2026-07-28 types refuse (awaited: an unawaited call is refused on its own)."""
    await client.call_tool(name="x", request_state=1)  # expect-error
    await client.initialize()  # expect-error
    await ctx.elicit()  # expect-error


tools = Tools()
tools26 = Tools26()
EMPTY: dict[str, object] = {"type": "object"}


class EchoArgs(msgspec.Struct):
    """A tool's arguments as a Struct."""

    text: str


@tools.tool(t.Tool(name="echo", input_schema=EMPTY))
async def echo(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """A tool on the wire dict."""
    return t.CallToolResult(content=[])


@tools.tool(t.Tool(name="echo_typed", input_schema=EMPTY))
async def echo_typed(args: EchoArgs, ctx: ServerContext) -> t.CallToolResult:
    """A tool on a Struct."""
    return t.CallToolResult(content=[t.TextContent(text=args.text)])


@tools26.tool(t26.Tool(name="echo", input_schema=EMPTY))
async def echo26(args: EchoArgs, ctx: Context26) -> t26.CallToolResult:
    """A 2026-07-28 tool."""
    return t26.CallToolResult(content=[])


def check_tools() -> None:
    """After ``@tools.tool`` a tool keeps its arguments, context and result types."""
    reveal_type(echo)  # assert "dict[str, Any]" in typ and "Context" in typ and "ToolResult" in typ
    reveal_type(echo_typed)  # assert "EchoArgs" in typ and "ServerContext" in typ
    reveal_type(echo26)  # assert "EchoArgs" in typ and "ServerContext" in typ and "Any" not in typ


async def check_tool_refusals(params: t.CallToolRequestParams, ctx: Context26) -> None:
    """A tool of another revision's context, result or arguments that are not a JSON object."""
    await tools.call(params, ctx)  # expect-error

    async def wrong_context(args: EchoArgs, ctx: Context26) -> t.CallToolResult:
        return t.CallToolResult(content=[])

    async def wrong_arguments(args: int, ctx: ServerContext) -> t.CallToolResult:
        return t.CallToolResult(content=[])

    async def wrong_result(args: EchoArgs, ctx: ServerContext) -> t26.CallToolResult:
        return t26.CallToolResult(content=[])

    tools.add(t.Tool(name="a", input_schema=EMPTY), wrong_context)  # expect-error
    tools.add(t.Tool(name="b", input_schema=EMPTY), wrong_arguments)  # expect-error
    tools.add(t.Tool(name="c", input_schema=EMPTY), wrong_result)  # expect-error


async def check_connect_auto() -> None:
    """Auto mode answers the client that connected: one of those given, not Any."""
    stateless, handshake = Client26(), Client()
    client = await connect_http_auto(stateless, [handshake], "http://127.0.0.1:8000/mcp")
    reveal_type(client)  # assert typ.count("Client") == 2 and " | " in typ and "Any" not in typ
    spawned = await connect_auto(stateless, [handshake], lambda: spawn_server("server"))
    reveal_type(spawned)  # assert typ.count("Client") == 2 and " | " in typ and "Any" not in typ
    if isinstance(client, Client26):
        reveal_type(await client.call_tool(name="x"))  # assert typ.endswith("CallToolResult")


def on_progress(params: t.ProgressNotificationParams) -> None:
    """A 2025-11-25 progress callback."""
    reveal_type(params.progress)  # assert "float" in typ or "int" in typ


async def check_progress_callbacks(client: Client, client26: Client26) -> None:
    """A call's progress callback takes its revision's ProgressNotificationParams."""
    reveal_type(Client.call_tool)  # assert "ProgressNotificationParams" in typ
    reveal_type(Client26.call_tool)  # assert "ProgressNotificationParams" in typ
    await client.call_tool(name="slow", progress=on_progress)

    async def on_progress26(params: t26.ProgressNotificationParams) -> None:
        reveal_type(params.total)  # assert "UnsetType" in typ

    await client26.call_tool(name="slow", progress=on_progress26)

    def takes_a_number(value: int) -> None:
        del value

    await client.call_tool(name="slow", progress=takes_a_number)  # expect-error


StarletteApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[MutableMapping[str, Any]]],
        Callable[[MutableMapping[str, Any]], Awaitable[None]],
    ],
    Awaitable[None],
]
"""Starlette's ``ASGIApp``: where an application mounts an ASGI app."""


def check_protected_app(server: Server, verifier: auth.TokenVerifier) -> None:
    """The OAuth wrapper takes the HTTP app as it is (one set of ASGI types), is an ASGI app
    that another wrapper takes in turn, and mounts where Starlette's types want one."""
    resource = auth.ProtectedResource("https://mcp.example.com/mcp", ("https://as.example.com",))
    app = auth.ProtectedMcpApp(McpHttpApp(server), resource, verifier)
    reveal_type(app)  # assert typ.endswith("ProtectedMcpApp")
    twice = auth.ProtectedMcpApp(app, resource, verifier)
    mounted: StarletteApp = twice
    plain: StarletteApp = McpHttpApp(server)
    del mounted, plain
