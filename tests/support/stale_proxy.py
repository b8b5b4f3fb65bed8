"""A loopback HTTP/1.1 proxy that can hang up on a request instead of forwarding it: the
stale keep-alive race (a server closing an idle connection as a request is written into it),
made to happen on purpose.

Each client connection gets its own connection to the target; requests (a head and a
``Content-Length`` body) are forwarded one by one and the answers piped back unchanged.
``hang_up`` arms one hang-up: ``"reused"`` for the next request that is not the first on its
connection, ``"fresh"`` for the next first request of a connection, ``"head"`` for the next
reused one but after sending the start of a response head. The request hung up on never
reaches the target.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from tests.support.loopback_proxy import LoopbackProxy

HangUp = Literal["reused", "fresh", "head"]
PARTIAL_HEAD = b"HTTP/1.1 200 OK\r\nContent-"


class StaleProxy(LoopbackProxy):
    """Forwards 127.0.0.1:``port`` to ``target_port`` request by request (see the module)."""

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self.hang_up: HangUp | None = None
        self.forwarded = 0
        """Requests that reached the target."""
        self.hung_up = 0
        """Requests hung up on (never forwarded)."""

    def _hangs_up(self, first: bool) -> HangUp | None:
        """The armed hang-up if it takes this request (disarmed then), else None."""
        armed = self.hang_up
        if armed is None or (armed == "fresh") != first:
            return None
        self.hang_up, self.hung_up = None, self.hung_up + 1
        return armed

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream: asyncio.StreamWriter | None = None
        count = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                body = await reader.readexactly(_content_length(head))
                count += 1
                taken = self._hangs_up(count == 1)
                if taken is not None:
                    if taken == "head":
                        writer.write(PARTIAL_HEAD)
                        await writer.drain()
                    return
                if upstream is None:
                    up_reader, upstream = await asyncio.open_connection(
                        "127.0.0.1", self.target_port
                    )
                    pipe = asyncio.create_task(_pipe(up_reader, writer))
                    self._tasks.add(pipe)
                    pipe.add_done_callback(self._tasks.discard)
                upstream.write(head + body)
                await upstream.drain()
                self.forwarded += 1
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            for each in (writer, upstream):
                if each is not None:
                    each.close()


def _content_length(head: bytes) -> int:
    """The ``Content-Length`` of a request head (0 without one)."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy the target's answers to the client until either side ends."""
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()
