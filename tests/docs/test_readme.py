"""Every code block of README.md runs (or is checked) here, so the README cannot drift.

The convention (follow it when you add a README section):

- Every code block is fenced (```` ```python ````, ```` ```sh ````); an indented code block fails.
- The line just before a fence (blank lines allowed between) is a directive
  ``<!-- test: KIND [ARG ...] -->`` saying how this file covers the block. A block without a
  directive, or with a KIND not in ``KINDS`` below, fails: a new section is covered or red.
- KINDS:
  - ``run``: a complete Python program, run as written (``python block.py``, 60 s at most) in
    a workspace where ``pkg`` is the checked-in package (a link to ``generated/``), the
    checkout is on ``PYTHONPATH`` and every ``file`` block below is saved under its name.
    It must exit 0.
  - ``file NAME``: a Python module saved as ``NAME`` in that workspace and used by another
    block (which must name it, e.g. a client spawning ``server.py``, or ``from server
    import ...``). It must compile; it runs through the blocks that use it.
  - ``http-server PORT``: a Python program serving MCP over HTTP on ``PORT`` (the literal is
    replaced by a free port); the official SDK client connects to ``/mcp``, initializes and
    calls every listed tool with the arguments the test gives in ``TOOL_ARGUMENTS``.
  - ``shell``: commands (``#`` comments allowed), each run in order in a fresh directory with
    the project's ``mcpgen`` first on PATH and the files of ``SHELL_FIXTURES`` there
    (``my.json`` a schema, ``server.py`` the decorator example, ``tools.json`` a saved
    ``tools/list`` result); each must exit 0.
  - ``cli``: ``mcpgen`` commands that need something the test does not have (a live URL, a
    token): each command's subcommand and every flag it uses must exist (``--help``).
  - ``make``: ``make TARGET`` lines: each target exists (``make -n TARGET`` succeeds).
  - ``example``: ``python examples/NAME.py ...`` lines (a trailing ``&`` allowed): the script
    exists and takes every flag used (``--help``); ``export NAME=...`` lines name a variable
    the runtime reads.
  - ``pip``: ``pip install`` lines: ``.`` or ``".[EXTRA,...]"`` is this checkout and its extras
    (pyproject.toml; mcpgen is on no index, so a bare project name fails), optionally after
    ``-c FILE`` (a constraints file of the checkout); ``-r pkg/FILE`` names a file every
    generated package carries.
- Every Python block (all of them together, in that workspace) passes mypy --strict and
  pyright strict: it is what a user copies.
- A KIND is a function below taking the block; add one (and document it here) when none fits.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ROOT, schema_dir
from tests.support.process_support import serving
from tests.support.typecheck_support import strict_check

README = ROOT / "README.md"
RUN_TIMEOUT_S = 60.0
"""How long one README program or command may take."""
DIRECTIVE = re.compile(r"<!--\s*test:\s*(?P<kind>[\w-]+)(?P<args>[^>]*?)\s*-->")
FENCE = re.compile(r"^```(?P<lang>\S*)\s*$")
TOOL_ARGUMENTS = {"echo": {"text": "hi"}}
"""Arguments of the tools an ``http-server`` block serves, by tool name."""
SHELL_FIXTURES: dict[str, Callable[[], str]] = {
    "my.json": lambda: (schema_dir() / "2025-11-25" / "schema.json").read_text(),
    "server.py": lambda: (ROOT / "examples" / "app_server.py").read_text(),
    "tools.json": lambda: json.dumps(
        {"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}
    ),
}
"""Files a ``shell`` block may assume in its directory, by name."""


@dataclass(frozen=True)
class Block:
    """One fenced code block of the README and its directive."""

    line: int
    lang: str
    text: str
    kind: str | None
    args: tuple[str, ...]


def read_blocks(text: str) -> tuple[list[Block], list[int]]:
    """The fenced blocks, and the line numbers of indented code blocks (which are refused)."""
    blocks: list[Block] = []
    indented: list[int] = []
    lines = text.splitlines()
    directive: re.Match[str] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            kind, args = (
                (directive["kind"], tuple(directive["args"].split()))
                if directive
                else (
                    None,
                    (),
                )
            )
            body = "\n".join(lines[i + 1 : end]) + "\n"
            blocks.append(Block(i + 1, fence["lang"], body, kind, args))
            directive, i = None, end + 1
            continue
        if line.startswith("    ") and i > 0 and not lines[i - 1].strip():
            indented.append(i + 1)
        if line.strip():
            directive = DIRECTIVE.search(line)
        i += 1
    return blocks, indented


BLOCKS, INDENTED = read_blocks(README.read_text())


def _env(*paths: Path) -> dict[str, str]:
    """The environment of a README program: the checkout (and ``paths``) on PYTHONPATH."""
    python_path = os.pathsep.join(str(p) for p in (*paths, ROOT))
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PYTHONPATH": python_path,
        "PATH": bin_dir + os.pathsep + os.environ["PATH"],
    }


def _workspace(tmp_path: Path) -> Path:
    """A directory with ``pkg`` (the checked-in package) and every ``file`` block."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "pkg").symlink_to(ROOT / "generated", target_is_directory=True)
    for block in BLOCKS:
        if block.kind == "file":
            (tmp_path / block.args[0]).write_text(block.text)
    return tmp_path


