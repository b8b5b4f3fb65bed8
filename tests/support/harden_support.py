"""Helpers of the hardening tests and runs: a server process on a free port, its RSS."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from tests.support.process_support import free_port

SERVER = str(Path(__file__).resolve().parent / "harden_server.py")
START_S = 30.0
"""Starting Python and importing the generated package may be slow on a loaded machine."""


def rss_mib(pid: int) -> float:
    """The resident set size of a process, in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@contextlib.asynccontextmanager
async def server_process(*options: str) -> AsyncIterator[tuple[subprocess.Popen[bytes], str]]:
    """Run ``harden_server.py`` over HTTP with ``options``; yield it and its MCP URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, SERVER, str(port), *options])
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_S
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                assert process.poll() is None, "the server process exited"
                assert loop.time() < deadline, "the server did not start"
                await asyncio.sleep(0.05)
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def unread_post(
    url: str, session_id: str, body: bytes, version: str = "2025-06-18"
) -> asyncio.StreamWriter:
    """POST ``body`` on a raw socket and never read the answer (a client that stalls)."""
    host, port = url.removeprefix("http://").removesuffix("/mcp").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = (
        f"POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
        f"accept: application/json, text/event-stream\r\nmcp-session-id: {session_id}\r\n"
        f"mcp-protocol-version: {version}\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
    del reader
    return writer
