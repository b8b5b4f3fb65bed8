# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The OAuth 2.1 client of an MCP client: gets, keeps, refreshes and attaches bearer tokens.

Give an ``OAuthClient`` to the HTTP transport (``StreamableHTTPTransport(url, auth=...)``);
every HTTP request then goes through ``OAuthClient.send``:

- a kept token is attached only to URLs of the protected resource it was issued for;
- a 401 runs discovery (protected resource metadata, authorization server metadata), client
  registration (pre-registered credentials, a Client ID Metadata Document, or dynamic
  registration, in that order), then the authorization code grant with PKCE S256 and the
  ``resource`` parameter (or the ``client_credentials`` grant), and the request is retried once;
- a 403 ``insufficient_scope`` re-authorizes with the union of the scopes held and challenged,
  at most ``max_step_up`` times per request, and never again for a challenged set of scopes a
  re-authorization for exactly that set did not get granted;
- an expired token is refreshed first when a refresh token is kept;
- with ``dpop=DPoP()`` every token request and every request carrying the token has a fresh
  DPoP proof (RFC 9449, ``dpop.py``), and a ``use_dpop_nonce`` refusal is retried once with the
  server's nonce; ``grant=JwtBearerGrant(...)`` or ``EnterpriseGrant(...)`` get the token with
  a JWT instead of a user at a browser (``grants.py``).

The application supplies ``redirect_handler``: it sends the user to the authorization URL
(opens a browser) and returns the URL the authorization server redirected back to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import aiohttp
import msgspec

from ..transports.http.base import RawSend
from .crypto import client_assertion, pkce_pair, random_state
from .dpop import DPoP
from .errors import (
    AuthorizationError,
    AuthorizationResponseError,
    InsecureEndpoint,
    RegistrationError,
    TokenError,
)
from .grants import EnterpriseGrant, JwtBearerGrant, assertion_for, jwt_bearer_form
from .metadata import (
    AuthServerMetadata,
    Challenge,
    ClientInfo,
    bearer_challenge,
    canonical_resource,
    is_loopback,
    is_secure,
    resource_covers,
)
from .oauth import Discovery, OAuthHttp, client_authentication, stored_token
from .storage import InMemoryTokenStorage, StoredToken, TokenStorage

RedirectHandler = Callable[[str], Awaitable[str]]
"""Sends the user to an authorization URL; returns the URL they were redirected back to."""
DEFAULT_REDIRECT_URI: Final = "http://localhost:3030/callback"
MAX_STEP_UP: Final = 2
"""Re-authorizations for more scope per request (with the first one: at most 3 attempts)."""


