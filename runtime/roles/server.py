"""The server side: the base of generated ``Server`` classes and the connection that runs them.

A generated ``Server`` has one async method per request a client may send; a subclass
overrides those it supports. What it overrides decides the capabilities it declares, and a
request for anything else is answered -32601. ``ServerConnection`` adds what only a server
answers itself (``initialize``: version negotiation among the servers it was given; the
default ``logging/setLevel``) to the shared connection; the session's lifecycle refuses
requests before ``initialize``, and dispatch is the one of ``dispatch.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.errors import INVALID_PARAMS, CapabilityError, MCPError
from ..core.events import Request
from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.lifecycle import Phase, as_json, choose_version, has_capability, initial_phase
from ..core.methods import MethodSpec, RevisionFacts
from ..core.session import Session
from ..core.transport import Transport
from .connection import (
    Connection,
    RequestContext,
    implemented_capabilities,
    implemented_handlers,
    is_implemented,
    unimplemented,
)
from .peer import Peer
from .tasks import TaskSupport, attach_tasks, receivable, task_capabilities

__all__ = [
    "CapabilityError",
    "RequestContext",
    "ServerBase",
    "ServerConnection",
    "ServerContext",
    "is_implemented",
    "unimplemented",
]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LOG_LEVEL = "info"


class ServerContext(RequestContext):
    """The context of a server handler: adds logging to the client."""

    connection: ServerConnection

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client (``notifications/message``), level permitting."""
        await self.connection.log(level, data, logger)

    async def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        """SSE polling: end the HTTP connection of this request's SSE stream, not the stream.

        The client is told to reconnect after ``retry_ms`` (None: ``HttpOptions.sse_retry_ms``),
        resumes with GET and ``Last-Event-ID``, and gets what the handler sent meanwhile and
        its answer. Return False, doing nothing, where no client could resume: another
        transport than Streamable HTTP, a JSON body, stateless mode, a revision before
        2025-11-25, a 2026-07-28 request, or a request run as a task.
        """
        if self.task is not None:
            return False
        return await self.connection.close_stream(self.incoming.id, retry_ms)


