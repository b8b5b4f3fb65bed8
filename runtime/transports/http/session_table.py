"""The live sessions of one HTTP app: made, looked up by ``Mcp-Session-Id``, kept within
``max_sessions``, swept when idle, and ended.

In the no-session mode (``HttpOptions(stateless=True)``) nothing is kept by id: a connection
that answered a POST of one request and left nothing behind waits for the next POST of its
revision instead (``IDLE_POST_CONNECTIONS`` per revision).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from ...backends.base import BackendUnavailable
from ...roles.server import ServerBase
from .checks import Reject
from .ending import SessionEnder
from .eviction import choose_eviction
from .options import IDLE_POST_CONNECTIONS, HttpOptions
from .session import HttpSession

logger = logging.getLogger(__name__)
"""The session table's log (a backend away while sweeping)."""


class SessionTable:
    """The sessions of one app by id, and the no-session mode's idle connections."""

    def __init__(
        self, servers: list[ServerBase], options: HttpOptions, versions: frozenset[str]
    ) -> None:
        self.servers = servers
        self.options = options
        self.versions = versions
        self.sessions: dict[str, HttpSession] = {}
        self.ender = SessionEnder()
        """Ends sessions; what a backend away keeps from being forgotten is retried later."""
        self._sweeper: asyncio.Task[None] | None = None
        self._ending: set[asyncio.Task[None]] = set()
        self._idle: dict[str, list[HttpSession]] = {}
        """No-session connections whose one request was answered, by revision (``done_with``)."""

    def register(self, session: HttpSession) -> None:
        """Keep a new session, and make sure idle ones get ended."""
        self.sessions[session.id] = session
        timeout = self.options.session_idle_timeout
        if timeout is not None and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = asyncio.create_task(self._sweep(timeout))

    async def _sweep(self, timeout: float) -> None:
        """End sessions idle for ``timeout`` seconds (clients that vanished without DELETE) and
        keep the others in the session directory; a backend away stops neither."""
        while self.sessions:
            await asyncio.sleep(min(timeout / 2, 30.0))
            for session in list(self.sessions.values()):
                if session.idle_for() > timeout:
                    self.sessions.pop(session.id, None)
                    await self.ender.end(session)
            try:
                await self.options.backend.directory.touch(list(self.sessions))
            except BackendUnavailable as exc:  # renewed at the next sweep, before they expire
                logger.warning("cannot renew the sessions in the directory: %s", exc)

    async def make_room(self) -> None:
        """Before a new session: at ``max_sessions``, end one that may make room or refuse (503).

        The policy (unproven sessions first, active ones never) is ``eviction``'s.
        """
        opts = self.options
        if len(self.sessions) < opts.max_sessions:
            return
        victim, wait = choose_eviction(
            self.sessions.values(), opts.evict_unproven_after, opts.evict_idle_after
        )
        if victim is None:
            message = f"Service Unavailable: {opts.max_sessions} sessions are live (the limit)"
            retry = [(b"retry-after", str(wait).encode())]
            raise Reject(503, f"{message}; retry in {wait} s", retry, code=-32000)
        self.sessions.pop(victim.id, None)
        await self.ender.end(victim)

    def known(self, headers: dict[str, str]) -> HttpSession | None:
        """The live session a request names, if any (checked for real by ``session``)."""
        session_id = None if self.options.stateless else headers.get("mcp-session-id")
        session = None if session_id is None else self.sessions.get(session_id)
        return None if session is None or session.ended else session

    def session(self, headers: dict[str, str]) -> HttpSession:
        """The live session a request names (400 without a session id, 404 if unknown)."""
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            raise Reject(400, "Bad Request: the Mcp-Session-Id header is required")
        session = self.sessions.get(session_id)
        if session is None or session.ended:
            raise Reject(404, "Session not found")
        if session.connection.peer.closed:
            self.sessions.pop(session.id, None)  # its connection stopped: no POST may wait on it
            self._end_later(session)
            raise Reject(404, "Session not found")
        session.touch()
        return session

    def _end_later(self, session: HttpSession) -> None:
        """End a session in the background (from code that cannot wait)."""
        task = asyncio.create_task(self.ender.end(session))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    async def end(self, session: HttpSession) -> None:
        """Forget a session and end it (DELETE, or its HTTP+SSE stream closed)."""
        self.sessions.pop(session.id, None)
        await self.ender.end(session)

    async def delete(self, session: HttpSession) -> None:
        """End a session the client deleted. It leaves the session directory first: with the
        backend away that raises ``BackendUnavailable`` (503, ``Retry-After``) and the
        session lives on, so a DELETE is never answered 200 for a session other workers
        still route to; the client deletes it again later."""
        if session.resumable:
            await self.options.backend.directory.release(session.id)
        await self.end(session)

    async def end_all(self) -> None:
        """End every session of this worker (shutting down, or its lease lapsed): each one,
        even when the backend cannot forget some of them now (``SessionEnder``)."""
        for session in list(self.sessions.values()):
            self.sessions.pop(session.id, None)
            await self.ender.end(session)
        idle = [session for kept in self._idle.values() for session in kept]
        self._idle.clear()
        for session in idle:
            await self.ender.end(session)

    def check_version(self, headers: dict[str, str], session: HttpSession | None) -> None:
        """Refuse (400) an ``MCP-Protocol-Version`` not served, or not the session's."""
        version = headers.get("mcp-protocol-version")
        if version is None:
            return
        if version not in self.versions:
            raise Reject(400, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
        negotiated = session.protocol_version if session else ""
        if negotiated and version != negotiated:
            raise Reject(400, f"Bad Request: MCP-Protocol-Version is not {negotiated!r}")

    def new_session(self, http_sse: bool = False) -> HttpSession:
        """A fresh session (not yet registered) with the app's bounds."""
        opts = self.options
        return HttpSession(
            self.servers,
            opts.event_store,
            http_sse=http_sse,
            resumable=not opts.stateless,
            retry_ms=opts.sse_retry_ms,
            max_stream_bytes=opts.max_stream_bytes,
            stall_timeout=opts.stream_stall_timeout,
            max_depth=opts.max_depth,
            directory=opts.backend.directory,
        )

    async def for_post(
        self, headers: dict[str, str], initialize: bool, known: HttpSession | None = None
    ) -> HttpSession:
        """The session a POST goes to: a new one for ``initialize``, else the one it names (in
        the no-session mode: an idle connection of its revision, else a fresh one); ``known``
        is the live session ``known`` found for these headers, if any (not looked up again)."""
        if known is not None and not (initialize or known.ended or known.connection.peer.closed):
            known.touch()
            self.check_version(headers, known)
            return known
        if self.options.stateless:
            self.check_version(headers, None)
            if initialize:
                return self.new_session()
            version = headers.get("mcp-protocol-version") or max(self.versions)
            idle = self._idle.get(version)
            if idle:
                return idle.pop()
            session = self.new_session()
            session.connection.assume(version)
            return session
        if initialize:
            if "mcp-session-id" in headers:
                raise Reject(400, "Bad Request: initialize must not carry an Mcp-Session-Id")
            await self.make_room()
            session = self.new_session()
            self.register(session)
            await self.options.backend.directory.claim(session.id)
            if session.ended:  # meanwhile: this worker's lease lapsed, or the app stops
                with contextlib.suppress(BackendUnavailable):  # else it expires
                    await self.options.backend.directory.release(session.id)
                message = "Service Unavailable: the new session ended before it began"
                raise Reject(503, message, [(b"retry-after", b"1")])
            return session
        session = self.session(headers)
        self.check_version(headers, session)
        return session

    async def done_with(self, session: HttpSession, reuse: bool) -> None:
        """After a no-session POST: keep its connection for the next POST of its revision when
        ``reuse`` (the POST was one request, now answered) and it left nothing behind; else
        end it. A reused connection is as a fresh one (``HttpSession.serves_again``)."""
        if not reuse or not session.serves_again():
            await self.ender.end(session)
            return
        idle = self._idle.setdefault(session.protocol_version, [])
        if len(idle) < IDLE_POST_CONNECTIONS:
            idle.append(session)
        else:
            await self.ender.end(session)
