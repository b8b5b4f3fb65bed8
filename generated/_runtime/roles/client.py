# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The client side: the base of generated ``Client`` classes.

``connect`` runs the handshake: ``initialize`` with this revision's version and the
capabilities that follow from the overridden handlers (sampling, roots, elicitation), a
check of the version the server chose, then ``notifications/initialized``. Requests are
refused locally when the server did not declare the capability they need.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast, runtime_checkable

import msgspec

from ..core.codec import convert
from ..core.errors import MCPError, SessionExpired
from ..core.lifecycle import accept_version, as_json, initial_phase
from ..core.methods import MethodSpec, RevisionFacts
from ..core.session import Session
from ..core.transport import Transport
from .connection import (
    DEFAULT,
    Connection,
    Default,
    implemented_capabilities,
    implemented_handlers,
)
from .peer import Peer, ProgressCallback
from .tasks import TaskSupport, attach_tasks, receivable, task_capabilities

__all__ = ["DEFAULT", "ClientBase", "Default", "InitializeResultLike", "connect_any"]

DEFAULT_TIMEOUT_S = 60.0
"""How long a request waits for its response unless the call or the client says otherwise."""


@runtime_checkable
class InitializeResultLike(Protocol):
    """What the client reads of any revision's ``InitializeResult``."""

    @property
    def protocol_version(self) -> str:
        """The version the server chose."""
        ...

    @property
    def capabilities(self) -> object:
        """The server's capabilities."""
        ...

    @property
    def server_info(self) -> object:
        """The server's name and version."""
        ...

    @property
    def instructions(self) -> str | msgspec.UnsetType:
        """How to use the server, if it says."""
        ...


@runtime_checkable
class ConnectResultLike(Protocol):
    """What every revision's connect result has: ``InitializeResult`` or ``DiscoverResult``."""

    @property
    def capabilities(self) -> object:
        """The server's capabilities."""
        ...


InitT = TypeVar("InitT", bound=ConnectResultLike)
ClientT = TypeVar("ClientT", bound="ClientBase[Any]")


