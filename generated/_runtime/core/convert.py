# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Converting a value of one protocol revision into another, by generated tables.

The generated ``converters.py`` holds, per neighbouring pair of revisions and per direction,
a ``Step``: for every type whose values change between the two, an ``Obj`` row saying which
members are dropped, refused, filled or need the target's value, and where nested values
change (``Each`` item of a list, ``Values`` of a map, ``Ref`` to another row, ``OneOf`` a
tagged union whose members the target may lack). A conversion is: the source value as JSON
builtins, each step of the chain applied in place, one ``msgspec.convert`` into the target
type. Types that do not change have no row and cost nothing but that one convert.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import msgspec

from .errors import ConversionError
from .unions import dec_hook


@dataclass(frozen=True, slots=True)
class Ref:
    """A nested value of the named row's type."""

    name: str


@dataclass(frozen=True, slots=True)
class Each:
    """A list whose items change."""

    item: Walk


@dataclass(frozen=True, slots=True)
class Values:
    """A map whose values change."""

    item: Walk


@dataclass(frozen=True, slots=True)
class Lost:
    """What happens to a union member the target lacks: drop it, map it, or refuse it."""

    action: Literal["drop", "map", "refuse"]
    to: str = ""
    """The tag of the member it becomes (``map``)."""
    fields: tuple[tuple[str, str], ...] = ()
    """The target member's fields, as format strings over the source member's fields."""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class OneOf:
    """A union told apart by the constant member ``tag``: per tag, how its member converts.

    An empty ``tag``: an untagged union whose members are told apart by a member only one of
    them requires (``text`` / ``blob``); ``members`` are keyed by it.
    """

    tag: str
    members: tuple[tuple[str, Walk], ...] = ()
    lost: tuple[tuple[str, Lost], ...] = ()


Walk: TypeAlias = Ref | Each | Values | OneOf


@dataclass(frozen=True, slots=True)
class Obj:
    """How one object type's members change from the source revision to the target."""

    drop: tuple[str, ...] = ()
    """Members the target lacks: left out."""
    refuse: tuple[str, ...] = ()
    """Members the target lacks and may not lose: a value that has one is refused."""
    fill: tuple[tuple[str, Any], ...] = ()
    """Members the target requires, with the value a declared rule or constant gives them."""
    need: tuple[str, ...] = ()
    """Members the target requires that nothing fills: a value without one is refused."""
    inner: tuple[tuple[str, Walk], ...] = ()
    """Members whose nested values change."""


@dataclass(frozen=True, slots=True)
class Step:
    """One direction between two neighbouring revisions: the rows of the types that change."""

    source: str
    target: str
    rows: Mapping[str, Obj]
    methods: Mapping[str, tuple[str | None, str | None]]
    """Method -> the rows of its params and its result in this step (None: unchanged)."""


_DROPPED = object()


class _Refused(Exception):
    """A refusal on its way out of a walk; each level adds where it was."""

    def __init__(self, why: str, where: str) -> None:
        super().__init__(why)
        self.why = why
        self.where = [where] if where else []


