# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Streamable HTTP without a handshake: one POST, one request, no session (``streamable-http.mdx``).

``serve_stateless_post`` hands the body of a POST the app routed to the stateless era to the
server's ``StatelessServer`` (``roles/stateless.py``), the same connection stdio drives, with
this layer's own checks: ``MCP-Protocol-Version`` must equal the ``_meta`` version (-32020,
checked by the session between its ``_meta`` rows and the served versions), and
``Mcp-Method`` / ``Mcp-Name`` / ``Mcp-Param-*`` must match the body (-32020, before the
handler; the tools' ``x-mcp-header`` annotations come from the server's own ``tools/list``,
cached until the tool list changes). The answer is one JSON body with the status its outcome
calls for (400 refused, 404 no such method, 202 a notification, 200), unless the handler sends
notifications first (progress, logs, a listen stream): then it becomes an SSE stream and the
response ends it. The client closing the stream cancels the request. GET and DELETE do not
exist here (405).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, cast

import msgspec

from ...core.errors import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    RETRY_AFTER_S,
    MCPError,
    RemoteProtocolError,
)
from ...core.events import Request
from ...core.frame_guard import DEFAULT_MAX_DEPTH
from ...core.lifecycle import as_json
from ...core.meta import HEADER_MISMATCH, STATELESS_ERRORS
from ...core.wire import Outbound, as_object, meta_of
from ...roles.era import is_stateless, probe
from ...roles.one_frame import Reply
from ...roles.running import start_eagerly
from ...roles.stateless import StatelessServer
from ...roles.subscriptions import RESYNC, TOOLS_CHANGED, Bus, Change
from .asgi import Receive, Send
from .headers import (
    NAMED_METHODS,
    HeaderError,
    InvalidToolHeaders,
    ParamHeader,
    check_mirrored,
    check_request,
    param_headers,
)


def wants_stateless(
    headers: Mapping[str, str], body: bytes, handshake_versions: frozenset[str]
) -> bool:
    """Whether a POST (or GET, DELETE: no body) belongs to the stateless era (``era.py``)."""
    stated = headers.get("mcp-protocol-version")
    meta: object = None
    if stated is None and "mcp-session-id" not in headers and body:
        meta = probe(body).meta_version
    return is_stateless(
        stated,
        meta,
        handshake_versions,
        in_session="mcp-session-id" in headers,
        otherwise=False,
    )


class ToolHeaders:
    """The tools' ``Mcp-Param-*`` headers of one server, learnt from its own ``tools/list``.

    Forgotten when the tool list changes: on this worker (the server's ``tool_changes``) and,
    once ``listen`` attached it to a bus shared by several workers, on any of them (a tools
    ``list_changed`` published there, or a ``RESYNC`` after the broker lost changes).
    """

    def __init__(self, face: StatelessServer) -> None:
        self.face = face
        self._table: dict[str, tuple[ParamHeader, ...]] | None = None
        self._learnt = 0
        """How many times the table was forgotten (a load started before is not kept)."""
        self._detach: Callable[[], None] | None = None
        face.tool_changes.append(self.forget)

    def forget(self) -> None:
        """The tool list changed: learn it again when next needed."""
        self._table = None
        self._learnt += 1

    def listen(self, bus: Bus) -> None:
        """Forget the table whenever ``bus`` says the tool list changed (or lost changes)."""
        if self._detach is not None:
            self._detach()
        self._detach = bus.attach(self._heard)

    def _heard(self, change: Change) -> None:
        if change.method in (TOOLS_CHANGED, RESYNC):
            self.forget()

    def known(self, request: Request, name: object) -> tuple[ParamHeader, ...] | None:
        """``of`` without waiting, once the table is learnt (None: ``of`` must load it)."""
        if request.method != "tools/call":
            return ()
        table = self._table
        if table is None:
            return None
        return table.get(name, ()) if isinstance(name, str) else ()

    async def of(self, request: Request, name: object) -> tuple[ParamHeader, ...]:
        """The headers a ``tools/call`` of tool ``name`` must carry (none for other methods)."""
        found = self.known(request, name)
        if found is not None:
            return found
        learnt = self._learnt
        table = await self._load(request)
        if learnt == self._learnt:  # not forgotten meanwhile
            self._table = table
        return table.get(name, ()) if isinstance(name, str) else ()

    async def _load(self, request: Request) -> dict[str, tuple[ParamHeader, ...]]:
        """Ask the server's own ``tools/list`` (with the request's ``_meta``) once."""
        meta = meta_of(request.params)
        frame = msgspec.json.encode(
            {"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": {"_meta": meta}}
        )
        reply = await self.face.answer(frame)
        if reply.response is None:
            return {}
        answer = as_object(msgspec.json.decode(reply.response.data))
        result = None if answer is None else as_object(answer.get("result"))
        tools: object = None if result is None else result.get("tools")
        listed = cast("list[object]", tools) if isinstance(tools, list) else []
        table: dict[str, tuple[ParamHeader, ...]] = {}
        for tool in listed:
            found = as_object(tool)
            name = None if found is None else found.get("name")
            if found is None or not isinstance(name, str):
                continue
            try:
                params = param_headers(found.get("inputSchema"))
            except InvalidToolHeaders:
                params = ()
            if params:
                table[name] = params
        return table


