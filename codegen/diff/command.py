"""``mcpgen diff OLD NEW``: what changed between two revisions, and what it means for converters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from ..convert.ir import load_policy
from ..errors import GenerationError
from ..inputs import sources
from .compare import compare
from .jsonformat import render_json
from .load import load_surface
from .model import Diff, Impact
from .render import render_markdown, render_text

EXIT_SAME, EXIT_CHANGED, EXIT_ERROR = 0, 1, 2
RENDERERS: dict[str, Callable[[Diff], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
# The least impact that makes a change count for the exit status.
THRESHOLDS: dict[str, Impact | None] = {
    "any": Impact.LOSSLESS,
    "lossy": Impact.LOSSY,
    "refused": Impact.REFUSED,
    "never": None,
}


def exit_status(diff: Diff, fail_on: str, direction: str) -> int:
    """1 when a change reaches the ``--fail-on`` impact in the chosen direction(s), else 0."""
    threshold = THRESHOLDS[fail_on]
    if threshold is None:
        return EXIT_SAME
    directions = ("upgrade", "downgrade") if direction == "both" else (direction,)
    for change in diff.changes:
        for d in directions:
            effect = change.upgrade if d == "upgrade" else change.downgrade
            if effect.impact.rank >= threshold.rank:
                return EXIT_CHANGED
    return EXIT_SAME


class UsageLineError(click.ClickException):
    """A usage error shown as the one ``mcpgen: error:`` line every mcpgen error is."""

    exit_code = EXIT_ERROR

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the one line to standard error."""
        click.echo(f"mcpgen: error: {self.format_message()}", err=True, file=file)


class OneLineErrorCommand(click.Command):
    """A click command whose usage errors are one line and exit 2, not a usage screen."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """Parse the arguments, turning a usage error into a one-line error."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise UsageLineError(exc.format_message()) from None


@click.command(
    "diff", cls=OneLineErrorCommand, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(RENDERERS)),
    default="text",
    show_default=True,
    help="Readable text, JSON (stable keys and order), or a Markdown page.",
)
@click.option(
    "--fail-on",
    type=click.Choice(list(THRESHOLDS)),
    default="any",
    show_default=True,
    help="Exit 1 when a change is at least this bad (any change, lossy, refused), never: exit 0.",
)
@click.option(
    "--direction",
    type=click.Choice(["both", "upgrade", "downgrade"]),
    default="both",
    show_default=True,
    help="Which conversions --fail-on looks at: old->new (upgrade), new->old, or both.",
)
@click.option(
    "--rule",
    "rules",
    multiple=True,
    metavar="TYPE.FIELD",
    help="A field a declared rule fills where the target requires it (Type.field, or *.field "
    "for every type), beyond those of schema/converters.toml; repeatable. Such fields are "
    "lossless, not refused.",
)
@click.option(
    "--base",
    "bases",
    multiple=True,
    metavar="REV=BASE",
    help="A side REV=FILE of a revision outside the manifest inherits the overrides of "
    "built-in revision BASE (repeatable), so its protocol facts and gates are compared.",
)
@click.option(
    "--overrides",
    "overrides",
    multiple=True,
    metavar="REV=FILE",
    help='The own overrides file of such a revision (base = "BASE" ...; repeatable).',
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of standard output.",
)
@click.pass_context
def diff_command(
    ctx: click.Context,
    old: str,
    new: str,
    fmt: str,
    fail_on: str,
    direction: str,
    rules: tuple[str, ...],
    bases: tuple[str, ...],
    overrides: tuple[str, ...],
    output: Path | None,
) -> None:
    """Compare two schemas: OLD and NEW are revisions (2025-06-18), schema files, or REV=FILE
    (with --base REV=BASE, a revision outside the manifest inherits BASE's overrides).

    Exit status: 0 no change (at the --fail-on level), 1 changes found, 2 error.
    """
    try:
        for rule in rules:
            owner, dot, wire = rule.partition(".")
            if not (owner and dot and wire):
                raise GenerationError(f"--rule {rule!r}: give Type.field or *.field")
        # The converters' own declared rules always apply, so the diff says what they do.
        policy = load_policy()
        declared = frozenset(rules) | policy.rule_names
        given = sources((), (), bases, overrides)
        sides = load_surface(old, given), load_surface(new, given)
        diff = compare(*sides, declared, policy.member_actions)
        text = RENDERERS[fmt](diff)
        if output is not None:
            try:
                output.write_bytes(text.encode("utf-8"))
            except OSError as exc:
                raise GenerationError(f"cannot write {output}: {exc.strerror or exc}") from None
        else:
            click.echo(text, nl=False)
    except GenerationError as exc:
        click.echo(f"mcpgen: error: {exc}", err=True)
        ctx.exit(EXIT_ERROR)
    ctx.exit(exit_status(diff, fail_on, direction))
