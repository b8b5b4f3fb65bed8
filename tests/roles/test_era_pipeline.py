"""One request pipeline for both eras, on one stream (memory transport, in process).

A stateless request is refused or admitted by the session's ``STATELESS`` rows (``_meta``
version and capabilities, the versions served), meets its handler through ``dispatch.py``
with typed params, and is cancelled by ``notifications/cancelled`` on a stream that also runs
a handshake session. Which era a request belongs to is one rule (``era.is_stateless``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from generated._runtime.core.lifecycle import Phase, Served
from generated._runtime.core.session import Session
from generated._runtime.roles.era import is_stateless
from generated._runtime.transports.memory import memory_pair
from generated.v2025_11_25 import Server as HandshakeServer
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import methods as m0728
from generated.v2026_07_28 import types as t
from tests.support.http_support import bounded
from tests.support.runtime_support import RawPeer

V = "2026-07-28"
META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Slow(Server):
    """A stateless server whose ``slow`` tool waits until released; it records its params."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.seen: list[object] = []

    async def call_tool(self, params: t.CallToolRequestParams, ctx: ServerContext) -> Any:
        """Record the params; wait for ``slow``."""
        self.seen.append(params)
        if params.name == "slow":
            await self.release.wait()
        return t.CallToolResult(content=[t.TextContent(text=params.name)])


class Handshake(HandshakeServer):
    """A handshake-era server with one tool."""

    async def call_tool(self, params: t25.CallToolRequestParams, ctx: Any) -> Any:
        """Answer every call."""
        return t25.CallToolResult(content=[t25.TextContent(text="handshake")])


@pytest.fixture
async def stream() -> AsyncIterator[tuple[RawPeer, Slow]]:
    """A stream served by both eras (as ``ServerBase.serve`` runs stdio)."""
    client_end, server_end = memory_pair()
    server = Slow()
    task = asyncio.create_task(server.serve(server_end, Handshake()))
    try:
        yield RawPeer(client_end), server
    finally:
        await client_end.close()
        task.cancel()


def call(id_: Any, name: str) -> dict[str, Any]:
    """A stateless ``tools/call``."""
    params = {"name": name, "arguments": {}, "_meta": META}
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


@bounded
async def test_cancelling_a_stateless_request_after_initialize(
    stream: tuple[RawPeer, Slow],
) -> None:
    """After ``initialize`` opened the stream's session, ``notifications/cancelled`` for a
    stateless request in flight still cancels it: no answer comes for it."""
    raw, server = stream
    await raw.initialize("2025-11-25")
    await raw.send(call(5, "slow"))
    for _ in range(20):
        await asyncio.sleep(0)
    await raw.notify("notifications/cancelled", {"requestId": 5})
    for _ in range(20):
        await asyncio.sleep(0)
    server.release.set()
    reply = await raw.call(6, "tools/call", call(6, "fast")["params"])
    assert reply["id"] == 6 and reply["result"]["content"][0]["text"] == "fast"
    await raw.silent()


@bounded
async def test_after_initialize_each_request_goes_to_the_era_its_meta_names(
    stream: tuple[RawPeer, Slow],
) -> None:
    """Once the session is open, a request without ``_meta`` or with a handshake version or
    only a progress token in it is the session's; one naming the stateless version, typed
    the same way, is the stateless connection's."""
    raw, _ = stream
    await raw.initialize("2025-11-25")
    session_metas: list[Any] = [
        None,
        {"progressToken": "p1"},
        {"io.modelcontextprotocol/protocolVersion": "2025-11-25"},
    ]
    for n, meta in enumerate(session_metas):
        params: dict[str, Any] = {"name": "any", "arguments": {}}
        if meta is not None:
            params["_meta"] = meta
        reply = await raw.call(n, "tools/call", params)
        assert reply["result"]["content"][0]["text"] == "handshake", meta
        assert "resultType" not in reply["result"]
    reply = await raw.call(9, "tools/call", call(9, "stateless")["params"])
    assert reply["result"]["content"][0]["text"] == "stateless"
    assert reply["result"]["resultType"] == "complete"


