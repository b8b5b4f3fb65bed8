"""The client's Streamable HTTP for 2026-07-28: one POST per request, no session (aiohttp).

``HttpChannel`` posts each request with ``MCP-Protocol-Version``, ``Mcp-Method``,
``Mcp-Name`` and the ``Mcp-Param-*`` headers of the tool's ``x-mcp-header`` annotations
(learned from ``tools/list``, where tools with invalid annotations are left out, as the spec
requires). The answer is JSON or SSE; notifications on an SSE answer go to the request's
handler (a listen stream's, a progress callback) or to the client's ``on_notification``.
A 4xx whose body is not a JSON-RPC error means the server is not modern (``LegacyServer``).
With ``auth`` (an ``OAuthClient``) every POST goes through it: it adds the token and
authorizes on 401, as for the older revisions' transport.
``connect_http_auto`` is the auto mode: probe, then the legacy clients on Streamable HTTP.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

import aiohttp
import msgspec

from ...core.errors import RemoteProtocolError
from ...core.frame_guard import decode_untyped
from ...core.transport import ConnectionClosed
from ...core.wire import as_object
from ...roles.modern_client import (
    DEFAULT_PROBE_TIMEOUT,
    Frame,
    LegacyServer,
    LegacyT,
    ModernT,
    OnNotification,
    connect_modern,
)
from ...roles.modern_connection import field, obj
from .base import HttpAuth
from .headers import InvalidToolHeaders, ParamHeader, param_headers, request_headers
from .sse import EventTooLarge, SSEParser

log = logging.getLogger(__name__)
_ENCODER: Final = msgspec.json.Encoder()
_ACCEPT: Final = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}


class HttpChannel:
    """A channel to one modern MCP endpoint: a POST per request, headers per the spec."""

    def __init__(
        self,
        url: str,
        on_notification: OnNotification,
        *,
        headers: Mapping[str, str] | None = None,
        http_client: aiohttp.ClientSession | None = None,
        auth: HttpAuth | None = None,
    ) -> None:
        self.url = url
        self.auth = auth
        """OAuth (``_runtime.auth.OAuthClient``): every POST goes through its ``send``."""
        self._on_notification = on_notification
        self._extra = dict(headers or {})
        self._client = http_client
        self._own_client = http_client is None
        self.tool_headers: dict[str, tuple[ParamHeader, ...]] = {}

    def _http(self) -> aiohttp.ClientSession:
        if self._client is None:
            self._client = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        return self._client

    async def call(
        self, frame: Frame, timeout: float | None, related: OnNotification | None
    ) -> Frame:
        """POST one request; return its response frame."""
        params = obj(frame.get("params"))
        version = str(field(params, "_meta", "io.modelcontextprotocol/protocolVersion") or "")
        method = str(frame["method"])
        name = str(params.get("name", ""))
        tool = self.tool_headers.get(name, ()) if method == "tools/call" else ()
        headers = {**_ACCEPT, **self._extra, **request_headers(version, method, params, tool)}
        try:
            async with asyncio.timeout(timeout):  # no extra task per call, unlike wait_for
                return await self._post(frame, headers, related)
        except aiohttp.ClientError as exc:
            raise ConnectionClosed(f"HTTP request failed: {exc}") from exc

    async def _raw(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, stream: bool
    ) -> aiohttp.ClientResponse:
        """Send one HTTP request as it is (``auth`` calls this, again after authorizing)."""
        return await self._http().request(method, url, headers=headers, data=body)

    async def _send(self, body: bytes, headers: dict[str, str]) -> aiohttp.ClientResponse:
        """POST ``body``, through ``auth`` when there is one."""
        if self.auth is None:
            return await self._raw("POST", self.url, headers, body, True)
        return await self.auth.send(self._http(), self._raw, "POST", self.url, headers, body, True)

    async def _post(
        self, frame: Frame, headers: dict[str, str], related: OnNotification | None
    ) -> Frame:
        async with await self._send(_ENCODER.encode(frame), headers) as rsp:
            kind = rsp.headers.get("content-type", "")
            if "text/event-stream" in kind:
                response = await self._read_sse(rsp, frame["id"], related)
            else:
                body = await rsp.read()
                try:
                    decoded = decode_untyped(body) if body else None
                except RemoteProtocolError:
                    decoded = None
                found = as_object(decoded)
                if found is None or ("result" not in found and "error" not in found):
                    if 400 <= rsp.status < 500:
                        raise LegacyServer(f"HTTP {rsp.status} without a JSON-RPC error")
                    raise ConnectionClosed(f"HTTP {rsp.status}: no JSON-RPC response")
                response = found
        if frame["method"] == "tools/list":
            self._learn_tools(response)
        return response

    async def _read_sse(
        self, rsp: aiohttp.ClientResponse, request_id: Any, related: OnNotification | None
    ) -> Frame:
        """Read an SSE answer (bounded per event): notifications to their handler, until the
        response to ``request_id``."""
        parser = SSEParser()
        try:
            async for chunk in rsp.content.iter_any():
                for event in parser.feed(chunk):
                    found = self._message(event.event, event.data)
                    if found is None:
                        continue
                    if "method" not in found:
                        if found.get("id") == request_id:
                            return found
                        continue
                    handler = related or self._on_notification
                    try:
                        await handler(str(found["method"]), obj(found.get("params")))
                    except Exception:
                        log.exception("notification handler failed")
        except EventTooLarge as exc:
            raise ConnectionClosed(f"the response stream sent an event too large: {exc}") from None
        raise ConnectionClosed("the response stream ended without a response")

    @staticmethod
    def _message(kind: str, data: str) -> Frame | None:
        """The JSON-RPC object an SSE ``message`` event carries (None: not one)."""
        if kind != "message" or not data.strip():
            return None
        try:
            return as_object(decode_untyped(data.encode()))
        except RemoteProtocolError:
            return None

    def _learn_tools(self, response: Frame) -> None:
        """Remember each tool's ``x-mcp-header`` annotations; drop tools whose are invalid."""
        result = as_object(response.get("result"))
        tools: object = result.get("tools") if result is not None else None
        if result is None or not isinstance(tools, list):
            return
        kept: list[object] = []
        for item in cast("list[object]", tools):
            tool = obj(item)
            try:
                found = param_headers(tool.get("inputSchema"))
            except InvalidToolHeaders as exc:
                log.warning("tool %r left out: %s", tool.get("name"), exc)
                continue
            kept.append(item)
            if found:
                self.tool_headers[str(tool.get("name"))] = found
        result["tools"] = kept

    async def close(self) -> None:
        """Close the HTTP client this channel made."""
        if self._own_client and self._client is not None:
            await self._client.close()
            self._client = None