class _Apply:
    """One step applied to one value, in place (paths are built only when refusing)."""

    __slots__ = ("rows",)

    def __init__(self, step: Step) -> None:
        self.rows = step.rows

    def walk(self, walk: Walk, value: Any) -> Any:
        if type(walk) is Ref:
            if type(value) is dict:
                self.obj(self.rows[walk.name], value)
            return value
        if type(walk) is Each:
            if type(value) is not list:
                return value
            item = walk.item
            out: list[Any] = []
            for i, v in enumerate(value):
                try:
                    got = self.walk(item, v)
                except _Refused as exc:
                    exc.where.append(f"[{i}]")
                    raise
                if got is not _DROPPED:
                    out.append(got)
            return out
        if type(walk) is Values:
            if type(value) is dict:
                for key in list(value):
                    try:
                        got = self.walk(walk.item, value[key])
                    except _Refused as exc:
                        exc.where.append(f".{key}")
                        raise
                    if got is _DROPPED:
                        del value[key]
                    else:
                        value[key] = got
            return value
        assert isinstance(walk, OneOf)
        return self.member(walk, value)

    def member(self, union: OneOf, value: Any) -> Any:
        if type(value) is not dict:
            return value
        if not union.tag:  # untagged: the member that has the key
            for key, walk in union.members:
                if key in value:
                    return self.walk(walk, value)
            return value
        tag = value.get(union.tag)
        for key, lost in union.lost:
            if key == tag:
                return self.lose(lost, value, key)
        for key, walk in union.members:
            if key == tag:
                return self.walk(walk, value)
        return value

    def lose(self, lost: Lost, value: dict[str, Any], tag: str) -> Any:
        if lost.action == "drop":
            return _DROPPED
        if lost.action == "refuse":
            raise _Refused(f"the target has no {tag!r} member ({lost.reason})", "")
        source = _Fields(value)
        return {name: template.format_map(source) for name, template in lost.fields}

    def obj(self, row: Obj, value: dict[str, Any]) -> None:
        for name in row.refuse:
            if name in value:
                raise _Refused("the target lacks this member", f".{name}")
        for name in row.drop:
            value.pop(name, None)
        for name, filler in row.fill:
            if name not in value:
                value[name] = filler
        for name in row.need:
            if name not in value:
                raise _Refused("the target requires it; nothing provides it", f".{name}")
        for name, walk in row.inner:
            if name in value:
                try:
                    got = self.walk(walk, value[name])
                except _Refused as exc:
                    exc.where.append(f".{name}")
                    raise
                if got is _DROPPED:
                    del value[name]
                else:
                    value[name] = got


class _Fields(dict[str, Any]):
    """A member's fields for a format string; an absent one reads as empty."""

    def __missing__(self, key: str) -> str:
        return ""


Chain: TypeAlias = tuple[tuple[Step, str], ...]
"""The steps from one revision to another, each with the name of the value's row there."""


def apply_chain(chain: Chain, data: Any, path: str = "") -> Any:
    """Apply a chain of steps to the JSON builtins of one value (in place); return it."""
    for step, name in chain:
        found = step.rows.get(name)
        if found is not None and isinstance(data, dict):
            try:
                _Apply(step).obj(found, data)
            except _Refused as exc:
                where = (path or name) + "".join(reversed(exc.where))
                raise ConversionError(
                    f"cannot convert {where} from {step.source} to {step.target}: {exc.why}"
                ) from None
    return data


def chain(
    steps: Mapping[tuple[str, str], Step],
    order: tuple[str, ...],
    source: str,
    target: str,
    method: str,
    result: bool,
) -> Chain | None:
    """The steps converting ``method``'s params (or result) from ``source`` to ``target``.

    Composed of neighbouring steps along ``order``; None when a revision on the way lacks
    the method (it cannot be converted).
    """
    i, j = order.index(source), order.index(target)
    path = order[i : j + 1] if i <= j else order[j : i + 1][::-1]
    out: list[tuple[Step, str]] = []
    for a, b in itertools.pairwise(path):
        step = steps[a, b]
        rows = step.methods.get(method)
        if rows is None:
            return None
        name = rows[1] if result else rows[0]
        if name is not None:
            out.append((step, name))
    return tuple(out)


def convert_value(chain: Chain, value: Any, target: Any, path: str = "") -> Any:
    """Convert a generated value through ``chain`` into the ``target`` type.

    Raises ``ConversionError`` naming the member the target cannot take.
    """
    data = msgspec.to_builtins(value)
    if chain:
        apply_chain(chain, data, path)
    try:
        return msgspec.convert(data, target, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        where = path or (chain[-1][1] if chain else "value")
        into = chain[-1][0].target if chain else "the target"
        raise ConversionError(f"cannot convert {where} to {into}: {exc}") from None