class ServerBase:
    """Base of generated ``Server`` classes; subclasses override the handlers they support."""

    PROTOCOL_VERSION: ClassVar[str]
    METHODS: ClassVar[Mapping[str, MethodSpec[Any, Any]]]
    SUPPORTS_BATCH: ClassVar[bool]
    FACTS: ClassVar[RevisionFacts]
    """What the runtime acts on in this revision (generated: handshake, batches, HTTP rules)."""
    ROUTES: ClassVar[Mapping[str, str]]
    """Method name -> name of its handler, for every request a client may send."""
    CONTEXT: ClassVar[type[ServerContext]] = ServerContext
    TASKS: ClassVar[Mapping[str, MethodSpec[Any, Any]]] = {}
    """The requests that may run as tasks in this revision (generated), by wire name."""

    name: str = "mcpgen-server"
    version: str = "0.0.0"
    instructions: str | None = None
    list_changed: ClassVar[frozenset[str]] = frozenset()
    """Capabilities (``tools``, ``prompts``, ``resources``) whose ``listChanged`` we declare."""
    logging: ClassVar[bool] = True
    """Whether to declare the ``logging`` capability (``ctx.log`` needs it)."""
    task_support: TaskSupport | None = None
    """Set to run requests as tasks when the client asks (``tasks`` capability; 2025-11-25 on)."""
    tolerant: bool = True
    """Keep what clients send beyond the revision (extra fields, unknown content kinds as
    ``Unknown``); ``False``: strict, drop such fields and refuse such members."""

    def capabilities(self) -> dict[str, Any]:
        """Capabilities declared at initialize, following from the overridden handlers."""
        caps = implemented_capabilities(self, self.ROUTES, self.METHODS)
        for top in self.list_changed:
            if top in caps:
                caps[top]["listChanged"] = True
        if self.logging and any(s.capability == "logging" for s in self.METHODS.values()):
            caps["logging"] = {}
        caps.update(task_capabilities(self.task_support, receivable(self.TASKS, "client")))
        return caps

    def server_info(self) -> dict[str, str]:
        """The ``serverInfo`` sent at initialize."""
        return {"name": self.name, "version": self.version}

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a client notification (``notifications/roots/list_changed`` ...); no-op."""

    async def serve(self, transport: Transport, *more: ServerBase) -> None:
        """Serve one connection until the client goes away (``more``: other revisions)."""
        from .modern import modern_engine

        servers = [self, *more]
        legacy = [s for s in servers if "initialize" in s.METHODS]
        engine = modern_engine(servers, [s.PROTOCOL_VERSION for s in legacy])
        if engine is None:
            await ServerConnection(servers, transport).run()
            return
        from .dual import serve_both

        await serve_both(transport, engine, legacy)

    async def notify_tools_changed(self) -> None:
        """Tell every ``subscriptions/listen`` stream that opted in that the tools changed."""
        await self._listeners().notify_tools_changed()

    async def notify_prompts_changed(self) -> None:
        """Tell every listen stream that opted in that the prompts changed."""
        await self._listeners().notify_prompts_changed()

    async def notify_resources_changed(self) -> None:
        """Tell every listen stream that opted in that the resource list changed."""
        await self._listeners().notify_resources_changed()

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell every listen stream subscribed to ``uri`` that the resource changed."""
        await self._listeners().notify_resource_updated(uri)

    def _listeners(self) -> Any:
        """The 2026-07-28 engine of this server (its listeners and bus)."""
        from .modern import ModernServer

        if "initialize" in self.METHODS:
            raise TypeError("listen streams are a 2026-07-28 feature: publish on that server")
        return ModernServer.of(self)

    async def serve_stdio(self, *more: ServerBase) -> None:
        """Serve one client over this process's stdin and stdout."""
        from ..transports.stdio import stdio_server

        await self.serve(await stdio_server(), *more)

    def run_stdio(self, *more: ServerBase) -> None:
        """Serve over stdio until the client closes stdin (blocking; for ``__main__``)."""
        asyncio.run(self.serve_stdio(*more))


class ServerConnection(Connection):
    """One client connection to one or more servers (one per protocol revision)."""

    def __init__(
        self, servers: list[ServerBase], transport: Transport, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> None:
        super().__init__()
        self.servers = {s.PROTOCOL_VERSION: s for s in servers if "initialize" in s.METHODS}
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
        self.peer = Peer(session, transport, self._on_request, self._on_notification)

    @property
    def initialized(self) -> bool:
        """Whether the client has sent ``notifications/initialized`` (or none is needed)."""
        return self.peer.session.phase in (Phase.OPERATING, Phase.STATELESS)

    async def run(self) -> None:
        """Serve until the client closes the connection."""
        try:
            await self.peer.run()
        finally:
            if self.tasks is not None:
                await self.tasks.close()
            await self.peer.close()

    def context(self, request: Request) -> ServerContext:
        """The revision's ``ServerContext`` for a handler of ``request``."""
        return self.server.CONTEXT(self, request)

    def _serve(self, server: ServerBase, *, handshake: bool) -> None:
        """Serve ``server``'s revision from now on: negotiate it and take its handlers."""
        self.server = server
        self.negotiate(
            server.PROTOCOL_VERSION,
            server.METHODS,
            batch=server.SUPPORTS_BATCH,
            handshake=handshake,
        )
        self.handlers = implemented_handlers(server, server.ROUTES)
        self.our_capabilities = server.capabilities()
        self.tasks = attach_tasks(self, server.task_support, receivable(server.TASKS, "client"))

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

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send ``notifications/message`` if ``level`` reaches the client's chosen level."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        if not has_capability(self.our_capabilities, "logging"):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self.notify(self.methods["notifications/message"], params)