class OAuthClient:
    """Authorization for one MCP server (see the module docstring)."""

    def __init__(
        self,
        *,
        redirect_handler: RedirectHandler | None = None,
        redirect_uri: str = DEFAULT_REDIRECT_URI,
        client_name: str = "mcpgen client",
        client_metadata_url: str | None = None,
        credentials: ClientInfo | Sequence[ClientInfo] = (),
        grant: Literal["authorization_code", "client_credentials"]
        | JwtBearerGrant
        | EnterpriseGrant = "authorization_code",
        private_key: Any = None,
        signing_algorithm: str = "RS256",
        storage: TokenStorage | None = None,
        scope: str | None = None,
        offline_access: bool = True,
        max_step_up: int = MAX_STEP_UP,
        application_type: Literal["native", "web"] | None = None,
        dpop: DPoP | None = None,
    ) -> None:
        if grant == "authorization_code" and redirect_handler is None:
            raise ValueError("the authorization code grant needs a redirect_handler")
        self.redirect_handler = redirect_handler
        self.redirect_uri = redirect_uri
        self.client_name = client_name
        self.client_metadata_url = client_metadata_url
        """An HTTPS URL whose document describes this client (used as its client id)."""
        self.credentials = [credentials] if isinstance(credentials, ClientInfo) else [*credentials]
        """Pre-registered client ids; each for its ``issuer`` (None: any authorization server)."""
        self.grant = grant
        self.private_key = private_key
        """A PEM key (or key object) for ``private_key_jwt`` client authentication."""
        self.signing_algorithm = signing_algorithm
        self.storage: TokenStorage = storage if storage is not None else InMemoryTokenStorage()
        self.scope = scope
        """Scopes to ask for, overriding the challenge and the metadata."""
        self.offline_access = offline_access
        """Ask for ``offline_access`` (a refresh token) when the server lists it."""
        self.max_step_up = max_step_up
        self.dpop = dpop
        """The key DPoP proofs are signed with (None: bearer tokens only)."""
        self.application_type = application_type or (
            "native" if is_loopback(redirect_uri) else "web"
        )
        """For dynamic registration: ``native`` for a redirect URI on this machine, else ``web``."""
        self.server_url: str | None = None
        """The MCP endpoint this client authorizes for (the first URL it sends to)."""
        self.discovery: Discovery | None = None
        """What the last discovery found."""
        self._lock = asyncio.Lock()
        self._futile: set[frozenset[str]] = set()
        """Challenged scope sets a step-up did not get granted: not asked for again."""

    # -- the transport hook --------------------------------------------------------------

    async def send(
        self,
        http: aiohttp.ClientSession,
        raw_send: RawSend,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        stream: bool,
    ) -> aiohttp.ClientResponse:
        """Send one HTTP request with our token; authorize on 401 and step up on 403."""
        if self.server_url is None:
            self.server_url = url
        oauth = OAuthHttp(http, headers.get("MCP-Protocol-Version"))
        authorized, step_ups, stepped_for, nonce_retried = False, 0, frozenset[str](), False
        schemes = ("dpop", "bearer") if self.dpop is not None else ("bearer", "dpop")
        while True:
            token = await self._token_for(oauth, url)
            sent = self._authorization(dict(headers), method, url, token)
            response: aiohttp.ClientResponse = await raw_send(method, url, sent, body, stream)
            status = response.status
            challenge = bearer_challenge(response.headers.getall("WWW-Authenticate", []), schemes)
            if self.dpop is not None and "DPoP" in sent:
                if status == 401 and not nonce_retried:
                    if self.dpop.retry_with_nonce(url, response.headers, challenge.error):
                        response.close()  # RFC 9449 section 9: once more with the nonce
                        nonce_retried = True
                        continue
                else:
                    self.dpop.remember(url, response.headers)
            if status not in (401, 403) or url != self.server_url:
                self._check_redirect(response, url, token)
                return response
            if status == 401:
                if authorized:
                    response.close()
                    raise AuthorizationError(
                        f"{url} refused the token it was just issued (HTTP 401, "
                        f"{challenge.params.get('error_description') or challenge.error})"
                    )
                response.close()
                await self._authorize(oauth, url, challenge, token, step_up=False)
                authorized = True
                continue
            asked = frozenset((challenge.scope or "").split())
            if step_ups and asked == stepped_for:
                self._futile.add(asked)  # re-authorized for exactly these: not granted
            if (
                challenge.error != "insufficient_scope"
                or step_ups >= self.max_step_up
                or asked in self._futile
            ):
                return response  # the request fails with HTTP 403; the connection stays
            response.close()
            await self._authorize(oauth, url, challenge, token, step_up=True)
            step_ups, stepped_for = step_ups + 1, asked

    def _authorization(
        self, sent: dict[str, str], method: str, url: str, token: StoredToken | None
    ) -> dict[str, str]:
        """``sent`` with the token: ``Bearer``, or ``DPoP`` with a fresh proof."""
        if token is None:
            return sent
        if token.token_type == "DPoP" and self.dpop is not None:
            sent["Authorization"] = f"DPoP {token.access_token}"
            sent["DPoP"] = self.dpop.proof(method, url, token.access_token)
        else:
            sent["Authorization"] = f"Bearer {token.access_token}"
        return sent

    def _check_redirect(
        self, response: aiohttp.ClientResponse, url: str, token: StoredToken | None
    ) -> None:
        """A redirect away from the protected resource is refused (it is never followed)."""
        location = response.headers.get("Location")
        if token is None or not 300 <= response.status < 400 or not location:
            return
        target = urljoin(url, location)
        if not resource_covers(token.resource, target):
            response.close()
            raise InsecureEndpoint(
                f"{url} redirected to {target}, outside the protected resource "
                f"{token.resource}: not followed, no token sent there"
            )

    # -- tokens --------------------------------------------------------------------------

    def _key(self) -> str:
        assert self.server_url is not None
        return canonical_resource(self.server_url)

    async def _token_for(self, oauth: OAuthHttp, url: str) -> StoredToken | None:
        """The kept token if ``url`` belongs to its resource (refreshed if it expired)."""
        token = await self.storage.get_token(self._key())
        if token is None or not resource_covers(token.resource, url):
            return None
        if not token.expired():
            return token
        async with self._lock:
            token = await self.storage.get_token(self._key())
            if token is None or not token.expired():
                return token
            found = self.discovery
            if token.refresh_token and found is not None and found.issuer == token.issuer:
                try:
                    return await self._refresh(oauth, found, token)
                except TokenError:
                    pass
            await self.storage.set_token(self._key(), None)
            return None

    async def _authorize(
        self,
        oauth: OAuthHttp,
        url: str,
        challenge: Challenge,
        stale: StoredToken | None,
        *,
        step_up: bool,
    ) -> None:
        """Get a new token after a 401 (or a 403 asking for more scope)."""
        async with self._lock:
            current = await self.storage.get_token(self._key())
            if not step_up and current is not None and current != stale:
                return  # another request re-authorized meanwhile
            found = await oauth.discover(url, challenge)
            self.discovery = found
            if current is not None and current.issuer != found.issuer:
                current = None  # the resource moved to another authorization server
            if not step_up and current is not None and current.refresh_token:
                try:
                    await self._refresh(oauth, found, current)
                    return
                except TokenError:
                    pass
            previous = current.scope if step_up and current is not None else None
            scope = self._choose_scope(challenge, found, previous)
            if self.grant == "client_credentials":
                token = await self._client_credentials(oauth, found, scope)
            elif isinstance(self.grant, JwtBearerGrant | EnterpriseGrant):
                assertion = await assertion_for(self.grant, oauth, found, scope)
                form = jwt_bearer_form(assertion, found, scope)
                client = self._preregistered(found.issuer)
                answer = await self._token_request(oauth, found.metadata, client, form)
                token = stored_token(answer, found, scope)
            else:
                token = await self._authorization_code(oauth, found, scope)
            await self.storage.set_token(self._key(), token)

    def _choose_scope(
        self, challenge: Challenge, found: Discovery, previous: str | None
    ) -> str | None:
        """The challenge's scopes, else the resource's ``scopes_supported``, else none; on
        step-up with the scopes held; ``offline_access`` when the server lists it."""
        if self.scope is not None:
            wanted = self.scope.split()
        elif challenge.scope:
            wanted = challenge.scope.split()
        elif found.prm is not None and found.prm.scopes_supported:
            wanted = list(found.prm.scopes_supported)
        else:
            wanted = []
        if previous:
            wanted = previous.split() + wanted
        listed = found.metadata.scopes_supported or []
        if (
            self.offline_access
            and self.grant == "authorization_code"
            and "offline_access" in listed
        ):
            wanted.append("offline_access")
        return " ".join(dict.fromkeys(wanted)) or None

    async def _refresh(self, oauth: OAuthHttp, found: Discovery, token: StoredToken) -> StoredToken:
        """Trade the refresh token for a new access token (kept; the old refresh token stays
        if no new one is issued)."""
        assert token.refresh_token is not None
        client = await self._client(oauth, found, register=False)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": token.refresh_token,
            "resource": found.resource,
        }
        answer = await self._token_request(oauth, found.metadata, client, form)
        fresh = stored_token(answer, found, token.scope)
        if fresh.refresh_token is None:
            fresh = msgspec.structs.replace(fresh, refresh_token=token.refresh_token)
        await self.storage.set_token(self._key(), fresh)
        return fresh

    async def _token_request(
        self,
        oauth: OAuthHttp,
        metadata: AuthServerMetadata,
        client: ClientInfo | None,
        form: dict[str, str],
    ) -> Any:
        if metadata.token_endpoint is None:
            raise TokenError(f"the authorization server {metadata.issuer} has no token endpoint")
        if self.dpop is not None:
            self.dpop.check_server(metadata)
        headers: dict[str, str] = {}
        if client is not None:
            assertion = None
            if client.token_endpoint_auth_method == "private_key_jwt":
                assertion = client_assertion(
                    client.client_id, metadata.issuer, self.private_key, self.signing_algorithm
                )
            extra, headers = client_authentication(client, metadata, assertion)
            form = {**form, **extra}
        return await oauth.token(metadata.token_endpoint, form, headers, self.dpop)

    # -- grants --------------------------------------------------------------------------

    async def _client_credentials(
        self, oauth: OAuthHttp, found: Discovery, scope: str | None
    ) -> StoredToken:
        """The ``client_credentials`` grant with the pre-registered credentials."""
        client = self._preregistered(found.issuer)
        if client is None:
            raise RegistrationError(
                f"the client_credentials grant needs credentials for {found.issuer}"
            )
        if self.private_key is not None and client.token_endpoint_auth_method is None:
            client = msgspec.structs.replace(client, token_endpoint_auth_method="private_key_jwt")
        form = {"grant_type": "client_credentials", "resource": found.resource}
        if scope:
            form["scope"] = scope
        answer = await self._token_request(oauth, found.metadata, client, form)
        return stored_token(answer, found, scope)

    async def _authorization_code(
        self, oauth: OAuthHttp, found: Discovery, scope: str | None
    ) -> StoredToken:
        """The authorization code grant with PKCE S256, ``state``, ``resource`` and ``iss``."""
        metadata = found.metadata
        if "S256" not in (metadata.code_challenge_methods_supported or []):
            raise AuthorizationError(
                f"the authorization server {found.issuer} does not list PKCE S256 support "
                "(code_challenge_methods_supported): refused"
            )
        if metadata.authorization_endpoint is None:
            raise AuthorizationError(f"{found.issuer} has no authorization endpoint")
        client = await self._client(oauth, found, register=True)
        assert client is not None and self.redirect_handler is not None
        verifier, challenge = pkce_pair()
        state = random_state()
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": found.resource,
        }
        if scope:
            params["scope"] = scope
        endpoint = metadata.authorization_endpoint
        if not is_secure(endpoint):
            raise InsecureEndpoint(f"refused to use {endpoint}: OAuth endpoints must be HTTPS")
        separator = "&" if urlsplit(endpoint).query else "?"
        callback = await self.redirect_handler(endpoint + separator + urlencode(params))
        code = self._check_callback(callback, state, found)
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "code_verifier": verifier,
            "resource": found.resource,
        }
        answer = await self._token_request(oauth, metadata, client, form)
        return stored_token(answer, found, scope)

    def _check_callback(self, callback: str, state: str, found: Discovery) -> str:
        """The code of an authorization response, after the redirect target, ``iss`` (RFC 9207,
        compared as plain strings) and ``state`` were checked."""
        got, ours = urlsplit(callback), urlsplit(self.redirect_uri)
        if (got.scheme.lower(), got.netloc.lower(), got.path) != (
            ours.scheme.lower(),
            ours.netloc.lower(),
            ours.path,
        ):
            raise AuthorizationResponseError(
                f"the authorization response went to {got.scheme}://{got.netloc}{got.path}, not "
                f"to our redirect URI {self.redirect_uri}: refused"
            )
        query = {k: v[0] for k, v in parse_qs(got.query, keep_blank_values=True).items()}
        iss = query.get("iss")
        if iss is not None and iss != found.issuer:
            raise AuthorizationResponseError(
                f"the authorization response comes from issuer {iss!r}, not {found.issuer!r} "
                "(RFC 9207): refused"
            )
        if iss is None and found.metadata.authorization_response_iss_parameter_supported:
            raise AuthorizationResponseError(
                f"{found.issuer} promises an iss parameter but the authorization response has "
                "none (RFC 9207): refused"
            )
        if query.get("state") != state:
            raise AuthorizationResponseError("the authorization response's state does not match")
        if "error" in query:
            description = query.get("error_description", "")
            raise AuthorizationResponseError(
                f"the authorization server refused: {query['error']} {description}".strip()
            )
        code = query.get("code")
        if not code:
            raise AuthorizationResponseError("the authorization response carries no code")
        return code

    # -- registration --------------------------------------------------------------------

    def _preregistered(self, issuer: str) -> ClientInfo | None:
        for client in self.credentials:
            if client.issuer is None or client.issuer == issuer:
                return client
        return None

    async def _client(
        self, oauth: OAuthHttp, found: Discovery, *, register: bool
    ) -> ClientInfo | None:
        """Our client id at the discovered authorization server, in the spec's order:
        pre-registered, kept from an earlier registration there, a Client ID Metadata
        Document, then dynamic registration."""
        client = self._preregistered(found.issuer) or await self.storage.get_client(found.issuer)
        if client is not None:
            return client
        metadata = found.metadata
        if metadata.client_id_metadata_document_supported and self.client_metadata_url:
            return ClientInfo(self.client_metadata_url, None, "none", found.issuer)
        if not register:
            return None
        if metadata.registration_endpoint is None:
            raise RegistrationError(
                f"no client id for {found.issuer}: it offers neither Client ID Metadata "
                "Documents nor dynamic registration, and no credentials were given"
            )
        client = await oauth.register(
            metadata.registration_endpoint, self._registration(metadata), found.issuer
        )
        await self.storage.set_client(found.issuer, client)
        return client

    def metadata_document(self) -> dict[str, Any]:
        """The Client ID Metadata Document to serve at ``client_metadata_url`` (as JSON)."""
        if self.client_metadata_url is None:
            raise ValueError("no client_metadata_url was given")
        return {
            "client_id": self.client_metadata_url,
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }

    def _registration(self, metadata: AuthServerMetadata) -> dict[str, Any]:
        """Our RFC 7591 client metadata."""
        supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
        method = next(
            (m for m in ("none", "client_secret_basic", "client_secret_post") if m in supported),
            supported[0],
        )
        return {
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": self.application_type,
        }
