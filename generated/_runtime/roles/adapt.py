# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Write once, serve every revision: adapters between a server's revision and its peer's.

``adapt_server(server, servers, steps, order)`` returns, for each other revision of the
package, a server of that revision whose handlers convert the client's params up into
``server``'s revision, call ``server``'s handler, and convert its result down; requests the
handler sends to the client (``ctx.create_message`` ...) are converted down and their results
up, so the handlers see only their own revision's types. The connection negotiates among
``[server, *adapters]`` as among any servers. Conversions run the generated tables of
``converters.py`` (``core/convert.py``); the set of revisions is a parameter, so a revision
of another era plugs in as one more entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

import msgspec
from msgspec import UNSET

from ..core.convert import Chain, Step, chain, convert_value
from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, CapabilityError
from ..core.meta import META_CAPABILITIES, META_CLIENT_INFO, META_VERSION
from ..core.methods import MethodSpec
from ..core.transport import Transport
from ..core.wire import as_object
from .client import ClientBase
from .connection import implemented_handlers
from .server import ServerBase, ServerContext

__all__ = ["adapt_server", "connect_client"]

P = TypeVar("P")
R = TypeVar("R")
Steps = Mapping[tuple[str, str], Step]


def _convert(
    path: Chain | None, value: Any, target: Any, where: str = "", code: int = INTERNAL_ERROR
) -> Any:
    """Convert ``value`` into ``target`` along ``path``; None stays None."""
    if value is None or target is None or path is None:
        return value
    return convert_value(path, value, target, where, code)


class _Route:
    """One method between two revisions: its specs on both sides and the chains both ways."""

    __slots__ = ("down", "inner", "outer", "up")

    def __init__(
        self,
        inner: MethodSpec[Any, Any],
        outer: MethodSpec[Any, Any],
        up: Chain | None,
        down: Chain | None,
    ) -> None:
        self.inner, self.outer, self.up, self.down = inner, outer, up, down


def _route(
    steps: Steps,
    order: tuple[str, ...],
    method: str,
    theirs: tuple[str, Mapping[str, MethodSpec[Any, Any]]],
    ours: tuple[str, Mapping[str, MethodSpec[Any, Any]]],
    received: bool,
) -> _Route | None:
    """The route of ``method`` between the peer's revision and ours, or None if it has none.

    ``received``: the peer sends it (params go theirs -> ours, the result ours -> theirs);
    else we send it (params ours -> theirs, the result theirs -> ours).
    """
    (their_rev, their_methods), (our_rev, our_methods) = theirs, ours
    outer, inner = their_methods.get(method), our_methods.get(method)
    if outer is None or inner is None:
        return None
    if received:
        params = chain(steps, order, their_rev, our_rev, method, result=False)
        result = chain(steps, order, our_rev, their_rev, method, result=True)
        return None if params is None or result is None else _Route(inner, outer, params, result)
    params = chain(steps, order, our_rev, their_rev, method, result=False)
    result = chain(steps, order, their_rev, our_rev, method, result=True)
    return None if params is None or result is None else _Route(inner, outer, result, params)


Handler = Callable[[Any, Any], Awaitable[Any]]


