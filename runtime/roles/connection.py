"""What both roles share: the connection (a peer, a negotiated revision, both sides'
capabilities), the context a handler gets, and how handlers are found on an object.

``ClientBase`` is a ``Connection``; a server has one ``ServerConnection`` per client. Both
send through ``request``/``notify``, typed by the revision's ``MethodSpec`` constants
(``await conn.request(TOOLS_CALL, params)`` returns a ``CallToolResult``), and receive
through the one dispatcher in ``dispatch.py``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

import msgspec

from ..core.errors import INTERNAL_ERROR, METHOD_NOT_FOUND, CapabilityError, MCPError
from ..core.events import Notification, Request, RequestId
from ..core.lifecycle import gate
from ..core.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION
from ..core.methods import MethodSpec
from ..core.tasks import variant
from ..core.transport import ClosesStreams
from . import dispatch
from .dispatch import Builtin, Handler, Route, StartsTasks
from .peer import RELATED_REQUEST, Peer, ProgressCallback

if TYPE_CHECKING:
    from ..auth.principal import AccessToken

P = TypeVar("P")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_LEVELS: Final = frozenset(LOG_LEVELS)
_NO_META: Final[dict[str, Any]] = {}
"""What ``RequestFacts.read`` reads when ``_meta`` is no object (never written)."""


def check_level(level: str) -> None:
    """Refuse a log level that is not one of ``LOG_LEVELS`` (ValueError)."""
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")


def reaches(level: str, threshold: str) -> bool:
    """Whether a message at ``level`` is sent to a client that asked for ``threshold``."""
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


class Asks(Protocol):
    """Where a request's questions to the client go without a handshake (MRTR rounds, a task)."""

    async def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """Return the typed answer to one question (or suspend the request until it is given)."""
        ...


