"""Build the type part of the IR: Structs, aliases and unions, with names and tags decided."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ..errors import Level, Problem
from ..loader.model import Node, SchemaDocument
from . import shapes
from .ir import AliasIR, FieldIR, StructIR, UnionIR
from .names import class_name, pascal_case, snake_case
from .shapes import TypeExpr

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

_META_KEYS = {
    "minimum": "ge",
    "maximum": "le",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
    "pattern": "pattern",
}


@dataclass(frozen=True)
class TypesResult:
    """The type part of a revision's IR."""

    structs: tuple[StructIR, ...]
    aliases: tuple[AliasIR | UnionIR, ...]
    expressions: dict[str, TypeExpr]
    problems: tuple[Problem, ...]
    annotated: str


def _single_const(node: Node) -> Any:
    if node.has_const:
        return node.const
    if node.enum is not None and len(node.enum) == 1:
        return node.enum[0]
    return None


def _doc(text: str | None, fallback: str) -> str:
    body = (text or fallback).strip() or fallback
    body = body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return body + " " if body.endswith('"') else body


class _Builder:
    """Walks one schema document; the result it returns is frozen."""

    def __init__(self, doc: SchemaDocument) -> None:
        self.doc = doc
        self.defs = doc.definition_map()
        self.problems: list[Problem] = []
        self.struct_nodes: dict[str, Node] = {}
        self.struct_by_pointer: dict[str, str] = {}
        self.struct_docs: dict[str, str] = {}
        self.tags: dict[str, tuple[str, str]] = {}
        self.def_exprs: dict[str, TypeExpr] = {}
        self.in_progress: set[str] = set()
        self.aliases: dict[str, AliasIR | UnionIR] = {}
        self.union_names: dict[tuple[str, ...], str] = {}
        self.taken: set[str] = {class_name(n) for n in self.defs}
        # 2024-11-05 defines ``Annotated``; typing's is then imported as ``_Annotated``.
        self.annotated = "_Annotated" if "Annotated" in self.taken else "Annotated"
        for clash in sorted(self.taken & HELPER_NAMES):
            self.problems.append(
                Problem(Level.ERROR, clash, "definition name clashes with a generated helper name")
            )

    # -- helpers over nodes -------------------------------------------------
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

    def unique(self, name: str) -> str:
        """Return ``name``, suffixed if a definition or earlier inline type took it."""
        candidate, n = name, 2
        while candidate in self.taken:
            candidate = f"{name}{n}"
            n += 1
        if candidate != name:
            self.problems.append(
                Problem(Level.WARNING, name, f"name taken; inline type named {candidate}")
            )
        self.taken.add(candidate)
        return candidate

    # -- pass 1: name every object ------------------------------------------
    def register(
        self, node: Node, name: str | None, context: str, where: str = "", parent: str = ""
    ) -> None:
        """Give every object node a class name; inline ones are named after where they sit."""
        if node.ref is not None:
            return
        node_m = self.merged(node)
        if self.is_struct(node):
            if name is None and node.pointer in self.struct_by_pointer:
                return
            cls = name or self.unique(context)
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
        for _, sub in self.merged(node).properties:
            value = _single_const(sub)
            if isinstance(value, str):
                return pascal_case(value)
        return None

    # -- pass 2: decide tags ------------------------------------------------
    def required_consts(self, cls: str) -> dict[str, Any]:
        """Return the required properties of a struct that hold a single constant value."""
        node = self.struct_nodes[cls]
        out: dict[str, Any] = {}
        for prop, sub in node.properties:
            value = _single_const(self.deref(sub) if sub.ref else sub)
            if prop in node.required and value is not None:
                out[prop] = value
        return out

    def member_structs(self, node: Node) -> list[str] | None:
        """Return the struct names of a union's members, or None if one is not a struct."""
        out: list[str] = []
        for sub in node.any_of:
            target = self.deref(sub)
            if target.any_of:
                inner = self.member_structs(target)
                if inner is None:
                    return None
                out.extend(inner)
            elif target.pointer in self.struct_by_pointer:
                out.append(self.struct_by_pointer[target.pointer])
            else:
                return None
        return out

    def assign_tags(self, unions: list[Node]) -> None:
        """Tag structs on the const property that discriminates the unions they belong to."""
        for node in unions:
            members = self.member_structs(node)
            if not members or len(members) < 2:
                continue
            consts = [self.required_consts(m) for m in members]
            common = set.intersection(
                *(set(k for k, v in c.items() if isinstance(v, str)) for c in consts)
            )
            ordered = [k for k in TAG_PREFERENCE if k in common] + sorted(
                common - set(TAG_PREFERENCE)
            )
            for key in ordered:
                values = [c[key] for c in consts]
                if len(set(values)) != len(values):
                    continue
                if any(m in self.tags and self.tags[m][0] != key for m in members):
                    continue
                for m, value in zip(members, values, strict=True):
                    self.tags[m] = (key, value)
                break
        for cls in self.struct_nodes:
            if cls in self.tags:
                continue
            string_consts = {
                k: v for k, v in self.required_consts(cls).items() if isinstance(v, str)
            }
            if len(string_consts) == 1:
                ((key, value),) = string_consts.items()
                self.tags[cls] = (key, value)

    # -- pass 3: render -----------------------------------------------------
    def struct_expr(self, cls: str) -> TypeExpr:
        """Return the type expression of a struct by class name."""
        node = self.struct_nodes[cls]
        tag_field = self.tags.get(cls, (None, None))[0]
        known = tuple(name for name, _ in node.properties)
        return shapes.struct(cls, tuple(node.required), self.required_consts(cls), tag_field, known)

    def def_expr(self, name: str) -> TypeExpr:
        """Return (and on first use, build) the type of a named definition."""
        if name in self.def_exprs:
            return self.def_exprs[name]
        if name in self.in_progress:
            return shapes.scalar("Any", "any")
        self.in_progress.add(name)
        node = self.defs[name]
        cls = class_name(name)
        if node.pointer in self.struct_by_pointer:
            expr = self.struct_expr(self.struct_by_pointer[node.pointer])
        else:
            inner = self.expr(node, cls, union_name=cls)
            doc = _doc(node.description, f"The `{name}` type of the MCP schema.")
            if inner.shape == "custom" and inner.text == cls:
                expr = inner
            else:
                self.aliases[cls] = AliasIR(cls, doc, inner.text)
                expr = replace(inner, text=cls, variant=replace(inner.variant, annotation=cls))
        self.in_progress.discard(name)
        self.def_exprs[name] = expr
        return expr

    def expr(self, node: Node, context: str, union_name: str | None = None) -> TypeExpr:
        """Return the type expression of any node; ``context`` names what it creates."""
        if node.ref is not None:
            return self.def_expr(self.doc.ref_name(node.ref))
        if node.pointer in self.struct_by_pointer:
            return self.struct_expr(self.struct_by_pointer[node.pointer])
        if node.all_of:
            return self.expr(self.merged(node), context, union_name)
        const = _single_const(node)
        if node.has_const or (node.enum is not None and len(node.enum) == 1):
            return shapes.literal((const,))
        if node.enum is not None:
            return shapes.literal(node.enum)
        if node.any_of:
            members = [self.expr(sub, context) for sub in node.any_of]
            return self.union(members, context, union_name)
        if len(node.types) > 1:
            members = [self.expr(replace(node, types=(t,)), context) for t in node.types]
            return self.union(members, context, union_name)
        kind = node.types[0] if node.types else ("object" if node.has_properties else None)
        if kind == "array":
            item = (
                self.expr(node.items, context + "Item")
                if node.items
                else shapes.scalar("Any", "any")
            )
            return shapes.scalar(self.constrained(f"list[{item.text}]", node), "list")
        if kind == "object":
            value = (
                self.expr(node.additional, context + "Value")
                if isinstance(node.additional, Node)
                else shapes.scalar("Any", "any")
            )
            mapping = shapes.scalar(f"dict[str, {value.text}]", "dict")
            if node.properties and union_name is None:
                # An open object that names some members: a named alias keeps its intent visible.
                name = self.unique(context)
                names = ", ".join(f"`{p}`" for p, _ in node.properties)
                doc = _doc(node.description, f"An open object; the schema names {names}.")
                self.aliases[name] = AliasIR(name, doc, mapping.text)
                named = replace(mapping.variant, annotation=name)
                return replace(mapping, text=name, variant=named)
            return mapping
        prim = {
            "string": "str",
            "integer": "int",
            "number": "float",
            "boolean": "bool",
            "null": "None",
        }
        if kind in prim:
            py = prim[kind]
            return shapes.scalar(self.constrained(py, node), "null" if py == "None" else py)
        if kind is not None:
            self.problems.append(Problem(Level.ERROR, node.pointer, f"unsupported type {kind!r}"))
        return shapes.scalar("Any", "any")

    def constrained(self, text: str, node: Node) -> str:
        """Wrap an annotation in ``Annotated[..., Meta(...)]`` for the node's constraints."""
        if not node.constraints:
            return text
        args = ", ".join(f"{_META_KEYS[k]}={v!r}" for k, v in node.constraints)
        return f"{self.annotated}[{text}, Meta({args})]"

    def union(self, members: list[TypeExpr], context: str, union_name: str | None) -> TypeExpr:
        """Return a native union, or a named untagged union the runtime decodes by shape."""
        flat, native = shapes.union(members)
        if native:
            if len(flat) == 1:
                return flat[0]
            text = " | ".join(m.text for m in flat)
            return TypeExpr(
                text, "union", shapes.VariantIR(text, "any", (), ()), members=tuple(flat)
            )
        key = tuple(m.text for m in flat)
        name = union_name or self.union_names.get(key)
        if name is None:
            named = all(m.shape in ("struct", "custom") for m in flat) and len(flat) <= 3
            name = self.unique("Or".join(m.text for m in flat) if named else context)
            self.union_names[key] = name
        variants = shapes.union_variants(flat)
        if name not in self.aliases:
            doc = f"One of: {', '.join(m.text for m in flat)} (told apart by shape when decoding)."
            self.aliases[name] = UnionIR(name, doc, " | ".join(m.text for m in flat), variants)
        return TypeExpr(name, "custom", shapes.VariantIR(name, "any", (), ()), variants=variants)

    def struct_ir(self, cls: str) -> StructIR:
        """Render one Struct: fields, renames, defaults and class keywords."""
        node = self.struct_nodes[cls]
        tag = self.tags.get(cls)
        consts = self.required_consts(cls)
        fields: list[FieldIR] = []
        used: set[str] = set()
        has_const_default = False
        for wire, sub in node.properties:
            if tag is not None and wire == tag[0]:
                continue
            py = snake_case(wire)
            while py in used:
                py += "_"
            used.add(py)
            if wire in OPEN_MAP_FIELDS:
                text = "dict[str, Any]"
            else:
                text = self.expr(sub, cls + pascal_case(wire)).text
            doc = sub.description or (self.deref(sub).description if sub.ref else None)
            default: str | None = None
            if wire in consts:
                default, has_const_default = json.dumps(consts[wire]), True
            elif wire not in node.required:
                text, default = f"{text} | UnsetType", "UNSET"
            fields.append(FieldIR(py, wire, text, default, _doc(doc, "") if doc else None))
        # msgspec applies kw_only per class, so every generated class states it.
        args = ["kw_only=True"]
        if tag is not None:
            args += [f"tag_field={json.dumps(tag[0])}", f"tag={json.dumps(tag[1])}"]
        if has_const_default:
            args.append("omit_defaults=False")
        doc = (
            node.description
            or self.struct_docs.get(cls)
            or f"The `{cls}` object of the MCP schema."
        )
        return StructIR(cls, _doc(doc, cls), tuple(fields), ", ".join(args), node.pointer)


