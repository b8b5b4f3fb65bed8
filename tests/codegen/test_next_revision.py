"""A next revision given as a schema file with its base named runs like a built-in one.

The synthetic ``2027-01-01`` (``next_revision_support``: 2026-07-28 plus ``tools/describe``, a
``chart`` content block and ``Tool.category``, minus ``GetPromptResult.description``) is
generated beside the five built-in revisions; it inherits its base's overrides (capability
gates, ``resultType`` constants, ``_meta`` filling, ``FACTS``), gets converters to and from its
base, and its client and server run the 2026-07-28 demo's steps over stdio and HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import json
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import uvicorn
from click.testing import CliRunner

from mcpgen.cli import cli
from mcpgen.errors import GenerationError, Level
from mcpgen.loader.overrides import Patch, next_overrides, patch_schema
from tests.support.next_revision_server import make_server
from tests.support.next_revision_support import BASE, NEXT, OWN_OVERRIDES, next_schema, write_next

from .test_cli import assert_one_line_error, run_cli

PACKAGE = "nextrevpkg"
SERVER = Path(__file__).resolve().parents[1] / "support" / "next_revision_server.py"
STEP_S = 20.0


# -- the base's overrides, where they still hold ----------------------------------------------


def test_inherited_patch_whose_pointer_is_gone_is_reported_and_skipped() -> None:
    """A base patch fixing what the next revision no longer has: one warning, no stop."""
    raw = {"$defs": {"A": {"type": "integer"}}}
    gone = Patch("/$defs/B/type", "integer", "number", "a defect", inherited=BASE)
    kept = Patch("/$defs/A/type", "integer", "number", "a defect", inherited=BASE)
    patched, skipped = patch_schema(raw, (gone, kept), NEXT)
    assert patched == {"$defs": {"A": {"type": "number"}}}
    assert [p.level for p in skipped] == [Level.WARNING]
    assert f"patch of base {BASE}" in skipped[0].message
    assert "/$defs/B/type is gone; skipped" in skipped[0].message
    with pytest.raises(GenerationError, match="is missing"):  # the revision's own: stops
        patch_schema(raw, (Patch("/$defs/B/type", "integer", "number", ""),), NEXT)


def test_own_file_drops_replaces_and_adds_to_the_base() -> None:
    """[drop] leaves base entries out, an own patch of the same pointer replaces the base's,
    own [capabilities] and [protocol] entries win, and inherited methods are marked."""
    pointer = "/$defs/CallToolResult/properties/resultType"
    own = {
        "base": BASE,
        "patch": [{"pointer": pointer, "expect": 1, "value": 2}],
        "drop": {"capabilities": ["tools/list"], "patches": ["/$defs/JSONValue/anyOf/2/type"]},
        "capabilities": {"tools/describe": "tools"},
        "protocol": {"method_headers": False},
    }
    merged = next_overrides(NEXT, BASE, own, None)
    plain = next_overrides(NEXT, BASE, None, None)
    assert [p for p in merged.patches if p.pointer == pointer] == [Patch(pointer, 1, 2, "")]
    assert {p.pointer for p in plain.patches} - {p.pointer for p in merged.patches} == {
        "/$defs/JSONValue/anyOf/2/type"
    }
    assert "tools/list" not in merged.capabilities and "tools/list" in plain.capabilities
    assert merged.capabilities["tools/describe"] == "tools"
    assert "tools/call" in merged.inherited_methods
    assert "tools/describe" not in merged.inherited_methods
    assert (plain.sse_priming, plain.method_headers) == (True, True)
    assert (merged.sse_priming, merged.method_headers) == (True, False)


def test_command_line_mistakes_are_one_line(schemas: Path, tmp_path: Path) -> None:
    """A base that is no built-in revision, --base on a built-in revision, two bases that
    disagree, an unknown key in the own file, --base without the revision's schema, and a
    revision outside the manifest without a schema file: each one line, exit 2."""
    schema, own = write_next(schemas, tmp_path)
    out = str(tmp_path / "pkg")
    given = ("--schema", f"{NEXT}={schema}")
    odd = tmp_path / "odd.toml"
    odd.write_text('base = "2026-07-28"\n[drop]\nmethods = ["x"]\n', encoding="utf-8")
    cases = [
        ((*given, "--base", f"{NEXT}=2099-01-01"), ("base '2099-01-01' is no built-in",)),
        (("-r", BASE, "--base", f"{BASE}=2025-11-25"), ("built-in revision", "--base")),
        ((*given, "--overrides", f"{NEXT}={own}", "--base", f"{NEXT}=2025-11-25"), ("says",)),
        ((*given, "--overrides", f"{NEXT}={odd}"), ("unknown key(s) drop.methods",)),
        (("-r", BASE, "--base", f"{NEXT}={BASE}"), (f"--schema {NEXT}=FILE",)),
        (("-r", NEXT), (f"unknown revision '{NEXT}'", f"--schema {NEXT}=FILE")),
    ]
    for args, needles in cases:  # in-process: the same command, without a process each
        result = CliRunner().invoke(cli, [*args, "-o", out])
        assert result.exit_code == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("mcpgen: error:"), result.stderr
        assert all(needle in lines[0] for needle in needles), (needles, lines[0])
    assert not (tmp_path / "pkg").exists()


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of a package by relative path, without Python's caches."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_package_regenerates_its_next_revision_from_what_it_keeps(
    schemas: Path, tmp_path: Path
) -> None:
    """Generated from a next revision's schema file, base and own overrides file, the package
    keeps them in the revision's ``source/``; with those files gone, ``mcpgen -o pkg`` writes
    the package again byte for byte, ``--check`` finds it fresh, ``-r`` may name the next
    revision, and ``--prune`` without it drops the revision with what it kept."""
    schema, own = write_next(schemas, tmp_path / "inputs")
    out = tmp_path / "pkg"

    def run(*args: str) -> None:
        result = CliRunner().invoke(cli, [*args, "-o", str(out)])
        assert result.exit_code == 0, (args, result.stderr)

    run("-r", BASE, "--schema", f"{NEXT}={schema}", "--base", f"{NEXT}={BASE}",
        "--overrides", f"{NEXT}={own}")  # fmt: skip
    kept = out / "v2027_01_01" / "source"
    assert (kept / "schema.json").read_bytes() == schema.read_bytes()
    assert (kept / "overrides.toml").read_bytes() == own.read_bytes()
    assert f'base = "{BASE}"' in (kept / "inputs.toml").read_text("utf-8")
    first = _files(out)
    schema.unlink()
    own.unlink()
    run()
    assert _files(out) == first
    run("--check")
    run("-r", BASE, "-r", NEXT)
    assert _files(out) == first
    run("-r", BASE, "--prune")
    assert not (out / "v2027_01_01").exists() and (out / "v2026_07_28").is_dir()
    result = CliRunner().invoke(cli, ["-r", NEXT, "-o", str(out)])
    assert result.exit_code == 2 and f"--schema {NEXT}=FILE" in result.stderr


def _changed_schema(schemas: Path, folder: Path) -> Path:
    """The next revision with a value a base patch asserts changed (and a method gone)."""
    raw = next_schema(schemas)
    defs = raw["$defs"]
    defs["CallToolResult"]["properties"]["resultType"]["description"] = "Changed upstream."
    path = folder / "changed.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_base_patch_holding_something_else_stops_generation(schemas: Path, tmp_path: Path) -> None:
    """Exit 2 naming the base's patch, the expected and the found value; nothing written."""
    schema = _changed_schema(schemas, tmp_path)
    proc = run_cli(
        "--schema", f"{NEXT}={schema}", "--base", f"{NEXT}={BASE}", "-o", str(tmp_path / "pkg")
    )
    assert_one_line_error(
        proc,
        f"patch of base {BASE}",
        "/$defs/CallToolResult/properties/resultType is",
        '"Changed upstream."',
        "expected",
        f"overrides file of {NEXT}",
    )
    assert not (tmp_path / "pkg").exists()


