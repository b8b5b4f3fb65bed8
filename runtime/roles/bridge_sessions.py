"""The bridge's upstream connections, and which downstream client an upstream question reaches.

A handshake server's requests to its client (sampling, elicitation, ``roots/list``) and its
log messages name no request of the client: over stdio nothing links them to one, over
Streamable HTTP only the POST stream they come on does. So the bridge never shares one
upstream connection between downstream clients that could be asked something: over an HTTP
downstream, each handshake session gets its own upstream connection (``SessionLinks``: a
spawned process per session for a stdio upstream, an MCP session per session for an HTTP one),
opened at the session's first forwarded request with the capabilities that session's client
declared, and closed when the session ends. What comes on it (questions, log messages, list
changes, resource updates) is that session's alone. The one shared connection (``Link`` without
a session) serves a stdio downstream (one client) and stateless downstream requests.

On either, an upstream question or log message goes to the downstream request it belongs to
when that is known: the request it was asked through (a stateless upstream's input rounds run
in that request's task), or the one whose upstream request's POST stream it came on (Streamable
HTTP: ``related_request_id``; each upstream request a call sends is noted on the call). Else
(stdio, the GET stream) it goes to the latest request in flight when all in flight are one
client's, and is refused, not guessed, when they are several clients'.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final

from ..core.errors import INTERNAL_ERROR, MCPError, RoundTripSignal
from ..core.events import RequestId
from ..core.methods import MethodSpec
from .client import ClientBase
from .peer import REQUEST_SENT
from .server import ServerContext

__all__ = ["Call", "Link", "OpenLink", "SessionLinks", "current_call"]

LOG: Final = logging.getLogger(__name__)
SWEEP_S: Final = 2.0
"""How often the upstream connections of ended downstream sessions are looked for and closed."""
MAX_SENT: Final = 64
"""Most upstream request ids a call keeps (its latest: input rounds, task polls)."""

Work = Callable[[], Awaitable[Any]]

_CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("bridge_call", default=None)


def current_call() -> Call | None:
    """The downstream request whose upstream call runs in this task (``Call.start``)."""
    return _CALL.get()


class Call:
    """One downstream request being forwarded: what its upstream call sends back meanwhile.

    Questions, progress and log messages of the upstream call run in the downstream
    handler's own task (``run``): a stateless request's rounds are found there, and over
    HTTP what a handler sends goes on its request's stream. The handler waits on one plain
    future, woken by the upstream result or by work (no task per wait).
    """

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.owner = id(ctx.connection)
        """The downstream client: its session, or one stateless HTTP request, or stdio."""
        self.work: deque[tuple[Work, asyncio.Future[Any] | None]] = deque()
        self.sent: dict[RequestId, None] = {}
        """The ids of the upstream requests sent for it (the latest ``MAX_SENT``), in order."""
        self._wake: asyncio.Future[None] | None = None

    def start(self, upstream: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        """Run the upstream call in a task that names this call (``current_call``) and notes
        the id of each request it sends, so what relates to one comes back here.

        Its last step wakes ``run`` itself: not through its done callback, a turn of the
        loop later (that callback stays, for a task cancelled before its first step)."""
        call, noted = _CALL.set(self), REQUEST_SENT.set(self._note_sent)
        try:
            return asyncio.ensure_future(self._then_wake(upstream))
        finally:
            REQUEST_SENT.reset(noted)
            _CALL.reset(call)

    async def _then_wake(self, upstream: Coroutine[Any, Any, Any]) -> Any:
        """The upstream call, waking ``run`` when it ends (whichever way)."""
        try:
            return await upstream
        finally:
            self._poke()

    def _note_sent(self, request_id: RequestId) -> None:
        """Remember an upstream request sent for this call (forgetting the oldest beyond)."""
        self.sent[request_id] = None
        if len(self.sent) > MAX_SENT:
            del self.sent[next(iter(self.sent))]

    def _poke(self, *_: object) -> None:
        """Wake ``run``."""
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def ask(self, spec: MethodSpec[Any, Any], params: Any) -> Any:
        """Ask the downstream client through this request (answered by ``run``)."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.work.append((lambda: self.ctx.request(spec, params), answer))
        self._poke()
        return await answer

    def send(self, work: Work) -> None:
        """Send something on this request's behalf (progress, a log message), in order."""
        self.work.append((work, None))
        self._poke()

    async def run(self, upstream: asyncio.Future[Any]) -> Any:
        """Wait for the upstream result, doing what the upstream call sends meanwhile."""
        loop = upstream.get_loop()
        upstream.add_done_callback(self._poke)
        while True:
            while self.work:  # what came before the result goes first
                await self._do(*self.work.popleft())
            if upstream.done():
                return upstream.result()
            self._wake = loop.create_future()
            try:
                await self._wake
            finally:
                self._wake = None

    async def _do(self, work: Work, answer: asyncio.Future[Any] | None) -> None:
        """Run one piece of work; a question's answer (or why not) goes to ``answer``."""
        try:
            got = await work()
        except RoundTripSignal:  # MRTR: a question not answered yet ends the round
            if answer is not None:
                answer.set_exception(MCPError(INTERNAL_ERROR, "the question ends this round"))
            raise
        except Exception as exc:  # the downstream's answer (or why it cannot answer)
            if answer is None:
                LOG.info("not forwarded downstream: %s", exc)
                return
            error = exc if isinstance(exc, MCPError) else MCPError(INTERNAL_ERROR, str(exc))
            answer.set_exception(error)
        else:
            if answer is not None:
                answer.set_result(got)


