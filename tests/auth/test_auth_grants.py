"""DPoP proofs (RFC 9449), the JWT bearer grant (RFC 7523) and enterprise-managed authorization
(RFC 8693 token exchange, then the JWT bearer grant), against a small authorization server,
identity provider and MCP endpoint that check what arrives on the wire."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import jwt
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from generated._runtime.auth import AuthorizationError, ClientInfo, OAuthClient, TokenError
from generated._runtime.auth.crypto import s256
from generated._runtime.auth.dpop import MAX_NONCES, DPoP
from generated._runtime.auth.grants import ID_JAG, EnterpriseGrant, JwtBearerGrant
from generated._runtime.auth.metadata import AuthServerMetadata
from tests.support.http_support import bounded

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def read_proof(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and claims of a DPoP proof, its signature checked with its own ``jwk``."""
    header = jwt.get_unverified_header(proof)
    key = jwt.PyJWK(header["jwk"], header["alg"]).key
    return header, jwt.decode(proof, key, algorithms=[header["alg"]])


# -- the proof ---------------------------------------------------------------------------------


def test_proof_carries_what_rfc_9449_requires() -> None:
    """typ, public jwk, htm, htu without query or fragment, iat, a fresh jti, ath for a token."""
    dpop = DPoP()
    header, claims = read_proof(dpop.proof("post", "https://as.example/token?x=1#f"))
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert header["jwk"]["kty"] == "EC" and "d" not in header["jwk"]
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example/token"
    assert abs(claims["iat"] - time.time()) < 300
    assert "ath" not in claims and "nonce" not in claims
    _, second = read_proof(dpop.proof("GET", "https://mcp.example/mcp", "tok-1"))
    assert second["jti"] != claims["jti"]
    assert second["ath"] == s256("tok-1")


def test_nonces_are_per_server_and_bounded() -> None:
    """A nonce goes only into proofs for its server; few are kept; huge ones are ignored."""
    dpop = DPoP()
    assert dpop.retry_with_nonce("https://a.example/token", {"DPoP-Nonce": "n1"}, "use_dpop_nonce")
    assert not dpop.retry_with_nonce("https://a.example/x", {"DPoP-Nonce": "n1"}, "use_dpop_nonce")
    assert not dpop.retry_with_nonce("https://b.example/", {"DPoP-Nonce": "n"}, "invalid_token")
    assert read_proof(dpop.proof("POST", "https://a.example/other"))[1]["nonce"] == "n1"
    assert not dpop.remember("https://c.example/", {"DPoP-Nonce": "x" * 5000})
    assert "nonce" not in read_proof(dpop.proof("POST", "https://c.example/"))[1]
    for i in range(MAX_NONCES + 5):
        dpop.remember(f"https://s{i}.example/", {"DPoP-Nonce": f"n{i}"})
    assert "nonce" not in read_proof(dpop.proof("POST", "https://s0.example/"))[1]
    last = f"https://s{MAX_NONCES + 4}.example/"
    assert read_proof(dpop.proof("POST", last))[1]["nonce"] == f"n{MAX_NONCES + 4}"


def test_keys_and_algorithms() -> None:
    """A PEM key of the application's; symmetric algorithms refused; an authorization server
    that lists other algorithms refused."""
    pem = (
        ec.generate_private_key(ec.SECP384R1())
        .private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        .decode()
    )
    header, _ = read_proof(DPoP(pem, "ES384").proof("POST", "https://as.example/token"))
    assert header["alg"] == "ES384" and header["jwk"]["crv"] == "P-384"
    with pytest.raises(ValueError, match="asymmetric"):
        DPoP(algorithm="HS256")
    metadata = AuthServerMetadata("https://as.example", dpop_signing_alg_values_supported=["RS256"])
    with pytest.raises(AuthorizationError, match="RS256, not ES256"):
        DPoP().check_server(metadata)


# -- a small authorization server, identity provider and MCP endpoint --------------------------


@dataclass
class World:
    """What the fake servers saw, and how they behave."""

    base: str = ""
    token_forms: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    token_headers: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    idp_forms: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    mcp_headers: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    as_nonce: Callable[[int], str | None] = lambda _: None
    """The nonce the token endpoint wants at its n-th request (None: no nonce needed)."""
    rs_nonce: str | None = None
    token_answer: dict[str, Any] = field(
        default_factory=lambda: {"access_token": "tok-1", "token_type": "Bearer"}
    )
    token_status: int = 200
    idp_answer: dict[str, Any] = field(
        default_factory=lambda: {
            "access_token": "id-jag-1",
            "issued_token_type": ID_JAG,
            "token_type": "N_A",
        }
    )


