# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The server without a handshake: every request accepted or refused on its own.

``StatelessServer`` is what every request of one generated stateless ``Server`` shares (its
capabilities, the key that seals MRTR state, the listen bus, cache defaults, the tasks
extension); ``StatelessConnection`` is a ``Connection`` like the handshake one, driven by the
same ``Peer`` over any transport: stdio hands it lines, HTTP one POST body (``answer``).

A request's route: the session decodes it in one pass (``core/reader.py``) and its lifecycle,
in the ``STATELESS`` phase, checks the ``_meta`` rows (``PER_REQUEST``: version and client
capabilities present, -32602; the version served, -32022); ``dispatch.py`` finds its handler
(``server/discover`` and ``subscriptions/listen`` are builtins, the tasks extension hooks in
as ``conn.tasks``); a handler whose result may be an ``InputRequiredResult`` is wrapped in its
MRTR rounds (``mrtr.with_rounds``). Per-request facts (version, client capabilities, log
level, client info) live on the handler's context (``ctx.facts``). Results get
``resultType``, ``_meta["io.modelcontextprotocol/serverInfo"]`` and, on cacheable methods,
``ttlMs``/``cacheScope`` (server defaults, overridable per handler with ``@cache_hints``).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, Final, Literal, TypeVar

from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError
from ..core.events import Request
from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.lifecycle import Phase, Served, StatedVersion, as_json
from ..core.meta import MISSING_CLIENT_CAPABILITY
from ..core.methods import MethodSpec
from ..core.sealed import InvalidRequestState, StateSealer
from ..core.session import Session
from ..core.tasks import EXTENSION, STATUS_NOTIFICATION
from ..core.transport import Transport
from ..core.wire import Inbound, meta_of
from .connection import (
    DEFAULT,
    Default,
    RequestFacts,
    check_level,
    implemented_capabilities,
    implemented_handlers,
    reaches,
)
from .definition import ServerContext, ServerDefinition, ServerSide
from .dispatch import Handler, dispatch_request
from .mrtr import (
    InputRequired,
    InvalidInputResponse,
    MissingClientCapability,
    input_required,
    with_rounds,
)
from .one_frame import Emit, OneFrame, Reply, RequestCheck, refused
from .peer import Peer, ProgressCallback
from .stateless_results import CacheDefaults, CacheScope, complete_result, hints_of
from .stateless_tasks import (
    ExtensionTasks,
    StatelessTasks,
    TaskStarter,
    declares_extension,
    missing_extension,
)
from .subscriptions import (
    PROMPTS_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_CHANGED,
    TOOLS_CHANGED,
    Filter,
    FilterError,
    Listeners,
    supported_filters,
)
from .taskstore import TaskRecord

_CHANGES: Final = frozenset({TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, RESOURCE_UPDATED})
MAX_IDLE: Final = 64
"""Most idle connections ``answer`` keeps for reuse (per frame depth limit)."""
DISCOVER: Final = "server/discover"
LISTEN: Final = "subscriptions/listen"

P = TypeVar("P")
R = TypeVar("R")


def _extension_row(method: str, kind: Literal["request", "notification"]) -> MethodSpec[Any, Any]:
    """A method of the tasks extension (not in the revision's table): JSON object params."""
    direction: Literal["client", "server"] = "client" if kind == "request" else "server"
    result = dict[str, Any] if kind == "request" else None
    return MethodSpec(method, kind, direction, dict, dict[str, Any], True, result)


