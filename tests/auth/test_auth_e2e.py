"""Our OAuth client against our protected server, with the SDK's authorization server in between.

Discovery (protected resource metadata, authorization server metadata), dynamic registration,
authorization code with PKCE and ``resource``, the token, calls, expiry and refresh, step-up to
a wider scope, and the principal as handlers see it. Both eras of the server: sessions
(2025-11-25) and stateless POSTs.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from generated._runtime.auth import (
    IntrospectionVerifier,
    JWTVerifier,
    OAuthClient,
    ProtectedMcpApp,
    ProtectedResource,
    TokenVerifier,
    current_principal,
    scopes_by_method,
)
from generated._runtime.core.errors import RemoteProtocolError
from generated._runtime.roles.peer import MCPError
from generated._runtime.transports.http.client import connect_http
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated.v2025_11_25 import Client, Server, ServerContext, Tools
from generated.v2025_11_25 import types as t
from tests.support.auth_support import (
    Browser,
    Provider,
    authorization_server,
    bound_socket,
    serve_asgi,
    url_of,
)


class Notes(Server):
    """A server whose ``whoami`` tool answers with the caller's subject and scopes."""

    name = "notes"
    version = "1"

    def __init__(self) -> None:
        self.tools = Tools()
        plain: dict[str, Any] = {"type": "object"}
        self.tools.add(t.Tool(name="whoami", input_schema=plain), self._whoami)
        self.tools.add(t.Tool(name="write", input_schema=plain), self._write)

    async def _whoami(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        who = ctx.principal
        assert who is not None and who == current_principal()
        text = f"{who.subject} {' '.join(sorted(who.scopes))}"
        return t.CallToolResult(content=[t.TextContent(text=text)])

    async def _write(self, args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        return t.CallToolResult(content=[t.TextContent(text="written")])

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """The tools."""
        return t.ListToolsResult(tools=self.tools.definitions())

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run a tool."""
        return await self.tools.call(params, ctx)


@dataclass
class Setup:
    """The running authorization server and protected MCP server."""

    provider: Provider
    issuer: str
    mcp_url: str
    resource: ProtectedResource


@contextlib.asynccontextmanager
async def running(
    stateless: bool = False, leeway: float = 30.0, introspection: bool = False
) -> AsyncIterator[Setup]:
    """An authorization server and a protected MCP server, each on its own port."""
    as_sock, rs_sock = bound_socket(), bound_socket()
    issuer, base = url_of(as_sock) + "/", url_of(rs_sock)  # the SDK's issuer has the slash
    provider = Provider(issuer)
    resource = ProtectedResource(
        resource=f"{base}/mcp",
        authorization_servers=(issuer,),
        scopes_supported=("mcp:read",),
        required_scopes=("mcp:read",),
        scopes_for=scopes_by_method({"tools/call:write": ["mcp:write"]}),
    )
    verifier: TokenVerifier = JWTVerifier(
        issuer=issuer, audience=resource.resource, jwks_uri=f"{issuer}jwks", leeway=leeway
    )
    if introspection:
        verifier = IntrospectionVerifier(
            f"{issuer}introspect", audience=resource.resource, client_id="rs", client_secret="s"
        )
    mcp = McpHttpApp(Notes(), HttpOptions(stateless=stateless))
    app = ProtectedMcpApp(mcp, resource, verifier)
    async with serve_asgi(authorization_server(provider), as_sock), serve_asgi(app, rs_sock):
        yield Setup(provider, issuer, resource.resource, resource)


async def whoami(client: Client) -> str:
    """The text of the ``whoami`` tool."""
    result = await client.call_tool(name="whoami", arguments={})
    block = result.content[0]
    assert isinstance(block, t.TextContent)
    return block.text


@pytest.mark.parametrize(
    ("stateless", "introspection"),
    [(False, False), (True, False), (False, True)],
    ids=["sessions-jwt", "stateless-jwt", "sessions-introspection"],
)
async def test_discovery_registration_code_token_call(stateless: bool, introspection: bool) -> None:
    """From a bare 401 to a tool call that sees the principal, in one connect."""
    async with running(stateless, introspection=introspection) as s:
        browser = Browser()
        oauth = OAuthClient(redirect_handler=browser, client_name="e2e")
        client = Client(name="e2e", version="1")
        await asyncio.wait_for(connect_http(client, s.mcp_url, auth=oauth), 30)
        try:
            assert await whoami(client) == "alice mcp:read"
        finally:
            await client.close()
        assert s.provider.grants == ["authorization_code"]
        assert len(s.provider.clients) == 1  # dynamically registered once
        assert browser.scopes() == ["mcp:read"]  # from the 401 challenge
        visited = browser.visited[0]
        assert "code_challenge_method=S256" in visited and "resource=" in visited
        token = await oauth.storage.get_token(s.mcp_url)
        assert token is not None and token.resource == s.mcp_url and token.issuer == s.issuer


async def test_expired_token_is_refreshed() -> None:
    """A token the client knows expired is refreshed before use; one it did not know expired
    is refreshed after the server's 401; the call goes through both times."""
    async with running(leeway=0) as s:
        oauth = OAuthClient(redirect_handler=Browser())
        client = Client(name="e2e", version="1")
        await connect_http(client, s.mcp_url, auth=oauth)
        try:
            token = await oauth.storage.get_token(s.mcp_url)
            assert token is not None
            # The client's clock says it expired: refreshed before the request.
            import msgspec

            await oauth.storage.set_token(
                s.mcp_url, msgspec.structs.replace(token, expires_at=time.time() - 1)
            )
            assert await whoami(client) == "alice mcp:read"
            assert s.provider.grants == ["authorization_code", "refresh_token"]
            # The server's clock says it expired (the client was not told when): 401, refresh.
            s.provider.access_ttl, s.provider.announce_expiry = 1, False
            fresh = await oauth.storage.get_token(s.mcp_url)
            assert fresh is not None and fresh.refresh_token is not None
            await oauth.storage.set_token(
                s.mcp_url, msgspec.structs.replace(fresh, expires_at=time.time() - 1)
            )
            assert await whoami(client) == "alice mcp:read"  # refreshed: 1 s token, unknown expiry
            await asyncio.sleep(2.1)
            s.provider.access_ttl = 3600
            assert await whoami(client) == "alice mcp:read"
            assert s.provider.grants[-2:] == ["refresh_token", "refresh_token"]
            assert s.provider.grants.count("authorization_code") == 1
        finally:
            await client.close()


async def test_step_up_on_insufficient_scope() -> None:
    """``write`` needs mcp:write: 403, re-authorization with mcp:read and mcp:write, retry."""
    async with running() as s:
        browser = Browser()
        oauth = OAuthClient(redirect_handler=browser)
        client = Client(name="e2e", version="1")
        await connect_http(client, s.mcp_url, auth=oauth)
        try:
            result = await client.call_tool(name="write", arguments={})
            block = result.content[0]
            assert isinstance(block, t.TextContent) and block.text == "written"
            assert await whoami(client) == "alice mcp:read mcp:write"
        finally:
            await client.close()
        assert browser.scopes() == ["mcp:read", "mcp:read mcp:write"]


async def test_step_up_gives_up_and_remembers() -> None:
    """When a re-authorization for the challenged scopes does not get them, the request fails,
    and later requests with the same challenge do not send the user to authorize again."""
    async with running() as s:
        browser = Browser()
        oauth = OAuthClient(redirect_handler=browser)
        client = Client(name="e2e", version="1")
        await connect_http(client, s.mcp_url, auth=oauth)
        try:
            oauth.scope = "mcp:read"  # pinned, and no step-up union: every token lacks mcp:write
            for _ in range(2):
                # HTTP 403 fails the request (its body is an OAuth error, not JSON-RPC).
                with pytest.raises((MCPError, RemoteProtocolError)):
                    await client.call_tool(name="write", arguments={})
            assert await whoami(client) == "alice mcp:read"  # the connection goes on
        finally:
            await client.close()
        assert len(browser.visited) == 2  # the first authorization and one step-up, no more


async def test_step_up_limit_per_request() -> None:
    """``max_step_up`` bounds the re-authorizations of one request."""
    async with running() as s:
        browser = Browser()
        oauth = OAuthClient(redirect_handler=browser, max_step_up=0)
        client = Client(name="e2e", version="1")
        await connect_http(client, s.mcp_url, auth=oauth)
        try:
            with pytest.raises((MCPError, RemoteProtocolError)):
                await client.call_tool(name="write", arguments={})
        finally:
            await client.close()
        assert len(browser.visited) == 1


async def test_official_sdk_client_against_our_protected_server() -> None:
    """The official SDK's OAuth client (httpx2) gets through our resource server too."""
    from urllib.parse import parse_qs, urlsplit

    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import (
        AuthorizationCodeResult,
        OAuthClientInformationFull,
        OAuthClientMetadata,
        OAuthToken,
    )
    from pydantic import AnyUrl

    class Memory:
        """The SDK's token storage, in memory."""

        tokens: OAuthToken | None = None
        client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    redirected: list[str] = []

    async def redirect(url: str) -> None:
        redirected.append(await Browser()(url))

    async def callback() -> AuthorizationCodeResult:
        query = {k: v[0] for k, v in parse_qs(urlsplit(redirected[-1]).query).items()}
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )

    async with running() as s:
        provider = OAuthClientProvider(
            server_url=s.mcp_url,
            client_metadata=OAuthClientMetadata(
                client_name="sdk", redirect_uris=[AnyUrl("http://localhost:3030/callback")]
            ),
            storage=Memory(),
            redirect_handler=redirect,
            callback_handler=callback,
        )
        async with (
            httpx2.AsyncClient(auth=provider, timeout=30) as http,
            streamable_http_client(s.mcp_url, http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            result = await session.call_tool("whoami", {})
        block = result.content[0]
        assert block.type == "text" and block.text == "alice mcp:read"
        assert s.provider.grants == ["authorization_code"]
