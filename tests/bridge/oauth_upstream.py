"""An OAuth-protected MCP server and the authorization server of its machine clients.

The upstream of the bridge's OAuth tests: the project's protected resource (``ProtectedMcpApp``
with a ``JWTVerifier``) in front of the ``whoami`` server of the auth tests, and a token
endpoint for the grants without a user: ``client_credentials`` (the client's id and secret,
HTTP Basic or in the form) and the JWT bearer grant (an assertion it knows). It issues JWT
access tokens for the resource asked for, and notes each grant it served.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from generated._runtime.auth import JWTVerifier, ProtectedMcpApp, ProtectedResource
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from tests.auth.test_auth_e2e import Notes
from tests.support.auth_support import Provider, bound_socket, serve_asgi, url_of

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SCOPE = "mcp:read"


@dataclass
class Machines:
    """Who may get a token, and the grants served (grant type, client id or assertion)."""

    secrets: dict[str, str] = field(default_factory=dict[str, str])
    """Client id -> secret, for ``client_credentials``."""
    assertions: set[str] = field(default_factory=set[str])
    """Workload JWTs the JWT bearer grant accepts."""
    served: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])


def _basic(request: Request) -> tuple[str, str] | None:
    """The client id and secret of an ``Authorization: Basic`` header."""
    header = request.headers.get("authorization", "")
    if not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    return user, password


def token_server(provider: Provider, machines: Machines) -> Starlette:
    """Metadata, ``/token`` for the two machine grants, and ``/jwks``."""

    async def metadata(_: Request) -> JSONResponse:
        return JSONResponse(
            {
                "issuer": provider.issuer,
                "token_endpoint": f"{provider.issuer}/token",
                "grant_types_supported": ["client_credentials", JWT_BEARER],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "code_challenge_methods_supported": ["S256"],
            }
        )

    async def token(request: Request) -> JSONResponse:
        form = {k: str(v) for k, v in (await request.form()).items()}
        client = _basic(request) or (form.get("client_id", ""), form.get("client_secret", ""))
        grant = form.get("grant_type", "")
        if grant == "client_credentials":
            if machines.secrets.get(client[0]) != client[1] or not client[1]:
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            who = client[0]
        elif grant == JWT_BEARER and form.get("assertion") in machines.assertions:
            who = form["assertion"]
        else:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        machines.served.append((grant, who))
        access = provider.access_token(who, [SCOPE], form.get("resource"))
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600})

    async def jwks(_: Request) -> JSONResponse:
        return JSONResponse(provider.jwks())

    return Starlette(
        routes=[
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/token", token, methods=["POST"]),
            Route("/jwks", jwks),
        ]
    )


@dataclass
class Protected:
    """The running protected MCP server: its URL, and what its authorization server served."""

    mcp_url: str
    machines: Machines


@contextlib.asynccontextmanager
async def protected_upstream(machines: Machines) -> AsyncGenerator[Protected, None]:
    """The authorization server and the protected MCP server (2025-11-25), each on its port."""
    as_sock, rs_sock = bound_socket(), bound_socket()
    issuer, mcp_url = url_of(as_sock), url_of(rs_sock) + "/mcp"
    provider = Provider(issuer)
    resource = ProtectedResource(
        resource=mcp_url,
        authorization_servers=(issuer,),
        scopes_supported=(SCOPE,),
        required_scopes=(SCOPE,),
    )
    verifier = JWTVerifier(issuer=issuer, audience=mcp_url, jwks_uri=f"{issuer}/jwks")
    mcp: Any = McpHttpApp(Notes(), HttpOptions())  # its ASGI ``send`` is typed narrower
    app = ProtectedMcpApp(mcp, resource, verifier)
    async with serve_asgi(token_server(provider, machines), as_sock), serve_asgi(app, rs_sock):
        yield Protected(mcp_url, machines)


def text_of(result: Any) -> str:
    """The text of a tool result's first block."""
    return str(result.content[0].text)
