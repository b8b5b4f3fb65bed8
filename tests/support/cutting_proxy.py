"""A TCP proxy on real loopback sockets that cuts SSE streams in the middle of an event.

Bytes go through unchanged both ways. In what the server sends, every ``data: {`` (the start
of an SSE event carrying a message) is a place to cut: a response is cut at its k-th
one, mid-line (part of the event passed, the rest never), with k drawn for each response
(``HTTP/1.1`` status line) from ``CUT_AT`` (None: not cut). Both sockets are then closed,
as a dropped connection would be.
"""

from __future__ import annotations

import asyncio
import random
from typing import Final

from tests.support.loopback_proxy import LoopbackProxy

CUT_AT: Final = (1, 2, 2, 3, 3, None, None)
"""The k-th event of a connection at which it is cut, drawn uniformly per connection."""
MARK: Final = b"data: {"
RESPONSE: Final = b"HTTP/1.1 "


class CuttingProxy(LoopbackProxy):
    """Forwards 127.0.0.1:``port`` to ``target``, cutting SSE events (see the module)."""

    def __init__(self, target_port: int, seed: int = 9) -> None:
        super().__init__(target_port)
        self.random = random.Random(seed)
        self.cuts = 0
        """Connections cut so far."""
        self.connections = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        tasks = [
            asyncio.create_task(self._pipe(reader, up_writer, cut=False)),
            asyncio.create_task(self._pipe(up_reader, writer, cut=True)),
        ]
        self._tasks.update(tasks)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
                self._tasks.discard(task)
            for each in (writer, up_writer):
                each.close()

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, cut: bool
    ) -> None:
        """Copy until EOF; with ``cut``, stop inside the k-th event of some response."""
        cut_at, offset, seen, tail = self._draw(), 0, 0, b""
        while chunk := await reader.read(65536):
            if cut:
                window, base = tail + chunk, len(tail)
                marks = sorted(
                    [(at, "event") for at in _find_all(window, MARK)]
                    + [(at, "response") for at in _find_all(window, RESPONSE)]
                )
                for at, kind in marks:
                    if at + len(MARK if kind == "event" else RESPONSE) <= base:
                        continue  # wholly in the tail: seen with the previous chunk
                    if kind == "response":
                        cut_at, offset, seen = self._draw(), self.random.randrange(1, 12), 0
                        continue
                    seen += 1
                    if seen == cut_at:
                        writer.write(chunk[: max(at - base + len(MARK) + offset, 0)])
                        await writer.drain()
                        self.cuts += 1
                        return
                tail = window[-(len(RESPONSE) - 1) :]
            writer.write(chunk)
            await writer.drain()

    def _draw(self) -> int | None:
        return self.random.choice(CUT_AT)


def _find_all(data: bytes, mark: bytes) -> list[int]:
    found, at = [], data.find(mark)
    while at != -1:
        found.append(at)
        at = data.find(mark, at + 1)
    return found
