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
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeGuard, cast

import msgspec

UNKNOWN_TAG: Final = "\x00unknown"
"""The tag of the bare ``Unknown`` member (no peer sends it): tolerant reading's placeholder."""

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
    known: tuple[str, ...] = ()
    """Every field name of an object variant: the variant that knows most keys of a value wins."""
    nested: tuple[tuple[str, str], ...] = ()
    """(member, key): a key the value's member must hold (a required key of an open ``_meta``)."""

    def score(self, value: Any) -> int:
        """How many keys of an object value this variant knows."""
        return sum(1 for key in value if key in self.known) if _is_object(value) else 0

    def matches(self, value: Any) -> bool:
        """Whether ``value`` has this variant's shape (its fields are checked by msgspec after)."""
        if self.kind == "object":
            return (
                _is_object(value)
                and all(key in value for key in self.required)
                and all(value.get(key) == const for key, const in self.consts)
                and all(_holds(value.get(member), key) for member, key in self.nested)
            )
        if self.kind == "any":
            return True
        if self.kind == "unknown":  # only the placeholder of tolerant reading
            return _is_object(value) and value.get("type") == UNKNOWN_TAG
        checks = _KIND_CHECKS[self.kind]
        if isinstance(value, bool) and bool not in checks:
            return False
        return isinstance(value, checks)


def _is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether a decoded JSON value is an object."""
    return isinstance(value, dict)


def _holds(member: object, key: str) -> bool:
    """Whether an object member holds ``key``."""
    return _is_object(member) and key in member


class UntaggedUnion(abc.ABC):  # noqa: B024 - an ABC for virtual subclasses only
    """Marker base of the run-time classes standing for untagged unions."""

    variants: ClassVar[tuple[Variant, ...]] = ()

    @classmethod
    def decode_value(cls, value: Any) -> Any:
        """Convert an already-decoded JSON value into the first variant it matches."""
        candidates = [v for v in cls.variants if v.matches(value)]
        if len(candidates) > 1 and isinstance(value, dict):
            # A value that fits several shapes goes to the variant that explains most of it.
            candidates.sort(key=lambda v: -v.score(value))
        first: str | None = None
        for variant in candidates:
            try:
                return msgspec.convert(value, variant.type, dec_hook=dec_hook)
            except msgspec.ValidationError as exc:
                if first is None:
                    # msgspec prefixes a ValueError with the outer path, naming the field.
                    message, _, where = str(exc).partition(" - at `$")
                    inner = f" at `{where.rstrip('`').lstrip('.')}`" if where else ""
                    first = f"{message}{inner} of {_type_name(variant.type)}"
        if first is not None:
            raise ValueError(first)
        names = ", ".join(_type_name(v.type) for v in cls.variants)
        raise ValueError(f"Expected one of {names}, got a value that matches none")


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp)


def untagged_union(name: str, *variants: Variant) -> type[UntaggedUnion]:
    """Create the run-time class of an untagged union; each Struct variant counts as an instance."""
    cls = type(name, (UntaggedUnion,), {"variants": variants, "__doc__": f"Untagged union {name}."})
    for variant in variants:
        # Every variant's class (a Struct, or dict/list/str for the other shapes) counts as an
        # instance of the union, which is what msgspec checks of what dec_hook returns.
        runtime_class = _runtime_class(variant.type)
        if runtime_class is not None:
            abc.ABCMeta.register(cast(abc.ABCMeta, cls), runtime_class)
    return cls


def _runtime_class(tp: Any) -> type[Any] | None:
    """The class values of ``tp`` have at run time (``list[X]``: list, ``Literal["a"]``: str)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _runtime_class(typing.get_args(tp)[0])
    if origin is typing.Literal:
        first: object = typing.get_args(tp)[0]
        return type(first)
    found: object = origin or tp
    return found if _is_class(found) else None


def _is_class(value: object) -> TypeGuard[type[Any]]:
    """Whether ``value`` is a class."""
    return isinstance(value, type)


def dec_hook(tp: Any, value: Any) -> Any:
    """The msgspec ``dec_hook`` that decodes untagged unions; pass it to every Decoder."""
    if isinstance(tp, type) and issubclass(tp, UntaggedUnion):
        return tp.decode_value(value)
    raise NotImplementedError(f"mcpgen runtime cannot decode type {tp!r}")
