"""OAuth 2.1 authorization for MCP over HTTP (optional: needs the ``auth`` extra).

Client side: ``OAuthClient``, given to the HTTP transport as ``auth=``. Server side (resource
server): ``ProtectedResource``, ``protect`` and the token verifiers. Nothing else in the
runtime imports this package, so a package that does not use authorization never loads
PyJWT or cryptography.
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
from .storage import InMemoryTokenStorage, StoredToken, TokenStorage

__all__ = [
    "AuthServerMetadata",
    "AuthorizationError",
    "AuthorizationResponseError",
    "ClientInfo",
    "DiscoveryError",
    "InMemoryTokenStorage",
    "InsecureEndpoint",
    "MetadataMismatch",
    "OAuthClient",
    "ProtectedResourceMetadata",
    "RedirectHandler",
    "RegistrationError",
    "StoredToken",
    "TokenError",
    "TokenStorage",
]
