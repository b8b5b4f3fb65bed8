"""``mcpgen bridge`` relays frames as they are when the client asks for the upstream's revision.

The real command, as a subprocess, between a raw JSON-lines client and ``raw_server.py``
(2025-06-18, its bytes its own): what each side sends arrives byte for byte, unknown members
included; the guard still answers what the client sends wrong (nothing reaches the upstream);
the upstream's questions reach a client that declared them and are refused (as the converting
bridge refuses them) for one that did not; cancellations reach the upstream; ids the bridge
used upstream are not reused. The official SDK's client, pinned to 2025-06-18, runs a whole
session through the relay; a 2025-03-26 client still gets the converting bridge. The
lifecycle of the relayed path (upstream gone, client gone) is ``test_bridge_lifecycle.py``'s,
whose 2025-06-18 client is relayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest

from tests.bridge.test_bridge_lifecycle import Downstream, bridge
from tests.bridge.test_bridge_stdio import DEMO, PYTHON, sdk_pinned, text

ROOT = Path(__file__).resolve().parents[2]
RAW = [sys.executable, str(ROOT / "tests" / "bridge" / "raw_server.py")]
UPSTREAM_EXTRA = b'"x-server-extra": {"kept":  true}'
RESULT_EXTRA = b'"x-result-extra": {"b": 1,  "a": [1 ,2]}'


async def tool(client: Downstream, request_id: Any, name: str) -> dict[str, Any]:
    """Call a tool of the raw server; its answer."""
    params: dict[str, Any] = {"name": name, "arguments": {}}
    await client.send(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    )
    return await client.answer(request_id)


async def seen_upstream(client: Downstream, request_id: Any) -> list[dict[str, Any]]:
    """Every message the upstream received, decoded."""
    answered = await tool(client, request_id, "seen")
    return [json.loads(line) for line in json.loads(answered["result"]["content"][0]["text"])]


@contextlib.asynccontextmanager
async def bridged(
    revision: str = "2025-06-18", capabilities: dict[str, Any] | None = None
) -> AsyncGenerator[tuple[Downstream, bytes]]:
    """The bridge to the raw server, a client of ``revision`` initialized; its initialize line."""
    async with bridge(RAW, revision, capabilities) as client:
        yield client, client.initialized


def requests_of(seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests among what the upstream received."""
    return [m for m in seen if "method" in m and "id" in m]


async def test_unknown_members_arrive_byte_for_byte() -> None:
    """The upstream's initialize result and a tool result, and the client's request, pass as
    they were written (odd spacing and unknown members kept)."""
    async with bridged() as (client, initialized):
        assert UPSTREAM_EXTRA in initialized, initialized
        sent = (
            b'{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"echo_frame",'
            b'"arguments":{},"x-client-extra": {"z": 1,  "y": [true ,null]}}, "x-top":  "kept"}'
        )
        await client.write(sent)
        line = await client.reply(100)
        expected = (
            b'{"jsonrpc":"2.0","id":100,"result":{"content":[{"type":"text","text":'
            + json.dumps(sent.decode()).encode()
            + b"}],"
            + RESULT_EXTRA
            + b"}}"
        )
        assert line == expected
        seen = await seen_upstream(client, 101)
        assert [m["method"] for m in seen].count("notifications/initialized") == 1, seen


async def test_ids_the_bridge_used_upstream_are_not_reused() -> None:
    """A client request with an id the bridge used upstream goes under another and is answered
    under its own; no request id reaches the upstream twice."""
    async with bridged() as (client, _):
        for request_id in (1, 2, 3, "mcpgen-bridge:i2", 4):
            answered = await tool(client, request_id, "echo_frame")
            assert answered["id"] == request_id and "result" in answered, answered
        ids = [json.dumps(m["id"]) for m in requests_of(await seen_upstream(client, 5))]
        assert len(ids) == len(set(ids)), ids


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-03-26"])
async def test_questions_refused_for_a_client_without_the_capability(revision: str) -> None:
    """Sampling asked of a client that did not declare it: the upstream gets -32603 naming the
    capability, relayed (2025-06-18) as converted (2025-03-26)."""
    async with bridged(revision) as (client, _):
        answered = await tool(client, 7, "ask")
        refused = json.loads(answered["result"]["content"][0]["text"])
        assert refused["error"]["code"] == -32603, refused
        assert "'sampling'" in refused["error"]["message"], refused
        # the session goes on
        assert "result" in await tool(client, 8, "echo_frame")


