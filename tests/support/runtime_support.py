"""Helpers of the runtime behaviour tests: frame recording, a raw peer, and sample servers."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from generated import v2025_03_26 as v0326
from generated._runtime.core.transport import Outbound, Transport
from generated._runtime.roles.client import ClientBase
from generated._runtime.roles.server import CapabilityError, ServerBase
from generated._runtime.transports.memory import memory_pair
from generated.v2025_03_26 import types as t0326
from generated.v2025_06_18 import Client, Server, ServerContext
from generated.v2025_06_18 import methods as m
from generated.v2025_06_18 import types as t

STEP_S = 30.0
"""The longest any single wait in these tests may take before it counts as a hang.

An upper bound, never a sleep: generous, so a machine loaded by other test processes passes.
"""


async def wait_until(
    check: Callable[[], Awaitable[bool]] | Callable[[], bool], timeout: float = STEP_S
) -> None:
    """Poll ``check`` (sync or async) until it is true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        outcome = check()
        if isinstance(outcome, Awaitable):
            outcome = await outcome
        if outcome:
            return
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {check}")
        await asyncio.sleep(0.02)


class Recorder:
    """Wraps a transport and records every frame written and read, decoded."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.sent: list[Any] = []
        self.received: list[Any] = []

    async def read(self) -> bytes | None:
        """Read a frame from the wrapped transport and record it."""
        frame = await self.inner.read()
        if frame is not None:
            self.received.append(json.loads(frame))
        return frame

    async def write(self, message: Outbound, related: str | int | None = None) -> None:
        """Record a message and write it to the wrapped transport (``related`` passed on)."""
        self.sent.append(json.loads(message.data))
        if related is None:
            await self.inner.write(message)
        else:
            await self.inner.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass the negotiated version on."""
        self.inner.negotiated(version)

    async def close(self) -> None:
        """Close the wrapped transport."""
        await self.inner.close()


def methods(frames: list[Any]) -> list[str]:
    """The ``method`` of each frame that has one (requests and notifications)."""
    return [f["method"] for f in frames if isinstance(f, dict) and "method" in f]


def responses(frames: list[Any], id_: Any) -> list[Any]:
    """The responses (results and errors) among ``frames`` that carry ``id_``."""
    return [f for f in frames if isinstance(f, dict) and "method" not in f and f.get("id") == id_]


