"""The typed ``Server``/``Client`` path behaves as its types say: a tool whose first parameter is
a Struct gets its arguments as that Struct, and a call's progress callback gets the revision's
``ProgressNotificationParams``, one argument, in both eras. The types themselves are pinned in
``tests/typing_pins/examples.py``."""

from __future__ import annotations

from typing import Any

import msgspec

from generated import v2025_11_25, v2026_07_28
from generated._runtime.roles.connect import connect_stateless
from tests.support.era_support import EraClient, FixtureServer, served
from tests.support.runtime_support import STEP_S, connected


class Order(msgspec.Struct):
    """A tool's arguments, decoded by msgspec."""

    item: str
    count: int = 1


def _server() -> Any:
    """A 2025-11-25 server whose ``order`` tool takes an ``Order``."""
    t = v2025_11_25.types
    tools = v2025_11_25.Tools()
    schema = {"type": "object", "properties": {"item": {"type": "string"}}}

    @tools.tool(t.Tool(name="order", input_schema=schema))
    async def order(args: Order, ctx: v2025_11_25.ServerContext) -> t.CallToolResult:
        return t.CallToolResult(content=[t.TextContent(text=f"{args.count} x {args.item}")])

    class Shop(v2025_11_25.Server):
        async def call_tool(
            self, params: t.CallToolRequestParams, ctx: v2025_11_25.ServerContext
        ) -> t.CallToolResult:
            return await tools.call(params, ctx)

    return Shop()


async def test_a_struct_parameter_gets_the_arguments_decoded() -> None:
    """The Struct is built from the wire arguments; what it refuses is a tool error result
    naming the problem (the inputSchema allowed it)."""
    async with connected(_server(), v2025_11_25.Client(timeout=STEP_S)) as (client, wire, _):
        ok = await client.call_tool(name="order", arguments={"item": "tea", "count": 2})
        bad = await client.call_tool(name="order", arguments={"item": "tea", "count": "two"})
    answers = [f["result"] for f in wire.received if "result" in f][-2:]
    assert ok.is_error is not True
    assert answers[0]["content"] == [{"type": "text", "text": "2 x tea"}]
    assert bad.is_error is True and answers[1]["isError"] is True
    (block,) = answers[1]["content"]
    assert block["text"].startswith("Invalid arguments for tool order:")
    assert "$.count" in block["text"]


async def test_a_2026_progress_callback_gets_the_typed_params() -> None:
    """On 2026-07-28, as on the initialize era, the callback takes one argument: the
    revision's ProgressNotificationParams."""
    got: list[Any] = []
    async with served(FixtureServer()) as end:
        client = EraClient(timeout=STEP_S)
        await connect_stateless(client, end)
        await client.call_tool(name="test_tool_with_progress", progress=got.append)
        await client.close()
    sent = [f["params"] for f in end.received if f.get("method") == "notifications/progress"]
    assert sent and len(got) == len(sent)
    assert all(isinstance(p, v2026_07_28.types.ProgressNotificationParams) for p in got)
    assert [(p.progress, p.total) for p in got] == [(s["progress"], s["total"]) for s in sent]


async def test_an_async_2026_progress_callback_is_awaited() -> None:
    """An async callback is awaited, as on the initialize era."""
    got: list[float] = []

    async def on_progress(params: v2026_07_28.types.ProgressNotificationParams) -> None:
        got.append(params.progress)

    async with served(FixtureServer()) as end:
        client = EraClient(timeout=STEP_S)
        await connect_stateless(client, end)
        await client.call_tool(name="test_tool_with_progress", progress=on_progress)
        await client.close()
    sent = [f["params"] for f in end.received if f.get("method") == "notifications/progress"]
    assert sent and got == [s["progress"] for s in sent]
