"""The writing half of a ``Peer``: every frame its session queues goes out in order.

A transport that writes at once (``WritesNow``: stdio) is written by plain calls while no write
waits; a write that waits (a full pipe, an HTTP stream) holds the lock the later ones queue on.
Each frame is written with the id of the peer's request whose handler is running, so a
transport with several streams (Streamable HTTP) sends it on that request's stream.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from typing import Any, cast

from ..core.errors import ConnectionClosed, SessionExpired
from ..core.events import RequestId
from ..core.session import Session
from ..core.transport import Transport
from ..core.wire import Outbound
from ..transports.lines import WritesLines, WritesNow

__all__ = ["CURRENT_REQUEST", "PeerWrites"]

CURRENT_REQUEST: contextvars.ContextVar[RequestId | None] = contextvars.ContextVar(
    "mcpgen_current_request", default=None
)
"""The id of the peer's request whose handler is running in this task, if any."""

WriteNow = Callable[[Outbound | bytes], Coroutine[Any, Any, None] | None]
WriteLine = Callable[[bytes], Coroutine[Any, Any, None] | None]
_WRITES_NOW: dict[type[Any], tuple[bool, bool]] = {}
"""Whether a transport class writes at once (``WritesNow``) and takes lines (``WritesLines``),
learnt once per class: the Protocol's ``isinstance`` walks its members at every call, and a
reused stateless connection takes a new transport per request."""


def _writes_of(transport: Transport) -> tuple[WriteNow | None, WriteLine | None]:
    """The transport's ``write_now`` if it writes at once, and its ``write_line`` if it takes
    an answer as its line (else None)."""
    kind = type(transport)
    writes = _WRITES_NOW.get(kind)
    if writes is None:
        writes = _WRITES_NOW[kind] = (
            isinstance(transport, WritesNow),
            isinstance(transport, WritesNow) and isinstance(transport, WritesLines),
        )
    now = cast("WritesNow", transport).write_now if writes[0] else None
    return now, cast("WritesLines", transport).write_line if writes[1] else None


class PeerWrites:
    """A connection's writes: the session's queued frames to the transport, in order."""

    def __init__(self, session: Session, transport: Transport) -> None:
        self.session = session
        self._transport = transport
        self._write_now, self._write_line = _writes_of(transport)
        self._write_lock = asyncio.Lock()
        self._writers = 0
        """Writes holding or awaiting ``_write_lock`` (one counter read, not a call)."""
        self._closed: ConnectionClosed | None = None

    @property
    def transport(self) -> Transport:
        """The transport this connection reads and writes."""
        return self._transport

    @transport.setter
    def transport(self, transport: Transport) -> None:
        """Serve another transport from now on (a reused stateless connection)."""
        self._transport = transport
        self._write_now, self._write_line = _writes_of(transport)

    async def flush(self) -> None:
        """Write every frame the session has queued, in order (after any write under way).

        Each frame is written with the id of the peer's request whose handler is running
        (None outside handlers), so a transport with several streams (Streamable HTTP) can
        send a handler's notifications and requests on that request's stream.
        """
        pending = self.flush_now()
        if pending is not None:
            await pending

    def flush_now(self) -> Coroutine[Any, Any, None] | None:
        """Write what the session queued by plain calls where the transport writes at once
        and no write is under way: None, or what to await for the rest (awaited at once by
        the caller: the order of frames rests on it)."""
        if self._writers:  # a write under way: ours queue behind it
            return self._write(self.session.messages_to_send())
        write_now = self._write_now
        if write_now is None:
            return self._write(self.session.messages_to_send()) if self.session.has_output else None
        messages = self.session.messages_to_send()
        for index, message in enumerate(messages):
            if self._closed is not None:
                return None
            try:
                full = write_now(message)
            except ConnectionClosed as exc:
                self._close_with(exc)
                return None
            if full is not None:  # the pipe is full: the rest waits until it drained
                return self._write(messages[index + 1 :], full)
        return None

    def answer_now(self, request_id: RequestId, result: Any) -> Coroutine[Any, Any, None] | None:
        """Answer the peer's request and write the answer by plain calls: encoded once into
        its line and handed to the transport's ``write_line`` where the transport takes lines
        and nothing is queued or being written (else queued and flushed). None, or what to
        await at once for the rest (a full pipe). Raises ``LocalProtocolError`` when ``result``
        cannot be encoded (nothing sent: the request is still to answer)."""
        write_line = self._write_line
        if write_line is None or self._writers or self._closed is not None:
            self.session.send_response(request_id, result)
            return self.flush_now()
        line = self.session.answer_line(request_id, result)
        if line is None:  # queued (behind others, in a batch) or dropped (cancelled)
            return self.flush_now()
        try:
            full = write_line(line)
        except ConnectionClosed as exc:
            self._close_with(exc)
            return None
        return None if full is None else self._write([], full)

    async def _write(
        self, messages: list[Outbound], full: Coroutine[Any, Any, None] | None = None
    ) -> None:
        """Write ``messages`` under the lock, after ``full`` (a full pipe draining)."""
        related = CURRENT_REQUEST.get()
        self._writers += 1
        try:
            async with self._write_lock:
                if full is not None:
                    try:
                        await full
                    except ConnectionClosed as exc:
                        self._close_with(exc)
                        return
                for message in messages:
                    if self._closed is not None:
                        return
                    try:
                        await self._transport.write(message, related)
                    except ConnectionClosed as exc:
                        self._close_with(exc)
                        return
                    except SessionExpired as exc:
                        self._expired(message, exc)
        finally:
            self._writers -= 1

    @property
    def flush_due(self) -> bool:
        """Whether ``flush`` has work: frames queued, or a write under way to wait for."""
        return self.session.has_output or self._writers > 0

    def _close_with(self, error: ConnectionClosed) -> None:
        """The connection is closed (the peer's reaction: ``Peer`` fails what is pending)."""
        raise NotImplementedError

    def _expired(self, message: Outbound, error: SessionExpired) -> None:
        """A frame met an expired session (``Peer`` fails the request it carried)."""
        raise NotImplementedError
