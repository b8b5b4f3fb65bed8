"""Running a bridge: the upstream connection, the downstream transport, the log, the exit.

``connect_upstream`` connects the bridge's clients to a server command (stdio) or URL the way
any client does (``connect_auto``: ``server/discover``, else ``initialize`` among the handshake
revisions, newest first). ``run_bridge`` then serves the bridge downstream over this
process's stdio (a client of the upstream's revision has its frames relayed as they are:
``bridge_stdio.py``) or over Streamable HTTP at an address (a bearer check or none), logs one
line per downstream session, and returns when the downstream side goes away (its upstream
closed), or raises ``UpstreamGone`` when the upstream server does (requests in flight are
answered with an error first).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.transport import Transport
from ..transports.stdio import spawn_server, stdio_server
from .bridge import Bridge, Revisions
from .bridge_sessions import Link
from .bridge_stdio import serve_stdio
from .bridge_tap import UpstreamTap
from .client import ClientBase
from .connect import connect_auto

__all__ = [
    "Downstream",
    "Revisions",
    "Upstream",
    "UpstreamGone",
    "connect_upstream",
    "run_bridge",
]

LOG: Final = logging.getLogger(__name__)
BRIDGE_NAME: Final = "mcpgen-bridge"
SETTLE_S: Final = 5.0
"""With the upstream gone: the most time the error answers of requests in flight may take."""
MAX_SESSIONS: Final = 100
"""Over HTTP with a handshake upstream: the most downstream sessions, each with its own
upstream connection (for a stdio upstream, a process)."""
UPSTREAM_LOG_LEVEL: Final = "debug"
"""Asked of the upstream; each downstream client's own level then filters (``ctx.log``)."""


class UpstreamGone(Exception):
    """The upstream server went away while the downstream side was still there."""


@dataclass(frozen=True)
class Upstream:
    """The server the bridge connects to: a command to spawn (stdio) or a Streamable HTTP URL."""

    command: Sequence[str] = ()
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    auth: Any = None
    """An ``auth.OAuthClient`` (the bridge holds the token), or None."""
    env: Mapping[str, str] | None = None

    def describe(self) -> str:
        """How the upstream is reached, for the log."""
        return f"HTTP {self.url}" if self.url else f"stdio ({' '.join(self.command)})"


@dataclass(frozen=True)
class Downstream:
    """Where the bridge serves: this process's stdio, or Streamable HTTP at ``host:port``."""

    host: str | None = None
    port: int = 0
    bearer: str | None = None
    """The token an HTTP client must send as ``Authorization: Bearer ...`` (None: no check)."""
    options: Any = None
    """``HttpOptions`` to start from (bounds, allowed hosts ...); the bearer check is added."""
    max_frame: int | None = None
    """The largest frame a client may send, in bytes: a stdio line, an HTTP body (None:
    the transport's default; beyond: refused with an error naming the limit)."""
    max_depth: int | None = None
    """The deepest nesting of arrays and objects accepted in a frame (None: 128)."""
    max_stream_bytes: int | None = None
    """Over HTTP: the most bytes buffered for one stream a client reads too slowly."""
    max_sessions: int | None = None
    """Over HTTP: the most live sessions (None: ``MAX_SESSIONS`` when each has its own upstream
    connection, else the HTTP app's default)."""

    def describe(self) -> str:
        """How the downstream client reaches the bridge, for the log."""
        return f"HTTP {self.host}:{self.port}" if self.host is not None else "stdio"


def _clients(bridge: Bridge) -> tuple[ClientBase[Any], list[ClientBase[Any]]]:
    """One client of every revision (the stateless one newest), asking downstream."""
    made = {
        version: cls(name=BRIDGE_NAME, version="1", timeout=None)
        for version, cls in bridge.revisions.clients.items()
    }
    for client in made.values():
        bridge.upstream_handlers(client)
    # Handshake clients declare what all of them can answer; the bridge's clients forward every
    # question, so each declares everything (a revision's server asks only what it has).
    every: dict[str, Any] = {}
    for client in made.values():
        every.update(client.capabilities())
    for client in made.values():
        client.capabilities = lambda: dict(every)  # type: ignore[method-assign]
    stateless = [made[v] for v in sorted(made) if not made[v].FACTS.handshake]
    handshake = [made[v] for v in sorted(made, reverse=True) if made[v].FACTS.handshake]
    if not stateless:
        raise ValueError("the bridge needs the client of a revision without handshake")
    return stateless[-1], handshake


async def connect_upstream(
    bridge: Bridge, upstream: Upstream, *, relayable: bool = False
) -> ClientBase[Any]:
    """Connect to the upstream in whatever revision it speaks; attach it to ``bridge``.

    ``relayable``: a stdio upstream is watched (``UpstreamTap``), so that a stdio client of
    its revision can have its frames relayed as they are (``bridge_stdio.serve_stdio``).
    """
    stateless, handshake = _clients(bridge)
    if upstream.url is not None:
        from ..transports.http.client import connect_http_auto

        client: ClientBase[Any] = await connect_http_auto(
            stateless, handshake, upstream.url, headers=upstream.headers, auth=upstream.auth
        )
    else:
        command = list(upstream.command)
        if not command:
            raise ValueError("the upstream needs a command or a URL")

        async def spawn() -> Transport:
            spawned = await spawn_server(command[0], command[1:], upstream.env)
            return UpstreamTap(spawned) if relayable else spawned

        client = await connect_auto(stateless, handshake, spawn)
    await _ask_logs(client)
    bridge.attach(client)
    return client


