# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Where an HTTP server's shared state lives: in this process (``MemoryBackend``, the default)
or shared by several workers (``runtime.backends.redis.RedisBackend``, the ``redis`` extra)."""

from .base import (
    Backend,
    LocalRouter,
    MemoryBackend,
    MemoryDirectory,
    OwnerRouter,
    SessionDirectory,
)

__all__ = [
    "Backend",
    "LocalRouter",
    "MemoryBackend",
    "MemoryDirectory",
    "OwnerRouter",
    "SessionDirectory",
]
