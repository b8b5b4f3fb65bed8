"""The server side: the base of generated ``Server`` classes and the connection that runs them.

A generated ``Server`` has one async method per request a client may send; a subclass
overrides those it supports. What it overrides decides the capabilities it declares, and a
request for anything else is answered -32601. ``ServerConnection`` runs the lifecycle:
``initialize`` (version negotiation among the servers it was given), then dispatch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar, TypeVar

from ..core.errors import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND
from ..core.events import Notification, Request
from ..core.lifecycle import as_json, choose_version, gate, has_capability
from ..core.methods import MethodSpec
from ..core.session import Session
from ..transports.base import Transport
from .peer import MCPError, Peer

F = TypeVar("F", bound=Callable[..., Any])
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LOG_LEVEL = "info"


def unimplemented(handler: F) -> F:
    """Mark a generated default handler: not overriding it means the method is not supported."""
    handler.__mcpgen_default__ = True  # type: ignore[attr-defined]
    return handler


def is_implemented(owner: object, attr: str) -> bool:
    """Whether ``owner`` overrides the generated default handler ``attr``."""
    handler = getattr(owner, attr, None)
    return handler is not None and not getattr(handler, "__mcpgen_default__", False)


def implemented_capabilities(
    owner: object, routes: Mapping[str, str], methods: Mapping[str, MethodSpec]
) -> dict[str, Any]:
    """The capabilities that follow from the handlers ``owner`` overrides (``tools``, ...)."""
    caps: dict[str, Any] = {}
    for method, attr in routes.items():
        spec = methods[method]
        if spec.capability is None or not is_implemented(owner, attr):
            continue
        top, _, sub = spec.capability.partition(".")
        entry = caps.setdefault(top, {})
        if sub:
            entry[sub] = True
    return caps


class RequestContext:
    """What a handler gets besides its params: progress, logging, and requests to the peer."""

    def __init__(self, connection: Connection, request: Request) -> None:
        self.connection = connection
        self.request = request

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version."""
        return self.connection.protocol_version

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress, if the peer asked for it (a no-op otherwise)."""
        token = self.request.progress_token
        if token is None:
            return
        spec = self.connection.methods.get("notifications/progress")
        fields = getattr(spec.params, "__struct_encode_fields__", ()) if spec else ()
        if "message" not in fields:
            message = None  # 2024-11-05 progress notifications carry no message
        await self.connection.peer.progress(token, progress, total, message)

    async def send_request(
        self, method: str, params: Any = None, timeout: float | None = None
    ) -> Any:
        """Send a request to the peer within the negotiated capabilities; return its result."""
        return await self.connection.request(method, params, timeout=timeout)

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification to the peer; it is not part of this request (HTTP: GET stream)."""
        await self.connection.notify(method, params, related=False)


class ServerContext(RequestContext):
    """The context of a server handler: adds logging to the client."""

    connection: ServerConnection

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client (``notifications/message``), level permitting."""
        await self.connection.log(level, data, logger)


class Connection:
    """What both sides share: a peer, a negotiated version, both sides' capabilities."""

    def __init__(self) -> None:
        self.peer: Peer
        self.protocol_version = ""
        self.our_capabilities: dict[str, Any] = {}
        self.their_capabilities: dict[str, Any] = {}
        self.methods: Mapping[str, MethodSpec] = {}

    def check(self, method: str, sending: bool) -> MethodSpec:
        """Return the spec of a method we send, refusing it if a capability is missing."""
        spec = self.methods.get(method)
        if spec is None:
            raise MCPError(METHOD_NOT_FOUND, f"{method} does not exist in {self.protocol_version}")
        why = gate(
            spec, ours=self.our_capabilities, theirs=self.their_capabilities, sending=sending
        )
        if why is not None:
            raise CapabilityError(why)
        return spec

    async def request(
        self, method: str, params: Any = None, *, timeout: float | None = None, **kw: Any
    ) -> Any:
        """Send a request the capabilities allow and return its result."""
        self.check(method, sending=True)
        return await self.peer.request(method, params, timeout=timeout, **kw)

    async def notify(self, method: str, params: Any = None, *, related: bool = True) -> None:
        """Send a notification the capabilities allow."""
        self.check(method, sending=True)
        await self.peer.notify(method, params, related=related)


class CapabilityError(Exception):
    """A method may not be used: one side did not declare the capability it needs."""


