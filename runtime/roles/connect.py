"""How a client reaches a server: the one place a client decides the era of a connection.

``connect_auto`` probes ``server/discover`` with a client of a revision without handshake and,
on the answers of a handshake server (see ``stateless_client.py``), negotiates with
``initialize`` among the given handshake clients, over stdio and HTTP alike (``connect_http_auto``
only supplies its HTTP transports). ``connect_stateless`` / ``attach_stateless`` connect a
client without handshake with or without the probe; ``listen`` opens a listen stream.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar, cast

from ..core.errors import MCPError
from ..core.transport import Transport
from .client import ClientBase, InitT
from .listen_client import Subscription, open_listen
from .stateless_client import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PROBE_TIMEOUT,
    HandshakeServer,
    StatelessRequests,
)

__all__ = [
    "HandshakeServer",
    "Subscription",
    "attach_stateless",
    "connect_auto",
    "connect_stateless",
    "listen",
]

StatelessT = TypeVar("StatelessT", bound=ClientBase[Any])
HandshakeT = TypeVar("HandshakeT", bound=ClientBase[Any])
SLOW_START_FACTOR: Final = 4
"""How much longer the second probe waits, after a silent first one and a refused initialize."""


async def connect_stateless(
    client: ClientBase[InitT],
    transport: Transport,
    *,
    probe_timeout: float | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    log_level: str | None = None,
) -> InitT:
    """Connect a client of a revision without handshake (probing ``server/discover``)."""
    return await client.connect_stateless(
        transport, probe_timeout=probe_timeout, max_rounds=max_rounds, log_level=log_level
    )


def attach_stateless(
    client: ClientBase[Any],
    transport: Transport,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    log_level: str | None = None,
) -> StatelessRequests:
    """Start a client without handshake on ``transport`` without probing (a pinned version)."""
    return client.attach_stateless(transport, max_rounds=max_rounds, log_level=log_level)


async def connect_auto(
    stateless: StatelessT,
    handshake: Sequence[HandshakeT],
    open_transport: Callable[[], Awaitable[Transport]],
    *,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    open_handshake: Callable[[], Awaitable[Transport]] | None = None,
) -> StatelessT | HandshakeT:
    """Connect to a server of either era; return the client that connected (its
    ``initialize_result`` is the typed connect result of its era).

    Probe with ``server/discover`` (the ``stateless`` client); on a handshake server's answer,
    silence, or exit, the newest-first ``handshake`` clients negotiate with ``initialize``:
    on a transport from ``open_handshake`` when given (HTTP: a Streamable HTTP session),
    else on the same transport, or on a new one from ``open_transport`` when the server
    exited (stdio). A stream whose server was silent, then refused ``initialize``, is
    started again and probed patiently (a stateless server slow to start).
    """
    transport = await open_transport()
    try:
        await stateless.connect_stateless(transport, probe_timeout=probe_timeout)
        return stateless
    except HandshakeServer as exc:
        if not handshake:
            await stateless.close()
            raise
        exited = exc.exited
    probed: ClientBase[Any] | None = stateless
    if exited or open_handshake is not None:  # a new transport for the handshake
        await stateless.close()
        transport, probed = await (open_handshake or open_transport)(), None
    try:
        return await ClientBase.handshake(
            transport, list(handshake), _describer(transport), probed=probed
        )
    except MCPError:
        if open_handshake is not None:
            raise
        # Silence, then an error to initialize: a stateless server that was slow to start.
        # Start it again and probe patiently (connect_any closed the transport).
        again = await open_transport()
        try:
            await stateless.connect_stateless(
                again, probe_timeout=probe_timeout * SLOW_START_FACTOR
            )
        except BaseException:
            await stateless.close()
            with contextlib.suppress(Exception):
                await again.close()
            raise
        return stateless


@contextlib.asynccontextmanager  # pyright: ignore[reportDeprecated]
async def listen(
    client: ClientBase[Any], *, timeout: float | None = 30.0, **notifications: Any
) -> AsyncIterator[Subscription]:
    """Open a listen stream: ``async with listen(c, toolsListChanged=True) as sub``, iterate."""
    async with open_listen(client.stateless, timeout, notifications) as subscription:
        yield subscription


def _describer(transport: Transport) -> Callable[[], str] | None:
    """The transport's ``describe_close`` (how it ended, for errors), if it has one."""
    found: object = getattr(transport, "describe_close", None)
    return cast(Callable[[], str], found) if callable(found) else None
