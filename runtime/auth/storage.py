"""Where the client keeps tokens and client registrations: an interface and an in-memory default.

Tokens are kept per protected resource (the MCP server's canonical URI) together with the
issuer that issued them; client registrations per authorization server issuer, so that
credentials of one authorization server are never offered to another. An application that
must keep them across runs implements ``TokenStorage`` over its keyring or encrypted store.
"""

from __future__ import annotations

import time
from typing import Protocol

import msgspec

from .metadata import ClientInfo

EXPIRY_MARGIN_S = 30.0
"""A token this close to its expiry is treated as expired (clock skew, time in flight)."""


class StoredToken(msgspec.Struct, omit_defaults=True):
    """An access token with what it was issued for."""

    access_token: str
    resource: str
    """The protected resource the token is for; it is sent to no other URL."""
    issuer: str
    """The authorization server that issued it."""
    token_type: str = "Bearer"
    expires_at: float | None = None
    """Unix time after which it is no longer valid (None: unknown)."""
    refresh_token: str | None = None
    scope: str | None = None
    """The scope requested (or granted, when the server said)."""

    def expired(self, now: float | None = None) -> bool:
        """Whether the token is expired or about to be."""
        if self.expires_at is None:
            return False
        return (now if now is not None else time.time()) >= self.expires_at - EXPIRY_MARGIN_S


class TokenStorage(Protocol):
    """The client's store of tokens (per resource) and registrations (per issuer)."""

    async def get_token(self, resource: str) -> StoredToken | None:
        """The token kept for a protected resource, if any."""
        ...

    async def set_token(self, resource: str, token: StoredToken | None) -> None:
        """Keep (or with None, forget) the token of a protected resource."""
        ...

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The registration kept for an authorization server, if any."""
        ...

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Keep (or with None, forget) the registration at an authorization server."""
        ...


class InMemoryTokenStorage:
    """A ``TokenStorage`` in this process's memory (lost when it ends)."""

    def __init__(self) -> None:
        self.tokens: dict[str, StoredToken] = {}
        self.clients: dict[str, ClientInfo] = {}

    async def get_token(self, resource: str) -> StoredToken | None:
        """The token kept for a protected resource, if any."""
        return self.tokens.get(resource)

    async def set_token(self, resource: str, token: StoredToken | None) -> None:
        """Keep (or with None, forget) the token of a protected resource."""
        if token is None:
            self.tokens.pop(resource, None)
        else:
            self.tokens[resource] = token

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The registration kept for an authorization server, if any."""
        return self.clients.get(issuer)

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Keep (or with None, forget) the registration at an authorization server."""
        if client is None:
            self.clients.pop(issuer, None)
        else:
            self.clients[issuer] = client