class ServerBase:
    """Base of generated ``Server`` classes; subclasses override the handlers they support."""

    PROTOCOL_VERSION: ClassVar[str]
    METHODS: ClassVar[Mapping[str, MethodSpec]]
    SUPPORTS_BATCH: ClassVar[bool]
    ROUTES: ClassVar[Mapping[str, str]]
    """Method name -> name of its handler, for every request a client may send."""
    CONTEXT: ClassVar[type[ServerContext]] = ServerContext

    name: str = "mcpgen-server"
    version: str = "0.0.0"
    instructions: str | None = None
    list_changed: ClassVar[frozenset[str]] = frozenset()
    """Capabilities (``tools``, ``prompts``, ``resources``) whose ``listChanged`` we declare."""
    logging: ClassVar[bool] = True
    """Whether to declare the ``logging`` capability (``ctx.log`` needs it)."""

    def capabilities(self) -> dict[str, Any]:
        """Capabilities declared at initialize, following from the overridden handlers."""
        caps = implemented_capabilities(self, self.ROUTES, self.METHODS)
        for top in self.list_changed:
            if top in caps:
                caps[top]["listChanged"] = True
        if self.logging and any(s.capability == "logging" for s in self.METHODS.values()):
            caps["logging"] = {}
        return caps

    def server_info(self) -> dict[str, str]:
        """The ``serverInfo`` sent at initialize."""
        return {"name": self.name, "version": self.version}

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a client notification (``notifications/roots/list_changed`` ...); no-op."""

    async def serve(self, transport: Transport, *more: ServerBase) -> None:
        """Serve one connection until the client goes away (``more``: other revisions)."""
        await ServerConnection([self, *more], transport).run()

    async def serve_stdio(self, *more: ServerBase) -> None:
        """Serve one client over this process's stdin and stdout."""
        from ..transports.stdio import stdio_server

        await self.serve(await stdio_server(), *more)

    def run_stdio(self, *more: ServerBase) -> None:
        """Serve over stdio until the client closes stdin (blocking; for ``__main__``)."""
        asyncio.run(self.serve_stdio(*more))


class ServerConnection(Connection):
    """One client connection to one or more servers (one per protocol revision)."""

    def __init__(self, servers: list[ServerBase], transport: Transport) -> None:
        super().__init__()
        self.servers = {s.PROTOCOL_VERSION: s for s in servers if "initialize" in s.METHODS}
        if not self.servers:
            raise ValueError("at least one server of an initialize-era revision is needed")
        newest = self.servers[max(self.servers)]
        self.server = newest
        self.methods = newest.METHODS
        self.initialized = False
        self.log_level = DEFAULT_LOG_LEVEL
        self.client_info: dict[str, Any] = {}
        session = Session(newest.METHODS, role="server", batch=False)
        self.peer = Peer(session, transport, self._on_request, self._on_notification)

    async def run(self) -> None:
        """Serve until the client closes the connection."""
        try:
            await self.peer.run()
        finally:
            await self.peer.close()

    async def _on_request(self, request: Request) -> Any:
        if request.method == "initialize":
            return self._initialize(request)
        if request.method == "ping":
            return {}
        if not self.protocol_version:
            raise MCPError(
                INVALID_REQUEST, f"{request.method} before initialize: send initialize first"
            )
        spec = self.methods[request.method]
        attr = self.server.ROUTES.get(request.method)
        why = gate(spec, ours=self.our_capabilities, theirs=self.their_capabilities, sending=False)
        if why is not None:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        implemented = attr is not None and is_implemented(self.server, attr)
        if request.method == "logging/setLevel" and not implemented:
            return self._set_level(request.params)
        if attr is None or not implemented:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        handler: Callable[[Any, RequestContext], Awaitable[Any]] = getattr(self.server, attr)
        return await handler(request.params, self.server.CONTEXT(self, request))

    def _initialize(self, request: Request) -> dict[str, Any]:
        if self.protocol_version:
            raise MCPError(INVALID_REQUEST, "initialize was already done on this connection")
        params = as_json(request.params)
        version = choose_version(str(params.get("protocolVersion", "")), self.servers)
        self.server = self.servers[version]
        self.methods = self.server.METHODS
        self.peer.session.methods = self.server.METHODS
        self.peer.session.batch = self.server.SUPPORTS_BATCH
        self.protocol_version = version
        self.their_capabilities = params.get("capabilities") or {}
        self.client_info = params.get("clientInfo") or {}
        self.our_capabilities = self.server.capabilities()
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
        self.server = self.servers.get(version) or self.servers[max(self.servers)]
        self.methods = self.server.METHODS
        self.peer.session.methods = self.server.METHODS
        self.peer.session.batch = self.server.SUPPORTS_BATCH
        self.protocol_version = self.server.PROTOCOL_VERSION
        self.our_capabilities = self.server.capabilities()
        self.initialized = True

    def _set_level(self, params: Any) -> dict[str, Any]:
        level = as_json(params).get("level")
        if level not in LOG_LEVELS:
            raise MCPError(INVALID_PARAMS, f"unknown log level {level!r}")
        self.log_level = level
        return {}

    async def _on_notification(self, notification: Notification) -> None:
        if notification.method == "notifications/initialized":
            self.initialized = True
            return
        await self.server.on_notification(notification.method, notification.params)

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
        await self.notify("notifications/message", params)
