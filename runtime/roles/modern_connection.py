"""The connection a modern-era handler's context talks to: one request, no session behind it.

``ctx.elicit(...)`` and the other requests to the client become MRTR questions (``Rounds``);
``ctx.log`` honours the request's own ``logLevel`` (nothing without one); progress and logs go
to the request's stream; list-change notifications are published to every listener.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ..core.errors import INTERNAL_ERROR, MCPError
from ..core.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL
from ..core.wire import as_object
from .mrtr import Rounds
from .server import LOG_LEVELS
from .subscriptions import PROMPTS_CHANGED, RESOURCE_UPDATED, RESOURCES_CHANGED, TOOLS_CHANGED

if TYPE_CHECKING:
    from .modern import ModernServer
    from .modern_tasks import TaskInput

_CHANGES: Final = frozenset({TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, RESOURCE_UPDATED})

Frame = dict[str, Any]


def field(value: object, *path: str) -> Any:
    """The value at ``path`` inside nested JSON objects, or None where one is missing."""
    for key in path:
        obj = as_object(value)
        if obj is None:
            return None
        value = obj.get(key)
    return value


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    found = as_object(value)
    return {} if found is None else found


Emit = Callable[[Frame], Awaitable[None]]
"""Writes one notification that belongs to the request being answered."""


class ModernConnection:
    """What a handler's context talks to during one modern request (no session behind it)."""

    def __init__(
        self,
        engine: ModernServer,
        version: str,
        meta: Mapping[str, Any],
        emit: Emit | None,
        rounds: Rounds | None,
    ) -> None:
        self.engine = engine
        self.protocol_version = version
        self.methods = engine.server.METHODS
        self.our_capabilities = engine.capabilities
        # this request's own decoded _meta: nothing else holds it, so no copies
        self.their_capabilities: dict[str, Any] = obj(meta.get(META_CAPABILITIES))
        self.client_info: dict[str, Any] = obj(meta.get(META_CLIENT_INFO))
        level = meta.get(META_LOG_LEVEL)
        self.log_level: str | None = level if level in LOG_LEVELS else None
        self.rounds = rounds
        self.peer = self
        self._emit = emit
        self.task: TaskInput | None = None
        """Once the call became a task (tasks extension): where its questions go."""
        self.begin_task: Callable[[], Awaitable[None]] | None = None
        """Makes the call a task from here on, when it may become one (``begin_task(ctx)``)."""

    async def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """Ask the client: through the task once there is one, else in an MRTR round."""
        if self.task is not None:
            return await self.task.ask(method, params, key)
        if self.rounds is None:
            raise MCPError(INTERNAL_ERROR, f"{method}: this request cannot ask the client")
        return self.rounds.ask(method, params, key)

    async def request(self, method: Any, params: Any = None, **_: Any) -> Any:
        """Ask the client for input (there are no server->client requests): see ``ask``."""
        return await self.ask(method if isinstance(method, str) else str(method.method), params)

    def stop_emitting(self) -> None:
        """The request's stream is answered (its call became a task): send nothing more on it."""
        self._emit = None

    async def notify(self, method: Any, params: Any = None, **_: Any) -> None:
        """Change notifications go to listeners; others belong to this request's stream."""
        name = method if isinstance(method, str) else str(method.method)
        if name in _CHANGES:
            uri = field(msgspec.to_builtins(params), "uri")
            await self.engine.publish(name, uri if isinstance(uri, str) else None)
            return
        await self._send(name, params)

    async def progress(
        self, token: Any, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` for this request."""
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._send("notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send ``notifications/message`` only if this request asked for logs at this level."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if self.log_level is None or LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._send("notifications/message", params)

    async def close_stream(self, request_id: Any, retry_ms: int | None) -> bool:
        """A modern POST cannot be resumed (no GET, no ``Last-Event-ID``): nothing to do."""
        return False

    async def _send(self, method: str, params: Any) -> None:
        if self._emit is None:
            return
        body: Any = msgspec.to_builtins(params) if params is not None else {}
        await self._emit({"jsonrpc": "2.0", "method": method, "params": body})
