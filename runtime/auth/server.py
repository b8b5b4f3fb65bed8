"""The resource server: an MCP HTTP app that only answers requests with a valid bearer token.

``ProtectedMcpApp(app, resource, verifier)`` wraps any ASGI app (normally ``McpHttpApp``, of
either era: sessions or stateless):

- it serves the protected resource metadata (RFC 9728) at
  ``/.well-known/oauth-protected-resource<path of the resource>`` (and at the root one);
- a request without a valid token gets ``401`` with ``WWW-Authenticate: Bearer
  resource_metadata="...", scope="..."`` (and ``error="invalid_token"`` when a token was sent);
- a token without the scopes the request needs (``required_scopes``, plus ``scopes_for`` of
  the JSON-RPC method) gets ``403`` with ``error="insufficient_scope"`` and the scopes needed;
- to learn those methods a POST body is read first, without decoding it: only each message's
  method and the names of its params are read (the app decodes the body, once); a body that
  cannot be read so goes through the frame guard the MCP app runs: a body it refuses (broken
  UTF-8, nesting too deep) gets the app's own ``400`` JSON-RPC error from here, and any other
  body the app's own answer;
- a token is accepted only if the verifier found this resource in its audience;
- the principal is available to handlers (``current_principal()``) and a session stays bound
  to the subject that opened it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, cast
from urllib.parse import urlsplit

import msgspec

from ..core.errors import RemoteProtocolError
from ..core.frame_guard import DEFAULT_MAX_DEPTH, decode_untyped
from ..core.wire import as_object
from ..transports.http.asgi import ASGIApp, Message, Receive, Scope, Send
from ..transports.http.checks import frame_refusal
from ..transports.http.server import McpHttpApp
from .metadata import (
    PRM_WELL_KNOWN,
    ProtectedResourceMetadata,
    canonical_resource,
    format_challenge,
    origin,
)
from .principal import CURRENT, AccessToken, PrincipalBox
from .verifiers import InvalidToken, TokenVerifier

ScopesFor = Callable[[str, Any], Iterable[str]]
"""The scopes a JSON-RPC method needs, given its name and params (decoded JSON, or None).

Params that are a JSON object come as a read-only ``Mapping`` that decodes a member when it is
read: the tool arguments of a ``tools/call`` are not decoded to learn its tool's name.
"""
MAX_BODY: Final = 4 * 1024 * 1024
"""Largest POST body read to learn its JSON-RPC methods (larger ones get 413)."""


class _Message(msgspec.Struct):
    """What the method probe reads of a JSON-RPC message: its method, its params undecoded."""

    method: str | None = None
    params: msgspec.Raw = msgspec.Raw(b"null")


_PROBE: Final[msgspec.json.Decoder[_Message | list[_Message]]] = msgspec.json.Decoder(
    _Message | list[_Message]
)
_MEMBERS: Final[msgspec.json.Decoder[dict[str, msgspec.Raw]]] = msgspec.json.Decoder(
    dict[str, msgspec.Raw]
)
_UNREADABLE: Final = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)
"""What reading the methods of an odd body may raise (``ValidationError`` is a DecodeError)."""


class _Params(Mapping[str, Any]):
    """A params object as a read-only mapping: a member is decoded when it is first read."""

    def __init__(self, members: dict[str, msgspec.Raw]) -> None:
        self._members = members
        self._decoded: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        """The member decoded (once)."""
        if key not in self._decoded:
            self._decoded[key] = msgspec.json.decode(self._members[key])
        return self._decoded[key]

    def __iter__(self) -> Iterator[str]:
        """The member names."""
        return iter(self._members)

    def __len__(self) -> int:
        """How many members."""
        return len(self._members)


def _params_of(raw: msgspec.Raw) -> Any:
    """Params for ``scopes_for``: an object lazily (``_Params``), anything else decoded."""
    text = bytes(raw).lstrip()
    return _Params(_MEMBERS.decode(text)) if text.startswith(b"{") else msgspec.json.decode(text)


class _Refused(Exception):
    """An answer given here, not by the app: a body whose methods cannot be read."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


