"""The client side: the base of generated ``Client`` classes, for both eras of the protocol.

``connect`` opens the connection the revision's way (its ``FACTS.handshake``):
- with a handshake: ``initialize`` with this revision's version and the capabilities that
  follow from the overridden handlers (sampling, roots, elicitation), a check of the version
  the server chose, then ``notifications/initialized``;
- without: the session runs in the ``STATELESS`` phase, ``server/discover`` is probed, and
  every request carries its own ``_meta`` (``stateless_client.py``).
Requests are refused locally when the server did not declare the capability they need (the
verdict kept per method); every request and notification then goes through the client's
``sender`` (``client_send.py``), the one seam the revision adapter replaces.

``connect.py`` decides the era of a server a client does not know (``connect_auto``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, ClassVar, Final, Generic, Self, TypeVar, cast

import msgspec

from ..core.codec import convert
from ..core.events import Notification
from ..core.lifecycle import Phase, accept_version, as_json
from ..core.meta import META_SERVER_INFO
from ..core.methods import MethodSpec, RevisionFacts
from ..core.session import Session
from ..core.transport import Transport
from .client_facts import (
    ConnectResultLike,
    InitializeResultLike,
    common_capabilities,
    initialize_fields,
)
from .client_send import SendsRequests, SessionSender
from .connection import (
    DEFAULT,
    Connection,
    Default,
    implemented_capabilities,
    implemented_handlers,
)
from .peer import Peer, ProgressCallback
from .stateless_client import (
    DEFAULT_MAX_ROUNDS,
    HandshakeServer,
    StatelessRequests,
    probe,
)
from .task_client import declaring, extension_rows
from .tasks import TaskSupport, attach_tasks, receivable, task_capabilities

__all__ = [
    "DEFAULT",
    "ClientBase",
    "Default",
    "HandshakeServer",
    "InitializeResultLike",
    "connect_any",
]

DEFAULT_TIMEOUT_S = 60.0
"""How long a request waits for its response unless the call or the client says otherwise."""


InitT = TypeVar("InitT", bound=ConnectResultLike)
ClientT = TypeVar("ClientT", bound="ClientBase[Any]")
P = TypeVar("P")
R = TypeVar("R")
_Verdict = tuple[
    MethodSpec[Any, Any],
    MethodSpec[Any, Any],
    Mapping[str, MethodSpec[Any, Any]],
    dict[str, Any],
    dict[str, Any],
]
"""(the spec given, the row to send it with, the method table and both capabilities it held
under): a capability verdict, good while the client holds the same three objects."""
MAX_VERDICTS: Final = 256
"""Most methods (rows and variants) a client keeps a capability verdict for."""


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
    tasks_extension: ClassVar[bool] = False
    """Without a handshake: declare the tasks extension (``io.modelcontextprotocol/tasks``) in
    every request, and follow a ``tools/call`` the server makes a task to its result."""
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
        self._verdicts: dict[int, _Verdict] = {}
        """The row to send each allowed method with, by the identity of the spec a caller gives
        (good while the method table and both sides' capabilities are the ones it names)."""
        self.sender: SendsRequests = SessionSender(self)
        """Where every request and notification of this client goes (``client_send.py``): the
        session's, the request path without a handshake, or the revision adapter's."""
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
        self.session_generation = 0
        """How many times the session was started again (HTTP: the server ended it)."""
        self._renew_lock = asyncio.Lock()
        self.stateless: StatelessRequests | None = None
        """The request path once connected without a handshake (``_meta``, input rounds)."""

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
        if self.tasks_extension and not self.FACTS.handshake:
            caps = declaring(caps)
        return caps

    async def connect(
        self, transport: Transport, describe_close: Callable[[], str] | None = None
    ) -> InitT:
        """Open the connection over ``transport``; return the server's connect result.

        With a handshake: ``initialize`` (the ``InitializeResult``); without: the
        ``server/discover`` probe (the ``DiscoverResult``).
        """
        if not self.FACTS.handshake:
            return await self.connect_stateless(transport, describe_close=describe_close)
        await connect_any(transport, [self], describe_close)
        assert self.initialize_result is not None
        return self.initialize_result

    async def connect_stateless(
        self,
        transport: Transport,
        *,
        describe_close: Callable[[], str] | None = None,
        probe_timeout: float | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        log_level: str | None = None,
    ) -> InitT:
        """Connect without a handshake: probe ``server/discover``; return its typed result.

        Raises ``HandshakeServer`` when the server answers as one of the initialize era.
        """
        requests = self.attach_stateless(
            transport, describe_close=describe_close, max_rounds=max_rounds, log_level=log_level
        )
        wait = probe_timeout if probe_timeout is not None else self.timeout
        result: InitT = await probe(requests, wait)
        self.adopt_discover(result)
        return result

    def attach_stateless(
        self,
        transport: Transport,
        *,
        describe_close: Callable[[], str] | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        log_level: str | None = None,
    ) -> StatelessRequests:
        """Start a connection without a handshake and without probing (the server's
        capabilities are unknown: nothing is refused locally); return its request path."""
        self._open(transport, describe_close, Phase.STATELESS)
        self.peer.session.methods = {**self.METHODS, **extension_rows()}  # the tasks extension
        self.our_capabilities = self.capabilities()
        self.their_capabilities = {
            spec.capability.split(".")[0]: {}
            for spec in self.METHODS.values()
            if spec.capability is not None
        }
        self.protocol_version = self.PROTOCOL_VERSION
        info = {"name": self.name, "version": self.version}
        self.stateless = StatelessRequests(
            self,
            self.PROTOCOL_VERSION,
            self.our_capabilities,
            info,
            max_rounds=max_rounds,
            log_level=log_level,
            tasks=self.tasks_extension,
        )
        self.sender = self.stateless
        return self.stateless

    def _open(
        self, transport: Transport, describe_close: Callable[[], str] | None, phase: Phase
    ) -> None:
        """Run a peer over ``transport`` whose session starts in ``phase``."""
        session = Session(
            self.METHODS,
            role="client",
            batch=self.FACTS.batch,
            phase=phase,
            tolerant=self.tolerant,
        )
        self.peer = Peer(
            session, transport, self._on_request, self._on_notification, describe_close
        )
        self.sender = SessionSender(self)
        self._reader = asyncio.create_task(self.peer.run())

    def adopt_discover(self, result: InitT) -> InitT:
        """Keep a ``server/discover`` result as this client's connect result."""
        self.initialize_result = result
        self.their_capabilities = as_json(result.capabilities)
        meta: object = getattr(result, "meta", None)
        info: object = (
            cast(dict[str, Any], meta).get(META_SERVER_INFO) if isinstance(meta, dict) else None
        )
        self.server_info = cast(dict[str, Any], info) if isinstance(info, dict) else {}
        instructions: object = getattr(result, "instructions", None)
        self.instructions = instructions if isinstance(instructions, str) else None
        return result

    async def _finish(self, result: InitT) -> None:
        """Adopt the server's initialize result and send ``notifications/initialized``."""
        self.initialize_result = result
        init = initialize_fields(result)
        self.negotiate(init.protocol_version, self.METHODS, batch=self.SUPPORTS_BATCH)
        self.handlers = implemented_handlers(self, self.ROUTES)  # as declared at this handshake
        self.their_capabilities = as_json(init.capabilities)
        self.server_info = as_json(init.server_info)
        instructions = init.instructions
        self.instructions = None if isinstance(instructions, msgspec.UnsetType) else instructions
        await self.peer.notify("notifications/initialized")

    def _take_over(self, probed: ClientBase[Any]) -> None:
        """Take over the connection a probe opened, to run the handshake on it."""
        self.peer, self._reader = probed.peer, probed._reader
        probed._reader, probed.stateless = None, None
        self.peer.retarget(self._on_request, self._on_notification)
        session = self.peer.session
        session.methods, session.batch = self.METHODS, self.FACTS.batch
        session.restart()

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
        self.stateless = None
        if self._reader is None:
            return
        if self.tasks is not None:
            await self.tasks.close()
        await self.peer.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
        self._reader = None

    async def wait_closed(self) -> None:
        """Wait until the connection ends: the server went away, or ``close`` was called."""
        reader = self._reader
        if reader is not None:
            await asyncio.gather(asyncio.shield(reader), return_exceptions=True)

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
        *,
        probed: ClientBase[Any] | None = None,
    ) -> ClientT:
        """Run ``initialize`` for several revisions' clients at once (see ``connect_any``).

        ``probed``: a client whose probe found a handshake server on ``transport``; its
        connection is taken over, so the handshake's ids follow the probe's (a late answer
        to the probe is not mistaken for the answer to ``initialize``).
        """
        if not clients:
            raise ValueError("connect_any needs at least one client")
        ordered = sorted(clients, key=lambda c: c.PROTOCOL_VERSION)
        first, by_version = ordered[-1], {c.PROTOCOL_VERSION: c for c in ordered}
        if probed is not None and probed._reader is not None:
            first._take_over(probed)
        else:
            first._open(transport, describe_close, Phase.AWAITING_INITIALIZE)
        declared = common_capabilities([c.capabilities() for c in ordered])
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

    # A plain call returning the sender's coroutine: no coroutine of its own. (Pyright types
    # the base's ``async def`` as returning ``CoroutineType``, mypy as ``Coroutine``.)
    def request(  # pyright: ignore[reportIncompatibleMethodOverride]
        self,
        method: MethodSpec[P, R],
        params: P,
        *,
        timeout: float | Default | None = DEFAULT,
        progress: ProgressCallback[Any] | None = None,
    ) -> Coroutine[Any, Any, R]:
        """Send a request the capabilities allow, through ``sender``; await its typed result.

        A refusal (a capability missing) is raised when the result is awaited, as from a
        coroutine function."""
        found = self._verdicts.get(id(method))
        if (
            found is not None
            and found[0] is method
            and found[2] is self.methods
            and found[3] is self.our_capabilities
            and found[4] is self._their_capabilities
        ):
            spec = found[1]
        else:
            try:
                spec = self._allowed(method)
            except Exception as exc:
                return _raise(exc)
        wait = self.timeout if isinstance(timeout, Default) else timeout
        sent: Coroutine[Any, Any, R] = self.sender.request(spec, params, wait, progress)
        return sent

    def _allowed(self, method: MethodSpec[Any, Any]) -> MethodSpec[Any, Any]:
        """The row to send ``method`` with, if the capabilities allow it (the verdict kept)."""
        spec = self.check(method, sending=True)
        if len(self._verdicts) >= MAX_VERDICTS:  # rows are few: only tests make many variants
            self._verdicts.clear()
        theirs = self._their_capabilities
        self._verdicts[id(method)] = (method, spec, self.methods, self.our_capabilities, theirs)
        return spec

    async def notify(self, method: MethodSpec[P, None], params: P, *, related: bool = True) -> None:
        """Send a notification the capabilities allow, through ``sender``."""
        await self.sender.notify(method, params, related)

    async def renew_session(self, generation: int) -> None:
        """Run the handshake again, once, however many requests found the session expired
        since ``generation`` (``session_generation`` when they were sent)."""
        async with self._renew_lock:
            if generation != self.session_generation:
                return
            self.peer.session.restart()
            result = await self._initialize(self.our_capabilities)
            accept_version(initialize_fields(result).protocol_version, [self.PROTOCOL_VERSION])
            await self._finish(result)
            self.session_generation += 1

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

    async def _on_notification(self, notification: Notification) -> None:
        """A listen stream's notifications go to their listener, the others to the role."""
        stateless = self.stateless
        if stateless is not None and await stateless.route(notification):
            return
        await super()._on_notification(notification)


async def _raise(error: Exception) -> Any:
    """Raise ``error`` when awaited (a refusal of ``request``, raised where it is awaited)."""
    raise error


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
