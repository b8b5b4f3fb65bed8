"""Where the Node tools of the test suite are: the conformance harness and pyright."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

NODE_BIN = Path(__file__).resolve().parents[1] / "node" / "node_modules" / ".bin"
"""The folder of the pinned Node 22, ``conformance`` and ``pyright`` executables."""
HARNESSES = {
    "conformance": "@modelcontextprotocol/conformance",
    "conformance-0.1.16": "conformance-0.1.16",
}
"""Each pinned release of the conformance harness (tests/node/package.json) by its tool name.
Both releases declare the executable ``conformance``, so which one ``.bin`` links is up to npm:
the harness is run from its own package instead."""


def node_env() -> dict[str, str]:
    """The process environment with the pinned Node first on PATH (its scripts run ``env node``)."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def node_tool(name: str) -> str:
    """The path of one pinned Node tool; the test fails (not skips) when it was not installed."""
    if name in HARNESSES:
        script = NODE_BIN.parent / HARNESSES[name] / "dist" / "index.js"
        path = str(script) if os.access(script, os.X_OK) else None
    else:
        path = shutil.which(name, path=str(NODE_BIN))
    if path is None:
        pytest.fail(f"{name} is not installed in {NODE_BIN}: run `make node-tools`")
    return path


def start_selected(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    test_name: str,
    run: Callable[[str, Path], T],
    parallel: int,
) -> dict[str, Future[T]]:
    """Start ``run(name, folder)`` for each ``name`` parameter of the selected items of the
    test ``test_name``, ``parallel`` at a time (harness runs mostly wait on each other)."""
    selected = [
        str(item.callspec.params["name"])
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.originalname == test_name
    ]
    pool = ThreadPoolExecutor(parallel)
    request.addfinalizer(pool.shutdown)
    return {
        name: pool.submit(run, name, tmp_path_factory.mktemp(re.sub(r"[^\w.-]", "-", name)[:60]))
        for name in dict.fromkeys(selected)
    }
