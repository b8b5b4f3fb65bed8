"""The pipeline: schema -> typed model -> IR -> templates -> black -> files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from . import __version__
from .errors import GenerationError, Level, Problem
from .loader.model import parse_document
from .loader.overrides import apply_patches, load_overrides
from .loader.source import SchemaSource, load_manifest, resolve
from .output import write_package
from .parser import build_revision
from .parser.ir import RevisionIR
from .render.project import PackageIR, render_package


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


def render(
    revisions: list[str], schema_file: Path | None = None
) -> tuple[dict[str, str], list[Problem]]:
    """Render the package for ``revisions`` in memory; nothing is written."""
    irs: list[RevisionIR] = []
    warnings: list[Problem] = []
    for revision in revisions:
        ir, found = build_ir(resolve(revision, schema_file))
        irs.append(ir)
        warnings.extend(found)
    from .convert.build import build_convert  # the diff it builds on imports this module

    converters = None
    if len(irs) > 1 and schema_file is None:
        served = [ir for ir in irs if any(n == "server.py" for _, n in ir.templates)]
        servers = tuple((ir.revision, ir.module) for ir in served)
        clients = tuple((ir.revision, ir.module) for ir in served if ir.has_handshake)
        converters = replace(build_convert(revisions), servers=servers, clients=clients)
    files = render_package(PackageIR(__version__, tuple(irs), converters))
    return files, warnings


def generate(revisions: list[str], out: Path, schema_file: Path | None = None) -> list[Problem]:
    """Generate the package for ``revisions`` into ``out``; returns the warnings."""
    files, warnings = render(revisions, schema_file)
    write_package(out, files)
    return warnings