@pytest.mark.parametrize(
    ("tool", "method"), [("ask", "sampling/createMessage"), ("elicit", "elicitation/create")]
)
async def test_questions_reach_a_client_that_declared_them(tool: str, method: str) -> None:
    """The upstream's sampling and elicitation requests reach the client as they were sent,
    and its answer reaches the upstream as it was written."""
    capabilities: dict[str, Any] = {"sampling": {}, "elicitation": {}}
    async with bridged(capabilities=capabilities) as (client, _):
        params: dict[str, Any] = {"name": tool, "arguments": {}}
        await client.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
        asked = json.loads(await client.line())
        assert asked["method"] == method, asked
        reply = (
            b'{"jsonrpc":"2.0","id":'
            + json.dumps(asked["id"]).encode()
            + b',"result":{"x-answer":  1}}'
        )
        await client.write(reply)
        answered = json.loads(await client.reply(9))
        assert answered["result"]["content"][0]["text"] == reply.decode()


async def test_frames_under_mapped_ids_keep_every_member() -> None:
    """A request, its answer and its cancellation that change ids on the way keep every other
    member: unknown top-level ones included, params and results byte for byte."""
    params = b'{"name":"echo_frame_top","arguments":{},"x-client-extra": {"z": 1,  "y": [true]}}'
    async with bridged() as (client, _):
        for request_id in (b"2", b'"mcpgen-bridge:s"'):  # 2: an id the bridge used upstream
            sent = (
                b'{"jsonrpc":"2.0","id":' + request_id + b',"x-top": ["kept" ,1],'
                b'"method":"tools/call","params":' + params + b"}"
            )
            await client.write(sent)
            line = await client.reply(json.loads(request_id))
            answered = json.loads(line)
            assert answered["id"] == json.loads(request_id), answered
            assert answered["x-answer-top"] == {"kept": [1, 2]}, line
            assert RESULT_EXTRA in line, line
            upstream = answered["result"]["content"][0]["text"].encode()
            assert json.loads(upstream)["id"] != answered["id"], upstream
            assert json.loads(upstream)["x-top"] == ["kept", 1], upstream
            assert b'"params":' + params in upstream, upstream
        await client.write(
            b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep"}}'
        )
        await client.write(
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","x-top": {"a":  1},'
            b'"params":{"requestId":3,"x-why": [1 ,2]}}'
        )
        seen = await seen_upstream(client, 31)
        (slept,) = [m["id"] for m in requests_of(seen) if m["params"].get("name") == "sleep"]
        (cancel,) = [m for m in seen if m.get("method") == "notifications/cancelled"]
        assert cancel["params"] == {"requestId": slept, "x-why": [1, 2]}, cancel
        assert cancel["x-top"] == {"a": 1} and slept != 3, cancel


async def test_full_pipes_hold_frames_in_order() -> None:
    """A client that writes more than every buffer holds before it reads: the writes to full
    pipes wait (the bridge reads no more meanwhile), and every answer arrives, in order."""
    calls, pad = 2000, "x" * 5000  # 10 MB each way: more than every bound and pipe holds
    async with bridged() as (client, _):

        async def send_all() -> None:
            for n in range(calls):
                params = {"name": "echo_frame", "arguments": {"pad": pad, "n": n}}
                await client.send(
                    {"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/call", "params": params}
                )

        writer = asyncio.create_task(send_all())
        done, _ = await asyncio.wait({writer}, timeout=2.0)
        assert not done, "the bridge took 10 MB without the client reading"
        for n in range(calls):
            answered = json.loads(await client.line())
            assert answered["id"] == 1000 + n, answered
            echoed = json.loads(answered["result"]["content"][0]["text"])
            assert echoed["params"]["arguments"] == {"pad": pad, "n": n}, n
        await writer
        assert "result" in await tool(client, 5, "echo_frame")


