"""Rendered type expressions with the shape facts that decide how msgspec can decode a union."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .ir import VariantIR

__all__ = ["TypeExpr", "VariantIR"]


@dataclass(frozen=True)
class TypeExpr:
    """A rendered annotation and the msgspec-relevant shape of what it accepts.

    ``shape`` is one of: struct, dict, list, str, int, float, bool, null, any, union, custom.
    ``tag_field`` is set on tagged structs; ``members`` on native unions (flattened);
    ``variants`` on untagged unions (``custom``); ``variant`` describes this type as a union member.
    """

    text: str
    shape: str
    variant: VariantIR
    tag_field: str | None = None
    tag: str | None = None
    members: tuple[TypeExpr, ...] = ()
    variants: tuple[VariantIR, ...] = ()


_KIND_OF_SHAPE = {
    "struct": "object",
    "dict": "object",
    "list": "array",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "null": "null",
}


def scalar(text: str, shape: str) -> TypeExpr:
    """Return a non-struct type expression (``str``, ``dict[str, Any]``, ``list[int]`` ...)."""
    kind = _KIND_OF_SHAPE.get(shape, "any")
    return TypeExpr(text, shape, VariantIR(text, kind, (), ()))  # type: ignore[arg-type]


def struct(
    name: str,
    required: tuple[str, ...],
    consts: dict[str, Any],
    tag_field: str | None,
    known: tuple[str, ...] = (),
) -> TypeExpr:
    """Return a reference to a generated Struct (``known``: all its wire field names)."""
    tag = consts.get(tag_field) if tag_field else None
    rendered = tuple((k, repr(v)) for k, v in sorted(consts.items()))
    return TypeExpr(
        name,
        "struct",
        VariantIR(name, "object", tuple(sorted(required)), rendered, tuple(sorted(known))),
        tag_field=tag_field,
        tag=tag,
    )


def literal(values: tuple[Any, ...]) -> TypeExpr:
    """Return a ``Literal[...]`` for const and enum values."""
    text = (
        "Literal["
        + ", ".join(json.dumps(v) if isinstance(v, str) else repr(v) for v in values)
        + "]"
    )
    kinds = {type(v) for v in values}
    shape = "str" if kinds == {str} else "int" if kinds == {int} else "any"
    kind = _KIND_OF_SHAPE.get(shape, "any")
    return TypeExpr(text, f"literal-{shape}", VariantIR(text, kind, (), ()))  # type: ignore[arg-type]


def _flatten(members: list[TypeExpr]) -> list[TypeExpr]:
    out: list[TypeExpr] = []
    seen: set[str] = set()
    for member in members:
        for m in member.members if member.shape == "union" else (member,):
            if m.text not in seen:
                seen.add(m.text)
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
        return [scalar("Any", "any")], True
    return flat, natively_decodable(flat)


def union_variants(flat: list[TypeExpr]) -> tuple[VariantIR, ...]:
    """Return the ordered variants of an untagged union, expanding nested untagged unions."""
    variants: list[VariantIR] = []
    for m in flat:
        if m.shape == "custom":
            variants.extend(m.variants)
        else:
            variants.append(m.variant)
    return order_variants(variants)