async def serve_stateless_post(
    face: StatelessServer,
    tool_headers: ToolHeaders,
    headers: Mapping[str, str],
    body: bytes,
    receive: Receive,
    send: Send,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> None:
    """Answer one stateless POST (JSON, or SSE once the handler sends a notification)."""
    started = False
    lock: asyncio.Lock | None = None  # made by the first notification: most answers send none

    async def emit(message: Outbound) -> None:
        nonlocal started, lock
        if lock is None:
            lock = asyncio.Lock()
        async with lock:
            if not started:
                started = True
                await send({"type": "http.response.start", "status": 200, "headers": _SSE})
            body = _event(message.data)
            await send({"type": "http.response.body", "body": body, "more_body": True})

    def stated(version: str) -> RemoteProtocolError | None:
        header = headers.get("mcp-protocol-version")
        if header is None:
            return RemoteProtocolError(
                "Header mismatch: MCP-Protocol-Version missing", HEADER_MISMATCH
            )
        if header.strip() != version:
            return RemoteProtocolError(
                f"Header mismatch: MCP-Protocol-Version {header.strip()!r} does not match "
                f"_meta {version!r}",
                HEADER_MISMATCH,
            )
        return None

    def check(request: Request) -> Awaitable[None] | None:
        params = request.params
        if not isinstance(params, msgspec.Struct):  # plain JSON params, or none
            return _check_json(tool_headers, headers, request, as_json(params))
        # Typed params: the mirrored members read as attributes (no mapping built).
        name = getattr(params, "name", None)
        tools = tool_headers.known(request, name)  # learnt: no coroutine per request
        if tools is None:
            return _check_learnt(tool_headers, headers, request, _mirrored(params))
        field = NAMED_METHODS.get(request.method)
        body_name = (
            name if field == "name" else getattr(params, "uri", None) if field == "uri" else None
        )
        try:
            check_mirrored(
                headers, request.method, body_name, getattr(params, "arguments", None), tools
            )
        except HeaderError as exc:
            raise MCPError(exc.code, str(exc)) from None
        return None

    replies: list[Reply] = []

    async def answer() -> None:
        replies.append(
            await face.answer(body, emit, max_depth=max_depth, stated=stated, check=check)
        )

    # Run at once: a handler that answers without waiting needs no task and no watch for the
    # client going away; one that waits runs on as a task, cancelled if the client leaves.
    work = start_eagerly(answer())
    if work is not None:
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
        work.result()
    reply = replies[0]
    if lock is None:  # no notification was sent: one JSON body
        await _raw(send, status_of(reply), reply.response)
        return
    async with lock:
        if not started:
            await _raw(send, status_of(reply), reply.response)
            return
        last = _event(reply.response.data) if reply.response is not None else b""
        with contextlib.suppress(Exception):
            await send({"type": "http.response.body", "body": last})


def _check_json(
    tool_headers: ToolHeaders,
    headers: Mapping[str, str],
    request: Request,
    params: Mapping[str, Any],
) -> Awaitable[None] | None:
    """Check the headers of a request whose params are plain JSON (or absent)."""
    tools = tool_headers.known(request, params.get("name"))
    if tools is None:
        return _check_learnt(tool_headers, headers, request, params)
    try:
        check_request(headers, request.method, params, tools)
    except HeaderError as exc:
        raise MCPError(exc.code, str(exc)) from None
    return None


async def _check_learnt(
    tool_headers: ToolHeaders,
    headers: Mapping[str, str],
    request: Request,
    params: Mapping[str, Any],
) -> None:
    """Check a request's headers once the tools' ``Mcp-Param-*`` table is learnt."""
    tools = await tool_headers.of(request, params.get("name"))
    try:
        check_request(headers, request.method, params, tools)
    except HeaderError as exc:
        raise MCPError(exc.code, str(exc)) from None


_MIRRORED: Final = (("name", "name"), ("uri", "uri"), ("arguments", "arguments"))
"""The params members the headers mirror (wire name, attribute), read without converting."""


def _mirrored(params: object) -> Mapping[str, Any]:
    """The members of a request's params that its headers mirror (``name``, ``uri``,
    ``arguments``), read from the typed params without converting them all to JSON."""
    if params is None or as_object(params) is not None:
        return as_json(params)
    found: dict[str, Any] = {}
    for wire, attr in _MIRRORED:
        value: object = getattr(params, attr, msgspec.UNSET)
        if value is not msgspec.UNSET:
            found[wire] = value
    return found


class _Error(msgspec.Struct):
    code: int
    data: Any = None


class _ErrorResponse(msgspec.Struct):
    error: _Error | None = None


_ERROR: Final = msgspec.json.Decoder(_ErrorResponse)


def status_of(reply: Reply) -> int:
    """The HTTP status of an answer: 400 for what is refused before a handler and for the
    errors only a stateless server sends, 404 for no such method, 503 for a shared service
    away (-32603 with ``data.retryAfter``), 202 for a notification."""
    if reply.response is None:
        return 400 if reply.refused else 202
    data = reply.response.data
    if b'"error"' not in data:
        return 200
    try:
        error = _ERROR.decode(data).error
    except msgspec.ValidationError:
        return 200
    if error is None:
        return 200
    if error.code == METHOD_NOT_FOUND:
        return 404
    if _retry_later(error):
        return 503  # a shared service was away (``core.errors.Unavailable``)
    if error.code in STATELESS_ERRORS or reply.refused:
        return 400
    return 200


def _retry_later(error: _Error) -> bool:
    """Whether an error is -32603 with ``data.retryAfter`` (``core.errors.Unavailable``)."""
    retry = as_object(error.data)
    return error.code == INTERNAL_ERROR and retry is not None and "retryAfter" in retry


def unavailable(frame: bytes) -> bool:
    """Whether a response frame is the error of a shared service away (answered 503)."""
    if b'"retryAfter"' not in frame:
        return False
    try:
        error = _ERROR.decode(frame).error
    except msgspec.ValidationError:
        return False
    return error is not None and _retry_later(error)


def retry_after() -> list[tuple[bytes, bytes]]:
    """The ``Retry-After`` header of a 503 answer."""
    return [(b"retry-after", b"%d" % RETRY_AFTER_S)]


_SSE: Final = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def _event(data: bytes) -> bytes:
    return b"event: message\ndata: " + data + b"\n\n"


async def _raw(send: Send, status: int, response: Outbound | None) -> None:
    body = b"" if response is None else response.data
    headers = [(b"content-length", b"%d" % len(body))]
    if response is not None:
        headers.append((b"content-type", b"application/json"))
    if status == 503:
        headers += retry_after()
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
