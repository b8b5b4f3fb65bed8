"""The ``Tools`` helper through a served connection: checked arguments and structured output."""

from __future__ import annotations

from typing import Any

import pytest

from generated._runtime.core.errors import INTERNAL_ERROR, INVALID_PARAMS
from generated._runtime.roles.peer import MCPError
from generated.v2025_06_18 import Server, ServerContext, Tools
from generated.v2025_06_18 import types as t
from tests.support.runtime_support import connected, serving

ADD_INPUT = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
SUM_OUTPUT = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


async def add(arguments: dict[str, Any], ctx: Any) -> t.CallToolResult:
    """Add a and b; the structured content follows the output schema."""
    total = arguments["a"] + arguments["b"]
    return t.CallToolResult(
        content=[t.TextContent(text=str(total))], structured_content={"sum": total}
    )


async def bad_sum(arguments: dict[str, Any], ctx: Any) -> t.CallToolResult:
    """Return structured content of the wrong type."""
    return t.CallToolResult(content=[], structured_content={"sum": "many"})


async def no_structure(arguments: dict[str, Any], ctx: Any) -> t.CallToolResult:
    """Return no structured content although the tool has an output schema."""
    return t.CallToolResult(content=[t.TextContent(text="3")])


async def failing(arguments: dict[str, Any], ctx: Any) -> t.CallToolResult:
    """A tool error result is passed through without checking the output schema."""
    return t.CallToolResult(content=[t.TextContent(text="nope")], is_error=True)


def tool(name: str, output: bool = True) -> t.Tool:
    """A tool definition taking a and b."""
    if output:
        return t.Tool(name=name, input_schema=ADD_INPUT, output_schema=SUM_OUTPUT)
    return t.Tool(name=name, input_schema=ADD_INPUT)


class ToolServer(Server):
    """Serves a ``Tools`` set."""

    def __init__(self) -> None:
        self.tools = Tools()
        self.tools.add(tool("add"), add)
        self.tools.add(tool("bad_sum"), bad_sum)
        self.tools.add(tool("no_structure"), no_structure)
        self.tools.add(tool("failing"), failing)

    async def list_tools(self, params: Any, ctx: ServerContext) -> t.ListToolsResult:
        """List the set's tools."""
        return t.ListToolsResult(tools=self.tools.definitions())

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Call through the set."""
        return await self.tools.call(params, ctx)


async def test_tools_are_listed_in_order_and_a_good_call_succeeds() -> None:
    async with connected(ToolServer()) as (client, _, on_server):
        names = [tool.name async for tool in client.iter_tools()]
        assert names == ["add", "bad_sum", "no_structure", "failing"]
        result = await client.call_tool(name="add", arguments={"a": 2, "b": 3})
        assert result.structured_content == {"sum": 5}
        assert result.is_error is not True
        assert on_server.sent[-1]["result"] == {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"sum": 5},
        }


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"a": "x", "b": 1}, "'x' is not of type 'integer' (at /a)"),
        ({"a": 1}, "'b' is a required property"),
        ({"a": 1, "b": 2, "c": 3}, "'c' was unexpected"),
        (None, "'a' is a required property"),
    ],
)
async def test_bad_arguments_give_an_is_error_result_naming_the_problem(
    arguments: dict[str, Any] | None, problem: str
) -> None:
    async with connected(ToolServer()) as (client, _, on_server):
        if arguments is None:
            result = await client.call_tool(name="add")
        else:
            result = await client.call_tool(name="add", arguments=arguments)
        assert result.is_error is True
        [item] = result.content
        assert isinstance(item, t.TextContent)
        assert item.text.startswith("Invalid arguments for tool add: ")
        assert problem in item.text
        assert "result" in on_server.sent[-1]  # a tool result, not a protocol error
        assert (
            await client.call_tool(name="add", arguments={"a": 1, "b": 1})
        ).structured_content == {"sum": 2}


async def test_unknown_tool_is_invalid_params() -> None:
    async with connected(ToolServer()) as (client, _, _):
        with pytest.raises(MCPError) as info:
            await client.call_tool(name="subtract", arguments={"a": 1, "b": 2})
        assert info.value.code == INVALID_PARAMS
        assert "subtract" in info.value.message


async def test_unknown_tool_on_the_wire() -> None:
    async with serving(ToolServer()) as raw:
        await raw.initialize()
        reply = await raw.call(1, "tools/call", {"name": "nope"})
        assert reply["id"] == 1 and reply["error"]["code"] == INVALID_PARAMS
        assert "nope" in reply["error"]["message"]


@pytest.mark.parametrize(
    ("name", "problem"),
    [("bad_sum", "'many' is not of type 'integer'"), ("no_structure", "no structuredContent")],
)
async def test_structured_content_not_matching_the_output_schema_is_an_error(
    name: str, problem: str
) -> None:
    async with connected(ToolServer()) as (client, _, _):
        with pytest.raises(MCPError) as info:
            await client.call_tool(name=name, arguments={"a": 1, "b": 2})
        assert info.value.code == INTERNAL_ERROR
        assert name in info.value.message and problem in info.value.message
        await client.ping()


async def test_tool_error_results_skip_the_output_check() -> None:
    async with connected(ToolServer()) as (client, _, _):
        result = await client.call_tool(name="failing", arguments={"a": 1, "b": 2})
        assert result.is_error is True
