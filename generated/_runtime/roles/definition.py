# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""What a server is to the connections that run it, in either era.

``ServerDefinition`` is the declarative part of a generated ``Server`` (its revision's tables
and facts, the handlers it overrides, the capabilities that follow, its identity);
``ServerSide`` is the server's end of a connection, with or without a handshake;
``ServerContext`` is what a server handler gets. ``server.py`` puts serving on top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.methods import MethodSpec, RevisionFacts
from .connection import (
    Connection,
    RequestContext,
    RequestFacts,
    declares_logging,
    implemented_capabilities,
)
from .dispatch import route_table
from .tasks import TaskSupport, receivable, task_capabilities


class ServerSide(Connection):
    """The server's end of one connection (with a handshake or without one)."""

    def reroute(self) -> None:
        """Work out the route of every method again, from the handlers, capabilities,
        builtins and tasks as they are now (called wherever those change)."""
        self.routes = route_table(self)

    async def log(
        self, level: str, data: Any, logger: str | None = None, facts: RequestFacts | None = None
    ) -> None:
        """Send ``notifications/message`` if the client's level (or the request's) allows it."""
        raise NotImplementedError


class ServerContext(RequestContext):
    """The context of a server handler: adds logging to the client."""

    connection: ServerSide

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client (``notifications/message``), level permitting
        (without a handshake: the level the request asked for, and no logs without one)."""
        await self.connection.log(level, data, logger, self.facts)

    async def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        """SSE polling: end the HTTP connection of this request's SSE stream, not the stream.

        The client is told to reconnect after ``retry_ms`` (None: ``HttpOptions.sse_retry_ms``),
        resumes with GET and ``Last-Event-ID``, and gets what the handler sent meanwhile and
        its answer. Return False, doing nothing, where no client could resume: another
        transport than Streamable HTTP, a JSON body, stateless mode, a revision before
        2025-11-25, a 2026-07-28 request, or a request run as a task.
        """
        if self.task is not None:
            return False
        return await self.connection.close_stream(self.incoming.id, retry_ms)


class ServerDefinition:
    """What a generated ``Server`` declares: its revision, handlers, capabilities, identity.

    ``ServerBase`` adds serving; the connections of both eras read only this."""

    PROTOCOL_VERSION: ClassVar[str]
    METHODS: ClassVar[Mapping[str, MethodSpec[Any, Any]]]
    SUPPORTS_BATCH: ClassVar[bool]
    FACTS: ClassVar[RevisionFacts]
    """What the runtime acts on in this revision (generated: handshake, batches, HTTP rules)."""
    ROUTES: ClassVar[Mapping[str, str]]
    """Method name -> name of its handler, for every request a client may send."""
    CONTEXT: ClassVar[type[ServerContext]] = ServerContext
    TASKS: ClassVar[Mapping[str, MethodSpec[Any, Any]]] = {}
    """The requests that may run as tasks in this revision (generated), by wire name."""

    name: str = "mcpgen-server"
    version: str = "0.0.0"
    instructions: str | None = None
    list_changed: ClassVar[frozenset[str]] = frozenset()
    """Capabilities (``tools``, ``prompts``, ``resources``) whose ``listChanged`` we declare."""
    logging: ClassVar[bool] = True
    """Whether to declare the ``logging`` capability (``ctx.log`` needs it)."""
    task_support: TaskSupport | None = None
    """Set to run requests as tasks when the client asks (``tasks`` capability; 2025-11-25 on)."""
    tolerant: bool = True
    """Keep what clients send beyond the revision (extra fields, unknown content kinds as
    ``Unknown``); ``False``: strict, drop such fields and refuse such members."""

    def capabilities(self) -> dict[str, Any]:
        """Capabilities declared at initialize, following from the overridden handlers."""
        caps = implemented_capabilities(self, self.ROUTES, self.METHODS)
        for top in self.list_changed:
            if top in caps:
                caps[top]["listChanged"] = True
        if self.logging and declares_logging(self.METHODS):
            caps["logging"] = {}
        if self.task_support is not None:
            caps.update(task_capabilities(self.task_support, receivable(self.TASKS, "client")))
        return caps

    def server_info(self) -> dict[str, str]:
        """The ``serverInfo`` sent at initialize."""
        return {"name": self.name, "version": self.version}

    async def on_notification(self, method: str, params: Any) -> None:
        """Receive a client notification (``notifications/roots/list_changed`` ...); no-op."""
