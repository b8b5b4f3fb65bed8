# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The client side of the deprecated HTTP+SSE transport (protocol revision 2024-11-05).

One long GET receives an SSE stream whose first event, ``endpoint``, names the URL to POST
every client message to (each POST is answered 202); every server message arrives as a
``message`` event on that stream. The stream ending ends the connection (no resumption).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urljoin, urlsplit

from ...core.errors import MissingDependency
from ...core.transport import ConnectionClosed, RelatedId
from ...core.wire import Outbound, outbound
from .base import (
    EVENT_STREAM,
    JSON,
    NETWORK_ERRORS,
    HTTPTransportBase,
    media_type,
    read_body,
)
from .sse import SSEParser

try:
    import aiohttp
except ImportError:
    raise MissingDependency("aiohttp", "http", "the MCP HTTP client") from None


class HttpSseTransport(HTTPTransportBase):
    """A connection to a 2024-11-05 HTTP+SSE server: GET ``url`` for the stream, POST messages.

    The stream is opened by the first ``write`` (or ``open()``). The ``endpoint`` must have
    the origin of ``url``, so headers (a bearer token) never go to another host.
    """

    endpoint: str | None = None
    """The URL messages are POSTed to, once the server named it."""

    @classmethod
    def taking_over(cls, parent: HTTPTransportBase) -> HttpSseTransport:
        """An HTTP+SSE transport using ``parent``'s aiohttp session, headers and read queue."""
        taken = cls(
            parent.url, headers=parent.headers, http_client=parent._client(), auth=parent.auth
        )
        taken.timeout = parent.timeout
        taken._inbox = parent._inbox
        return taken

    async def open(self) -> None:
        """GET the SSE stream and wait (``timeout`` seconds at most) for its ``endpoint``."""
        self._check_open()
        if self.endpoint is not None:
            return
        headers = {**self.headers, "Accept": EVENT_STREAM}
        response = await self._send("GET", self.url, headers, stream=True)
        if response.status != 200 or media_type(response) != EVENT_STREAM:
            response.close()
            raise ConnectionClosed(
                f"GET {self.url} answered HTTP {response.status} "
                f"({media_type(response) or 'no body'}), not an SSE stream"
            )
        parser = SSEParser()
        chunks = response.content.iter_any()
        try:
            async with asyncio.timeout(self.timeout):
                endpoint = await self._endpoint_event(chunks, parser)
        except (*NETWORK_ERRORS, ConnectionClosed) as exc:
            response.close()
            if isinstance(exc, ConnectionClosed):
                raise
            raise ConnectionClosed(f"no endpoint event from {self.url}: {exc!r}") from None
        self.endpoint = endpoint
        self._spawn(self._listen(response, chunks, parser))

    async def _endpoint_event(self, chunks: AsyncIterator[bytes], parser: SSEParser) -> str:
        """Read until the first event; it must be ``endpoint``; return the URL it names."""
        while True:
            try:
                chunk = await anext(chunks)
            except StopAsyncIteration:
                closed = f"{self.url} closed the stream before its endpoint"
                raise ConnectionClosed(closed) from None
            events = parser.feed(chunk)
            if not events:
                continue
            first, rest = events[0], events[1:]
            if first.event != "endpoint":
                raise ConnectionClosed(f"the first event of {self.url} is not an endpoint")
            endpoint = urljoin(self.url, first.data.strip())
            if _origin(endpoint) != _origin(self.url):
                raise ConnectionClosed(f"endpoint {endpoint} is not on the origin of {self.url}")
            for event in rest:
                if event.event == "message" and event.data.strip():
                    self._deliver(event.data.encode())
            return endpoint

    async def _listen(
        self, response: aiohttp.ClientResponse, chunks: AsyncIterator[bytes], parser: SSEParser
    ) -> None:
        """Queue the stream's messages until it ends, which ends the connection."""
        try:
            async for chunk in chunks:
                for event in parser.feed(chunk):
                    if event.event == "message" and event.data.strip():
                        self._deliver(event.data.encode())
        except NETWORK_ERRORS:
            pass
        finally:
            response.close()
        self._fail(f"the server closed the SSE stream of {self.url}")

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """POST one message to the endpoint (opening the stream first if needed)."""
        self._check_open()
        message = outbound(message)
        if self.endpoint is None:
            await self.open()
        assert self.endpoint is not None
        headers = {**self.headers, "Content-Type": JSON, "Accept": f"{JSON}, {EVENT_STREAM}"}
        response = await self._send("POST", self.endpoint, headers, message.data)
        body = await read_body(response)
        status = response.status
        if status < 400:
            return
        if status in (404, 410):  # the server forgot the stream's session
            self._fail(f"POST {self.endpoint} answered HTTP {status}: the session is gone")
            raise ConnectionClosed(f"POST {self.endpoint} answered HTTP {status}")
        ids = list(message.ids) if message.kind == "request" else []
        if ids:
            self._error_answers(
                ids, status, response.reason or "", body, response.headers.get("www-authenticate")
            )

    def negotiated(self, version: str) -> None:
        """Nothing to do: the 2024-11-05 transport sends no version header."""

    async def close(self) -> None:
        """Close the stream (which ends the server's session) and our aiohttp session."""
        if not self._closing:
            self._closing = True
            await self._shutdown()


def _origin(url: str) -> tuple[str, str]:
    """The scheme and host:port of ``url``."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()