def app_of(world: World) -> web.Application:
    """Routes of the authorization server (``/token``), IdP (``/idp/token``) and ``/mcp``."""

    async def prm(request: web.Request) -> web.Response:
        return web.json_response(
            {"resource": f"{world.base}/mcp", "authorization_servers": [world.base]}
        )

    async def metadata(request: web.Request) -> web.Response:
        return web.json_response(
            {
                "issuer": world.base,
                "token_endpoint": f"{world.base}/token",
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            }
        )

    async def token(request: web.Request) -> web.Response:
        form = {k: str(v) for k, v in (await request.post()).items()}
        world.token_forms.append(form)
        world.token_headers.append(dict(request.headers))
        wanted = world.as_nonce(len(world.token_forms))
        if wanted is not None:
            _, claims = read_proof(request.headers["DPoP"])
            if claims.get("nonce") != wanted:
                body = {"error": "use_dpop_nonce"}
                return web.json_response(body, status=400, headers={"dpop-nonce": wanted})
        return web.json_response(world.token_answer, status=world.token_status)

    async def idp_token(request: web.Request) -> web.Response:
        world.idp_forms.append({k: str(v) for k, v in (await request.post()).items()})
        return web.json_response(world.idp_answer)

    async def mcp(request: web.Request) -> web.Response:
        world.mcp_headers.append(dict(request.headers))
        challenge = f'resource_metadata="{world.base}/.well-known/oauth-protected-resource/mcp"'
        if "Authorization" not in request.headers:
            return web.json_response(
                {}, status=401, headers={"WWW-Authenticate": "DPoP " + challenge}
            )
        if world.rs_nonce is not None:
            _, claims = read_proof(request.headers["DPoP"])
            if claims.get("nonce") != world.rs_nonce:
                www = f'DPoP error="use_dpop_nonce", {challenge}'
                headers = {"WWW-Authenticate": www, "DPoP-Nonce": world.rs_nonce}
                return web.json_response({}, status=401, headers=headers)
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_get("/.well-known/oauth-protected-resource/mcp", prm)
    app.router.add_get("/.well-known/oauth-authorization-server", metadata)
    app.router.add_post("/token", token)
    app.router.add_post("/idp/token", idp_token)
    app.router.add_post("/mcp", mcp)
    return app


@asynccontextmanager
async def serving(world: World) -> AsyncIterator[World]:
    """The fake servers on a free loopback port."""
    runner = web.AppRunner(app_of(world))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    world.base = f"http://{host}:{port}"
    try:
        yield world
    finally:
        await runner.cleanup()


async def post_mcp(oauth: OAuthClient, world: World) -> int:
    """One POST to the MCP endpoint through ``OAuthClient.send``; its status."""
    async with aiohttp.ClientSession() as http:

        async def raw_send(
            method: str, url: str, headers: Any, body: bytes | None, stream: bool
        ) -> aiohttp.ClientResponse:
            return await http.request(
                method, url, headers=dict(headers), data=body, allow_redirects=False
            )

        sent = {"Content-Type": "application/json"}
        response = await oauth.send(http, raw_send, "POST", f"{world.base}/mcp", sent, b"{}", False)
        response.release()
        return response.status


# -- DPoP on the wire --------------------------------------------------------------------------


@bounded
async def test_dpop_token_and_resource_requests_with_nonce_retries() -> None:
    """A proof at the token endpoint, retried once with the AS nonce; the DPoP token sent as
    ``Authorization: DPoP`` with a proof bound to it, retried once with the RS nonce; the
    nonce is then used at once."""
    world = World(
        as_nonce=lambda n: "as-n1",
        rs_nonce="rs-n1",
        token_answer={"access_token": "tok-1", "token_type": "DPoP", "expires_in": 3600},
    )
    dpop = DPoP()
    oauth = OAuthClient(grant=JwtBearerGrant("workload.jwt"), dpop=dpop)
    async with serving(world):
        assert await post_mcp(oauth, world) == 200
        assert len(world.token_headers) == 2  # without nonce, then with the server's
        token_url = f"{world.base}/token"
        for headers in world.token_headers:
            header, claims = read_proof(headers["DPoP"])
            assert header["jwk"] == dpop.jwk and claims["htu"] == token_url
            assert claims["htm"] == "POST" and "ath" not in claims
        assert read_proof(world.token_headers[1]["DPoP"])[1]["nonce"] == "as-n1"
        first, stale, good = world.mcp_headers
        assert "Authorization" not in first
        for headers in (stale, good):
            assert headers["Authorization"] == "DPoP tok-1"
            claims = read_proof(headers["DPoP"])[1]
            assert claims["ath"] == s256("tok-1") and claims["htu"] == f"{world.base}/mcp"
        assert read_proof(stale["DPoP"])[1].get("nonce") != "rs-n1"  # (the AS's: same origin)
        assert read_proof(good["DPoP"])[1]["nonce"] == "rs-n1"
        assert await post_mcp(oauth, world) == 200
        assert len(world.mcp_headers) == 4  # the kept nonce: no second challenge
        jtis = {read_proof(h["DPoP"])[1]["jti"] for h in world.mcp_headers[1:]}
        assert len(jtis) == 3


