# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Encoding a JSON-object frame for a transport: the client side of the stateless era still
writes such frames. The server side no longer does (``era.py`` routes a stream now); this
module goes when the client side's ``modern_client.py`` stops importing it.
"""

from __future__ import annotations

from typing import Final

import msgspec

from ..core.wire import Outbound
from .modern_connection import Frame

_ENCODER: Final = msgspec.json.Encoder()
CANCELLED: Final = "notifications/cancelled"


def describe(frame: Frame) -> Outbound:
    """Encode a frame, with what transports route on (no second parse)."""
    data = _ENCODER.encode(frame)
    method = frame.get("method")
    if method is None:
        request_id = frame.get("id")
        return Outbound(data, "response", None, () if request_id is None else (request_id,))
    if "id" in frame:
        return Outbound(data, "request", method, (frame["id"],))
    cancels = frame.get("params", {}).get("requestId") if method == CANCELLED else None
    return Outbound(data, "notification", method, (), cancels)
