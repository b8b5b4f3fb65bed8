"""Tolerant reading: what a peer sends beyond the revision is kept, not dropped or refused.

Generated Structs forbid unknown fields, so the one-pass decode of a message that has none
pays nothing for tolerance. A message that has some fails there, and only then is it read
again here (``reread``): the JSON is walked along the target type, each object's keys the
revision does not define are set aside, and each member of an open union (content blocks,
schema definitions: unions told apart by ``type``) whose kind the revision does not define is
replaced by a placeholder; msgspec then converts what is left, with all its usual checks, and
the set-aside parts are put back. A value with extra fields becomes an instance of a subclass
of its type made for those keys (``TextContent`` stays ``TextContent`` to ``isinstance`` and
to type checkers), and an unknown member becomes an ``Unknown`` holding its JSON; both encode
back natively, extras after the defined fields. With ``keep=False`` (strict) the extras are
dropped and unknown members are refused, exactly as before tolerant reading existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeGuard, TypeVar, cast

import msgspec
import msgspec.inspect as mi

from .base import MCPStruct
from .unions import KIND_KEY, UNKNOWN_TAG, UntaggedUnion, dec_hook

S = TypeVar("S", bound=msgspec.Struct)
_PLACEHOLDER: Final = {"type": UNKNOWN_TAG}
_CACHE_LIMIT: Final = 512


class Unknown(MCPStruct, kw_only=True, tag_field="type", tag=UNKNOWN_TAG):
    """A union member of a kind the revision does not define; keeps its JSON (``json``)."""

    @property
    def kind(self) -> str:
        """Its ``type`` as the peer sent it (``"resource_link"``)."""
        tag = type(self).__struct_config__.tag
        return tag if isinstance(tag, str) else str(tag)

    @property
    def json(self) -> dict[str, Any]:
        """The member as the peer sent it."""
        return {"type": self.kind, **extras(self)}

    def __repr__(self) -> str:
        """``Unknown({...})`` with the JSON as sent."""
        return f"Unknown({self.json!r})"


_EXTENDED: dict[tuple[type[Any], Any, tuple[str, ...]], type[Any]] = {}
_EXTRA_NAMES: dict[type[Any], tuple[tuple[str, str], ...]] = {}
"""Each made subclass: its (attribute, wire name) pairs beyond the base type."""


def _extended(base: type[Any], tag: Any, keys: tuple[str, ...]) -> type[Any]:
    """The subclass of ``base`` with one field per extra key (made once per key set)."""
    found = _EXTENDED.get((base, tag, keys))
    if found is not None:
        return found
    taken = set(base.__struct_fields__)
    pairs: list[tuple[str, str]] = []
    for i, key in enumerate(keys):
        attr = f"extra_{i}"
        while attr in taken:
            attr += "_"
        pairs.append((attr, key))
    config = base.__struct_config__
    cls = msgspec.defstruct(
        base.__name__,
        [(attr, Any, msgspec.field(name=key)) for attr, key in pairs],
        bases=(base,),
        module=base.__module__,
        kw_only=True,
        tag_field=config.tag_field,
        tag=config.tag if tag is None else tag,
    )
    _EXTRA_NAMES[cls] = tuple(pairs)
    if len(_EXTENDED) < _CACHE_LIMIT:  # a peer inventing keys must not grow memory forever
        _EXTENDED[(base, tag, keys)] = cls
    return cls


def extras(value: msgspec.Struct) -> dict[str, Any]:
    """The fields of a decoded value that its revision does not define (wire name: JSON)."""
    pairs = _EXTRA_NAMES.get(type(value), ())
    return {key: getattr(value, attr) for attr, key in pairs}


def _writable(key: str) -> bool:
    """Whether msgspec can write ``key`` as a field name (no quote, backslash or control)."""
    return '"' not in key and "\\" not in key and all(c >= " " for c in key)


def with_extras(value: S, more: Mapping[str, Any]) -> S:
    """A copy of ``value`` that also carries the fields ``more`` (encoded after its own).

    Keys with a quote, a backslash or a control character are left out: msgspec cannot write
    them as field names (no known peer sends such keys).
    """
    more = {k: v for k, v in more.items() if _writable(k)}
    if not more:
        return value
    base: type[Any] = type(value)
    kept = extras(value)
    while base in _EXTRA_NAMES:
        base = base.__mro__[1]
    merged = {**kept, **more}
    cls = _extended(base, None, tuple(merged))
    own = {f: getattr(value, f) for f in base.__struct_fields__}
    attrs = dict(zip((a for a, _ in _EXTRA_NAMES[cls]), merged.values(), strict=True))
    return cast(S, cls(**own, **attrs))


def unknown(value: Mapping[str, Any]) -> Unknown:
    """The ``Unknown`` member standing for a JSON object of kind ``value["type"]``."""
    rest = {k: v for k, v in value.items() if k != "type" and _writable(k)}
    cls = _extended(Unknown, value["type"], tuple(rest))
    attrs = dict(zip((a for a, _ in _EXTRA_NAMES[cls]), rest.values(), strict=True))
    return cast(Unknown, cls(**attrs))


def recoverable(exc: msgspec.ValidationError) -> bool:
    """Whether a failed one-pass decode may be due to an unknown field or union member."""
    text = str(exc)
    return any(sign in text for sign in _SIGNS)


_SIGNS: Final = ("unknown field", "Invalid value", "Invalid enum value", "matches none")
"""What msgspec and ``UntaggedUnion`` say when a field or a member's kind is not defined."""


