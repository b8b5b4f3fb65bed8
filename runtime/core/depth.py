"""Nesting depth of a decoded message, walked by its types: only the open members are counted.

A Struct's fields say how deep they can nest: a field of scalars, of a list of strings or of a
Struct made of such fields adds a fixed number of levels, known once per type; only the parts
typed as arbitrary JSON (``Any``, dicts and lists of it: the open members), the Structs that
hold them and the parts kept ``Raw`` can nest without bound. ``too_deep`` visits those alone.

An open member decodes to builtins only (dicts, lists, strings, numbers, booleans, None), so
its levels are counted a whole level at a time in C: ``gc.get_referents`` of every value of a
level returns the values of the next one (a dict's values, a list's items; strings and numbers
have none), all open members at the same level in one call. A list of one Struct type whose
fields are open or fixed (a tool list) has its open members gathered in C (``attrgetter``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, Final, NamedTuple

import msgspec
import msgspec.inspect as mi

_STRUCT_META: Final = type(msgspec.Struct)
"""The metaclass of every Struct (a type check: ``isinstance`` on Struct is ~10x slower)."""
_BUILTIN_CONTAINERS: Final = frozenset({dict, list})
_REFERENTS: Final = gc.get_referents
_LEAVES: Final = frozenset({type(msgspec.UNSET), type(None), str, int, float, bool})
"""Values a field holding Structs may also hold that nest nothing (absent, null, scalars)."""
_SCALARS: Final = (
    mi.NoneType,
    mi.BoolType,
    mi.IntType,
    mi.FloatType,
    mi.StrType,
    mi.BytesType,
    mi.ByteArrayType,
    mi.LiteralType,
    mi.EnumType,
    mi.DateTimeType,
    mi.DateType,
    mi.TimeType,
    mi.TimeDeltaType,
    mi.UUIDType,
    mi.DecimalType,
)


def builtins_too_deep(values: Iterable[Any], level: int, limit: int) -> bool:
    """Whether a container among ``values`` (decoded JSON builtins, each a container at
    ``level`` if it is one) nests past ``limit``: one C call per level."""
    items: Any = values
    while items:
        if level > limit:
            return any(item.__class__ in _BUILTIN_CONTAINERS for item in items)
        items = _REFERENTS(*items)  # a dict's values (str keys skipped), a list's items
        level += 1
    return False


class _Plan(NamedTuple):
    """What of a Struct type's fields a walk visits."""

    fixed: int
    """Levels its fixed fields add below it at most (a field of scalars adds none)."""
    open_values: Callable[[Any], Any] | None
    """Its open members (a tuple of them, or the one value when ``single``), or None."""
    single: bool
    mixed: tuple[tuple[str, type | None], ...]
    """Fields that may hold Structs or raw parts: (name, the one Struct type of a list's items
    when the list can hold no other, or None)."""


_PLANS: dict[type, _Plan] = {}
_OPEN: Final = -1
"""``_fixed_depth``: the type can nest without bound (it holds arbitrary JSON)."""
_MIXED: Final = -2
"""``_fixed_depth``: the type holds Structs or raw parts that are not all fixed."""