class RawPeer:
    """One end of a connection driven by hand: send any bytes, read frames back."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    async def send(self, value: Any) -> None:
        """Send ``value`` (bytes as they are, anything else as JSON)."""
        frame = value if isinstance(value, bytes) else json.dumps(value).encode()
        await self.transport.write(frame)

    async def recv(self, timeout: float = STEP_S) -> Any:
        """Return the next frame, decoded; fail if none comes in time or the peer closed."""
        frame = await asyncio.wait_for(self.transport.read(), timeout)
        assert frame is not None, "the peer closed the connection"
        return json.loads(frame)

    async def silent(self, delay: float = 0.05) -> None:
        """Assert that no frame arrives within ``delay`` seconds."""
        with contextlib.suppress(TimeoutError):
            frame = await asyncio.wait_for(self.transport.read(), delay)
            raise AssertionError(f"unexpected frame: {frame!r}")

    async def call(self, id_: Any, method: str, params: Any = None) -> Any:
        """Send a request and return the next frame (its response)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.recv()

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def initialize(
        self, version: str = "2025-06-18", capabilities: dict[str, Any] | None = None
    ) -> Any:
        """Run the client's side of the handshake; return the initialize result."""
        params = {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        reply = await self.call(0, "initialize", params)
        assert "result" in reply, reply
        await self.notify("notifications/initialized")
        return reply["result"]

    async def assert_serving(self, id_: Any = "alive") -> None:
        """Prove the server still serves: a valid tools/call gets its result."""
        reply = await self.call(id_, "tools/call", {"name": "echo", "arguments": {"x": id_}})
        assert reply == {"jsonrpc": "2.0", "id": id_, "result": text_result({"x": id_})}


def text_result(value: Any) -> dict[str, Any]:
    """The JSON of the result the echo tool returns for ``value``."""
    return {"content": [{"type": "text", "text": json.dumps(value)}]}


def text(value: Any) -> t.CallToolResult:
    """A tool result with one text item: ``value`` as JSON."""
    return t.CallToolResult(content=[t.TextContent(text=json.dumps(value))])


def first_text(result: t.CallToolResult) -> Any:
    """The first text item of a tool result, decoded from JSON."""
    item = result.content[0]
    assert isinstance(item, t.TextContent)
    return json.loads(item.text)


class EchoServer(Server):
    """A 2025-06-18 server with tools that echo, sleep, block, report progress and log."""

    name = "echo-server"
    version = "1.2.3"

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.refusals: list[str] = []

    async def list_tools(
        self, params: t.ListToolsRequestParams, ctx: ServerContext
    ) -> t.ListToolsResult:
        """List one tool."""
        return t.ListToolsResult(tools=[t.Tool(name="echo", input_schema={"type": "object"})])

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run one of the test tools named by ``params.name``."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name == "echo":
            return text(args)
        if params.name == "sleep":
            await asyncio.sleep(args["s"])
            return text(args["tag"])
        if params.name == "block":
            self.started.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if params.name == "progress":
            for step in range(1, args["n"] + 1):
                await ctx.progress(step, args["n"], f"step {step}")
            return text("done")
        if params.name == "log":
            for level in args["levels"]:
                await ctx.log(level, {"at": level}, args.get("logger"))
            return text("logged")
        if params.name == "sample":
            return await self._sample(ctx, args.get("timeout"))
        if params.name == "ping_client":
            return text(await ctx.request(m.PING, None))
        raise AssertionError(f"no tool {params.name}")

    async def _sample(self, ctx: ServerContext, timeout: float | None) -> t.CallToolResult:
        """Ask the client for a completion; record a local refusal."""
        message = t.SamplingMessage(role="user", content=t.TextContent(text="hi"))
        try:
            reply = await ctx.create_message(messages=[message], max_tokens=5, timeout=timeout)
        except CapabilityError as exc:
            self.refusals.append(str(exc))
            return text("refused")
        assert isinstance(reply.content, t.TextContent)
        return text(reply.content.text)


@contextlib.asynccontextmanager
async def serving(server: ServerBase, *more: ServerBase) -> AsyncIterator[RawPeer]:
    """Serve ``server`` (and ``more`` revisions) over memory; yield the client end, raw."""
    client_end, server_end = memory_pair()
    task = asyncio.create_task(server.serve(server_end, *more))
    try:
        yield RawPeer(client_end)
    finally:
        await client_end.close()
        await asyncio.wait_for(task, STEP_S)


@contextlib.asynccontextmanager
async def connected(
    server: ServerBase, client: ClientBase | None = None
) -> AsyncIterator[tuple[Any, Recorder, Recorder]]:
    """Connect ``client`` to ``server`` over memory; yield it and both ends' recorders."""
    client = client if client is not None else Client(name="test-client", timeout=STEP_S)
    client_end, server_end = memory_pair()
    on_client, on_server = Recorder(client_end), Recorder(server_end)
    task = asyncio.create_task(server.serve(on_server))
    try:
        await asyncio.wait_for(client.connect(on_client), STEP_S)
        yield client, on_client, on_server
    finally:
        await asyncio.wait_for(client.close(), STEP_S)
        await asyncio.wait_for(task, STEP_S)


class Echo0326(v0326.Server):
    """A 2025-03-26 server with the echo tool (the older revision of two-revision tests)."""

    name = "echo-0326"

    async def call_tool(
        self, params: t0326.CallToolRequestParams, ctx: v0326.ServerContext
    ) -> t0326.CallToolResult:
        """Echo the arguments as JSON text; the ``sleep`` tool waits first."""
        args: dict[str, Any] = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name == "sleep":
            await asyncio.sleep(args["s"])
        return t0326.CallToolResult(content=[t0326.TextContent(text=json.dumps(args))])


def init_result(version: str) -> dict[str, Any]:
    """A minimal initialize result naming ``version`` (for fake servers)."""
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "fake", "version": "0"},
    }