def reread(value: Any, tp: Any, *, keep: bool) -> Any:
    """Convert decoded JSON to ``tp``, keeping (``keep``) or dropping what ``tp`` lacks."""
    found: list[tuple[tuple[Any, ...], Any]] = []
    stripped = _strip(value, _info(tp), (), found, keep)
    result = msgspec.convert(stripped, tp, dec_hook=dec_hook)
    for path, part in sorted(found, key=lambda f: -len(f[0])):  # deepest first
        try:
            result = _patch(result, path, part)
        except (LookupError, ValueError, TypeError, AttributeError):
            continue  # the value took another shape than the walk (never seen): keep the rest
    return result


_INFOS: dict[Any, mi.Type] = {}


def _info(tp: Any) -> mi.Type:
    """msgspec's description of a type (computed once per type)."""
    found = _INFOS.get(tp)
    if found is None:
        found = _INFOS[tp] = mi.type_info(tp)
    return found


def _is_list(value: object) -> TypeGuard[list[Any]]:
    """Whether a decoded JSON value is an array."""
    return isinstance(value, list)


def _strip(value: Any, info: mi.Type, path: tuple[Any, ...], found: list[Any], keep: bool) -> Any:
    """``value`` without what ``info`` does not define; what is set aside goes to ``found``."""
    if isinstance(info, mi.Metadata):
        return _strip(value, info.type, path, found, keep)
    if _is_list(value):
        items = value
        if isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
            item = info.item_type
            return [_strip(v, item, (*path, i), found, keep) for i, v in enumerate(items)]
        if isinstance(info, mi.UnionType):
            for member in info.types:
                if isinstance(member, (mi.ListType, mi.VarTupleType)):
                    return _strip(items, member, path, found, keep)
        return items
    if not isinstance(value, dict):
        return value
    mapping = cast(dict[str, Any], value)
    if isinstance(info, mi.StructType):
        return _strip_struct(mapping, info, path, found, keep)
    if isinstance(info, mi.DictType):
        vt = info.value_type
        out: dict[str, Any] = {
            k: _strip(v, vt, (*path, k), found, keep) for k, v in mapping.items()
        }
        return out
    if isinstance(info, mi.UnionType):
        return _strip_union(mapping, info, path, found, keep)
    if isinstance(info, mi.CustomType) and issubclass(info.cls, UntaggedUnion):
        return _strip_untagged(mapping, info.cls, path, found, keep)
    return mapping


def _strip_struct(
    value: dict[str, Any], info: mi.StructType, path: tuple[Any, ...], found: list[Any], keep: bool
) -> dict[str, Any]:
    """An object read as one Struct: its own fields stripped in turn, the others set aside."""
    fields = _fields(info)
    out: dict[str, Any] = {}
    more: dict[str, Any] = {}
    for key, item in value.items():
        field = fields.get(key, _ABSENT)
        if field is not _ABSENT:
            out[key] = item if field is None else _strip(item, field, (*path, key), found, keep)
        elif key == info.tag_field:
            out[key] = item
        else:
            more[key] = item
    if more and keep:
        found.append((path, more))
    return out


_ABSENT: Final[Any] = object()
_FIELDS: dict[int, tuple[mi.StructType, dict[str, mi.Type | None]]] = {}


def _fields(info: mi.StructType) -> dict[str, mi.Type | None]:
    """A Struct's fields by wire name: the type to strip along, or None for plain values."""
    found = _FIELDS.get(id(info))
    if found is None or found[0] is not info:
        fields = {f.encode_name: f.type if _deep(f.type) else None for f in info.fields}
        found = _FIELDS[id(info)] = (info, fields)
    return found[1]


