"""What a generated package needs at run time: pinned requirements, written into every output.

These pins are the tested set: ``constraints.txt`` holds the same lines (``make install``
installs with it), and the ``runtime``, ``http`` and ``auth`` extras of mcpgen's own
``pyproject.toml`` are compatible ranges that admit them (a test checks both). A generated
package needs none of the generator: ``pip install -r pkg/requirements.txt``
(``requirements-http.txt`` for HTTP, ``requirements-auth.txt`` for authorization,
``requirements-redis.txt`` for workers sharing Redis) installs
exactly what it imports.
"""

from __future__ import annotations

from typing import Final

RUNTIME: Final = ("msgspec==0.22.0", "jsonschema==4.26.0")
"""The core: msgspec for types and the wire; jsonschema for ``Tools`` (loaded on first use)."""

HTTP: Final = (
    "uvicorn==0.54.0",
    "httptools==0.9.0",
    "uvloop==0.23.0; sys_platform != 'win32'",
    "aiohttp==3.14.5",
)
"""MCP over HTTP: uvicorn (with httptools, and uvloop where it exists) serves, aiohttp calls."""

AUTH: Final = ("PyJWT==2.15.1", "cryptography==50.0.2")
"""Authorization (``pkg.runtime.auth``, loaded only when used; with ``HTTP``): JOSE/JWT on
PyJWT, keys on cryptography."""

REDIS: Final = ("redis==8.1.0", "hiredis==3.5.0")
"""Several workers sharing state (``runtime.backends.redis``, with ``HTTP``): asyncio Redis."""

EXTRAS: Final = {"runtime": RUNTIME, "http": HTTP, "auth": AUTH, "redis": REDIS}
"""The extras of mcpgen whose ranges admit these pins, by name."""


def requirement_files(generator_version: str) -> dict[str, str]:
    """Return the requirements files of a generated package, file name to text."""
    head = f"# Written by mcpgen {generator_version}: what this package needs at run time.\n"
    return {
        "requirements.txt": head + "".join(f"{req}\n" for req in RUNTIME),
        "requirements-http.txt": head
        + "# MCP over HTTP: the core plus the HTTP server and client libraries.\n"
        + "-r requirements.txt\n"
        + "".join(f"{req}\n" for req in HTTP),
        "requirements-auth.txt": head
        + "# OAuth 2.1 client and resource server: HTTP plus the JOSE/JWT libraries.\n"
        + "-r requirements-http.txt\n"
        + "".join(f"{req}\n" for req in AUTH),
        "requirements-redis.txt": head
        + "# Several HTTP workers sharing sessions, events and tasks through Redis.\n"
        + "-r requirements-http.txt\n"
        + "".join(f"{req}\n" for req in REDIS),
    }
