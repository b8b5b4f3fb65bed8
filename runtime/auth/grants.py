"""Grants that trade a JWT for an access token, with no user at a browser.

- ``JwtBearerGrant``: workload identity federation. The platform the client runs on (a cloud,
  a CI system, Kubernetes) issued the workload a JWT; the client presents it to the MCP
  server's authorization server with the JWT bearer grant (RFC 7523 section 2.1).
- ``EnterpriseGrant``: enterprise-managed authorization. The user signed in to the
  enterprise's identity provider (IdP), which gave the client an ID token; the client trades it
  at the IdP for an identity assertion authorization grant (ID-JAG) addressed to the MCP
  server's authorization server (token exchange, RFC 8693), then presents that with the JWT
  bearer grant.

``OAuthClient(grant=...)`` takes either; the client authenticates at the authorization server
with its pre-registered ``credentials`` if it has some. An assertion is a string or an async
function returning a fresh one (called for every grant, so a short-lived JWT can be renewed).
A refusal raises ``TokenError`` with the server's error: these grants are not retried and never
fall back to another grant.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

from .errors import TokenError
from .metadata import AuthServerMetadata, ClientInfo
from .oauth import Discovery, OAuthHttp, client_authentication

JWT_BEARER: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN: Final = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG: Final = "urn:ietf:params:oauth:token-type:id-jag"

Assertion: TypeAlias = str | Callable[[], Awaitable[str]]
"""A JWT, or an async function returning a fresh one."""


@dataclass(frozen=True)
class JwtBearerGrant:
    """Workload identity federation: present the workload's JWT (RFC 7523)."""

    assertion: Assertion
    """The JWT the workload's platform issued, with the authorization server as audience."""


@dataclass(frozen=True)
class EnterpriseGrant:
    """Enterprise-managed authorization: ID token -> ID-JAG at the IdP -> access token."""

    idp_token_endpoint: str
    """The identity provider's token endpoint, where the token exchange happens."""
    id_token: Assertion
    """The user's ID token from signing in at the identity provider."""
    idp_client: ClientInfo | None = None
    """This client at the identity provider (its client id and secret there), if it has one."""


async def resolve(assertion: Assertion) -> str:
    """The JWT itself: the string, or what the function returns now."""
    return assertion if isinstance(assertion, str) else await assertion()


async def assertion_for(
    grant: JwtBearerGrant | EnterpriseGrant,
    oauth: OAuthHttp,
    found: Discovery,
    scope: str | None,
) -> str:
    """The JWT to present with the JWT bearer grant at ``found``'s authorization server."""
    if isinstance(grant, JwtBearerGrant):
        return await resolve(grant.assertion)
    return await identity_assertion(grant, oauth, found, scope)


async def identity_assertion(
    grant: EnterpriseGrant, oauth: OAuthHttp, found: Discovery, scope: str | None
) -> str:
    """Token exchange at the IdP (RFC 8693): the user's ID token for an ID-JAG whose
    audience is the authorization server and whose resource is the MCP server."""
    form = {
        "grant_type": TOKEN_EXCHANGE,
        "requested_token_type": ID_JAG,
        "audience": found.issuer,
        "resource": found.resource,
        "subject_token": await resolve(grant.id_token),
        "subject_token_type": ID_TOKEN,
    }
    if scope:
        form["scope"] = scope
    headers: dict[str, str] = {}
    if grant.idp_client is not None:
        idp = AuthServerMetadata(issuer=grant.idp_token_endpoint)
        extra, headers = client_authentication(grant.idp_client, idp)
        form |= extra
    answer = await oauth.token(grant.idp_token_endpoint, form, headers, access=False)
    if answer.issued_token_type != ID_JAG:
        raise TokenError(
            f"the identity provider's token endpoint {grant.idp_token_endpoint} issued "
            f"{answer.issued_token_type or 'a token of no stated type'}, not an ID-JAG ({ID_JAG})"
        )
    return answer.access_token


def jwt_bearer_form(assertion: str, found: Discovery, scope: str | None) -> dict[str, str]:
    """The token request of the JWT bearer grant (RFC 7523 section 2.1) for ``found``."""
    form = {"grant_type": JWT_BEARER, "assertion": assertion, "resource": found.resource}
    if scope:
        form["scope"] = scope
    return form
