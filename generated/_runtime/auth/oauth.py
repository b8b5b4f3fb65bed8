# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The OAuth 2.1 client steps, each one HTTP exchange: discovery, registration, tokens.

``OAuthHttp`` fetches metadata and talks to the authorization server's endpoints over the
transport's aiohttp session, with no bearer token ever attached, no redirect to another
origin followed, bodies bounded, and HTTPS required (HTTP only on this machine).
The orchestration (when to run which step, what to keep) is in ``client.py``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from urllib.parse import urljoin

import aiohttp
import msgspec

from .dpop import DPoP
from .errors import (
    AuthorizationError,
    DiscoveryError,
    InsecureEndpoint,
    MetadataMismatch,
    RegistrationError,
    TokenError,
)
from .metadata import (
    AS_DECODER,
    CLIENT_DECODER,
    ERROR_DECODER,
    PRM_DECODER,
    TOKEN_DECODER,
    AuthServerMetadata,
    Challenge,
    ClientInfo,
    ProtectedResourceMetadata,
    TokenResponse,
    as_metadata_urls,
    basic_authorization,
    canonical_resource,
    is_secure,
    origin,
    prm_urls,
    resource_covers,
)
from .storage import StoredToken

MAX_DOCUMENT: Final = 1024 * 1024
"""Largest metadata document or token answer read (bytes)."""
MAX_REDIRECTS: Final = 3
"""Same-origin redirects followed when fetching metadata."""
TIMEOUT_S: Final = 30.0
FORM: Final = "application/x-www-form-urlencoded"
T = TypeVar("T")


@dataclass(frozen=True)
class Discovery:
    """What discovery found for one protected resource."""

    resource: str
    """The resource identifier sent as ``resource`` (the metadata's, else the canonical URI)."""
    issuer: str
    metadata: AuthServerMetadata
    prm: ProtectedResourceMetadata | None = None
    """None: the server has no protected resource metadata (2025-03-26 discovery)."""