class StatelessServer:
    """What every request of one stateless ``Server`` shares; ``connect`` serves a transport."""

    def __init__(
        self,
        server: ServerDefinition,
        *,
        handshake_versions: Iterable[str] = (),
        sealer: StateSealer | None = None,
        listeners: Listeners | None = None,
        cache_ttl_ms: int = 0,
        cache_scope: CacheScope = "private",
    ) -> None:
        self.server = server
        self.version = server.FACTS.version
        self.sealer = sealer or StateSealer()
        self.listeners = listeners or Listeners()
        self.capabilities = self._capabilities()
        self.filters = supported_filters(self.capabilities)
        self.result_types: dict[str, Any] = {
            m: spec.result for m, spec in server.METHODS.items() if spec.direction == "server"
        }
        self.served = Served(frozenset({self.version}), (self.version,))
        self.serve_handshake_versions(handshake_versions)
        self._idle: dict[int, list[StatelessConnection]] = {}
        """Connections whose one frame is answered, for the next ``answer`` (fewer objects)."""
        self.tool_changes: list[Callable[[], None]] = []
        """Called when the tool list changes (the HTTP layer forgets its tool headers)."""
        self.methods: Mapping[str, MethodSpec[Any, Any]] = server.METHODS
        self.tasks: ExtensionTasks | None = None
        if server.task_support is not None:
            self.take_tasks(StatelessTasks(server.task_support, self.result_types, self._task))
        self.handlers = self._handlers()
        hints = hints_of(implemented_handlers(server, server.ROUTES))
        self.cache = CacheDefaults(cache_ttl_ms, cache_scope, hints)
        """The cache hints of cacheable results: the server's defaults and per handler."""

    @classmethod
    def of(
        cls, server: ServerDefinition, handshake_versions: Iterable[str] = ()
    ) -> StatelessServer:
        """The face of ``server``, made on first use: HTTP, stdio and the publish API share it."""
        face = _FACES.get(server)
        if face is None:
            face = _FACES[server] = cls(server)
        face.serve_handshake_versions(handshake_versions)
        return face

    def take_tasks(self, tasks: ExtensionTasks) -> None:
        """Answer the tasks extension with ``tasks`` (this server's own, or the tasks of the
        server a bridge forwards to), and declare it in ``server/discover``."""
        self.tasks = tasks
        self.capabilities.setdefault("extensions", {})[EXTENSION] = {}
        self.filters |= {"taskIds"}
        methods = dict(self.methods)
        for method in tasks.methods:
            methods[method] = _extension_row(method, "request")
        methods[STATUS_NOTIFICATION] = _extension_row(STATUS_NOTIFICATION, "notification")
        self.methods = methods

    def serve_handshake_versions(self, versions: Iterable[str]) -> None:
        """Name these handshake versions as supported too (one process serving both eras)."""
        known = set(self.served.supported[1:]) | set(versions)
        supported = (self.version, *sorted(known, reverse=True))
        self.served = Served(self.served.versions, supported)

    def _capabilities(self) -> dict[str, Any]:
        server = self.server
        caps = implemented_capabilities(server, server.ROUTES, server.METHODS)
        for top in server.list_changed:
            if top in caps:
                caps[top]["listChanged"] = True
        if getattr(server, "resource_subscriptions", False) and "resources" in caps:
            caps["resources"]["subscribe"] = True
        if server.logging:
            caps["logging"] = {}
        return caps

    def _handlers(self) -> dict[str, Handler]:
        """The overridden handlers, those that may ask the client wrapped in their rounds."""
        handlers = implemented_handlers(self.server, self.server.ROUTES)
        for method, handler in handlers.items():
            if self.server.METHODS[method].input_required:
                handlers[method] = with_rounds(method, handler, self.sealer, self.result_types)
        return handlers

    def server_info(self) -> dict[str, Any]:
        """The ``serverInfo`` put in every result's ``_meta``."""
        return self.server.server_info()

    def discover(self) -> dict[str, Any]:
        """The ``server/discover`` result (before ``complete``)."""
        result: dict[str, Any] = {
            "supportedVersions": list(self.served.supported),
            "capabilities": self.capabilities,
        }
        if self.server.instructions:
            result["instructions"] = self.server.instructions
        return result

    def complete(self, method: str, result: Any, info: dict[str, Any] | None = None) -> Any:
        """A handler's result as sent (``stateless_results.complete_result``); ``info``: the
        serverInfo a connection worked out once (else asked of the server now)."""
        return complete_result(
            self.server_info() if info is None else info, self.cache, method, result
        )

    # -- publishing ---------------------------------------------------------------------------

    async def publish(self, method: str, uri: str | None = None) -> None:
        """Publish a change to every listener (and tell ``tool_changes`` of tool changes)."""
        if method == TOOLS_CHANGED:
            for forget in self.tool_changes:
                forget()
        if method == RESOURCE_UPDATED and uri is not None:
            await self.listeners.notify_resource_updated(uri)
        elif method == TOOLS_CHANGED:
            await self.listeners.notify_tools_changed()
        elif method == PROMPTS_CHANGED:
            await self.listeners.notify_prompts_changed()
        elif method == RESOURCES_CHANGED:
            await self.listeners.notify_resources_changed()

    async def notify_tools_changed(self) -> None:
        """Tell every listener that opted in that the tool list changed."""
        await self.publish(TOOLS_CHANGED)

    async def notify_prompts_changed(self) -> None:
        """Tell every listener that opted in that the prompt list changed."""
        await self.publish(PROMPTS_CHANGED)

    async def notify_resources_changed(self) -> None:
        """Tell every listener that opted in that the resource list changed."""
        await self.publish(RESOURCES_CHANGED)

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell every listener subscribed to ``uri`` that it changed."""
        await self.publish(RESOURCE_UPDATED, uri)

    async def _task(self, record: TaskRecord, params: dict[str, Any]) -> None:
        """Publish a task's new state to the listen streams that asked for it."""
        await self.listeners.notify_task(record.task_id, params)

    # -- serving ------------------------------------------------------------------------------

    def connect(
        self,
        transport: Transport,
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        stated: StatedVersion | None = None,
        check: RequestCheck | None = None,
    ) -> StatelessConnection:
        """A connection serving ``transport`` (``run()`` it, or ``feed`` it frames)."""
        return StatelessConnection(self, transport, max_depth, stated, check)

    async def answer(
        self,
        frame: bytes | Inbound,
        emit: Emit | None = None,
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        stated: StatedVersion | None = None,
        check: RequestCheck | None = None,
    ) -> Reply:
        """Answer one frame (one HTTP POST): its response and how it was reached.

        ``emit`` writes what the handler sends before the response (progress, logs, a listen
        stream); ``stated`` and ``check`` are the transport's own checks (HTTP headers).
        Cancelling the call cancels the handler.
        """
        transport = OneFrame(emit)
        idle = self._idle.get(max_depth)
        if idle:
            connection = idle.pop()
            connection.take(transport, stated, check)
        else:
            connection = self.connect(transport, max_depth=max_depth, stated=stated, check=check)
        try:
            peer = connection.peer
            events = await peer.feed(frame)
            asked = Request in map(type, events)
            if asked and not transport.done:
                await transport.answered()
            if peer.flush_due:
                await peer.flush()
        except BaseException:
            await connection.peer.close()
            raise
        if connection.peer.idle and len(idle or ()) < MAX_IDLE:
            self._idle.setdefault(max_depth, []).append(connection)  # reused by the next one
        else:
            await connection.peer.close()
        return Reply(transport.response, asked, refused(events))


