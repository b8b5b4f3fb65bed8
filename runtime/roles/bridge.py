"""A bridge between two programs: any client, of any revision, to any server, of any revision.

``Bridge(revisions)`` takes (``attach``) a connected client of whatever revision the upstream
server speaks (``connect_upstream`` finds it by the same auto negotiation a client uses) and
makes a server of that same revision whose handlers forward each request to the upstream
client; ``servers()`` serves it to every revision through the adapters of ``adapt.py`` (the
generated converters), so a client of another revision, or of the other era, is converted on
the way in and out. The upstream client's handlers (sampling, elicitation, roots, and a
stateless server's MRTR input rounds, which the client answers with those same handlers) ask
the downstream client through the context of the downstream request being forwarded: a
server->client request for a handshake client, an MRTR round for a stateless one (the
upstream call is cancelled and made again in the next round, like any re-run handler).
Notifications (progress, log messages, list changes, resource updates) are forwarded and
converted; a downstream request cancelled cancels its upstream request. The wiring
(transports on both sides, the session log line, exit) is ``bridge_run.py``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from ..core.errors import INTERNAL_ERROR, ConnectionClosed, MCPError
from ..core.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION
from ..core.methods import MethodSpec
from ..core.wire import as_object
from .adapt import Steps, adapt_server
from .bridge_listen import (
    SessionSubscriptions,
    UpstreamListen,
    counted_upstream,
    subscribe_upstream,
)
from .bridge_sessions import Call, Link, OpenLink, SessionLinks, current_call
from .bridge_tasks import (
    declared,
    forward_tasks,
    forwarded_capabilities,
    refuse_tasks,
    task_method,
    task_of,
    task_refused,
    with_capabilities,
)
from .client import ClientBase
from .connection import implemented_handlers, related_request_id
from .dispatch import Handler
from .server import ServerBase, ServerContext
from .stateless_tasks import declares_extension
from .task_client import accepting_task

__all__ = ["Bridge", "Revisions"]

LOG: Final = logging.getLogger(__name__)
RESERVED_META: Final = frozenset(
    {"progressToken", META_VERSION, META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL}
)
"""``_meta`` keys that belong to one hop (the bridge sets its own upstream); others pass."""
ROUND_FIELDS: Final = ("input_responses", "request_state")
"""Params fields of one hop's MRTR rounds: the downstream's are not the upstream's."""
OWN_METHODS: Final = frozenset(
    {"initialize", "ping", "logging/setLevel", "server/discover", "subscriptions/listen"}
)
"""Requests each side's connection answers itself: never forwarded."""
CHANGES: Final = {
    "notifications/tools/list_changed": "notify_tools_changed",
    "notifications/prompts/list_changed": "notify_prompts_changed",
    "notifications/resources/list_changed": "notify_resources_changed",
}
"""List-change notifications and the stateless server's method that publishes each."""
LISTEN_FILTERS: Final = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}
"""A capability with ``listChanged`` -> the listen filter that asks for its changes."""
SETTLE_POLL_S: Final = 0.05
"""How often ``settle`` looks whether the requests in flight are answered."""
ROOTS_CHANGED: Final = "notifications/roots/list_changed"
AMBIGUOUS: Final = (
    "asked while requests of several downstream clients are in flight, naming none of them: "
    "not asked (the bridge does not guess whose question it is)"
)
MAX_SEEN: Final = 256
"""Most downstream connections remembered for notifications outside any request."""


@dataclass(frozen=True, slots=True)
class Revisions:
    """What the bridge is given of the package (it names no revision): its generated tables."""

    servers: Mapping[str, type[ServerBase]]
    clients: Mapping[str, type[ClientBase[Any]]]
    """The ``Client`` of every revision, both eras."""
    steps: Steps
    order: tuple[str, ...]


def outgoing(params: Any) -> Any:
    """``params`` for the next hop: without this hop's round fields and reserved ``_meta``."""
    if not isinstance(params, msgspec.Struct):
        return params
    fields = params.__struct_fields__
    changes: dict[str, Any] = {}
    for name in ROUND_FIELDS:  # a loop, not a comprehension: no call per request
        if name in fields and getattr(params, name) is not msgspec.UNSET:
            changes[name] = msgspec.UNSET
    meta = as_object(getattr(params, "meta", None) if "meta" in fields else None)
    if meta is not None and not RESERVED_META.isdisjoint(meta):
        kept = {k: v for k, v in meta.items() if k not in RESERVED_META}
        changes["meta"] = kept or msgspec.UNSET
    return msgspec.structs.replace(params, **changes) if changes else params


