"""The cryptography of authorization, all on maintained libraries (PyJWT, cryptography).

PKCE (RFC 7636, S256): the verifier comes from ``secrets``, the challenge is cryptography's
SHA-256 in PyJWT's base64url. ``private_key_jwt`` client assertions (RFC 7523) are signed by
PyJWT with a key loaded by cryptography. Nothing here implements a primitive itself.
"""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

import jwt
from cryptography.hazmat.primitives import hashes
from jwt.utils import base64url_encode

CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE ``(code_verifier, code_challenge)`` for the S256 method."""
    verifier = secrets.token_urlsafe(64)  # 86 characters of the unreserved set
    return verifier, s256(verifier)


def s256(verifier: str) -> str:
    """The S256 code challenge of a verifier: base64url(SHA-256(verifier)), unpadded."""
    digest = hashes.Hash(hashes.SHA256())
    digest.update(verifier.encode("ascii"))
    return base64url_encode(digest.finalize()).decode("ascii")


def random_state() -> str:
    """An unguessable ``state`` value for one authorization request."""
    return secrets.token_urlsafe(32)


def client_assertion(
    client_id: str, audience: str, private_key: Any, algorithm: str, lifetime: float = 300.0
) -> str:
    """A signed JWT client assertion (RFC 7523 section 2.2) for ``private_key_jwt``.

    ``private_key`` is a PEM string or a key object PyJWT accepts.
    """
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + int(lifetime),
        "jti": str(uuid.uuid4()),
    }
    return jwt.encode(claims, private_key, algorithm=algorithm)
