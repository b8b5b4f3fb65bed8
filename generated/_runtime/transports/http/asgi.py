# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The ASGI callables' types, defined once for every piece that takes or passes them.

They are Starlette's ``ASGIApp`` types (mutable mappings, not ``dict``), so the HTTP app, the
OAuth wrapper around it and the worker-to-worker forwarding accept one another's callables
under mypy and pyright strict, and the app mounts in a Starlette application as it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def respond(
    send: Send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
    content_type: bytes | None = b"application/json",
) -> None:
    """Answer with one whole body (``content_type`` None: no Content-Type header)."""
    out = [*headers] if headers else []
    if content_type is not None and body:
        out.append((b"content-type", content_type))
    out.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": status, "headers": out})
    await send({"type": "http.response.body", "body": body})
