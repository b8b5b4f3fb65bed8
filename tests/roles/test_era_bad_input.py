"""The frames that once ended a server (#9), sent to the 2026-07-28 paths of a dual-era server.

The stateless era reads each message generically (no session core in front of it), so the
UTF-8, nesting and junk checks must hold there too: over stdio (one process, both eras) and
over HTTP (a 2026-07-28 ``MCP-Protocol-Version``). Each frame is answered with its error and the
server still answers ``server/discover`` afterwards. An id that is no string or integer (#16)
is -32600 with id null in every era, on stdio servers of each kind and over HTTP.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from generated._runtime.core.errors import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from generated._runtime.transports.stdio import spawn_server
from tests.core.test_harden_decode import (
    BAD_UTF8_METHOD,
    BAD_UTF8_PARAMS,
    DEEP_ARRAY,
    DEEP_PARAMS,
    TRAILING_JUNK,
)
from tests.core.test_harden_fuzz import STDIO_SERVERS, http_answers
from tests.support.era_support import EchoHandshake, FixtureServer
from tests.support.http_support import Raw, serve
from tests.support.runtime_support import STEP_S, RawPeer
from tests.transports.http.test_era_http_wire import META, headers

ROOT = Path(__file__).resolve().parents[2]
START_S = 30.0
"""How long a server process may take to start and answer its first frame."""
CASES = [
    (BAD_UTF8_METHOD, PARSE_ERROR),
    (BAD_UTF8_PARAMS, PARSE_ERROR),
    (DEEP_ARRAY, INVALID_REQUEST),
    (DEEP_PARAMS, INVALID_REQUEST),
    *[(junk, PARSE_ERROR) for junk in TRAILING_JUNK],
]


def discover(id_: Any) -> dict[str, Any]:
    """A 2026-07-28 ``server/discover`` request."""
    return {"jsonrpc": "2.0", "id": id_, "method": "server/discover", "params": {"_meta": META}}


async def test_dual_era_stdio_server_answers_bad_frames_and_keeps_serving() -> None:
    """Each bad frame gets its error (id null); the stateless era still answers after each."""
    transport = await spawn_server(
        sys.executable, ["-m", "tests.support.era_fixture_server", "stdio"], cwd=str(ROOT)
    )
    raw = RawPeer(transport)
    try:
        for n, (frame, code) in enumerate(CASES):
            await raw.send(frame)
            reply = await raw.recv(START_S if n == 0 else STEP_S)
            assert reply["id"] is None and reply["error"]["code"] == code, (frame[:40], reply)
            await raw.send(discover(f"d{n}"))
            answer = await raw.recv()
            assert answer["id"] == f"d{n}" and "supportedVersions" in answer["result"], answer
    finally:
        await transport.close()


async def test_stateless_http_posts_of_bad_bodies_get_400_and_the_server_keeps_serving() -> None:
    """A stateless POST of each bad body: 400 with the JSON-RPC error, never a 500 or a hang."""
    async with (
        serve([FixtureServer(), EchoHandshake()]) as (_, url),
        httpx.AsyncClient(base_url=url, timeout=STEP_S) as http,
    ):
        for frame, code in CASES:
            response = await http.post("/mcp", content=frame, headers=headers("server/discover"))
            assert response.status_code == 400, (frame[:40], response.status_code)
            assert response.json()["error"]["code"] == code, (frame[:40], response.text)
        ok = await http.post(
            "/mcp", content=json.dumps(discover(1)), headers=headers("server/discover")
        )
        assert ok.status_code == 200 and "supportedVersions" in ok.json()["result"], ok.text


BAD_IDS: list[Any] = [[], {"a": 1}, 1.5, True, [1], {}]
"""Ids that are no string or integer: each request carrying one is -32600 with id null."""
INVALID_ID = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST}}


def ping(id_: Any) -> dict[str, Any]:
    """An initialize-era ``ping``."""
    return {"jsonrpc": "2.0", "id": id_, "method": "ping"}


def refused_for_its_id(reply: Any) -> bool:
    """Whether ``reply`` is the -32600 error addressed to no id."""
    return (
        isinstance(reply, dict)
        and reply.get("jsonrpc") == "2.0"
        and "id" in reply
        and reply["id"] is None
        and isinstance(reply.get("error"), dict)
        and reply["error"].get("code") == INVALID_REQUEST
    )


async def bad_ids_then(raw: RawPeer, alive: Callable[[str], Awaitable[None]], first: float) -> None:
    """Send ``ping`` and ``server/discover`` with each bad id; after each, ``alive`` passes."""
    for n, bad in enumerate(BAD_IDS):
        for make in (ping, discover):
            await raw.send(make(bad))
            reply = await raw.recv(first if n == 0 else STEP_S)
            assert refused_for_its_id(reply), (make(bad), reply)
            await alive(f"{make.__name__}-{n}")


def answers_discover(raw: RawPeer) -> Callable[[str], Awaitable[None]]:
    """A liveness probe: ``server/discover`` gets its result."""

    async def probe(id_: str) -> None:
        await raw.send(discover(id_))
        answer = await raw.recv()
        assert answer["id"] == id_ and "supportedVersions" in answer["result"], answer

    return probe


def answers_ping(raw: RawPeer) -> Callable[[str], Awaitable[None]]:
    """A liveness probe: an initialize-era ``ping`` gets ``{}``."""

    async def probe(id_: str) -> None:
        await raw.send(ping(id_))
        assert await raw.recv() == {"jsonrpc": "2.0", "id": id_, "result": {}}

    return probe


@pytest.mark.parametrize("kind", sorted(STDIO_SERVERS))
async def test_stdio_servers_refuse_ids_of_other_types_and_keep_serving(kind: str) -> None:
    """Array, object, float and bool ids: -32600, id null, before and after ``initialize``."""
    transport = await spawn_server(sys.executable, STDIO_SERVERS[kind], cwd=str(ROOT))
    raw = RawPeer(transport)
    try:
        if kind != "initialize-era":  # the stateless era, before any initialize
            await bad_ids_then(raw, answers_discover(raw), START_S)
        if kind != "stateless":
            await raw.initialize("2025-11-25" if kind != "initialize-era" else "2025-06-18")
            await bad_ids_then(raw, answers_ping(raw), START_S)
        if kind in ("dual-era", "demo"):  # both eras on the connection now
            await bad_ids_then(raw, answers_discover(raw), START_S)
    finally:
        await transport.close()
    assert transport.process.returncode == 0, transport.exit_description()


async def test_http_refuses_ids_of_other_types_in_both_eras() -> None:
    """A stateless POST and a POST in an initialize-era session: 400, -32600, id null, no crash."""
    async with (
        serve([FixtureServer(), EchoHandshake()]) as (_, url),
        httpx.AsyncClient(base_url=url, timeout=STEP_S) as http,
    ):
        handshake = Raw(http)
        await handshake.start("2025-11-25")
        for bad in BAD_IDS:
            body = json.dumps(discover(bad))
            stateless = await http.post("/mcp", content=body, headers=headers("server/discover"))
            assert stateless.status_code == 400, (bad, stateless.status_code, stateless.text)
            assert refused_for_its_id(stateless.json()), (bad, stateless.text)
            old = await handshake.post(ping(bad), mcp_protocol_version="2025-11-25")
            assert old.status_code == 400, (bad, old.status_code, old.text)
            assert refused_for_its_id(old.json()), (bad, old.text)
        ok = await http.post(
            "/mcp", content=json.dumps(discover(1)), headers=headers("server/discover")
        )
        assert ok.status_code == 200 and "supportedVersions" in ok.json()["result"], ok.text
        pong = await handshake.post(ping(2), mcp_protocol_version="2025-11-25")
        assert http_answers(pong) == [{"jsonrpc": "2.0", "id": 2, "result": {}}], pong.text


async def test_dual_era_stdio_stream_routes_each_frame_before_initialize() -> None:
    """Before ``initialize``: a batch, a stateless-``_meta`` ``initialize`` go stateless."""
    transport = await spawn_server(
        sys.executable, ["-m", "tests.support.era_fixture_server", "stdio"], cwd=str(ROOT)
    )
    raw = RawPeer(transport)
    init_params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    try:
        await raw.send([discover("b1")])
        reply = await raw.recv(START_S)
        assert reply["id"] is None and reply["error"]["code"] == INVALID_REQUEST, reply
        stateless_init = {**init_params, "_meta": META}
        await raw.send(
            {"jsonrpc": "2.0", "id": "i0", "method": "initialize", "params": stateless_init}
        )
        reply = await raw.recv()
        assert reply["id"] == "i0" and reply["error"]["code"] == METHOD_NOT_FOUND, reply
        await raw.send(
            {"jsonrpc": "2.0", "id": "i1", "method": "initialize", "params": init_params}
        )
        reply = await raw.recv()
        assert reply["id"] == "i1" and reply["result"]["protocolVersion"] == "2025-11-25", reply
        await raw.send(discover("d1"))
        answer = await raw.recv()
        assert answer["id"] == "d1" and "supportedVersions" in answer["result"], answer
    finally:
        await transport.close()
