"""``mcpgen bridge``: let a client of any revision use a server of any revision.

The command runs the runtime's bridge (``_runtime/roles/bridge.py``) on the bindings of every
revision that ship inside mcpgen (``mcpgen.generated``, the checked-in ``generated/``), so it
needs no generation step: ``mcpgen bridge -- python server.py`` serves this process's stdio to
whatever revision the client speaks and spawns the server, spoken to in its own revision.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import sys

import click

LEVELS = ("debug", "info", "warning", "error")
TOKEN_ENV = "MCPGEN_BRIDGE_TOKEN"


def _address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT``, on 127.0.0.1)."""
    host, _, port = value.rpartition(":")
    if not port.isdigit():
        raise click.BadParameter(f"expected HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


@click.command(
    "bridge",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    epilog=(
        "\b\nExamples:\n"
        "  mcpgen bridge -- python server.py        stdio client -> stdio server\n"
        "  mcpgen bridge --url http://host/mcp      stdio client -> HTTP server\n"
        "  mcpgen bridge --http 127.0.0.1:8931 -- python server.py\n"
        "                                           HTTP client -> stdio server\n"
        f"\b\nEnvironment:\n  {TOKEN_ENV}  with --http: the bearer token clients must send"
    ),
)
@click.option("--url", metavar="URL", help="The upstream server's Streamable HTTP URL.")
@click.option(
    "--http", "http", metavar="HOST:PORT", help="Serve Streamable HTTP here instead of stdio."
)
@click.option(
    "--log-level",
    type=click.Choice(LEVELS),
    default="info",
    show_default=True,
    help="What the bridge logs on stderr (one line per session at info).",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def bridge_command(
    url: str | None, http: str | None, log_level: str, command: tuple[str, ...]
) -> None:
    """Bridge an MCP client to a server of any protocol revision.

    The server is COMMAND (spawned, over stdio) or --url; the bridge speaks to it in the
    revision it answers, and to the client in the revision the client speaks.
    """
    if (url is None) == (not command):
        raise click.UsageError("give the upstream server as a COMMAND (after --) or --url")
    logging.basicConfig(
        level=log_level.upper(), stream=sys.stderr, format="mcpgen bridge: %(message)s"
    )
    # The bindings shipped inside mcpgen (``package-dir``), loaded by name: the generator's
    # modules do not import generated code, and the checkout has no ``codegen/generated``.
    bindings = f"{__package__}.generated"
    revisions = importlib.import_module(f"{bindings}.converters").BRIDGE
    run = importlib.import_module(f"{bindings}._runtime.roles.bridge_run")
    upstream = run.Upstream(command=command, url=url)
    downstream = run.Downstream()
    if http is not None:
        host, port = _address(http)
        downstream = run.Downstream(host=host, port=port, bearer=os.environ.get(TOKEN_ENV) or None)
    with contextlib.suppress(KeyboardInterrupt):
        try:
            asyncio.run(run.run_bridge(revisions, upstream, downstream))
        except run.UpstreamGone as exc:  # one line, and a non-zero exit: the server is gone
            logging.getLogger("mcpgen.bridge").error("%s", exc)
            sys.exit(1)
        except Exception as exc:  # one line, not a traceback: the bridge is a tool
            logging.getLogger("mcpgen.bridge").error("stopped: %s", exc)
            sys.exit(1)
