"""Issue #9, defect 7 measured: the server process's RSS while clients exceed every bound.

A real server process (``harden_server.py`` under uvicorn) is driven far past its bounds:
streams nobody reads (300 MB sent to them) and big events (30 x 3.9 MB) kept for resumption.
Its RSS, read from /proc, must stay under ``CEILING_MIB`` above where it started. Over stdio
(#16), requests with 1 MB ids, each answered with its id, must leave RSS within
``STDIO_CEILING_MIB`` of where it started. The figures are printed (``pytest -s``). Linux only.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
import pytest

from tests.core.test_harden_fuzz import STDIO_SERVERS, LineProcess
from tests.roles.test_era_bad_input import discover
from tests.support.harden_support import rss_mib, server_process, unread_post
from tests.support.http_support import ACCEPT_BOTH, JSON_CT, initialize, notification

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

CEILING_MIB = 64.0
"""Growth of the server's RSS allowed over its idle size, whatever the clients do."""
UNREAD_STREAMS = 3
UNREAD_BYTES = 100 * 1024 * 1024
"""Bytes of progress sent to each stream nobody reads."""
BIG_EVENTS, BIG_EVENT_BYTES = 30, 3_900_000
STDIO_CEILING_MIB = 32.0
"""Growth of a stdio server's RSS allowed after requests with large ids were answered."""
LARGE_IDS, LARGE_ID_BYTES = 200, 1_000_000


async def open_session(client: httpx.AsyncClient, url: str) -> dict[str, str]:
    """Initialize a 2025-06-18 session; return the headers of later requests."""
    headers = {**ACCEPT_BOTH, **JSON_CT}
    response = await client.post(url, json=initialize(), headers=headers)
    assert response.status_code == 200, response.text
    headers["mcp-session-id"] = response.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-06-18"
    done = await client.post(url, json=notification("notifications/initialized"), headers=headers)
    assert done.status_code == 202
    return headers


def blast(rid: int, n: int, size: int) -> bytes:
    """A tools/call of ``blast`` asking for progress."""
    params: dict[str, Any] = {"name": "blast", "arguments": {"n": n, "size": size}}
    params["_meta"] = {"progressToken": rid}
    return json.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    ).encode()


async def peak_rss(pid: int, seconds: float) -> float:
    """The highest RSS seen over ``seconds``."""
    peak = 0.0
    for _ in range(int(seconds / 0.05)):
        peak = max(peak, rss_mib(pid))
        await asyncio.sleep(0.05)
    return peak


async def test_unread_streams_and_big_events_keep_rss_bounded() -> None:
    """300 MB to unread streams, then 117 MB of big events: RSS stays under the ceiling."""
    opts = ("stream_bytes=4194304", "stall=2")
    async with server_process(*opts) as (process, url), httpx.AsyncClient(timeout=30) as client:
        headers = await open_session(client, url)
        assert (
            await client.post(
                url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"}, headers=headers
            )
        ).status_code == 200
        await asyncio.sleep(0.5)
        idle = rss_mib(process.pid)

        writers = []
        for n in range(UNREAD_STREAMS):
            size = 50_000
            body = blast(100 + n, UNREAD_BYTES // size, size)
            writers.append(await unread_post(url, headers["mcp-session-id"], body))
        unread_peak = await peak_rss(process.pid, 8.0)
        for writer in writers:
            writer.close()
        after_unread = rss_mib(process.pid)

        for n in range(BIG_EVENTS):
            call = {"name": "big", "arguments": {"size": BIG_EVENT_BYTES}}
            body = {"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/call", "params": call}
            response = await client.post(url, json=body, headers=headers)
            assert response.status_code == 200 and len(response.content) > BIG_EVENT_BYTES
        after_big = rss_mib(process.pid)
        pong = await client.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers
        )
        assert pong.status_code == 200 and '"result":{}' in pong.text

    print(
        f"\nRSS MiB: idle {idle:.1f}; {UNREAD_STREAMS} unread streams x 100 MB: peak "
        f"{unread_peak:.1f} (+{unread_peak - idle:.1f}), after {after_unread:.1f}; "
        f"{BIG_EVENTS} events x 3.9 MB: {after_big:.1f} (+{after_big - idle:.1f})"
    )
    assert unread_peak - idle < CEILING_MIB
    assert after_big - idle < CEILING_MIB


@pytest.mark.parametrize("kind", ["initialize-era", "dual-era"])
def test_stdio_server_rss_returns_after_requests_with_large_ids(kind: str) -> None:
    """200 requests with 1 MB string ids (200 MB each way): RSS ends near where it started."""
    server = LineProcess(STDIO_SERVERS[kind])
    try:
        if kind == "initialize-era":
            server.send(json.dumps(initialize()).encode())
            assert "result" in server.recv()
            server.send(json.dumps(notification("notifications/initialized")).encode())

        def request(id_: str) -> dict[str, Any]:
            """A ping (initialize era) or a ``server/discover`` (the stateless era)."""
            if kind == "initialize-era":
                return {"jsonrpc": "2.0", "id": id_, "method": "ping"}
            return discover(id_)

        server.until_answer(request("warm"))
        start = rss_mib(server.process.pid)
        filler = "x" * LARGE_ID_BYTES
        for n in range(LARGE_IDS):
            big = f"{n}{filler}"
            _, answer = server.until_answer(request(big))
            assert answer["id"] == big and "result" in answer
        server.until_answer(request("done"))
        end = rss_mib(server.process.pid)
        assert server.close() == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
    print(f"\nstdio {kind} RSS MiB: {start:.1f} -> {end:.1f} after {LARGE_IDS} x 1 MB ids")
    assert end - start < STDIO_CEILING_MIB
