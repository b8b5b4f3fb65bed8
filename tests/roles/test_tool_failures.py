"""A tool that fails: on the wire the client reads a tool error (``isError``) that carries the
tool's own words only when it raised ``ToolError`` on purpose; anything else is logged on the
server with its traceback and answered with a generic text. Both eras, the decorator ``App``
and the typed ``Server`` with ``Tools`` alike."""

from __future__ import annotations

import importlib
import json
import logging
import pkgutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import pytest

import generated._runtime
from generated import v2025_11_25, v2026_07_28
from generated._runtime.roles.connect import connect_stateless
from generated._runtime.roles.server import ServerBase
from generated.runtime import App, Context, MCPError, ToolError
from tests.support.era_support import EraClient, served
from tests.support.runtime_support import STEP_S, connected

SECRET = "password=hunter2 at /srv/app/db.py"
"""What an unexpected exception says: it must never reach the client."""
TOOLS_LOGGER = "generated._runtime.roles.tools"


class Booking(msgspec.Struct):
    """What a tool asks the user for."""

    name: str


def build_app(revision: Any) -> App:
    """An app whose tools fail in each way, and one that asks the user (MRTR on 2026-07-28)."""
    app = App("failing", revision=revision)

    @app.tool
    def crash() -> str:
        """Fails as a bug would."""
        raise RuntimeError(SECRET)

    @app.tool
    async def refuse(item: str) -> str:
        """Fails on purpose: its message is for the model."""
        raise ToolError(f"{item} is out of stock")

    @app.tool
    def forbidden() -> str:
        """A protocol error, raised on purpose."""
        raise MCPError(-32602, "forbidden here")

    @app.tool
    async def book(ctx: Context) -> str:
        """Asks the user first."""
        answer = await ctx.elicit("Who?", Booking)
        return f"booked for {answer.name if answer else 'nobody'}"

    return app


