"""Passes 1 and 2 over a schema: name every object that becomes a Struct, then decide tags."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import Level, Problem
from ..loader.model import Node, SchemaDocument
from .names import class_name, pascal_case

# Fields kept whole as ``dict[str, Any]`` so no key is lost: ``_meta`` is an open metadata bag,
# a tool's ``inputSchema``/``outputSchema`` is a JSON Schema document (any keyword may appear).
OPEN_MAP_FIELDS = frozenset({"_meta", "inputSchema", "outputSchema"})
# Names the generated types module defines or imports besides the schema's own.
HELPER_NAMES = frozenset(
    {"Any", "Literal", "Meta", "UNSET", "UnsetType", "field", "TypeAlias", "TYPE_CHECKING"}
    | {"MCPStruct", "Variant", "untagged_union", "PROTOCOL_VERSION"}
)
# Preferred discriminators when several const properties could tag a union.
TAG_PREFERENCE = ("type", "method", "mode", "kind")


def single_const(node: Node) -> Any:
    """The one value a node allows (``const`` or a one-member ``enum``), else None."""
    if node.has_const:
        return node.const
    if node.enum is not None and len(node.enum) == 1:
        return node.enum[0]
    return None


class SchemaView:
    """Read-only questions about one schema document: references, ``allOf``, Struct or not."""

    def __init__(self, doc: SchemaDocument) -> None:
        self.doc = doc
        self.defs = doc.definition_map()

    def deref(self, node: Node) -> Node:
        """Follow ``$ref`` chains to the node they end at."""
        seen: set[str] = set()
        while node.ref is not None and node.ref not in seen:
            seen.add(node.ref)
            node = self.defs[self.doc.ref_name(node.ref)]
        return node

    def merged(self, node: Node) -> Node:
        """Flatten ``allOf`` into one object node."""
        if not node.all_of:
            return node
        props: dict[str, Node] = {}
        required: set[str] = set(node.required)
        description = node.description
        for part in node.all_of:
            part = self.merged(self.deref(part))
            for name, sub in part.properties:
                if name in props and not sub.ref and props[name].ref is None:
                    sub = replace(sub, description=sub.description or props[name].description)
                props[name] = sub
            required |= part.required
            description = description or part.description
        props.update(dict(node.properties))
        return replace(
            node,
            all_of=(),
            properties=tuple(props.items()),
            required=frozenset(required),
            has_properties=True,
            description=description,
            types=("object",),
        )

    def is_struct(self, node: Node) -> bool:
        """Whether a node becomes a Struct: an object with properties and no open extra members.

        An object that declares ``additionalProperties: {}`` next to its properties (``Result``,
        generic ``params``) carries members the schema does not name; a Struct would drop
        them, so it stays a ``dict``.
        """
        merged = self.merged(node)
        open_extra = isinstance(merged.additional, Node) and merged.additional.is_any
        return bool(merged.properties) and not open_extra

    def required_consts(self, node: Node) -> dict[str, Any]:
        """The required properties of an object node that hold a single constant value."""
        out: dict[str, Any] = {}
        for prop, sub in node.properties:
            value = single_const(self.deref(sub) if sub.ref else sub)
            if prop in node.required and value is not None:
                out[prop] = value
        return out

    def required_inside_open_maps(
        self, node: Node, open_maps: frozenset[str]
    ) -> tuple[tuple[str, str], ...]:
        """(member, key) for each key required inside a required member kept as an open map.

        ``SubscriptionsListenResult`` is told from a plain result only by the subscription id
        its ``_meta`` must carry; the ``_meta`` dict keeps every key, so the union checks it.
        """
        out: list[tuple[str, str]] = []
        for prop, sub in node.properties:
            if prop in open_maps and prop in node.required:
                target = self.merged(self.deref(sub))
                out.extend((prop, key) for key in sorted(target.required))
        return tuple(out)


@dataclass(frozen=True)
class Naming:
    """The result of pass 1: every Struct's class name, merged node and fallback doc."""

    struct_by_pointer: Mapping[str, str]
    struct_nodes: Mapping[str, Node]
    struct_docs: Mapping[str, str]
    taken: frozenset[str]
    annotated: str
    problems: tuple[Problem, ...]


