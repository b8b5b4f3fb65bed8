"""``mcpgen tools``: typed bindings of a server's tools, generated from the demo server (stdio)
and from an official-SDK server (HTTP); they type-check under mypy --strict and call every tool.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.codegen.test_cli import assert_one_line_error, run_cli
from tests.conftest import ROOT
from tests.support.process_support import serving

PEERS = ROOT / "tests" / "tools_peers"
DEMO = ROOT / "examples" / "demo_server.py"


def _env(tmp_path: Path) -> dict[str, str]:
    """Imports of the user code: the generated bindings (in tmp_path) and the project."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}


def _mypy_strict(tmp_path: Path, *targets: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *map(str, targets)],
        capture_output=True,
        text=True,
        env={**_env(tmp_path), "MYPYPATH": os.pathsep.join([str(tmp_path), str(ROOT)])},
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _run_user_code(tmp_path: Path, script: Path, arg: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, str(script), arg],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (called,) = [line for line in proc.stdout.splitlines() if line.startswith("CALLED ")]
    return called.split()[1:]


def _tool_names(package: Path) -> list[str]:
    saved = json.loads((package / "tools.json").read_text(encoding="utf-8"))
    return sorted(tool["name"] for tool in saved["tools"])


def test_demo_server_tools_over_stdio(tmp_path: Path) -> None:
    """Bindings of the demo server's tools type-check and call every tool."""
    out = tmp_path / "demotools"
    proc = run_cli("tools", "--server", f"{sys.executable} {DEMO}", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        ".mcpgen-files",
        "__init__.py",
        "models.py",
        "py.typed",
        "tools.json",
    ]
    script = PEERS / "use_demo_tools.py"
    _mypy_strict(tmp_path, out, script)
    called = _run_user_code(tmp_path, script, str(DEMO))
    assert sorted(called) == _tool_names(out)


@pytest.fixture
def sdk_url() -> Iterator[str]:
    """An official-SDK (``MCPServer``) server over Streamable HTTP, in its own process."""
    server = PEERS / "sdk_tools_server.py"
    with serving(lambda port: [sys.executable, str(server), str(port)]) as port:
        yield f"http://127.0.0.1:{port}/mcp"


def test_sdk_server_tools_over_http(sdk_url: str, tmp_path: Path) -> None:
    """Bindings of an SDK server's tools (nested $defs, defaults, a hyphenated name) type-check
    and call every tool; a saved tools.json regenerates the same bytes without the server."""
    out = tmp_path / "sdktools"
    proc = run_cli("tools", "--server", sdk_url, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    script = PEERS / "use_sdk_tools.py"
    _mypy_strict(tmp_path, out, script)
    called = _run_user_code(tmp_path, script, sdk_url)
    assert sorted(called) == _tool_names(out)

    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert run_cli("tools", "-o", str(out)).returncode == 0  # from its own tools.json
    copy = tmp_path / "copy"
    assert run_cli("tools", "--from", str(out / "tools.json"), "-o", str(copy)).returncode == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()} == before