def _session_upstreams(bridge: Bridge, upstream: Upstream, limit: int) -> None:
    """Give each downstream session its own connection to ``upstream`` (a handshake server),
    in the shared connection's revision, declaring what that session's client declared."""
    shared = bridge.upstream
    cls = bridge.revisions.clients[shared.protocol_version]

    async def open_link(link: Link) -> ClientBase[Any]:
        client = cls(name=BRIDGE_NAME, version="1", timeout=None)
        bridge.upstream_handlers(client, link)
        declared = bridge.capabilities_of(link.session) if link.session is not None else {}
        client.capabilities = lambda: dict(declared)  # type: ignore[method-assign]
        if upstream.url is not None:
            from ..transports.http.client import connect_http

            await connect_http(client, upstream.url, headers=upstream.headers, auth=upstream.auth)
        else:
            command = list(upstream.command)
            transport = await spawn_server(command[0], command[1:], upstream.env)
            try:
                await client.connect(transport, lambda: f"server {transport.exit_description()}")
            except BaseException:
                await client.close()
                await transport.close()
                raise
        await _ask_logs(client)
        return client

    bridge.own_upstreams(open_link, limit)


async def _ask_logs(client: ClientBase[Any]) -> None:
    """Ask the upstream for every log message (each downstream client's level filters)."""
    if client.stateless is not None:
        client.stateless.log_level = UPSTREAM_LOG_LEVEL
        return
    spec = client.METHODS.get("logging/setLevel")
    if spec is not None and "logging" in client.their_capabilities:
        with contextlib.suppress(Exception):
            await client.request(spec, {"level": UPSTREAM_LOG_LEVEL})


def _bearer_check(token: str) -> Any:
    """An ``HttpOptions.authenticate`` accepting only ``Authorization: Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def authenticate(headers: Mapping[str, str]) -> bool:
        return hmac.compare_digest(headers.get("authorization", "").encode(), expected)

    return authenticate


async def _serve_downstream(
    bridge: Bridge, downstream: Downstream, stop: asyncio.Event | None = None
) -> None:
    """Serve the bridge until the downstream side goes away (stdio), or for ever (HTTP)
    unless ``stop`` is set (then its sessions are ended and the server stops gracefully)."""
    depth = downstream.max_depth
    if downstream.host is None:
        frame = {} if downstream.max_frame is None else {"max_frame": downstream.max_frame}
        # a client asking for the upstream's own revision is relayed, any other converted
        await serve_stdio(bridge, await stdio_server(**frame), depth or DEFAULT_MAX_DEPTH)
        return
    from ..transports.http.server import HttpOptions, serve_http

    options = downstream.options if downstream.options is not None else HttpOptions()
    bounds = {
        "max_body": downstream.max_frame,
        "max_depth": depth,
        "max_stream_bytes": downstream.max_stream_bytes,
    }
    if bridge.sessions is not None or downstream.max_sessions is not None:
        bounds["max_sessions"] = downstream.max_sessions or MAX_SESSIONS
    options = dataclasses.replace(options, **{k: v for k, v in bounds.items() if v is not None})
    if downstream.bearer is not None:
        options.authenticate = _bearer_check(downstream.bearer)
    await serve_http(bridge.served, downstream.host, downstream.port, options, stop=stop)


async def run_bridge(
    revisions: Revisions, upstream: Upstream, downstream: Downstream | None = None
) -> None:
    """Bridge a downstream client to ``upstream`` until either side goes away.

    Returns when the downstream side ends; raises ``UpstreamGone`` if the upstream does.
    """
    where = downstream or Downstream()

    def on_session(revision: str) -> None:
        theirs = bridge.upstream.protocol_version
        LOG.info(
            "session: client %s over %s <-> server %s over %s",
            revision,
            where.describe(),
            theirs,
            upstream.describe(),
        )

    bridge = Bridge(revisions, on_session=on_session)
    client = await connect_upstream(bridge, upstream, relayable=where.host is None)
    LOG.debug("upstream %s speaks %s", upstream.describe(), client.protocol_version)
    if where.host is not None and client.stateless is None:  # its questions name no session
        _session_upstreams(bridge, upstream, where.max_sessions or MAX_SESSIONS)
    try:
        await bridge.start()
        stop = asyncio.Event()
        served = asyncio.create_task(_serve_downstream(bridge, where, stop))
        gone = asyncio.create_task(client.wait_closed())
        done, _ = await asyncio.wait((served, gone), return_when=asyncio.FIRST_COMPLETED)
        lost = gone in done and not served.done()
        if lost:  # the requests in flight fail at once: let their error answers go out
            if bridge.sessions is not None:  # the sessions' own connections go with it
                await bridge.sessions.close()
            await bridge.settle(SETTLE_S)
            stop.set()  # over HTTP: the server ends its sessions and stops (no task cancelled)
            await asyncio.wait((served,), timeout=SETTLE_S)
        for task in (served, gone):
            task.cancel()
        await asyncio.gather(served, gone, return_exceptions=True)
    finally:
        await bridge.close()
    if lost:
        raise UpstreamGone(f"the upstream server went away: {upstream.describe()}")