def _fixed_depth(kind: mi.Type, seen: frozenset[type]) -> int:
    """Levels a value of ``kind`` nests at most, or ``_OPEN`` / ``_MIXED``."""
    if isinstance(kind, _SCALARS):
        return 0
    if isinstance(kind, mi.UnionType):
        found = [_fixed_depth(member, seen) for member in kind.types]
        return min(found) if min(found) < 0 else max(found)
    if isinstance(kind, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        inner = _fixed_depth(kind.item_type, seen)
        return inner if inner < 0 else inner + 1
    if isinstance(kind, mi.TupleType):
        found = [_fixed_depth(member, seen) for member in kind.item_types] or [0]
        return min(found) if min(found) < 0 else max(found) + 1
    if isinstance(kind, mi.DictType):
        inner = _fixed_depth(kind.value_type, seen)
        return inner if inner < 0 else inner + 1
    if isinstance(kind, mi.StructType):
        if kind.cls in seen:  # a recursive type: walked like any other holder of Structs
            return _MIXED
        below = [_fixed_depth(f.type, seen | {kind.cls}) for f in kind.fields] or [0]
        return _MIXED if min(below) < 0 else max(below) + 1
    if isinstance(kind, mi.AnyType):
        return _OPEN
    return _MIXED  # Raw, a custom class (an untagged union), anything else: looked at


def _plan(cls: type) -> _Plan:
    """The walk's view of Struct type ``cls`` (built once per type)."""
    fixed = 0
    open_names: list[str] = []
    mixed: list[tuple[str, type | None]] = []
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    for field in info.fields:
        depth = _fixed_depth(field.type, frozenset({cls}))
        if depth >= 0:
            fixed = max(fixed, depth)
        elif depth == _OPEN and _pure(field.type):
            open_names.append(field.name)
        else:
            mixed.append((field.name, _list_item_struct(field.type)))
    getter = attrgetter(*open_names) if open_names else None
    plan = _Plan(fixed, getter, len(open_names) == 1, tuple(mixed))
    if len(_PLANS) >= 4096:  # types are few: defstruct in tests makes more
        _PLANS.clear()
    _PLANS[cls] = plan
    return plan


def _pure(kind: mi.Type) -> bool:
    """Whether a value of ``kind`` decodes to builtins only (no Struct, raw part or hook)."""
    if isinstance(kind, (*_SCALARS, mi.AnyType)):
        return True
    if isinstance(kind, mi.UnionType):
        return all(_pure(member) for member in kind.types)
    if isinstance(kind, mi.ListType):
        return _pure(kind.item_type)
    if isinstance(kind, mi.DictType):
        return _pure(kind.key_type) and _pure(kind.value_type)
    return False


def _list_item_struct(kind: mi.Type) -> type | None:
    """The Struct type every item of a ``list[S]`` field is (``S | None``-free), else None."""
    if isinstance(kind, mi.ListType) and isinstance(kind.item_type, mi.StructType):
        return kind.item_type.cls
    return None


def too_deep(
    value: Any, level: int, limit: int, raw_too_deep: Callable[[bytes, int], bool]
) -> bool:
    """Whether decoded ``value`` (a container at ``level`` if it is one) nests past ``limit``.

    Structs are visited by their plan, open members counted level by level in C, a raw part
    by ``raw_too_deep(its bytes, the levels left)``; anything else is walked item by item.
    """
    found: dict[int, list[Any]] = {}
    """Open members by level (a tuple of a Struct's open members sits at the Struct's level,
    a lone one at the level below it)."""
    stack: list[tuple[Any, int]] = [(value, level)]
    pop, push, plans = stack.pop, stack.append, _PLANS
    while stack:
        item, at = pop()
        plan = plans.get(item.__class__)
        if plan is None or at + plan.fixed > limit:
            if _visit(item, at, limit, stack, raw_too_deep):
                return True
            continue
        getter = plan.open_values
        if getter is not None:
            if not plan.single:
                found.setdefault(at, []).append(getter(item))
            elif (lone := getter(item)).__class__ in _BUILTIN_CONTAINERS:  # else absent
                found.setdefault(at + 1, []).append(lone)
        for name, items_type in plan.mixed:
            child = getattr(item, name)
            kind = child.__class__
            if kind in _LEAVES:
                continue
            if items_type is not None and kind is list:
                inner = plans.get(items_type) or _plan(items_type)
                if inner.mixed or at + 2 + inner.fixed > limit:
                    push((child, at + 1))
                elif inner.open_values is not None:  # a tool list: gathered in C
                    found.setdefault(at + 2 + inner.single, []).extend(
                        map(inner.open_values, child)
                    )
            else:
                push((child, at + 1))
    if not found:
        return False
    # One C call per level for every open member: those found at a level join the values
    # reached there from above.
    at = min(found)
    last = max(found)
    items: Any = found[at]
    while True:
        if at > limit and any(each.__class__ in _BUILTIN_CONTAINERS for each in items):
            return True
        items = _REFERENTS(*items)  # a dict's values (str keys skipped), a list's items
        at += 1
        if at <= last and at in found:
            items = [*items, *found[at]]
        elif not items and at >= last:
            return False


def _visit(
    item: Any,
    at: int,
    limit: int,
    stack: list[tuple[Any, int]],
    raw_too_deep: Callable[[bytes, int], bool],
) -> bool:
    """Look at one value without a plan (a builtin container, a raw part, a scalar, a Struct
    met first or near the bound): True if it is too deep, else its children pushed."""
    kind = item.__class__
    if type(kind) is _STRUCT_META:
        plan = _PLANS.get(kind) or _plan(kind)
        if at + plan.fixed <= limit:
            stack.append((item, at))  # planned now: visited by its plan
            return False
        children: Iterable[Any] = msgspec.structs.astuple(item)
    elif kind is dict:
        children = item.values()
    elif kind is list:
        children = item
    elif kind is msgspec.Raw:
        return raw_too_deep(bytes(item), limit - at + 1)
    else:
        return False
    if at > limit:
        return True
    _push_children(children, at + 1, stack)
    return False


def _push_children(children: Iterable[Any], at: int, stack: list[tuple[Any, int]]) -> None:
    """Push the containers, Structs and raw parts among ``children`` (at level ``at``)."""
    for child in children:
        kind = child.__class__
        if kind is dict or kind is list or kind is msgspec.Raw or type(kind) is _STRUCT_META:
            stack.append((child, at))