@bounded
async def test_stateless_params_reach_the_handler_typed_and_meta_is_checked(
    stream: tuple[RawPeer, Slow],
) -> None:
    """The handler gets the method's params type; ``_meta`` rows refuse before it runs."""
    raw, server = stream
    reply = await raw.call(1, "tools/call", call(1, "fast")["params"])
    assert reply["result"]["resultType"] == "complete"
    assert type(server.seen[-1]) is t.CallToolRequestParams
    before = len(server.seen)
    bare = {"name": "fast", "_meta": {"io.modelcontextprotocol/protocolVersion": V}}
    refused = await raw.call(2, "tools/call", bare)
    assert refused["error"]["code"] == -32602
    assert "clientCapabilities" in refused["error"]["message"]
    other = {"name": "fast", "_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2099"}}
    unsupported = await raw.call(3, "tools/call", other)
    assert unsupported["error"]["code"] == -32022
    assert unsupported["error"]["data"] == {
        "supported": [V, "2025-11-25"],
        "requested": "2099",
    }
    assert len(server.seen) == before


def test_the_stateless_rows_are_the_sessions() -> None:
    """A session serving a stateless face checks ``_meta`` itself (no role in between)."""
    served = Served(frozenset({V}), (V,))
    session = Session(m0728.METHODS, role="server", phase=Phase.STATELESS, served=served)
    frame = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    [violation] = session.receive(frame)
    assert b"_meta is required" in session.data_to_send()[0]
    assert getattr(violation, "id", None) == 1


@pytest.mark.parametrize(
    ("stated", "meta", "in_session", "otherwise", "expected"),
    [
        ("2026-07-28", None, True, False, True),  # the stated version decides first
        ("2025-11-25", V, False, True, False),
        (None, V, True, False, False),  # an HTTP session keeps its requests
        (None, V, False, False, True),  # a stateless _meta version
        (None, "2025-11-25", False, True, False),  # a handshake version in _meta
        (None, None, False, True, True),  # nothing said: the transport's default
        (None, None, False, False, False),
    ],
)
def test_one_rule_decides_the_era(
    stated: str | None, meta: str | None, in_session: bool, otherwise: bool, expected: bool
) -> None:
    """``is_stateless`` for stdio and HTTP alike."""
    versions = frozenset({"2025-11-25", "2025-06-18"})
    got = is_stateless(stated, meta, versions, in_session=in_session, otherwise=otherwise)
    assert got is expected


class Finishing(Server):
    """A stateless server whose results carry their own ``_meta`` and cache hints."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {"example.com/trace": "t1"}

    async def call_tool(self, params: t.CallToolRequestParams, ctx: ServerContext) -> Any:
        """A result with the handler's own ``_meta``."""
        return t.CallToolResult(content=[t.TextContent(text="x")], meta=self.meta)

    async def list_tools(self, params: Any, ctx: ServerContext) -> Any:
        """Tools out of order, with the handler's own ``ttlMs``."""
        schema: dict[str, Any] = {"type": "object"}
        tools = [t.Tool(name=n, input_schema=schema) for n in ("b", "c", "a")]
        return t.ListToolsResult(tools=tools, ttl_ms=5)


@bounded
async def test_results_are_finished_without_losing_the_handlers_members() -> None:
    """A typed result gets ``resultType``, serverInfo in ``_meta`` beside the handler's own
    keys (the handler's dict left as it was), and cache hints where it set none; a page of
    tools is sorted by name."""
    from generated._runtime.roles.stateless import StatelessServer

    server = Finishing()
    face = StatelessServer(server)

    async def answer(method: str) -> dict[str, Any]:
        frame = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META}}
        if method == "tools/call":
            frame["params"] = {"name": "x", "arguments": {}, "_meta": META}
        reply = await face.answer(json.dumps(frame).encode())
        assert reply.response is not None
        result: dict[str, Any] = json.loads(reply.response.data)["result"]
        return result

    called = await answer("tools/call")
    assert called["resultType"] == "complete"
    assert called["_meta"]["example.com/trace"] == "t1"
    assert called["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
    assert server.meta == {"example.com/trace": "t1"}
    listed = await answer("tools/list")
    assert [tool["name"] for tool in listed["tools"]] == ["a", "b", "c"]
    assert (listed["ttlMs"], listed["cacheScope"]) == (5, "private")
    assert "io.modelcontextprotocol/serverInfo" in listed["_meta"]
