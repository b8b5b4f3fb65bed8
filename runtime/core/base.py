"""The base class of every generated Struct."""

from __future__ import annotations

import msgspec


class MCPStruct(
    msgspec.Struct,
    kw_only=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    forbid_unknown_fields=True,
):
    """Base of all generated MCP types: keyword-only, absent fields left out of the wire.

    Optional fields default to ``UNSET`` so that an absent field and an explicit ``null``
    stay different. Unknown fields fail the one-pass decode on purpose: the codec then reads
    the message again tolerantly (``core/tolerant.py``), keeping them, or, strict, dropping
    them; a message without any pays nothing for that.
    ``gc=False``: decoded messages never form reference cycles, so the garbage collector
    need not track them (do not build cycles through these objects by hand).
    """