def test_own_file_dropping_the_patch_lets_generation_go_on(schemas: Path, tmp_path: Path) -> None:
    """The same schema generates once the next revision's own file drops that patch; a base
    patch whose pointer is gone and a base ``[capabilities]`` entry whose method is gone are
    each reported in one line and skipped."""
    raw = json.loads(_changed_schema(schemas, tmp_path).read_text("utf-8"))
    raw["$defs"]["ClientRequest"]["anyOf"] = [
        r for r in raw["$defs"]["ClientRequest"]["anyOf"] if r["$ref"] != "#/$defs/CompleteRequest"
    ]
    del raw["$defs"]["SubscriptionsListenRequestParams"]["required"]  # a base patch's pointer
    schema = tmp_path / "gone.json"
    schema.write_text(json.dumps(raw), encoding="utf-8")
    own = tmp_path / "own.toml"
    own.write_text(
        OWN_OVERRIDES + '\n[drop]\npatches = ["/$defs/CallToolResult/properties/resultType"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "pkg"
    proc = run_cli("--schema", f"{NEXT}={schema}", "--overrides", f"{NEXT}={own}", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"[capabilities] of base {BASE} names 'completion/complete'" in proc.stderr
    gone = [line for line in proc.stderr.splitlines() if "is gone; skipped" in line]
    assert len(gone) == 1 and f"patch of base {BASE}" in gone[0], proc.stderr
    assert "/$defs/SubscriptionsListenRequestParams/required" in gone[0]
    methods = (out / "v2027_01_01" / "methods.py").read_text("utf-8")
    assert 'method="completion/complete"' not in methods
    assert "capability='tools'" in methods or 'capability="tools"' in methods
    header = (out / "v2027_01_01" / "types.py").read_text("utf-8").splitlines()[:3]
    assert header[2].startswith(f"# Overrides: base {BASE}; overrides file sha256 ")


def test_diff_of_a_next_revision_reports_its_changes_and_facts(
    schemas: Path, tmp_path: Path
) -> None:
    """``mcpgen diff BASE REV=FILE --base REV=BASE``: the new method, the new content block,
    the field added and removed, and a protocol fact the next revision's file changes."""
    schema, _ = write_next(schemas, tmp_path)
    own = tmp_path / "own.toml"
    own.write_text(OWN_OVERRIDES + "\n[protocol]\nmethod_headers = false\n", encoding="utf-8")
    proc = run_cli(
        "diff", BASE, f"{NEXT}={schema}", "--overrides", f"{NEXT}={own}", "--format", "json"
    )
    assert proc.returncode == 1, proc.stderr
    changes = json.loads(proc.stdout)["changes"]
    subjects = {(c["category"], c["kind"], c["subject"], c.get("item", "")) for c in changes}
    assert ("method", "added", "tools/describe", "") in subjects
    assert ("member", "added", "ContentBlock", "ChartContent") in subjects
    assert ("field", "added", "Tool", "category") in subjects
    assert ("field", "removed", "GetPromptResult", "description") in subjects
    facts = {c["subject"]: (c["old"], c["new"]) for c in changes if c["category"] == "constant"}
    assert facts["Mcp-Method/Mcp-Name headers"] == ("supported", "not supported")
    assert "initialize handshake" not in facts  # both stateless: unchanged facts are quiet
    bare = run_cli("diff", BASE, f"{NEXT}={schema}", "--base", f"{NEXT}={BASE}", "--format", "json")
    assert bare.returncode == 1, bare.stderr
    constants = [
        c["subject"] for c in json.loads(bare.stdout)["changes"] if c["category"] == "constant"
    ]
    assert constants == ["PROTOCOL_VERSION"]


# -- generated beside the built-in revisions --------------------------------------------------


@pytest.fixture(scope="module")
def package(schemas: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every built-in revision plus the next one, generated into a temporary folder."""
    root = tmp_path_factory.mktemp("next")
    schema, own = write_next(schemas, root / "input")
    args = ("-r", "all", "--schema", f"{NEXT}={schema}", "--overrides", f"{NEXT}={own}")
    proc = run_cli(*args, "-o", str(root / PACKAGE))
    assert proc.returncode == 0, proc.stderr
    again = run_cli(*args, "--check", "-o", str(root / PACKAGE))  # same inputs, same bytes
    assert again.returncode == 0, again.stderr
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def _module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_next_revision_is_listed_and_inherits_its_base(package: Path) -> None:
    """Listed in REVISIONS, ORDER and SERVERS; FACTS, gates and resultType as the base's."""
    top = importlib.import_module(PACKAGE)
    assert list(top.REVISIONS)[-2:] == [BASE, NEXT]
    converters = _module("converters")
    assert converters.ORDER[-2:] == (BASE, NEXT)
    assert NEXT in converters.SERVERS and NEXT not in converters.CLIENTS
    base, nxt = _module("v2026_07_28.methods"), _module("v2027_01_01.methods")
    assert dataclasses.replace(nxt.FACTS, version=BASE) == base.FACTS
    assert nxt.FACTS.version == NEXT
    for method, spec in base.METHODS.items():
        assert nxt.METHODS[method].capability == spec.capability, method
    assert nxt.METHODS["tools/describe"].capability == "tools"
    t = _module("v2027_01_01.types")
    listed = msgspec.json.decode(
        top.encode(t.ListToolsResult(tools=[], ttl_ms=1, cache_scope="public"))
    )
    assert listed["resultType"] == "complete"
    described = msgspec.json.decode(
        top.encode(t.DescribeToolResult(tool=t.Tool(name="x", input_schema={})))
    )
    assert described["resultType"] == "complete"
    served = converters.every_revision(make_server(PACKAGE))
    assert sorted(s.PROTOCOL_VERSION for s in served) == sorted(top.REVISIONS)
    rev = _module("v2027_01_01")
    app = _module("runtime").App("next-app", also=[rev])
    assert [s.PROTOCOL_VERSION for s in app.servers()][-1] == NEXT


def test_converter_carries_a_tools_list_result_both_ways(package: Path) -> None:
    """2026-07-28 -> 2027-01-01 and back keeps what both share and drops ``category``."""
    convert = _module("_runtime.core.convert")
    converters = _module("converters")
    t26, t27 = _module("v2026_07_28.types"), _module("v2027_01_01.types")
    old = t26.ListToolsResult(
        tools=[t26.Tool(name="echo", description="d", input_schema={"type": "object"})],
        ttl_ms=5,
        cache_scope="public",
        next_cursor="c",
    )
    up = convert.chain(converters.STEPS, converters.ORDER, BASE, NEXT, "tools/list", True)
    new = convert.convert_value(up, old, t27.ListToolsResult)
    assert isinstance(new, t27.ListToolsResult)
    assert msgspec.to_builtins(new) == msgspec.to_builtins(old)
    down = convert.chain(converters.STEPS, converters.ORDER, NEXT, BASE, "tools/list", True)
    newer = msgspec.structs.replace(
        new, tools=[msgspec.structs.replace(new.tools[0], category="demo")]
    )
    back = convert.convert_value(down, newer, t26.ListToolsResult)
    assert isinstance(back, t26.ListToolsResult)
    assert msgspec.to_builtins(back) == msgspec.to_builtins(old)


# -- its client against its server: the 2026-07-28 demo's steps ------------------------------


def _client(package: Path) -> Any:
    """A next-revision client that answers an elicitation, as Ada."""
    rev, t = _module("v2027_01_01"), _module("v2027_01_01.types")

    class NextClient(rev.Client):  # type: ignore[misc,name-defined]
        """Accepts, as Ada."""

        async def on_elicit(self, params: Any, ctx: Any) -> Any:
            """Accept the guestbook's question."""
            return t.ElicitResult(action="accept", content={"name": "Ada"})

    return NextClient()


async def _demo_steps(client: Any) -> None:
    """Discover, tools (with the new block and request), an MRTR round, listen."""
    runtime, t = _module("runtime"), _module("v2027_01_01.types")
    assert client.protocol_version == NEXT
    discovered = client.initialize_result
    assert discovered is not None and discovered.capabilities.tools is not msgspec.UNSET
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools][:4] == [
        "add_tool",
        "chart",
        "client_caps",
        "sign_guestbook",
    ]
    assert {tool.category for tool in listed.tools} == {"demo"}
    assert (await client.describe_tool(name="chart")).tool.category == "demo"
    chart = (await client.call_tool(name="chart")).content[0]
    assert isinstance(chart, t.ChartContent) and chart.series == [1.0, 2.5, 4.0]
    caps = json.loads((await client.call_tool(name="client_caps")).content[0].text)
    assert "elicitation" in caps
    signed = (await client.call_tool(name="sign_guestbook")).content[0].text
    assert signed == "thank you Ada"
    async with runtime.listen(client, toolsListChanged=True, timeout=STEP_S) as sub:
        assert sub.honored.get("toolsListChanged") is True
        await client.call_tool(name="add_tool")
        method, _ = await asyncio.wait_for(anext(sub), STEP_S)
        assert method == "notifications/tools/list_changed"


def test_demo_steps_over_stdio(package: Path) -> None:
    """The server as a spawned process, spoken to over stdio."""

    async def run() -> None:
        client = _client(package)
        await client.connect_stdio(sys.executable, [str(SERVER), str(package), PACKAGE])
        try:
            await asyncio.wait_for(_demo_steps(client), 4 * STEP_S)
        finally:
            await client.close()

    asyncio.run(run())


@contextlib.asynccontextmanager
async def _http_server() -> AsyncIterator[str]:
    """The next revision's server on uvicorn, 127.0.0.1 and a port the kernel chose."""
    runtime = _module("runtime")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        runtime.McpHttpApp([make_server(PACKAGE)]), log_config=None, log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(STEP_S):
            while not server.started and not task.done():
                await asyncio.sleep(0.02)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, STEP_S)
        sock.close()


def test_demo_steps_over_http(package: Path) -> None:
    """The server on Streamable HTTP (uvicorn), the client over aiohttp."""

    async def run() -> None:
        runtime = _module("runtime")
        async with _http_server() as url:
            client = _client(package)
            await runtime.connect_http(client, url)
            try:
                await asyncio.wait_for(_demo_steps(client), 4 * STEP_S)
            finally:
                await client.close()

    asyncio.run(run())
