"""``mcpgen bridge``: let a client of any revision use a server of any revision.

The command runs the runtime's bridge (``_runtime/roles/bridge.py``) on the bindings of every
revision that ship inside mcpgen (``mcpgen.generated``, the checked-in ``generated/``), so it
needs no generation step: ``mcpgen bridge -- python server.py`` serves this process's stdio to
whatever revision the client speaks and spawns the server, spoken to in its own revision.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import click

LEVELS = ("debug", "info", "warning", "error")
TOKEN_ENV = "MCPGEN_BRIDGE_TOKEN"
CLIENT_ID_ENV = "MCPGEN_BRIDGE_CLIENT_ID"
CLIENT_SECRET_ENV = "MCPGEN_BRIDGE_CLIENT_SECRET"
ASSERTION_FILE_ENV = "MCPGEN_BRIDGE_ASSERTION_FILE"


@dataclass(frozen=True)
class Grant:
    """How the bridge gets the upstream's token without a user (the --oauth-* options)."""

    client_id: str | None
    client_secret: str | None
    assertion_file: str | None
    scope: str | None

    def check(self, url: str | None) -> None:
        """Refuse options that cannot go together (a usage error, not ignored)."""
        if self.client_secret and not self.client_id:
            raise click.UsageError("an OAuth client secret needs --oauth-client-id")
        if self.scope and not (self.client_id or self.assertion_file):
            raise click.UsageError("--oauth-scope needs --oauth-client-id or an assertion file")
        if (self.client_id or self.assertion_file) and url is None:
            raise click.UsageError("the --oauth-* options are for an upstream given by --url")

    def client(self, auth: ModuleType) -> Any:
        """An ``OAuthClient`` of the runtime's ``auth`` module for this grant (None: no OAuth)."""
        if self.assertion_file is not None:
            path = Path(self.assertion_file)

            async def assertion() -> str:
                return path.read_text().strip()  # read again for every grant: it is renewed

            grant: Any = auth.JwtBearerGrant(assertion)
        elif self.client_id:
            grant = "client_credentials"
        else:
            return None
        credentials: list[Any] = []
        if self.client_id:
            credentials.append(auth.ClientInfo(self.client_id, self.client_secret or None))
        return auth.OAuthClient(
            grant=grant, credentials=credentials, scope=self.scope, client_name="mcpgen bridge"
        )


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
        f"\b\nEnvironment:\n  {TOKEN_ENV}  with --http: the bearer token clients must send\n"
        f"  {CLIENT_ID_ENV}, {CLIENT_SECRET_ENV}, {ASSERTION_FILE_ENV}\n"
        "      the --oauth-* options of the same names (prefer the environment for the secret)"
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
@click.option(
    "--oauth-client-id",
    envvar=CLIENT_ID_ENV,
    metavar="ID",
    help="With --url: get the upstream's token with the client_credentials grant as ID.",
)
@click.option(
    "--oauth-client-secret",
    envvar=CLIENT_SECRET_ENV,
    metavar="SECRET",
    help=f"The client's secret (better set {CLIENT_SECRET_ENV}: argv is visible to others).",
)
@click.option(
    "--oauth-assertion-file",
    envvar=ASSERTION_FILE_ENV,
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="With --url: get the token with the JWT bearer grant, the JWT read from PATH "
    "for every grant (a workload identity token the platform renews).",
)
@click.option("--oauth-scope", metavar="SCOPE", help="The scopes to ask for (space-separated).")
@click.option(
    "--max-frame",
    type=click.IntRange(min=1),
    metavar="BYTES",
    help="The largest frame a client may send: a stdio line, an HTTP body.",
)
@click.option(
    "--max-depth",
    type=click.IntRange(min=1),
    metavar="N",
    help="The deepest nesting of arrays and objects a client's frame may have (128).",
)
@click.option(
    "--max-stream-bytes",
    type=click.IntRange(min=1),
    metavar="BYTES",
    help="With --http: the most bytes buffered for one stream a client reads too slowly.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    metavar="N",
    help="With --http: the most live client sessions (100 when each has its own upstream "
    "connection: a process each for a COMMAND).",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def bridge_command(
    url: str | None,
    http: str | None,
    log_level: str,
    oauth_client_id: str | None,
    oauth_client_secret: str | None,
    oauth_assertion_file: str | None,
    oauth_scope: str | None,
    max_frame: int | None,
    max_depth: int | None,
    max_stream_bytes: int | None,
    max_sessions: int | None,
    command: tuple[str, ...],
) -> None:
    """Bridge an MCP client to a server of any protocol revision.

    The server is COMMAND (spawned, over stdio) or --url; the bridge speaks to it in the
    revision it answers, and to the client in the revision the client speaks. With --http,
    each client session of a server that asks its client questions (an initialize-era one)
    gets its own connection to it (a COMMAND is spawned per session), so a question, its
    roots and log messages reach only the client they belong to.
    """
    if (url is None) == (not command):
        raise click.UsageError("give the upstream server as a COMMAND (after --) or --url")
    if max_stream_bytes is not None and http is None:
        raise click.UsageError("--max-stream-bytes is for a downstream served with --http")
    if max_sessions is not None and http is None:
        raise click.UsageError("--max-sessions is for a downstream served with --http")
    grant = Grant(oauth_client_id, oauth_client_secret, oauth_assertion_file, oauth_scope)
    grant.check(url)
    logging.basicConfig(
        level=log_level.upper(), stream=sys.stderr, format="mcpgen bridge: %(message)s"
    )
    # The bindings shipped inside mcpgen (``package-dir``), loaded by name: the generator's
    # modules do not import generated code, and the checkout has no ``codegen/generated``.
    bindings = f"{__package__}.generated"
    revisions = importlib.import_module(f"{bindings}.converters").BRIDGE
    run = importlib.import_module(f"{bindings}._runtime.roles.bridge_run")
    running = importlib.import_module(f"{bindings}._runtime.roles.running")
    auth = grant.client(importlib.import_module(f"{bindings}._runtime.auth"))
    upstream = run.Upstream(command=command, url=url, auth=auth)
    bounds = {"max_frame": max_frame, "max_depth": max_depth, "max_stream_bytes": max_stream_bytes}
    downstream = run.Downstream(**bounds)
    if http is not None:
        host, port = _address(http)
        bearer = os.environ.get(TOKEN_ENV) or None
        downstream = run.Downstream(
            host=host, port=port, bearer=bearer, max_sessions=max_sessions, **bounds
        )
    with contextlib.suppress(KeyboardInterrupt):
        try:
            running.run_blocking(run.run_bridge(revisions, upstream, downstream))
        except run.UpstreamGone as exc:  # one line, and a non-zero exit: the server is gone
            logging.getLogger("mcpgen.bridge").error("%s", exc)
            sys.exit(1)
        except Exception as exc:  # one line, not a traceback: the bridge is a tool
            logging.getLogger("mcpgen.bridge").error("stopped: %s", exc)
            sys.exit(1)
