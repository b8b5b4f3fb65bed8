# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Unions that msgspec cannot decode on its own, told apart by the shape of the value.

msgspec decodes a union of Structs only when a tag field tells them apart. Where the
schema has no such tag (text vs blob resource contents, the elicitation enum schemas,
the JSON-RPC envelope), the generated code names a subclass of ``UntaggedUnion`` for
msgspec at run time (type checkers see the plain union) and ``dec_hook`` picks the
variant: the first whose required keys and constant values the value has.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import msgspec

_KIND_CHECKS: dict[str, tuple[type, ...]] = {
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


@dataclass(frozen=True, slots=True)
class Variant:
    """One member of an untagged union and what a value must have to be it."""

    type: Any
    kind: str = "object"
    required: tuple[str, ...] = ()
    consts: tuple[tuple[str, Any], ...] = ()

    def matches(self, value: Any) -> bool:
        """Whether ``value`` has this variant's shape (its fields are checked by msgspec after)."""
        if self.kind == "object":
            return (
                isinstance(value, dict)
                and all(key in value for key in self.required)
                and all(value.get(key) == const for key, const in self.consts)
            )
        if self.kind == "any":
            return True
        checks = _KIND_CHECKS[self.kind]
        if isinstance(value, bool) and bool not in checks:
            return False
        return isinstance(value, checks)


class UntaggedUnion(abc.ABC):  # noqa: B024 - an ABC for virtual subclasses only
    """Marker base of the run-time classes standing for untagged unions."""

    variants: ClassVar[tuple[Variant, ...]] = ()

    @classmethod
    def decode_value(cls, value: Any) -> Any:
        """Convert an already-decoded JSON value into the first variant it matches."""
        for variant in cls.variants:
            if variant.matches(value):
                try:
                    return msgspec.convert(value, variant.type, dec_hook=dec_hook)
                except msgspec.ValidationError as exc:
                    # msgspec prefixes a ValueError with the outer path, naming the field.
                    message, _, where = str(exc).partition(" - at `$")
                    inner = f" at `{where.rstrip('`').lstrip('.')}`" if where else ""
                    raise ValueError(f"{message}{inner} of {_type_name(variant.type)}") from None
        names = ", ".join(_type_name(v.type) for v in cls.variants)
        raise ValueError(f"Expected one of {names}, got a value that matches none")


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp)


def untagged_union(name: str, *variants: Variant) -> type[UntaggedUnion]:
    """Create the run-time class of an untagged union; each Struct variant counts as an instance."""
    cls = type(name, (UntaggedUnion,), {"variants": variants, "__doc__": f"Untagged union {name}."})
    for variant in variants:
        if isinstance(variant.type, type) and issubclass(variant.type, msgspec.Struct):
            abc.ABCMeta.register(cast(abc.ABCMeta, cls), variant.type)
    return cls


def dec_hook(tp: Any, value: Any) -> Any:
    """The msgspec ``dec_hook`` that decodes untagged unions; pass it to every Decoder."""
    if isinstance(tp, type) and issubclass(tp, UntaggedUnion):
        return tp.decode_value(value)
    raise NotImplementedError(f"mcpgen runtime cannot decode type {tp!r}")
