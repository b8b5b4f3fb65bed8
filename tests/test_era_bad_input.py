"""The frames that once ended a server (#9), sent to the 2026-07-28 paths of a dual-era server.

The stateless era reads each message generically (no session core in front of it), so the
UTF-8, nesting and junk checks must hold there too: over stdio (one process, both eras) and
over HTTP (a modern ``MCP-Protocol-Version``). Each frame is answered with its error and the
server still answers ``server/discover`` afterwards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

from generated._runtime.core.errors import INVALID_REQUEST, PARSE_ERROR
from generated._runtime.transports.stdio import spawn_server
from tests.era_support import EchoLegacy, FixtureServer
from tests.http_support import serve
from tests.runtime_support import RawPeer
from tests.test_era_http_wire import META, headers
from tests.test_harden_decode import (
    BAD_UTF8_METHOD,
    BAD_UTF8_PARAMS,
    DEEP_ARRAY,
    DEEP_PARAMS,
    TRAILING_JUNK,
)

ROOT = Path(__file__).resolve().parent.parent
START_S = 20.0
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
    """Each bad frame gets its error (id null); the modern era still answers after each."""
    transport = await spawn_server(
        sys.executable, ["-m", "tests.era_fixture_server", "stdio"], cwd=str(ROOT)
    )
    raw = RawPeer(transport)
    try:
        for n, (frame, code) in enumerate(CASES):
            await raw.send(frame)
            reply = await raw.recv(START_S if n == 0 else 5.0)
            assert reply["id"] is None and reply["error"]["code"] == code, (frame[:40], reply)
            await raw.send(discover(f"d{n}"))
            answer = await raw.recv()
            assert answer["id"] == f"d{n}" and "supportedVersions" in answer["result"], answer
    finally:
        await transport.close()


async def test_modern_http_posts_of_bad_bodies_get_400_and_the_server_keeps_serving() -> None:
    """A modern POST of each bad body: 400 with the JSON-RPC error, never a 500 or a hang."""
    async with (
        serve([FixtureServer(), EchoLegacy()]) as (_, url),
        httpx.AsyncClient(base_url=url, timeout=5) as http,
    ):
        for frame, code in CASES:
            response = await http.post("/mcp", content=frame, headers=headers("server/discover"))
            assert response.status_code == 400, (frame[:40], response.status_code)
            assert response.json()["error"]["code"] == code, (frame[:40], response.text)
        ok = await http.post(
            "/mcp", content=json.dumps(discover(1)), headers=headers("server/discover")
        )
        assert ok.status_code == 200 and "supportedVersions" in ok.json()["result"], ok.text
