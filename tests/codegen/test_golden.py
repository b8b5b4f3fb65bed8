"""The golden record: generated/ is fresh, output is deterministic, and it type-checks."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REVISIONS, ROOT, schema_dir


def generate(out: Path, seed: str, *revisions: str) -> None:
    """Run the generator in a fresh process with a given hash seed."""
    args = [a for rev in revisions for a in ("-r", rev)]
    subprocess.run(
        [sys.executable, "-m", "mcpgen", *args, "-o", str(out)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": seed, "MCPGEN_SCHEMA_DIR": str(schema_dir())},
    )


def tree(root: Path) -> dict[str, bytes]:
    """Map every file below ``root`` (caches aside) to its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".mypy_cache" not in p.parts
    }


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, schemas: Path) -> Path:
    """A fresh generation of every revision, named like the checked-in package."""
    out = tmp_path_factory.mktemp("fresh") / "generated"
    generate(out, "1", *REVISIONS)
    return out


def test_checked_in_output_is_current(fresh: Path) -> None:
    """generated/ is exactly what `make generate` writes now (else: run it and commit)."""
    expected, actual = tree(fresh), tree(ROOT / "generated")
    stale = sorted(k for k in expected.keys() | actual.keys() if expected.get(k) != actual.get(k))
    assert not stale, f"generated/ is stale, run `make generate`: {stale}"


def test_same_bytes_under_another_hash_seed(fresh: Path, tmp_path: Path) -> None:
    """Generating again under another PYTHONHASHSEED gives identical bytes."""
    other = tmp_path / "generated"
    generate(other, "4242", *REVISIONS)
    cmp = filecmp.dircmp(fresh, other)
    assert tree(fresh) == tree(other), cmp.diff_files


def test_header_names_revision_sha_and_version(fresh: Path) -> None:
    """Each module says its revision, schema sha256 and generator version, and no timestamp."""
    from mcpgen import __version__

    first = " ".join((fresh / "v2025_03_26" / "types.py").read_text().splitlines()[:2])
    assert "2025-03-26" in first
    assert "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131" in first
    assert f"mcpgen {__version__}" in first
    assert "2026-" not in first.replace("2026-07-28", "")


def test_generated_package_passes_mypy_strict(fresh: Path, tmp_path: Path) -> None:
    """mypy --strict accepts the whole generated package."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "mypy"),
            "generated",
        ],
        cwd=fresh.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_package_is_ruff_clean(fresh: Path) -> None:
    """ruff (the project's rules) finds nothing in the generated package."""
    proc = subprocess.run(
        # Long lines are the schema's descriptions, kept verbatim in docstrings.
        [sys.executable, "-m", "ruff", "check", "--extend-ignore", "E501", str(fresh)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_package_imports_without_mcpgen(fresh: Path) -> None:
    """The output needs msgspec and nothing of mcpgen or its generator dependencies."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(fresh.parent)!r})\n"
        "for name in ('mcpgen', 'jinja2', 'black', 'click'):\n"
        "    sys.modules[name] = None\n"
        "import generated\n"
        "for m in generated.REVISIONS.values():\n"
        "    __import__(f'generated.{m}.methods')\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=fresh.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout.strip() == "ok", proc.stderr


def test_generated_modules_are_black_stable(fresh: Path) -> None:
    """Black (the fixed settings) leaves every generated module as it is: one pass was enough."""
    import black

    from mcpgen.render.project import BLACK_MODE

    unstable = [
        str(path.relative_to(fresh))
        for path in sorted(fresh.rglob("*.py"))
        if "_runtime" not in path.parts
        and black.format_str(path.read_text(), mode=BLACK_MODE) != path.read_text()
    ]
    assert not unstable
