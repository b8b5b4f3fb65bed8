# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""What the HTTP app checks of a request before any session sees it, and how it refuses one.

``Reject`` is an HTTP error answer (with a JSON-RPC error body); the checks are the Host and
Origin allow-lists (DNS rebinding, ``Allowed``), the body size limit (``read_body``) and the
body's JSON-RPC shape, whole (``refuse_bad``, ``frame_refusal``).
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

import msgspec

from ...core.events import RequestId
from ...core.frame_guard import DEFAULT_MAX_DEPTH, frame_problem, shape_problem
from ...core.wire import Inbound, Malformed, as_id
from .asgi import Message, Receive, Scope
from .options import HttpOptions


class Reject(Exception):
    """An HTTP error answer, with an optional JSON-RPC error body."""

    def __init__(
        self,
        status: int,
        message: str,
        headers: list[tuple[bytes, bytes]] | None = None,
        code: int = -32600,
        id_: str | int | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []
        self.code = code
        self.id = id_


def error_body(message: str, code: int = -32600, id_: str | int | None = None) -> bytes:
    """A JSON-RPC error message, encoded."""
    body = {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
    return msgspec.json.encode(body)


def frame_refusal(body: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> bytes | None:
    """The JSON-RPC error the MCP endpoint answers (400) to a POST body the frame guard refuses
    (broken UTF-8: -32700, nesting past ``max_depth``: -32600), or None if the guard passes it.

    ``ProtectedMcpApp`` answers with it too when it reads a body's methods before the app does.
    """
    problem = frame_problem(body, max_depth)
    return None if problem is None else error_body(problem.message, problem.code)


def refuse_bad(inbound: Inbound) -> tuple[list[RequestId], bool]:
    """Refuse a body the server cannot accept, whole: 400 with the JSON-RPC error it deserves;
    else return the ids of its requests (answers owed) and whether one is ``initialize``.

    Then nothing of it reaches a session, whose error answers would have no stream to go on.
    A frame the guard refuses (broken UTF-8, too deep) is parsed as ``Malformed`` with its error.
    One pass over the messages gives what routing needs (``Inbound.request_ids``, the methods).
    """
    if not inbound.messages:
        raise Reject(400, "Invalid Request: expected a JSON-RPC message")
    requests: list[RequestId] = []
    initialize = False
    for message in inbound.messages:
        if isinstance(message, Malformed):
            raise Reject(400, message.error.message, code=message.error.code, id_=message.id)
        shape = shape_problem(message)
        if shape is not None:
            raise Reject(400, f"Invalid Request: {shape}", id_=as_id(message.id))
        if isinstance(message.method, str):
            initialize = initialize or message.method == "initialize"
            if (request_id := as_id(message.id)) is not None:
                requests.append(request_id)
    return requests, initialize


class Allowed:
    """The values of one header (Host or Origin) already found allowed, so that a request
    repeating one (every request of a client does) is let through by one lookup instead of
    parsing it again.

    Only values that passed are kept, at most ``KEPT``, and only for the allow-list they
    passed against (an options object given a new list starts afresh); a value not kept is
    checked in full, as every value was before.
    """

    KEPT: Final = 64

    def __init__(self) -> None:
        self._kept: set[str] = set()
        self._against: tuple[str, ...] = ()

    def allows(self, value: str, allowed: tuple[str, ...]) -> bool:
        """Whether ``value`` names an allowed host (any scheme and port)."""
        if allowed is not self._against:
            self._kept, self._against = set(), allowed
        elif value in self._kept:
            return True
        if "*" not in allowed and host_name(value) not in allowed:
            return False
        if len(self._kept) < self.KEPT:
            self._kept.add(value)
        return True


def host_name(value: str) -> str:
    """Return the host name of a ``Host`` header or of an origin URL, without the port."""
    netloc = urlsplit(value).netloc if "://" in value else value
    if netloc.startswith("["):
        return netloc[: netloc.index("]") + 1]
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


def body_of(message: Message, limit: int) -> bytes | None:
    """The body a first ``http.request`` message carries whole (most bodies come in one),
    refused (413) past ``limit`` bytes; None when more follows (``read_body`` reads it)."""
    if message["type"] != "http.request" or message.get("more_body", False):
        return None
    body: bytes = message.get("body", b"")
    if len(body) > limit:
        raise Reject(413, f"Payload Too Large: the limit is {limit} bytes")
    return body


async def read_body(receive: Receive, limit: int, first: Message | None = None) -> bytes:
    """Read a request body whole (after ``first``, the message already received if any),
    refused (413) past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = first if first is not None else await receive()
        first = None
        if message["type"] == "http.disconnect":
            raise Reject(400, "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Reject(413, f"Payload Too Large: the limit is {limit} bytes")
        if not message.get("more_body", False):
            return b"".join((*chunks, chunk)) if chunks else chunk  # most bodies: one message
        chunks.append(chunk)


def local_path(scope: Scope, options: HttpOptions) -> str:
    """The request path relative to where the app is mounted (ASGI ``root_path``), without a
    trailing slash; the mount point itself is the MCP endpoint (``mount("/mcp", app)``)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "").rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root) :]
        if path in ("", "/"):
            return options.path.rstrip("/") or "/"
    return path.rstrip("/") or "/"
