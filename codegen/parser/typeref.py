"""Type references of the IR: a frozen tree that renders itself and names what it needs.

A field, alias, union member or method refers to a type through one of these nodes, never
through text. Imports, alias order and page item types are read off the tree; the text is
produced once, when a template asks for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal as _Literal
from typing import TypeAlias

Source = _Literal["typing", "msgspec", "types", "tolerant", "recursive"]
"""Where a name a reference needs comes from: typing, msgspec, the revision's types, the
runtime's tolerant reading (``Unknown``) or its recursive aliases (``recursive_alias``)."""
Need = tuple[Source, str]
"""One name a rendered reference uses, with its source (``("typing", "Any")``)."""
LiteralValue: TypeAlias = str | int | float | bool | None


def _union(sets: Iterable[frozenset[Need]]) -> frozenset[Need]:
    """All needs of several references."""
    out: set[Need] = set()
    for needs in sets:
        out |= needs
    return frozenset(out)


@dataclass(frozen=True)
class Spelling:
    """How names are spelled where a reference is rendered.

    ``annotated`` is typing's ``Annotated`` as the module imports it (``_Annotated`` where the
    schema defines a type named ``Annotated``); ``qualifier`` prefixes the revision's own type
    names (``t.`` in ``methods.py``).
    """

    annotated: str = "Annotated"
    qualifier: str = ""
    runtime: bool = False
    """For run time: a recursive reference becomes the runtime's ``recursive_alias`` class,
    which the decode hook checks against the alias (msgspec has no recursive aliases)."""


PLAIN = Spelling()
"""Spelling inside the revision's types module."""


@dataclass(frozen=True)
class Named:
    """A type the revision defines: a Struct, an alias or an untagged union."""

    name: str

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return sp.qualifier + self.name

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return frozenset({("types", self.name)})


@dataclass(frozen=True)
class Recursive:
    """A reference back to an alias still being defined (``JSONValue`` inside ``JSONValue``).

    Type checkers see the name (quoted: it may not be defined yet); at run time it is a class
    standing for the alias, found by name in the module's namespace when a value is decoded.
    """

    name: str

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        if sp.runtime:
            return f'recursive_alias("{self.name}", globals())'
        return f'"{sp.qualifier}{self.name}"'

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return frozenset({("types", self.name), ("recursive", "recursive_alias")})


@dataclass(frozen=True)
class RuntimeName:
    """A type the shipped runtime defines (``Unknown``: a union member of an undefined kind)."""

    name: str

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return self.name

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return frozenset({("tolerant", self.name)})


UNKNOWN = RuntimeName("Unknown")
"""The member every open union gets: what a peer sends of a kind the revision lacks."""


BUILTINS = frozenset({"str", "int", "float", "bool", "None", "Any"})


@dataclass(frozen=True)
class Builtin:
    """A builtin scalar (``str``, ``int``, ``float``, ``bool``, ``None``) or ``Any``."""

    name: str

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return self.name

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return frozenset({("typing", "Any")}) if self.name == "Any" else frozenset()


@dataclass(frozen=True)
class ListOf:
    """``list[item]``."""

    item: TypeRef

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return f"list[{self.item.render(sp)}]"

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return self.item.needs()


@dataclass(frozen=True)
class MapOf:
    """``dict[str, value]``: a JSON object with string keys."""

    value: TypeRef

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return f"dict[str, {self.value.render(sp)}]"

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return self.value.needs()


@dataclass(frozen=True)
class UnionOf:
    """``a | b | ...``: a union msgspec decodes natively (or a type checker's view of one)."""

    members: tuple[TypeRef, ...]

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return " | ".join(m.render(sp) for m in self.members)

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return _union(m.needs() for m in self.members)


def literal_text(value: LiteralValue) -> str:
    """One literal value as Python source (strings in double quotes, as black writes them)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


@dataclass(frozen=True)
class LiteralOf:
    """``Literal[...]`` of const and enum values."""

    values: tuple[LiteralValue, ...]

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return "Literal[" + ", ".join(literal_text(v) for v in self.values) + "]"

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        return frozenset({("typing", "Literal")})


@dataclass(frozen=True)
class Constrained:
    """``Annotated[inner, Meta(...)]``: bounds, lengths or a pattern checked at decode."""

    inner: TypeRef
    meta: tuple[tuple[str, LiteralValue], ...]

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.meta)
        return f"{sp.annotated}[{self.inner.render(sp)}, Meta({args})]"

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        extra: frozenset[Need] = frozenset({("typing", "Annotated"), ("msgspec", "Meta")})
        return self.inner.needs() | extra


@dataclass(frozen=True)
class Optional:
    """``inner | UnsetType``: a field that may be absent from the message."""

    inner: TypeRef

    def render(self, sp: Spelling = PLAIN) -> str:
        """The reference as Python source."""
        return f"{self.inner.render(sp)} | UnsetType"

    def needs(self) -> frozenset[Need]:
        """The names the rendered reference uses."""
        extra: frozenset[Need] = frozenset({("msgspec", "UnsetType")})
        return self.inner.needs() | extra


TypeRef: TypeAlias = (
    Named
    | Recursive
    | RuntimeName
    | Builtin
    | ListOf
    | MapOf
    | UnionOf
    | LiteralOf
    | Constrained
    | Optional
)
"""Any node of the type-reference tree."""

ANY = Builtin("Any")
"""``Any``: a value the schema leaves open."""


def walk(ref: TypeRef) -> list[TypeRef]:
    """``ref`` and every node below it, depth first."""
    out: list[TypeRef] = [ref]
    if isinstance(ref, ListOf):
        out += walk(ref.item)
    elif isinstance(ref, MapOf):
        out += walk(ref.value)
    elif isinstance(ref, (Constrained, Optional)):
        out += walk(ref.inner)
    elif isinstance(ref, UnionOf):
        for m in ref.members:
            out += walk(m)
    return out


def type_names(refs: tuple[TypeRef, ...] | list[TypeRef]) -> frozenset[str]:
    """The revision's own type names that ``refs`` use at run time (recursive ones aside)."""
    return frozenset(n.name for r in refs for n in walk(r) if isinstance(n, Named))


def is_recursive(ref: TypeRef) -> bool:
    """Whether ``ref`` refers back to an alias that is still being defined."""
    return any(isinstance(n, Recursive) for n in walk(ref))


def needs_of(refs: tuple[TypeRef, ...] | list[TypeRef]) -> frozenset[Need]:
    """Every name ``refs`` use."""
    return _union(r.needs() for r in refs)
