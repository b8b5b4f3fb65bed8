# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Who is calling: the principal a verified bearer token stands for, as handlers see it.

Kept apart from the rest of ``_runtime.auth`` (it imports nothing but the standard library):
``current_principal()`` works in any handler of a server behind ``ProtectedMcpApp``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AccessToken:
    """A verified access token: whom it is for and what it allows (never the token itself)."""

    subject: str | None
    """The resource owner (``sub``), if the token names one."""
    client_id: str | None
    """The OAuth client the token was issued to."""
    scopes: frozenset[str] = frozenset()
    expires_at: float | None = None
    issuer: str | None = None
    audience: tuple[str, ...] = ()
    claims: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Every claim of a JWT, or every member of an introspection answer."""


class PrincipalBox:
    """The principal of one MCP session; updated by each authorized request of the session."""

    __slots__ = ("__weakref__", "principal")

    def __init__(self, principal: AccessToken | None = None) -> None:
        self.principal = principal


CURRENT: contextvars.ContextVar[PrincipalBox | None] = contextvars.ContextVar(
    "mcpgen_auth_principal", default=None
)
"""Set by ``ProtectedMcpApp`` around the request that creates a session, so the session's tasks
(and every handler they start) see the box the later requests of that session update."""


def current_principal() -> AccessToken | None:
    """The principal of the request being handled (None: no authorization in front)."""
    box = CURRENT.get()
    return box.principal if box is not None else None
