"""The pipeline: schema -> typed model -> IR -> templates -> black -> files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import __version__
from .convert.build import build_convert
from .errors import Problem
from .inputs import Sources, inputs_of
from .output import write_package
from .parser.ir import RevisionIR
from .render.project import PackageIR, render_package
from .revision import RevisionInput, build_ir


def render_inputs(inputs: list[RevisionInput]) -> tuple[dict[str, str], list[Problem]]:
    """Render the package for ``inputs`` (oldest first) in memory; nothing is written."""
    irs: list[RevisionIR] = []
    warnings: list[Problem] = []
    for given in inputs:
        ir, found = build_ir(given)
        irs.append(ir)
        warnings.extend(found)
    converters = None
    if len(irs) > 1:
        served = [ir for ir in irs if any(n == "server.py" for _, n in ir.templates)]
        servers = tuple((ir.revision, ir.module) for ir in served)
        clients = tuple((ir.revision, ir.module) for ir in served if ir.has_handshake)
        converters = replace(
            build_convert(inputs), servers=servers, clients=clients, bridge_clients=servers
        )
    files = render_package(PackageIR(__version__, tuple(irs), converters))
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
