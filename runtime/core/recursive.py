"""Recursive aliases at run time: a back reference msgspec can decode (``JSONValue``).

Type checkers see ``JSONValue`` refer to itself; msgspec has no recursive aliases on the
Python versions we support. At run time each back reference is a class made by
``recursive_alias``, which msgspec hands to ``dec_hook`` with the value already decoded as
JSON. The hook finds the alias the class stands for by name in the module that defines it
(loaded by then) and checks the value against it: an alias made only of JSON objects, arrays
and unconstrained scalars (``JSONValue``: everything but ``null``) is checked by one walk
over the value, which already is what the alias describes, so nothing is converted or
copied; an alias with any other part (a Struct, a constraint) is converted by msgspec.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias, cast

import msgspec
import msgspec.inspect as mi

from .unions import HookDecoded, dec_hook

_NAMES: Final[dict[type[Any], str]] = {
    dict: "object",
    list: "array",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "null",
}
_Object: TypeAlias = dict[Any, Any]
_Array: TypeAlias = list[Any]
"""Decoded JSON containers (named once: ``cast`` with a subscripted type costs ~1 us a call)."""
_BOUNDS: Final = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")


@dataclass(eq=False)
class _Shape:
    """What a JSON value of an alias may be: scalars of some classes, objects, arrays."""

    scalars: frozenset[type[Any]] = frozenset()
    values: _Shape | None = None
    """The shape of an object's values (None: no object)."""
    items: _Shape | None = None
    """The shape of an array's items (None: no array)."""
    anything: bool = False

    def expected(self) -> str:
        """What the shape takes, as msgspec names types in its messages."""
        names = [n for c, n in _NAMES.items() if c in self.scalars or self._container(c)]
        return " | ".join(names)

    def _container(self, cls: type[Any]) -> bool:
        return (cls is dict and self.values is not None) or (cls is list and self.items is not None)


class RecursiveAlias(HookDecoded):
    """A back reference to a recursive alias: ``dec_hook`` checks the value against it."""

    _bases = (object,)  # what ``decode_value`` returns was checked by it
    alias: ClassVar[str] = ""
    namespace: ClassVar[Mapping[str, Any]] = {}
    _shape: ClassVar[_Shape | None] = None
    _target: ClassVar[Any] = None

    @classmethod
    def decode_value(cls, value: Any) -> Any:
        """``value`` checked against the alias (or converted, for aliases of other parts)."""
        shape = cls._shape
        if shape is not None and (type(value) in shape.scalars or _fits(value, shape)):
            return value  # the common case, a JSON value of the alias: returned as it is
        if cls._target is None:  # first use: the alias's module is loaded by now
            cls._target = cls.namespace[cls.alias]
            shape = cls._shape = _shape_of_ref(cls, {})
            if shape is not None and _fits(value, shape):
                return value
        if shape is None:
            return msgspec.convert(value, cls._target, dec_hook=dec_hook)
        raise _refusal(value, shape)


def recursive_alias(name: str, namespace: Mapping[str, Any]) -> type[RecursiveAlias]:
    """The back reference to the alias ``name`` of the module whose ``globals()`` is given."""
    key = (id(namespace), name)  # the class keeps ``namespace`` alive: the id stays its own
    found = _MADE.get(key)
    if found is None:
        attrs = {"alias": name, "namespace": namespace, "__doc__": f"Recursive alias {name}."}
        found = _MADE[key] = type(name, (RecursiveAlias,), attrs)
    return found


_MADE: dict[tuple[int, str], type[RecursiveAlias]] = {}
"""One class per alias and module, so the alias's objects and arrays hold the same shape."""


def _shape_of_ref(
    ref: type[RecursiveAlias], seen: dict[type[RecursiveAlias], _Shape]
) -> _Shape | None:
    """The shape of ``ref``'s alias (shared by every reference to it), or None: not plain JSON."""
    if ref in seen:
        return seen[ref]
    shape = seen[ref] = _Shape()
    found = _shape(mi.type_info(ref.namespace[ref.alias]), seen)
    if found is None:
        return None
    shape.scalars, shape.values, shape.items = found.scalars, found.values, found.items
    shape.anything = found.anything
    return shape


