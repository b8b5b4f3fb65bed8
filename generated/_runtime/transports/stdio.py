# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The stdio transport: newline-delimited UTF-8 JSON over a subprocess's stdin and stdout.

Server side: ``stdio_server()`` reads this process's stdin and writes its stdout, after moving
file descriptor 1 to stderr so nothing but MCP ever reaches stdout. Client side:
``spawn_server(...)`` starts the server as a subprocess (its stderr passes through) and on
close runs the spec's shutdown sequence: close stdin, wait, SIGTERM, wait, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..core.transport import ConnectionClosed, RelatedId
from ..core.wire import Inbound, Outbound, too_large

DEFAULT_MAX_FRAME: Final = 16 * 1024 * 1024
"""Largest frame read, in bytes; a longer line is discarded and reported as oversize."""
EXIT_WAIT_S: Final = 1.0
"""How long the client waits, once the server's output ends, to learn its exit code."""
SHUTDOWN_GRACE_S: Final = 2.0
"""How long the client waits after each shutdown step before the next, harder one."""


class StreamTransport:
    """Newline-delimited JSON frames over an asyncio reader and writer."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter | Any,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._max_frame = max_frame
        self._closed = False
        self._pipe: asyncio.WriteTransport | None = (
            writer.transport if isinstance(writer, asyncio.StreamWriter) else None
        )
        """The writer's pipe: a write it took whole needs no ``drain`` (nothing to wait for)."""

    async def read(self) -> bytes | Inbound | None:
        """Return the next non-empty line without its newline; None once the peer closed.

        A line longer than the limit is skipped unread and stands as a refused frame.
        """
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                tail = exc.partial.strip()
                return tail or None
            except asyncio.LimitOverrunError:
                return await self._skip_oversize()
            except (ConnectionError, OSError):
                return None
            line = line.strip()
            if line:
                return line

    async def _skip_oversize(self) -> Inbound:
        """Drop the rest of an oversize line; return it as a frame refused for its size."""
        size = 0
        while True:
            try:
                size += len(await self._reader.readuntil(b"\n"))
                break
            except asyncio.LimitOverrunError as exc:
                size += len(await self._reader.readexactly(exc.consumed))
            except asyncio.IncompleteReadError as exc:
                size += len(exc.partial)
                break
        return too_large(size, self._max_frame)

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """Write one message (or a frame made by hand) and its newline; wait if the pipe is full."""
        if self._closed:
            raise ConnectionClosed("the transport is closed")
        data = message if isinstance(message, bytes) else message.data
        try:
            self._writer.write(data + b"\n")
            pipe = self._pipe
            if pipe is None or pipe.get_write_buffer_size() or pipe.is_closing():
                await self._writer.drain()  # buffered (a full pipe) or gone: wait, or raise
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"the peer closed the pipe: {exc}") from None

    def negotiated(self, version: str) -> None:
        """Nothing to do: newline-delimited JSON carries no version."""

    async def close(self) -> None:
        """Close the writing side (the peer sees end of input)."""
        if self._closed:
            return
        self._closed = True
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()


class _PipeWriter(asyncio.streams.FlowControlMixin):
    """Write-side protocol for stdout that, unlike the bare mixin, lets ``wait_closed`` work."""

    def __init__(self) -> None:
        super().__init__()
        self._gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        """Wake whoever waits for the pipe to close."""
        super().connection_lost(exc)
        if not self._gone.done():
            self._gone.set_result(None)

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        return self._gone


class _FileWriter:
    """Stands in for a StreamWriter when stdout is a regular file (writes barely block)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        """Write all of ``data``."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        """Nothing to wait for."""

    def close(self) -> None:
        """Close the file descriptor."""
        os.close(self._fd)

    async def wait_closed(self) -> None:
        """Nothing to wait for."""


def _is_stream(fd: int) -> bool:
    """Whether asyncio's pipe transports accept ``fd`` (a pipe, socket or character device)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _feed(fd: int, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
    """Read a regular file in a thread and hand its bytes to the event loop's reader."""
    while chunk := os.read(fd, 1 << 16):
        loop.call_soon_threadsafe(reader.feed_data, chunk)
    loop.call_soon_threadsafe(reader.feed_eof)


async def stdio_server(max_frame: int = DEFAULT_MAX_FRAME) -> StreamTransport:
    """Return a transport over this process's stdin/stdout; stray prints go to stderr.

    Pipes (the normal case) use asyncio's pipe transports; a regular file on either side
    (a recorded session replayed, output captured to a file) is read in a thread instead.
    """
    loop = asyncio.get_running_loop()
    in_fd, out_fd = sys.stdin.fileno(), os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    reader = asyncio.StreamReader(limit=max_frame + 1)
    if _is_stream(in_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        threading.Thread(target=_feed, args=(in_fd, reader, loop), daemon=True).start()
    writer: Any
    if _is_stream(out_fd):
        out = os.fdopen(out_fd, "wb", buffering=0)
        transport, protocol = await loop.connect_write_pipe(_PipeWriter, out)
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    else:
        writer = _FileWriter(out_fd)
    return StreamTransport(reader, writer, max_frame)


class SubprocessTransport(StreamTransport):
    """The client's end of a server started as a subprocess."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        max_frame: int,
        pipe_in: asyncio.ReadTransport | None = None,
    ) -> None:
        super().__init__(reader, writer, max_frame)
        self.process = process
        self._pipe_in = pipe_in

    async def read(self) -> bytes | Inbound | None:
        """Return the next frame; at end of output, wait a moment to learn the exit code."""
        frame = await super().read()
        if frame is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), EXIT_WAIT_S)
        return frame

    def exit_description(self) -> str:
        """Say how the server process ended, for error messages."""
        code = self.process.returncode
        return "is still running" if code is None else f"exited with code {code}"

    async def close(self) -> None:
        """Shut the server down: close its stdin, wait, SIGTERM, wait, SIGKILL."""
        await super().close()
        try:
            await self._stop()
        finally:
            if self._pipe_in is not None:
                self._pipe_in.close()

    async def _stop(self) -> None:
        proc = self.process
        for step in (None, proc.terminate, proc.kill):
            if proc.returncode is not None:
                return
            if step is not None:
                try:
                    step()
                except ProcessLookupError:
                    return
            try:
                await asyncio.wait_for(proc.wait(), SHUTDOWN_GRACE_S)
            except TimeoutError:
                continue


async def spawn_server(
    command: str,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    max_frame: int = DEFAULT_MAX_FRAME,
) -> SubprocessTransport:
    """Start an MCP server over stdio; its stderr is passed through to ours.

    The pipes are our own, read and written by asyncio's pipe transports directly: a
    subprocess's own pipes hand every chunk read through one more turn of the event loop.
    """
    loop = asyncio.get_running_loop()
    their_stdin, our_out = os.pipe()
    our_in, their_stdout = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            command,
            *args,
            stdin=their_stdin,
            stdout=their_stdout,
            stderr=None,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
    except OSError as exc:
        os.close(our_out)
        os.close(our_in)
        raise ConnectionClosed(f"cannot start MCP server {command!r}: {exc}") from None
    finally:
        os.close(their_stdin)
        os.close(their_stdout)
    reader = asyncio.StreamReader(limit=max_frame + 1)
    pipe_in, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(our_in, "rb", buffering=0)
    )
    pipe_out, protocol = await loop.connect_write_pipe(
        _PipeWriter, os.fdopen(our_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(pipe_out, protocol, None, loop)
    return SubprocessTransport(process, reader, writer, max_frame, pipe_in)
