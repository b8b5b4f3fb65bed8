"""One revision's first stages: a schema source -> typed model (overrides applied) -> IR."""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import __version__
from .errors import GenerationError, Level, Problem
from .loader.model import SchemaDocument, parse_document
from .loader.overrides import Overrides, load_overrides, patch_schema
from .loader.source import SchemaSource, load_manifest, resolve
from .parser import build_revision
from .parser.ir import RevisionIR


@dataclass(frozen=True)
class RevisionInput:
    """What one revision is generated from: its schema file and its overrides."""

    source: SchemaSource
    overrides: Overrides
    own_file: str | None = None
    """A next revision's own overrides file as given (kept in its package), if it has one."""

    @property
    def revision(self) -> str:
        """The revision's name (its protocol version string)."""
        return self.source.revision


def known_revisions() -> list[str]:
    """Return the revisions of the pinned manifest, oldest first."""
    return list(load_manifest())


def pinned_input(revision: str) -> RevisionInput:
    """A built-in revision: its pinned schema file and its own overrides."""
    return RevisionInput(resolve(revision), load_overrides(revision))


def patched_document(given: RevisionInput) -> tuple[SchemaDocument, tuple[Problem, ...]]:
    """The typed schema model of a revision with its patches applied, and what was skipped."""
    source = given.source
    try:
        raw = json.loads(source.data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenerationError(f"schema {source.origin} is not valid JSON: {exc}") from None
    raw, skipped = patch_schema(raw, given.overrides.patches, source.revision)
    return parse_document(raw, source.origin), skipped


@dataclass(frozen=True)
class BuiltRevision:
    """One revision after its first stages: its input, its patched schema model and its IR."""

    given: RevisionInput
    doc: SchemaDocument
    ir: RevisionIR
    warnings: tuple[Problem, ...]


def build_revision_of(given: SchemaSource | RevisionInput) -> BuiltRevision:
    """Run one revision's first stages once, raising if the schema has errors.

    A bare ``SchemaSource`` gets the overrides of the revision it names, if it has any. The
    generator, the converters' planner and ``mcpgen diff`` all start from this one result.
    """
    if isinstance(given, SchemaSource):
        given = RevisionInput(given, load_overrides(given.revision))
    source = given.source
    doc, skipped = patched_document(given)
    _stop_on_errors(doc.problems, source.origin)  # the parser relies on a well-formed model
    ir, problems = build_revision(source.revision, source.sha256, __version__, doc, given.overrides)
    _stop_on_errors(problems, source.origin)
    warnings = (*skipped, *(p for p in problems if p.level is Level.WARNING))
    return BuiltRevision(given, doc, ir, warnings)


def build_ir(given: SchemaSource | RevisionInput) -> tuple[RevisionIR, list[Problem]]:
    """Turn one schema file into its IR and its warnings, raising if the schema has errors."""
    built = build_revision_of(given)
    return built.ir, list(built.warnings)


def _stop_on_errors(problems: tuple[Problem, ...], origin: str) -> None:
    """Raise one line naming the first error (and how many more) when there is any."""
    errors = [p for p in problems if p.level is Level.ERROR]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        first = f"{errors[0].where}: {errors[0].message}"
        raise GenerationError(f"schema {origin} cannot be generated: {first}{more}")
