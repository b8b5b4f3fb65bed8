"""The two ends of a stdio pipe under ``lines.py``: what reads into a ``LineReader`` and what
the written bytes go to.

``FileFeed`` reads a regular file in a thread (asyncio's pipes refuse files); ``PipeWriter`` is
the write side's asyncio protocol (the pipe's buffer full, or gone); ``Sink`` is where written
bytes go, a pipe transport or a ``FileSink``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Final, Protocol, runtime_checkable

READ_CHUNK: Final = 64 * 1024
"""Bytes asked of the pipe per read by asyncio's own pipe transport (it asks 256 KiB).

Each read makes a bytes object of the size asked for and shrinks it: at 256 KiB the C library
maps and unmaps fresh memory every time, about 20 us per read (measured), more than the rest of
a small frame's trip through the pipe. uvloop reads into a buffer of its own and is left alone.
"""


@runtime_checkable
class Pausable(Protocol):
    """What feeds a ``LineReader``: a read pipe transport, or a thread reading a file."""

    def is_closing(self) -> bool:
        """Whether it is closed or closing."""
        ...

    def pause_reading(self) -> None:
        """Deliver nothing until ``resume_reading``."""
        ...

    def resume_reading(self) -> None:
        """Deliver again."""
        ...


class Fed(Protocol):
    """What a ``FileFeed`` reads into (a ``LineReader``)."""

    def read_by(self, feed: Pausable) -> None:
        """Pause and resume ``feed`` as the frames read are taken."""
        ...

    def data_received(self, data: bytes) -> None:
        """Bytes read."""
        ...

    def eof_received(self) -> bool | None:
        """The end of the file."""
        ...


class FileFeed:
    """Reads a regular file in a thread into a ``LineReader`` (asyncio's pipes refuse files).

    One chunk is in flight at a time, and none while the reader is paused.
    """

    def __init__(self, fd: int, reader: Fed, loop: asyncio.AbstractEventLoop) -> None:
        self._fd = fd
        self._reader = reader
        self._loop = loop
        self._ready = threading.Event()
        self._paused = False
        reader.read_by(self)
        self._ready.set()
        threading.Thread(target=self._feed, daemon=True).start()

    def _feed(self) -> None:
        while True:
            self._ready.wait()
            self._ready.clear()
            chunk = os.read(self._fd, READ_CHUNK)
            if not chunk:
                self._loop.call_soon_threadsafe(self._reader.eof_received)
                return
            self._loop.call_soon_threadsafe(self._deliver, chunk)

    def _deliver(self, chunk: bytes) -> None:
        self._reader.data_received(chunk)
        if not self._paused:
            self._ready.set()

    def is_closing(self) -> bool:
        """Never: the thread ends at end of file."""
        return False

    def pause_reading(self) -> None:
        """Read no more chunks until ``resume_reading``."""
        self._paused = True

    def resume_reading(self) -> None:
        """Go on reading."""
        self._paused = False
        self._ready.set()


class PipeWriter(asyncio.BaseProtocol):
    """The write side's protocol: tells writers when the pipe's buffer is full, and when gone."""

    def __init__(self) -> None:
        self.paused = False
        self._resumed: asyncio.Future[None] | None = None
        self.gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def pause_writing(self) -> None:
        """The pipe's buffer is over its high-water mark."""
        self.paused = True

    def resume_writing(self) -> None:
        """The buffer drained below its low-water mark: wake the writers."""
        self.paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone: wake the writers (they find it closing) and the closer."""
        self.resume_writing()
        if not self.gone.done():
            self.gone.set_result(None)

    async def drained(self) -> None:
        """Wait until the buffer drained (returns at once unless paused)."""
        while self.paused and not self.gone.done():
            if self._resumed is None:
                self._resumed = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._resumed)


class Sink(Protocol):
    """Where written bytes go: a pipe transport, or a regular file."""

    def write(self, data: bytes) -> None:
        """Write (or buffer) all of ``data``."""
        ...

    def is_closing(self) -> bool:
        """Whether the sink is closed or closing."""
        ...

    def close(self) -> None:
        """Close (after writing what is buffered)."""
        ...


class FileSink:
    """A regular file to write to (writes barely block)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._closed = False

    def write(self, data: bytes) -> None:
        """Write all of ``data``."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def is_closing(self) -> bool:
        """Whether ``close`` was called."""
        return self._closed

    def close(self) -> None:
        """Close the file descriptor."""
        if not self._closed:
            self._closed = True
            os.close(self._fd)
