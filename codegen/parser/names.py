"""Python names for schema names: class names, snake_case attributes, module names."""

from __future__ import annotations

import keyword
import re

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_IDENT = re.compile(r"[^0-9A-Za-z_]+")
# Names that would shadow what the generated modules themselves use.
_RESERVED = frozenset(
    {"msgspec", "field", "Meta", "UNSET", "UnsetType", "Any", "Literal", "Annotated"}
)


def snake_case(wire_name: str) -> str:
    """Return the snake_case attribute name for a wire name (``mimeType`` -> ``mime_type``)."""
    name = wire_name.lstrip("_")
    name = _WORD_BOUNDARY.sub("_", name)
    name = _NOT_IDENT.sub("_", name).strip("_").lower() or "value"
    if name[0].isdigit():
        name = f"n_{name}"
    if keyword.iskeyword(name) or name in _RESERVED:
        name = f"{name}_"
    return name


def pascal_case(text: str) -> str:
    """Return a PascalCase class-name fragment (``list_changed`` -> ``ListChanged``)."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", _WORD_BOUNDARY.sub("_", text)) if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Value"
    return f"N{name}" if name[0].isdigit() else name


def class_name(schema_name: str) -> str:
    """Return a safe class name for a schema definition name, keeping it when it is already safe."""
    if schema_name.isidentifier() and not keyword.iskeyword(schema_name):
        return schema_name
    return pascal_case(schema_name)


def module_name(revision: str) -> str:
    """Return the subpackage name of a revision (``2025-03-26`` -> ``v2025_03_26``)."""
    return "v" + _NOT_IDENT.sub("_", revision).strip("_")


def method_attr(method: str) -> str:
    """Return the Python name of a method (``tools/list_changed`` -> ``tools_list_changed``)."""
    return snake_case(method.replace("/", "_"))