async def connect_http_modern(client: Any, url: str, **options: Any) -> dict[str, Any]:
    """Connect a 2026-07-28 client to ``url`` (probing ``server/discover``); return the result."""
    headers, auth = options.pop("headers", None), options.pop("auth", None)
    channel = HttpChannel(url, client.on_notification, headers=headers, auth=auth)
    try:
        return await connect_modern(client, channel, **options)
    except BaseException:
        await channel.close()
        raise


async def connect_http_auto(
    modern: ModernT,
    legacy: Sequence[LegacyT],
    url: str,
    *,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    headers: Mapping[str, str] | None = None,
    auth: HttpAuth | None = None,
) -> ModernT | LegacyT:
    """Auto mode over HTTP: the modern client if the server is modern, else a legacy one.

    ``auth`` (an ``OAuthClient``) authorizes both the probe and the legacy fallback.
    """
    from ...roles.client import connect_any
    from .client import StreamableHTTPTransport

    channel = HttpChannel(url, modern.on_notification, headers=headers, auth=auth)
    try:
        await connect_modern(modern, channel, probe_timeout=probe_timeout)
        return modern
    except LegacyServer:
        await channel.close()
        if not legacy:
            raise
    except BaseException:
        await channel.close()
        raise
    transport = StreamableHTTPTransport(url, headers=headers, auth=auth)
    try:
        return await connect_any(transport, list(legacy), transport.describe_close)
    except BaseException:
        await transport.close()
        raise
