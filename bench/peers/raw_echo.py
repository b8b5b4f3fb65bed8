"""The stdio floor: a minimal asyncio NDJSON client/server pair with msgspec, no MCP.

The server (run this file) reads newline-delimited ``tools/call`` requests from stdin with an
``asyncio.Protocol`` and writes one response line per request to stdout, decoded and encoded
by msgspec Structs of just the fields it reads and writes. ``RawClient`` is its counterpart:
a subprocess protocol that writes one request line per call and resolves the call's future by
``id``. Neither waits on a drain or copies through a stream reader; each message is still
written on its own, as an MCP peer writes it, so the pair is the fastest honest minimal
implementation of the exchange the stdio benchmarks time.

It runs under the rules our stdio peers run under: the server on uvloop when it is installed
(``run_blocking``, as ``run_stdio``), and every read pipe on asyncio's own loop (the server's,
and the client's on the benchmark's loop) asks ``READ_CHUNK`` bytes per read, as ours does.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, cast

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated._runtime.roles.running import run_blocking
from generated._runtime.transports.lines import READ_CHUNK


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


def read_chunk(transport: asyncio.BaseTransport) -> None:
    """Have asyncio's own read pipe transport ask ``READ_CHUNK`` bytes per read, as ours do."""
    if hasattr(transport, "max_size"):  # not uvloop's, which reads into a buffer of its own
        cast(Any, transport).max_size = READ_CHUNK


def lines_of(buffer: bytearray, data: bytes) -> list[bytes]:
    """The complete lines in ``buffer + data``; the incomplete tail stays in ``buffer``."""
    buffer += data
    end = buffer.rfind(b"\n")
    if end < 0:
        return []
    lines = bytes(buffer[:end]).split(b"\n")
    del buffer[: end + 1]
    return lines


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
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    done: asyncio.Future[None] = loop.create_future()
    pipe, _ = await loop.connect_read_pipe(lambda: EchoServer(out, done), sys.stdin)
    read_chunk(pipe)
    await done


class RawClient(asyncio.SubprocessProtocol):
    """The client half: ``await RawClient.spawn(argv)``, then ``await client.call(i, text)``."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[Result]] = {}
        self.buffer = bytearray()
        self.decode = msgspec.json.Decoder(Answer).decode
        self.encode = msgspec.json.Encoder().encode
        self.transport: asyncio.SubprocessTransport | None = None
        self.stdin: Any = None

    @classmethod
    async def spawn(cls, *argv: str) -> RawClient:
        """Start the server process ``argv`` with pipes to it."""
        loop = asyncio.get_running_loop()
        transport, client = await loop.subprocess_exec(
            cls, *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        client.transport, client.stdin = transport, transport.get_pipe_transport(0)
        read_chunk(transport.get_pipe_transport(1))
        return client

    def pipe_data_received(self, fd: int, data: bytes) -> None:
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
        """End the server (closing its stdin) and the transport."""
        if self.transport is not None:
            self.stdin.close()
            self.transport.close()


if __name__ == "__main__":
    run_blocking(main())
