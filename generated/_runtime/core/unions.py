# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Unions that msgspec cannot decode on its own, told apart by the shape of the value.

msgspec decodes a union of Structs only when a tag field tells them apart. Where the
schema has no such tag (text vs blob resource contents, the elicitation enum schemas,
the JSON-RPC envelope), the generated code names a subclass of ``UntaggedUnion`` for
msgspec at run time (type checkers see the plain union) and ``dec_hook`` picks the
variant: the first whose required keys and constant values the value has.

This is on the hot path of every result that holds such a union (``resources/read``), so
what can be decided once is decided when the union is first used: the variants a JSON
object (or another value) can be, their required keys as a set, and whether converting to
a variant needs the hook at all (msgspec's ``convert`` is several times slower with one).
Once the keys of an object (as sent, in order) have led to one variant, ``dec_hook`` finds
that variant's conversion by one lookup of those keys before anything else.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeGuard

import msgspec
import msgspec.inspect as mi

UNKNOWN_TAG: Final = "\x00unknown"
"""The tag of the bare ``Unknown`` member (no peer sends it): tolerant reading's placeholder."""
KIND_KEY: Final = "type"
"""The key whose value tells the members of an open union apart (a content block's kind)."""

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

    def takes_kind(self, kind: object) -> bool:
        """Whether this variant's ``type`` may be ``kind`` (any value when it names none)."""
        kinds = kinds_of(self.type)
        return kinds is None or (isinstance(kind, Hashable) and kind in kinds)

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


_KINDS: dict[Any, frozenset[object] | None] = {}


def kinds_of(tp: Any) -> frozenset[object] | None:
    """The values a Struct's ``type`` field takes (its tag, or its literal), or None: any."""
    if tp in _KINDS:
        return _KINDS[tp]
    found: frozenset[object] | None = None
    info = mi.type_info(tp) if isinstance(tp, type) and issubclass(tp, msgspec.Struct) else None
    if isinstance(info, mi.StructType):
        if info.tag_field == KIND_KEY:
            found = frozenset({info.tag})
        for field in info.fields:
            inner = field.type.type if isinstance(field.type, mi.Metadata) else field.type
            if field.encode_name == KIND_KEY and isinstance(inner, mi.LiteralType):
                found = frozenset(inner.values)
    _KINDS[tp] = found  # generated types only: a fixed, small set
    return found


def _is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether a decoded JSON value is an object."""
    return isinstance(value, dict)


def _holds(member: object, key: str) -> bool:
    """Whether an object member holds ``key``."""
    return _is_object(member) and key in member


_Entry = tuple[Variant, "frozenset[str] | None", Callable[[Any], bool], Callable[[Any], Any]]
"""A variant; the keys a JSON object needs to be it (None: test with the callable); the
test of a value's shape for it; the conversion to it."""


class _Plan:
    """What decoding one union needs, worked out once: variants by the values they take."""

    __slots__ = ("by_keys", "for_objects", "for_others")

    def __init__(self, variants: tuple[Variant, ...]) -> None:
        # Object variants take JSON objects only, "any" takes every value, the rest none.
        self.for_objects: list[_Entry] = [
            (v, _keys_test(v), v.matches, _converter(v.type))
            for v in variants
            if v.kind in ("object", "any", "unknown")  # tolerant reading's placeholder: an object
        ]
        self.for_others: list[_Entry] = [
            (v, None, v.matches, _converter(v.type))
            for v in variants
            if v.kind not in ("object", "unknown")
        ]
        # When keys alone decide which variants an object can be, the one variant each set
        # of keys (as sent, in order) leads to is remembered; None: keys are not enough.
        keyed = all(entry[1] is not None for entry in self.for_objects)
        self.by_keys: dict[tuple[str, ...], _Entry | None] | None = {} if keyed else None

    def only(self, value: dict[str, Any]) -> _Entry | None:
        """The one object variant ``value`` has the keys of, or None (none or several)."""
        found: _Entry | None = None
        for entry in self.for_objects:
            required = entry[1]
            if value.keys() >= required if required is not None else entry[2](value):
                if found is not None:
                    return None
                found = entry
        return found


def _keys_test(variant: Variant) -> frozenset[str] | None:
    """The keys an object needs to match ``variant``, when that is all it needs."""
    if variant.kind == "any":
        return frozenset()
    if variant.kind == "unknown":
        return None  # its tag decides (``matches``), not its keys
    return None if variant.consts or variant.nested else frozenset(variant.required)


def _converter(tp: Any) -> Callable[[Any], Any]:
    """``msgspec.convert`` to ``tp``, passing the hook only when ``tp`` holds an untagged union."""
    if _needs_hook(tp, {}):
        return lambda value: msgspec.convert(value, tp, dec_hook=dec_hook)
    return lambda value: msgspec.convert(value, tp)


def _needs_hook(tp: Any, seen: dict[int, Any]) -> bool:
    """Whether decoding ``tp`` can meet a type msgspec hands to ``dec_hook``.

    ``seen`` holds the types visited, not only their ids: ``msgspec.structs.fields`` makes
    its field types anew on each call, and the id of one freed could come back for another.
    """
    if isinstance(tp, _UnionMeta):
        return True
    if id(tp) in seen:
        return False
    seen[id(tp)] = tp
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return any(_needs_hook(f.type, seen) for f in msgspec.structs.fields(tp))
    return any(_needs_hook(arg, seen) for arg in typing.get_args(tp) if not isinstance(arg, str))


_UNSEEN: Final[Any] = object()
_KEY_SETS: Final = 64
"""How many sets of keys each union remembers the variant of."""


class _UnionMeta(type):
    """Metaclass of the union classes: a value of any variant's class is an instance.

    msgspec checks that what ``dec_hook`` returns is an instance of the type it asked for;
    this answers that check quickly (an ABC with registered classes is ~3x slower).
    """

    _classes: frozenset[type[Any]] = frozenset()
    _bases: tuple[type[Any], ...] = ()
    shapes: dict[tuple[str, ...], Callable[[Any], Any]]
    """An object's keys (as sent, in order) -> the conversion to the one variant they lead to.

    Filled by ``UntaggedUnion.decode_value`` once it has decided a key set (bounded);
    ``dec_hook`` reads it first, so a value of a known shape costs one lookup and msgspec's
    ``convert``. Every class of this metaclass has its own (empty for recursive aliases).
    """

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        cls.shapes = {}

    def __instancecheck__(cls, instance: object) -> bool:
        return type(instance) in cls._classes or isinstance(instance, cls._bases)

    def __subclasscheck__(cls, subclass: type[Any]) -> bool:
        return type.__subclasscheck__(cls, subclass) or issubclass(subclass, cls._bases)


class HookDecoded(metaclass=_UnionMeta):
    """Base of the run-time classes msgspec hands to ``dec_hook``: unions, recursive aliases."""

    @classmethod
    def decode_value(cls, value: Any) -> Any:
        """Convert an already-decoded JSON value into a value of this type."""
        raise NotImplementedError


class UntaggedUnion(HookDecoded):
    """Marker base of the run-time classes standing for untagged unions."""

    variants: ClassVar[tuple[Variant, ...]] = ()
    _plan: ClassVar[_Plan | None] = None

    @classmethod
    def decode_value(cls, value: Any) -> Any:
        """Convert an already-decoded JSON value into the first variant it matches."""
        plan = cls._plan
        if plan is None:
            plan = cls._plan = _Plan(cls.variants)
        if not isinstance(value, dict):
            return cls._decode_among([e for e in plan.for_others if e[2](value)], value)
        # The common case, written out: one variant has the value's shape, and converts.
        obj: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        by_keys = plan.by_keys
        if by_keys is None:
            found = plan.only(obj)
        else:
            keys = tuple(obj)
            found = by_keys.get(keys, _UNSEEN)
            if found is _UNSEEN:
                found = plan.only(obj)
                if len(by_keys) < _KEY_SETS:  # a peer inventing keys must not grow memory
                    by_keys[keys] = found
                    if found is not None:  # for ``dec_hook``'s lookup, before this call
                        cls.shapes[keys] = found[3]
        if found is not None:
            try:
                return found[3](value)
            except msgspec.ValidationError:
                return cls._decode_among([found], value)
        return cls._decode_among([e for e in plan.for_objects if e[2](value)], value)

    @classmethod
    def _decode_among(cls, candidates: list[_Entry], value: Any) -> Any:
        """Convert ``value`` to the candidate that explains most of it and converts."""
        kind: object = value.get(KIND_KEY, _UNSEEN) if _is_object(value) else _UNSEEN
        if kind is not _UNSEEN:  # a variant whose ``type`` refuses the value's cannot be it
            candidates = [entry for entry in candidates if entry[0].takes_kind(kind)]
        if len(candidates) > 1 and _is_object(value):
            # A value that fits several shapes goes to the variant that explains most of it.
            candidates.sort(key=lambda entry: -entry[0].score(value))
        first: str | None = None
        for variant, _, _, convert in candidates:
            try:
                return convert(value)
            except msgspec.ValidationError as exc:
                if first is None:
                    # msgspec prefixes a ValueError with the outer path, naming the field.
                    message, _, where = str(exc).partition(" - at `$")
                    inner = f" at `{where.rstrip('`').lstrip('.')}`" if where else ""
                    first = f"{message}{inner} of {_type_name(variant.type)}"
        if first is not None:
            raise ValueError(first)
        near = [v for v in cls.variants if v.takes_kind(kind) and kinds_of(v.type)]
        if near:  # a kind the union defines, without what its members need
            lacks = ", ".join(f"{_type_name(v.type)} {_lacks(v, value)}" for v in near)
            raise ValueError(f"Object of type {_json(kind)} fits no member: {lacks}")
        names = ", ".join(_type_name(v.type) for v in cls.variants)
        got = "a value" if kind is _UNSEEN else f"an object of type {_json(kind)}"
        raise ValueError(f"Expected one of {names}, got {got} that matches none")


def _lacks(variant: Variant, value: dict[str, Any]) -> str:
    """What ``value`` lacks to have ``variant``'s shape (missing keys, other constants)."""
    missing = [f"`{key}`" for key in variant.required if key not in value]
    missing += [f"`{m}.{key}`" for m, key in variant.nested if not _holds(value.get(m), key)]
    wrong = [f"`{k}` {_json(c)}" for k, c in variant.consts if k in value and value[k] != c]
    parts = ([f"needs {', '.join(missing)}"] if missing else []) + (
        [f"wants {', '.join(wrong)}"] if wrong else []
    )
    return " and ".join(parts) or "refuses it"


def _json(value: object) -> str:
    """A value as JSON text, for messages."""
    return msgspec.json.encode(value).decode()


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp)


