"""Streamable HTTP for 2026-07-28: one POST, one request, no session (``streamable-http.mdx``).

``serve_modern_post`` answers a POST the app routed to the modern era: the body goes to the
``ModernServer`` with the request headers (for the header/body checks). The answer is one JSON
body with the status the checks chose (400, 404, 200), unless the handler sends notifications
first (progress, logs, a listen stream): then it becomes an SSE stream and the response ends
it. The client closing the stream cancels the request. GET and DELETE do not exist here (405).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Final

import msgspec

from ...core.errors import RemoteProtocolError
from ...core.frame_guard import DEFAULT_MAX_DEPTH, decode_untyped
from ...roles.modern import LEGACY_VERSIONS, ModernServer, Reply, error_frame
from ...roles.modern_connection import Frame, field

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_ENCODER: Final = msgspec.json.Encoder()


class _MetaProbe(msgspec.Struct):
    """Enough of a body to tell a modern request: ``params._meta`` protocol version."""

    params: Any = None


def wants_modern(headers: Mapping[str, str], body: bytes) -> bool:
    """Whether a POST belongs to the stateless era (``basic/versioning.mdx``, dual-era server).

    A modern ``MCP-Protocol-Version`` header decides; without the header, a body whose
    ``_meta`` names a version outside the initialize era does. Sessions and ``initialize``
    (without a modern header) stay legacy.
    """
    header = headers.get("mcp-protocol-version")
    if header is not None:
        return header.strip() not in LEGACY_VERSIONS
    if "mcp-session-id" in headers:
        return False
    try:
        probe = msgspec.json.decode(body, type=_MetaProbe)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return False
    version = field(probe.params, "_meta", "io.modelcontextprotocol/protocolVersion")
    return isinstance(version, str) and version not in LEGACY_VERSIONS


async def serve_modern_post(
    engine: ModernServer,
    headers: Mapping[str, str],
    body: bytes,
    receive: Receive,
    send: Send,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> None:
    """Answer one modern POST (JSON, or SSE once the handler sends a notification).

    A body the frame guard refuses (broken UTF-8, nesting too deep) or that is not JSON
    gets 400 with its JSON-RPC error.
    """
    try:
        message = decode_untyped(body, max_depth)
    except RemoteProtocolError as exc:
        await _json(send, 400, error_frame(None, exc.code, exc.message))
        return
    started = False
    lock = asyncio.Lock()

    async def emit(frame: Frame) -> None:
        nonlocal started
        async with lock:
            if not started:
                started = True
                await send({"type": "http.response.start", "status": 200, "headers": _SSE})
            await send({"type": "http.response.body", "body": _event(frame), "more_body": True})

    work = asyncio.ensure_future(engine.handle(message, emit, headers))
    gone = asyncio.ensure_future(_wait_disconnect(receive))
    try:
        await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if not work.done():  # the client closed the stream: that cancels the request
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await work
        return
    reply: Reply = work.result()
    async with lock:
        if not started:
            if reply.frame is None:
                await _raw(send, reply.status, b"", None)
            else:
                await _json(send, reply.status, reply.frame)
            return
        last = _event(reply.frame) if reply.frame is not None else b""
        with contextlib.suppress(Exception):
            await send({"type": "http.response.body", "body": last})


_SSE: Final = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def _event(frame: Frame) -> bytes:
    return b"event: message\ndata: " + _ENCODER.encode(frame) + b"\n\n"


async def _json(send: Send, status: int, frame: Frame) -> None:
    await _raw(send, status, _ENCODER.encode(frame), b"application/json")


async def _raw(send: Send, status: int, body: bytes, content_type: bytes | None) -> None:
    headers = [(b"content-length", str(len(body)).encode())]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
