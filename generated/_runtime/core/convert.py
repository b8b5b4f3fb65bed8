# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Converting a value of one protocol revision into another, by generated tables.

The generated ``converters.py`` holds, per neighbouring pair of revisions and per direction,
a ``Step``: for every type whose values change between the two, an ``Obj`` row saying which
members are dropped, refused, filled or need the target's value, and where nested values
change (``Each`` item of a list, ``Values`` of a map, ``Ref`` to another row, ``OneOf`` a
tagged union whose members the target may lack). A conversion is: the source value as JSON
builtins, each step of the chain applied in place, one strict ``codec.convert`` into the
target type (a union member it does not define is refused, a field it does not define
dropped). Types that do not change have no row and cost nothing but that one convert.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import msgspec

from .codec import convert
from .errors import INTERNAL_ERROR, ConversionError


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


Fn: TypeAlias = Callable[[Any], Any]
"""A compiled walk: takes a JSON value, changes it in place, returns it (or ``_DROPPED``)."""
JsonObject: TypeAlias = dict[str, Any]
"""A decoded JSON object."""
RowFn: TypeAlias = Callable[[JsonObject], None]
"""A compiled row: changes one object in place."""


@dataclass(frozen=True, slots=True)
class Step:
    """One direction between two neighbouring revisions: the rows of the types that change."""

    source: str
    target: str
    rows: Mapping[str, Obj]
    methods: Mapping[str, tuple[str | None, str | None]]
    """Method -> the rows of its params and its result in this step (None: unchanged)."""
    compiled: dict[str, RowFn] = field(default_factory=lambda: {}, compare=False, repr=False)
    """The rows compiled into functions, on first use."""


_DROPPED = object()


class _Refused(Exception):
    """A refusal on its way out of a walk; each level adds where it was."""

    def __init__(self, why: str, where: str) -> None:
        super().__init__(why)
        self.why = why
        self.where = [where] if where else []


def _compiled(step: Step, name: str) -> RowFn:
    """The row ``name`` of ``step`` as a function, compiled once (recursive rows resolve lazily)."""
    found = step.compiled.get(name)
    if found is not None:
        return found
    holder: list[RowFn] = []

    def lazy(value: dict[str, Any]) -> None:
        holder[0](value)

    step.compiled[name] = lazy
    fn = _row_fn(step, step.rows[name])
    holder.append(fn)
    step.compiled[name] = fn
    return fn


def _row_fn(step: Step, row: Obj) -> RowFn:
    refuse, drop, fill, need = row.refuse, row.drop, row.fill, row.need
    inner = tuple((name, _walk_fn(step, walk)) for name, walk in row.inner)
    if not (refuse or fill or need or inner):  # the most common row: members to leave out
        return _drop_fn(drop)
    checks = bool(refuse or fill or need)

    def apply(value: dict[str, Any]) -> None:
        if checks:
            _check(refuse, fill, need, value)
        for name in drop:
            value.pop(name, None)
        for name, fn in inner:
            got = value.get(name, _DROPPED)
            if got is _DROPPED:
                continue
            try:
                out = fn(got)
            except _Refused as exc:
                exc.where.append(f".{name}")
                raise
            if out is _DROPPED:
                del value[name]
            elif out is not got:
                value[name] = out

    return apply


def _drop_fn(drop: tuple[str, ...]) -> RowFn:
    """A row that only leaves members out."""
    if len(drop) == 1:
        (only,) = drop

        def drop_one(value: dict[str, Any]) -> None:
            value.pop(only, None)

        return drop_one

    def drop_all(value: dict[str, Any]) -> None:
        for name in drop:
            value.pop(name, None)

    return drop_all


def _check(
    refuse: tuple[str, ...],
    fill: tuple[tuple[str, Any], ...],
    need: tuple[str, ...],
    value: dict[str, Any],
) -> None:
    """Refuse members the target may not lose, fill and check what it requires."""
    for name in refuse:
        if name in value:
            raise _Refused("the target lacks this member", f".{name}")
    for name, filler in fill:
        if name not in value:
            value[name] = filler
    for name in need:
        if name not in value:
            raise _Refused("the target requires it; nothing provides it", f".{name}")