def test_saved_result_forms_and_names(tmp_path: Path) -> None:
    """A JSON-RPC response is accepted as a saved result; odd tool names become identifiers,
    ``$ref``s inside a tool schema keep pointing at its own definitions."""
    item = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    tools = [
        {"name": "list", "inputSchema": {"type": "object"}},
        {"name": "2fa.check-Code", "inputSchema": {"type": "object"}},
        {
            "name": "getItems",
            "inputSchema": {
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
                "$defs": {"Item": item},
            },
            "outputSchema": {
                "type": "object",
                "properties": {"first": {"$ref": "#/$defs/Item"}},
                "$defs": {"Item": {**item, "properties": {"n": {"type": "string"}}}},
            },
        },
    ]
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}}))
    out = tmp_path / "odd"
    proc = run_cli("tools", "--from", str(saved), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    check = run_cli("tools", "--check", "-o", str(out))  # against its own tools.json
    assert check.returncode == 0, check.stderr
    assert "is up to date (3 tools)" in check.stderr
    models = out / "models.py"
    models.write_text(models.read_text() + "# edited\n")
    check = run_cli("tools", "--check", "-o", str(out))
    assert check.returncode == 1, check.stderr
    assert "1 changed (models.py)" in check.stderr
    assert run_cli("tools", "-o", str(out)).returncode == 0  # regenerated in place
    script = tmp_path / "check_odd.py"
    script.write_text(
        "from typing import assert_type\n"
        "import odd\n"
        "assert callable(odd.list_) and callable(odd.tool_2fa_check_code)\n"
        "inp = odd.GetItemsInput(items=[odd.Item(n=1)])\n"
        "import msgspec\n"
        "out = msgspec.convert({'first': {'n': 'x'}}, odd.GetItemsOutput)\n"
        "assert_type(out.first, odd.ItemModel | msgspec.UnsetType)\n"
        "assert out.first is not msgspec.UNSET\n"
        "print(msgspec.json.encode(inp).decode())\n"
    )
    _mypy_strict(tmp_path, out, script)
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == '{"items":[{"n":1}]}'


def test_errors_are_one_line(tmp_path: Path) -> None:
    """A dead server, a non-JSON file, no source at all: one line, exit 2."""
    proc = run_cli("tools", "--server", f"{sys.executable} -c pass", "-o", str(tmp_path / "a"))
    assert_one_line_error(proc, "exited before answering")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    assert_one_line_error(
        run_cli("tools", "--from", str(bad), "-o", str(tmp_path / "b")), "not valid JSON"
    )
    assert_one_line_error(run_cli("tools", "-o", str(tmp_path / "c")), "tools.json")
    proc = run_cli("tools", "--server", "http://127.0.0.1:9/mcp", "-o", str(tmp_path / "d"))
    assert_one_line_error(proc, "cannot reach http://127.0.0.1:9/mcp")


PAGED_SERVER = r"""
import json, sys
PAGES = {None: (["a", "b"], "p2"), "p2": (["c"], None)}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": "srv", "method": "ping"}), flush=True)
        if json.loads(sys.stdin.readline()) != {"jsonrpc": "2.0", "id": "srv", "result": {}}:
            sys.exit("ping was not answered")
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "paged", "version": "1"}}
    else:
        names, cursor = PAGES[(msg.get("params") or {}).get("cursor")]
        result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}
        if cursor:
            result["nextCursor"] = cursor
    print("not json, a stray print", file=sys.stderr, flush=True)
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


def test_paged_tools_list_and_server_requests(tmp_path: Path) -> None:
    """Every page of tools/list is read; a request of the server is answered, not fatal."""
    server = tmp_path / "paged.py"
    server.write_text(PAGED_SERVER)
    out = tmp_path / "paged_tools"
    proc = run_cli("tools", "--server", f"{sys.executable} {server}", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert _tool_names(out) == ["a", "b", "c"]


GUARDED_SERVER = """
import sys
sys.path.insert(0, {root!r})
from generated.runtime import HttpOptions, run_http
from generated.v2025_11_25 import Server, ServerContext, types as t

async def allow(headers):
    return headers.get("authorization") == "Bearer s3cret"

class One(Server):
    async def list_tools(self, params, ctx):
        return t.ListToolsResult(tools=[t.Tool(name="only", input_schema={{"type": "object"}})])

run_http(One(), "127.0.0.1", int(sys.argv[1]), HttpOptions(authenticate=allow))
"""


def test_headers_reach_a_guarded_http_server(tmp_path: Path) -> None:
    """--header carries an Authorization; without it the server's 401 is one clear line."""
    script = tmp_path / "guarded.py"
    script.write_text(GUARDED_SERVER.format(root=str(ROOT)))
    with serving(lambda port: [sys.executable, str(script), str(port)]) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        assert_one_line_error(run_cli("tools", "--server", url, "-o", str(tmp_path / "a")), "401")
        out = tmp_path / "guarded_tools"
        proc = run_cli(
            "tools", "--server", url, "--header", "Authorization: Bearer s3cret", "-o", str(out)
        )
        assert proc.returncode == 0, proc.stderr
        assert _tool_names(out) == ["only"]
    proc = run_cli("tools", "--server", url, "--header", "nocolon", "-o", str(tmp_path / "b"))
    assert_one_line_error(proc, "not NAME:VALUE")
