# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Bearer token verifiers of a resource server: JWT (JWKS, on PyJWT) and introspection.

A verifier turns a bearer token into an ``AccessToken`` or raises ``InvalidToken``; both check
expiry and that the token was issued for this resource (its audience, RFC 8707), so a token
meant for another server is refused (no token passthrough).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, Final, Protocol

import aiohttp
import jwt
import msgspec

from .metadata import basic_authorization
from .principal import AccessToken

DEFAULT_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "ES256", "ES384", "PS256", "EdDSA")
JWKS_MIN_REFRESH_S: Final = 30.0
"""A JWKS is fetched again for an unknown key id at most this often."""
TIMEOUT_S: Final = 10.0


class InvalidToken(Exception):
    """The bearer token is not acceptable here (the message says why; it is sent to the client)."""


class TokenVerifier(Protocol):
    """Checks a bearer token and says whom it stands for."""

    async def verify(self, token: str) -> AccessToken:
        """The principal of a valid token; ``InvalidToken`` otherwise."""
        ...


def _strings(value: Any) -> list[str]:
    """A string, or a list of strings, as a list ([] for anything else)."""
    if isinstance(value, str):
        return [value]
    try:
        return msgspec.convert(value, list[str])
    except msgspec.ValidationError:
        return []


def _scopes(value: Any) -> frozenset[str]:
    """Scopes from ``scope`` (a space-separated string) or ``scp`` (a list)."""
    if isinstance(value, str):
        return frozenset(value.split())
    return frozenset(_strings(value))


def _audiences(value: Any) -> tuple[str, ...]:
    return tuple(_strings(value))


class JWTVerifier:
    """JWT access tokens (RFC 9068) signed by keys from a JWKS URL or given directly."""

    def __init__(
        self,
        *,
        issuer: str,
        audience: str | Sequence[str],
        jwks_uri: str | None = None,
        key: Any = None,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        leeway: float = 30.0,
        http: aiohttp.ClientSession | None = None,
    ) -> None:
        if (jwks_uri is None) == (key is None):
            raise ValueError("give exactly one of jwks_uri and key")
        self.issuer = issuer
        self.audience = [audience] if isinstance(audience, str) else list(audience)
        self.jwks_uri = jwks_uri
        self.key = key
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self._http = http
        self._jwks: jwt.PyJWKSet | None = None
        self._fetched_at = 0.0
        self._lock = asyncio.Lock()

    async def verify(self, token: str) -> AccessToken:
        """Check signature, ``iss``, ``aud``, ``exp`` (and ``nbf``); return the principal."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise InvalidToken(f"malformed token: {exc}") from None
        key = self.key if self.key is not None else await self._key(header.get("kid"))
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise InvalidToken("the token has expired") from None
        except jwt.InvalidAudienceError:
            raise InvalidToken("the token was not issued for this resource (audience)") from None
        except jwt.PyJWTError as exc:
            raise InvalidToken(f"the token is not valid: {exc}") from None
        return AccessToken(
            subject=claims.get("sub"),
            client_id=claims.get("client_id") or claims.get("azp"),
            scopes=_scopes(claims.get("scope", claims.get("scp"))),
            expires_at=float(claims["exp"]),
            issuer=claims.get("iss"),
            audience=_audiences(claims.get("aud")),
            claims=claims,
        )

    async def _key(self, kid: Any) -> Any:
        """The JWKS key with id ``kid`` (the set is fetched again, rate-limited, if unknown)."""
        async with self._lock:
            found = self._find(kid)
            if found is None and time.monotonic() - self._fetched_at > JWKS_MIN_REFRESH_S:
                await self._fetch()
                found = self._find(kid)
        if found is None:
            raise InvalidToken(f"no key {kid!r} in the issuer's JWKS")
        return found

    def _find(self, kid: Any) -> Any:
        if self._jwks is None:
            return None
        for jwk in self._jwks.keys:
            if kid is None or jwk.key_id == kid:
                return jwk.key
        return None

    async def _fetch(self) -> None:
        assert self.jwks_uri is not None
        self._fetched_at = time.monotonic()
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        http = self._http or aiohttp.ClientSession()
        try:
            async with http.get(self.jwks_uri, timeout=timeout, allow_redirects=False) as r:
                if r.status != 200:
                    raise InvalidToken(f"the JWKS at {self.jwks_uri} answered HTTP {r.status}")
                self._jwks = jwt.PyJWKSet.from_dict(await r.json(content_type=None))
        except (aiohttp.ClientError, TimeoutError, ValueError, jwt.PyJWTError) as exc:
            raise InvalidToken(f"the JWKS at {self.jwks_uri} is unusable: {exc!r}") from None
        finally:
            if self._http is None:
                await http.close()


class _Introspection(msgspec.Struct):
    """An RFC 7662 introspection answer (the members used)."""

    active: bool = False
    scope: str | None = None
    client_id: str | None = None
    sub: str | None = None
    exp: float | None = None
    iss: str | None = None
    aud: str | list[str] | None = None


class IntrospectionVerifier:
    """Opaque tokens checked at the authorization server's introspection endpoint (RFC 7662)."""

    def __init__(
        self,
        endpoint: str,
        *,
        audience: str | Sequence[str],
        client_id: str | None = None,
        client_secret: str | None = None,
        http: aiohttp.ClientSession | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.audience = {audience} if isinstance(audience, str) else set(audience)
        self.headers: dict[str, str] = {}
        if client_id is not None:
            self.headers["Authorization"] = basic_authorization(client_id, client_secret or "")
        self._http = http

    async def verify(self, token: str) -> AccessToken:
        """Ask the authorization server; the token must be active, unexpired and ours."""
        form = {"token": token, "token_type_hint": "access_token"}
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        http = self._http or aiohttp.ClientSession()
        try:
            async with http.post(
                self.endpoint,
                data=form,
                headers=self.headers,
                timeout=timeout,
                allow_redirects=False,
            ) as r:
                body = await r.read()
                if r.status != 200:
                    raise InvalidToken(f"introspection answered HTTP {r.status}")
            answer = msgspec.json.decode(body, type=_Introspection)
        except (aiohttp.ClientError, TimeoutError, msgspec.DecodeError) as exc:
            raise InvalidToken(f"introspection failed: {exc!r}") from None
        finally:
            if self._http is None:
                await http.close()
        if not answer.active:
            raise InvalidToken("the token is not active")
        if answer.exp is not None and answer.exp < time.time():
            raise InvalidToken("the token has expired")
        audience = _audiences(answer.aud)
        if not self.audience.intersection(audience):
            raise InvalidToken("the token was not issued for this resource (audience)")
        return AccessToken(
            subject=answer.sub,
            client_id=answer.client_id,
            scopes=_scopes(answer.scope),
            expires_at=answer.exp,
            issuer=answer.iss,
            audience=audience,
            claims=msgspec.to_builtins(answer),
        )
