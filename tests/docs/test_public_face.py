"""``pkg.runtime``: the documented public face of the runtime, what the README imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

import generated.runtime as face
from generated._runtime.core import errors
from generated._runtime.roles import client


def test_every_public_name_resolves() -> None:
    for name in face.__all__:
        assert getattr(face, name) is not None, name
    with pytest.raises(AttributeError):
        face.__getattr__("no_such_name")


def test_the_face_hands_out_the_runtime_objects_themselves() -> None:
    assert face.MCPError is errors.MCPError
    assert face.connect_any is client.connect_any
    assert face.run_http.__module__.endswith("transports.http.server")


def printed_lines(code: str) -> list[str]:
    """The lines a fresh interpreter prints running ``code``."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")


def test_importing_the_face_loads_no_http_library() -> None:
    code = (
        "import sys, generated.runtime as r\n"
        "assert r.MCPError and r.memory_pair\n"
        "print(sorted(m for m in ('aiohttp', 'uvicorn') if m in sys.modules))\n"
        "r.HttpOptions\n"
        "print(sorted(m for m in ('aiohttp', 'uvicorn') if m in sys.modules))\n"
    )
    out = printed_lines(code)
    assert out[:2] == ["[]", "[]"]  # a server (HttpOptions) does not load the client library


def test_the_2026_07_28_entry_points_are_on_the_face_and_load_lazily() -> None:
    from generated._runtime.roles import connect, mrtr, stateless_results

    assert face.connect_auto is connect.connect_auto
    assert face.listen is connect.listen
    assert face.ask is mrtr.ask
    assert face.cache_hints is stateless_results.cache_hints
    assert face.connect_http_auto.__module__.endswith("transports.http.client")
    code = (
        "import sys, generated.runtime as r\n"
        "print(sorted(m for m in sys.modules if m.endswith(('mrtr',))))\n"
        "r.connect_auto, r.ask\n"
        "print('aiohttp' in sys.modules)\n"
    )
    out = printed_lines(code)
    assert out[:2] == ["[]", "False"]  # a stdio client in auto mode loads no HTTP library
