"""Shared pieces of the 2026-07-28 tests: a client answering input requests, a handshake server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec

from generated._runtime.core.events import Request
from generated._runtime.core.transport import RelatedId, Transport
from generated._runtime.core.wire import Inbound, Outbound
from generated._runtime.roles.server import RequestContext
from generated._runtime.transports.memory import memory_pair
from generated.v2025_11_25 import Client as HandshakeClient
from generated.v2026_07_28 import Client
from generated.v2026_07_28 import types as t
from tests.support.era_fixture_server import EchoHandshake, FixtureServer

__all__ = ["EchoHandshake", "FixtureServer", "HandshakeClient"]


class EraClient(Client):
    """Answers every input request (form fields get ``<field>-answer``) and records it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(name="era-test-client", version="1.2.3", **kwargs)
        self.asked: list[str] = []
        self.notes: list[tuple[str, Any]] = []

    async def on_elicit(self, params: Any, ctx: RequestContext) -> t.ElicitResult:
        self.asked.append("elicitation/create")
        schema = getattr(params, "requested_schema", None)
        fields = list(getattr(schema, "properties", {}) or {})
        return t.ElicitResult(action="accept", content={f: f"{f}-answer" for f in fields})

    async def on_create_message(self, params: Any, ctx: RequestContext) -> t.CreateMessageResult:
        self.asked.append("sampling/createMessage")
        return t.CreateMessageResult(
            role="assistant", content=t.TextContent(text="Paris"), model="m"
        )

    async def on_list_roots(self, params: Any, ctx: RequestContext) -> t.ListRootsResult:
        self.asked.append("roots/list")
        return t.ListRootsResult(roots=[t.Root(uri="file:///work", name="work")])

    async def on_notification(self, method: str, params: Any) -> None:
        self.notes.append((method, params))


class Recorder:
    """A transport wrapper that keeps every frame written and read (decoded)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.sent: list[Any] = []
        self.received: list[Any] = []

    async def read(self) -> bytes | Inbound | None:
        """The next frame, recorded."""
        frame = await self.inner.read()
        if isinstance(frame, bytes):
            self.received.append(msgspec.json.decode(frame))
        return frame

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        """Record and pass on."""
        self.sent.append(msgspec.json.decode(message.data))
        await self.inner.write(message, related)

    def negotiated(self, version: str) -> None:
        """Pass on the version."""
        self.inner.negotiated(version)

    async def close(self) -> None:
        """Close the inner transport."""
        await self.inner.close()


@contextlib.asynccontextmanager
async def served(*servers: Any) -> AsyncIterator[Recorder]:
    """A memory connection whose server end serves ``servers``; yields the client end, recorded."""
    client_end, server_end = memory_pair()
    task = asyncio.create_task(servers[0].serve(server_end, *servers[1:]))
    try:
        yield Recorder(client_end)
    finally:
        await client_end.close()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


def request_event(method: str) -> Request:
    """A request event for calling handlers directly."""
    return Request(1, method, None)
