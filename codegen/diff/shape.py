"""The type of a field or alias as the diff sees it, and whether one type accepts another."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

ShapeKind = Literal["any", "prim", "literal", "ref", "array", "map", "union"]
# A field of a named object type: (wire name, shape, required).
FieldShape = tuple[str, "Shape", bool]


class Scope(Protocol):
    """The named types of one revision, as ``accepts`` needs them."""

    def alias(self, name: str) -> Shape | None:
        """Expand a named union or alias (``Cursor = str``); None for an object or unknown name."""
        ...

    def object_fields(self, name: str) -> tuple[FieldShape, ...] | None:
        """The fields of a named object type; None for anything else."""
        ...

    def open_object(self, name: str) -> bool:
        """Whether a named object keeps whatever members it is given (a ``dict``)."""
        ...


@dataclass(frozen=True)
class Shape:
    """A schema type: a primitive, a literal set, a named type, a list, a map or a union."""

    kind: ShapeKind
    name: str = ""
    args: tuple[Shape, ...] = ()
    values: tuple[str, ...] = ()

    def render(self) -> str:
        """Render as the Python annotation a user of the generated types reads."""
        if self.kind == "any":
            return "Any"
        if self.kind in ("prim", "ref"):
            return self.name
        if self.kind == "literal":
            return f"Literal[{', '.join(self.values)}]"
        if self.kind == "array":
            return f"list[{self.args[0].render()}]"
        if self.kind == "map":
            return f"dict[str, {self.args[0].render()}]"
        return " | ".join(m.render() for m in self.args)


ANY = Shape("any")


def prim(name: str) -> Shape:
    """A primitive: ``str``, ``int``, ``float``, ``bool`` or ``None``."""
    return Shape("prim", name)


def ref(name: str) -> Shape:
    """A named type of the revision."""
    return Shape("ref", name)


def literal(values: tuple[object, ...]) -> Shape:
    """A set of constant values (a ``const`` or an ``enum``), kept sorted for stable output."""
    return Shape("literal", values=tuple(sorted({json.dumps(v) for v in values})))


def array(item: Shape) -> Shape:
    """A JSON array of ``item``."""
    return Shape("array", args=(item,))


def mapping(value: Shape) -> Shape:
    """A JSON object used as a map from string keys to ``value``."""
    return Shape("map", args=(value,))


def union(members: list[Shape]) -> Shape:
    """A union, flattened, without repeats and sorted so a reordering is no change."""
    flat: dict[str, Shape] = {}
    for member in members:
        for m in member.args if member.kind == "union" else (member,):
            flat.setdefault(m.render(), m)
    if len(flat) == 1:
        return next(iter(flat.values()))
    return Shape("union", args=tuple(flat[k] for k in sorted(flat)))


def _json_kind(value: object) -> str:
    """The primitive a decoded JSON constant is: ``str``, ``bool``, ``int``, ``float``, ``None``."""
    if value is None:
        return "None"
    for kind in (bool, str, int, float):  # bool before int: True is an int in Python
        if isinstance(value, kind):
            return kind.__name__
    return ""


def _literal_fits(value: str, target: str) -> bool:
    kind = _json_kind(json.loads(value))
    return kind == target or (target == "float" and kind == "int")


def accepts(
    target: Shape, source: Shape, target_scope: Scope, source_scope: Scope, loose: bool = False
) -> bool:
    """Whether every value valid for ``source`` converts to ``target`` keeping everything.

    Each side's names resolve in its own scope. A named object fits the same name (its own
    changes are reported where it is defined), a map of anything, or another object that has
    every field it has, with fitting types, and requires no field it may lack. ``loose``: the
    object may have fields the target lacks (a conversion leaves them out).
    """
    return _Fit(target_scope, source_scope, loose).fits(target, source, frozenset())


Seen = frozenset[tuple[str, str, str]]


class _Fit:
    """One ``accepts`` question: the two scopes and the pairs already assumed to fit."""

    def __init__(self, target: Scope, source: Scope, loose: bool) -> None:
        self.ts, self.ss, self.loose = target, source, loose

    def fits(self, t: Shape, s: Shape, seen: Seen) -> bool:
        """Whether ``s`` values fit ``t``; pairs in ``seen`` are assumed to (recursive types)."""
        if t.kind == "any" or (t == s and t.kind != "ref"):
            return True
        if s.kind == "ref" and (expanded := self.ss.alias(s.name)) is not None:
            key = ("source", s.name, t.render())
            return key in seen or self.fits(t, expanded, seen | {key})
        if t.kind == "ref" and (expanded := self.ts.alias(t.name)) is not None:
            key = ("target", t.name, s.render())
            return key in seen or self.fits(expanded, s, seen | {key})
        if s.kind == "union":
            return all(self.fits(t, m, seen) for m in s.args)
        if t.kind == "union":
            return any(self.fits(m, s, seen) for m in t.args)
        if t.kind == "ref" and self.ts.open_object(t.name) and s.kind in ("ref", "map"):
            return True  # the generated type is a dict: it takes any object as it is
        if t.kind == "ref" and s.kind == "ref":
            return t.name == s.name or self.objects(t.name, s.name, seen)
        if t.kind == "ref" or s.kind == "ref":
            return t.kind == "map" and t.args[0].kind == "any"
        return _plain_fits(t, s, lambda a, b: self.fits(a, b, seen))

    def objects(self, t_name: str, s_name: str, seen: Seen) -> bool:
        """Two differently named objects: does the target have all the source's fields?"""
        key = ("object", t_name, s_name)
        if key in seen:
            return True
        t_fields, s_fields = self.ts.object_fields(t_name), self.ss.object_fields(s_name)
        if t_fields is None or s_fields is None:
            return False
        targets = {wire: (shape, required) for wire, shape, required in t_fields}
        sources = {wire: (shape, required) for wire, shape, required in s_fields}
        if not self.loose and not sources.keys() <= targets.keys():
            return False
        if any(req and not sources.get(w, (ANY, False))[1] for w, (_, req) in targets.items()):
            return False
        inner = seen | {key}
        shared = [(w, shape) for w, (shape, _) in sources.items() if w in targets]
        return all(self.fits(targets[w][0], shape, inner) for w, shape in shared)


def _plain_fits(t: Shape, s: Shape, fits: Callable[[Shape, Shape], bool]) -> bool:
    """Fit of literals, primitives, lists and maps (no names, no unions)."""
    if t.kind == "literal":
        return s.kind == "literal" and set(s.values) <= set(t.values)
    if t.kind == "prim":
        if s.kind == "literal":
            return all(_literal_fits(v, t.name) for v in s.values)
        return s.kind == "prim" and (s.name == t.name or (t.name, s.name) == ("float", "int"))
    if t.kind in ("array", "map"):
        return s.kind == t.kind and fits(t.args[0], s.args[0])
    return False
