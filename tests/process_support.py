"""Run a server script as a process on a free loopback port, for tests that need a real one."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
START_S = 20.0


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def http_process(args: Callable[[int], list[str]]) -> Iterator[str]:
    """Run ``python *args(port)`` from the project root; yield its MCP URL once it listens.

    A process that exits or does not listen within ``START_S`` fails the test with its stderr.
    """
    port = free_port()
    with tempfile.TemporaryFile() as log:  # not a pipe: a chatty server must never block
        process = subprocess.Popen(
            [sys.executable, *args(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log
        )
        try:
            deadline = time.monotonic() + START_S
            while True:
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    process.wait()
                    log.seek(0)
                    error = log.read()
                    pytest.fail(f"the server {args(port)} did not start: {error[-2000:]!r}")
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
