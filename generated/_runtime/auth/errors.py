# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The errors of authorization: each says what was refused and why, never a token's value."""

from __future__ import annotations

from ..core.transport import ConnectionClosed


class AuthorizationError(ConnectionClosed):
    """Authorization with the MCP server's authorization server failed; no request was sent.

    A ``ConnectionClosed``: the transport cannot go on talking to the protected server.
    """


class DiscoveryError(AuthorizationError):
    """No usable protected resource or authorization server metadata was found."""


class MetadataMismatch(AuthorizationError):
    """Metadata names another resource or issuer than the one it was fetched for."""


class RegistrationError(AuthorizationError):
    """The client could not obtain a client id at the authorization server."""


class AuthorizationResponseError(AuthorizationError):
    """The authorization response (the redirect back to us) was refused or carried an error."""


class TokenError(AuthorizationError):
    """The token endpoint refused our request or answered something unusable."""


class InsecureEndpoint(AuthorizationError):
    """An endpoint is neither HTTPS nor on this machine, or an answer redirected elsewhere."""
