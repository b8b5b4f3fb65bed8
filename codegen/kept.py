"""A next revision's inputs, kept in its package, so that ``mcpgen -o pkg/`` regenerates it.

A revision outside the manifest has no pinned file to find again. The run that generates one
writes what it was generated from into the revision's subpackage, ``<module>/source/``: the
schema file as given (``schema.json``), its own overrides file as given (``overrides.toml``,
when there is one), and ``inputs.toml`` naming the revision and its base. A later run that is
not given that revision's schema file reads them back from there, so the package regenerates
byte for byte alike, as a package of built-in revisions does.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import GenerationError
from .inputs import Sources
from .revision import RevisionInput, known_revisions

FOLDER = "source"
SCHEMA = "schema.json"
OVERRIDES = "overrides.toml"
INPUTS = "inputs.toml"


def kept_files(given: RevisionInput, module: str) -> dict[str, str]:
    """The files that keep a next revision's inputs in its subpackage (none for a built-in)."""
    revision = given.revision
    if revision in known_revisions():
        return {}
    try:
        schema = given.source.data.decode("utf-8")
    except UnicodeDecodeError:
        raise GenerationError(
            f"schema {given.source.origin} of revision {revision} is not UTF-8 text"
        ) from None
    folder = f"{module}/{FOLDER}"
    lines = [
        f"# Written by mcpgen: what revision {revision} of this package is generated from",
        "# (schema.json, overrides.toml); `mcpgen -o PKG` reads them when not given others.",
        f'revision = "{revision}"',
    ]
    if given.overrides.base is not None:
        lines.append(f'base = "{given.overrides.base}"')
    files = {f"{folder}/{SCHEMA}": schema, f"{folder}/{INPUTS}": "\n".join(lines) + "\n"}
    if given.own_file is not None:
        files[f"{folder}/{OVERRIDES}"] = given.own_file
    return files


def kept_sources(out: Path) -> Sources:
    """What the package in ``out`` keeps of its next revisions' inputs, as command-line sources."""
    found = Sources()
    for inputs in sorted(out.glob(f"*/{FOLDER}/{INPUTS}")):
        try:
            table = tomllib.loads(inputs.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise GenerationError(f"cannot read {inputs}: {exc}") from None
        revision, base = table.get("revision"), table.get("base")
        if not isinstance(revision, str) or not (base is None or isinstance(base, str)):
            raise GenerationError(f"{inputs} is not as mcpgen wrote it (revision, base)")
        found.files[revision] = inputs.parent / SCHEMA
        if base is not None:
            found.bases[revision] = base
        if (inputs.parent / OVERRIDES).is_file():
            found.overrides[revision] = inputs.parent / OVERRIDES
    return found


def with_kept(given: Sources, kept: Sources, selected: list[str]) -> Sources:
    """``given``, plus the kept inputs of each selected revision the command line gives none."""
    files, bases, overrides = dict(given.files), dict(given.bases), dict(given.overrides)
    for revision in selected:
        if revision in files or revision not in kept.files:
            continue
        files[revision] = kept.files[revision]
        if revision in kept.bases and revision not in bases:
            bases[revision] = kept.bases[revision]
        if revision in kept.overrides and revision not in overrides:
            overrides[revision] = kept.overrides[revision]
    return Sources(files, bases, overrides)
