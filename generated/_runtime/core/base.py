# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The base class of every generated Struct."""

from __future__ import annotations

import msgspec


class MCPStruct(
    msgspec.Struct, kw_only=True, omit_defaults=True, repr_omit_defaults=True, gc=False
):
    """Base of all generated MCP types: keyword-only, absent fields left out of the wire.

    Optional fields default to ``UNSET`` so that an absent field and an explicit ``null``
    stay different; unknown fields in input are ignored (the protocol adds fields over time).
    ``gc=False``: decoded messages never form reference cycles, so the garbage collector
    need not track them (do not build cycles through these objects by hand).
    """
