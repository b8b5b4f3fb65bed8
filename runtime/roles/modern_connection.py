"""JSON-object helpers the client side of the stateless era still reads frames with.

The server side no longer uses them (its requests are typed end to end); this module goes
when the client side's ``modern_client.py`` modules stop importing it.
"""

from __future__ import annotations

from typing import Any

from ..core.wire import as_object

Frame = dict[str, Any]


def field(value: object, *path: str) -> Any:
    """The value at ``path`` inside nested JSON objects, or None where one is missing."""
    for key in path:
        found = as_object(value)
        if found is None:
            return None
        value = found.get(key)
    return value


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    found = as_object(value)
    return {} if found is None else found
