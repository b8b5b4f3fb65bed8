"""Helpers of the authorization tests: an in-test authorization server and ASGI apps on uvicorn.

The authorization server is the official MCP SDK's (``mcp.server.auth``: metadata, dynamic
registration, authorize, token with PKCE and refresh), with an in-memory provider that issues
RS256 JWT access tokens (PyJWT) bound to the requested ``resource`` and serves its JWKS, so
our ``JWTVerifier`` checks them like any real issuer's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.support.http_support import until_started

ASGI = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
SCOPES = ["mcp:read", "mcp:write"]


def bound_socket() -> socket.socket:
    """A socket bound to a free port of 127.0.0.1 (so a URL is known before serving)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://127.0.0.1:PORT`` of a bound socket."""
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.asynccontextmanager
async def serve_asgi(app: Any, sock: socket.socket) -> AsyncIterator[str]:
    """Run an ASGI app under uvicorn on ``sock``; always shut it down."""
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await until_started(server, task)
        yield url_of(sock)
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(task, 5)
        except TimeoutError:
            task.cancel()
        sock.close()


class Provider:
    """An in-memory authorization server provider issuing JWT access tokens."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "test-key"
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.access_ttl = 3600
        """Lifetime of issued access tokens (seconds)."""
        self.announce_expiry = True
        """Whether token answers carry ``expires_in``."""
        self.grants: list[str] = []
        """Grant types of the token requests served, in order."""
        self.authorize_scopes: list[list[str] | None] = []

    def jwks(self) -> dict[str, Any]:
        """The public key set."""
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def sign(self, claims: dict[str, Any]) -> str:
        """A JWT with the issuer's key."""
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})

    def access_token(
        self, client_id: str, scopes: list[str], resource: str | None, ttl: float | None = None
    ) -> str:
        """A JWT access token for ``resource``."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": "alice",
            "aud": resource or "",
            "client_id": client_id,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + int(ttl if ttl is not None else self.access_ttl),
        }
        return self.sign(claims)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        self.authorize_scopes.append(params.scopes)
        code = secrets.token_urlsafe(32)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="alice",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _tokens(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        refresh = secrets.token_urlsafe(32)
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject="alice"
        )
        return OAuthToken(
            access_token=self.access_token(client_id, scopes, resource),
            expires_in=self.access_ttl if self.announce_expiry else None,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.grants.append("authorization_code")
        self.codes.pop(authorization_code.code, None)
        code = authorization_code
        return self._tokens(code.client_id, code.scopes, code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.grants.append("refresh_token")
        self.refresh.pop(refresh_token.token, None)  # rotated
        return self._tokens(
            refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        return None

    async def revoke_token(self, token: Any) -> None:
        return None


def authorization_server(provider: Provider) -> Starlette:
    """The SDK's authorization server routes over ``provider``, plus ``/jwks``."""
    routes = create_auth_routes(
        provider,  # type: ignore[arg-type]
        issuer_url=AnyHttpUrl(provider.issuer),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=SCOPES, default_scopes=SCOPES
        ),
    )

    async def jwks(_: Any) -> JSONResponse:
        return JSONResponse(provider.jwks())

    async def introspect(request: Request) -> JSONResponse:
        """RFC 7662 over the issued JWTs (for ``IntrospectionVerifier``); needs Basic auth."""
        if not request.headers.get("authorization", "").startswith("Basic "):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        token = str((await request.form()).get("token", ""))
        try:
            claims = jwt.decode(
                token,
                provider.key.public_key(),
                algorithms=["RS256"],
                options={"verify_aud": False},
            )
        except jwt.PyJWTError:
            return JSONResponse({"active": False})
        return JSONResponse({"active": True, **claims})

    return Starlette(
        routes=[*routes, Route("/jwks", jwks), Route("/introspect", introspect, methods=["POST"])]
    )


class Browser:
    """A headless user who approves every authorization request at once."""

    def __init__(self) -> None:
        self.visited: list[str] = []

    async def __call__(self, authorization_url: str) -> str:
        """Follow the authorization URL to the redirect back to the client; return it."""
        import aiohttp

        self.visited.append(authorization_url)
        async with (
            aiohttp.ClientSession() as http,
            http.get(authorization_url, allow_redirects=False) as response,
        ):
            location = response.headers.get("Location")
            assert location is not None, f"no redirect: HTTP {response.status}"
            return location

    def scopes(self) -> list[str | None]:
        """The scope of each authorization request made."""
        found: list[str | None] = []
        for url in self.visited:
            found.append(parse_qs(urlsplit(url).query).get("scope", [None])[0])
        return found


class Recorder:
    """An ASGI app that records each request's path and headers and answers 200 ``{}``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str]]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.seen.append((scope["path"], headers))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b"{}"})

    def authorizations(self) -> list[str]:
        """The Authorization headers received."""
        return [h["authorization"] for _, h in self.seen if "authorization" in h]
