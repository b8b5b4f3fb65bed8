"""Which revisions a run generates, and from what: pinned ones, schema files, next revisions.

A built-in revision (one of ``schema/manifest.toml``) is read from its pinned file, or from a
file given for it, with its own ``schema/overrides/<rev>.toml``. A next revision is a schema
file of a revision outside the manifest (``--schema REV=FILE``); it names a base revision
(``--base REV=BASE``, or ``base = "..."`` in its own overrides file, ``--overrides
REV=FILE``) whose overrides it inherits where they still hold (``loader/overrides.py``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import GenerationError, Level, Problem
from .loader.overrides import Overrides, load_overrides, next_overrides, parse_own_file
from .loader.source import resolve, sha256_hex
from .revision import RevisionInput, known_revisions


@dataclass(frozen=True)
class Sources:
    """What the command line says about where revisions come from, by revision."""

    files: dict[str, Path] = field(default_factory=dict[str, Path])
    """``--schema REV=FILE``: the schema file of a revision."""
    bases: dict[str, str] = field(default_factory=dict[str, str])
    """``--base REV=BASE``: the revision whose overrides a next revision inherits."""
    overrides: dict[str, Path] = field(default_factory=dict[str, Path])
    """``--overrides REV=FILE``: a next revision's own overrides file."""

    def named(self) -> list[str]:
        """Every revision these options name."""
        return sorted({*self.files, *self.bases, *self.overrides})


def assignments(given: tuple[str, ...], option: str) -> dict[str, str]:
    """``REV=VALUE`` options as a mapping, each revision at most once."""
    out: dict[str, str] = {}
    for text in given:
        revision, sep, value = text.partition("=")
        if not (sep and revision and value):
            raise GenerationError(f"{option} {text!r} is not REV=VALUE")
        if revision in out:
            raise GenerationError(f"{option} names revision {revision} twice")
        out[revision] = value
    return out


def sources(
    schemas: tuple[str, ...],
    requested: tuple[str, ...],
    bases: tuple[str, ...] = (),
    overrides: tuple[str, ...] = (),
) -> Sources:
    """Read ``--schema``, ``--base`` and ``--overrides``; a bare ``--schema FILE`` (the one
    schema file of the one ``--revision``) is the file of that revision."""
    bare = [s for s in schemas if "=" not in s or Path(s).is_file()]
    if bare:
        if len(schemas) != 1 or len(requested) != 1 or requested[0] == "all":
            raise GenerationError(
                "--schema FILE takes exactly one --revision naming its revision "
                "(or give --schema REV=FILE, repeatable)"
            )
        files = {requested[0]: Path(bare[0])}
    else:
        files = {rev: Path(path) for rev, path in assignments(schemas, "--schema").items()}
    return Sources(
        files,
        assignments(bases, "--base"),
        {rev: Path(path) for rev, path in assignments(overrides, "--overrides").items()},
    )


def revision_input(revision: str, given: Sources) -> tuple[RevisionInput, list[Problem]]:
    """Where one revision comes from and which overrides apply to it."""
    source = resolve(revision, given.files.get(revision))
    base = given.bases.get(revision)
    own_path = given.overrides.get(revision)
    if revision in known_revisions():
        if base is not None or own_path is not None:
            raise GenerationError(
                f"{revision} is a built-in revision with its own overrides "
                f"(schema/overrides/{revision}.toml): --base and --overrides are for revisions "
                "outside the manifest"
            )
        return RevisionInput(source, load_overrides(revision)), []
    own, own_sha, own_text = None, None, None
    if own_path is not None:
        own, own_sha, own_text = _own_file(own_path)
        named = own.get("base")
        if base is not None and named is not None and named != base:
            raise GenerationError(
                f"revision {revision}: --base says {base}, its overrides file {own_path} says "
                f"{named}"
            )
        base = base or named
    if base is not None and base not in known_revisions():
        raise GenerationError(
            f"revision {revision}: base {base!r} is no built-in revision; known revisions: "
            f"{', '.join(known_revisions())}"
        )
    if base is None and own is None:
        note = Problem(
            Level.WARNING,
            revision,
            f"names no base revision (--base {revision}=REV): no overrides apply to it",
        )
        return RevisionInput(source, Overrides()), [note]
    return RevisionInput(source, next_overrides(revision, base, own, own_sha), own_text), []


def _own_file(path: Path) -> tuple[dict[str, Any], str, str]:
    """A next revision's own overrides file, parsed and checked, its sha256 and its text."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except OSError as exc:
        raise GenerationError(f"cannot read overrides file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GenerationError(f"overrides file {path} is not UTF-8 text") from None
    return parse_own_file(text, str(path)), sha256_hex(data), text


def select(
    requested: tuple[str, ...],
    given: Sources,
    existing: list[str] | None,
    out: Path,
    kept: Collection[str] = (),
) -> list[str]:
    """The revisions to write, oldest first: those asked for (``all``: every built-in one)
    and those given a schema file, else the ones the package in ``out`` holds. A revision
    outside the manifest may be asked for by name when the package keeps its inputs."""
    known = known_revisions()
    stray = [rev for rev in given.named() if rev not in given.files and rev not in known]
    if stray:
        raise GenerationError(
            f"--base/--overrides name {', '.join(stray)}: give its schema with "
            f"--schema {stray[0]}=FILE"
        )
    if not requested and not given.files:
        if existing:
            return existing
        raise GenerationError(
            f"give at least one --revision (or --revision all): {out} holds no mcpgen package "
            "whose revisions could be regenerated"
        )
    chosen: set[str] = set(given.files)
    for name in requested:
        for rev in known if name == "all" else [name]:
            if rev not in known and rev not in given.files and rev not in kept:
                raise GenerationError(
                    f"unknown revision {rev!r}; known revisions: {', '.join(known)}, all "
                    f"(a revision outside the manifest needs --schema {rev}=FILE)"
                )
            chosen.add(rev)
    unused = [rev for rev in given.named() if rev not in chosen]
    if unused:
        raise GenerationError(f"options name revision(s) {', '.join(unused)} not generated")
    return sorted(chosen)


def inputs_of(revisions: list[str], given: Sources) -> tuple[list[RevisionInput], list[Problem]]:
    """The inputs of every revision of a run, and the warnings found choosing them."""
    found: list[RevisionInput] = []
    warnings: list[Problem] = []
    for revision in revisions:
        given_input, notes = revision_input(revision, given)
        found.append(given_input)
        warnings.extend(notes)
    return found, warnings
