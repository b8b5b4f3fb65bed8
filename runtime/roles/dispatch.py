"""The one receive dispatcher of both roles: where an incoming message meets its handler.

The session already refused what the lifecycle or the method table does not admit and
decoded the params with the method's type; what is left is the same for a client and a
server: a request the role answers itself (``ping``, a server's ``initialize``), else the
capability gate, else the owner's handler, else the role's fallback, else -32601.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

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

    def context(self, request: Request) -> object:
        """The context a handler of ``request`` gets."""
        ...

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a notification of the peer."""
        ...


LIFECYCLE_NOTIFICATIONS = frozenset({"notifications/initialized"})
"""Notifications the session's lifecycle consumes; handlers never see them."""


async def dispatch_request(conn: Receiver, request: Request) -> Any:
    """Answer one incoming request on ``conn``: return its result or raise ``MCPError``."""
    method = request.method
    builtin = conn.builtins.get(method)
    if builtin is not None:
        return await builtin(request)
    spec = conn.methods.get(method)
    if spec is None:
        raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
    capability = spec.capability
    if capability is not None and spec.capability_owner is not None:
        # ``gate`` for a request we receive: the receiver's capability is ours (read without
        # the call, and the peer's only where the method needs the sender's).
        held = (
            conn.their_capabilities if spec.capability_owner == "sender" else conn.our_capabilities
        )
        if not has_capability(held, capability):
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
    handler = conn.handlers.get(method)
    if handler is not None:
        tasks = conn.tasks
        if tasks is not None and (starting := tasks.maybe_start(request, handler)) is not None:
            return await starting  # a task-augmented request: CreateTaskResult, the handler runs on
        return await handler(request.params, conn.context(request))
    fallback = conn.fallbacks.get(method)
    if fallback is not None:
        return await fallback(request)
    raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")


async def dispatch_notification(conn: Receiver, notification: Notification) -> None:
    """Hand one incoming notification to the role (lifecycle ones stay in the session)."""
    if notification.method in LIFECYCLE_NOTIFICATIONS:
        return
    await conn.on_notification(notification.method, notification.params)
