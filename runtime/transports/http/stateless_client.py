"""The client's HTTP transport without a handshake: one POST per request, no session (aiohttp).

A ``Peer`` runs over it as over any transport. Each request is POSTed on its own, in the
background, with ``MCP-Protocol-Version`` (the version its ``_meta`` names), ``Mcp-Method``,
``Mcp-Name`` and the ``Mcp-Param-*`` headers of the tool's ``x-mcp-header`` annotations
(learned from ``tools/list`` answers, where tools with invalid annotations are left out, as the
spec requires). The answer is one JSON body or an SSE stream carrying the request's
notifications (progress, a listen stream's changes) before its response. Cancelling a request
(``notifications/cancelled``) closes its stream; the server reads that as the cancellation.
An HTTP error without a JSON-RPC error body answers the request with -32603 naming the status
(to a ``server/discover`` probe: the server speaks the initialize era).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any, Final, cast

import msgspec

from ...core.errors import INTERNAL_ERROR, RemoteProtocolError
from ...core.events import RequestId
from ...core.frame_guard import decode_untyped
from ...core.meta import META_VERSION
from ...core.transport import STREAM_CLOSED, ConnectionClosed, RelatedId
from ...core.wire import ENCODER, Outbound, as_object, outbound
from .base import EVENT_STREAM, JSON, HTTPTransportBase, media_type, read_body
from .headers import InvalidToolHeaders, ParamHeader, param_headers, request_headers
from .sse import SSEParser

log = logging.getLogger(__name__)

_ACCEPT: Final = {"Accept": f"{JSON}, {EVENT_STREAM}", "Content-Type": JSON}


class StatelessHTTPTransport(HTTPTransportBase):
    """The client's end of an MCP endpoint served without a handshake: a POST per request."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self.tool_headers: dict[str, tuple[ParamHeader, ...]] = {}
        """Each tool's ``Mcp-Param-*`` headers, learned from ``tools/list``."""
        self._exchanges: dict[RequestId, asyncio.Task[None]] = {}
        self._listing: set[RequestId] = set()

    async def write(self, message: Outbound | bytes, related: RelatedId = None) -> None:
        """POST a request (sent now, answered in the background); a cancellation closes that
        request's stream."""
        self._check_open()
        message = outbound(message)
        if message.kind == "request" and message.ids:
            rid = message.ids[0]
            if message.method == "tools/list":
                self._listing.add(rid)
            task = self._spawn_eagerly(self._exchange(message, rid))
            if task is not None:  # None: answered (or failed) already
                self._exchanges[rid] = task
        elif message.cancels is not None:
            running = self._exchanges.pop(message.cancels, None)
            if running is not None:
                running.cancel()
        # Nothing else is sent on its own in this era (no responses: the server asks nothing).

    def negotiated(self, version: str) -> None:
        """Nothing to adopt: every request names its version."""

    async def _exchange(self, message: Outbound, rid: RequestId) -> None:
        """POST one request and queue what answers it (then forget it: no callback per
        request does)."""
        try:
            headers = self._headers_of(message)
            try:
                response = await self._send("POST", self.url, headers, message.data, stream=True)
            except ConnectionClosed as exc:  # the network failed this request: answer it
                self._fail_requests([rid], INTERNAL_ERROR, f"HTTP request failed: {exc}")
                return
            pending = {rid}
            if response.status < 300 and media_type(response) == EVENT_STREAM:
                problems: list[str] = []
                await self._consume(response, SSEParser(), pending, problems, rid)
                if pending:  # the request's stream is gone: its caller gets ConnectionClosed
                    reason = problems[0] if problems else "the stream ended without a response"
                    self._fail_requests(pending, INTERNAL_ERROR, reason, {STREAM_CLOSED: True})
                return
            body = await read_body(response)
            if response.status >= 300:
                self._error_answers([rid], response.status, response.reason or "", body)
            elif body.strip():
                pending.difference_update(self._deliver(body, rid))
            if pending and response.status < 300:
                self._fail_requests(pending, INTERNAL_ERROR, f"HTTP {response.status}: no response")
        finally:
            self._exchanges.pop(rid, None)

    def _headers_of(self, message: Outbound) -> dict[str, str]:
        """The headers of one request's POST, read from the few fields of it they mirror."""
        method = message.method or ""
        try:
            head = _HEAD.decode(message.data).params
        except msgspec.MsgspecError:  # params or _meta of another shape: read them whole
            return self._headers_from(method, _params(message.data))
        if head is None:
            return self._headers_from(method, None)
        tool: tuple[ParamHeader, ...] = ()
        if method == "tools/call":
            tool = self.tool_headers.get(str(head.name), ())
        params: dict[str, Any] = {"name": head.name, "uri": head.uri, "taskId": head.task_id}
        if tool and head.arguments:  # arguments are read only for a tool's param headers
            params["arguments"] = msgspec.json.decode(head.arguments)
        version = head.meta.version if head.meta is not None else None
        headers = {**_ACCEPT, **self.headers}
        headers.update(request_headers(str(version or ""), method, params, tool))
        return headers

    def _headers_from(self, method: str, params: Mapping[str, Any] | None) -> dict[str, str]:
        """The headers of one request's POST, from its params read whole."""
        meta = as_object(params.get("_meta")) if params is not None else None
        version = meta.get(META_VERSION) if meta is not None else None
        tool: tuple[ParamHeader, ...] = ()
        if method == "tools/call" and params is not None:
            tool = self.tool_headers.get(str(params.get("name")), ())
        headers = {**_ACCEPT, **self.headers}
        headers.update(request_headers(str(version or ""), method, params, tool))
        return headers

    def _deliver(self, data: bytes, related: RequestId | None = None) -> list[RequestId]:
        """Queue one body or event; a ``tools/list`` answer teaches the tools' headers first."""
        if self._listing:
            data = self._learn_tools(data)
        return super()._deliver(data, related)

    def _learn_tools(self, data: bytes) -> bytes:
        """Remember each tool's ``x-mcp-header`` annotations; drop tools whose are invalid."""
        try:
            frame = as_object(decode_untyped(data))
        except RemoteProtocolError:
            return data
        rid: object = frame.get("id") if frame is not None else None
        if frame is None or not isinstance(rid, (str, int)) or rid not in self._listing:
            return data
        self._listing.discard(rid)
        result = as_object(frame.get("result"))
        tools: object = result.get("tools") if result is not None else None
        if result is None or not isinstance(tools, list):
            return data
        kept: list[object] = []
        for item in cast(list[object], tools):
            tool = as_object(item) or {}
            try:
                found = param_headers(tool.get("inputSchema"))
            except InvalidToolHeaders as exc:
                log.warning("tool %r left out: %s", tool.get("name"), exc)
                continue
            kept.append(item)
            if found:
                self.tool_headers[str(tool.get("name"))] = found
        result["tools"] = kept
        return ENCODER.encode(frame)

    async def close(self) -> None:
        """End every request under way and close the HTTP client if this transport made it."""
        for task in list(self._exchanges.values()):
            task.cancel()
        with contextlib.suppress(Exception):
            await self._shutdown()


class _Version(msgspec.Struct, gc=False):
    """Of our request's ``_meta``: the version it names (its other members are skipped)."""

    version: object = msgspec.field(default=None, name=META_VERSION)


class _Head(msgspec.Struct, gc=False):
    """Of our request's params: what its headers mirror (``arguments`` left undecoded)."""

    meta: _Version | None = msgspec.field(default=None, name="_meta")
    name: object = None
    uri: object = None
    task_id: object = msgspec.field(default=None, name="taskId")
    arguments: msgspec.Raw = msgspec.Raw(b"")


class _Request(msgspec.Struct, gc=False):
    """One of our request frames, as far as its headers need it."""

    params: _Head | None = None


_HEAD = msgspec.json.Decoder(_Request)
"""Reads the fields of our own request that its headers mirror, skipping the rest."""


def _params(data: bytes) -> Mapping[str, Any] | None:
    """The params of one of our request frames, read for its headers."""
    try:
        frame = as_object(msgspec.json.decode(data))
    except msgspec.DecodeError:
        return None
    return None if frame is None else as_object(frame.get("params"))