def build_server(version: Any) -> ServerBase:
    """The same failures in a revision's typed ``Server`` with ``Tools``."""
    t = version.types
    tools = version.Tools()
    empty = {"type": "object"}

    @tools.tool(t.Tool(name="crash", input_schema=empty))
    async def crash(args: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError(SECRET)

    @tools.tool(t.Tool(name="refuse", input_schema=empty))
    async def refuse(args: dict[str, Any], ctx: Any) -> Any:
        raise ToolError("out of stock")

    class Typed(version.Server):  # type: ignore[misc,name-defined]
        name = "typed"

        async def list_tools(self, params: Any, ctx: Any) -> Any:
            return t.ListToolsResult(tools=tools.definitions())

        async def call_tool(self, params: Any, ctx: Any) -> Any:
            return await tools.call(params, ctx)

    server: ServerBase = Typed()
    return server


Wire = list[dict[str, Any]]
Call = Callable[[str], Any]


@asynccontextmanager
async def initialize_era(server: ServerBase) -> AsyncIterator[tuple[Call, Wire]]:
    """A 2025-11-25 client on ``server``: (call a tool, the frames the client read)."""
    client = v2025_11_25.Client(timeout=STEP_S)
    async with connected(server, client) as (client, wire, _):

        async def call(name: str) -> Any:
            return await client.call_tool(name=name, arguments={"item": "tea"})

        yield call, wire.received


@asynccontextmanager
async def stateless_era(server: ServerBase) -> AsyncIterator[tuple[Call, Wire]]:
    """A 2026-07-28 client on ``server``: (call a tool, the frames the client read)."""
    async with served(server) as end:
        client = EraClient(timeout=STEP_S)
        await connect_stateless(client, end)

        async def call(name: str) -> Any:
            return await client.call_tool(name=name, arguments={"item": "tea"})

        try:
            yield call, end.received
        finally:
            await client.close()


ERAS = {"2025-11-25": (v2025_11_25, initialize_era), "2026-07-28": (v2026_07_28, stateless_era)}


def _answer(wire: Wire) -> dict[str, Any]:
    """The last response the client read, as on the wire."""
    frame: dict[str, Any] = [f for f in wire if "id" in f and "method" not in f][-1]
    return frame


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("face", ["app", "typed"])
async def test_an_unexpected_exception_is_logged_and_answered_without_its_text(
    era: str, face: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The client reads isError with "internal error in tool crash"; the server logs the
    exception with its traceback on the tools module's logger."""
    version, connect = ERAS[era]
    server = build_app(version).server() if face == "app" else build_server(version)
    caplog.set_level(logging.ERROR)
    async with connect(server) as (call, wire):
        await call("crash")
        result = _answer(wire)["result"]
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "internal error in tool crash"}]
    assert SECRET not in json.dumps(wire)
    (record,) = [r for r in caplog.records if r.name == TOOLS_LOGGER]
    assert record.levelno == logging.ERROR and "crash" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
    assert SECRET in caplog.text  # the traceback, with the exception's text, stays on the server


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("face", ["app", "typed"])
async def test_a_tool_error_reaches_the_client_as_said_and_is_not_logged(
    era: str, face: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``ToolError``'s message is the error result's text, for the model to read."""
    version, connect = ERAS[era]
    server = build_app(version).server() if face == "app" else build_server(version)
    caplog.set_level(logging.DEBUG)
    async with connect(server) as (call, wire):
        await call("refuse")
        result = _answer(wire)["result"]
    assert result["isError"] is True
    said = "tea is out of stock" if face == "app" else "out of stock"
    assert result["content"] == [{"type": "text", "text": said}]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("era", ERAS)
async def test_an_mcp_error_from_an_app_tool_is_a_protocol_error(era: str) -> None:
    """An ``MCPError`` a tool raises is answered as the JSON-RPC error it names."""
    version, connect = ERAS[era]
    async with connect(build_app(version).server()) as (call, wire):
        with pytest.raises(MCPError):
            await call("forbidden")
        error = _answer(wire)["error"]
    assert (error["code"], error["message"]) == (-32602, "forbidden here")


async def test_an_app_tool_asks_the_2026_client_in_rounds() -> None:
    """On 2026-07-28 ``ctx.elicit`` in an app tool is a multi round-trip request, not a failure."""
    async with stateless_era(build_app(v2026_07_28).server()) as (call, wire):
        result = await call("book")
    assert result.is_error is not True
    booked = {"type": "text", "text": "booked for name-answer"}
    assert msgspec.to_builtins(result.content) == [booked]
    kinds = [f["result"].get("resultType") for f in wire if "result" in f]
    assert kinds[-2:] == ["input_required", "complete"]


async def test_a_failing_handler_does_not_send_its_exception_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Outside tools too, an initialize-era handler's exception is logged, and the client reads
    a JSON-RPC internal error without its text (as on 2026-07-28)."""

    class Broken(v2025_11_25.Server):
        """Its resources/list fails as a bug would."""

        async def list_resources(self, params: Any, ctx: Any) -> Any:
            raise RuntimeError(SECRET)

    caplog.set_level(logging.ERROR)
    async with connected(Broken(), v2025_11_25.Client(timeout=STEP_S)) as (client, wire, _):
        with pytest.raises(MCPError):
            await client.list_resources()
    error = _answer(wire.received)["error"]
    assert (error["code"], error["message"]) == (-32603, "Internal error")
    assert SECRET not in json.dumps(wire.received)
    assert SECRET in caplog.text


def test_every_runtime_logger_is_named_by_its_module() -> None:
    """``logging.getLogger(__name__)``: in a generated package each runtime module logs under
    ``<pkg>._runtime.<module>``, so an application configures the package's loggers at once."""
    wrong = []
    for info in pkgutil.walk_packages(generated._runtime.__path__, "generated._runtime."):
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            if isinstance(value, logging.Logger) and value.name != info.name:
                wrong.append(f"{info.name}.{attr} is named {value.name!r}")
    assert not wrong
