"""Shared helpers of the interop tests: server scripts, revisions, bounded waiting."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OURS_SERVER = str(HERE / "ours_server.py")
SDK_SERVER = str(HERE / "sdk_server.py")
PYTHON = sys.executable
TEST_TIMEOUT_S = 120.0
"""Bound on one test's body: nothing in the interop suite may hang."""
REQUEST_TIMEOUT_S = 30.0
"""Per-request timeout given to both clients."""
SLOW_TIMEOUT_S = 0.5
"""The timeout after which the clients give up on the ``slow`` tool (it sleeps 30 s)."""
STRUCTURED_SINCE = "2025-06-18"
"""First revision with ``structuredContent``/``outputSchema`` and ``elicitation/create``."""
COMPLETIONS_CAP_SINCE = "2025-03-26"
"""First revision with the ``completions`` server capability and progress ``message``."""

P = ParamSpec("P")
T = TypeVar("T")


def _generated(revision: str) -> bool:
    """Whether our generated package has ``revision``."""
    name = "generated.v" + revision.replace("-", "_")
    return importlib.util.find_spec(name) is not None


REVISIONS: tuple[str, ...] = tuple(v for v in HANDSHAKE_PROTOCOL_VERSIONS if _generated(v))
"""Initialize-era revisions both the SDK (``HANDSHAKE_PROTOCOL_VERSIONS``) and we have."""


def package(revision: str) -> Any:
    """Import our generated package of ``revision``."""
    return importlib.import_module("generated.v" + revision.replace("-", "_"))


def bounded(test: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Run an async test under ``TEST_TIMEOUT_S`` so a hang fails instead of blocking CI."""

    @functools.wraps(test)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT_S)

    return run


def parse_status(text: str) -> tuple[str, int]:
    """Split the ``slow_status`` tool's answer into (state, cancellations so far)."""
    state, count = text.split()
    return state, int(count)
