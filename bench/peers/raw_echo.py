"""The stdio floor: a minimal asyncio NDJSON client/server pair with msgspec, no MCP.

The server (run this file) reads newline-delimited ``tools/call`` requests from stdin with an
``asyncio.Protocol`` and writes one response line per request to stdout, decoded and encoded
by msgspec Structs of just the fields it reads and writes. ``RawClient`` is its counterpart:
a protocol on the read end of the server's stdout that resolves each call's future by ``id``,
writing one request line per call. Neither waits on a drain or copies through a stream
reader; each message is still written on its own, as an MCP peer writes it, so the pair is
the fastest honest minimal implementation of the exchange the stdio benchmarks time. They
move bytes as ours do: the server runs on uvloop when it is installed (``run``, the rule of
``run_stdio``), the client on the caller's loop; the pipes are plain ``os.pipe`` pairs read by
the loop's pipe transports asking ``READ_CHUNK`` per read on asyncio's loop (a subprocess's own
pipes would add a turn of the loop per read), as ``transports/stdio.py`` and ``lines.py`` do.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

READ_CHUNK = 64 * 1024
"""Bytes asked per read on asyncio's loop (what our ``LineReader`` asks; asyncio's 256 KiB
read buffer costs a mapping per read)."""


class Arguments(msgspec.Struct):
    """The echo tool's arguments."""

    text: str = ""


class Params(msgspec.Struct):
    """``tools/call`` params."""

    name: str
    arguments: Arguments = msgspec.field(default_factory=Arguments)


class Request(msgspec.Struct):
    """A request line (a line without an id is a notification, ignored)."""

    method: str
    id: int | str | None = None
    params: Params | None = None


class Text(msgspec.Struct):
    """A text content block."""

    type: str
    text: str


class Result(msgspec.Struct):
    """A ``tools/call`` result."""

    content: list[Text]


class Response(msgspec.Struct):
    """A response line."""

    jsonrpc: str
    id: int | str
    result: Result


class CallRequest(msgspec.Struct):
    """A request line the client writes."""

    jsonrpc: str
    id: int
    method: str
    params: Params


class Answer(msgspec.Struct):
    """A response line as the client reads it."""

    id: int
    result: Result


def lines_of(buffer: bytearray, data: bytes) -> list[bytes]:
    """The complete lines in ``buffer + data``; the incomplete tail stays in ``buffer``."""
    buffer += data
    end = buffer.rfind(b"\n")
    if end < 0:
        return []
    lines = bytes(buffer[:end]).split(b"\n")
    del buffer[: end + 1]
    return lines


def run(main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` on uvloop when it is installed, else on asyncio's loop (``run_blocking``)."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    with contextlib.suppress(ImportError):
        factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main)


async def read_pipe(protocol: asyncio.Protocol, fd: int) -> asyncio.ReadTransport:
    """Read ``fd`` into ``protocol``, ``READ_CHUNK`` bytes per read on asyncio's loop."""
    loop = asyncio.get_running_loop()
    pipe, _ = await loop.connect_read_pipe(lambda: protocol, os.fdopen(fd, "rb", buffering=0))
    if hasattr(pipe, "max_size"):  # asyncio's own pipe transport (uvloop has its own buffer)
        pipe.max_size = READ_CHUNK  # type: ignore[attr-defined]
    return pipe


async def write_pipe(fd: int) -> asyncio.WriteTransport:
    """A write transport on ``fd``."""
    loop = asyncio.get_running_loop()
    pipe, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(fd, "wb", buffering=0))
    return pipe


async def spawn(argv: tuple[str, ...]) -> tuple[asyncio.subprocess.Process, int, int]:
    """Start ``argv`` on two ``os.pipe`` pairs: the process, our read end, our write end."""
    their_stdin, our_out = os.pipe()
    our_in, their_stdout = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=their_stdin, stdout=their_stdout
        )
    finally:
        os.close(their_stdin)
        os.close(their_stdout)
    return process, our_in, our_out


class EchoServer(asyncio.Protocol):
    """Answers each request line read from stdin on ``out``."""

    def __init__(self, out: asyncio.WriteTransport, done: asyncio.Future[None]) -> None:
        self.out, self.done, self.buffer = out, done, bytearray()
        self.decode = msgspec.json.Decoder(Request).decode
        self.encode = msgspec.json.Encoder().encode

    def data_received(self, data: bytes) -> None:
        """Answer every complete request line."""
        for line in lines_of(self.buffer, data):
            request = self.decode(line)
            if request.id is None:
                continue
            text = request.params.arguments.text if request.params else ""
            answer = Response("2.0", request.id, Result([Text("text", text)]))
            self.out.write(self.encode(answer) + b"\n")

    def connection_lost(self, exc: Exception | None) -> None:
        """stdin closed: stop."""
        if not self.done.done():
            self.done.set_result(None)


async def main() -> None:
    """Serve stdin/stdout until stdin closes."""
    out = await write_pipe(os.dup(sys.stdout.fileno()))
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    await read_pipe(EchoServer(out, done), os.dup(sys.stdin.fileno()))
    await done


class RawClient(asyncio.Protocol):
    """The client half: ``await RawClient.spawn(argv)``, then ``await client.call(i, text)``."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[Result]] = {}
        self.buffer = bytearray()
        self.decode = msgspec.json.Decoder(Answer).decode
        self.encode = msgspec.json.Encoder().encode
        self.process: asyncio.subprocess.Process | None = None
        self.stdin: Any = None

    @classmethod
    async def spawn(cls, *argv: str) -> RawClient:
        """Start the server process ``argv`` with pipes to it."""
        client = cls()
        client.process, our_in, our_out = await spawn(argv)
        client.stdin = await write_pipe(our_out)
        await read_pipe(client, our_in)
        return client

    def data_received(self, data: bytes) -> None:
        """Resolve the call each complete response line answers."""
        for line in lines_of(self.buffer, data):
            answer = self.decode(line)
            self.waiting.pop(answer.id).set_result(answer.result)

    async def call(self, i: int, text: str, name: str = "echo") -> Result:
        """One ``tools/call`` round trip with id ``i``."""
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self.waiting[i] = future
        request = CallRequest("2.0", i, "tools/call", Params(name, Arguments(text)))
        self.stdin.write(self.encode(request) + b"\n")
        return await future

    def close(self) -> None:
        """End the server (closing its stdin)."""
        if self.stdin is not None:
            self.stdin.close()

    async def wait_closed(self) -> None:
        """Close, and wait for the server process to end."""
        self.close()
        if self.process is not None:
            await self.process.wait()


if __name__ == "__main__":
    run(main())
