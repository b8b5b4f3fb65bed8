# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The stdio transport: newline-delimited UTF-8 JSON over a subprocess's stdin and stdout.

Frames are pushed to the peer as the bytes arrive and written straight to the pipe
(``lines.py``).

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
from collections.abc import Mapping, Sequence
from typing import Final

from ..core.transport import ConnectionClosed, Taker
from ..core.wire import Inbound
from .lines import LineReader, LineTransport
from .pipe_ends import FileFeed, FileSink, PipeWriter

DEFAULT_MAX_FRAME: Final = 16 * 1024 * 1024
"""Largest frame read, in bytes; a longer line is discarded and reported as oversize."""
EXIT_WAIT_S: Final = 1.0
"""How long the client waits, once the server's output ends, to learn its exit code."""
SHUTDOWN_GRACE_S: Final = 2.0
"""How long the client waits after each shutdown step before the next, harder one."""


def _is_stream(fd: int) -> bool:
    """Whether asyncio's pipe transports accept ``fd`` (a pipe, socket or character device)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


async def stdio_server(max_frame: int = DEFAULT_MAX_FRAME) -> LineTransport:
    """Return a transport over this process's stdin/stdout; stray prints go to stderr.

    Pipes (the normal case) use asyncio's pipe transports; a regular file on either side
    (a recorded session replayed, output captured to a file) is read in a thread instead.
    """
    loop = asyncio.get_running_loop()
    in_fd, out_fd = sys.stdin.fileno(), os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    reader = LineReader(max_frame)
    if _is_stream(in_fd):
        await loop.connect_read_pipe(lambda: reader, sys.stdin)
    else:
        FileFeed(in_fd, reader, loop)
    if not _is_stream(out_fd):
        return LineTransport(reader, FileSink(out_fd))
    out = os.fdopen(out_fd, "wb", buffering=0)
    pipe, flow = await loop.connect_write_pipe(PipeWriter, out)
    return LineTransport(reader, pipe, flow)


class SubprocessTransport(LineTransport):
    """The client's end of a server started as a subprocess."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        reader: LineReader,
        pipe_out: asyncio.WriteTransport,
        flow: PipeWriter,
        pipe_in: asyncio.ReadTransport | None = None,
    ) -> None:
        super().__init__(reader, pipe_out, flow)
        self.process = process
        self._pipe_in = pipe_in

    async def read(self) -> bytes | Inbound | None:
        """Return the next frame; at end of output, wait a moment to learn the exit code."""
        frame = await super().read()
        if frame is None:
            await self._exited()
        return frame

    async def pump(self, take: Taker) -> None:
        """Push every frame to ``take``; at end of output, wait a moment to learn the exit code."""
        await super().pump(take)
        await self._exited()

    async def _exited(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), EXIT_WAIT_S)

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
    reader = LineReader(max_frame)
    pipe_in, _ = await loop.connect_read_pipe(lambda: reader, os.fdopen(our_in, "rb", buffering=0))
    pipe_out, flow = await loop.connect_write_pipe(
        PipeWriter, os.fdopen(our_out, "wb", buffering=0)
    )
    return SubprocessTransport(process, reader, pipe_out, flow, pipe_in)
