"""How the MCP HTTP app behaves (``HttpOptions``): paths, modes, checks, bounds and the backend.

The defaults suit a local server: Host and Origin limited to this machine, 4 MiB bodies,
4 MiB unsent per stream, 1000 live sessions.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import InitVar, dataclass, field
from typing import Final

from ...backends.base import Backend, MemoryBackend
from ...core.frame_guard import DEFAULT_MAX_DEPTH
from .event_store import EventStore, MemoryEventStore
from .eviction import EVICT_IDLE_S, EVICT_UNPROVEN_S
from .session import DEFAULT_SSE_RETRY_MS
from .stream import DEFAULT_STALL_TIMEOUT_S, DEFAULT_STREAM_BYTES

Authenticate = Callable[[Mapping[str, str]], Awaitable[bool]]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
DEFAULT_MAX_SESSIONS = 1000
"""Live sessions (Streamable HTTP and HTTP+SSE) one app keeps at most."""
IDLE_POST_CONNECTIONS: Final = 16
"""Connections of the no-session mode kept, per revision, for the next POST to reuse."""


@dataclass
class HttpOptions:
    """How the HTTP app behaves; the defaults suit a local server."""

    path: str = "/mcp"
    sse_path: str = "/sse"
    messages_path: str = "/messages"
    json_response: bool = False
    """Answer POSTed requests with one JSON body instead of an SSE stream, except a request
    asking for progress (``_meta.progressToken``) from a client that accepts SSE: its
    progress and other messages come on its own SSE stream, before its answer."""
    stateless: bool = False
    """No sessions: every POST stands alone (no GET stream, no server-to-client requests)."""
    http_sse: bool = True
    """Also offer 2024-11-05's HTTP+SSE endpoints (GET ``sse_path``, POST ``messages_path``)."""
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    """Host names accepted in the Host header (any port); ``*`` accepts all."""
    allowed_origins: tuple[str, ...] = LOCAL_HOSTS
    """Host names accepted in an Origin header (any scheme and port); ``*`` accepts all."""
    max_body: int = 4 * 1024 * 1024
    """Largest POST body accepted, in bytes (413 beyond)."""
    max_depth: int = DEFAULT_MAX_DEPTH
    """Deepest nesting of arrays and objects accepted in a body (128; deeper: 400, -32600)."""
    authenticate: Authenticate | None = None
    """Called with the request headers (lower-case names); False -> 401."""
    resource_metadata: str | None = None
    """The protected-resource metadata URL named in ``WWW-Authenticate`` on 401."""
    event_store: EventStore = field(default_factory=MemoryEventStore)
    """Events kept for ``Last-Event-ID``; the default keeps 4 MiB per session, 64 MiB in all."""
    session_idle_timeout: float | None = 3600.0
    """Seconds after which a session with no request and no open stream is ended (None: never)."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Live sessions kept at most (1000). When full, one is ended to make room for a new one
    (the two fields below), or else the new one is refused with 503 and Retry-After."""
    evict_unproven_after: float = EVICT_UNPROVEN_S
    """Seconds after which a session with no request after its initialize may make room (5),
    oldest first; these go before any other."""
    evict_idle_after: float = EVICT_IDLE_S
    """Seconds of no request and no open stream after which a session may make room (60),
    longest idle first. A session with an open stream never does."""
    max_stream_bytes: int = DEFAULT_STREAM_BYTES
    """Bytes of events one SSE stream may hold unsent (4 MiB); then its producer waits."""
    sse_retry_ms: int | None = DEFAULT_SSE_RETRY_MS
    """The reconnection delay sent (SSE ``retry``) in priming events (1000 ms; None: clients
    choose) and, unless the handler names one, when a handler closes its SSE stream."""
    stream_stall_timeout: float = DEFAULT_STALL_TIMEOUT_S
    """Seconds a producer waits for a client that reads nothing before its stream is cut (30)."""
    backend: Backend = field(default_factory=MemoryBackend)
    """Where sessions are owned and looked up: this process (the default) or shared by several
    workers (``RedisBackend``), which forward a request to the worker owning its session."""
    legacy_sse: InitVar[bool | None] = None
    """The former name of ``http_sse``, still taken (with a ``DeprecationWarning``)."""

    def __post_init__(self, legacy_sse: bool | None) -> None:
        """Take the deprecated ``legacy_sse=`` as ``http_sse``."""
        if legacy_sse is not None:
            warnings.warn(
                "HttpOptions(legacy_sse=...) is deprecated: use http_sse=...",
                DeprecationWarning,
                stacklevel=3,
            )
            self.http_sse = legacy_sse