def _walk_fn(step: Step, walk: Walk) -> Fn:
    if isinstance(walk, Ref):
        return _ref_fn(step, walk.name)
    if isinstance(walk, Each):
        return _each_fn(_walk_fn(step, walk.item))
    if isinstance(walk, Values):
        return _values_fn(_walk_fn(step, walk.item))
    return _one_of_fn(step, walk)


def _ref_fn(step: Step, name: str) -> Fn:
    row: list[RowFn] = []

    def ref(value: Any) -> Any:
        if value.__class__ is dict:
            obj: JsonObject = value
            if not row:
                row.append(_compiled(step, name))
            row[0](obj)
        return value

    return ref


def _each_fn(item: Fn) -> Fn:
    def each(value: Any) -> Any:
        if value.__class__ is not list:
            return value
        items: list[Any] = value
        dropped = False
        for i, x in enumerate(items):
            try:
                got = item(x)
            except _Refused as exc:
                exc.where.append(f"[{i}]")
                raise
            if got is not x:
                items[i] = got
                dropped = dropped or got is _DROPPED
        if dropped:
            items[:] = [x for x in items if x is not _DROPPED]
        return items

    return each


def _values_fn(item: Fn) -> Fn:
    def values(value: Any) -> Any:
        if value.__class__ is not dict:
            return value
        obj: JsonObject = value
        for key in list(obj):
            try:
                got = item(obj[key])
            except _Refused as exc:
                exc.where.append(f".{key}")
                raise
            if got is _DROPPED:
                del obj[key]
            else:
                obj[key] = got
        return obj

    return values


def _one_of_fn(step: Step, union: OneOf) -> Fn:
    table: dict[str, Fn] = {key: _walk_fn(step, walk) for key, walk in union.members}
    for key, lost in union.lost:
        table[key] = _lost_fn(lost, key)
    tag = union.tag
    if not tag:  # untagged: the member that has the key
        marks = tuple(table.items())

        def marked(value: Any) -> Any:
            if value.__class__ is dict:
                obj: JsonObject = value
                for key, fn in marks:
                    if key in obj:
                        return fn(obj)
            return value

        return marked

    def one_of(value: Any) -> Any:
        if value.__class__ is not dict:
            return value
        obj: JsonObject = value
        fn = table.get(obj.get(tag, ""))
        return obj if fn is None else fn(obj)

    return one_of


def _lost_fn(lost: Lost, tag: str) -> Fn:
    if lost.action == "drop":
        return lambda value: _DROPPED
    if lost.action == "refuse":
        why = f"the target has no {tag!r} member ({lost.reason})"

        def refuse(value: Any) -> Any:
            raise _Refused(why, "")

        return refuse
    fields = lost.fields

    def mapped(value: Any) -> Any:
        source = _Fields(value)
        return {name: template.format_map(source) for name, template in fields}

    return mapped


class _Fields(dict[str, Any]):
    """A member's fields for a format string; an absent one reads as empty."""

    def __missing__(self, key: str) -> str:
        return ""


Chain: TypeAlias = tuple[tuple[Step, str], ...]
"""The steps from one revision to another, each with the name of the value's row there."""


def apply_chain(chain: Chain, data: Any, path: str = "", code: int = INTERNAL_ERROR) -> Any:
    """Apply a chain of steps to the JSON builtins of one value (in place); return it.

    A refusal is a ``ConversionError`` with ``code``.
    """
    for step, name in chain:
        found = step.rows.get(name)
        if found is not None and data.__class__ is dict:
            obj: JsonObject = data
            try:
                _compiled(step, name)(obj)
            except _Refused as exc:
                where = (path or name) + "".join(reversed(exc.where))
                raise ConversionError(
                    f"cannot convert {where} from {step.source} to {step.target}: {exc.why}", code
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


def convert_value(
    chain: Chain, value: Any, target: Any, path: str = "", code: int = INTERNAL_ERROR
) -> Any:
    """Convert a generated value through ``chain`` into the ``target`` type.

    Raises ``ConversionError`` (with ``code``: what the value's receiver answers) naming the
    member the target cannot take.
    """
    data = msgspec.to_builtins(value)
    if chain:
        apply_chain(chain, data, path, code)
    try:
        return convert(data, target, tolerant=False)
    except msgspec.ValidationError as exc:
        where = path or (chain[-1][1] if chain else "value")
        into = chain[-1][0].target if chain else "the target"
        raise ConversionError(f"cannot convert {where} to {into}: {exc}", code) from None
