"""Bad input to authorization, on both sides: each refused with a clear error, no token leaked.

Server side: no token, a tampered, expired, foreign-audience or foreign-key token, too little
scope, another subject on a session. Client side: metadata about another resource or issuer,
an authorization response sent to another origin or with a wrong ``state``, an MCP server
redirecting elsewhere, requests to other URLs: the token never leaves its resource.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from generated._runtime.auth import (
    AuthorizationResponseError,
    ClientInfo,
    InsecureEndpoint,
    JWTVerifier,
    MetadataMismatch,
    OAuthClient,
    ProtectedMcpApp,
    ProtectedResource,
    scopes_by_method,
)
from generated._runtime.auth.metadata import bearer_challenge
from generated._runtime.auth.oauth import OAuthHttp
from generated._runtime.roles.peer import MCPError
from generated._runtime.transports.http.client import connect_http
from generated.v2025_11_25 import Client
from tests.auth.test_auth_e2e import running
from tests.support.auth_support import Browser, Provider, Recorder, bound_socket, serve_asgi, url_of


def challenge_of(response: httpx.Response) -> dict[str, str]:
    """The parameters of a response's Bearer challenge."""
    return dict(bearer_challenge(response.headers.get_list("www-authenticate")).params)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def post(url: str, token: str | None, body: Any = INIT, **extra: str) -> httpx.Response:
    """POST a JSON-RPC body with an optional bearer token."""
    headers = {**HEADERS, **extra}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(url, json=body, headers=headers)


# -- the resource server -----------------------------------------------------------------------


async def test_metadata_and_missing_token() -> None:
    """The metadata document, and a 401 that points at it with the scopes needed."""
    async with running(leeway=0) as s:
        async with httpx.AsyncClient() as http:
            doc = (await http.get(s.resource.metadata_url)).json()
        assert doc["resource"] == s.mcp_url
        assert doc["authorization_servers"] == [s.issuer]
        response = await post(s.mcp_url, None)
        assert response.status_code == 401
        params = challenge_of(response)
        assert params["resource_metadata"] == s.resource.metadata_url
        assert params["scope"] == "mcp:read" and "error" not in params
        assert response.json()["error"] == "invalid_request"


@pytest.mark.parametrize("case", ["tampered", "expired", "audience", "foreign key", "garbage"])
async def test_bad_tokens_get_401_invalid_token(case: str) -> None:
    """Each bad token is refused with ``invalid_token`` and a reason; nothing reaches MCP."""
    async with running(leeway=0) as s:
        good = s.provider.access_token("c", ["mcp:read"], s.mcp_url)
        token = {
            "tampered": good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB"),
            "expired": s.provider.access_token("c", ["mcp:read"], s.mcp_url, ttl=-10),
            "audience": s.provider.access_token("c", ["mcp:read"], "https://other.example/mcp"),
            "foreign key": jwt.encode(
                jwt.decode(good, options={"verify_signature": False}),
                rsa.generate_private_key(public_exponent=65537, key_size=2048),
                algorithm="RS256",
                headers={"kid": s.provider.kid},
            ),
            "garbage": "not-a-jwt",
        }[case]
        response = await post(s.mcp_url, token)
        assert response.status_code == 401, response.text
        params = challenge_of(response)
        assert params["error"] == "invalid_token"
        assert params["resource_metadata"] == s.resource.metadata_url
        reason = params["error_description"]
        expected = {"expired": "expired", "audience": "audience"}.get(case, "not valid")
        assert expected in reason or case in ("garbage",), reason
        assert (await post(s.mcp_url, good)).status_code == 200  # a good one passes


async def test_insufficient_scope_and_session_binding() -> None:
    """403 ``insufficient_scope`` names every scope needed; a session stays its subject's."""
    async with running() as s:
        read = s.provider.access_token("c", ["mcp:read"], s.mcp_url)
        opened = await post(s.mcp_url, read)
        session = opened.headers["mcp-session-id"]
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "write", "arguments": {}},
        }
        refused = await post(s.mcp_url, read, call, **{"mcp-session-id": session})
        assert refused.status_code == 403
        params = challenge_of(refused)
        assert params["error"] == "insufficient_scope"
        assert params["scope"] == "mcp:read mcp:write"
        claims = jwt.decode(read, options={"verify_signature": False})
        bob = s.provider.sign({**claims, "sub": "bob", "scope": "mcp:read mcp:write"})
        hijack = await post(s.mcp_url, bob, call, **{"mcp-session-id": session})
        assert hijack.status_code == 403 and "someone else" in hijack.text


# -- the client --------------------------------------------------------------------------------