def _deep(info: mi.Type, seen: frozenset[int] = frozenset()) -> bool:
    """Whether values of ``info`` may hold objects a Struct or an untagged union reads."""
    if id(info) in seen:
        return True
    inner = seen | {id(info)}
    if isinstance(info, (mi.StructType, mi.CustomType)):
        return True
    if isinstance(info, mi.Metadata):
        return _deep(info.type, inner)
    if isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
        return _deep(info.item_type, inner)
    if isinstance(info, mi.DictType):
        return _deep(info.value_type, inner)
    if isinstance(info, mi.UnionType):
        return any(_deep(t, inner) for t in info.types)
    return False


def _strip_union(
    value: dict[str, Any], info: mi.UnionType, path: tuple[Any, ...], found: list[Any], keep: bool
) -> Any:
    """An object read as a member of a union msgspec decodes (tagged Structs, one object)."""
    structs = [t for t in info.types if isinstance(t, mi.StructType)]
    for member in info.types:
        if isinstance(member, mi.CustomType) and issubclass(member.cls, UntaggedUnion):
            return _strip_untagged(value, member.cls, path, found, keep)
        if isinstance(member, mi.DictType) and not structs:
            return _strip(value, member, path, found, keep)
    if len(structs) == 1:
        return _strip_struct(value, structs[0], path, found, keep)
    tag_field = structs[0].tag_field if structs else None
    if tag_field is None:
        return value
    tag = value.get(tag_field)
    for member in structs:
        if member.tag == tag and tag != UNKNOWN_TAG:
            return _strip_struct(value, member, path, found, keep)
    if keep and isinstance(tag, str) and any(m.cls is Unknown for m in structs):
        found.append((path, _UnknownMember(value)))
        return _PLACEHOLDER
    return value


def _strip_untagged(
    value: dict[str, Any],
    union: type[UntaggedUnion],
    path: tuple[Any, ...],
    found: list[Any],
    keep: bool,
) -> Any:
    """An object read as an untagged union: the variant ``decode_value`` would try first.

    Only an object of a kind no member takes becomes ``Unknown``; one of a kind a member
    takes but of no member's shape (``{"type": "array"}`` without ``items``) is left for
    msgspec to refuse, naming what it lacks.
    """
    kind = value.get(KIND_KEY)
    members = [v for v in union.variants if v.kind != "unknown"]
    candidates = [v for v in members if v.matches(value) and v.takes_kind(kind)]
    candidates.sort(key=lambda v: -v.score(value))
    for variant in candidates:  # the variant ``decode_value`` picks: the first that converts
        mine: list[Any] = []
        stripped = _strip(value, _info(variant.type), path, mine, keep)
        try:
            msgspec.convert(stripped, variant.type, dec_hook=dec_hook)
        except msgspec.ValidationError:
            continue
        found.extend(mine)
        return stripped
    if candidates or any(v.takes_kind(kind) for v in members):
        return value  # a kind the union defines, of no member's shape: let msgspec say why
    if keep and isinstance(kind, str) and len(members) < len(union.variants):
        found.append((path, _UnknownMember(value)))
        return _PLACEHOLDER
    return value


class _UnknownMember:
    """What ``_strip`` set aside for an unknown union member: the object as sent."""

    __slots__ = ("value",)

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value


def _patch(root: Any, path: tuple[Any, ...], part: Any) -> Any:
    """Put a set-aside part back at ``path`` of the converted value; returns the root."""
    if not path:
        return _restored(root, part)
    parent = root
    for key in path[:-1]:
        parent = _child(parent, key)
    key = path[-1]
    if isinstance(parent, msgspec.Struct):
        attr = _attr_of(type(parent), key)
        setattr(parent, attr, _restored(getattr(parent, attr), part))
    else:
        holder = cast(dict[Any, Any], parent)
        holder[key] = _restored(holder[key], part)
    return root


def _restored(value: Any, part: Any) -> Any:
    """``value`` with its set-aside part: the unknown member itself, or the extra fields."""
    if isinstance(part, _UnknownMember):
        return unknown(part.value)
    return with_extras(value, part) if isinstance(value, msgspec.Struct) else value


def _child(value: Any, key: Any) -> Any:
    """One step down a converted value (a Struct field by wire name, an item, an entry)."""
    if isinstance(value, msgspec.Struct):
        return getattr(value, _attr_of(type(value), key))
    return value[key]


def _attr_of(cls: type[msgspec.Struct], wire: str) -> str:
    """The attribute of a Struct field named ``wire`` on the wire."""
    return cls.__struct_fields__[cls.__struct_encode_fields__.index(wire)]