def _check_output(proc: subprocess.CompletedProcess[str], what: str) -> None:
    assert proc.returncode == 0, f"{what} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"


def run_block(block: Block, tmp_path: Path) -> None:
    """``run``: the program exits 0."""
    assert block.lang == "python", block
    work = _workspace(tmp_path)
    script = work / f"readme_line_{block.line}.py"
    script.write_text(block.text)
    proc = subprocess.run(
        [sys.executable, script.name],
        cwd=work,
        env=_env(work),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    _check_output(proc, f"README.md:{block.line}")


def file_block(block: Block, tmp_path: Path) -> None:
    """``file NAME``: compiles, and another block uses it by name."""
    assert block.lang == "python" and len(block.args) == 1, block
    (name,) = block.args
    compile(block.text, name, "exec")
    stem = name.removesuffix(".py")
    users = [b for b in BLOCKS if b is not block and (name in b.text or f"from {stem} " in b.text)]
    assert users, f"README.md:{block.line}: no block uses {name}"


def http_server_block(block: Block, tmp_path: Path) -> None:
    """``http-server PORT``: the SDK client initializes and calls every tool over HTTP."""
    assert block.lang == "python" and len(block.args) == 1, block
    (port_literal,) = block.args
    assert port_literal in block.text, block
    work = _workspace(tmp_path)
    script = work / f"readme_line_{block.line}.py"

    def argv(port: int) -> list[str]:
        script.write_text(block.text.replace(port_literal, str(port)))
        return [sys.executable, script.name]

    with serving(argv, work, _env(work)) as port:
        asyncio.run(asyncio.wait_for(_call_every_tool(port), RUN_TIMEOUT_S))


async def _call_every_tool(port: int) -> None:
    async with (
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert tools
        for tool in tools:
            result = await session.call_tool(tool.name, TOOL_ARGUMENTS.get(tool.name, {}))
            assert not result.is_error, result


def _commands(block: Block) -> list[list[str]]:
    """The block's commands, split as the shell would (comments dropped)."""
    found = [shlex.split(line, comments=True) for line in block.text.splitlines()]
    return [words for words in found if words]


def shell_block(block: Block, tmp_path: Path) -> None:
    """``shell``: each command exits 0, in order, in one fresh directory."""
    for name, content in SHELL_FIXTURES.items():
        (tmp_path / name).write_text(content())
    for line in block.text.splitlines():
        if not shlex.split(line, comments=True):
            continue
        proc = subprocess.run(
            ["bash", "-c", line],
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        _check_output(proc, f"README.md:{block.line}: {line.strip()}")


def cli_block(block: Block, tmp_path: Path) -> None:
    """``cli``: the subcommand and every flag of each ``mcpgen`` command exist."""
    mcpgen = str(Path(sys.executable).parent / "mcpgen")
    for words in _commands(block):
        assert words[0] == "mcpgen", words
        sub = [words[1]] if len(words) > 1 and not words[1].startswith("-") else []
        proc = subprocess.run(
            [mcpgen, *sub, "--help"], capture_output=True, text=True, check=False, timeout=30
        )
        _check_output(proc, f"mcpgen {' '.join(sub)} --help")
        for flag in (w.split("=")[0] for w in words if w.startswith("-")):
            assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", proc.stdout), (flag, words)


def make_block(block: Block, tmp_path: Path) -> None:
    """``make``: every target named exists in the Makefile."""
    make = shutil.which("make")
    assert make is not None
    for words in _commands(block):
        assert words[0] == "make" and len(words) == 2, words
        proc = subprocess.run(
            [make, "-n", words[1]], cwd=ROOT, capture_output=True, text=True, check=False
        )
        _check_output(proc, f"make -n {words[1]}")


def pip_block(block: Block, tmp_path: Path) -> None:
    """``pip``: the checkout, its extras, constraints files and the package's requirement files
    exist."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for words in _commands(block):
        assert words[:2] == ["pip", "install"], words
        args = words[2:]
        if args[:1] == ["-r"]:
            assert len(args) == 2 and args[1].startswith("pkg/"), words
            assert (ROOT / "generated" / args[1].removeprefix("pkg/")).is_file(), words
            continue
        if args[:1] == ["-c"]:
            assert (ROOT / args[1]).is_file(), words
            args = args[2:]
        assert len(args) == 1, words
        where, _, extras = args[0].partition("[")
        assert where == ".", f"{words}: install from a checkout ('.'), mcpgen is on no index"
        for extra in filter(None, extras.rstrip("]").split(",")):
            assert extra in project["optional-dependencies"], (extra, words)


def example_block(block: Block, tmp_path: Path) -> None:
    """``example``: each example script and its flags exist; exported variables are read."""
    runtime = "".join(p.read_text() for p in (ROOT / "runtime").rglob("*.py"))
    for words in _commands(block):
        if words[0] == "export":
            name = words[1].split("=")[0]
            assert f'"{name}"' in runtime, f"the runtime reads no {name}"
            continue
        assert words[0] == "python" and words[1].startswith("examples/"), words
        proc = subprocess.run(
            [sys.executable, words[1], "--help"],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        _check_output(proc, f"{words[1]} --help")
        for flag in (w.split("=")[0] for w in words if w.startswith("-")):
            assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", proc.stdout), (flag, words)


KINDS: dict[str, Callable[[Block, Path], None]] = {
    "run": run_block,
    "file": file_block,
    "http-server": http_server_block,
    "shell": shell_block,
    "cli": cli_block,
    "make": make_block,
    "pip": pip_block,
    "example": example_block,
}
"""How a block of each kind is covered (the convention at the top of this file)."""


def test_no_indented_code_blocks() -> None:
    """Code is in fenced blocks, which carry a directive; indented ones would escape the test."""
    assert not INDENTED, f"README.md lines {INDENTED}: use a fenced block with a directive"


def test_the_readme_has_blocks_of_each_kind() -> None:
    """The extraction works: the README's blocks are found, every kind is used."""
    assert {block.kind for block in BLOCKS} == set(KINDS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}-{b.kind}" for b in BLOCKS])
def test_block(block: Block, tmp_path: Path) -> None:
    """Each README block is covered by the check its directive names."""
    assert block.kind is not None, f"README.md:{block.line}: no <!-- test: KIND --> directive"
    assert block.kind in KINDS, f"README.md:{block.line}: unknown kind {block.kind!r}"
    KINDS[block.kind](block, tmp_path)


def test_the_readme_app_is_the_example() -> None:
    """The decorator app in the README is ``examples/app_server.py`` (the tested example)."""
    (block,) = [b for b in BLOCKS if b.args == ("weather.py",)]
    example = (ROOT / "examples" / "app_server.py").read_text()
    assert block.text == example.replace("generated.runtime", "pkg.runtime").replace(
        "python app_server.py", "python weather.py"
    )


def test_blocks_without_a_directive_are_found() -> None:
    """A new block with no directive is read with no kind, so ``test_block`` fails on it."""
    text = (
        "<!-- test: run -->\n```python\nprint(1)\n```\n\nSay:\n\n```sh\nmake x\n```\n\n    code\n"
    )
    blocks, indented = read_blocks(text)
    assert [(b.kind, b.lang) for b in blocks] == [("run", "python"), (None, "sh")]
    assert indented == [12]


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_python_blocks_type_check(checker: str, tmp_path: Path) -> None:
    """The README's Python is what a user copies: it passes mypy --strict and pyright strict."""
    work = _workspace(tmp_path / "work")
    for block in BLOCKS:
        if block.lang == "python" and block.kind != "file":
            (work / f"readme_line_{block.line}.py").write_text(block.text)
    strict_check(checker, work, tmp_path)
