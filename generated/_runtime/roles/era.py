# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The one place that decides the era of a request: with a handshake (a session) or without.

``is_stateless`` is the rule for stdio and HTTP alike (``basic/versioning.mdx``): a version the
transport states (HTTP's ``MCP-Protocol-Version`` header) decides first; then an open session
(HTTP's session id) keeps the request in it; then a ``_meta`` version that no handshake server
answers makes it stateless; else the transport's default. ``serve`` runs one stream (stdio,
memory) for the servers of a process: ``initialize`` opens the handshake session of the
stream, a request with a stateless ``_meta`` version goes to the stateless connection, before
and after ``initialize``; before it, every request does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Raw

from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.message import Message
from ..core.meta import META_VERSION
from ..core.transport import ConnectionClosed, PushesFrames, RelatedId, Transport
from ..core.wire import Inbound, Malformed, Outbound, as_id
from ..transports.lines import WritesLines, WritesNow
from .definition import ServerDefinition
from .handshake import ServerConnection
from .peer import Peer
from .running import start_eagerly
from .stateless import StatelessConnection, StatelessServer

S = TypeVar("S", bound=ServerDefinition)


def is_stateless(
    stated: str | None,
    meta_version: object,
    handshake_versions: Iterable[str],
    *,
    in_session: bool,
    otherwise: bool,
) -> bool:
    """Whether a request belongs to the stateless era (see the module docstring)."""
    if stated is not None:
        return stated.strip() not in handshake_versions
    if in_session:
        return False
    if isinstance(meta_version, str):
        return meta_version not in handshake_versions
    return otherwise


def faces(servers: Sequence[S]) -> tuple[StatelessServer | None, list[S]]:
    """The stateless face among ``servers`` (None: all have a handshake) and the handshake ones."""
    handshake = [s for s in servers if s.FACTS.handshake]
    stateless = next((s for s in servers if not s.FACTS.handshake), None)
    if stateless is None:
        return None, handshake
    return StatelessServer.of(stateless, [s.FACTS.version for s in handshake]), handshake


async def serve(
    transport: Transport, servers: Sequence[ServerDefinition], max_depth: int = DEFAULT_MAX_DEPTH
) -> None:
    """Serve one stream until it closes, in the era each request belongs to.

    ``max_depth``: the deepest nesting of arrays and objects accepted in a frame.
    """
    face, handshake = faces(servers)
    if face is None:
        await ServerConnection(handshake, transport, max_depth).run()
    elif not handshake:
        await face.connect(transport, max_depth=max_depth).run()
    else:
        await _Stream(transport, face, handshake, max_depth).run()


class _Meta(msgspec.Struct):
    version: object = msgspec.field(default=None, name=META_VERSION)


class _Params(msgspec.Struct):
    meta: _Meta | None = msgspec.field(default=None, name="_meta")
    request_id: object = msgspec.field(default=None, name="requestId")


class Probe(msgspec.Struct):
    """What the era of a frame depends on: its method, ``_meta`` version, cancelled id."""

    method: object = None
    params: _Params | None = None

    @property
    def meta_version(self) -> object:
        """The ``_meta`` protocol version (None where there is none)."""
        params = self.params
        return None if params is None or params.meta is None else params.meta.version


_PROBE = msgspec.json.Decoder(Probe)


def probe(frame: bytes) -> Probe:
    """Read what the era of ``frame`` depends on (nothing, where it is no such message)."""
    try:
        return _PROBE.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return Probe()  # not a message the probe reads: the session will say what is wrong


def _no_initialize(read: Inbound) -> bool:
    """Whether a frame read on the general path holds no well-formed single ``initialize``
    (that one, and a malformed single message, the probe decides)."""
    if read.batch or len(read.messages) != 1:
        return True
    first = read.messages[0]
    return type(first) is not Malformed and first.method != "initialize"


class _Inner:
    """A connection's share of the stream: it writes to the stream; the router reads the
    stream and hands each frame to the connection's peer (``Peer.take``), so nothing is
    read here."""

    def __init__(self, outer: Transport) -> None:
        self._outer = outer
        self._closed = False

    async def read(self) -> bytes | Inbound | None:
        """Nothing: the router feeds the connection (end of input, were it asked)."""
        return None

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Write to the stream."""
        if self._closed:
            raise ConnectionClosed("this connection of the stream is closed")
        await self._outer.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass the negotiated version on to the stream's transport."""
        self._outer.negotiated(version)

    async def close(self) -> None:
        """End this connection; the stream stays open for the other."""
        self._closed = True


class _InnerNow(_Inner):
    """A share of a stream whose transport writes at once (stdio): so does the share."""

    write_now: Callable[[Outbound], Coroutine[Any, Any, None] | None]
    """The stream's own (``WritesNow``): its peer stops writing once it closed this share."""

    def __init__(self, outer: Transport, now: WritesNow) -> None:
        super().__init__(outer)
        self.write_now = now.write_now


class _InnerLines(_InnerNow):
    """A share of a stream that takes lines (stdio): so does the share."""

    write_line: Callable[[bytes, bool], Coroutine[Any, Any, None] | None]
    """The stream's own (``WritesLines``): its peer stops writing once it closed this share."""

    def __init__(self, outer: Transport, now: WritesNow, lines: WritesLines) -> None:
        super().__init__(outer, now)
        self.write_line = lines.write_line


def _share(outer: Transport) -> _Inner:
    """A connection's share of the stream ``outer``."""
    if not isinstance(outer, WritesNow):
        return _Inner(outer)
    if isinstance(outer, WritesLines):
        return _InnerLines(outer, outer, outer)
    return _InnerNow(outer, outer)


class _Stream:
    """One stream serving both eras: each frame goes to the connection of its era."""

    def __init__(
        self,
        transport: Transport,
        face: StatelessServer,
        handshake: list[ServerDefinition],
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        self.transport = transport
        self.handshake = handshake
        self.max_depth = max_depth
        self.versions = frozenset(s.FACTS.version for s in handshake)
        self.stateless: StatelessConnection = face.connect(_share(transport), max_depth=max_depth)
        self.session: ServerConnection | None = None
        """The handshake session, from the first frame routed to it (``initialize``)."""

    def _is_stateless(self, frame: bytes) -> bool:
        found = probe(frame)
        params = found.params
        meta = found.meta_version
        opened = self.session is not None
        if (
            opened
            and found.method == "notifications/cancelled"
            and params is not None
            and as_id(params.request_id) in self.stateless.peer.session.requests_in_flight
        ):
            return True
        default = not opened and found.method != "initialize"
        return is_stateless(None, meta, self.versions, in_session=False, otherwise=default)

    def _in_session(self, message: Message) -> bool:
        """Whether a message the open session read in one pass is the session's: a request or
        notification whose typed ``_meta`` names no stateless version (so the frame is not
        decoded a second time by ``probe``). False: the probe decides, as for anything else
        (params kept raw, a response, a cancellation) and for a ``_meta`` version of the
        stateless era (that connection parses the frame itself)."""
        if not message.shaped or message.method == "notifications/cancelled":
            return False
        params = message.params
        if params is UNSET:
            return True
        kind: Any = params.__class__
        if kind is Raw:
            return False
        typed: Any = params  # a dict or typed params (``_meta`` a field): no cast call
        meta = typed.get("_meta") if kind is dict else typed.meta
        found: Any = meta  # a dict once tested
        if type(meta) is not dict:  # no version stated (most requests of a session)
            return True
        version = found.get(META_VERSION)
        return not is_stateless(None, version, self.versions, in_session=False, otherwise=False)

    async def run(self) -> None:
        """Route until the stream closes; then end both connections."""
        transport = self.transport
        try:
            if isinstance(transport, PushesFrames):
                await transport.pump(self._pushed)
            else:
                while (frame := await transport.read()) is not None:
                    await self._route(frame)
        finally:
            await self._end(self.stateless.peer)

    def _pushed(self, frame: bytes | Inbound) -> asyncio.Task[None] | None:
        """Hand one frame to the connection of its era (the handshake one opens here), by
        plain calls (``Peer.take_now``); a task only if taking it waits (started at once).

        A frame is read once, by the connection it most likely goes to. Before ``initialize``
        only a well-formed ``initialize`` can leave the stateless connection, so what that
        connection read goes to it as read; that one and a malformed single message stay bytes
        for the probe. Once the session is open, what it read goes to it where the read
        settles the era (``_in_session``); anything else is probed.
        """
        if isinstance(frame, Inbound):
            rest = self.stateless.peer.take_now(frame)
            return None if rest is None else start_eagerly(rest)
        session = self.session
        if session is not None:
            read = session.peer.session.read(frame)
            if not isinstance(read, Inbound) and self._in_session(read):
                rest = session.peer.take_now(read)
                return None if rest is None else start_eagerly(rest)
        else:
            stateless = self.stateless.peer
            read = stateless.session.read(frame)
            if (_no_initialize(read) if isinstance(read, Inbound) else read.method != "initialize"):
                rest = stateless.take_now(read)
                return None if rest is None else start_eagerly(rest)
        if self._is_stateless(frame):
            rest = self.stateless.peer.take_now(frame)
        else:
            if self.session is None:
                handshake = ServerConnection(self.handshake, _share(self.transport), self.max_depth)
                self.session = handshake
            # Fed here, not through a queue to a task of its own: no loop turn per frame.
            rest = self.session.peer.take_now(frame)
        return None if rest is None else start_eagerly(rest)

    async def _route(self, frame: bytes | Inbound) -> None:
        """``_pushed`` for a transport that is read (not pushing): the frame's rest awaited
        before the next frame is read."""
        task = self._pushed(frame)
        if task is not None:
            await task

    async def _end(self, peer: Peer) -> None:
        await peer.close()
        if self.session is not None:
            with contextlib.suppress(Exception):
                await self.session.finish()
