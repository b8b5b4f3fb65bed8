"""The HTTP server alone, driven by a raw-socket client, as a ratio against a fixed-body ASGI app.

No client library takes part: each connection writes ready-made HTTP/1.1 requests (keep-alive)
and reads the answers with a minimal parser (Content-Length or chunked bodies). Servers, each in
its own process under uvicorn on 127.0.0.1 (httptools, uvloop): the floor (``peers/floor_http.py``:
a bare ASGI app answering every POST with a fixed JSON-RPC result, no MCP at all) and ours
(``peers/ours_http.py``) in four modes: a 2025-06-18 session with SSE answers, with JSON answers,
no session (``HttpOptions(stateless=True)``, JSON), and 2026-07-28 (no handshake: ``_meta`` and the
``Mcp-Method``/``Mcp-Name`` headers on every POST). Printed: ``tools/call`` POSTs per second,
sequential (one connection) and 16 connections, and ours/floor as a time ratio; medians of 3.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_http import server  # noqa: E402
from bench.cpu import ServerCPU  # noqa: E402

VERSION = "2025-06-18"
STATELESS = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
}
CALLS = 1000
CONNECTIONS = 16
RUNS = 3


class Connection:
    """One keep-alive HTTP/1.1 connection that POSTs JSON and reads whole answers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self.reader = reader
        self.writer = writer
        self.host = host
        self.session_id: str | None = None
        self.version = VERSION
        self.extra = ""
        """More header lines, each ending in CRLF (the 2026-07-28 mode's method headers)."""

    @classmethod
    async def open(cls, base: str) -> Connection:
        """Connect to ``http://host:port``."""
        host = base.removeprefix("http://")
        name, port = host.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(name, int(port))
        return cls(reader, writer, host)

    async def post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        """POST ``body`` to /mcp; return the status, the headers (lower-case) and the body."""
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n"
            f"MCP-Protocol-Version: {self.version}\r\n{self.extra}"
        )
        if self.session_id is not None:
            head += f"Mcp-Session-Id: {self.session_id}\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        self.writer.write(head.encode() + body)
        return await self.answer()

    async def answer(self) -> tuple[int, dict[str, str], bytes]:
        """Read one response."""
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            return status, headers, await self.reader.readexactly(int(headers["content-length"]))
        chunks = []
        while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
            chunks.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
        await self.reader.readexactly(2)
        return status, headers, b"".join(chunks)

    def close(self) -> None:
        """Close the socket."""
        self.writer.close()


def message(id_: int | None, method: str, params: dict[str, object]) -> bytes:
    """One JSON-RPC request (or notification when ``id_`` is None)."""
    value: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        value["id"] = id_
    return json.dumps(value, separators=(",", ":")).encode()


async def start_session(base: str, version: str = VERSION) -> str:
    """Initialize a session of ``version`` over its own connection; return its id."""
    conn = await Connection.open(base)
    conn.version = version
    info = {"name": "raw", "version": "0"}
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": info}
    status, headers, body = await conn.post(message(0, "initialize", params))
    if status != 200 or b'"result"' not in body:
        raise RuntimeError(f"initialize failed {status}: {body[:200]!r}")
    conn.session_id = headers["mcp-session-id"]
    status, _, _ = await conn.post(message(None, "notifications/initialized", {}))
    assert status == 202, status
    conn.close()
    return headers["mcp-session-id"]


class Rate(NamedTuple):
    """POSTs per second, and the server process's CPU time per POST (microseconds)."""

    per_s: float
    server_us: float


async def drive(
    base: str, connections: int, session_id: str | None, stateless: bool = False
) -> Rate:
    """POST ``CALLS`` tools/call requests over ``connections`` connections (``stateless``:
    as 2026-07-28 requests)."""
    conns = [await Connection.open(base) for _ in range(connections)]
    for conn in conns:
        conn.session_id = session_id
        if stateless:
            conn.version = STATELESS
            conn.extra = "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"

    async def worker(conn: Connection, numbers: Iterator[int]) -> None:
        for i in numbers:
            params: dict[str, object] = {"name": "echo", "arguments": {"text": f"m{i}"}}
            if stateless:
                params["_meta"] = META
            body = message(i, "tools/call", params)
            status, _, answer = await conn.post(body)
            if status != 200 or b'"result"' not in answer:
                raise RuntimeError(f"unexpected answer {status}: {answer[:200]!r}")

    for conn in conns:  # warm up every connection
        await worker(conn, iter(range(CALLS + 1, CALLS + 11)))
    numbers = iter(range(1, CALLS + 1))
    loop = asyncio.get_running_loop()
    cpu = ServerCPU()
    cpu.start()
    start = loop.time()
    await asyncio.gather(*(worker(conn, numbers) for conn in conns))
    elapsed = loop.time() - start
    cpu.stop()
    for conn in conns:
        conn.close()
    return Rate(CALLS / elapsed, cpu.spent_ns / 1000 / CALLS)


async def sample(script: str, mode: str, connections: int) -> Rate:
    """One run of one server configuration."""
    args = [mode] if mode else []
    async with server(script, *args) as base:
        session_id = await start_session(base) if mode in ("sse", "json") else None
        return await drive(base, connections, session_id, mode == STATELESS)


MODES = ("json", "sse", "stateless", STATELESS)


async def main() -> None:
    """Print each mode against the floor, sequential and with 16 connections.

    The runs alternate (floor, then each mode, ``RUNS`` times), so a change in the machine's
    load meets every configuration alike; medians of the ``RUNS`` runs are printed.
    """
    for connections in (1, CONNECTIONS):
        label = "sequential" if connections == 1 else f"{connections} connections"
        runs: dict[str, list[Rate]] = {name: [] for name in ("floor", *MODES)}
        for _ in range(RUNS):
            runs["floor"].append(await sample("floor_http.py", "", connections))
            for mode in MODES:
                runs[mode].append(await sample("ours_http.py", mode, connections))
        rates = {
            name: Rate(*(statistics.median(r[k] for r in got) for k in range(2)))
            for name, got in runs.items()
        }
        floor = rates["floor"]
        print(
            f"HTTP server alone, {label}: fixed-body ASGI floor {floor.per_s:,.0f}/s, "
            f"server CPU {floor.server_us:.0f} us/POST"
        )
        for mode in MODES:
            ours = rates[mode]
            print(
                f"  ours ({mode}): {ours.per_s:,.0f}/s, server CPU {ours.server_us:.0f} us/POST; "
                f"ours/floor = {floor.per_s / ours.per_s:.2f}x (time), "
                f"{ours.server_us / floor.server_us:.2f}x (server CPU)",
                flush=True,
            )


if __name__ == "__main__":
    asyncio.run(main())