class OAuthHttp:
    """The HTTP exchanges of the OAuth client, over one aiohttp session."""

    def __init__(self, http: aiohttp.ClientSession, protocol_version: str | None = None) -> None:
        self.http = http
        self.headers = {"Accept": "application/json"}
        if protocol_version:
            self.headers["MCP-Protocol-Version"] = protocol_version

    # -- plumbing ----------------------------------------------------------------------------

    async def fetch(
        self,
        method: str,
        url: str,
        *,
        data: dict[str, str] | bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes, Mapping[str, str]]:
        """One request to an OAuth endpoint (status, body, headers); same-origin redirects of a
        GET are followed."""
        sent = {**self.headers, **(headers or {})}
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        for _ in range(MAX_REDIRECTS + 1):
            if not is_secure(url):
                raise InsecureEndpoint(f"refused to use {url}: OAuth endpoints must be HTTPS")
            try:
                async with self.http.request(
                    method, url, data=data, headers=sent, allow_redirects=False, timeout=timeout
                ) as response:
                    location = response.headers.get("Location")
                    if 300 <= response.status < 400 and location:
                        target = urljoin(url, location)
                        if origin(target).lower() != origin(url).lower() or method != "GET":
                            raise InsecureEndpoint(
                                f"{url} redirected to {target}: another origin (or a POST), "
                                "not followed"
                            )
                        url = target
                        continue
                    body = await response.content.read(MAX_DOCUMENT + 1)
                    if len(body) > MAX_DOCUMENT:
                        raise DiscoveryError(f"{url} answered more than {MAX_DOCUMENT} bytes")
                    return response.status, body, response.headers.copy()
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise DiscoveryError(f"{method} {url} failed: {exc!r}") from None
        raise InsecureEndpoint(f"{url}: more than {MAX_REDIRECTS} redirects")

    # -- discovery ---------------------------------------------------------------------------

    async def protected_resource(
        self, server_url: str, challenge: Challenge
    ) -> ProtectedResourceMetadata | None:
        """The server's protected resource metadata (RFC 9728), checked to be about it."""
        for url in prm_urls(server_url, challenge.resource_metadata):
            try:
                status, body, _ = await self.fetch("GET", url)
            except InsecureEndpoint:
                continue
            if status != 200:
                continue
            try:
                prm = PRM_DECODER.decode(body)
            except msgspec.DecodeError:
                continue
            if not prm.resource or not resource_covers(prm.resource, server_url):
                raise MetadataMismatch(
                    f"the protected resource metadata at {url} is for {prm.resource!r}, not for "
                    f"{server_url}: refused"
                )
            if not prm.authorization_servers:
                raise DiscoveryError(
                    f"the protected resource metadata at {url} names no authorization server"
                )
            return prm
        return None

    async def server_metadata(self, issuer: str) -> AuthServerMetadata | None:
        """An issuer's metadata from the well-known URLs in order; its ``issuer`` must match."""
        mismatch: MetadataMismatch | None = None
        for url in as_metadata_urls(issuer):
            status, body, _ = await self.fetch("GET", url)
            if status != 200:
                continue
            try:
                metadata = AS_DECODER.decode(body)
            except msgspec.DecodeError:
                continue
            if metadata.issuer != issuer:
                mismatch = MetadataMismatch(
                    f"the authorization server metadata at {url} names issuer "
                    f"{metadata.issuer!r}, not {issuer!r}: refused"
                )
                continue
            return metadata
        if mismatch is not None:
            raise mismatch
        return None

    async def discover(self, server_url: str, challenge: Challenge) -> Discovery:
        """Protected resource metadata, then the authorization server's metadata; without the
        former, the 2025-03-26 rules (metadata at the server's root, else default endpoints)."""
        prm = await self.protected_resource(server_url, challenge)
        if prm is None:
            base = origin(server_url)
            endpoints = await self.server_metadata(base) or default_endpoints(base)
            return Discovery(canonical_resource(server_url), base, endpoints)
        assert prm.resource is not None
        mismatches: list[str] = []
        missing: list[str] = []
        for issuer in prm.authorization_servers:
            try:
                metadata = await self.server_metadata(issuer)
            except MetadataMismatch as exc:
                mismatches.append(str(exc))
                continue
            if metadata is not None:
                return Discovery(prm.resource, issuer, metadata, prm)
            missing.append(f"no metadata found for {issuer}")
        if mismatches and not missing:
            raise MetadataMismatch("; ".join(mismatches))
        why = "; ".join(mismatches + missing)
        raise DiscoveryError(f"no usable authorization server for {server_url}: {why}")

    # -- registration and tokens -------------------------------------------------------------

    async def register(self, endpoint: str, document: dict[str, Any], issuer: str) -> ClientInfo:
        """Dynamic client registration (RFC 7591)."""
        status, body, _ = await self.fetch(
            "POST",
            endpoint,
            data=msgspec.json.encode(document),
            headers={"Content-Type": "application/json"},
        )
        what = f"registration at {endpoint}"
        client = _answer(CLIENT_DECODER, status, body, (200, 201), RegistrationError, what)
        method = client.token_endpoint_auth_method
        if method is None:
            method = "client_secret_basic" if client.client_secret else "none"
        return msgspec.structs.replace(client, token_endpoint_auth_method=method, issuer=issuer)

    async def token(
        self,
        endpoint: str,
        form: dict[str, str],
        headers: dict[str, str],
        dpop: DPoP | None = None,
        *,
        access: bool = True,
    ) -> TokenResponse:
        """One token request (any grant). With ``access`` the answer must be an access token
        we can use: Bearer, or DPoP when we sent a proof (else any type, as a token exchange
        answers). With ``dpop`` each attempt carries a fresh proof and a ``use_dpop_nonce``
        refusal is retried once with the server's nonce."""
        for attempt in range(2):
            sent = {"Content-Type": FORM, **headers}
            if dpop is not None:
                sent["DPoP"] = dpop.proof("POST", endpoint)
            status, body, got = await self.fetch("POST", endpoint, data=form, headers=sent)
            if dpop is not None and status != 200:
                if dpop.retry_with_nonce(endpoint, got, _error_code(body)) and not attempt:
                    continue
            elif dpop is not None:
                dpop.remember(endpoint, got)
            what = f"the token endpoint {endpoint}"
            answer = _answer(TOKEN_DECODER, status, body, (200,), TokenError, what)
            usable = {"bearer": "Bearer", "dpop": "DPoP"} if dpop else {"bearer": "Bearer"}
            if access and answer.token_type.lower() not in usable:
                raise TokenError(
                    f"the token endpoint issued a {answer.token_type!r} token, not "
                    + " or ".join(usable.values())
                )
            return answer
        raise TokenError(f"the token endpoint {endpoint} asked for a new DPoP nonce twice")


