# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""How a client's requests reach the wire: the sender every request of a ``ClientBase`` takes.

``ClientBase.request`` checks a call (the method exists in the revision in use, the
capabilities allow it: the verdict is kept per method until either side's capabilities or the
method table change) and hands it to ``client.sender``, a ``SendsRequests``:
- ``SessionSender`` (a revision with a handshake): the peer's request; when the server ended
  the HTTP session, a new session is started and the request sent once more;
- ``StatelessRequests`` (``stateless_client.py``, no handshake): per-request ``_meta``, input
  rounds, a task followed to its end;
- the revision adapter's sender (``adapt.connect_client``): the call converted into the
  revision the server chose, sent through that revision's client, its result converted back,
  so the caller gets its own revision's types.
The sender is the one seam: the typed stubs, ``request``, ``notify`` and ``ping`` all send
through it, and replacing it (never the client's methods) is how a client speaks another way.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from ..core.errors import MCPError, SessionExpired
from ..core.methods import MethodSpec
from .peer import Peer, ProgressCallback

__all__ = ["RenewsSession", "SendsRequests", "SessionSender"]


class SendsRequests(Protocol):
    """Puts a client's checked requests, and its notifications, on the wire."""

    async def request(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """Send one request (``spec``: the table's row or a variant, checked); its typed result."""
        ...

    async def notify(self, method: MethodSpec[Any, None], params: Any, related: bool) -> None:
        """Send one notification the capabilities allow (``related=False``: tied to no request)."""
        ...


class RenewsSession(Protocol):
    """What a ``SessionSender`` uses of its client: the connection, and a new session."""

    peer: Peer
    session_generation: int
    """How many times the session was started again (a renewal is run once per generation)."""

    def check(self, method: MethodSpec[Any, Any], sending: bool) -> MethodSpec[Any, Any]:
        """The table's row of ``method``, refused when a capability is missing."""
        ...

    async def renew_session(self, generation: int) -> None:
        """Run the handshake again, unless another request did since ``generation``."""
        ...


class SessionSender:
    """The sender of a revision with a handshake: one session, started again if it expires."""

    __slots__ = ("client",)

    def __init__(self, client: RenewsSession) -> None:
        self.client = client

    async def request(
        self,
        spec: MethodSpec[Any, Any],
        params: Any,
        timeout: float | None,
        progress: ProgressCallback[Any] | None,
    ) -> Any:
        """Send one request; if the server ended the HTTP session, start a new one and retry."""
        client = self.client
        generation = client.session_generation
        try:
            return await client.peer.request(spec, params, timeout=timeout, progress=progress)
        except (SessionExpired, MCPError) as exc:
            if isinstance(exc, MCPError) and not session_expired(exc):
                raise
        # The server ended the session (HTTP 404): start a new one, then retry once.
        await client.renew_session(generation)
        return await client.peer.request(spec, params, timeout=timeout, progress=progress)

    async def notify(self, method: MethodSpec[Any, None], params: Any, related: bool) -> None:
        """Send a notification the capabilities allow."""
        spec = self.client.check(method, sending=True)
        await self.client.peer.notify(spec, params, related=related)


def session_expired(error: MCPError) -> bool:
    """Whether an error answer says the HTTP session expired (the transport marks it)."""
    data: object = error.data
    return isinstance(data, dict) and cast(dict[str, Any], data).get("sessionExpired") is True
