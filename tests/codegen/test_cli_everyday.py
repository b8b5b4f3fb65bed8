"""The everyday command line: ``--check``, ``--help``, regenerating in place, ``--prune``, and
errors that name the path they looked at."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.codegen.test_cli import assert_one_line_error, run_cli
from tests.conftest import REVISIONS, ROOT


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes (``__pycache__`` left out)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _last_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_check_of_the_checked_in_package_is_fresh(schemas: Path) -> None:
    """``mcpgen --check -o generated`` finds the golden package up to date (exit 0)."""
    proc = run_cli("--check", "-o", "generated", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert _last_line(proc) == f"mcpgen: generated is up to date ({', '.join(REVISIONS)})"


def test_check_reports_each_kind_of_staleness_and_writes_nothing(
    schemas: Path, tmp_path: Path
) -> None:
    """A changed, a missing and an extra file (mcpgen's, no longer written) each make --check
    exit 1 naming the file; a file mcpgen did not write is none of these."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2025-03-26", "-o", str(out)).returncode == 0
    assert run_cli("--check", "-o", str(out)).returncode == 0
    (out / "v2025_03_26" / "__pycache__").mkdir()
    (out / "v2025_03_26" / "__pycache__" / "types.cpython-311.pyc").write_bytes(b"x")
    assert run_cli("--check", "-o", str(out)).returncode == 0, "__pycache__ is not staleness"

    types = out / "v2025_03_26" / "types.py"
    types.write_text(types.read_text() + "# edited\n")
    before = _snapshot(out)
    proc = run_cli("--check", "-o", str(out))
    assert proc.returncode == 1, proc.stderr
    assert _last_line(proc) == f"mcpgen: {out} is stale: 1 changed (v2025_03_26/types.py)"
    assert _snapshot(out) == before

    (out / "py.typed").unlink()
    (out / "notes.txt").write_text("mine")  # not written by mcpgen: kept, no staleness
    manifest = out / ".mcpgen-files"
    manifest.write_text(manifest.read_text() + "old.py\n")
    (out / "old.py").write_text("# written by an earlier run\n")
    proc = run_cli("--check", "-o", str(out))
    assert proc.returncode == 1
    assert _last_line(proc).endswith(
        "is stale: 2 changed, 1 missing, 1 extra "
        "(.mcpgen-files, v2025_03_26/types.py, py.typed, ...)"
    )
    assert "notes.txt" not in proc.stderr


def test_check_with_other_revisions_than_on_disk_is_stale(schemas: Path, tmp_path: Path) -> None:
    """--check --revision X compares with a package of X: another revision on disk is stale."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2025-03-26", "-o", str(out)).returncode == 0
    proc = run_cli("--check", "-r", "2025-06-18", "-o", str(out))
    assert proc.returncode == 1
    assert "missing" in proc.stderr and "extra" in proc.stderr
    proc = run_cli("--check", "-r", "2025-06-18", "-o", str(tmp_path / "absent"))
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr


def test_check_errors_exit_2(schemas: Path, tmp_path: Path) -> None:
    """Nothing to infer revisions from, or an unknown revision, is an error, not 'stale'."""
    proc = run_cli("--check", "-o", str(tmp_path / "absent"))
    assert_one_line_error(proc, "--revision", "holds no mcpgen package")
    proc = run_cli("--check", "-r", "1999-01-01", "-o", str(tmp_path / "absent"))
    assert_one_line_error(proc, "unknown revision '1999-01-01'")


def test_help_lists_revisions_environment_and_exit_statuses() -> None:
    """--help names every known revision, the environment variables and the exit statuses."""
    proc = run_cli("--help")
    assert proc.returncode == 0, proc.stderr
    for needle in (*REVISIONS, "MCPGEN_SCHEMA_DIR", "MCPGEN_CACHE_DIR", "--check", "--prune"):
        assert needle in proc.stdout, needle
    assert "1 stale" in proc.stdout


def test_subset_refuses_to_drop_other_revisions_unless_pruned(
    schemas: Path, tmp_path: Path
) -> None:
    """Regenerating a subset names the revisions it would delete and keeps the package."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-r", "2025-06-18", "-o", str(out)).returncode == 0
    before = _snapshot(out)
    proc = run_cli("-r", "2025-06-18", "-o", str(out))
    assert_one_line_error(proc, "2024-11-05", "would delete", "--prune")
    assert _snapshot(out) == before
    proc = run_cli("-r", "2025-06-18", "--prune", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("v")) == ["v2025_06_18"]


def test_no_revision_regenerates_what_the_package_holds(schemas: Path, tmp_path: Path) -> None:
    """``mcpgen -o pkg/`` regenerates the revisions pkg/ holds, byte for byte."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-r", "2025-11-25", "-o", str(out)).returncode == 0
    before = _snapshot(out)
    (out / "v2025_11_25" / "types.py").write_text("broken = (\n")
    proc = run_cli("-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "(2024-11-05, 2025-11-25)" in proc.stderr
    assert _snapshot(out) == before


def test_schema_dir_error_names_the_path_it_looked_at(tmp_path: Path) -> None:
    """A revision missing from $MCPGEN_SCHEMA_DIR (and not downloadable) names that path."""
    empty = tmp_path / "schemas"
    empty.mkdir()
    proc = run_cli(
        "-r",
        "2025-03-26",
        "-o",
        str(tmp_path / "pkg"),
        # A proxy that refuses at once: the download fails fast, without the internet.
        env={"MCPGEN_SCHEMA_DIR": str(empty), "https_proxy": "http://127.0.0.1:9"},
    )
    assert_one_line_error(
        proc, str(empty / "2025-03-26" / "schema.json"), "$MCPGEN_SCHEMA_DIR", "downloading"
    )