@dataclass(frozen=True)
class ProtectedResource:
    """What the MCP server says about itself as an OAuth protected resource."""

    resource: str
    """Its canonical URI (the MCP endpoint, ``https://mcp.example.com/mcp``)."""
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None = None
    required_scopes: tuple[str, ...] = ()
    """Scopes every request needs."""
    scopes_for: ScopesFor | None = None
    """Further scopes per JSON-RPC method (for ``403 insufficient_scope`` step-up)."""
    resource_name: str | None = None

    @property
    def metadata_path(self) -> str:
        """The path of the metadata document (RFC 9728 section 3.1)."""
        return PRM_WELL_KNOWN + urlsplit(self.resource).path.rstrip("/")

    @property
    def metadata_url(self) -> str:
        """The URL of the metadata document, named in every challenge."""
        return origin(self.resource) + self.metadata_path

    def metadata(self) -> bytes:
        """The metadata document."""
        doc = ProtectedResourceMetadata(
            resource=self.resource,
            authorization_servers=list(self.authorization_servers),
            scopes_supported=list(self.scopes_supported) if self.scopes_supported else None,
            bearer_methods_supported=["header"],
            resource_name=self.resource_name,
        )
        return msgspec.json.encode(doc)


class ProtectedMcpApp:
    """An ASGI app that lets through only requests with a valid, sufficient bearer token."""

    def __init__(
        self,
        app: ASGIApp,
        resource: ProtectedResource,
        verifier: TokenVerifier,
        *,
        max_body: int = MAX_BODY,
        max_depth: int | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.max_depth = max_depth if max_depth is not None else _max_depth_of(app)
        """Deepest nesting read in a body (default: the wrapped ``McpHttpApp``'s, else 128)."""
        self.resource = resource
        self.verifier = verifier
        self._audience = canonical_resource(resource.resource)
        self._boxes: weakref.WeakValueDictionary[str, PrincipalBox] = weakref.WeakValueDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve metadata, refuse what is not authorized, pass the rest to the wrapped app."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a WebSocket would bypass the bearer check: refused
            await send({"type": "websocket.close", "code": 1008})
            return
        path = scope["path"].rstrip("/")
        if scope["method"] == "GET" and path in (self.resource.metadata_path, PRM_WELL_KNOWN):
            await _answer(send, 200, self.resource.metadata(), [])
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        needed = set(self.resource.required_scopes)
        if scheme.lower() != "bearer" or not token.strip():
            await self._refuse(send, 401, needed, None, "a bearer token is required")
            return
        try:
            principal = await self.verifier.verify(token.strip())
        except InvalidToken as exc:
            await self._refuse(send, 401, needed, "invalid_token", str(exc))
            return
        if self._audience not in {canonical_resource(a) for a in principal.audience}:
            reason = "the token was not issued for this resource (audience)"
            await self._refuse(send, 401, needed, "invalid_token", reason)
            return
        try:
            receive, needed = await self._method_scopes(scope, receive, needed)
        except _Refused as refused:
            await _answer(send, refused.status, refused.body, [])
            return
        if not needed <= principal.scopes:
            reason = f"this request needs the scopes {' '.join(sorted(needed))}"
            await self._refuse(send, 403, needed, "insufficient_scope", reason)
            return
        box = self._box(headers.get("mcp-session-id"), principal)
        if box is None:
            await _answer(send, 403, _error("forbidden", "the session belongs to someone else"), [])
            return
        await self._forward(scope, receive, send, box)

    async def _method_scopes(
        self, scope: Scope, receive: Receive, needed: set[str]
    ) -> tuple[Receive, set[str]]:
        """Read a POST's body (bounded) to add the scopes its methods need; replay it after.

        The methods are read without decoding the body (the app does, once); only a body whose
        methods cannot be read so is decoded here. Refused here: a body larger than
        ``max_body`` (413), one whose methods cannot be read that the frame guard refuses (400,
        the app's answer): its methods cannot be known, and it must not pass with fewer scopes.
        """
        if self.resource.scopes_for is None or scope["method"] != "POST":
            return receive, needed
        messages: list[Message] = []
        size, more = 0, True
        while more:
            message = await receive()
            messages.append(message)
            size += len(message.get("body", b""))
            more = message.get("type") == "http.request" and message.get("more_body", False)
            if size > self.max_body:
                raise _Refused(413, _error("invalid_request", "the body is too large"))
        if messages:
            body = b"".join(m.get("body", b"") for m in messages)
            try:  # the methods only: the app decodes the body
                needed = needed | self._scopes_read(body, self.resource.scopes_for)
            except _UNREADABLE:  # an odd body: decoded whole and guarded, as the app reads it
                needed = needed | self._scopes_decoded(body, self.resource.scopes_for)

        async def replay() -> Message:
            """The messages already read, then the rest."""
            return messages.pop(0) if messages else await receive()

        return replay, needed

    @staticmethod
    def _scopes_read(body: bytes, scopes_for: ScopesFor) -> set[str]:
        """The scopes of a body's methods, read without decoding the rest of the body."""
        probed: _Message | list[_Message] = _PROBE.decode(body)
        needed: set[str] = set()
        for message in probed if isinstance(probed, list) else [probed]:
            if message.method is not None:
                needed |= set(scopes_for(message.method, _params_of(message.params)))
        return needed

    def _scopes_decoded(self, body: bytes, scopes_for: ScopesFor) -> set[str]:
        """The scopes of a body's methods, decoded whole; 400 for a body the guard refuses."""
        try:  # one decode, then the guard on what it left unchecked (the depth)
            probed: object = decode_untyped(body, self.max_depth)
        except RemoteProtocolError:  # the guard's exact scan says why, as the app would
            refusal = frame_refusal(body, self.max_depth)
            if refusal is not None:
                raise _Refused(400, refusal) from None
            probed = None  # no message: the app refuses it, whatever the scopes
        needed: set[str] = set()
        items = cast("list[object]", probed) if isinstance(probed, list) else [probed]
        for item in items:
            found = as_object(item)  # a batch's other items do not hide its requests
            if found is not None and isinstance(method := found.get("method"), str):
                needed |= set(scopes_for(method, found.get("params")))
        return needed

    def _box(self, session_id: str | None, principal: AccessToken) -> PrincipalBox | None:
        """The session's principal box, updated; None if the session is someone else's."""
        box = self._boxes.get(session_id) if session_id else None
        if box is None:
            return PrincipalBox(principal)
        held = box.principal
        if held is not None and held.subject != principal.subject:
            return None
        box.principal = principal
        return box

    async def _forward(self, scope: Scope, receive: Receive, send: Send, box: PrincipalBox) -> None:
        """Call the wrapped app with the principal visible to what it starts."""

        async def remember(message: Message) -> None:
            """Pass a message on; note the session id a response hands out."""
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == b"mcp-session-id":
                        self._boxes[value.decode("latin-1")] = box
            await send(message)

        token = CURRENT.set(box)
        try:
            await self.app(scope, receive, remember)
        finally:
            CURRENT.reset(token)

    async def _refuse(
        self, send: Send, status: int, scopes: set[str], error: str | None, reason: str
    ) -> None:
        """401 or 403 with the ``WWW-Authenticate`` challenge and an OAuth error body."""
        params: dict[str, str] = {}
        if error is not None:
            params["error"] = error
        if scopes:
            params["scope"] = " ".join(sorted(scopes))
        params["resource_metadata"] = self.resource.metadata_url
        params["error_description"] = reason
        header = [(b"www-authenticate", format_challenge(params).encode("latin-1", "replace"))]
        await _answer(send, status, _error(error or "invalid_request", reason), header)


def _max_depth_of(app: object) -> int:
    """The nesting limit of the wrapped app's frame guard (128 for an app of unknown kind)."""
    return app.options.max_depth if isinstance(app, McpHttpApp) else DEFAULT_MAX_DEPTH


def _error(code: str, description: str) -> bytes:
    return msgspec.json.encode({"error": code, "error_description": description})


async def _answer(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def scopes_by_method(table: Mapping[str, Iterable[str]]) -> ScopesFor:
    """A ``scopes_for`` from a table of method name (or ``tools/call:<tool name>``) to scopes."""

    def scopes_for(method: str, params: Any) -> Iterable[str]:
        """The scopes of the method, and of the tool for ``tools/call``."""
        found = set(table.get(method, ()))
        if method == "tools/call" and isinstance(params, Mapping):
            name = cast(Mapping[str, Any], params).get("name")
            found |= set(table.get(f"tools/call:{name}", ()))
        return found

    return scopes_for
