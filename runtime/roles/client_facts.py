"""What a client reads of a server's connect result, and what several clients declare at once.

``connect_any`` proposes one ``initialize`` for clients of several revisions: it declares the
capabilities all of them declare (whichever is chosen holds them), and the chosen one reads
the result through ``InitializeResultLike`` (any revision's ``InitializeResult``).
"""

from __future__ import annotations

from typing import Any, Protocol, cast, runtime_checkable

import msgspec

__all__ = [
    "ConnectResultLike",
    "InitializeResultLike",
    "common_capabilities",
    "initialize_fields",
]


@runtime_checkable
class InitializeResultLike(Protocol):
    """What the client reads of any revision's ``InitializeResult``."""

    @property
    def protocol_version(self) -> str:
        """The version the server chose."""
        ...

    @property
    def capabilities(self) -> object:
        """The server's capabilities."""
        ...

    @property
    def server_info(self) -> object:
        """The server's name and version."""
        ...

    @property
    def instructions(self) -> str | msgspec.UnsetType:
        """How to use the server, if it says."""
        ...


@runtime_checkable
class ConnectResultLike(Protocol):
    """What every revision's connect result has: ``InitializeResult`` or ``DiscoverResult``."""

    @property
    def capabilities(self) -> object:
        """The server's capabilities."""
        ...


def initialize_fields(result: object) -> InitializeResultLike:
    """The initialize result's fields (a revision without ``initialize`` never gets here)."""
    if not isinstance(result, InitializeResultLike):
        raise TypeError(f"not an InitializeResult: {type(result).__name__}")
    return result


def common_capabilities(every: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the capabilities all of ``every`` declare (whichever client is chosen has them)."""
    common: dict[str, Any] = {}
    for name, value in every[0].items():
        others = [caps.get(name) for caps in every[1:]]
        if any(other is None for other in others):
            continue
        if isinstance(value, dict):
            members = cast(dict[str, Any], value)
            common[name] = {
                k: v
                for k, v in members.items()
                if all(isinstance(o, dict) and k in o for o in others)
            }
        else:
            common[name] = value
    return common
