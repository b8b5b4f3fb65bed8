"""A typed, read-only view of the subset of JSON Schema that the MCP schema files use."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..errors import Level, Problem

# Keywords the model understands; anything else in a schema is reported as a problem.
KNOWN_KEYWORDS = frozenset(
    {
        "$ref",
        "$schema",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "default",
        "description",
        "enum",
        "format",
        "items",
        "maxItems",
        "maxLength",
        "maximum",
        "minItems",
        "minLength",
        "minimum",
        "pattern",
        "properties",
        "required",
        "title",
        "type",
    }
)


@dataclass(frozen=True)
class Node:
    """One schema node; ``pointer`` is its JSON pointer in the schema file."""

    pointer: str
    ref: str | None = None
    types: tuple[str, ...] = ()
    description: str | None = None
    properties: tuple[tuple[str, Node], ...] = ()
    required: frozenset[str] = frozenset()
    has_properties: bool = False
    additional: Node | bool | None = None
    items: Node | None = None
    any_of: tuple[Node, ...] = ()
    all_of: tuple[Node, ...] = ()
    const: Any = None
    has_const: bool = False
    enum: tuple[Any, ...] | None = None
    format: str | None = None
    constraints: tuple[tuple[str, Any], ...] = ()
    # A node whose every keyword was ignored (``{}``): any JSON value.
    is_any: bool = False

    def property_map(self) -> dict[str, Node]:
        """Return the properties as a dict, in schema order."""
        return dict(self.properties)


@dataclass(frozen=True)
class SchemaDocument:
    """A whole schema file: its named definitions and where references point."""

    definitions: tuple[tuple[str, Node], ...]
    ref_prefix: str
    dialect: str
    problems: tuple[Problem, ...] = field(default=())

    def definition_map(self) -> dict[str, Node]:
        """Return the definitions as a dict, in file order."""
        return dict(self.definitions)

    def ref_name(self, ref: str) -> str:
        """Return the definition name a ``$ref`` points at."""
        return ref[len(self.ref_prefix) :]


_CONSTRAINT_KEYS = (
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _object(raw: object) -> Mapping[str, Any] | None:
    """``raw`` as a JSON object with string keys, or None when it is something else."""
    if not isinstance(raw, Mapping):
        return None
    found: Mapping[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
    return found


def _array(raw: object) -> tuple[Any, ...]:
    """``raw`` as a tuple when it is a JSON array, else empty."""
    return tuple(raw) if is_array(raw) else ()


def is_array(raw: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """Whether ``raw`` is a JSON array (a list, or a tuple built from one)."""
    return isinstance(raw, list | tuple)


JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
"""The names a ``type`` keyword may hold."""


def _is_type(value: object) -> bool:
    if isinstance(value, str):
        return value in JSON_TYPES
    return (
        is_array(value) and bool(value) and all(isinstance(t, str) and _is_type(t) for t in value)
    )


def _is_literal(value: object) -> bool:
    return value is None or isinstance(value, str | int)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_pattern(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_schema(value: object) -> bool:
    return isinstance(value, bool | Mapping)


# What each keyword's value must be, and how to say so; a keyword outside this table takes
# any JSON value (``default``).
_SHAPES: dict[str, tuple[Callable[[object], bool], str]] = {
    "$ref": (_is_str, "a string"),
    "$schema": (_is_str, "a string"),
    "type": (_is_type, f"one of {', '.join(sorted(JSON_TYPES))} or a list of them"),
    "description": (_is_str, "a string"),
    "title": (_is_str, "a string"),
    "format": (_is_str, "a string"),
    "pattern": (_is_pattern, "a regular expression"),
    "properties": (lambda v: _object(v) is not None, "an object"),
    "required": (lambda v: is_array(v) and all(map(_is_str, v)), "a list of strings"),
    "additionalProperties": (_is_schema, "a schema or a boolean"),
    "items": (_is_schema, "a schema"),
    "anyOf": (lambda v: is_array(v) and bool(v), "a non-empty list of schemas"),
    "allOf": (lambda v: is_array(v) and bool(v), "a non-empty list of schemas"),
    "enum": (
        lambda v: is_array(v) and bool(v) and all(map(_is_literal, v)),
        "a non-empty list of strings, integers, booleans or nulls",
    ),
    "const": (_is_literal, "a string, an integer, a boolean or null"),
    "minimum": (_is_number, "a number"),
    "maximum": (_is_number, "a number"),
    **dict.fromkeys(
        ("minLength", "maxLength", "minItems", "maxItems"), (_is_count, "a non-negative integer")
    ),
}


def _shape_problems(obj: Mapping[str, Any], pointer: str) -> list[Problem]:
    """A problem for each keyword whose value is not of the kind JSON Schema requires."""
    found: list[Problem] = []
    for key in sorted(set(obj) - KNOWN_KEYWORDS):
        found.append(Problem(Level.ERROR, pointer, f"unsupported JSON Schema keyword {key!r}"))
    for key, (fits, expected) in _SHAPES.items():
        if key in obj and not fits(obj[key]):
            found.append(
                Problem(
                    Level.ERROR, f"{pointer}/{key}", f"must be {expected}, got {_short(obj[key])}"
                )
            )
    return found


def _short(value: object) -> str:
    """``value`` as JSON, cut to a length that fits an error line."""
    text = json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_node(raw: Any, pointer: str, problems: list[Problem]) -> Node:
    """Build a ``Node`` from a raw JSON Schema value, reporting what it cannot represent."""
    obj = _object(raw)
    if raw is True or (obj is not None and not obj):
        return Node(pointer=pointer, is_any=True)
    if obj is None:
        problems.append(
            Problem(Level.ERROR, pointer, f"expected a schema object, got {_short(raw)}")
        )
        return Node(pointer=pointer, is_any=True)
    shape_problems = _shape_problems(obj, pointer)
    if shape_problems:
        problems.extend(shape_problems)
        return Node(pointer=pointer, is_any=True)
    raw_type: object = obj.get("type", ())
    types = (raw_type,) if isinstance(raw_type, str) else tuple(str(t) for t in _array(raw_type))
    props_raw = _object(obj.get("properties", {})) or {}
    properties = tuple(
        (name, parse_node(sub, f"{pointer}/properties/{_escape(name)}", problems))
        for name, sub in props_raw.items()
    )
    additional: Node | bool | None
    add_raw: object = obj.get("additionalProperties")
    if add_raw is None:
        additional = None
    elif add_raw is False:
        additional = False
    else:
        additional = parse_node(add_raw, f"{pointer}/additionalProperties", problems)
    items = parse_node(obj["items"], f"{pointer}/items", problems) if "items" in obj else None
    any_of = tuple(
        parse_node(sub, f"{pointer}/anyOf/{i}", problems)
        for i, sub in enumerate(_array(obj.get("anyOf", ())))
    )
    all_of = tuple(
        parse_node(sub, f"{pointer}/allOf/{i}", problems)
        for i, sub in enumerate(_array(obj.get("allOf", ())))
    )
    enum: object = obj.get("enum")
    return Node(
        pointer=pointer,
        ref=obj.get("$ref"),
        types=types,
        description=obj.get("description"),
        properties=properties,
        required=frozenset(str(r) for r in _array(obj.get("required", ()))),
        has_properties="properties" in obj,
        additional=additional,
        items=items,
        any_of=any_of,
        all_of=all_of,
        const=obj.get("const"),
        has_const="const" in obj,
        enum=_array(enum) if enum is not None else None,
        format=obj.get("format"),
        constraints=tuple((k, obj[k]) for k in _CONSTRAINT_KEYS if k in obj),
        is_any=not (set(obj) - {"description", "title", "$schema"}),
    )


def parse_document(raw: Any, source: str) -> SchemaDocument:
    """Build a ``SchemaDocument`` from a decoded schema file (draft-07 or 2020-12)."""
    problems: list[Problem] = []
    obj = _object(raw)
    if obj is None:
        problems.append(Problem(Level.ERROR, source, "the schema file is not a JSON object"))
        return SchemaDocument((), "#/definitions/", "", tuple(problems))
    if "$defs" in obj:
        key = "$defs"
    elif "definitions" in obj:
        key = "definitions"
    else:
        problems.append(
            Problem(Level.ERROR, source, "no 'definitions' or '$defs' in the schema file")
        )
        return SchemaDocument((), "#/definitions/", "", tuple(problems))
    defs_raw = _object(obj[key])
    if not defs_raw:
        problems.append(Problem(Level.ERROR, source, f"'{key}' is empty or not an object"))
        return SchemaDocument((), f"#/{key}/", "", tuple(problems))
    definitions = tuple(
        (name, parse_node(node, f"/{key}/{_escape(name)}", problems))
        for name, node in defs_raw.items()
    )
    doc = SchemaDocument(definitions, f"#/{key}/", str(obj.get("$schema", "")), tuple(problems))
    return _check_refs(doc)


def _walk(node: Node) -> list[Node]:
    out = [node]
    for _, sub in node.properties:
        out.extend(_walk(sub))
    if isinstance(node.additional, Node):
        out.extend(_walk(node.additional))
    if node.items is not None:
        out.extend(_walk(node.items))
    for sub in node.any_of + node.all_of:
        out.extend(_walk(sub))
    return out


def _check_refs(doc: SchemaDocument) -> SchemaDocument:
    names = doc.definition_map()
    problems = list(doc.problems)
    for _, root in doc.definitions:
        for node in _walk(root):
            if node.ref is None:
                continue
            if not node.ref.startswith(doc.ref_prefix) or doc.ref_name(node.ref) not in names:
                problems.append(Problem(Level.ERROR, node.pointer, f"unresolved $ref {node.ref!r}"))
    return SchemaDocument(doc.definitions, doc.ref_prefix, doc.dialect, tuple(problems))
