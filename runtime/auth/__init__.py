"""OAuth 2.1 authorization for MCP over HTTP (optional: needs the ``auth`` extra).

Client side: ``OAuthClient``, given to the HTTP transport as ``auth=``. Server side (resource
server): ``ProtectedMcpApp`` around the ASGI app, described by a ``ProtectedResource``, with a
``JWTVerifier`` or ``IntrospectionVerifier``; handlers read ``current_principal()``.
Nothing else in the runtime imports this package, so a package that does not use
authorization never loads PyJWT or cryptography.
"""

from __future__ import annotations

from .client import OAuthClient, RedirectHandler
from .errors import (
    AuthorizationError,
    AuthorizationResponseError,
    DiscoveryError,
    InsecureEndpoint,
    MetadataMismatch,
    RegistrationError,
    TokenError,
)
from .metadata import AuthServerMetadata, ClientInfo, ProtectedResourceMetadata
from .principal import AccessToken, current_principal
from .server import ProtectedMcpApp, ProtectedResource, scopes_by_method
from .storage import InMemoryTokenStorage, StoredToken, TokenStorage
from .verifiers import IntrospectionVerifier, InvalidToken, JWTVerifier, TokenVerifier

__all__ = [
    "AccessToken",
    "AuthServerMetadata",
    "AuthorizationError",
    "AuthorizationResponseError",
    "ClientInfo",
    "DiscoveryError",
    "InMemoryTokenStorage",
    "InsecureEndpoint",
    "IntrospectionVerifier",
    "InvalidToken",
    "JWTVerifier",
    "MetadataMismatch",
    "OAuthClient",
    "ProtectedMcpApp",
    "ProtectedResource",
    "ProtectedResourceMetadata",
    "RedirectHandler",
    "RegistrationError",
    "StoredToken",
    "TokenError",
    "TokenStorage",
    "TokenVerifier",
    "current_principal",
    "scopes_by_method",
]