def _unions_in(node: Node) -> list[Node]:
    out = [node] if node.any_of else []
    for _, sub in node.properties:
        out.extend(_unions_in(sub))
    for sub in node.any_of + node.all_of + ((node.items,) if node.items else ()):
        out.extend(_unions_in(sub))
    if isinstance(node.additional, Node):
        out.extend(_unions_in(node.additional))
    return out


_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _ordered_aliases(aliases: dict[str, AliasIR | UnionIR]) -> tuple[AliasIR | UnionIR, ...]:
    """Sort aliases so each comes after the aliases it names (they are evaluated at import)."""
    done: list[AliasIR | UnionIR] = []
    placed: set[str] = set()

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in placed or name in stack:
            return
        alias = aliases[name]
        text = alias.annotation
        if isinstance(alias, UnionIR):
            text += " " + " ".join(v.annotation for v in alias.variants)
        for token in sorted(set(_NAME_TOKEN.findall(text))):
            if token in aliases and token != name:
                visit(token, (*stack, name))
        placed.add(name)
        done.append(alias)

    for name in sorted(aliases):
        visit(name, ())
    return tuple(done)


def build_types(doc: SchemaDocument) -> TypesResult:
    """Build every generated type of a schema document."""
    b = _Builder(doc)
    for name, node in doc.definitions:
        b.register(node, class_name(name) if b.is_struct(node) else None, class_name(name))
    unions: list[Node] = []
    for _, node in doc.definitions:
        unions.extend(_unions_in(node))
    b.assign_tags(unions)
    exprs = {name: b.def_expr(name) for name, _ in doc.definitions}
    structs = tuple(b.struct_ir(cls) for cls in sorted(b.struct_nodes))
    return TypesResult(structs, _ordered_aliases(b.aliases), exprs, tuple(b.problems), b.annotated)
