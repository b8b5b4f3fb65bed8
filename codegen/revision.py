"""One revision's first stages: a schema source -> typed model (overrides applied) -> IR."""

from __future__ import annotations

import json

from . import __version__
from .errors import GenerationError, Level, Problem
from .loader.model import parse_document
from .loader.overrides import apply_patches, load_overrides
from .loader.source import SchemaSource, load_manifest
from .parser import build_revision
from .parser.ir import RevisionIR


def known_revisions() -> list[str]:
    """Return the revisions of the pinned manifest, oldest first."""
    return list(load_manifest())


def build_ir(source: SchemaSource) -> tuple[RevisionIR, list[Problem]]:
    """Turn one schema file into its IR, raising if the schema has errors."""
    try:
        raw = json.loads(source.data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenerationError(f"schema {source.origin} is not valid JSON: {exc}") from None
    overrides = load_overrides(source.revision)
    raw = apply_patches(raw, overrides.patches, source.revision)
    doc = parse_document(raw, source.origin)
    _stop_on_errors(doc.problems, source.origin)  # the parser relies on a well-formed model
    ir, problems = build_revision(source.revision, source.sha256, __version__, doc, overrides)
    _stop_on_errors(problems, source.origin)
    return ir, [p for p in problems if p.level is Level.WARNING]


def _stop_on_errors(problems: tuple[Problem, ...], origin: str) -> None:
    """Raise one line naming the first error (and how many more) when there is any."""
    errors = [p for p in problems if p.level is Level.ERROR]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        first = f"{errors[0].where}: {errors[0].message}"
        raise GenerationError(f"schema {origin} cannot be generated: {first}{more}")
