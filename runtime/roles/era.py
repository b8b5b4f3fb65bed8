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
from collections.abc import Iterable, Sequence
from typing import TypeVar

import msgspec
from msgspec import UNSET, Raw

from ..core.frame_guard import DEFAULT_MAX_DEPTH
from ..core.meta import META_VERSION
from ..core.transport import ConnectionClosed, PushesFrames, RelatedId, Transport
from ..core.wire import Inbound, Malformed, Outbound, as_id, as_object, meta_of
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
        self.stateless: StatelessConnection = face.connect(_Inner(transport), max_depth=max_depth)
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

    def _parse_unless_initialize(self, frame: bytes) -> bytes | Inbound:
        """Before ``initialize``, parse ``frame`` once for the stateless session, where exact.

        Until a session opens, only a well-formed ``initialize`` can leave the stateless
        connection, so any other parse is routed (and handled) as is; that one and malformed
        single messages stay bytes for the probe to decide, as before.
        """
        inbound = self.stateless.peer.session.parse(frame)
        if inbound.batch or len(inbound.messages) != 1:
            return inbound
        message = inbound.messages[0]
        if type(message) is Malformed or message.method == "initialize":
            return frame
        return inbound

    def _parse_in_session(self, session: ServerConnection, frame: bytes) -> Inbound | None:
        """Parse ``frame`` once, for the open session, when that parse settles its era.

        A request or notification decoded in one pass carries its ``_meta`` typed (or no
        params): the era is read off it, and the parse goes to the session, so the frame is
        not decoded a second time by ``probe``. None: the probe decides, as for anything else
        (a batch, a malformed frame, params kept raw, a cancellation) and for a ``_meta``
        version of the stateless era (that connection parses the frame itself).
        """
        parsed = session.peer.session.parse(frame)
        if parsed.batch or len(parsed.messages) != 1:
            return None
        message = parsed.messages[0]
        if type(message) is Malformed or not message.shaped:
            return None
        if message.method == "notifications/cancelled":
            return None
        params = message.params
        if params is UNSET:
            return parsed
        if type(params) is Raw:
            return None
        meta = as_object(meta_of(params))
        version = None if meta is None else meta.get(META_VERSION)
        if is_stateless(None, version, self.versions, in_session=False, otherwise=False):
            return None
        return parsed

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
        """Route a frame the transport pushes, at once; a task only if routing it waits."""
        return start_eagerly(self._route(frame))

    async def _route(self, frame: bytes | Inbound) -> None:
        """Hand one frame to the connection of its era (the handshake one opens here)."""
        session = self.session
        if session is not None and not isinstance(frame, Inbound):
            parsed = self._parse_in_session(session, frame)
            if parsed is not None:
                await session.peer.take(parsed)
                return
        if session is None and not isinstance(frame, Inbound):
            frame = self._parse_unless_initialize(frame)
        if isinstance(frame, Inbound) or self._is_stateless(frame):
            await self.stateless.peer.take(frame)
            return
        if self.session is None:
            self.session = ServerConnection(self.handshake, _Inner(self.transport), self.max_depth)
        # Fed here, not through a queue to a task of its own: no loop turn per frame.
        await self.session.peer.take(frame)

    async def _end(self, peer: Peer) -> None:
        await peer.close()
        if self.session is not None:
            with contextlib.suppress(Exception):
                await self.session.finish()
