# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The one receive dispatcher of both roles: where an incoming request meets its handler.

The session already refused what the lifecycle or the method table does not admit and
decoded the params with the method's type; what is left is the same for a client and a
server: a request the role answers itself (``ping``, a server's ``initialize``), else the
capability gate, else the owner's handler, else the role's fallback, else -32601.

What that decides for a method is its ``Route``: a server connection works out the route of
every method once, when it takes its handlers (``route_table``), so a request costs one dict
lookup; a connection without a table (a client, whose handlers and capabilities change
between handshakes) works out the route of each request as it comes (``route_of``).
``dispatch_request`` makes no coroutine of its own: it hands back the handler's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import msgspec

from ..core.errors import METHOD_NOT_FOUND, MCPError
from ..core.events import Notification, Request
from ..core.lifecycle import has_capability
from ..core.methods import MethodSpec

Handler = Callable[[Any, Any], Awaitable[Any]]
"""A handler bound to its owner: (params, context) -> result."""
Builtin = Callable[[Request], Awaitable[Any]]
"""A request the role answers itself (``ping``, ``initialize``, default ``logging/setLevel``)."""


class StartsTasks(Protocol):
    """What runs a request as a task when it may be one (asked before its handler)."""

    def maybe_start(self, request: Request, handler: Handler) -> Awaitable[Any] | None:
        """None: the request runs as usual; else the answer, awaited, once it runs as a task
        (its handler goes on). Decided without waiting: most requests are no task."""
        ...

    async def close(self) -> None:
        """Stop the tasks of this connection (it ended)."""
        ...

    def starts(self, method: str) -> bool:
        """Whether a request of ``method`` may run as a task on this connection (asked once per
        method where routes are worked out once); ``maybe_start`` is asked only where it may."""
        ...


class Route(msgspec.Struct, frozen=True):
    """What answering one method takes on one connection, decided once: the owner's handler
    (else the role's own answer), the sender's capability to check per request, the tasks hook."""

    handler: Handler | None = None
    """The owner's handler (given the params and the context)."""
    answer: Builtin | None = None
    """Without a handler: a request the role answers itself (a builtin, or a fallback)."""
    needs: str | None = None
    """A capability the sender must hold (read per request: a stateless client declares its
    capabilities in each request); the receiver's own was checked when the route was made."""
    tasks: StartsTasks | None = None
    """The hook that may run the request as a task (only where it may start this method)."""


class Receiver(Protocol):
    """What dispatch reads of a connection (``connection.Connection``, either role)."""

    @property
    def methods(self) -> Mapping[str, MethodSpec[Any, Any]]:
        """The method table in use."""
        ...

    @property
    def our_capabilities(self) -> Mapping[str, Any]:
        """What we declared."""
        ...

    @property
    def their_capabilities(self) -> Mapping[str, Any]:
        """What the peer declared."""
        ...

    @property
    def builtins(self) -> Mapping[str, Builtin]:
        """Requests the role answers itself."""
        ...

    @property
    def handlers(self) -> Mapping[str, Handler]:
        """The owner's handlers, by method."""
        ...

    @property
    def fallbacks(self) -> Mapping[str, Builtin]:
        """Requests the role answers when the owner does not."""
        ...

    @property
    def tasks(self) -> StartsTasks | None:
        """Runs task-augmented requests, if the owner supports tasks."""
        ...

    @property
    def routes(self) -> Mapping[str, Route] | None:
        """The route of every method, worked out once (``route_table``); None: per request."""
        ...

    def context(self, request: Request) -> object:
        """The context a handler of ``request`` gets."""
        ...

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a notification of the peer."""
        ...


LIFECYCLE_NOTIFICATIONS = frozenset({"notifications/initialized"})
"""Notifications the session's lifecycle consumes; handlers never see them."""


def route_of(conn: Receiver, method: str) -> Route | None:
    """The route of ``method`` on ``conn`` as it is now; None: answered -32601."""
    builtin = conn.builtins.get(method)
    if builtin is not None:
        return Route(answer=builtin)
    spec = conn.methods.get(method)
    if spec is None:
        return None
    needs = spec.capability
    owner = spec.capability_owner
    if needs is None or owner is None:
        needs = None
    elif owner != "sender":  # ``gate`` for a request we receive: the receiver's is ours
        if not has_capability(conn.our_capabilities, needs):
            return None
        needs = None
    handler = conn.handlers.get(method)
    if handler is not None:
        tasks = conn.tasks
        starts = tasks if tasks is not None and tasks.starts(method) else None
        return Route(handler, needs=needs, tasks=starts)
    fallback = conn.fallbacks.get(method)
    return None if fallback is None else Route(answer=fallback, needs=needs)


def route_table(conn: Receiver) -> dict[str, Route]:
    """The route of every method ``conn`` answers, as it is now (worked out again whenever
    its handlers, capabilities, builtins or tasks change)."""
    table: dict[str, Route] = {}
    for method in (*conn.builtins, *conn.methods):
        route = route_of(conn, method)
        if route is not None:
            table[method] = route
    return table


def dispatch_request(conn: Receiver, request: Request) -> Awaitable[Any]:
    """What answers one incoming request on ``conn``, to await: its result, or ``MCPError``
    (raised here or when awaited). The handler's own coroutine: none of its own."""
    method = request.method
    routes = conn.routes
    route = route_of(conn, method) if routes is None else routes.get(method)
    if route is None:
        raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
    needs = route.needs
    if needs is not None and not has_capability(conn.their_capabilities, needs):
        raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
    handler = route.handler
    if handler is None:
        answer = route.answer
        assert answer is not None  # a route without a handler has the role's own answer
        return answer(request)
    tasks = route.tasks
    if tasks is not None and (starting := tasks.maybe_start(request, handler)) is not None:
        return starting  # a task-augmented request: CreateTaskResult, the handler runs on
    return handler(request.params, conn.context(request))


async def dispatch_notification(conn: Receiver, notification: Notification) -> None:
    """Hand one incoming notification to the role (lifecycle ones stay in the session)."""
    if notification.method in LIFECYCLE_NOTIFICATIONS:
        return
    await conn.on_notification(notification.method, notification.params)
