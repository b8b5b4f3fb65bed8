# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The mcpgen runtime, copied into every generated package as ``_runtime``.

It depends on msgspec only, and nothing here imports the generator.
"""

from .base import MCPStruct
from .codec import convert, decode, decoder, encode
from .methods import MethodSpec
from .unions import UntaggedUnion, Variant, dec_hook, untagged_union

__all__ = [
    "MCPStruct",
    "MethodSpec",
    "UntaggedUnion",
    "Variant",
    "convert",
    "dec_hook",
    "decode",
    "decoder",
    "encode",
    "untagged_union",
]