class Link:
    """One upstream connection and the downstream requests being forwarded over it."""

    def __init__(self, session: ServerContext | None = None) -> None:
        self.session = session
        """The downstream session the connection belongs to (None: the shared connection)."""
        self.client: ClientBase[Any] | None = None
        self.calls: dict[int, Call] = {}
        """The downstream requests forwarded over it and under way, oldest first."""
        self.ready: asyncio.Future[ClientBase[Any]] | None = None

    def asked(self, related: RequestId | None = None) -> Call | None:
        """The request an upstream message belongs to: the one whose upstream request
        ``related`` names, if any; else the latest in flight when all in flight are one
        downstream client's (None: none in flight, or several clients)."""
        if related is not None:
            for call in self.calls.values():
                if related in call.sent:
                    return call
        latest = next(reversed(self.calls.values()), None)
        if latest is None or any(call.owner != latest.owner for call in self.calls.values()):
            return None
        return latest

    @property
    def ended(self) -> bool:
        """Whether its downstream session has ended."""
        return self.session is not None and self.session.connection.peer.closed


OpenLink = Callable[[Link], Awaitable[ClientBase[Any]]]
"""Connect a new upstream client for a session's ``Link`` (its handlers ask that session)."""


class SessionLinks:
    """Each downstream handshake session's own upstream connection, at most ``limit`` open."""

    def __init__(self, open_link: OpenLink, limit: int) -> None:
        self._open_link = open_link
        self.limit = limit
        self._links: dict[int, Link] = {}
        self._sweeper: asyncio.Task[None] | None = None

    def links(self) -> list[Link]:
        """The open sessions' links."""
        return list(self._links.values())

    async def get(self, ctx: ServerContext) -> Link:
        """The link of ``ctx``'s session, connected upstream at its first request."""
        key = id(ctx.connection)  # the link holds the connection: its id is not reused meanwhile
        link = self._links.get(key)
        if link is not None and link.client is not None and link.client.peer.closed:
            LOG.info("a session's upstream connection ended: connecting it again")
            del self._links[key]
            link = None
        if link is None:
            await self.prune()
            if len(self._links) >= self.limit:
                message = f"the bridge keeps at most {self.limit} sessions (one upstream each)"
                raise MCPError(INTERNAL_ERROR, message)
            link = self._links[key] = Link(ctx)
            link.ready = asyncio.ensure_future(self._open_link(link))
            if self._sweeper is None:
                self._sweeper = asyncio.create_task(self._sweep())
        assert link.ready is not None
        try:
            link.client = await asyncio.shield(link.ready)
        except Exception as exc:  # the session's upstream could not be reached: its error
            if self._links.get(key) is link:  # the next request tries again
                del self._links[key]
            if isinstance(exc, MCPError):
                raise
            raise MCPError(INTERNAL_ERROR, f"the upstream server did not connect: {exc}") from exc
        return link

    async def prune(self) -> None:
        """Close the upstream connections of the sessions that have ended (all at once)."""
        ended = [key for key, link in self._links.items() if link.ended]
        await asyncio.gather(*(_close(self._links.pop(key)) for key in ended))

    async def _sweep(self) -> None:
        """Prune now and then, so an ended session's upstream (a process) does not linger."""
        while True:
            await asyncio.sleep(SWEEP_S)
            await self.prune()

    async def close(self) -> None:
        """Close every session's upstream connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        links, self._links = list(self._links.values()), {}
        await asyncio.gather(*(_close(link) for link in links))


async def _close(link: Link) -> None:
    """Close ``link``'s upstream client (connected or still connecting)."""
    ready = link.ready
    if ready is None:
        return
    if not ready.done():
        ready.cancel()
    await asyncio.gather(ready, return_exceptions=True)
    if ready.cancelled() or ready.exception() is not None:
        return
    with contextlib.suppress(Exception):  # the upstream may be gone already
        await ready.result().close()