def _shape(info: mi.Type, seen: dict[type[RecursiveAlias], _Shape]) -> _Shape | None:
    """The shape of a msgspec type made of JSON kinds only, or None."""
    if any(getattr(info, bound, None) is not None for bound in _BOUNDS):
        return None
    if isinstance(info, mi.AnyType):
        return _Shape(anything=True)
    scalar = _SCALARS.get(type(info))
    if scalar is not None:
        return _Shape(scalar)
    if isinstance(info, mi.DictType):
        key, values = _shape(info.key_type, seen), _shape(info.value_type, seen)
        plain_keys = key is not None and key.scalars == frozenset({str})
        return _Shape(values=values) if plain_keys and values is not None else None
    if isinstance(info, mi.ListType):
        items = _shape(info.item_type, seen)
        return _Shape(items=items) if items is not None else None
    if isinstance(info, mi.CustomType) and issubclass(info.cls, RecursiveAlias):
        return _shape_of_ref(info.cls, seen)
    if isinstance(info, mi.UnionType):
        merged = _Shape()
        for member in info.types:
            part = _shape(member, seen)
            if part is None:
                return None
            merged.scalars |= part.scalars
            merged.values = merged.values or part.values
            merged.items = merged.items or part.items
            merged.anything = merged.anything or part.anything
        return merged
    return None


_SCALARS: Final[dict[type[mi.Type], frozenset[type[Any]]]] = {
    mi.NoneType: frozenset({type(None)}),
    mi.BoolType: frozenset({bool}),
    mi.IntType: frozenset({int}),
    mi.FloatType: frozenset({float, int}),  # msgspec reads a JSON integer as a float too
    mi.StrType: frozenset({str}),
}


def _fits(value: object, shape: _Shape) -> bool:
    """Whether a decoded JSON value has ``shape`` all the way down (no recursion: any depth).

    Object keys are not looked at: JSON's are strings.
    """
    if shape.anything:
        return True
    if shape.values is shape and shape.items is shape:
        return _fits_uniform(value, shape.scalars)
    stack: list[tuple[object, _Shape]] = [(value, shape)]
    while stack:
        item, expected = stack.pop()
        if expected.anything:
            continue
        cls = type(item)
        inner = expected.values if cls is dict else expected.items if cls is list else None
        if inner is not None:
            members = cast(_Object, item).values() if cls is dict else cast(_Array, item)
            stack.extend((member, inner) for member in members)
        elif cls not in expected.scalars or cls in (dict, list):
            return False
    return True


def _fits_uniform(value: object, scalars: frozenset[type[Any]]) -> bool:
    """``_fits`` for a shape whose objects and arrays hold the shape itself (``JSONValue``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        cls = type(item)
        if cls is dict:
            stack.extend(cast(_Object, item).values())
        elif cls is list:
            stack.extend(cast(_Array, item))
        elif cls not in scalars:
            return False
    return True


def _refusal(value: object, shape: _Shape) -> ValueError:
    """The error of the first part of ``value`` that does not have its shape."""
    stack: list[tuple[object, _Shape, str]] = [(value, shape, "")]
    while stack:
        item, expected, path = stack.pop()
        if expected.anything:
            continue
        cls = type(item)
        if cls is dict and expected.values is not None:
            pairs = list(cast(_Object, item).items())
            stack.extend((m, expected.values, f"{path}.{k}") for k, m in reversed(pairs))
        elif cls is list and expected.items is not None:
            items = list(enumerate(cast(_Array, item)))
            stack.extend((m, expected.items, f"{path}[{i}]") for i, m in reversed(items))
        elif cls not in expected.scalars or cls in (dict, list):
            where = f" at `{path.lstrip('.')}`" if path else ""
            got = _NAMES.get(cls, cls.__name__)
            return ValueError(f"Expected `{expected.expected()}`, got `{got}`{where}")
    return ValueError(f"Expected `{shape.expected()}`")  # not reached: ``_fits`` said no
