"""The ``mcpgen`` command line."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn, cast

import click

from . import __version__
from .errors import GenerationError

if TYPE_CHECKING:
    from .output import Written

EXIT_STALE = 1
EXIT_USAGE = 2


class _Commands(click.Group):
    """The main command and its subcommands, each imported only when it is named, as are the
    main command's own modules when it runs: ``mcpgen bridge`` starts without the generator's
    imports (black, jinja2, the schema parser: about a third of a second)."""

    ELSEWHERE: ClassVar[dict[str, tuple[str, str]]] = {
        "bridge": (".bridge_command", "bridge_command"),
        "diff": (".diff.command", "diff_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every subcommand's name."""
        return sorted([*super().list_commands(ctx), *self.ELSEWHERE])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The subcommand ``cmd_name``, its module imported now if it lives elsewhere."""
        found = self.ELSEWHERE.get(cmd_name)
        if found is None:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(found[0], __package__)
        return cast(click.Command, getattr(module, found[1]))

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The end of ``--help``, made when it is shown (it reads the manifest)."""
        self.epilog = _epilog()
        super().format_epilog(ctx, formatter)


def _epilog() -> str:
    """The end of ``--help``: the known revisions, the environment, the exit statuses."""
    from .loader.source import CACHE_DIR_ENV, SCHEMA_DIR_ENV
    from .revision import known_revisions

    try:
        known = ", ".join(known_revisions())
    except Exception as exc:  # --help must work even with a broken installation
        known = f"(cannot read the manifest: {exc})"
    return (
        "\b\n"
        f"Known revisions: {known} (or 'all').\n"
        "\b\n"
        "Environment:\n"
        f"  {SCHEMA_DIR_ENV}  folder of <revision>/schema.json files, read first\n"
        f"  {CACHE_DIR_ENV}   where downloaded schema files are kept\n"
        "                     (default $XDG_CACHE_HOME/mcpgen/schema or ~/.cache/mcpgen/schema)\n"
        "\b\n"
        "Exit status: 0 written (or up to date with --check), 1 stale (--check), 2 error.\n"
        "\b\n"
        "Examples:\n"
        "  mcpgen --revision 2025-11-25 -o pkg/     write package pkg/\n"
        "  mcpgen -o pkg/                           regenerate the revisions pkg/ holds\n"
        "                                           (a next revision from what pkg/ kept)\n"
        "  mcpgen --check -o pkg/                   is pkg/ what mcpgen would write?\n"
        "  mcpgen -r all --schema 2027-01-01=next.json --base 2027-01-01=2026-07-28 -o pkg/\n"
        "                                           every revision plus a next one\n"
        "  mcpgen tools --server 'python srv.py' -o mytools/   typed bindings of a server's tools"
    )


def _guard_dropped(selected: list[str], existing: list[str] | None, out: Path) -> None:
    """Refuse to delete revisions the package holds that this run does not write."""
    dropped = [rev for rev in existing or [] if rev not in selected]
    if dropped:
        raise GenerationError(
            f"{out} holds revision(s) {', '.join(dropped)} that this run would delete: "
            "add them with --revision (or --revision all; one outside the manifest with "
            "--schema REV=FILE), or pass --prune to drop them"
        )