@bounded
async def test_dpop_nonce_retry_happens_once() -> None:
    """A token endpoint asking for a new nonce every time gets two requests, then an error."""
    world = World(as_nonce=lambda n: f"as-n{n}")
    oauth = OAuthClient(grant=JwtBearerGrant("workload.jwt"), dpop=DPoP())
    async with serving(world):
        with pytest.raises(TokenError, match="use_dpop_nonce"):
            await post_mcp(oauth, world)
        assert len(world.token_forms) == 2


@bounded
async def test_bearer_answer_without_a_proof_is_refused_as_dpop() -> None:
    """Without a DPoP key, a DPoP token is not accepted (it could not be used)."""
    world = World(token_answer={"access_token": "t", "token_type": "DPoP"})
    async with serving(world):
        with pytest.raises(TokenError, match="'DPoP' token, not Bearer"):
            await post_mcp(OAuthClient(grant=JwtBearerGrant("w.jwt")), world)
        assert "DPoP" not in world.token_headers[0]


# -- the JWT bearer grant and enterprise-managed authorization ---------------------------------


@bounded
async def test_workload_jwt_bearer_grant_and_no_retry_on_refusal() -> None:
    """The workload's JWT (fresh from its function) as ``assertion``; a refusal surfaces the
    server's error after one request, with no other grant tried."""
    issued: list[str] = []

    async def workload_jwt() -> str:
        issued.append(f"jwt-{len(issued)}")
        return issued[-1]

    world = World(token_status=400, token_answer={"error": "invalid_grant"})
    credentials = ClientInfo("workload-1")
    oauth = OAuthClient(grant=JwtBearerGrant(workload_jwt), credentials=credentials)
    async with serving(world):
        with pytest.raises(TokenError, match="invalid_grant"):
            await post_mcp(oauth, world)
        (form,) = world.token_forms
        assert form == {
            "grant_type": JWT_BEARER,
            "assertion": "jwt-0",
            "resource": f"{world.base}/mcp",
            "client_id": "workload-1",
        }
        world.token_status, world.token_answer = 200, {"access_token": "t", "token_type": "Bearer"}
        assert await post_mcp(oauth, world) == 200
        assert world.token_forms[-1]["assertion"] == "jwt-1"
        assert world.mcp_headers[-1]["Authorization"] == "Bearer t"


@bounded
async def test_enterprise_grant_exchanges_the_id_token_then_presents_the_id_jag() -> None:
    """Token exchange at the IdP for an ID-JAG addressed to the authorization server and the
    MCP server; the ID-JAG with the JWT bearer grant and the client's secret."""
    world = World()
    async with serving(world):
        grant = EnterpriseGrant(f"{world.base}/idp/token", "id-token-1", ClientInfo("idp-client"))
        credentials = ClientInfo("mcp-client", "mcp-secret")
        oauth = OAuthClient(grant=grant, credentials=credentials, scope="notes:read")
        assert await post_mcp(oauth, world) == 200
        (exchange,) = world.idp_forms
        assert exchange == {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "requested_token_type": ID_JAG,
            "audience": world.base,
            "resource": f"{world.base}/mcp",
            "subject_token": "id-token-1",
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "scope": "notes:read",
            "client_id": "idp-client",
        }
        (form,) = world.token_forms
        assert form["grant_type"] == JWT_BEARER and form["assertion"] == "id-jag-1"
        assert form["resource"] == f"{world.base}/mcp" and form["scope"] == "notes:read"
        assert world.token_headers[0]["Authorization"].startswith("Basic ")
        assert world.mcp_headers[-1]["Authorization"] == "Bearer tok-1"


@bounded
async def test_enterprise_grant_refuses_what_is_not_an_id_jag() -> None:
    """An IdP answer of another token type is refused before the authorization server."""
    world = World(idp_answer={"access_token": "x", "issued_token_type": "urn:other"})
    async with serving(world):
        grant = EnterpriseGrant(f"{world.base}/idp/token", "id-token-1")
        with pytest.raises(TokenError, match="not an ID-JAG"):
            await post_mcp(OAuthClient(grant=grant), world)
        assert world.token_forms == []
