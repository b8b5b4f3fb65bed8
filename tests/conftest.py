"""Shared fixtures: where the schema files are, and the repository root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def schema_dir() -> Path:
    """Return the folder of ``<rev>/schema.json``: ``MCPGEN_SCHEMA_DIR`` or ../shared/schema."""
    return Path(os.environ.get("MCPGEN_SCHEMA_DIR") or SHARED / "schema")


@pytest.fixture(scope="session")
def schemas() -> Path:
    """The schema folder, skipping tests that need it when it is absent."""
    folder = schema_dir()
    if not (folder / REVISIONS[0] / "schema.json").is_file():
        pytest.skip(
            "schema files not found: set MCPGEN_SCHEMA_DIR or put ../shared beside the project"
        )
    return folder


@pytest.fixture(autouse=True)
def _schema_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Point mcpgen at the local schema files and a private, empty cache; never download."""
    monkeypatch.setenv("MCPGEN_SCHEMA_DIR", str(schema_dir()))
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
