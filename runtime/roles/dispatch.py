"""The one receive dispatcher of both roles: where an incoming message meets its handler.

The session already refused what the lifecycle or the method table does not admit and
decoded the params with the method's type; what is left is the same for a client and a
server: a request the role answers itself (``ping``, a server's ``initialize``), else the
capability gate, else the owner's handler, else the role's fallback, else -32601.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import METHOD_NOT_FOUND, MCPError
from ..core.lifecycle import gate

if TYPE_CHECKING:
    from ..core.events import Notification, Request
    from .connection import Connection

LIFECYCLE_NOTIFICATIONS = frozenset({"notifications/initialized"})
"""Notifications the session's lifecycle consumes; handlers never see them."""


async def dispatch_request(conn: Connection, request: Request) -> Any:
    """Answer one incoming request on ``conn``: return its result or raise ``MCPError``."""
    method = request.method
    builtin = conn.builtins.get(method)
    if builtin is not None:
        return await builtin(request)
    spec = conn.methods.get(method)
    if spec is None or (
        gate(spec, ours=conn.our_capabilities, theirs=conn.their_capabilities, sending=False)
        is not None
    ):
        raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
    handler = conn.handlers.get(method)
    if handler is not None:
        if conn.tasks is not None and (created := await conn.tasks.maybe_start(request, handler)):
            return created  # a task-augmented request: CreateTaskResult, the handler runs on
        return await handler(request.params, conn.context(request))
    fallback = conn.fallbacks.get(method)
    if fallback is not None:
        return await fallback(request)
    raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")


async def dispatch_notification(conn: Connection, notification: Notification) -> None:
    """Hand one incoming notification to the role (lifecycle ones stay in the session)."""
    if notification.method in LIFECYCLE_NOTIFICATIONS:
        return
    await conn.on_notification(notification.method, notification.params)