class ClientBase(Connection, Generic[InitT]):
    """Base of generated ``Client`` classes; override the handlers of what the server may ask.

    ``InitT`` is the revision's ``InitializeResult``: what ``connect*`` return.
    """

    PROTOCOL_VERSION: ClassVar[str]
    METHODS: ClassVar[Mapping[str, MethodSpec[Any, Any]]]
    SUPPORTS_BATCH: ClassVar[bool]
    FACTS: ClassVar[RevisionFacts]
    """What the runtime acts on in this revision (generated: handshake, batches, HTTP rules)."""
    ROUTES: ClassVar[Mapping[str, str]]
    """Method name -> name of its handler, for every request a server may send."""
    roots_list_changed: ClassVar[bool] = False
    """Whether to declare ``roots.listChanged`` (when ``list_roots`` is overridden)."""
    TASKS: ClassVar[Mapping[str, MethodSpec[Any, Any]]] = {}
    """The requests that may run as tasks in this revision (generated), by wire name."""
    task_support: TaskSupport | None = None
    """Set to run the server's requests (sampling, elicitation) as tasks when it asks."""
    tolerant: bool = True
    """Keep what the server sends beyond the revision (extra fields, unknown content kinds as
    ``Unknown``); ``False``: strict, drop such fields and refuse such members."""

    def __init__(
        self,
        *,
        name: str = "mcpgen-client",
        version: str = "0.0.0",
        timeout: float | None = DEFAULT_TIMEOUT_S,
    ) -> None:
        super().__init__()
        self.name = name
        self.version = version
        self.timeout = timeout
        self.methods = self.METHODS
        self.handlers = implemented_handlers(self, self.ROUTES)
        self.tasks = attach_tasks(self, self.task_support, receivable(self.TASKS, "server"))
        self.server_info: dict[str, Any] = {}
        self.instructions: str | None = None
        self.initialize_result: InitT | None = None
        self._reader: asyncio.Task[None] | None = None
        self._generation = 0
        self._renew_lock = asyncio.Lock()
        self.modern: Any = None
        """The ``ModernSession`` once connected in the 2026-07-28 era (else None)."""

    @property
    def default_timeout(self) -> float | None:
        """The client's ``timeout``: what requests wait unless the call says otherwise."""
        return self.timeout

    # -- lifecycle ---------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        """Capabilities declared at initialize, following from the overridden handlers."""
        caps = implemented_capabilities(self, self.ROUTES, self.METHODS)
        if self.roots_list_changed and "roots" in caps:
            caps["roots"]["listChanged"] = True
        caps.update(task_capabilities(self.task_support, receivable(self.TASKS, "server")))
        return caps

    async def connect(
        self, transport: Transport, describe_close: Callable[[], str] | None = None
    ) -> InitT:
        """Run the handshake over ``transport``; return the server's initialize result.

        A 2026-07-28 client probes ``server/discover`` instead and returns its result.
        """
        if "initialize" not in self.METHODS:
            from .modern_client import StreamChannel, connect_modern

            found = await connect_modern(self, StreamChannel(transport, self.on_notification))
            return self.adopt_discover(found)
        await connect_any(transport, [self], describe_close)
        assert self.initialize_result is not None
        return self.initialize_result

    def adopt_discover(self, found: Mapping[str, Any]) -> InitT:
        """Keep a 2026-07-28 ``server/discover`` result, typed, as this client's connect result."""
        result: InitT = convert(found, self.METHODS["server/discover"].result)
        self.initialize_result = result
        return result

    async def _finish(self, result: InitT) -> None:
        """Adopt the server's initialize result and send ``notifications/initialized``."""
        self.initialize_result = result
        init = _initialize_fields(result)
        self.negotiate(init.protocol_version, self.METHODS, batch=self.SUPPORTS_BATCH)
        self.handlers = implemented_handlers(self, self.ROUTES)  # as declared at this handshake
        self.their_capabilities = as_json(init.capabilities)
        self.server_info = as_json(init.server_info)
        instructions = init.instructions
        self.instructions = None if isinstance(instructions, msgspec.UnsetType) else instructions
        await self.peer.notify("notifications/initialized")

    def _adopt(self, other: ClientBase[Any], declared: dict[str, Any]) -> None:
        """Take over the connection ``other`` opened (its handshake chose our revision)."""
        self.peer = other.peer
        self._reader = other._reader
        other._reader = None
        self.peer.retarget(self._on_request, self._on_notification)
        self.our_capabilities = declared

    async def connect_stdio(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> InitT:
        """Start an MCP server as a subprocess and connect to it over stdio."""
        from ..transports.stdio import spawn_server

        transport = await spawn_server(command, args, env, cwd)
        return await self.connect(
            transport, lambda: f"server process {transport.exit_description()}"
        )

    async def close(self) -> None:
        """Close the connection (for stdio: the server's shutdown sequence)."""
        if self.modern is not None:
            await self.modern.channel.close()
            self.modern = None
        if self._reader is None:
            return
        if self.tasks is not None:
            await self.tasks.close()
        await self.peer.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
        self._reader = None

    async def __aenter__(self) -> Self:
        """Use the client as an async context manager (``close`` on exit)."""
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close the connection."""
        await self.close()

    @staticmethod
    async def handshake(
        transport: Transport,
        clients: Sequence[ClientT],
        describe_close: Callable[[], str] | None = None,
    ) -> ClientT:
        """Run ``initialize`` for several revisions' clients at once (see ``connect_any``)."""
        if not clients:
            raise ValueError("connect_any needs at least one client")
        ordered = sorted(clients, key=lambda c: c.PROTOCOL_VERSION)
        first, by_version = ordered[-1], {c.PROTOCOL_VERSION: c for c in ordered}
        session = Session(
            first.METHODS,
            role="client",
            batch=first.SUPPORTS_BATCH,
            phase=initial_phase(first.METHODS),
            tolerant=first.tolerant,
        )
        first.peer = Peer(
            session, transport, first._on_request, first._on_notification, describe_close
        )
        first._reader = asyncio.create_task(first.peer.run())
        declared = _common_capabilities([c.capabilities() for c in ordered])
        try:
            result = await first._initialize(declared)
            chosen = by_version[accept_version(result.protocol_version, by_version)]
        except BaseException:
            await first.close()
            raise
        if chosen is not first:
            chosen._adopt(first, declared)
            # The result was decoded with the newest revision's types: decode it with the chosen's.
            result = convert(msgspec.to_builtins(result), chosen.METHODS["initialize"].result)
        await chosen._finish(result)
        return chosen

    # -- requests ---------------------------------------------------------------------------

    async def _send_request(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """Send one request; if the server ended the HTTP session, start a new one and retry."""
        if self.modern is not None:  # 2026-07-28: per-request _meta, MRTR (modern_client.py)
            return await self.modern.request(spec.method, params, timeout, progress)
        generation = self._generation
        try:
            return await self.peer.request(spec, params, timeout=timeout, progress=progress)
        except (SessionExpired, MCPError) as exc:
            if isinstance(exc, MCPError) and not _session_expired(exc):
                raise
            # The server ended the session (HTTP 404): start a new one, then retry once.
            await self._renew_session(generation)
            return await self.peer.request(spec, params, timeout=timeout, progress=progress)

    async def _renew_session(self, generation: int) -> None:
        """Run the handshake again, once, however many requests found the session expired."""
        async with self._renew_lock:
            if generation != self._generation:
                return
            self.peer.session.restart()
            result = await self._initialize(self.our_capabilities)
            accept_version(_initialize_fields(result).protocol_version, [self.PROTOCOL_VERSION])
            await self._finish(result)
            self._generation += 1

    async def _initialize(self, capabilities: dict[str, Any]) -> InitT:
        """Send ``initialize`` with this client's version and ``capabilities``."""
        self.our_capabilities = capabilities
        params = {
            "protocolVersion": self.PROTOCOL_VERSION,
            "capabilities": self.our_capabilities,
            "clientInfo": {"name": self.name, "version": self.version},
        }
        result: InitT = await self.peer.request("initialize", params, timeout=self.timeout)
        return result

    async def ping(self, timeout: float | Default | None = DEFAULT) -> None:
        """Check that the server answers."""
        await self.request(self.METHODS["ping"], None, timeout=timeout)

    # -- what the server sends -----------------------------------------------------------

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a server notification (log messages, list changes, resource updates); no-op."""


async def connect_any(
    transport: Transport,
    clients: Sequence[ClientT],
    describe_close: Callable[[], str] | None = None,
) -> ClientT:
    """Negotiate among several revisions' clients; return the one the server's version chose.

    The newest client proposes its version; if the server answers an older one that another
    client speaks, that client takes over the connection. Otherwise ``UnsupportedVersion``.
    """
    return await ClientBase.handshake(transport, clients, describe_close)


def _initialize_fields(result: object) -> InitializeResultLike:
    """The initialize result's fields (a revision without ``initialize`` never gets here)."""
    if not isinstance(result, InitializeResultLike):
        raise TypeError(f"not an InitializeResult: {type(result).__name__}")
    return result


def _common_capabilities(every: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the capabilities all of ``every`` declare (whichever client is chosen has them)."""
    common: dict[str, Any] = {}
    for name, value in every[0].items():
        others = [caps.get(name) for caps in every[1:]]
        if any(other is None for other in others):
            continue
        if isinstance(value, dict):
            members = cast(dict[str, Any], value)
            common[name] = {
                k: v
                for k, v in members.items()
                if all(isinstance(o, dict) and k in o for o in others)
            }
        else:
            common[name] = value
    return common


def _session_expired(error: MCPError) -> bool:
    """Whether an error answer says the HTTP session expired (the transport marks it)."""
    data: object = error.data
    return isinstance(data, dict) and cast(dict[str, Any], data).get("sessionExpired") is True