def _output_option(text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The ``-o/--output`` option of both commands."""
    return click.option(
        "-o", "--output", "out", type=click.Path(path_type=Path, file_okay=True), help=text
    )


def _package_folder(out: Path | None) -> Path:
    """The output folder, given and named as a package can be."""
    if out is None:
        raise GenerationError("give the output package folder with -o/--output")
    if not out.name.isidentifier():
        raise GenerationError(f"output folder name {out.name!r} is not a valid Python package name")
    return out


@click.group(
    cls=_Commands,
    invoke_without_command=True,
    subcommand_metavar="[COMMAND [ARGS]...]",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--revision",
    "-r",
    "revisions",
    multiple=True,
    metavar="REV",
    help="Protocol revision to generate (repeatable), or 'all'. "
    "Default: the revisions the output package already holds.",
)
@click.option(
    "--schema",
    "schemas",
    multiple=True,
    metavar="[REV=]FILE",
    help="The schema file of revision REV (repeatable; a revision outside the manifest is "
    "generated too), or FILE for the one --revision.",
)
@click.option(
    "--base",
    "bases",
    multiple=True,
    metavar="REV=BASE",
    help="A revision outside the manifest inherits the overrides of built-in revision BASE "
    "where they still hold (repeatable).",
)
@click.option(
    "--overrides",
    "overrides",
    multiple=True,
    metavar="REV=FILE",
    help='The overrides file of a revision outside the manifest: base = "BASE", its own '
    "entries and [drop] lists (repeatable; see the README).",
)
@_output_option("Output package folder (required); the package is named after it.")
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if the package in the output folder is not what mcpgen "
    "would write now (stale), 0 if it is.",
)
@click.option(
    "--prune",
    is_flag=True,
    help="Allow deleting revisions the output package holds but this run does not write.",
)
@click.version_option(__version__, prog_name="mcpgen")
@click.pass_context
def cli(
    ctx: click.Context,
    revisions: tuple[str, ...],
    schemas: tuple[str, ...],
    bases: tuple[str, ...],
    overrides: tuple[str, ...],
    out: Path | None,
    check: bool,
    prune: bool,
) -> None:
    """Generate typed MCP bindings (msgspec types, method tables, clients, servers and the
    runtime) for protocol revisions into one Python package."""
    if ctx.invoked_subcommand is not None:
        if revisions or schemas or bases or overrides or out or check or prune:
            _fail(f"options of the main command cannot precede '{ctx.invoked_subcommand}'")
        return
    from .generate import render_inputs
    from .inputs import Sources, inputs_of, select, sources
    from .kept import kept_sources, with_kept
    from .output import existing_revisions, write_package

    try:
        out = _package_folder(out)
        existing = existing_revisions(out)
        kept = kept_sources(out) if existing else Sources()
        given = sources(schemas, revisions, bases, overrides)
        selected = select(revisions, given, existing, out, kept.files)
        if not check and not prune:
            _guard_dropped(selected, existing, out)
        inputs, warnings = inputs_of(selected, with_kept(given, kept, selected))
        files, found = render_inputs(inputs)
        warnings += found
        for warning in warnings:
            click.echo(f"mcpgen: {warning}", err=True)
        if check:
            _check(out, files, ", ".join(selected))
        written = write_package(out, files)
    except GenerationError as exc:
        _fail(str(exc))
    _report(out, written, ", ".join(selected))


KEPT_SHOWN = 10
"""How many of the user's kept files the report names."""


def _report(out: Path, written: Written, what: str) -> None:
    """Say what was written, which of mcpgen's old files went, and which files were kept."""
    if written.removed:
        click.echo(
            f"mcpgen: removed {len(written.removed)} file(s) mcpgen wrote before and no longer "
            f"writes: {', '.join(written.removed)}",
            err=True,
        )
    if written.kept:
        shown = ", ".join(written.kept[:KEPT_SHOWN])
        more = (
            f" and {len(written.kept) - KEPT_SHOWN} more" if len(written.kept) > KEPT_SHOWN else ""
        )
        click.echo(
            f"mcpgen: kept {len(written.kept)} file(s) mcpgen did not write: {shown}{more}",
            err=True,
        )
    click.echo(f"mcpgen: wrote {out} ({what})", err=True)


def _check(out: Path, files: dict[str, str], what: str) -> NoReturn:
    """Compare ``out`` with a fresh render and exit: 0 up to date, 1 stale."""
    from .output import compare

    if not out.is_dir():
        click.echo(f"mcpgen: {out} is stale: it does not exist", err=True)
        sys.exit(EXIT_STALE)
    staleness = compare(out, files)
    if not staleness.fresh:
        click.echo(f"mcpgen: {out} is stale: {staleness.summary()}", err=True)
        sys.exit(EXIT_STALE)
    click.echo(f"mcpgen: {out} is up to date ({what})", err=True)
    sys.exit(0)


def _headers(given: tuple[str, ...]) -> dict[str, str]:
    """``NAME:VALUE`` options as a header mapping."""
    headers: dict[str, str] = {}
    for header in given:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            raise GenerationError(f"--header {header!r} is not NAME:VALUE")
        headers[name.strip()] = value.strip()
    return headers


def _fail(message: str) -> NoReturn:
    """Print one ``mcpgen: error:`` line and exit 2."""
    click.echo(f"mcpgen: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


@cli.command("tools")
@click.option(
    "--server",
    metavar="CMD|URL",
    help="Ask this server for its tools: a command line (spoken to over stdio) or a "
    "Streamable HTTP URL.",
)
@click.option(
    "--from",
    "from_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read the tools from a saved tools/list result (JSON) instead.",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="NAME:VALUE",
    help="An HTTP header sent to a --server URL (repeatable), e.g. 'Authorization: Bearer ...'.",
)
@_output_option(
    "Output package folder (required); the package is named after it. Without --server or "
    "--from, its tools.json is read again (regenerate)."
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if the output package is not what this would write (stale).",
)
def tools_command(
    server: str | None,
    from_file: Path | None,
    headers: tuple[str, ...],
    out: Path | None,
    check: bool,
) -> None:
    """Generate typed bindings of a server's tools: msgspec Structs for each tool's input and
    output schema, and one typed async function per tool that calls it through a client."""
    from .output import write_package
    from .tools.build import render_tools_package
    from .tools.fetch import fetch, load_file

    try:
        out = _package_folder(out)
        if server is not None and from_file is not None:
            raise GenerationError("give either --server or --from, not both")
        if server is not None:
            tools = fetch(server, _headers(headers))
        else:
            tools = load_file(from_file if from_file is not None else out / "tools.json")
        files = render_tools_package(tools)
        if check:
            _check(out, files, f"{len(tools)} tools")
        written = write_package(out, files)
    except GenerationError as exc:
        _fail(str(exc))
    _report(out, written, f"{len(tools)} tools")


def main() -> None:
    """Run the command line (the ``mcpgen`` console script)."""
    cli()
