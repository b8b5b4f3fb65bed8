"""DPoP (RFC 9449): proofs of possession of the client's key, on token and resource requests.

A ``DPoP`` holds one asymmetric key pair for the life of the client (a token bound to it is
useless without it) and the nonces servers handed out. ``proof`` signs a fresh ``dpop+jwt``
with PyJWT: the public key as ``jwk`` header, ``htm`` and ``htu`` (the request's method and URL
without query or fragment), ``iat``, a unique ``jti``, ``ath`` (the hash of the access token) on
resource requests, and the ``nonce`` the server of that URL gave last. Servers give a nonce in
a ``DPoP-Nonce`` header, with a ``use_dpop_nonce`` error when they refuse a proof without it;
``retry_with_nonce`` says when such an answer deserves the one retry RFC 9449 sections 8 and 9
describe. Keys come from cryptography; nothing here implements a primitive itself.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from jwt.algorithms import get_default_algorithms

from .crypto import s256
from .errors import AuthorizationError
from .metadata import AuthServerMetadata, origin

NONCE_HEADER: Final = "DPoP-Nonce"
USE_DPOP_NONCE: Final = "use_dpop_nonce"
MAX_NONCES: Final = 32
"""Servers whose latest nonce is kept (the oldest is forgotten first)."""
MAX_NONCE_LENGTH: Final = 1024
"""A longer ``DPoP-Nonce`` value is ignored (it would be copied into every proof)."""
ASYMMETRIC: Final = frozenset(
    {"ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"}
)


class DPoP:
    """A DPoP key pair and the nonces servers gave: signs one proof per HTTP request."""

    def __init__(self, private_key: Any = None, algorithm: str = "ES256") -> None:
        if algorithm not in ASYMMETRIC:
            raise ValueError(f"DPoP needs an asymmetric JWS algorithm, not {algorithm!r}")
        if private_key is None:
            if algorithm != "ES256":
                raise ValueError("give a private_key for DPoP algorithms other than ES256")
            private_key = ec.generate_private_key(ec.SECP256R1())
        elif isinstance(private_key, str | bytes):
            text = private_key.encode() if isinstance(private_key, str) else private_key
            private_key = load_pem_private_key(text, password=None)
        self.algorithm = algorithm
        self._key: Any = private_key
        public = get_default_algorithms()[algorithm].to_jwk(private_key.public_key(), as_dict=True)
        self.jwk: dict[str, Any] = dict(public)
        """The public key, as sent in every proof's ``jwk`` header."""
        self._nonces: dict[str, str] = {}

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """A fresh proof for one request (``ath`` when it carries ``access_token``)."""
        parts = urlsplit(url)
        claims: dict[str, Any] = {
            "jti": str(uuid.uuid4()),
            "htm": method.upper(),
            "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = s256(access_token)
        nonce = self._nonces.get(origin(url).lower())
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(claims, self._key, algorithm=self.algorithm, headers=headers)

    def remember(self, url: str, headers: Mapping[str, str]) -> bool:
        """Keep the ``DPoP-Nonce`` a response from ``url``'s server carried; True if it is new."""
        nonce = headers.get(NONCE_HEADER)
        if not nonce or len(nonce) > MAX_NONCE_LENGTH:
            return False
        server = origin(url).lower()
        if self._nonces.get(server) == nonce:
            return False
        self._nonces.pop(server, None)
        self._nonces[server] = nonce
        while len(self._nonces) > MAX_NONCES:
            del self._nonces[next(iter(self._nonces))]
        return True

    def retry_with_nonce(self, url: str, headers: Mapping[str, str], error: str | None) -> bool:
        """Whether an error answer asks for a proof with a nonce we have not used yet (the new
        nonce is kept for the retry)."""
        return self.remember(url, headers) and error == USE_DPOP_NONCE

    def check_server(self, metadata: AuthServerMetadata) -> None:
        """Refuse an authorization server that lists DPoP algorithms without ours."""
        listed = metadata.dpop_signing_alg_values_supported
        if listed is not None and self.algorithm not in listed:
            raise AuthorizationError(
                f"the authorization server {metadata.issuer} accepts DPoP proofs signed with "
                f"{', '.join(listed) or 'no algorithm'}, not {self.algorithm}"
            )
