"""A server of the tests in its own process, on a free local port."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

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
