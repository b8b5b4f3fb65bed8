"""A server of the tests in its own process, on a free local port."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 30.0
"""How long a server process may take to accept connections."""


def free_port() -> int:
    """A local TCP port nobody listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(
    argv: Callable[[int], list[str]],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[int]:
    """Run ``argv(port)`` until it accepts connections on the port; yield the port; stop it."""
    port = free_port()
    proc = subprocess.Popen(
        argv(port), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, f"{argv(port)} exited with {proc.returncode}"
                assert time.monotonic() < deadline, f"{argv(port)} did not start"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def http_process(args: Callable[[int], list[str]]) -> Iterator[str]:
    """Run ``python *args(port)`` from the project root; yield its MCP URL once it listens.

    A process that exits or does not listen within ``START_TIMEOUT_S`` fails the test with
    its stderr.
    """
    port = free_port()
    with tempfile.TemporaryFile() as log:  # not a pipe: a chatty server must never block
        process = subprocess.Popen(
            [sys.executable, *args(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
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


def demo_over_http() -> contextlib.AbstractContextManager[str]:
    """``examples/demo_server.py`` over Streamable HTTP on a free port; yields its MCP URL."""
    demo = str(ROOT / "examples" / "demo_server.py")
    return http_process(lambda port: [demo, "--http", f"127.0.0.1:{port}"])
