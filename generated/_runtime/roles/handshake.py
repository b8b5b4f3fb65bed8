# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The server's end of a connection with a handshake (``initialize``).

``ServerConnection`` adds what only a server answers itself (``initialize``: version
negotiation among the servers it was given; the default ``logging/setLevel``) to the shared
connection; the session's lifecycle refuses requests before ``initialize``, and dispatch is
the one of ``dispatch.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..core.errors import INVALID_PARAMS, MCPError
from ..core.events import Request
from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.lifecycle import Phase, as_json, choose_version, has_capability, initial_phase
from ..core.session import Session
from ..core.transport import Transport
from .connection import (
    LOG_LEVELS,
    RequestFacts,
    check_level,
    implemented_handlers,
    reaches,
)
from .definition import ServerContext, ServerDefinition, ServerSide
from .dispatch import dispatch_request
from .peer import Peer
from .tasks import attach_tasks, receivable

DEFAULT_LOG_LEVEL = "info"


class ServerConnection(ServerSide):
    """One client connection to one or more servers (one per protocol revision)."""

    def __init__(
        self,
        servers: Sequence[ServerDefinition],
        transport: Transport,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        super().__init__()
        self.servers = {s.FACTS.version: s for s in servers if s.FACTS.handshake}
        if not self.servers:
            raise ValueError("at least one server of an initialize-era revision is needed")
        newest = self.servers[max(self.servers)]
        self.server = newest
        self.methods = newest.METHODS
        self.log_level = DEFAULT_LOG_LEVEL
        self.client_info: dict[str, Any] = {}
        self.builtins["initialize"] = self._initialize
        self.fallbacks["logging/setLevel"] = self._set_level
        session = Session(
            newest.METHODS,
            role="server",
            batch=False,
            phase=initial_phase(newest.METHODS),
            tolerant=newest.tolerant,
            max_depth=max_depth,
        )
        # The peer calls the dispatcher itself: no coroutine of ours between them per request.
        answer = functools.partial(dispatch_request, self)
        self.peer = Peer(session, transport, answer, self._on_notification)
        self.reroute()

    @property
    def initialized(self) -> bool:
        """Whether the client has sent ``notifications/initialized`` (or none is needed)."""
        return self.peer.session.phase in (Phase.OPERATING, Phase.STATELESS)

    async def run(self) -> None:
        """Serve until the client closes the connection."""
        try:
            await self.peer.run()
        finally:
            await self._ended()

    async def finish(self) -> None:
        """End a connection a router fed its frames (``peer.take``): its input ended."""
        try:
            await self.peer.finish()
        finally:
            await self._ended()

    async def _ended(self) -> None:
        if self.tasks is not None:
            await self.tasks.close()
        await self.peer.close()

    def context(self, request: Request) -> ServerContext:
        """The revision's ``ServerContext`` for a handler of ``request``."""
        return self.server.CONTEXT(self, request)

    def _serve(self, server: ServerDefinition, *, handshake: bool) -> None:
        """Serve ``server``'s revision from now on: negotiate it and take its handlers."""
        self.server = server
        self.negotiate(
            server.FACTS.version,
            server.METHODS,
            batch=server.FACTS.batch,
            handshake=handshake,
        )
        self.handlers = implemented_handlers(server, server.ROUTES)
        self.our_capabilities = server.capabilities()
        support = server.task_support  # no task variants to work out without task support
        variants = {} if support is None else receivable(server.TASKS, "client")
        self.tasks = attach_tasks(self, support, variants)
        self.reroute()

    async def _initialize(self, request: Request) -> dict[str, Any]:
        params = as_json(request.params)
        version = choose_version(str(params.get("protocolVersion", "")), self.servers)
        self._serve(self.servers[version], handshake=True)
        self.their_capabilities = params.get("capabilities") or {}
        self.client_info = params.get("clientInfo") or {}
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.our_capabilities,
            "serverInfo": self.server.server_info(),
        }
        if self.server.instructions:
            result["instructions"] = self.server.instructions
        return result

    def assume(self, version: str) -> None:
        """Serve without a handshake (stateless HTTP): take ``version`` as negotiated.

        The client's capabilities are unknown, so requests to the client are refused.
        """
        self._serve(self.servers.get(version) or self.servers[max(self.servers)], handshake=False)

    async def _set_level(self, request: Request) -> dict[str, Any]:
        level = as_json(request.params).get("level")
        if level not in LOG_LEVELS:
            raise MCPError(INVALID_PARAMS, f"unknown log level {level!r}")
        self.log_level = level
        return {}

    async def on_notification(self, method: str, params: Any) -> None:
        """Hand a client notification to the server."""
        await self.server.on_notification(method, params)

    async def log(
        self, level: str, data: Any, logger: str | None = None, facts: RequestFacts | None = None
    ) -> None:
        """Send ``notifications/message`` if ``level`` reaches the client's chosen level."""
        check_level(level)
        if not reaches(level, self.log_level):
            return
        if not has_capability(self.our_capabilities, "logging"):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self.notify(self.methods["notifications/message"], params)
