"""What the tests' loopback proxies share: listen on a free 127.0.0.1 port, track the tasks of
the connections they serve, and drop them all at close. A subclass says how to serve one."""

from __future__ import annotations

import asyncio


class LoopbackProxy:
    """A proxy to 127.0.0.1:``target_port``; subclasses define ``_serve`` for one connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen on a free port; return it."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError
