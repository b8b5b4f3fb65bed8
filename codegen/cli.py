"""The ``mcpgen`` command line."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .diff.command import diff_command
from .errors import GenerationError
from .generate import generate, known_revisions

EXIT_USAGE = 2


def _revisions(requested: tuple[str, ...], schema_file: Path | None) -> list[str]:
    known = known_revisions()
    if not requested:
        raise GenerationError("give at least one --revision (or --revision all)")
    if schema_file is not None:
        if len(requested) != 1 or requested[0] == "all":
            raise GenerationError("--schema FILE takes exactly one --revision naming its revision")
        return list(requested)
    out: list[str] = []
    for name in requested:
        for rev in known if name == "all" else [name]:
            if rev not in known:
                raise GenerationError(
                    f"unknown revision {rev!r}; known revisions: {', '.join(known)}, all"
                )
            if rev not in out:
                out.append(rev)
    return sorted(out)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--revision",
    "-r",
    "revisions",
    multiple=True,
    metavar="REV",
    help="Protocol revision to generate (repeatable), or 'all'.",
)
@click.option(
    "--schema",
    "schema_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Generate from this schema file, not the pinned one (one --revision names it).",
)
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(path_type=Path, file_okay=True),
    help="Output package folder; the package is named after it.",
)
@click.version_option(__version__, prog_name="mcpgen")
def cli(revisions: tuple[str, ...], schema_file: Path | None, out: Path) -> None:
    """Generate typed MCP bindings (msgspec types and method tables) for protocol revisions."""
    try:
        if not out.name.isidentifier():
            raise GenerationError(
                f"output folder name {out.name!r} is not a valid Python package name"
            )
        selected = _revisions(revisions, schema_file)
        warnings = generate(selected, out, schema_file)
    except GenerationError as exc:
        click.echo(f"mcpgen: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    for warning in warnings:
        click.echo(f"mcpgen: {warning}", err=True)
    click.echo(f"mcpgen: wrote {out} ({', '.join(selected)})", err=True)


# Subcommands: ``mcpgen NAME ...`` runs the click command of the row NAME; anything else is
# the main command (``mcpgen --revision ... -o ...``).
SUBCOMMANDS: dict[str, click.Command] = {
    "diff": diff_command,
}


def main() -> None:
    """Run the command line (the ``mcpgen`` console script)."""
    args = sys.argv[1:]
    if args and args[0] in SUBCOMMANDS:
        SUBCOMMANDS[args[0]].main(args[1:], prog_name=f"mcpgen {args[0]}")
    else:
        cli()