class FakeResource:
    """A protected MCP endpoint: 401 without a token, ``on_token`` with one; serves ``prm``."""

    def __init__(self, prm: dict[str, Any], on_token: tuple[int, dict[str, str]]) -> None:
        self.prm = prm
        self.on_token = on_token
        self.base = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["path"].startswith("/.well-known/oauth-protected-resource"):
            await respond(send, 200, json.dumps(self.prm).encode())
        elif "authorization" in headers:
            status, extra = self.on_token
            await respond(send, status, b"{}", extra)
        else:
            challenge = (
                f'Bearer resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
            )
            await respond(send, 401, b'{"error":"invalid_token"}', {"www-authenticate": challenge})


async def respond(
    send: Any, status: int, body: bytes, headers: dict[str, str] | None = None
) -> None:
    """A raw ASGI answer."""
    raw = [(b"content-type", b"application/json")]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


@asynccontextmanager
async def fake_world(
    prm: dict[str, Any], on_token: tuple[int, dict[str, str]] = (200, {})
) -> AsyncIterator[tuple[str, Provider, Recorder, str]]:
    """A fake resource server, the SDK's authorization server, and an unrelated recorder."""
    from tests.support.auth_support import authorization_server

    rs_sock, as_sock, other_sock = bound_socket(), bound_socket(), bound_socket()
    base, issuer, other = url_of(rs_sock), url_of(as_sock) + "/", url_of(other_sock)
    provider, recorder = Provider(issuer), Recorder()
    names = {"base": base, "issuer": issuer, "other": other, "asroot": issuer.rstrip("/")}
    fake = FakeResource(
        {
            k: v.format(**names) if isinstance(v, str) else [x.format(**names) for x in v]
            for k, v in prm.items()
        },
        (on_token[0], {k: v.format(other=other) for k, v in on_token[1].items()}),
    )
    fake.base = base
    async with (
        serve_asgi(fake, rs_sock),
        serve_asgi(authorization_server(provider), as_sock),
        serve_asgi(recorder, other_sock),
    ):
        yield f"{base}/mcp", provider, recorder, other


async def connect(url: str, oauth: OAuthClient) -> Client:
    """Connect a client with ``oauth`` (raises what authorization raised)."""
    client = Client(name="sec", version="1")
    await connect_http(client, url, auth=oauth, sse_fallback=False)
    return client