async def test_bad_frames_are_answered_and_the_session_goes_on() -> None:
    """An oversize, a truncated, a broken-UTF-8, a too-deep and a wrongly shaped frame are each
    answered with the servers' error; none reaches the upstream; the next call works."""
    async with bridged() as (client, _):
        bad = [
            (
                b'{"jsonrpc":"2.0","id":20,"method":"ping","params":{"pad":"'
                + b"x" * (16 * 1024 * 1024)
                + b'"}}',
                None,
                -32600,
            ),
            (b'{"jsonrpc":"2.0","id":21,"method":', None, -32700),
            (b'{"jsonrpc":"2.0","id":22,"method":"ping","params":{"x":"\xff"}}', None, -32700),
            (
                b'{"jsonrpc":"2.0","id":23,"method":"ping","params":'
                + b"[" * 200
                + b"]" * 200
                + b"}",
                None,
                -32600,
            ),
            (b'{"jsonrpc":"1.0","id":24,"method":"ping"}', 24, -32600),
        ]
        for frame, request_id, code in bad:
            await client.write(frame)
            refused = json.loads(await client.line())
            assert refused["id"] == request_id and refused["error"]["code"] == code, refused
        assert "result" in await tool(client, 25, "echo_frame")
        ids = [m["id"] for m in requests_of(await seen_upstream(client, 26))]
        assert not {20, 21, 22, 23, 24} & set(ids), ids


async def test_cancellation_reaches_the_upstream() -> None:
    """A client's cancellation reaches the upstream naming the request as it went there."""
    async with bridged() as (client, _):
        for request_id in (30, 3):  # 3: an id the bridge used, sent under another
            params: dict[str, Any] = {"name": "sleep", "arguments": {}}
            await client.send(
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            )
            cancel = {"requestId": request_id, "reason": "enough"}
            await client.send(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
            )
        seen = await seen_upstream(client, 31)
        sleeps = [m["id"] for m in requests_of(seen) if m["params"].get("name") == "sleep"]
        cancelled = [
            m["params"]["requestId"] for m in seen if m.get("method") == "notifications/cancelled"
        ]
        assert cancelled == sleeps and 30 in sleeps and 3 not in sleeps, seen


async def test_log_messages_below_the_client_level_are_dropped() -> None:
    """The bridge asked the upstream for every message: below ``info`` they stop at the relay
    until the client asks for ``debug``."""
    async with bridged() as (client, _):
        got: list[str] = []
        for request_id in (40, 42):
            params: dict[str, Any] = {"name": "log", "arguments": {}}
            await client.send(
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            )
            while "id" not in (message := json.loads(await client.line())):
                got.append(message["params"]["data"])
            if request_id == 40:
                await client.send(
                    {
                        "jsonrpc": "2.0",
                        "id": 41,
                        "method": "logging/setLevel",
                        "params": {"level": "debug"},
                    }
                )
                assert "result" in json.loads(await client.reply(41))
        assert got == ["at info", "at debug", "at info"]


async def test_another_revision_gets_the_converting_bridge() -> None:
    """A 2025-03-26 client's initialize is the bridge's own and its request is re-encoded."""
    async with bridged("2025-03-26") as (client, initialized):
        assert json.loads(initialized)["result"]["protocolVersion"] == "2025-03-26"
        assert UPSTREAM_EXTRA not in initialized
        sent = b'{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"echo_frame"}}'
        await client.write(sent)
        received = json.loads(await client.reply(100))["result"]["content"][0]["text"]
        assert json.loads(received)["params"]["name"] == "echo_frame" and received != sent.decode()


async def test_sdk_client_through_the_relay() -> None:
    """The SDK's client pinned to 2025-06-18 runs tools, elicitation and sampling through the
    relay to a 2025-06-18-only server."""
    async with sdk_pinned([PYTHON, DEMO, "--only", "2025-06-18"], "2025-06-18") as client:
        assert text(await client.call_tool("echo", {"text": "hello"})) == "hello"
        booked = await client.call_tool("book_table", {})
        assert text(booked).startswith("booked a table for"), booked
        summary = await client.call_tool("summarize", {"text": "milk; Ada"})
        assert text(summary) == "sdk-model says: Paris"
