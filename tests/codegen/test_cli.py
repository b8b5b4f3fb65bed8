"""The command line: the issue's invocation works, and each error is one line and exit 2."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def run_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mcpgen`` in a fresh process and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd or ROOT,
        check=False,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit status 2, one line on stderr that starts with ``mcpgen: error:``, no traceback."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mcpgen: error:"), lines[0]
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_issue_invocation_writes_a_package(schemas: Path, tmp_path: Path) -> None:
    """``mcpgen --revision 2025-03-26 -o pkg/`` writes an importable package named ``pkg``."""
    proc = run_cli("--revision", "2025-03-26", "-o", "pkg/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pkg = tmp_path / "pkg"
    assert sorted(p.name for p in (pkg / "v2025_03_26").iterdir()) == [
        "__init__.py",
        "client.py",
        "methods.py",
        "server.py",
        "types.py",
    ]
    code = "import pkg, pkg.v2025_03_26.methods as m; print(list(pkg.REVISIONS), len(m.METHODS))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert out.stdout.strip() == "['2025-03-26'] 24"


def test_revision_repeats_and_all(schemas: Path, tmp_path: Path) -> None:
    """``--revision`` repeats; ``all`` expands to every pinned revision."""
    proc = run_cli("-r", "2025-06-18", "-r", "2024-11-05", "-o", str(tmp_path / "two"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "two").iterdir() if p.name.startswith("v")) == [
        "v2024_11_05",
        "v2025_06_18",
    ]
    proc = run_cli("-r", "all", "-o", str(tmp_path / "every"))
    assert proc.returncode == 0, proc.stderr
    assert len([p for p in (tmp_path / "every").iterdir() if p.name.startswith("v")]) == 5


def test_unknown_revision(tmp_path: Path) -> None:
    """An unknown revision names itself and the known ones."""
    proc = run_cli("--revision", "2099-01-01", "-o", str(tmp_path / "pkg"))
    assert_one_line_error(proc, "unknown revision '2099-01-01'", "2025-03-26")
    assert not (tmp_path / "pkg").exists()


def test_schema_file_with_explicit_revision(schemas: Path, tmp_path: Path) -> None:
    """``--schema FILE`` generates a revision that is not in the manifest."""
    source = schemas / "2025-06-18" / "schema.json"
    proc = run_cli("--schema", str(source), "--revision", "draft", "-o", str(tmp_path / "drafts"))
    assert proc.returncode == 0, proc.stderr
    init = (tmp_path / "drafts" / "vdraft" / "types.py").read_text()
    assert hashlib.sha256(source.read_bytes()).hexdigest() in init


def test_invalid_json_schema_file(tmp_path: Path) -> None:
    """A schema file that is not JSON is one clear line."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("--schema", str(bad), "--revision", "x", "-o", str(tmp_path / "pkg"))
    assert_one_line_error(proc, "not valid JSON")
    assert not (tmp_path / "pkg").exists()


def test_schema_file_without_definitions(tmp_path: Path) -> None:
    """A JSON file that is no MCP schema is one clear line."""
    bad = tmp_path / "empty.json"
    bad.write_text(json.dumps({"type": "object"}))
    proc = run_cli("--schema", str(bad), "--revision", "x", "-o", str(tmp_path / "pkg"))
    assert_one_line_error(proc, "no 'definitions' or '$defs'")


def test_schema_with_unsupported_keyword(tmp_path: Path) -> None:
    """A keyword the generator does not understand is reported with its JSON pointer."""
    bad = tmp_path / "odd.json"
    defs = {"Thing": {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}}
    bad.write_text(json.dumps({"definitions": defs}))
    proc = run_cli("--schema", str(bad), "--revision", "x", "-o", str(tmp_path / "pkg"))
    assert_one_line_error(proc, "/definitions/Thing/properties/a", "'oneOf'")


def test_unreadable_schema_file(tmp_path: Path) -> None:
    """A schema path that does not exist is one clear line."""
    proc = run_cli(
        "--schema", str(tmp_path / "nope.json"), "--revision", "x", "-o", str(tmp_path / "p")
    )
    assert_one_line_error(proc, "cannot read schema file")


def test_sha256_mismatch_names_both_digests(schemas: Path, tmp_path: Path) -> None:
    """A schema file whose sha256 differs from the manifest names both digests."""
    fake = tmp_path / "schemas" / "2025-03-26"
    fake.mkdir(parents=True)
    data = (schemas / "2025-03-26" / "schema.json").read_bytes() + b"\n"
    (fake / "schema.json").write_bytes(data)
    proc = run_cli(
        "-r",
        "2025-03-26",
        "-o",
        str(tmp_path / "pkg"),
        env={"MCPGEN_SCHEMA_DIR": str(tmp_path / "schemas")},
    )
    expected = "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131"
    assert_one_line_error(proc, "sha256 mismatch", expected, hashlib.sha256(data).hexdigest())
    assert not (tmp_path / "pkg").exists()


def test_unwritable_output(schemas: Path, tmp_path: Path) -> None:
    """An output folder under a file cannot be created: one clear line, nothing written."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli("-r", "2025-03-26", "-o", str(blocker / "pkg"))
    assert_one_line_error(proc, "cannot write output")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_parent(schemas: Path, tmp_path: Path) -> None:
    """A read-only parent folder is one clear line."""
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        proc = run_cli("-r", "2025-03-26", "-o", str(parent / "pkg"))
    finally:
        parent.chmod(0o700)
    assert_one_line_error(proc, "cannot write output")


def test_refuses_to_replace_foreign_folder(schemas: Path, tmp_path: Path) -> None:
    """A non-empty folder mcpgen did not write is left alone."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    proc = run_cli("-r", "2025-03-26", "-o", str(out))
    assert_one_line_error(proc, "refusing to replace")
    assert (out / "notes.txt").read_text() == "keep me"


