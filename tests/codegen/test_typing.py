"""Type checkers see what users should see: mypy --strict and pyright strict, side by side.

``tests/typing_pins/examples.py`` holds ``reveal_type`` calls with the expected type in a trailing
``# assert`` comment (msgspec's ``tests/typing`` is the model) and lines the checkers must refuse
(``# expect-error``). Both checkers also pass the generator and the generated package.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.node_tools import node_env, node_tool

EXAMPLES = ROOT / "tests" / "typing_pins" / "examples.py"
PYRIGHT_CONFIG = ROOT / "tests" / "typing_pins" / "pyrightconfig.json"
_MYPY_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<kind>note|error): (?P<msg>.*)$")
_REVEALED = re.compile(r'^(?:Revealed type is|Type of ".*" is) "(?P<typ>.*)"$')


def _expectations() -> tuple[dict[int, str], set[int]]:
    """(line -> assertion of its revealed type, lines that must be refused), 1-based."""
    asserts: dict[int, str] = {}
    refused: set[int] = set()
    for number, line in enumerate(EXAMPLES.read_text().splitlines(), start=1):
        if "reveal_type(" in line and "# assert " in line:
            asserts[number] = line.split("# assert ", 1)[1]
        elif line.rstrip().endswith("# expect-error"):
            refused.add(number)
    return asserts, refused


def _mypy(tmp_path: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"), *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def _pyright(*targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            node_tool("pyright"),
            "-p",
            str(PYRIGHT_CONFIG),
            "--pythonpath",
            sys.executable,
            "--outputjson",
            *targets,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env=node_env(),
    )


Findings = tuple[dict[int, str], set[int]]
"""A checker's revealed types by line and the lines it refused."""


def _sort(diagnostics: list[tuple[int, bool, bool, str]], output: str) -> Findings:
    """Split (line, is_note, is_error, message) diagnostics into revealed types and refusals."""
    revealed: dict[int, str] = {}
    errors: set[int] = set()
    for number, is_note, is_error, message in diagnostics:
        typ = _REVEALED.match(message)
        if is_note and typ is not None:
            revealed[number] = typ["typ"]
        elif is_error:
            errors.add(number)
    assert revealed, output
    return revealed, errors


def _mypy_findings(tmp_path: Path) -> Findings:
    """What mypy reveals and refuses in the examples."""
    proc = _mypy(tmp_path, str(EXAMPLES.relative_to(ROOT)))
    found = [_MYPY_LINE.match(line) for line in proc.stdout.splitlines()]
    diagnostics = [
        (int(f["line"]), f["kind"] == "note", f["kind"] == "error", f["msg"])
        for f in found
        if f is not None and f["file"].endswith("examples.py")
    ]
    return _sort(diagnostics, proc.stdout + proc.stderr)


def _pyright_findings() -> Findings:
    """What pyright reveals and refuses in the examples."""
    proc = _pyright(str(EXAMPLES.relative_to(ROOT)))
    diagnostics = [
        (
            d["range"]["start"]["line"] + 1,
            d["severity"] == "information",
            d["severity"] == "error",
            d["message"],
        )
        for d in json.loads(proc.stdout)["generalDiagnostics"]
    ]
    return _sort(diagnostics, proc.stdout + proc.stderr)


@pytest.fixture(scope="module")
def findings(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Findings]:
    """Each checker's revealed types and refused lines in the examples."""
    return {
        "mypy": _mypy_findings(tmp_path_factory.mktemp("typing")),
        "pyright": _pyright_findings(),
    }


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_revealed_types(findings: dict[str, Findings], checker: str) -> None:
    """Every ``reveal_type`` shows what its ``# assert`` comment says."""
    asserts, _ = _expectations()
    revealed, _ = findings[checker]
    wrong = []
    for number, check in sorted(asserts.items()):
        typ = revealed.get(number)
        if typ is None or not eval(check, {"typ": typ}):
            wrong.append(f"line {number}: {check!r} with typ={typ!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_refused_lines(findings: dict[str, Findings], checker: str) -> None:
    """The checker refuses exactly the lines marked ``# expect-error``, nothing else."""
    _, refused = _expectations()
    _, errors = findings[checker]
    assert errors == refused


def test_pyright_strict_passes_on_codegen_and_generated() -> None:
    """pyright in strict mode finds nothing in the generator and the generated package."""
    proc = _pyright("codegen", "generated")
    report = json.loads(proc.stdout)
    problems = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert not problems, "\n".join(problems[:30])


def test_mypy_strict_passes_on_codegen(tmp_path: Path) -> None:
    """mypy --strict accepts the generator (the golden test checks the generated package)."""
    proc = _mypy(tmp_path, "codegen")
    assert proc.returncode == 0, proc.stdout + proc.stderr
