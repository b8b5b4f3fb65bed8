# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Sealed request state of multi round-trip requests (2026-07-28): HMAC-SHA256, with an expiry.

A server hands the client an opaque ``requestState`` and must treat what comes back as
attacker-controlled (``basic/patterns/mrtr.mdx``). ``StateSealer.seal`` signs a JSON payload
with a key, an expiry and a binding (the method and a digest of the request it belongs to);
``StateSealer.open`` verifies all three and raises ``InvalidRequestState`` otherwise, which the
server answers -32602. Several workers given the same key ring accept each other's state: the
``key`` argument (with ``previous_keys``), else ``MCPGEN_STATE_KEYS`` (comma-separated: the
first seals, every one opens, so a rotation puts the new key first and keeps the old one until
its state expired), else ``MCPGEN_STATE_KEY`` (a ring of one). With none of them a sealer
makes a random key of its own (``random_key``): then no other process opens its state, and an
HTTP app sharing a backend with other workers refuses to start (``refuse_random_key``).

Token layout: ``v1.<key id>.<payload>.<mac>``, parts base64url without padding; the MAC covers
``v1.<key id>.<payload>``. The key id (8 bytes of SHA-256 of the key) lets the error say
"another key" rather than "tampered"; it reveals nothing usable about the key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any, Final

import msgspec

STATE_KEY_ENV: Final = "MCPGEN_STATE_KEY"
"""Environment variable holding the sealing key shared by the workers of one deployment."""
STATE_KEYS_ENV: Final = "MCPGEN_STATE_KEYS"
"""Environment variable holding a key ring, comma-separated: the first seals, all open."""
DEFAULT_TTL: Final = 600.0
"""Seconds a sealed state stays valid (the spec asks for a short expiry)."""
MAX_STATE_SIZE: Final = 256 * 1024
"""Longest ``requestState`` accepted, in characters; longer ones are refused unread."""
_VERSION: Final = "v1"


class InvalidRequestState(Exception):
    """A ``requestState`` failed verification; ``reason`` says why (the server answers -32602)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"invalid requestState: {reason}")
        self.reason = reason


class _Payload(msgspec.Struct, array_like=True):
    """What is sealed: expiry (unix seconds), binding digest, the caller's data."""

    exp: float
    bind: str
    data: Any


_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(_Payload)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _as_key(key: str | bytes) -> bytes:
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(raw) < 16:
        raise ValueError("a requestState key needs at least 16 bytes")
    return raw


def _key_id(key: bytes) -> str:
    return _b64(hashlib.sha256(b"mcpgen-state-key-id" + key).digest()[:8])


def binding(method: str, *parts: Any) -> str:
    """A digest naming the request a state belongs to: its method and salient params."""
    digest = hashlib.sha256(method.encode("utf-8"))
    for part in parts:
        digest.update(b"\x00" + _ENCODER.encode(part))
    return _b64(digest.digest()[:18])


class StateSealer:
    """Seals and opens ``requestState`` under one current key (plus older keys still accepted)."""

    def __init__(
        self,
        key: str | bytes | None = None,
        *,
        ttl: float = DEFAULT_TTL,
        previous_keys: Iterable[str | bytes] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.random_key = False
        """Whether the key was made up here (no other process can open this state)."""
        if key is None:
            ring = configured_keys()
            previous_keys = [*ring[1:], *previous_keys]
            key = ring[0] if ring else secrets.token_bytes(32)
            self.random_key = not ring
        self._key = _as_key(key)
        self._kid = _key_id(self._key)
        self._keys = {self._kid: self._key}
        for old in previous_keys:
            raw = _as_key(old)
            self._keys.setdefault(_key_id(raw), raw)
        self.ttl = ttl
        self._clock = clock

    def seal(self, data: Any, *, bind: str = "", ttl: float | None = None) -> str:
        """Return ``data`` (JSON-encodable) sealed for ``bind``, valid for ``ttl`` seconds."""
        expiry = self._clock() + (self.ttl if ttl is None else ttl)
        body = f"{_VERSION}.{self._kid}.{_b64(_ENCODER.encode(_Payload(expiry, bind, data)))}"
        mac = hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()
        return f"{body}.{_b64(mac)}"

    def open(self, token: str, *, bind: str = "") -> Any:
        """Verify ``token`` (MAC, key, expiry, binding) and return its data, or raise."""
        if len(token) > MAX_STATE_SIZE:
            raise InvalidRequestState("malformed")
        parts = token.split(".")
        if len(parts) != 4 or parts[0] != _VERSION:
            raise InvalidRequestState("malformed")
        key = self._keys.get(parts[1])
        if key is None:
            raise InvalidRequestState("sealed under another key")
        body = ".".join(parts[:3])
        try:
            mac = _unb64(parts[3])
            expected = hmac.new(key, body.encode("ascii"), hashlib.sha256).digest()
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise InvalidRequestState("malformed") from None
        if not hmac.compare_digest(mac, expected):
            raise InvalidRequestState("tampered")
        try:
            payload = _DECODER.decode(_unb64(parts[2]))
        except (binascii.Error, ValueError, msgspec.DecodeError):
            raise InvalidRequestState("malformed") from None
        if self._clock() >= payload.exp:
            raise InvalidRequestState("expired")
        if not hmac.compare_digest(payload.bind, bind):
            raise InvalidRequestState("issued for another request")
        return payload.data


def configured_keys() -> list[str]:
    """The key ring of the environment: ``MCPGEN_STATE_KEYS``, else ``MCPGEN_STATE_KEY``."""
    ring = [k.strip() for k in os.environ.get(STATE_KEYS_ENV, "").split(",") if k.strip()]
    single = os.environ.get(STATE_KEY_ENV)
    return ring or ([single] if single else [])


def refuse_random_key(sealers: Iterable[object]) -> None:
    """Raise if one of ``sealers`` seals with a key of its own: the workers sharing a backend
    would refuse each other's state (-32602 on every MRTR round finished elsewhere)."""
    if any(isinstance(s, StateSealer) and s.random_key for s in sealers):
        raise RuntimeError(
            "a shared backend needs a shared requestState key: set MCPGEN_STATE_KEYS (or "
            "MCPGEN_STATE_KEY) to the same value on every worker"
        )
