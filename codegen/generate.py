"""The pipeline: schema -> typed model -> IR -> templates -> black -> files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import __version__
from .convert.build import build_convert
from .errors import Problem
from .inputs import Sources, inputs_of
from .kept import kept_files
from .output import write_package
from .render.project import PackageIR, render_package
from .revision import RevisionInput, build_revision_of


def render_inputs(inputs: list[RevisionInput]) -> tuple[dict[str, str], list[Problem]]:
    """Render the package for ``inputs`` (oldest first) in memory; nothing is written."""
    built = [build_revision_of(given) for given in inputs]
    irs = [b.ir for b in built]
    warnings = [w for b in built for w in b.warnings]
    converters = None
    if len(irs) > 1:
        served = [ir for ir in irs if any(n == "server.py" for _, n in ir.templates)]
        servers = tuple((ir.revision, ir.module) for ir in served)
        clients = tuple((ir.revision, ir.module) for ir in served if ir.has_handshake)
        converters = replace(
            build_convert(built), servers=servers, clients=clients, bridge_clients=servers
        )
    files = render_package(PackageIR(__version__, tuple(irs), converters))
    for b in built:
        files.update(kept_files(b.given, b.ir.module))
    return files, warnings


def render(
    revisions: list[str], schema_file: Path | None = None
) -> tuple[dict[str, str], list[Problem]]:
    """Render the package for ``revisions`` (one, when ``schema_file`` gives its schema)."""
    files = {revisions[0]: schema_file} if schema_file is not None else {}
    inputs, warnings = inputs_of(revisions, Sources(files))
    rendered, found = render_inputs(inputs)
    return rendered, warnings + found


def generate(revisions: list[str], out: Path, schema_file: Path | None = None) -> list[Problem]:
    """Generate the package for ``revisions`` into ``out``; returns the warnings."""
    files, warnings = render(revisions, schema_file)
    write_package(out, files)
    return warnings
