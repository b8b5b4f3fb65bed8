# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Newline-delimited frames over pipes, pushed to their reader as the bytes arrive.

``LineReader`` is the read side's asyncio protocol: ``data_received`` splits the bytes into
frames and hands each straight to the reader's ``take`` (``Transport.pump``), so a frame costs
no turn of the event loop between the pipe and the session. A frame whose ``take`` waits (a
full output pipe, a notification handler that awaits) holds the next ones in a queue; when the
queue holds ``QUEUED_FRAMES`` frames or ``QUEUED_BYTES`` bytes, reading pauses until it empties,
so a slow or stuck reader never grows memory. A line longer than the frame limit is dropped as
it arrives (never buffered whole) and stands as one refused frame. A reader that pulls
(``read()``) gets the same queue.

A write goes to the pipe transport at once and waits only while the pipe's buffer is over its
high-water mark (``pipe_ends.PipeWriter``, the write side's protocol). While the reader takes
the several frames of one read, the transport gathers the answers written and writes them as
one when the read is done, or once they reach ``CORKED_BYTES``, or with the next frame that is
not an answer (a notification, a request: never held back): one write per read, not per answer.
``LineTransport`` is the ``Transport`` over the two; its ``write_now`` (``WritesNow``) writes
without a coroutine and hands back what to wait for only when the pipe is full, and its
``write_line`` (``WritesLines``) takes a frame already encoded with its newline (an answer:
encoded once, into the line written). Its
``pipe_end`` (``HasPipeEnd``) is the pipe's own write, for a writer of frames as bytes that
makes no call between itself and the pipe (the bridge's relay).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, NamedTuple, Protocol, cast, runtime_checkable

from ..core.transport import ConnectionClosed, RelatedId, Taker
from ..core.wire import Inbound, Outbound, too_large
from .pipe_ends import READ_CHUNK, Pausable, PipeWriter, Sink

QUEUED_FRAMES: Final = 256
"""Frames received and not yet taken at which reading pauses."""
QUEUED_BYTES: Final = 1024 * 1024
"""Bytes of frames received and not yet taken at which reading pauses."""
CORKED_BYTES: Final = 64 * 1024
"""Bytes of answers gathered while the frames of one read are taken, at which they are
written (asyncio's high-water mark of a pipe: past it, writers wait as without gathering)."""


Frame = bytes | Inbound


class Corks(Protocol):
    """A writer that can gather answers for a while and send them as one (``LineTransport``)."""

    def cork(self) -> None:
        """Gather answers from now on (up to ``CORKED_BYTES``)."""
        ...

    def uncork(self) -> None:
        """Write what was gathered, in one write, and write at once again."""
        ...


class LineReader(asyncio.Protocol):
    """Splits a byte stream into frames (lines) and pushes or queues them for its reader."""

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._skipped: int | None = None
        """Bytes of the oversize line being dropped (None: no line is being dropped)."""
        self._queue: collections.deque[Frame] = collections.deque()
        self._queued_bytes = 0
        self._eof = False
        self._waiter: asyncio.Future[None] | None = None
        self._take: Taker | None = None
        self._busy = False
        """Whether a frame's ``take`` is still waiting (the next frames wait for it)."""
        self._free: Taker | None = None
        """``take`` while it may take a frame at once (not waiting, nothing queued), else None."""
        self._pumped: asyncio.Future[None] | None = None
        self._pipe: Pausable | None = None
        self._paused = False
        self.corks: Corks | None = None
        """Where the writes made while several frames of one read are taken are gathered
        (the transport writing the answers), to leave in one write."""

    # -- the pipe's side -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the read transport, to pause and resume it (uvloop's pipe transports are no
        ``asyncio.ReadTransport``: what they can do decides)."""
        if isinstance(transport, Pausable):
            self._pipe = transport
            if hasattr(transport, "max_size"):  # asyncio's own pipe transport (not uvloop's)
                cast(Any, transport).max_size = READ_CHUNK

    def read_by(self, feed: Pausable) -> None:
        """Take ``feed`` (not a pipe transport) as what to pause and resume."""
        self._pipe = feed

    def data_received(self, data: bytes) -> None:
        """Split ``data`` into frames; push or queue each complete one."""
        buffer = self._buffer
        if self._skipped is None and not buffer:
            line, newline, rest = data.partition(b"\n")  # (no argument parsing, unlike find)
            if newline and not rest and len(line) <= self.max_frame:  # one whole line: most reads
                line = line.strip()
                if not line:
                    return
                take = self._free
                if take is None:
                    self._frame(line)
                    return
                try:  # the reader is free: taken at once (``_run``, one call less per frame)
                    waiting = take(line)
                except Exception as exc:  # the reader stopped (its connection closed)
                    self._stop(exc)
                    return
                if waiting is not None:
                    self._hold(waiting)
                return
        if self._skipped is not None:
            end = data.find(b"\n")
            if end < 0:
                self._skipped += len(data)
                return
            self._frame(too_large(self._skipped + end + 1, self.max_frame))
            self._skipped = None
            data = data[end + 1 :]
        if buffer:
            if b"\n" not in data:
                buffer += data
                if len(buffer) > self.max_frame:
                    self._skip_buffer()
                return
            data = bytes(buffer) + data
            buffer.clear()
        lines = data.split(b"\n")
        tail = lines.pop()
        corks = self.corks if len(lines) > 1 else None
        if corks is not None:  # the answers to these frames leave in one write
            corks.cork()
        try:
            for line in lines:
                if len(line) > self.max_frame:
                    self._frame(too_large(len(line) + 1, self.max_frame))
                    continue
                line = line.strip()
                if line:
                    self._frame(line)
        finally:
            if corks is not None:
                corks.uncork()
        if tail:
            buffer += tail
            if len(buffer) > self.max_frame:
                self._skip_buffer()

    def _skip_buffer(self) -> None:
        """The line being read is over the limit: drop what we have and the rest as it comes."""
        self._skipped = len(self._buffer)
        self._buffer.clear()

    def eof_received(self) -> bool:
        """The peer closed its end: what remains without a newline is the last frame."""
        self._ended()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone (closed or failed): the input ends."""
        self._ended()

    def _ended(self) -> None:
        if self._eof:
            return
        if self._skipped is not None:
            self._frame(too_large(self._skipped, self.max_frame))
            self._skipped = None
        tail = bytes(self._buffer).strip()
        self._buffer.clear()
        if tail:
            self._frame(tail)
        self._eof = True
        self._wake()
        self._settle()

    # -- the reader's side -----------------------------------------------------------------

    @property
    def queued(self) -> int:
        """Frames received and not yet taken (or read)."""
        return len(self._queue)

    def _frame(self, frame: Frame) -> None:
        """Hand one frame to the pump at once, or queue it (pausing the pipe when full)."""
        if self._free is not None:
            self._run(frame)
            return
        self._queue.append(frame)
        if isinstance(frame, bytes):
            self._queued_bytes += len(frame)
        self._wake()
        if not self._paused and (
            len(self._queue) >= QUEUED_FRAMES or self._queued_bytes >= QUEUED_BYTES
        ):
            self._pause(True)

    def _pop(self) -> Frame:
        frame = self._queue.popleft()
        if isinstance(frame, bytes):
            self._queued_bytes -= len(frame)
        if not self._queue:
            if not self._busy:
                self._free = self._take
            if self._paused:
                self._pause(False)
        return frame

    def _pause(self, paused: bool) -> None:
        pipe = self._pipe
        if pipe is not None and not pipe.is_closing():
            if paused:
                pipe.pause_reading()
            else:
                pipe.resume_reading()
        self._paused = paused

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def read(self) -> Frame | None:
        """The next frame, or None once the input ended and every frame was read."""
        while not self._queue:
            if self._eof:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._pop()

    async def pump(self, take: Taker) -> None:
        """Hand every frame to ``take`` as it arrives, in order, until the input ends."""
        if self._take is not None:
            raise RuntimeError("this stream is already pumped")
        self._take = take
        self._pumped = asyncio.get_running_loop().create_future()
        try:
            self._next()
            await self._pumped
        finally:
            self._take = self._free = None
            self._pumped = None

    def _run(self, frame: Frame) -> None:
        """Take one frame; if its ``take`` waits, hold the next frames until it is done."""
        take = self._take
        assert take is not None
        try:
            waiting = take(frame)
        except Exception as exc:  # the reader stopped (its connection closed): pumping ends
            self._stop(exc)
            return
        if waiting is not None:
            self._hold(waiting)

    def _hold(self, waiting: asyncio.Future[None]) -> None:
        """A frame's ``take`` waits: the next frames wait until it is done."""
        self._busy = True
        self._free = None
        waiting.add_done_callback(self._taken)

    def _taken(self, done: asyncio.Future[None]) -> None:
        self._busy = False
        if not done.cancelled() and done.exception() is not None:
            self._stop(done.exception())
            return
        self._next()

    def _next(self) -> None:
        """Take queued frames until one waits or none is left."""
        while self._queue and not self._busy and self._take is not None:
            self._run(self._pop())
        self._free = self._take if not self._busy and not self._queue else None
        self._settle()

    def _settle(self) -> None:
        """End the pump once the input ended and every frame was taken."""
        if self._eof and not self._queue and not self._busy:
            self._stop(None)

    def _stop(self, error: BaseException | None) -> None:
        pumped = self._pumped
        self._take = self._free = None
        if pumped is None or pumped.done():
            return
        if error is None:
            pumped.set_result(None)
        else:
            pumped.set_exception(error)


@runtime_checkable
class WritesNow(Protocol):
    """A transport that writes a message at once, outside a coroutine (``LineTransport``)."""

    def write_now(self, message: Outbound | bytes) -> Coroutine[Any, Any, None] | None:
        """Write ``message`` (or a frame as bytes) now: None, or (the pipe full) what to await
        before the next write."""
        ...


@runtime_checkable
class WritesLines(Protocol):
    """A transport of newline-delimited frames that takes a frame as its line, at once
    (``LineTransport``): an answer encoded with its newline goes out with no copy or layer."""

    def write_line(self, line: bytes, answer: bool = True) -> Coroutine[Any, Any, None] | None:
        """Write one frame's line (its newline included) now, as ``write_now`` does."""
        ...


WRITE_GONE: Final = (ConnectionError, OSError, RuntimeError)
"""What a pipe end's ``write`` may raise once the peer is gone or the pipe closed (uvloop's
pipe transport raises ``RuntimeError`` once closed; asyncio's drops the bytes)."""


class Flow(Protocol):
    """Whether a pipe's buffer is over its high-water mark (``PipeWriter``)."""

    @property
    def paused(self) -> bool:
        """Yes: a writer waits (``PipeEnd.full``) before its next write."""
        ...


class _NeverFull:
    """The flow of a sink that is never full (a regular file)."""

    paused = False


class PipeEnd(NamedTuple):
    """A pipe written with no layer between (``LineTransport.pipe_end``).

    ``write`` is the sink's own: the frame and its newline in one call, written at once
    (never gathered by ``cork``), dropped or raising one of ``WRITE_GONE`` once the peer is
    gone. While ``flow.paused``, the writer waits for ``full()`` before its next write.
    """

    write: Callable[[bytes], object]
    flow: Flow
    full: Callable[[], Awaitable[None]]


@runtime_checkable
class HasPipeEnd(Protocol):
    """A transport whose pipe can be written with no layer between (``LineTransport``)."""

    def pipe_end(self) -> PipeEnd:
        """The pipe's own write, its flow, and what to wait for while it is full."""
        ...


class LineTransport:
    """Newline-delimited JSON frames: a ``LineReader`` in, a pipe (or file) out."""

    def __init__(self, reader: LineReader, sink: Sink, flow: PipeWriter | None = None) -> None:
        self._reader = reader
        self._sink = sink
        self._flow = flow
        self._closed = False
        self._corked: list[bytes] | None = None
        """The lines of the answers gathered to write as one (while the reader takes the
        frames of one read)."""
        self._corked_bytes = 0
        reader.corks = self

    async def read(self) -> bytes | Inbound | None:
        """Return the next non-empty line without its newline; None once the peer closed.

        A line longer than the limit is skipped unread and stands as a refused frame.
        """
        return await self._reader.read()

    async def pump(self, take: Taker) -> None:
        """Hand every frame to ``take`` as it arrives (see ``Transport.pump``)."""
        await self._reader.pump(take)

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """Write one message (or a frame made by hand) and its newline; wait if the pipe is full."""
        full = self.write_now(message)
        if full is not None:
            await full

    def write_now(self, message: Outbound | bytes) -> Coroutine[Any, Any, None] | None:
        """Write one message and its newline at once: None, or (the pipe full) what to await
        before the next write. Raises ``ConnectionClosed`` when the peer is gone."""
        if isinstance(message, bytes):
            return self.write_line(message + b"\n", False)
        return self.write_line(message.data + b"\n", message.kind == "response")

    def write_line(self, line: bytes, answer: bool = True) -> Coroutine[Any, Any, None] | None:
        """Write one frame's line (its newline included) at once: None, or (the pipe full)
        what to await before the next write. While answers are gathered (``cork``), an
        ``answer`` waits for the others; anything else takes them along. Raises
        ``ConnectionClosed`` when the peer is gone."""
        if self._closed:
            raise ConnectionClosed("the transport is closed")
        sink = self._sink
        if sink.is_closing():
            raise ConnectionClosed("the peer closed the pipe")
        corked = self._corked
        if corked is not None:
            corked.append(line)
            self._corked_bytes += len(line)
            if answer and self._corked_bytes < CORKED_BYTES:
                return None
            line = b"".join(corked)
            corked.clear()
            self._corked_bytes = 0
        try:
            sink.write(line)
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"the peer closed the pipe: {exc}") from None
        flow = self._flow
        if flow is not None and flow.paused:
            return self._drained(flow)
        return None

    def pipe_end(self) -> PipeEnd:
        """The sink's own write, its flow, and what to wait for while it is full (for a
        writer of frames as bytes only: answers given as ``Outbound`` are gathered by ``cork``,
        which these writes would overtake)."""
        flow = self._flow
        if flow is None:
            return PipeEnd(self._sink.write, _NeverFull(), _never_full)
        return PipeEnd(self._sink.write, flow, lambda: self._drained(flow))

    def cork(self) -> None:
        """Gather the answers written from now on, to write them as one (``uncork``)."""
        if self._corked is None:
            self._corked = []
            self._corked_bytes = 0

    def uncork(self) -> None:
        """Write the frames gathered since ``cork``, as one write; write at once again.

        A failed write closes the pipe: the next write raises ``ConnectionClosed``."""
        corked, self._corked = self._corked, None
        if corked and not self._closed and not self._sink.is_closing():
            with contextlib.suppress(ConnectionError, OSError):
                self._sink.write(b"".join(corked))

    async def _drained(self, flow: PipeWriter) -> None:
        """Wait until the pipe's buffer drained (raises ``ConnectionClosed`` if it closed)."""
        await flow.drained()
        if self._sink.is_closing():
            raise ConnectionClosed("the peer closed the pipe")

    def negotiated(self, version: str) -> None:
        """Nothing to do: newline-delimited JSON carries no version."""

    async def close(self) -> None:
        """Close the writing side (the peer sees end of input) once what is buffered is out."""
        if self._closed:
            return
        self.uncork()  # what was gathered goes out before the end
        self._closed = True
        with contextlib.suppress(ConnectionError, OSError):
            self._sink.close()
            if self._flow is not None:
                await self._flow.gone


async def _never_full() -> None:
    """Nothing to wait for: a regular file is never full."""