def default_endpoints(base: str) -> AuthServerMetadata:
    """The 2025-03-26 default endpoints of a server without metadata (PKCE assumed)."""
    return AuthServerMetadata(
        issuer=base,
        authorization_endpoint=f"{base}/authorize",
        token_endpoint=f"{base}/token",
        registration_endpoint=f"{base}/register",
        code_challenge_methods_supported=["S256"],
    )


def client_authentication(
    client: ClientInfo, metadata: AuthServerMetadata, assertion: str | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """The form fields and headers that authenticate ``client`` at the token endpoint."""
    method = client.token_endpoint_auth_method or _default_method(client, metadata)
    if method == "private_key_jwt":
        if assertion is None:
            raise TokenError("private_key_jwt needs a private key")
        form = {
            "client_id": client.client_id,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion,
        }
        return form, {}
    if method == "client_secret_basic" and client.client_secret is not None:
        basic = basic_authorization(client.client_id, client.client_secret)
        return {"client_id": client.client_id}, {"Authorization": basic}  # RFC 6749 3.2.1
    if method == "client_secret_post" and client.client_secret is not None:
        return {"client_id": client.client_id, "client_secret": client.client_secret}, {}
    return {"client_id": client.client_id}, {}


def _default_method(client: ClientInfo, metadata: AuthServerMetadata) -> str:
    """A method for credentials that name none: what the server supports, basic first."""
    if client.client_secret is None:
        return "none"
    supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    for method in ("client_secret_basic", "client_secret_post"):
        if method in supported:
            return method
    return "client_secret_basic"


def stored_token(answer: TokenResponse, found: Discovery, scope: str | None) -> StoredToken:
    """The token to keep from a token endpoint answer."""
    expires = time.time() + answer.expires_in if answer.expires_in is not None else None
    return StoredToken(
        access_token=answer.access_token,
        resource=found.resource,
        issuer=found.issuer,
        token_type="DPoP" if answer.token_type.lower() == "dpop" else "Bearer",
        expires_at=expires,
        refresh_token=answer.refresh_token,
        scope=scope if scope is not None else answer.scope,
    )


def _answer(
    decoder: msgspec.json.Decoder[T],
    status: int,
    body: bytes,
    ok: tuple[int, ...],
    error: type[AuthorizationError],
    what: str,
) -> T:
    """The decoded answer of an endpoint, or ``error`` saying what it refused or sent."""
    if status not in ok:
        raise error(f"{what} refused: {_describe(status, body)}")
    try:
        return decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise error(f"{what}: unusable answer ({exc})") from None


def _error_code(body: bytes) -> str | None:
    """The ``error`` of an OAuth error answer, if it is one."""
    try:
        return ERROR_DECODER.decode(body).error
    except msgspec.DecodeError:
        return None


def _describe(status: int, body: bytes) -> str:
    """``HTTP 400 invalid_grant (description)`` from an error answer."""
    try:
        error = ERROR_DECODER.decode(body)
    except msgspec.DecodeError:
        return f"HTTP {status}"
    text = f"HTTP {status} {error.error}".strip()
    return f"{text} ({error.error_description})" if error.error_description else text