async def test_resource_metadata_for_another_resource_is_refused() -> None:
    """Metadata naming another resource: ``MetadataMismatch``, no authorization started."""
    prm = {"resource": "{other}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm) as (url, provider, _, _):
        browser = Browser()
        with pytest.raises(MetadataMismatch, match=r"is for .* not for"):
            await connect(url, OAuthClient(redirect_handler=browser))
        assert browser.visited == [] and provider.clients == {}


async def test_issuer_mismatch_is_refused() -> None:
    """Authorization server metadata whose ``issuer`` differs (here by a trailing slash) from
    the issuer it was fetched for: ``MetadataMismatch``, no registration, no authorization."""
    async with fake_world({"resource": "{base}/mcp", "authorization_servers": ["{asroot}"]}) as (
        url,
        provider,
        _,
        _,
    ):
        browser = Browser()
        with pytest.raises(MetadataMismatch, match="names issuer"):
            await connect(url, OAuthClient(redirect_handler=browser))
        assert browser.visited == [] and provider.clients == {}


async def test_authorization_response_to_another_origin_is_refused() -> None:
    """A callback URL that is not our redirect URI: refused before any token request."""
    prm = {"resource": "{base}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm) as (url, provider, _, other):
        browser = Browser()

        async def hijacked(authorization_url: str) -> str:
            callback = await browser(authorization_url)
            return other + "/callback?" + callback.split("?", 1)[1]

        with pytest.raises(AuthorizationResponseError, match="not to our redirect URI"):
            await connect(url, OAuthClient(redirect_handler=hijacked))
        assert provider.grants == []


async def test_wrong_state_is_refused() -> None:
    """A callback whose state is not ours (a forged response) is refused."""
    prm = {"resource": "{base}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm) as (url, provider, _, _):

        async def forged(authorization_url: str) -> str:
            callback = await Browser()(authorization_url)
            return callback.replace("state=", "state=x")

        with pytest.raises(AuthorizationResponseError, match="state"):
            await connect(url, OAuthClient(redirect_handler=forged))
        assert provider.grants == []


async def test_redirect_to_another_origin_gets_no_token() -> None:
    """An MCP server that redirects elsewhere once it has our token: refused, not followed."""
    prm = {"resource": "{base}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm, (307, {"location": "{other}/mcp"})) as (url, provider, rec, _):
        with pytest.raises(InsecureEndpoint, match="outside the protected resource"):
            await connect(url, OAuthClient(redirect_handler=Browser()))
        assert provider.grants == ["authorization_code"]
        assert rec.seen == []


async def test_token_is_only_sent_to_its_resource() -> None:
    """Requests to another origin or another path than the resource carry no token."""
    prm = {"resource": "{base}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm) as (url, _, rec, other):
        oauth = OAuthClient(redirect_handler=Browser())
        async with aiohttp.ClientSession() as http:

            async def raw(method: str, u: str, h: Any, body: Any, stream: bool) -> Any:
                return await http.request(method, u, headers=h, data=body)

            first = await oauth.send(http, raw, "POST", url, {}, b"{}", False)
            assert first.status == 200
            token = await oauth.storage.get_token(url)
            assert token is not None
            for elsewhere in (f"{other}/mcp", url.replace("/mcp", "/admin")):
                response = await oauth.send(http, raw, "POST", elsewhere, {}, b"{}", False)
                response.close()
        assert rec.seen and rec.authorizations() == []


async def test_pre_registered_credentials_stay_with_their_issuer() -> None:
    """Credentials pre-registered for another issuer are not offered; the client registers."""
    prm = {"resource": "{base}/mcp", "authorization_servers": ["{issuer}"]}
    async with fake_world(prm) as (url, provider, _, _):
        elsewhere = ClientInfo("someone-elses", "secret", issuer="https://as.example.com")
        browser = Browser()
        with pytest.raises(MCPError):  # authorized; the fake server then answers no MCP
            await connect(url, OAuthClient(redirect_handler=browser, credentials=elsewhere))
        assert provider.grants == ["authorization_code"]
        assert "client_id=someone-elses" not in browser.visited[0]
        assert len(provider.clients) == 1


async def test_oauth_endpoints_refuse_plain_http_and_foreign_redirects() -> None:
    """Plain HTTP off this machine is refused; a metadata redirect to another origin too."""
    async with aiohttp.ClientSession() as http:
        with pytest.raises(InsecureEndpoint, match="must be HTTPS"):
            await OAuthHttp(http).fetch("GET", "http://example.com/.well-known/x")
    sock, target = bound_socket(), bound_socket()

    async def redirect(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await respond(send, 302, b"", {"location": url_of(target) + "/doc"})

    async with (
        serve_asgi(redirect, sock) as base,
        serve_asgi(Recorder(), target),
        aiohttp.ClientSession() as http,
    ):
        with pytest.raises(InsecureEndpoint, match="another origin"):
            await OAuthHttp(http).fetch("GET", base + "/.well-known/oauth-authorization-server")


@pytest.mark.parametrize("case", ["inactive", "audience", "expired"])
async def test_introspection_refuses_bad_tokens(case: str) -> None:
    """The introspection verifier refuses inactive, foreign and expired tokens."""
    async with running(introspection=True) as s:
        token = {
            "inactive": "not-issued-here",
            "audience": s.provider.access_token("c", ["mcp:read"], "https://other.example/mcp"),
            "expired": s.provider.access_token("c", ["mcp:read"], s.mcp_url, ttl=-10),
        }[case]
        response = await post(s.mcp_url, token)
        assert response.status_code == 401
        params = challenge_of(response)
        assert params["error"] == "invalid_token"
        assert {"inactive": "not active", "audience": "audience", "expired": "not active"}[
            case
        ] in params["error_description"]


async def test_oversized_body_cannot_skip_method_scopes() -> None:
    """A body too large to read its method is refused (413), never passed with base scopes."""
    calls: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        calls.append(scope["path"])
        await respond(send, 200, b"{}")

    provider = Provider("https://as.example.com")
    resource = ProtectedResource(
        resource="http://testserver/mcp",
        authorization_servers=(provider.issuer,),
        scopes_for=scopes_by_method({"tools/call": ["mcp:write"]}),
    )
    verifier = JWTVerifier(
        issuer=provider.issuer, audience=resource.resource, key=provider.key.public_key()
    )
    app = ProtectedMcpApp(inner, resource, verifier, max_body=1000)
    token = provider.access_token("c", ["mcp:read"], resource.resource)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x" * 2000}}
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        big = await http.post("/mcp", json=call, headers=headers)
        small = await http.post("/mcp", json={**call, "params": {"name": "x"}}, headers=headers)
        plain = await http.post("/mcp", json=INIT, headers=headers)
    assert big.status_code == 413 and small.status_code == 403 and plain.status_code == 200
    assert calls == ["/mcp"]


async def test_websocket_scopes_are_refused() -> None:
    """Only HTTP (checked) and lifespan reach the wrapped app; a WebSocket is closed."""
    reached: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    resource = ProtectedResource(resource="http://testserver/mcp", authorization_servers=())
    verifier = JWTVerifier(issuer="https://as.example.com", audience="x", key="k")
    app = ProtectedMcpApp(inner, resource, verifier)
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    await app({"type": "websocket", "path": "/mcp", "headers": []}, receive, send)
    await app({"type": "lifespan"}, receive, send)
    assert sent == [{"type": "websocket.close", "code": 1008}]
    assert reached == ["lifespan"]