class Bridge:
    """A server of the upstream client's revision forwarding to it, and what goes back."""

    def __init__(
        self, revisions: Revisions, *, on_session: Callable[[str], None] | None = None
    ) -> None:
        self.revisions = revisions
        self.on_session = on_session
        """Called once per downstream session with its revision (the log line of a session)."""
        self._shared = Link()
        """The upstream connection ``attach`` takes, and the requests forwarded over it."""
        self.sessions: SessionLinks | None = None
        """Over an HTTP downstream: each handshake session's own upstream (``own_upstreams``)."""
        self._seen: dict[int, ServerContext] = {}
        self._listen: UpstreamListen | None = None
        self._sessions: SessionSubscriptions | None = None
        """A handshake upstream's subscriptions by downstream session (``resources/subscribe``)."""
        self._upstream: ClientBase[Any] | None = None
        self._extension = False
        """Whether the upstream has the tasks extension (its ``server/discover`` says so)."""
        self.served: list[ServerBase] = []
        """The server of the upstream's revision and its adapters: what to serve downstream."""
        self._declared: tuple[object, object, bool, dict[str, Any]] | None = None
        """The last ``capabilities_of``: what it was made of (by identity) and the result."""

    @property
    def upstream(self) -> ClientBase[Any]:
        """The connected upstream client (``attach``)."""
        if self._upstream is None:
            raise RuntimeError("the bridge has no upstream yet: attach a connected client")
        return self._upstream

    def attach(self, upstream: ClientBase[Any]) -> list[ServerBase]:
        """Take the connected upstream client; return the servers to serve downstream."""
        self._upstream = self._shared.client = upstream
        theirs = upstream.their_capabilities
        self._extension = upstream.stateless is not None and declares_extension(theirs)
        server = self._server()
        subscribe = _flag(upstream.their_capabilities.get("resources"), "subscribe")
        counted = counted_upstream(upstream) if upstream.stateless is None and subscribe else None
        if counted is not None:  # sessions subscribe on the count (before the adapters copy)
            self._sessions = SessionSubscriptions(counted)
            self._subscriptions(server)
        adapted = adapt_server(
            server, self.revisions.servers, self.revisions.steps, self.revisions.order
        )
        for adapter in adapted:
            refuse_tasks(adapter, upstream.protocol_version, self._extension)
        self.served = [server, *adapted]
        if upstream.stateless is not None and subscribe:
            server.resource_subscriptions = True  # type: ignore[attr-defined]
            for adapter in adapted:  # a session subscribes; the upstream has listen streams
                self._subscriptions(adapter)
        elif counted is not None:  # a listen stream's URIs are subscribed to while it is open
            subscribe_upstream(counted, [s for s in adapted if not s.FACTS.handshake])
        if self._extension:
            forward_tasks(server, upstream)
        return self.served

    def own_upstreams(self, open_link: OpenLink, limit: int) -> None:
        """Give each downstream handshake session its own upstream connection from now on
        (``open_link``; at most ``limit``): what the upstream asks reaches that session only."""
        self.sessions = SessionLinks(open_link, limit)

    def _subscriptions(self, server: ServerBase) -> None:
        """Answer a session's ``resources/subscribe``/``unsubscribe``: with the upstream listen
        stream (a stateless upstream), or counted per URI (a handshake upstream)."""
        subscribe = server.ROUTES.get("resources/subscribe")
        unsubscribe = server.ROUTES.get("resources/unsubscribe")
        if not server.FACTS.handshake or subscribe is None or unsubscribe is None:
            return

        async def on_subscribe(params: Any, ctx: ServerContext) -> Any:
            up = self.upstream.METHODS.get("resources/subscribe")
            if self.sessions is not None and up is not None:  # the session's own upstream
                return await self.call(up, params, ctx)
            self._note(ctx)
            uri = str(getattr(params, "uri", ""))
            if self._listen is not None:
                await self._listen.subscribe(id(ctx.connection), uri)
            elif self._sessions is not None:
                await self._sessions.subscribe(id(ctx.connection), ctx.connection, uri)
            return {}

        async def on_unsubscribe(params: Any, ctx: ServerContext) -> Any:
            up = self.upstream.METHODS.get("resources/unsubscribe")
            if self.sessions is not None and up is not None:
                return await self.call(up, params, ctx)
            uri = str(getattr(params, "uri", ""))
            if self._listen is not None:
                await self._listen.unsubscribe(id(ctx.connection), uri)
            elif self._sessions is not None:
                await self._sessions.unsubscribe(id(ctx.connection), uri)
            return {}

        setattr(server, subscribe, on_subscribe)
        setattr(server, unsubscribe, on_unsubscribe)

    # -- the downstream server ------------------------------------------------------------------

    def _server(self) -> ServerBase:
        """The upstream's revision as a server whose handlers forward what the upstream has."""
        upstream = self.upstream
        cls = self.revisions.servers[upstream.protocol_version]
        server = cls()
        info = upstream.server_info
        server.name = str(info.get("name", server.name))
        server.version = str(info.get("version", server.version))
        server.instructions = upstream.instructions
        theirs = upstream.their_capabilities
        server.list_changed = frozenset(  # type: ignore[misc]
            top for top in LISTEN_FILTERS if _flag(theirs.get(top), "listChanged")
        )
        server.logging = "logging" in theirs  # type: ignore[misc]
        if isinstance(theirs.get("tasks"), dict):  # forwarded: declared as the upstream does
            own = server.capabilities
            server.capabilities = lambda: {**own(), "tasks": theirs["tasks"]}  # type: ignore[method-assign]
        for method, attr in cls.ROUTES.items():
            spec = cls.METHODS[method]
            if method in OWN_METHODS or not declared(theirs, spec.capability):
                continue
            target = upstream.METHODS.get(method)
            if target is not None:
                setattr(server, attr, self._forward(target))
        server.on_notification = self._client_notification  # type: ignore[method-assign]
        return server

    def _forward(self, spec: MethodSpec[Any, Any]) -> Handler:
        """The handler of one request: the same request to the upstream, its answer back."""

        async def forward(params: Any, ctx: ServerContext) -> Any:
            return await self.call(spec, params, ctx)

        return forward

    async def call(self, spec: MethodSpec[Any, Any], params: Any, ctx: ServerContext) -> Any:
        """Forward one downstream request; answer upstream's questions through ``ctx``."""
        self._note(ctx)
        link = self._shared
        if self.sessions is not None and ctx.facts is None:  # a session: its own upstream
            link = await self.sessions.get(ctx)
        shared = self.upstream
        upstream = link.client or shared
        call = Call(ctx)
        progress = None
        if ctx.incoming.progress_token is not None:
            progress = _progress(call)
        forwarded = outgoing(params)
        spec = self._as_task(spec, params, ctx)
        if shared.stateless is not None:  # each request says what its client can answer
            forwarded = with_capabilities(forwarded, self.capabilities_of(ctx))
        sent = call.start(upstream.request(spec, forwarded, timeout=None, progress=progress))
        link.calls[id(call)] = call
        try:
            return await call.run(sent)
        except ConnectionClosed as exc:  # an error answer, not a traceback: the bridge then ends
            raise MCPError(INTERNAL_ERROR, f"the upstream server went away ({exc})") from exc
        finally:
            del link.calls[id(call)]
            if not sent.done():  # cancelled downstream, or the round ended: cancel upstream
                sent.cancel()
                await asyncio.gather(sent, return_exceptions=True)

    def _as_task(
        self, spec: MethodSpec[Any, Any], params: Any, ctx: ServerContext
    ) -> MethodSpec[Any, Any]:
        """``spec`` as a task when ``params`` ask for one (``task``) and the upstream runs it
        as one; refused by name when it does not (the task is never dropped). A ``tools/call``
        with the tasks extension forwarded: its ``CreateTaskResult`` is passed back."""
        if task_of(params) is None:
            if not self._extension or spec.method != "tools/call":
                return spec
            forwarded = declares_extension(self.capabilities_of(ctx))
            return accepting_task(spec) if forwarded else spec
        as_task = self.upstream.TASKS.get(spec.method)
        theirs = self.upstream.their_capabilities
        if as_task is None or not declared(theirs, as_task.capability):
            where = f"the upstream server ({self.upstream.protocol_version})"
            raise task_refused(spec.method, where)
        return as_task

    def capabilities_of(self, ctx: ServerContext) -> dict[str, Any]:
        """What the downstream client can answer, of what the upstream client declares (a
        dict shared by the requests of one client: read it, do not change it)."""
        facts = ctx.facts
        theirs = facts.client_capabilities if facts is not None else None
        if theirs is None:
            theirs = ctx.connection.their_capabilities
        upstream = self.upstream
        extension = (
            self._extension and facts is not None and facts.version == (upstream.protocol_version)
        )
        ours = upstream.our_capabilities
        last = self._declared  # one client's requests: the same declarations each time
        if last is not None and last[0] is theirs and last[1] is ours and last[2] is extension:
            return last[3]
        made = forwarded_capabilities(theirs, ours, extension)
        self._declared = (theirs, ours, extension, made)
        return made

    def _links(self) -> list[Link]:
        """Every upstream connection: the shared one and the sessions' own."""
        return [self._shared, *(self.sessions.links() if self.sessions is not None else ())]

    def _sessions_of(self, link: Link) -> list[tuple[int, ServerContext]]:
        """The downstream sessions that get what ``link``'s upstream sends outside requests:
        its own session, or (shared) the sessions that have no upstream of their own."""
        if link.session is not None:
            return [(id(link.session.connection), link.session)]
        if self.sessions is not None:
            return []
        return [(key, seen) for key, seen in self._seen.items() if seen.facts is None]

    def _note(self, ctx: ServerContext) -> None:
        """Remember a downstream connection (notifications outside requests go to it)."""
        key = id(ctx.connection)
        if ctx.facts is None and key not in self._seen:
            if len(self._seen) >= MAX_SEEN:
                self._seen.pop(next(iter(self._seen)))
            self._seen[key] = ctx
            if self.on_session is not None:
                self.on_session(ctx.connection.protocol_version)
        elif ctx.facts is not None and self.on_session is not None and not self._seen:
            self._seen[key] = ctx  # stateless: one line for the first client
            self.on_session(ctx.facts.version)

    async def _client_notification(self, method: str, params: Any) -> None:
        """A downstream notification (roots changed ...) goes upstream when it exists there.

        It names no session: a roots change goes to every upstream connection (each asks its
        own session again, so a session's ``roots/list`` is still answered with its roots)."""
        spec = self.upstream.METHODS.get(method)
        if spec is None or spec.kind != "notification":
            return
        links = self._links() if method == ROOTS_CHANGED else [self._shared]
        for link in links:
            if link.client is None:
                continue
            try:
                await link.client.notify(spec, params)
            except MCPError as exc:
                LOG.debug("not forwarded upstream: %s (%s)", method, exc)

    # -- what the upstream sends ----------------------------------------------------------------

    def upstream_handlers(self, client: ClientBase[Any], link: Link | None = None) -> None:
        """Make ``client``'s handlers ask the downstream client (every request it may get):
        the client of ``link``'s connection (default: the shared one)."""
        link = link or self._shared
        for method, attr in client.ROUTES.items():
            spec = client.METHODS.get(method)
            if spec is not None and method not in OWN_METHODS and not task_method(spec):
                setattr(client, attr, self._question(spec, link))
        client.handlers = implemented_handlers(client, client.ROUTES)

        async def on_notification(method: str, params: Any) -> None:
            await self.upstream_notification(method, params, link)

        client.on_notification = on_notification  # type: ignore[method-assign]

    def _question(self, spec: MethodSpec[Any, Any], link: Link) -> Handler:
        """An upstream handler that asks the downstream client the same question: the one
        whose request it came through, never a guess among several clients."""

        async def question(params: Any, ctx: Any) -> Any:
            call = current_call() or link.asked(ctx.related_request_id)
            if call is not None:
                return await call.ask(spec, outgoing(params))
            if link.calls:
                raise MCPError(INTERNAL_ERROR, f"{spec.method}: {AMBIGUOUS}")
            sessions = self._sessions_of(link)
            if len(sessions) == 1:  # outside any request: the session's (stdio: the one)
                return await sessions[0][1].request(spec, outgoing(params))
            raise MCPError(INTERNAL_ERROR, f"{spec.method}: no downstream client to ask")

        return question

    async def upstream_notification(
        self, method: str, params: Any, link: Link | None = None
    ) -> None:
        """Forward an upstream notification to the downstream client(s), converted: those
        of ``link``'s connection (default: the shared one, whose listen stream calls this)."""
        link = link or self._shared
        call = current_call() or link.asked(related_request_id())
        if method == "notifications/message" and call is None and link.calls:
            LOG.debug("a log message naming none of several clients' requests: not forwarded")
            return
        if method == "notifications/message" and call is not None:
            level, logger, ctx = _field(params, "level"), _field(params, "logger"), call.ctx
            call.send(
                lambda: ctx.log(
                    level if isinstance(level, str) else "info",
                    _field(params, "data"),
                    logger if isinstance(logger, str) else None,
                )
            )
            return
        publish = CHANGES.get(method)
        for server in self.served if link is self._shared else ():  # stateless clients' streams
            if publish is not None and not server.FACTS.handshake:
                await getattr(server, publish)()
            elif method == "notifications/resources/updated" and not server.FACTS.handshake:
                await server.notify_resource_updated(str(_field(params, "uri")))
        spec = self.upstream.METHODS.get(method)
        if spec is None:
            return
        only: list[int] | None = None
        updated = method == "notifications/resources/updated" and link.session is None
        if updated and self._listen is not None:
            only = self._listen.subscribers(str(_field(params, "uri")))
        elif updated and self._sessions is not None:
            only = self._sessions.subscribers(str(_field(params, "uri")))
        for key, seen in self._sessions_of(link):
            if only is not None and key not in only:
                continue
            if seen.facts is None and not seen.connection.peer.closed:
                try:
                    await seen.notify(spec, params)
                except MCPError as exc:  # the downstream revision lacks it: refused, named
                    LOG.info("notification %s not forwarded: %s", method, exc)

    async def start(self) -> None:
        """Open a listen stream upstream for the list changes a stateless upstream offers."""
        stateless = self.upstream.stateless
        if stateless is not None:
            wanted = {LISTEN_FILTERS[top]: True for top in self.served[0].list_changed}
            self._listen = UpstreamListen(stateless, wanted, self.upstream_notification)
            await self._listen.start()

    async def settle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until no downstream request is being forwarded."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(link.calls for link in self._links()) and loop.time() < deadline:
            await asyncio.sleep(SETTLE_POLL_S)
        await asyncio.sleep(SETTLE_POLL_S)  # their answers, now raised, reach the wire

    async def close(self) -> None:
        """Stop the listen stream and close the upstream connections."""
        if self.sessions is not None:
            await self.sessions.close()
        if self._listen is not None:
            await self._listen.close()
        if self._sessions is not None:
            await self._sessions.close()
        if self._upstream is not None:
            await self._upstream.close()


def _field(params: object, name: str, wire: str | None = None) -> Any:
    """A field of notification params, typed (a Struct) or JSON (a listen stream's dict)."""
    if isinstance(params, dict):
        return params.get(wire or name)  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
    return getattr(params, name, None)


def _flag(value: object, key: str) -> bool:
    """Whether a capability object sets ``key`` to true."""
    return isinstance(value, dict) and value.get(key) is True  # pyright: ignore[reportUnknownMemberType]


def _progress(call: Call) -> Callable[[Any], None]:
    """The upstream's progress notifications, reported on the downstream request."""
    ctx = call.ctx

    def report(params: Any) -> None:
        total, message = _field(params, "total"), _field(params, "message")
        progress = _field(params, "progress")
        call.send(
            lambda: ctx.progress(
                float(progress) if isinstance(progress, int | float) else 0.0,
                total if isinstance(total, int | float) else None,
                message if isinstance(message, str) else None,
            )
        )

    return report