def test_regenerating_replaces_previous_output(schemas: Path, tmp_path: Path) -> None:
    """Generating again over an mcpgen package replaces mcpgen's files (no stale revision
    left, no temporary folder)."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-o", str(out)).returncode == 0
    assert run_cli("-r", "2025-06-18", "--prune", "-o", str(out)).returncode == 0
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("v")) == ["v2025_06_18"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".pkg")]


def test_failed_run_keeps_previous_output(schemas: Path, tmp_path: Path) -> None:
    """A run that fails leaves the package from the last good run untouched."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-o", str(out)).returncode == 0
    before = (out / "v2024_11_05" / "types.py").read_bytes()
    assert run_cli("-r", "1999-01-01", "-o", str(out)).returncode == 2
    assert (out / "v2024_11_05" / "types.py").read_bytes() == before


def test_bad_package_name(tmp_path: Path) -> None:
    """The output folder name must be a Python identifier, since it is the package name."""
    proc = run_cli("-r", "2025-03-26", "-o", str(tmp_path / "my-pkg"))
    assert_one_line_error(proc, "not a valid Python package name")


def test_missing_revision_option(tmp_path: Path) -> None:
    """No ``--revision`` at all is a clear error, not a silent empty package."""
    proc = run_cli("-o", str(tmp_path / "pkg"))
    assert_one_line_error(proc, "--revision")


def test_regenerating_keeps_the_users_files_and_says_what_it_removed(
    schemas: Path, tmp_path: Path
) -> None:
    """Files mcpgen did not write survive a regeneration; its own old files go, named."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-o", str(out)).returncode == 0
    (out / "my_notes.py").write_text("NOTE = 1\n")
    (out / "data").mkdir()
    (out / "data" / "todo.txt").write_text("keep me")
    (out / "v2024_11_05" / "extra.py").write_text("X = 2\n")
    proc = run_cli("-r", "2025-06-18", "--prune", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "my_notes.py").read_text() == "NOTE = 1\n"
    assert (out / "data" / "todo.txt").read_text() == "keep me"
    assert (out / "v2024_11_05" / "extra.py").read_text() == "X = 2\n"
    assert sorted(p.name for p in (out / "v2024_11_05").iterdir()) == ["extra.py"]
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("mcpgen: removed 5 file(s) mcpgen wrote before and no longer writes")
    assert "v2024_11_05/types.py" in lines[0] and "v2024_11_05/__init__.py" in lines[0]
    assert lines[1] == (
        "mcpgen: kept 3 file(s) mcpgen did not write: data/todo.txt, my_notes.py, "
        "v2024_11_05/extra.py"
    )
    assert lines[2] == f"mcpgen: wrote {out} (2025-06-18)"
    again = run_cli("-o", str(out))
    assert again.returncode == 0 and "removed" not in again.stderr, again.stderr
    assert run_cli("--check", "-o", str(out)).returncode == 0, "the user's files are no staleness"


def test_a_users_file_where_mcpgen_would_write_is_refused(schemas: Path, tmp_path: Path) -> None:
    """mcpgen does not overwrite a file it did not write: one line, nothing changed."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2025-06-18", "-o", str(out)).returncode == 0
    (out / "converters.py").write_text("mine\n")
    before = (out / "v2025_06_18" / "types.py").read_bytes()
    proc = run_cli("-r", "2025-06-18", "-r", "2025-11-25", "-o", str(out))
    assert_one_line_error(proc, "converters.py was not written by mcpgen")
    assert (out / "converters.py").read_text() == "mine\n"
    assert (out / "v2025_06_18" / "types.py").read_bytes() == before
    assert not (out / "v2025_11_25").exists()


def test_an_unlisted_file_holding_what_mcpgen_writes_there_is_no_clash(
    schemas: Path, tmp_path: Path
) -> None:
    """A file missing from the manifest but byte-identical to mcpgen's output (two branches
    that each regenerated, merged) is replaced, not refused; nothing is reported kept."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2025-06-18", "-o", str(out)).returncode == 0
    manifest = out / ".mcpgen-files"
    lines = manifest.read_text().splitlines()
    assert "_runtime/core/wire.py" in lines
    manifest.write_text("".join(f"{line}\n" for line in lines if line != "_runtime/core/wire.py"))
    proc = run_cli("-r", "2025-06-18", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "kept" not in proc.stderr, proc.stderr
    assert "_runtime/core/wire.py" in manifest.read_text().splitlines()
    (out / "_runtime" / "core" / "wire.py").write_text("# edited\n")
    manifest.write_text("".join(f"{line}\n" for line in lines if line != "_runtime/core/wire.py"))
    refused = run_cli("-r", "2025-06-18", "-o", str(out))
    assert_one_line_error(refused, "wire.py was not written by mcpgen")


def test_a_package_without_manifest_keeps_files_without_mcpgens_header(
    schemas: Path, tmp_path: Path
) -> None:
    """A package written before the manifest: files with mcpgen's header are its, others kept."""
    out = tmp_path / "pkg"
    assert run_cli("-r", "2024-11-05", "-o", str(out)).returncode == 0
    (out / ".mcpgen-files").unlink()
    (out / "my_notes.py").write_text("NOTE = 1\n")
    proc = run_cli("-r", "2025-06-18", "--prune", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "my_notes.py").read_text() == "NOTE = 1\n"
    assert not (out / "v2024_11_05").exists()
    assert "kept 1 file(s) mcpgen did not write: my_notes.py" in proc.stderr
    listed = (out / ".mcpgen-files").read_text().splitlines()
    assert "v2025_06_18/types.py" in listed and "my_notes.py" not in listed
