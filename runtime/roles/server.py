"""The base of generated ``Server`` classes: what a server declares, and serving it.

A generated ``Server`` has one async method per request a client may send; a subclass
overrides those it supports. What it overrides decides the capabilities it declares, and a
request for anything else is answered -32601. ``serve`` runs a transport for the servers of a
process: ``era.py`` decides, per request, the handshake connection (``handshake.py``) or the
stateless one (``stateless.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import CapabilityError
from ..core.transport import Transport
from ..transports.stdio import stdio_server
from .connection import LOG_LEVELS, RequestContext, is_implemented, unimplemented
from .definition import ServerContext, ServerDefinition
from .handshake import ServerConnection
from .running import run_blocking

if TYPE_CHECKING:
    from .stateless import StatelessServer

__all__ = [
    "LOG_LEVELS",
    "CapabilityError",
    "RequestContext",
    "ServerBase",
    "ServerConnection",
    "ServerContext",
    "is_implemented",
    "unimplemented",
]


class ServerBase(ServerDefinition):
    """Base of generated ``Server`` classes; subclasses override the handlers they support."""

    async def serve(self, transport: Transport, *more: ServerBase) -> None:
        """Serve one connection until the client goes away (``more``: other revisions).

        The era module (and the stateless stack behind it) loads on first use: a package
        imported only for its handshake-era client loads none of it.
        """
        from .era import serve

        await serve(transport, [self, *more])

    async def notify_tools_changed(self) -> None:
        """Tell every ``subscriptions/listen`` stream that opted in that the tools changed."""
        await self._stateless().notify_tools_changed()

    async def notify_prompts_changed(self) -> None:
        """Tell every listen stream that opted in that the prompts changed."""
        await self._stateless().notify_prompts_changed()

    async def notify_resources_changed(self) -> None:
        """Tell every listen stream that opted in that the resource list changed."""
        await self._stateless().notify_resources_changed()

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell every listen stream subscribed to ``uri`` that the resource changed."""
        await self._stateless().notify_resource_updated(uri)

    def _stateless(self) -> StatelessServer:
        """The stateless face of this server (its listeners and bus)."""
        from .stateless import StatelessServer

        if self.FACTS.handshake:
            raise TypeError("listen streams are a stateless-era feature: publish on that server")
        return StatelessServer.of(self)

    async def serve_stdio(self, *more: ServerBase) -> None:
        """Serve one client over this process's stdin and stdout."""
        await self.serve(await stdio_server(), *more)

    def run_stdio(self, *more: ServerBase) -> None:
        """Serve over stdio until the client closes stdin (blocking; for ``__main__``)."""
        run_blocking(self.serve_stdio(*more))
