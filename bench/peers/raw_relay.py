"""The bridge's floor: a minimal NDJSON relay between this process's stdio and a spawned server.

``python raw_relay.py COMMAND [ARG ...]`` starts COMMAND on a pair of pipes and passes every
line that arrives on either side to the other, one write per line, as a relay of MCP messages
writes them; no message is read, checked or changed. It moves bytes as the bench peers and
``mcpgen bridge`` do (``raw_echo.run``, ``read_pipe``: uvloop when installed, else asyncio's
loop asking ``READ_CHUNK`` per read), so beside the raw echo pair it is the fastest honest
minimal implementation of one more process and hop: what a relay cannot avoid.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.peers.raw_echo import lines_of, read_pipe, run, spawn, write_pipe


class Forward(asyncio.Protocol):
    """Writes every complete line read to ``out``; sets ``done`` when its input ends."""

    def __init__(self, out: asyncio.WriteTransport, done: asyncio.Future[None]) -> None:
        self.out, self.done, self.buffer = out, done, bytearray()

    def data_received(self, data: bytes) -> None:
        """Pass on every complete line, one write each."""
        write = self.out.write
        for line in lines_of(self.buffer, data):
            write(line + b"\n")

    def connection_lost(self, exc: Exception | None) -> None:
        """The input ended."""
        if not self.done.done():
            self.done.set_result(None)


async def main(argv: tuple[str, ...]) -> None:
    """Relay this process's stdio to ``argv`` until either side's output ends."""
    loop = asyncio.get_running_loop()
    process, our_in, our_out = await spawn(argv)
    up = await write_pipe(our_out)
    down = await write_pipe(os.dup(sys.stdout.fileno()))
    client_done: asyncio.Future[None] = loop.create_future()
    server_done: asyncio.Future[None] = loop.create_future()
    await read_pipe(Forward(down, server_done), our_in)
    await read_pipe(Forward(up, client_done), os.dup(sys.stdin.fileno()))
    await asyncio.wait((client_done, server_done), return_when=asyncio.FIRST_COMPLETED)
    up.close()
    await process.wait()


if __name__ == "__main__":
    run(main(tuple(sys.argv[1:])))
