"""Type expressions with the shape facts that decide how msgspec can decode a union."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .ir import VariantIR, VariantKind
from .typeref import ANY, UNKNOWN, LiteralOf, LiteralValue, TypeRef, UnionOf

__all__ = ["Shape", "TypeExpr", "VariantIR"]

Shape = Literal[
    "struct",
    "dict",
    "list",
    "str",
    "int",
    "float",
    "bool",
    "null",
    "any",
    "union",
    "custom",
    "literal-str",
    "literal-int",
    "literal-any",
]


@dataclass(frozen=True)
class TypeExpr:
    """A type reference and the msgspec-relevant shape of what it accepts.

    ``tag_field`` is set on tagged structs; ``members`` on native unions (flattened);
    ``variants`` on untagged unions (``custom``); ``variant`` describes this type as a union member.
    """

    ref: TypeRef
    shape: Shape
    variant: VariantIR
    tag_field: str | None = None
    tag: str | None = None
    members: tuple[TypeExpr, ...] = ()
    variants: tuple[VariantIR, ...] = ()


_KIND_OF_SHAPE: dict[str, VariantKind] = {
    "struct": "object",
    "dict": "object",
    "list": "array",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "null": "null",
}


def scalar(ref: TypeRef, shape: Shape) -> TypeExpr:
    """Return a non-struct type expression (``str``, ``dict[str, Any]``, ``list[int]`` ...)."""
    return TypeExpr(ref, shape, VariantIR(ref, _KIND_OF_SHAPE.get(shape, "any"), (), ()))


def struct(
    ref: TypeRef,
    required: tuple[str, ...],
    consts: dict[str, Any],
    tag_field: str | None,
    known: tuple[str, ...] = (),
    nested: tuple[tuple[str, str], ...] = (),
) -> TypeExpr:
    """Return a reference to a generated Struct (``known``: all its wire field names)."""
    tag = consts.get(tag_field) if tag_field else None
    pairs: tuple[tuple[str, LiteralValue], ...] = tuple(sorted(consts.items()))
    return TypeExpr(
        ref,
        "struct",
        VariantIR(ref, "object", tuple(sorted(required)), pairs, tuple(sorted(known)), nested),
        tag_field=tag_field,
        tag=tag,
    )


def open_object(
    ref: TypeRef, required: tuple[str, ...], consts: dict[str, Any], known: tuple[str, ...]
) -> TypeExpr:
    """Return an object kept whole as a ``dict`` that still names (and may require) members.

    As a member of an untagged union it needs its required keys and constants like a Struct
    (``Result`` of 2026-07-28 requires ``resultType``), so ``{}`` is not taken for it.
    """
    pairs: tuple[tuple[str, LiteralValue], ...] = tuple(sorted(consts.items()))
    variant = VariantIR(ref, "object", tuple(sorted(required)), pairs, tuple(sorted(known)))
    return TypeExpr(ref, "dict", variant)


def literal(values: tuple[LiteralValue, ...]) -> TypeExpr:
    """Return a ``Literal[...]`` for const and enum values."""
    kinds = {type(v) for v in values}
    shape: Shape = (
        "literal-str" if kinds == {str} else "literal-int" if kinds == {int} else "literal-any"
    )
    kind = _KIND_OF_SHAPE.get(shape.removeprefix("literal-"), "any")
    ref = LiteralOf(values)
    return TypeExpr(ref, shape, VariantIR(ref, kind, (), ()))


def _flatten(members: list[TypeExpr]) -> list[TypeExpr]:
    out: list[TypeExpr] = []
    seen: set[TypeRef] = set()
    for member in members:
        for m in member.members if member.shape == "union" else (member,):
            if m.ref not in seen:
                seen.add(m.ref)
                out.append(m)
    return out


def natively_decodable(members: list[TypeExpr]) -> bool:
    """Whether msgspec decodes this union on its own (the rules of msgspec's union support)."""
    shapes = [m.shape for m in members]
    if "custom" in shapes:
        return False
    structs = [m for m in members if m.shape == "struct"]
    if len(structs) > 1:
        fields = {m.tag_field for m in structs}
        tags = [m.tag for m in structs]
        if None in fields or len(fields) != 1 or len(set(tags)) != len(tags) or "dict" in shapes:
            return False
    if shapes.count("dict") > 1 or (structs and "dict" in shapes) or shapes.count("list") > 1:
        return False
    if shapes.count("str") + shapes.count("literal-str") > 1 and "str" in shapes:
        return False
    return not (shapes.count("int") + shapes.count("literal-int") > 1 and "int" in shapes)


def order_variants(variants: list[VariantIR]) -> tuple[VariantIR, ...]:
    """Order untagged variants so the most specific object shape is tried first."""
    objects = [v for v in variants if v.kind == "object"]
    others = [v for v in variants if v.kind != "object"]
    objects.sort(key=lambda v: -(len(v.required) + len(v.consts)))
    return tuple(objects + others)


def union(members: list[TypeExpr]) -> tuple[list[TypeExpr], bool]:
    """Flatten a union's members and say whether msgspec decodes it natively."""
    flat = _flatten(members)
    if any(m.shape == "any" for m in flat):
        return [scalar(ANY, "any")], True
    return flat, natively_decodable(flat)


UNKNOWN_TAG = "\x00unknown"
"""The tag of the runtime's bare ``Unknown`` (no peer sends it; see runtime/core/tolerant.py)."""
UNKNOWN_MEMBER = TypeExpr(
    UNKNOWN,
    "struct",
    VariantIR(UNKNOWN, "unknown", (), ()),
    tag_field="type",
    tag=UNKNOWN_TAG,
)
"""The member an open union gets: a value of a kind the revision does not define."""


def is_open(flat: list[TypeExpr]) -> bool:
    """Whether a union is open: its members are objects told apart by a constant ``type``.

    That is the property under which the spec adds new kinds (content blocks, elicitation
    field schemas), so a peer of a later revision may send a kind this one lacks: tolerant
    reading gives it to the user as ``Unknown`` instead of refusing the whole message.
    """
    variants = union_variants(flat, closed=True)
    typed = [v for v in variants if v.kind == "object" and ("type" in v.required or _typed(v))]
    return len(variants) > 1 and len(typed) == len(variants) and any(map(_typed, variants))


def _typed(v: VariantIR) -> bool:
    """Whether a variant's ``type`` is one constant."""
    return any(k == "type" for k, _ in v.consts)


def native(flat: list[TypeExpr]) -> TypeExpr:
    """The expression of a union msgspec decodes natively (``flat`` as ``union`` returned it)."""
    if len(flat) == 1:
        return flat[0]
    if UNKNOWN_MEMBER not in flat and is_open(flat):
        flat = [*flat, UNKNOWN_MEMBER]
    ref = UnionOf(tuple(m.ref for m in flat))
    return TypeExpr(ref, "union", VariantIR(ref, "any", (), ()), members=tuple(flat))


def union_variants(flat: list[TypeExpr], *, closed: bool = False) -> tuple[VariantIR, ...]:
    """Return the ordered variants of an untagged union, expanding nested untagged unions.

    An open union (``is_open``) ends with the ``Unknown`` variant unless ``closed``.
    """
    variants: list[VariantIR] = []
    for m in flat:
        if m.shape == "custom":
            variants.extend(v for v in m.variants if v.kind != "unknown")
        elif m.variant.kind != "unknown":
            variants.append(m.variant)
    ordered = order_variants(variants)
    if closed or not is_open(flat):
        return ordered
    return (*ordered, UNKNOWN_MEMBER.variant)