class RunsAsTask(Protocol):
    """The task a request runs as (``tasks.TaskHandle``): its messages name the task."""

    def tag(self, params: Any) -> Any:
        """``params`` with ``_meta`` naming the task."""
        ...

    async def progress(
        self,
        spec: MethodSpec[Any, None],
        token: str | int,
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        """Report progress of the task (its token outlives the request)."""
        ...

    async def request(self, method: MethodSpec[Any, R], params: object, timeout: float | None) -> R:
        """Send a request for the task and return its result."""
        ...


def _object(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object (the request's own: not copied), else an empty one."""
    found: Any = value  # not ``cast``: a call on every message's hot path
    return found if type(value) is dict else {}


def client_capabilities(meta: object) -> dict[str, Any]:
    """The client capabilities a request's ``_meta`` declares (the request's own object)."""
    return _object(_object(meta).get(META_CAPABILITIES))


class RequestFacts(msgspec.Struct):
    """What a request without a handshake says about itself in ``_meta``, and where its
    questions to the client go: the per-request facts a handshake would have said once (a
    Struct: made in C, one per request; each fact read from ``_meta`` when asked for)."""

    meta: dict[str, Any]
    """The request's ``_meta`` (the session's ``PER_REQUEST`` rows checked it; never written)."""
    asker: Asks | None = None
    """Where ``ctx.elicit(...)`` and the like go: the MRTR rounds, or the task once it began."""
    streaming: bool = True
    """False once the call became a task: nothing more goes on the request's stream."""
    begin_task: Callable[[], Awaitable[None]] | None = None
    """Makes the call a task from here on, when it may become one (``begin_task(ctx)``)."""

    @classmethod
    def read(cls, meta: object) -> RequestFacts:
        """The facts of a request's ``_meta`` (the session's ``PER_REQUEST`` rows checked it)."""
        found: Any = meta  # a dict once tested (not ``cast``: a call per request)
        return cls(found if type(meta) is dict else _NO_META)

    @property
    def version(self) -> str:
        """The protocol version the request is made in ("" where none is stated)."""
        version = self.meta.get(META_VERSION)
        return version if type(version) is str else ""

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The client's capabilities, as the request declares them (its own object)."""
        return client_capabilities(self.meta)

    @property
    def client_info(self) -> dict[str, Any]:
        """The client's name and version, as the request states them (its own object)."""
        return _object(self.meta.get(META_CLIENT_INFO))

    @property
    def log_level(self) -> str | None:
        """The lowest level the client wants logs at for this request (None: no logs)."""
        level = self.meta.get(META_LOG_LEVEL)
        return level if type(level) is str and level in _LEVELS else None

    async def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """Ask the client: in an MRTR round, or through the task once there is one."""
        if self.asker is None:
            raise MCPError(INTERNAL_ERROR, f"{method}: this request cannot ask the client")
        return await self.asker.ask(method, params, key)


class Default:
    """The type of ``DEFAULT``: use the connection's own timeout."""


DEFAULT = Default()


def unimplemented(handler: F) -> F:
    """Mark a generated default handler: not overriding it means the method is not supported."""
    handler.__mcpgen_default__ = True  # type: ignore[attr-defined]
    return handler


def is_implemented(owner: object, attr: str) -> bool:
    """Whether ``owner`` overrides the generated default handler ``attr``."""
    handler: object = getattr(owner, attr, None)
    return handler is not None and not getattr(handler, "__mcpgen_default__", False)


def implemented_handlers(owner: object, routes: Mapping[str, str]) -> dict[str, Handler]:
    """Method name -> bound handler, for every route whose handler ``owner`` overrides."""
    return {method: getattr(owner, attr) for method, attr in _implemented_routes(owner, routes)}


def implemented_capabilities(
    owner: object, routes: Mapping[str, str], methods: Mapping[str, MethodSpec[Any, Any]]
) -> dict[str, Any]:
    """The capabilities that follow from the handlers ``owner`` overrides (``tools``, ...)."""
    caps: dict[str, Any] = {}
    for method, _ in _implemented_routes(owner, routes):
        spec = methods[method]
        if spec.capability is None:
            continue
        *path, leaf = spec.capability.split(".")
        entry = caps
        for part in path:
            entry = entry.setdefault(part, {})
        if leaf not in entry:
            entry[leaf] = True if leaf in CAPABILITY_FLAGS else {}
    return caps


CAPABILITY_FLAGS: Final = frozenset({"listChanged", "subscribe"})
"""The capability members every revision's schema types as booleans; every other is an object.

``tasks.requests.tools.call`` is therefore declared ``{"tasks": {"requests": {"tools":
{"call": {}}}}}``, which is what a 2025-11-25 peer validates, not ``true``.
"""


_LOGGING: dict[int, tuple[Mapping[str, MethodSpec[Any, Any]], bool]] = {}


def declares_logging(methods: Mapping[str, MethodSpec[Any, Any]]) -> bool:
    """Whether a revision's method table has a method needing ``logging`` (worked out once
    per table: a stateless HTTP server declares its capabilities on every POST)."""
    entry = _LOGGING.get(id(methods))
    if entry is None or entry[0] is not methods:
        if len(_LOGGING) > 256:  # tables are few; only tests make many
            _LOGGING.clear()
        found = any(spec.capability == "logging" for spec in methods.values())
        entry = _LOGGING[id(methods)] = (methods, found)
    return entry[1]


_ROUTES_OF_CLASS: dict[tuple[type, int], tuple[Mapping[str, str], tuple[tuple[str, str], ...]]] = {}


def _implemented_routes(owner: object, routes: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """(method, handler name) of the routes ``owner`` overrides, worked out once per class.

    A stateless HTTP server makes a connection per POST: checking every route of the
    revision each time was a large part of its cost. Handlers set on the instance itself
    are looked up every time.
    """
    own: object = getattr(owner, "__dict__", None)
    if isinstance(own, dict) and not own.keys().isdisjoint(routes.values()):
        return tuple((m, a) for m, a in routes.items() if is_implemented(owner, a))
    key = (type(owner), id(routes))
    entry = _ROUTES_OF_CLASS.get(key)
    if entry is None or entry[0] is not routes:
        if len(_ROUTES_OF_CLASS) > 256:  # classes are few; only tests make many
            _ROUTES_OF_CLASS.clear()
        found = tuple((m, a) for m, a in routes.items() if is_implemented(owner, a))
        entry = _ROUTES_OF_CLASS[key] = (routes, found)
    return entry[1]


@lru_cache(maxsize=64)
def _carries_message(params_type: type[Any]) -> bool:
    """Whether a revision's progress params have a ``message`` (2024-11-05's do not)."""
    try:
        return any(f.encode_name == "message" for f in msgspec.structs.fields(params_type))
    except TypeError:  # not a Struct: a plain mapping takes any member
        return True


def related_request_id() -> RequestId | None:
    """The id of our request that the peer's message being handled relates to: over
    Streamable HTTP, the client's request whose POST stream it came on (the spec has a server
    send a request's related messages there). Read in the message's handler (its task, and the
    tasks it starts, keep the value). None: a message on the GET stream, over stdio or
    HTTP+SSE, or outside any handler."""
    return RELATED_REQUEST.get()


class RequestContext:
    """What a handler gets besides its params: progress, and requests to the peer."""

    def __init__(self, connection: Connection, incoming: Request) -> None:
        self.connection = connection
        self.incoming = incoming
        """The peer's request being handled (id, method, params, progress token)."""
        self.task: RunsAsTask | None = None
        """The task this request runs as, if it is task-augmented (its messages name the task)."""
        self.facts: RequestFacts | None = None
        """What the request says about itself in ``_meta`` (a request without a handshake)."""

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version (without a handshake: the request's own)."""
        if self.facts is not None:
            return self.facts.version
        return self.connection.protocol_version

    @property
    def related_request_id(self) -> RequestId | None:
        """The id of our request that the peer's request being handled relates to (the POST
        stream it came on: ``related_request_id()``)."""
        return related_request_id()

    @property
    def principal(self) -> AccessToken | None:
        """Who is calling: the verified bearer token behind ``_runtime.auth.ProtectedMcpApp``
        (None without authorization). Loads nothing of the ``auth`` extra."""
        from ..auth.principal import current_principal

        return current_principal()

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress, if the peer asked for it (a no-op otherwise)."""
        token = self.incoming.progress_token
        if token is None or (self.facts is not None and not self.facts.streaming):
            return
        spec = self.connection.methods.get("notifications/progress")
        if spec is not None and spec.params is not None and not _carries_message(spec.params):
            message = None
        if self.task is not None and spec is not None:  # the token outlives the request
            await self.task.progress(spec, token, progress, total, message)
            return
        await self.connection.peer.progress(token, progress, total, message)

    async def request(
        self, method: MethodSpec[P, R], params: P, *, timeout: float | None = None
    ) -> R:
        """Send a request to the peer within the negotiated capabilities; return its result.

        Without a handshake there are no requests to the client: the question goes to the
        request's MRTR rounds (or its task), typed by ``method``'s result all the same.
        """
        if self.facts is not None:
            answer: R = await self.facts.ask(method.method, params)
            return answer
        if self.task is not None:
            return await self.task.request(method, params, timeout)
        return await self.connection.request(method, params, timeout=timeout)

    async def notify(self, method: MethodSpec[P, None], params: P) -> None:
        """Send a notification to the peer; it is not part of this request (HTTP: GET stream)."""
        if self.task is not None:
            params = self.task.tag(params)
        await self.connection.notify(method, params, related=False)


class Connection:
    """One connection of either role: the peer, the revision in use, both capabilities.

    A role fills ``handlers`` (method -> bound handler of what it overrides) and
    ``builtins`` (requests it answers itself) and says which context its handlers get.
    """

    def __init__(self) -> None:
        self.peer: Peer
        self.protocol_version = ""
        self.our_capabilities: dict[str, Any] = {}
        self._their_capabilities: dict[str, Any] = {}
        self.methods: Mapping[str, MethodSpec[Any, Any]] = {}
        self.handlers: Mapping[str, Handler] = {}
        self.builtins: dict[str, Builtin] = {"ping": _pong}
        self.fallbacks: dict[str, Builtin] = {}
        """Requests the role answers when the owner does not (``logging/setLevel``)."""
        self.tasks: StartsTasks | None = None
        """Runs task-augmented requests and answers ``tasks/*`` when the owner supports tasks."""
        self.routes: dict[str, Route] | None = None
        """The route of every method, worked out once (``dispatch.route_table``) by a role whose
        handlers are set once per handshake (a server: ``ServerSide.reroute``); None: each
        request's route is worked out as it comes."""

    @property
    def their_capabilities(self) -> dict[str, Any]:
        """The capabilities the peer declared (at the handshake)."""
        return self._their_capabilities

    @their_capabilities.setter
    def their_capabilities(self, value: dict[str, Any]) -> None:
        """Record what the peer declared."""
        self._their_capabilities = value

    async def close_stream(self, request_id: RequestId, retry_ms: int | None) -> bool:
        """End the connection of request ``request_id``'s stream after what its handler sent,
        for the client to resume it (Streamable HTTP); False where the transport cannot."""
        transport = self.peer.transport
        if not isinstance(transport, ClosesStreams):
            return False
        await self.peer.flush()
        return await transport.close_stream(request_id, retry_ms)

    @property
    def default_timeout(self) -> float | None:
        """How long ``request`` waits unless told otherwise (None: for ever)."""
        return None

    # -- negotiation -----------------------------------------------------------------------

    def negotiate(
        self,
        version: str,
        methods: Mapping[str, MethodSpec[Any, Any]],
        *,
        batch: bool,
        handshake: bool = True,
    ) -> None:
        """Adopt the revision the handshake chose, on this side and in the session."""
        self.peer.negotiate(version, methods, batch=batch, handshake=handshake)
        self.protocol_version = version
        self.methods = methods

    # -- sending -----------------------------------------------------------------------------

    def check(self, method: MethodSpec[Any, Any], sending: bool) -> MethodSpec[Any, Any]:
        """Return the table's spec of a method we send, refusing it if a capability is missing."""
        name = method.method
        spec = self.methods.get(name)
        if spec is None:
            raise MCPError(METHOD_NOT_FOUND, f"{name} does not exist in {self.protocol_version}")
        if spec is not method:  # the table's own row needs no look at variants
            spec = variant(spec, method)
        why = gate(
            spec, ours=self.our_capabilities, theirs=self.their_capabilities, sending=sending
        )
        if why is not None:
            raise CapabilityError(why)
        return spec

    async def request(
        self,
        method: MethodSpec[P, R],
        params: P,
        *,
        timeout: float | Default | None = DEFAULT,
        progress: ProgressCallback[Any] | None = None,
    ) -> R:
        """Send a request the capabilities allow and return its decoded result."""
        spec = self.check(method, sending=True)
        wait = self.default_timeout if isinstance(timeout, Default) else timeout
        result: R = await self._send_request(spec, params, wait, progress)
        return result

    async def _send_request(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """Put one request on the wire and wait for its result (the client adds renewal)."""
        return await self.peer.request(spec, params, timeout=timeout, progress=progress)

    async def notify(self, method: MethodSpec[P, None], params: P, *, related: bool = True) -> None:
        """Send a notification the capabilities allow (``related=False``: tied to no request)."""
        spec = self.check(method, sending=True)
        await self.peer.notify(spec, params, related=related)

    # -- receiving (see dispatch.py) --------------------------------------------------------

    def context(self, request: Request) -> RequestContext:
        """The context a handler of ``request`` gets."""
        return RequestContext(self, request)

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a notification of the peer (no-op unless the role says otherwise)."""

    async def _on_request(self, request: Request) -> Any:
        return await dispatch.dispatch_request(self, request)

    async def _on_notification(self, notification: Notification) -> None:
        await dispatch.dispatch_notification(self, notification)


async def _pong(request: Request) -> dict[str, Any]:
    """Answer ``ping``."""
    return {}
