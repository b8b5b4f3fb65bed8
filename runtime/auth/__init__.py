"""OAuth 2.1 authorization for MCP over HTTP (optional: needs the ``auth`` extra).

Client side: ``OAuthClient``, given to the HTTP transport as ``auth=``. Server side (resource
server): ``ProtectedMcpApp`` around the ASGI app, described by a ``ProtectedResource``, with a
``JWTVerifier`` or ``IntrospectionVerifier``; handlers read ``current_principal()``.
Nothing else in the runtime imports this package, so a package that does not use
authorization never loads PyJWT or cryptography. Names load on first use, so that
``principal`` (standard library only) can be imported without the extra; a name whose module
needs a library of the extra that is missing raises ``MissingDependency`` naming it. The
public face is ``pkg.runtime.auth``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..core.errors import MissingDependency

if TYPE_CHECKING:
    from .client import OAuthClient, RedirectHandler
    from .dpop import DPoP
    from .errors import (
        AuthorizationError,
        AuthorizationResponseError,
        DiscoveryError,
        InsecureEndpoint,
        MetadataMismatch,
        RegistrationError,
        TokenError,
    )
    from .grants import EnterpriseGrant, JwtBearerGrant
    from .metadata import AuthServerMetadata, ClientInfo, ProtectedResourceMetadata
    from .principal import AccessToken, current_principal
    from .server import ProtectedMcpApp, ProtectedResource, scopes_by_method
    from .storage import InMemoryTokenStorage, StoredToken, TokenStorage
    from .verifiers import IntrospectionVerifier, InvalidToken, JWTVerifier, TokenVerifier

_LAZY = {
    "OAuthClient": "client",
    "RedirectHandler": "client",
    "DPoP": "dpop",
    **dict.fromkeys(["EnterpriseGrant", "JwtBearerGrant"], "grants"),
    **dict.fromkeys(
        [
            "AuthorizationError",
            "AuthorizationResponseError",
            "DiscoveryError",
            "InsecureEndpoint",
            "MetadataMismatch",
            "RegistrationError",
            "TokenError",
        ],
        "errors",
    ),
    **dict.fromkeys(["AuthServerMetadata", "ClientInfo", "ProtectedResourceMetadata"], "metadata"),
    **dict.fromkeys(["AccessToken", "current_principal"], "principal"),
    **dict.fromkeys(["ProtectedMcpApp", "ProtectedResource", "scopes_by_method"], "server"),
    **dict.fromkeys(["InMemoryTokenStorage", "StoredToken", "TokenStorage"], "storage"),
    **dict.fromkeys(
        ["IntrospectionVerifier", "InvalidToken", "JWTVerifier", "TokenVerifier"], "verifiers"
    ),
}

__all__ = [
    "AccessToken",
    "AuthServerMetadata",
    "AuthorizationError",
    "AuthorizationResponseError",
    "ClientInfo",
    "DPoP",
    "DiscoveryError",
    "EnterpriseGrant",
    "InMemoryTokenStorage",
    "InsecureEndpoint",
    "IntrospectionVerifier",
    "InvalidToken",
    "JWTVerifier",
    "JwtBearerGrant",
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


_LIBRARIES = {"aiohttp": "aiohttp", "jwt": "PyJWT", "cryptography": "cryptography"}
"""The libraries the ``auth`` extra installs, by import name: their package names."""


def __getattr__(name: str) -> Any:
    """Load a name's module on first use; a library of the extra missing is one clear error."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
    except ImportError as exc:
        library = (exc.name or "").split(".")[0]
        if library not in _LIBRARIES:
            raise
        raise MissingDependency(_LIBRARIES[library], "auth", f"authorization ({name})") from None
    return getattr(module, name)
