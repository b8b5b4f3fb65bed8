"""OAuth documents as msgspec types, the ``WWW-Authenticate`` grammar, and the URLs of discovery.

Pure functions and types only (no I/O): the client flow (``oauth.py``) and the resource
server (``server.py``) share them. URL rules follow RFC 9728 (protected resource metadata),
RFC 8414 and OpenID Connect Discovery (authorization server metadata) as the MCP
authorization pages order them, and RFC 8707 (the ``resource`` parameter).
"""

from __future__ import annotations

import base64
import ipaddress
import re
from typing import Final
from urllib.parse import quote, urlsplit, urlunsplit

import msgspec

PRM_WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN: Final = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN: Final = "/.well-known/openid-configuration"
LOOPBACK_NAMES: Final = ("localhost",)


class ProtectedResourceMetadata(msgspec.Struct, omit_defaults=True):
    """RFC 9728 protected resource metadata (the fields MCP uses; others are kept out)."""

    resource: str | None = None
    authorization_servers: list[str] = msgspec.field(default_factory=list[str])
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = None
    resource_name: str | None = None


class AuthServerMetadata(msgspec.Struct, omit_defaults=True):
    """RFC 8414 / OpenID Connect Discovery authorization server metadata (what MCP uses)."""

    issuer: str
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    registration_endpoint: str | None = None
    jwks_uri: str | None = None
    introspection_endpoint: str | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    client_id_metadata_document_supported: bool = False
    authorization_response_iss_parameter_supported: bool = False
    dpop_signing_alg_values_supported: list[str] | None = None


class ClientInfo(msgspec.Struct, omit_defaults=True):
    """A client id at one authorization server (pre-registered, CIMD or RFC 7591 registered)."""

    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    issuer: str | None = None
    """The authorization server these credentials belong to (None: any, pre-registered only)."""


class TokenResponse(msgspec.Struct):
    """A successful token endpoint answer (RFC 6749 section 5.1)."""

    access_token: str
    token_type: str = "Bearer"
    expires_in: float | None = None
    refresh_token: str | None = None
    scope: str | None = None
    issued_token_type: str | None = None
    """What a token exchange (RFC 8693) issued."""


class OAuthErrorBody(msgspec.Struct):
    """An OAuth error answer (RFC 6749 section 5.2)."""

    error: str = ""
    error_description: str | None = None


PRM_DECODER: Final = msgspec.json.Decoder(ProtectedResourceMetadata)
AS_DECODER: Final = msgspec.json.Decoder(AuthServerMetadata)
CLIENT_DECODER: Final = msgspec.json.Decoder(ClientInfo)
TOKEN_DECODER: Final = msgspec.json.Decoder(TokenResponse)
ERROR_DECODER: Final = msgspec.json.Decoder(OAuthErrorBody)

# -- WWW-Authenticate (RFC 7235 section 4.1, RFC 6750 section 3) ---------------------------------

_TOKENS = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,="]+)|(=)|(,))')


def _tokens(header: str) -> list[tuple[str, str]]:
    """Lex a header value into ("q", text), ("t", token), ("=", "") and (",", "") items."""
    items: list[tuple[str, str]] = []
    for quoted, token, equals, comma in _TOKENS.findall(header):
        if equals:
            items.append(("=", ""))
        elif comma:
            items.append((",", ""))
        elif token:
            items.append(("t", token))
        else:
            items.append(("q", re.sub(r"\\(.)", r"\1", quoted)))
    return items


class Challenge(msgspec.Struct, frozen=True):
    """The ``Bearer`` challenge of a ``WWW-Authenticate`` header."""

    scheme: str = ""
    params: dict[str, str] = msgspec.field(default_factory=dict[str, str])

    @property
    def resource_metadata(self) -> str | None:
        """The protected resource metadata URL (RFC 9728 section 5.1), if given."""
        return self.params.get("resource_metadata")

    @property
    def scope(self) -> str | None:
        """The scopes the request needs, if given."""
        return self.params.get("scope") or None

    @property
    def error(self) -> str | None:
        """The error code (``invalid_token``, ``insufficient_scope``...), if given."""
        return self.params.get("error")