class _Notified(Protocol):
    """Whatever receives the peer's notifications (a server or a client)."""

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive one notification."""
        ...


def _handler(route: _Route, handler: Handler, stateless: str | None = None) -> Handler:
    """Wrap ``handler`` of our revision as a handler of the peer's revision.

    ``stateless``: our revision, when it has no handshake and the peer's has one: a request
    whose ``_meta`` the peer sent gets the session's facts there, as our revision's requests
    carry them (version, the client's capabilities and info from ``initialize``).
    """
    up, down, params_t, result_t = route.up, route.down, route.inner.params, route.outer.result
    method = route.outer.method

    async def adapted(params: Any, ctx: Any) -> Any:
        if stateless is not None:
            params = _session_meta(params, ctx, stateless)
        # The peer's params that our revision cannot take are invalid params, as unconverted.
        converted = _convert(up, params, params_t, f"{method} params", INVALID_PARAMS)
        return _convert(down, await handler(converted, ctx), result_t, f"{method} result")

    return adapted


def _session_meta(params: Any, ctx: Any, version: str) -> Any:
    """``params`` as JSON with the session's facts added to the ``_meta`` it has (if any)."""
    if params is None:
        return None
    if isinstance(params, msgspec.Struct):  # no ``_meta``: nothing to add to (no JSON made)
        own: object = getattr(params, "meta", None)
        if own is None or own is UNSET:
            return params
    data = as_object(msgspec.to_builtins(params))
    meta = None if data is None else as_object(data.get("_meta"))
    if data is None or meta is None:
        return params
    connection = ctx.connection
    meta.setdefault(META_VERSION, version)
    meta.setdefault(META_CAPABILITIES, dict(connection.their_capabilities))
    meta.setdefault(META_CLIENT_INFO, dict(getattr(connection, "client_info", None) or {}))
    return data


def _missing(method: str, revision: str) -> CapabilityError:
    """The peer's revision has no such method: to a handler, the peer cannot do it."""
    return CapabilityError(f"{method} does not exist in {revision}: the peer cannot answer it")


def _context(base: type[ServerContext], outgoing: Mapping[str, _Route]) -> type[ServerContext]:
    """Our revision's context class, sending through the routes to the peer's revision."""

    class BridgedContext(base):  # type: ignore[valid-type,misc]
        """A handler's context whose requests and notifications convert to the peer's revision."""

        async def request(
            self, method: MethodSpec[P, R], params: P, *, timeout: float | None = None
        ) -> R:
            route = outgoing.get(method.method)
            if route is None:
                raise _missing(method.method, self.connection.protocol_version)
            sent = _convert(route.down, params, route.outer.params, f"{method.method} params")
            got = await self.connection.request(route.outer, sent, timeout=timeout)
            result: R = _convert(route.up, got, route.inner.result, f"{method.method} result")
            return result

        async def notify(self, method: MethodSpec[P, None], params: P) -> None:
            route = outgoing.get(method.method)
            if route is None:
                raise _missing(method.method, self.connection.protocol_version)
            sent = _convert(route.down, params, route.outer.params)
            await self.connection.notify(route.outer, sent, related=False)

    return BridgedContext


def adapt_server(
    server: ServerBase,
    servers: Mapping[str, type[ServerBase]],
    steps: Steps,
    order: tuple[str, ...],
) -> list[ServerBase]:
    """Servers of every other revision in ``servers`` that answer through ``server``."""
    ours = (server.PROTOCOL_VERSION, server.METHODS)
    handlers = implemented_handlers(server, server.ROUTES)
    out: list[ServerBase] = []
    for revision, cls in servers.items():
        if revision == server.PROTOCOL_VERSION or revision not in order:
            continue
        theirs = (revision, cls.METHODS)
        adapter = cls()
        across = cls.FACTS.handshake and not server.FACTS.handshake  # a session to a stateless
        stateless = server.PROTOCOL_VERSION if across else None
        for attr in ("name", "version", "instructions", "list_changed", "logging"):
            setattr(adapter, attr, getattr(server, attr))
        # Without a handshake, updates of subscribed resources go to listen streams.
        subscribes = "resources/subscribe" in handlers
        if subscribes or getattr(server, "resource_subscriptions", False):
            adapter.resource_subscriptions = True  # type: ignore[attr-defined]
        for method, attr in cls.ROUTES.items():
            found = handlers.get(method)
            route = _route(steps, order, method, theirs, ours, received=True)
            if found is not None and route is not None:
                setattr(adapter, attr, _handler(route, found, stateless))
        outgoing = {
            method: route
            for method, spec in server.METHODS.items()
            if spec.direction != "client"
            and (route := _route(steps, order, method, theirs, ours, received=False)) is not None
        }
        adapter.CONTEXT = _context(server.CONTEXT, outgoing)  # type: ignore[misc]
        adapter.on_notification = _notification(  # type: ignore[method-assign,assignment]
            server, theirs, ours, steps, order
        )
        out.append(adapter)
    return out


def _notification(
    server: _Notified,
    theirs: tuple[str, Mapping[str, MethodSpec[Any, Any]]],
    ours: tuple[str, Mapping[str, MethodSpec[Any, Any]]],
    steps: Steps,
    order: tuple[str, ...],
) -> Callable[[str, Any], Awaitable[None]]:
    """The peer's notifications, converted into our revision (those it lacks are dropped)."""

    async def on_notification(method: str, params: Any) -> None:
        route = _route(steps, order, method, theirs, ours, received=True)
        if route is None:
            return
        await server.on_notification(method, _convert(route.up, params, route.inner.params))

    return on_notification


def _progress(callback: Callable[[Any], Any], route: _Route) -> Callable[[Any], Any]:
    """A progress callback of our revision, called with the peer's progress params."""

    def converted(params: Any) -> Any:
        return callback(_convert(route.up, params, route.inner.params))

    return converted


async def connect_client(
    client: ClientBase[Any],
    transport: Transport,
    clients: Mapping[str, type[ClientBase[Any]]],
    steps: Steps,
    order: tuple[str, ...],
    describe_close: Callable[[], str] | None = None,
    revision: str | None = None,
) -> None:
    """Connect ``client`` to a server of any revision in ``clients``, converting as needed.

    ``client`` proposes its revision (or ``revision``, then only that one is accepted); a
    server that answers another one is spoken to through a client of that revision:
    ``client``'s calls convert down and their results up, the server's requests to
    ``client``'s handlers up and their results down.
    """
    ours = (client.PROTOCOL_VERSION, client.METHODS)
    own = implemented_handlers(client, client.ROUTES)
    shadows: list[ClientBase[Any]] = []
    for other, cls in clients.items():
        if other == client.PROTOCOL_VERSION or other not in order:
            continue
        theirs = (other, cls.METHODS)
        shadow = cls(name=client.name, version=client.version, timeout=client.timeout)
        for method, attr in cls.ROUTES.items():
            found = own.get(method)
            route = _route(steps, order, method, theirs, ours, received=True)
            if found is not None and route is not None:
                setattr(shadow, attr, _handler(route, found))
        shadow.handlers = implemented_handlers(shadow, cls.ROUTES)
        shadow.on_notification = _notification(  # type: ignore[method-assign,assignment]
            client, theirs, ours, steps, order
        )
        shadows.append(shadow)
    candidates = [client, *shadows]
    if revision is not None:
        candidates = [c for c in candidates if revision == c.PROTOCOL_VERSION]
        if not candidates:
            raise ValueError(f"no client of revision {revision!r} to connect with")
    chosen = await ClientBase.handshake(transport, candidates, describe_close)
    if chosen is client:
        return
    theirs = (chosen.PROTOCOL_VERSION, chosen.METHODS)
    sent = {
        method: route
        for method, spec in client.METHODS.items()
        if spec.direction != "server"
        and (route := _route(steps, order, method, theirs, ours, received=False)) is not None
    }
    init = sent["initialize"]
    client.initialize_result = _convert(init.up, chosen.initialize_result, init.inner.result)
    # The connection is the shadow's: its reader task moves to ``client`` (closed with it).
    reader = chosen._reader  # pyright: ignore[reportPrivateUsage]
    chosen._reader = None  # pyright: ignore[reportPrivateUsage]
    client._reader = reader  # pyright: ignore[reportPrivateUsage]
    client.peer = chosen.peer
    client.protocol_version, client.methods = chosen.protocol_version, chosen.methods
    client.our_capabilities = chosen.our_capabilities
    client.their_capabilities = chosen.their_capabilities
    client.server_info, client.instructions = chosen.server_info, chosen.instructions

    notes = _route(steps, order, "notifications/progress", theirs, ours, received=True)
    client.sender = _ConvertingSender(chosen, sent, notes)


class _ConvertingSender:
    """The sender of a client spoken to a server of another revision (``client_send.py``):
    each call converted into the revision ``chosen`` speaks, sent through ``chosen``'s own
    sender, and its result converted back, so the client's caller gets its own revision's
    types (and its progress callback its own revision's params)."""

    __slots__ = ("chosen", "notes", "sent")

    def __init__(
        self, chosen: ClientBase[Any], sent: Mapping[str, _Route], notes: _Route | None
    ) -> None:
        self.chosen, self.sent, self.notes = chosen, sent, notes

    async def request(
        self, spec: MethodSpec[Any, Any], params: Any, timeout: float | None, progress: Any
    ) -> Any:
        """Convert the call down, send it as ``chosen``'s, convert its result up."""
        route = self.sent.get(spec.method)
        if route is None:
            raise _missing(spec.method, self.chosen.protocol_version)
        out = _convert(route.down, params, route.outer.params)
        if progress is not None and self.notes is not None:  # progress in our revision's type
            progress = _progress(progress, self.notes)
        got = await self.chosen.sender.request(route.outer, out, timeout, progress)
        return _convert(route.up, got, route.inner.result)

    async def notify(self, method: MethodSpec[Any, None], params: Any, related: bool) -> None:
        """Convert the notification down and send it as ``chosen``'s."""
        route = self.sent.get(method.method)
        if route is None:
            raise _missing(method.method, self.chosen.protocol_version)
        out = _convert(route.down, params, route.outer.params)
        await self.chosen.notify(route.outer, out, related=related)