class _Namer:
    """Pass 1 state: walks the definitions once and hands back a frozen ``Naming``."""

    def __init__(self, view: SchemaView) -> None:
        self.view = view
        self.struct_by_pointer: dict[str, str] = {}
        self.struct_nodes: dict[str, Node] = {}
        self.struct_docs: dict[str, str] = {}
        self.taken: set[str] = {class_name(n) for n in view.defs}
        self.problems: list[Problem] = [
            Problem(Level.ERROR, clash, "definition name clashes with a generated helper name")
            for clash in sorted(self.taken & HELPER_NAMES)
        ]

    def register(
        self, node: Node, name: str | None, context: str, where: str = "", parent: str = ""
    ) -> None:
        """Give every object node a class name; inline ones are named after where they sit."""
        if node.ref is not None:
            return
        node_m = self.view.merged(node)
        if self.view.is_struct(node):
            if name is None and node.pointer in self.struct_by_pointer:
                return
            cls = name or unique(context, self.taken, self.problems)
            self.struct_by_pointer[node.pointer] = cls
            self.struct_nodes[cls] = node_m
            if name is None:
                self.struct_docs[cls] = f"The `{where}` object of `{parent}`." if parent else ""
            for prop, sub in node_m.properties:
                # Properties merged in from another definition are named where they are defined.
                if prop not in OPEN_MAP_FIELDS and sub.pointer.startswith(node.pointer + "/"):
                    self.register(sub, None, cls + pascal_case(prop), prop, cls)
            if isinstance(node_m.additional, Node):
                self.register(node_m.additional, None, cls + "Value", "value", cls)
            return
        if node.items is not None:
            self.register(node.items, None, context + "Item", f"{where} item", parent)
        if isinstance(node.additional, Node):
            self.register(node.additional, None, context + "Value", f"{where} value", parent)
        for i, sub in enumerate(node.any_of):
            const = self._member_const_name(sub)
            self.register(sub, None, context + (const or f"Option{i + 1}"), where, parent)

    def _member_const_name(self, node: Node) -> str | None:
        for _, sub in self.view.merged(node).properties:
            value = single_const(sub)
            if isinstance(value, str):
                return pascal_case(value)
        return None


def unique(name: str, taken: set[str], problems: list[Problem]) -> str:
    """Return ``name``, suffixed if a definition or earlier inline type took it; take it."""
    candidate, n = name, 2
    while candidate in taken:
        candidate = f"{name}{n}"
        n += 1
    if candidate != name:
        problems.append(Problem(Level.WARNING, name, f"name taken; inline type named {candidate}"))
    taken.add(candidate)
    return candidate


def name_objects(view: SchemaView) -> Naming:
    """Pass 1: name every object node that becomes a Struct."""
    namer = _Namer(view)
    for name, node in view.doc.definitions:
        cls = class_name(name)
        namer.register(node, cls if view.is_struct(node) else None, cls)
    # 2024-11-05 defines ``Annotated``; typing's is then imported as ``_Annotated``.
    taken = frozenset(namer.taken)
    annotated = "_Annotated" if "Annotated" in {class_name(n) for n in view.defs} else "Annotated"
    return Naming(
        namer.struct_by_pointer,
        namer.struct_nodes,
        namer.struct_docs,
        taken,
        annotated,
        tuple(namer.problems),
    )


def _unions_in(node: Node) -> list[Node]:
    out = [node] if node.any_of else []
    for _, sub in node.properties:
        out.extend(_unions_in(sub))
    for sub in node.any_of + node.all_of + ((node.items,) if node.items else ()):
        out.extend(_unions_in(sub))
    if isinstance(node.additional, Node):
        out.extend(_unions_in(node.additional))
    return out


def _member_structs(view: SchemaView, naming: Naming, node: Node) -> list[str] | None:
    """Return the struct names of a union's members, or None if one is not a struct."""
    out: list[str] = []
    for sub in node.any_of:
        target = view.deref(sub)
        if target.any_of:
            inner = _member_structs(view, naming, target)
            if inner is None:
                return None
            out.extend(inner)
        elif target.pointer in naming.struct_by_pointer:
            out.append(naming.struct_by_pointer[target.pointer])
        else:
            return None
    return out


def decide_tags(view: SchemaView, naming: Naming) -> dict[str, tuple[str, str]]:
    """Pass 2: tag structs on the const property that discriminates the unions they belong to."""
    tags: dict[str, tuple[str, str]] = {}
    consts_of = {cls: view.required_consts(node) for cls, node in naming.struct_nodes.items()}
    for _, root in view.doc.definitions:
        for node in _unions_in(root):
            members = _member_structs(view, naming, node)
            if not members or len(members) < 2:
                continue
            consts = [consts_of[m] for m in members]
            key_sets = [{k for k, v in c.items() if isinstance(v, str)} for c in consts]
            common = key_sets[0].intersection(*key_sets[1:])
            ordered = [k for k in TAG_PREFERENCE if k in common] + sorted(
                common - set(TAG_PREFERENCE)
            )
            for key in ordered:
                values = [c[key] for c in consts]
                if len(set(values)) != len(values):
                    continue
                if any(m in tags and tags[m][0] != key for m in members):
                    continue
                for m, value in zip(members, values, strict=True):
                    tags[m] = (key, value)
                break
    for cls in naming.struct_nodes:
        if cls in tags:
            continue
        string_consts = {k: v for k, v in consts_of[cls].items() if isinstance(v, str)}
        if len(string_consts) == 1:
            ((key, value),) = string_consts.items()
            tags[cls] = (key, value)
    return tags