class StatelessConnection(ServerSide):
    """One transport serving a stateless ``Server``: each request on its own."""

    def __init__(
        self,
        face: StatelessServer,
        transport: Transport,
        max_depth: int = DEFAULT_MAX_DEPTH,
        stated: StatedVersion | None = None,
        check: RequestCheck | None = None,
    ) -> None:
        super().__init__()
        self.face = face
        self.server = face.server
        self.protocol_version = face.version
        self.methods = face.methods
        self.our_capabilities = face.capabilities
        self.handlers = face.handlers
        self.builtins = {DISCOVER: self._discover, LISTEN: self._listen}
        self.server_info = face.server_info()
        """The serverInfo of every result's ``_meta``, worked out once per connection (as
        ``initialize`` says it once per session)."""
        self._check = check
        if face.tasks is not None:
            self.tasks = TaskStarter(face.tasks, self.context)
            for method in face.tasks.methods:
                self.builtins[method] = self._task_request
        session = Session(
            face.methods,
            role="server",
            phase=Phase.STATELESS,
            tolerant=face.server.tolerant,
            max_depth=max_depth,
            served=face.served,
        )
        session.stated = stated
        self.peer = Peer(session, transport, self._answers(check), self._on_notification)
        self.peer.complete = functools.partial(complete_result, self.server_info, face.cache)
        self.peer.rescue = self._rescue
        self.reroute()

    @property
    def their_capabilities(self) -> dict[str, Any]:
        """The client's capabilities, as the request being handled declares them."""
        facts = _FACTS.get()
        return {} if facts is None else facts.client_capabilities

    @their_capabilities.setter
    def their_capabilities(self, value: dict[str, Any]) -> None:
        """Nothing is declared once per connection without a handshake."""

    def take(
        self, transport: Transport, stated: StatedVersion | None, check: RequestCheck | None
    ) -> None:
        """Serve another transport from now on (an idle connection reused by ``answer``)."""
        self.peer.transport = transport
        self.peer.session.stated = stated
        if check is not self._check:
            self._check = check
            self.peer.retarget(self._answers(check), self._on_notification)

    async def run(self) -> None:
        """Serve until the transport closes."""
        try:
            await self.peer.run()
        finally:
            await self.peer.close()

    def context(self, request: Request) -> ServerContext:
        """The revision's context for ``request``, with the facts its ``_meta`` states."""
        context = self.server.CONTEXT(self, request)
        params: Any = request.params  # typed params keep ``_meta`` as a field: read at once
        kind = params.__class__
        meta = params.get("_meta") if kind is dict else None if params is None else params.meta
        found: Any = meta  # ``RequestFacts.read``, inlined (a dict once tested: no cast call)
        context.facts = facts = RequestFacts(found if type(meta) is dict else {})
        _FACTS.set(facts)  # the handler's own task (and what it starts): see ``request``
        return context

    def _answers(self, check: RequestCheck | None) -> Callable[[Request], Awaitable[Any]]:
        """What the peer calls per admitted request: the dispatcher itself (no coroutine of
        ours between them), or the transport's check first. The peer completes the result
        (``complete_result``) and turns a round-trip signal into its answer (``_rescue``)."""
        if check is None:
            return functools.partial(dispatch_request, self)
        return self._checked

    def _checked(self, request: Request) -> Awaitable[Any]:
        """Dispatch one admitted request after the transport's check (HTTP headers): at once
        when the check needs no wait (a refusal raises here, inside the peer's ``try``)."""
        check = self._check
        pending = None if check is None else check(request)
        if pending is None:
            return dispatch_request(self, request)
        return self._after_check(pending, request)

    async def _after_check(self, pending: Awaitable[None], request: Request) -> Any:
        """Dispatch one admitted request once a check that had to wait is done."""
        await pending
        return await dispatch_request(self, request)

    def _rescue(self, error: Exception) -> Any:
        """The answer a handler's round-trip signal stands for: an unanswered question's
        ``InputRequiredResult`` (this round ends here), else the error to answer, raised."""
        if isinstance(error, InputRequired):
            return input_required(_FACTS.get())
        if isinstance(error, MissingClientCapability):
            raise MCPError(MISSING_CLIENT_CAPABILITY, str(error), error.data) from None
        if isinstance(error, (InvalidInputResponse, InvalidRequestState)):
            raise MCPError(INVALID_PARAMS, f"Invalid params: {error}") from None
        raise error

    async def on_notification(self, method: str, params: Any) -> None:
        """Client notifications carry nothing a stateless server acts on (cancellation is
        the session's)."""

    async def request(
        self,
        method: MethodSpec[P, R],
        params: P,
        *,
        timeout: float | Default | None = DEFAULT,
        progress: ProgressCallback[Any] | None = None,
    ) -> R:
        """No requests to the client without a handshake: the question goes to the rounds (or
        the task) of the request being handled (a context that sends through the connection,
        as the revision bridge's does)."""
        facts = _FACTS.get()
        if facts is None:
            raise MCPError(INTERNAL_ERROR, f"{method.method}: this request cannot ask the client")
        answer: R = await facts.ask(method.method, params)
        return answer

    async def notify(self, method: MethodSpec[P, None], params: P, *, related: bool = True) -> None:
        """Change notifications go to the listeners; others to the request's stream."""
        name = method.method
        if name in _CHANGES:
            uri = as_json(params).get("uri")
            await self.face.publish(name, uri if isinstance(uri, str) else None)
            return
        await self.peer.notify(name, params)

    async def log(
        self, level: str, data: Any, logger: str | None = None, facts: RequestFacts | None = None
    ) -> None:
        """Send ``notifications/message`` only if the request asked for logs at this level."""
        check_level(level)
        if facts is None or facts.log_level is None or not facts.streaming:
            return
        if not reaches(level, facts.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self.peer.notify("notifications/message", params)

    # -- builtins -------------------------------------------------------------------------------

    async def _discover(self, request: Request) -> dict[str, Any]:
        return self.face.discover()

    async def _listen(self, request: Request) -> dict[str, Any]:
        params = as_json(request.params)
        try:
            wanted = Filter.parse(params.get("notifications"))
        except FilterError as exc:
            raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        tasks = self.face.tasks
        if wanted.task_ids and tasks is not None:
            facts = RequestFacts.read(meta_of(request.params))
            if not declares_extension(facts.client_capabilities):
                raise missing_extension()
            wanted = wanted.only_tasks(await tasks.owned(list(wanted.task_order)))

        async def send(method: str, body: dict[str, Any]) -> None:
            await self.peer.notify(method, body)

        return await self.face.listeners.listen(request.id, wanted, self.face.filters, send)

    async def _task_request(self, request: Request) -> dict[str, Any]:
        """``tasks/get``, ``tasks/update``, ``tasks/cancel`` (the tasks extension)."""
        assert self.face.tasks is not None
        facts = RequestFacts.read(meta_of(request.params))
        params = as_json(request.params)
        return await self.face.tasks.answer(request.method, params, facts.client_capabilities)


_FACTS: ContextVar[RequestFacts | None] = ContextVar("mcpgen_request_facts", default=None)
"""The facts of the stateless request whose handler runs in this context."""
_FACES: weakref.WeakKeyDictionary[ServerDefinition, StatelessServer] = weakref.WeakKeyDictionary()
