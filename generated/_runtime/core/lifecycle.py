# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Version negotiation and capability checks of the initialize-era revisions.

The server answers the client's version when it supports it and otherwise its newest; the
client refuses a version it does not support. Capabilities are plain JSON objects here
(``msgspec.to_builtins`` of the generated capability types), checked by dotted path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .errors import LocalProtocolError
from .methods import MethodSpec


class UnsupportedVersion(Exception):
    """The peer chose a protocol version this side does not support."""


def choose_version(requested: str, supported: Iterable[str]) -> str:
    """Return the version a server answers: the requested one if supported, else its newest."""
    versions = sorted(supported)
    if not versions:
        raise LocalProtocolError("no protocol version is supported")
    return requested if requested in versions else versions[-1]


def accept_version(chosen: str, supported: Iterable[str]) -> str:
    """Check, on the client, the version the server answered; raise if it is not supported."""
    versions = sorted(supported)
    if chosen not in versions:
        raise UnsupportedVersion(
            f"the server chose protocol version {chosen!r}, which this client does not support "
            f"(supported: {', '.join(versions)})"
        )
    return chosen


def as_json(capabilities: Any) -> dict[str, Any]:
    """Return capabilities (a generated Struct, a dict or None) as a plain JSON object."""
    if capabilities is None or capabilities is msgspec.UNSET:
        return {}
    value = msgspec.to_builtins(capabilities)
    return value if isinstance(value, dict) else {}


def has_capability(capabilities: Mapping[str, Any], path: str) -> bool:
    """Whether a dotted capability path is declared (``tools``, ``resources.subscribe``)."""
    node: Any = capabilities
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(node, Mapping) or not isinstance(node.get(part), Mapping):
            return False
        node = node[part]
    if not isinstance(node, Mapping) or parts[-1] not in node:
        return False
    value = node[parts[-1]]
    return value is not False and value is not None


def gate(
    spec: MethodSpec, *, ours: Mapping[str, Any], theirs: Mapping[str, Any], sending: bool
) -> str | None:
    """Return why ``spec`` may not be used now given both sides' capabilities, or None.

    A request needs the receiver's capability and a notification the sender's; ``sending``
    says whether we are the sender.
    """
    if spec.capability is None or spec.capability_owner is None:
        return None
    we_own = (spec.capability_owner == "sender") == sending
    holder, who = (ours, "we") if we_own else (theirs, "the peer")
    if has_capability(holder, spec.capability):
        return None
    verb = "did not declare"
    return f"{spec.method} needs capability {spec.capability!r}, which {who} {verb}"