def untagged_union(name: str, *variants: Variant) -> type[UntaggedUnion]:
    """Create the run-time class of an untagged union; each variant's values count as instances."""
    # Every variant's class (a Struct, or dict/list/str for the other shapes) counts as an
    # instance of the union, which is what msgspec checks of what dec_hook returns.
    classes = tuple(c for c in (_runtime_class(v.type) for v in variants) if c is not None)
    namespace = {
        "variants": variants,
        "_classes": frozenset(classes),
        "_bases": classes,
        "__doc__": f"Untagged union {name}.",
    }
    union: type[UntaggedUnion] = type(name, (UntaggedUnion,), namespace)
    return union


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
    """The msgspec ``dec_hook`` that decodes untagged unions and recursive aliases; pass it
    to every Decoder."""
    meta: object = tp.__class__
    if meta is _UnionMeta:  # the only metaclass of hooked types (no cast call: a hot path)
        hooked: type[HookDecoded] = tp
        if value.__class__ is dict:  # an object of a shape already decided: one lookup
            convert = hooked.shapes.get(tuple(value))
            if convert is not None:
                try:
                    return convert(value)
                except msgspec.ValidationError:
                    pass  # decode_value says what is wrong, naming the variant
        return hooked.decode_value(value)
    raise NotImplementedError(f"mcpgen runtime cannot decode type {tp!r}")
