"""The row type of the generated method tables (``METHODS`` in each revision's ``methods.py``)
and the facts of a revision the runtime acts on (``FACTS``), both generated.

``MethodSpec[P, R]`` carries, for the type checkers, the params type ``P`` and the result
type ``R`` of its method (``None`` for "no params" and for notifications), so that
``request(TOOLS_CALL, params)`` is typed by the constant it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

P = TypeVar("P")
"""The params type of a method."""
R = TypeVar("R")
"""The result type of a request (None for a notification)."""


@dataclass(frozen=True, slots=True)
class MethodSpec(Generic[P, R]):
    """What the runtime needs to know about one MCP method."""

    method: str
    """The wire name, for example ``tools/call``."""
    kind: Literal["request", "notification"]
    direction: Literal["client", "server", "both"]
    """Who may send it: the client, the server, or either."""
    message: type[Any]
    """The generated type of the whole request or notification."""
    params: Any
    """The params type, or None when the message takes no params."""
    params_required: bool
    result: Any
    """The result type of a request; None for notifications."""
    paginated: bool = False
    """Whether the params take a ``cursor`` and the result carries ``nextCursor``."""
    capability: str | None = None
    """The capability that gates the method (dotted path), if any."""
    capability_owner: Literal["receiver", "sender"] | None = None
    """Whose capabilities hold it: the receiver's (requests) or the sender's (notifications)."""
    input_required: bool = False
    """Whether the result may instead be an ``InputRequiredResult`` (stateless revision)."""


@dataclass(frozen=True, slots=True)
class VariantSpec(MethodSpec[P, R]):
    """A variant of a table row: the same wire method, answered with its own result type.

    The session and the connection keep a variant they are given instead of the table's row
    (a task's ``CreateTaskResult``, a result that may ask for input first).
    """


@dataclass(frozen=True, slots=True)
class RevisionFacts:
    """What the runtime must know about one revision, generated from its schema and overrides.

    The runtime names no revision: it reads these instead (``FACTS`` in each revision's
    ``methods.py``, ``FACTS`` on its ``Server`` and ``Client``).
    """

    version: str
    """The protocol version string of the revision."""
    handshake: bool
    """Whether a connection opens with ``initialize`` (else every request is on its own,
    carrying its version and capabilities in ``_meta``)."""
    batch: bool
    """Whether JSON-RPC batches are allowed."""
    sse_priming: bool
    """Whether a Streamable HTTP server starts each SSE stream with a priming event (an id,
    no data) so that a client can resume it."""
    method_headers: bool
    """Whether a Streamable HTTP request carries ``Mcp-Method`` / ``Mcp-Name`` /
    ``Mcp-Param-*`` headers that the server checks against the body."""