def parse_challenges(header: str) -> list[Challenge]:
    """Split a ``WWW-Authenticate`` value into its challenges (quoted strings unescaped).

    A token not followed by ``=`` starts a challenge; ``name=value`` pairs (token or quoted
    string) are its parameters; a token68 credential is ignored.
    """
    items = _tokens(header)
    found: list[tuple[str, dict[str, str]]] = []
    i = 0
    while i < len(items):
        kind, text = items[i]
        follows = items[i + 1][0] if i + 1 < len(items) else ""
        if kind == "t" and follows == "=" and found and i + 2 < len(items):
            value_kind, value = items[i + 2]
            if value_kind in ("t", "q"):
                found[-1][1][text.lower()] = value
                i += 3
                continue
        if kind == "t" and follows != "=":
            found.append((text, {}))
        i += 1
    return [Challenge(scheme, params) for scheme, params in found]


def bearer_challenge(headers: list[str], schemes: tuple[str, ...] = ("bearer",)) -> Challenge:
    """The challenge of the first of ``schemes`` (lower case) among ``WWW-Authenticate``
    values (an empty one if none)."""
    found = [c for value in headers for c in parse_challenges(value)]
    for scheme in schemes:
        for challenge in found:
            if challenge.scheme.lower() == scheme:
                return challenge
    return Challenge()


def format_challenge(params: dict[str, str]) -> str:
    """A ``Bearer`` challenge with quoted parameters (the resource server's side)."""
    quoted = [f'{name}="{_quote(value)}"' for name, value in params.items()]
    return "Bearer " + ", ".join(quoted) if quoted else "Bearer"


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def basic_authorization(client_id: str, secret: str) -> str:
    """An ``Authorization: Basic`` value for client credentials, each part form-encoded first
    (RFC 6749 section 2.3.1)."""
    pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode("ascii")


# -- URLs ------------------------------------------------------------------------------------


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL, as written."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def canonical_resource(url: str) -> str:
    """The RFC 8707 canonical URI of an MCP server: lower-case scheme and host, no fragment,
    no query, no trailing slash (except that a bare origin keeps none)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def _key(url: str) -> tuple[str, str, int | None, list[str]]:
    parts = urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme.lower())
    segments = [s for s in parts.path.split("/") if s]
    return parts.scheme.lower(), (parts.hostname or "").lower(), port, segments


def resource_covers(resource: str, url: str) -> bool:
    """Whether ``url`` is the protected resource ``resource`` or lies under it: same origin
    and the resource's path is a prefix of the URL's path, segment by segment."""
    r_scheme, r_host, r_port, r_path = _key(resource)
    u_scheme, u_host, u_port, u_path = _key(url)
    same_origin = (r_scheme, r_host, r_port) == (u_scheme, u_host, u_port)
    return same_origin and u_path[: len(r_path)] == r_path


def prm_urls(server_url: str, header_url: str | None) -> list[str]:
    """Where to look for protected resource metadata, in the spec's order: the header's
    ``resource_metadata``, then the path-suffixed well-known URI, then the root one."""
    parts = urlsplit(server_url)
    base = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    urls = [header_url] if header_url else []
    if path:
        urls.append(f"{base}{PRM_WELL_KNOWN}{path}")
    urls.append(f"{base}{PRM_WELL_KNOWN}")
    return list(dict.fromkeys(urls))


def as_metadata_urls(issuer: str) -> list[str]:
    """Where to look for an issuer's metadata, in the spec's order (RFC 8414 path insertion,
    OpenID Connect path insertion, then OpenID Connect path appending)."""
    parts = urlsplit(issuer)
    base = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if not path:
        return [f"{base}{OAUTH_WELL_KNOWN}", f"{base}{OIDC_WELL_KNOWN}"]
    return [
        f"{base}{OAUTH_WELL_KNOWN}{path}",
        f"{base}{OIDC_WELL_KNOWN}{path}",
        f"{base}{path}{OIDC_WELL_KNOWN}",
    ]


def is_loopback(url: str) -> bool:
    """Whether a URL names this machine (``localhost`` or a loopback address)."""
    host = (urlsplit(url).hostname or "").lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_secure(url: str) -> bool:
    """Whether an authorization endpoint may be used: HTTPS, or HTTP on this machine."""
    scheme = urlsplit(url).scheme.lower()
    return scheme == "https" or (scheme == "http" and is_loopback(url))
