"""Passes 3 to 5 over a schema: type every node, build the Structs, order the aliases."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import Level, Problem
from ..loader.model import Node, SchemaDocument
from . import shapes
from .ir import AliasIR, FieldIR, StructIR, UnionIR
from .names import class_name, pascal_case, snake_case
from .naming import (
    OPEN_MAP_FIELDS,
    Naming,
    SchemaView,
    decide_tags,
    name_objects,
    single_const,
    unique,
)
from .shapes import TypeExpr
from .typeref import (
    ANY,
    Builtin,
    Constrained,
    ListOf,
    MapOf,
    Named,
    Optional,
    Recursive,
    Spelling,
    is_recursive,
    type_names,
)

_META_KEYS = {
    "minimum": "ge",
    "maximum": "le",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
    "pattern": "pattern",
}
_PRIMITIVES: dict[str, shapes.Shape] = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
}
_OPEN_MAP = shapes.scalar(MapOf(ANY), "dict")


@dataclass(frozen=True)
class TypesResult:
    """The type part of a revision's IR."""

    structs: tuple[StructIR, ...]
    aliases: tuple[AliasIR | UnionIR, ...]
    expressions: Mapping[str, TypeExpr]
    problems: tuple[Problem, ...]
    annotated: str


def _doc(text: str | None, fallback: str) -> str:
    body = (text or fallback).strip() or fallback
    body = body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return body + " " if body.endswith('"') else body


def _named(expr: TypeExpr, name: str) -> TypeExpr:
    """``expr`` referred to by the alias ``name``."""
    ref = Named(name)
    return replace(expr, ref=ref, variant=replace(expr.variant, type=ref))


@dataclass(frozen=True)
class Typed:
    """The result of pass 3: every definition's and every Struct field's type, and the aliases."""

    definitions: Mapping[str, TypeExpr]
    fields: Mapping[tuple[str, str], TypeExpr]
    aliases: Mapping[str, AliasIR | UnionIR]
    problems: tuple[Problem, ...]


class _Typer:
    """Pass 3 state: types each node once; names the aliases and unions it meets on the way."""

    def __init__(self, view: SchemaView, naming: Naming, tags: Mapping[str, tuple[str, str]]):
        self.view = view
        self.naming = naming
        self.tags = tags
        self.taken = set(naming.taken)
        self.problems: list[Problem] = []
        self.def_exprs: dict[str, TypeExpr] = {}
        self.in_progress: set[str] = set()
        self.aliases: dict[str, AliasIR | UnionIR] = {}
        self.union_names: dict[tuple[Any, ...], str] = {}
        self.spelling = Spelling(annotated=naming.annotated)

    def struct_expr(self, cls: str) -> TypeExpr:
        """Return the type expression of a struct by class name."""
        node = self.naming.struct_nodes[cls]
        tag_field = self.tags.get(cls, (None, None))[0]
        known = tuple(name for name, _ in node.properties)
        consts = self.view.required_consts(node)
        nested = self.view.required_inside_open_maps(node, OPEN_MAP_FIELDS)
        return shapes.struct(Named(cls), tuple(node.required), consts, tag_field, known, nested)

    def def_expr(self, name: str) -> TypeExpr:
        """Return (and on first use, build) the type of a named definition."""
        if name in self.def_exprs:
            return self.def_exprs[name]
        if name in self.in_progress:
            # A reference back to the alias that is being built: its shape, where plain.
            back = self.view.defs[name].types
            shape: shapes.Shape = (
                "dict" if back == ("object",) else "list" if back == ("array",) else "any"
            )
            return shapes.scalar(Recursive(class_name(name)), shape)
        self.in_progress.add(name)
        node = self.view.defs[name]
        cls = class_name(name)
        if node.pointer in self.naming.struct_by_pointer:
            expr = self.struct_expr(self.naming.struct_by_pointer[node.pointer])
        else:
            inner = self.expr(node, cls, union_name=cls)
            doc = _doc(node.description, f"The `{name}` type of the MCP schema.")
            if inner.shape == "custom" and inner.ref == Named(cls):
                expr = inner
            else:
                self.aliases[cls] = AliasIR(cls, doc, inner.ref, is_recursive(inner.ref))
                expr = _named(inner, cls)
        self.in_progress.discard(name)
        self.def_exprs[name] = expr
        return expr

    def expr(self, node: Node, context: str, union_name: str | None = None) -> TypeExpr:
        """Return the type expression of any node; ``context`` names what it creates."""
        if node.ref is not None:
            return self.def_expr(self.view.doc.ref_name(node.ref))
        if node.pointer in self.naming.struct_by_pointer:
            return self.struct_expr(self.naming.struct_by_pointer[node.pointer])
        if node.all_of:
            return self.expr(self.view.merged(node), context, union_name)
        if node.has_const or (node.enum is not None and len(node.enum) == 1):
            return shapes.literal((single_const(node),))
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
            item_ref = self.expr(node.items, context + "Item").ref if node.items else ANY
            return shapes.scalar(self.constrained(ListOf(item_ref), node), "list")
        if kind == "object":
            return self.mapping(node, context, union_name)
        if kind in _PRIMITIVES:
            py = _PRIMITIVES[kind]
            return shapes.scalar(self.constrained(Builtin(py), node), py)
        if kind == "null":
            return shapes.scalar(self.constrained(Builtin("None"), node), "null")
        if kind is not None:
            self.problems.append(Problem(Level.ERROR, node.pointer, f"unsupported type {kind!r}"))
        return shapes.scalar(ANY, "any")

    def mapping(self, node: Node, context: str, union_name: str | None) -> TypeExpr:
        """An object that is no Struct: ``dict[str, value]``, named when it names members."""
        value = (
            self.expr(node.additional, context + "Value").ref
            if isinstance(node.additional, Node)
            else ANY
        )
        known = tuple(name for name, _ in node.properties)
        consts = self.view.required_consts(node)
        mapping = shapes.open_object(MapOf(value), tuple(node.required), consts, known)
        if node.properties and union_name is None:
            # An open object that names some members: a named alias keeps its intent visible.
            name = unique(context, self.taken, self.problems)
            names = ", ".join(f"`{p}`" for p, _ in node.properties)
            doc = _doc(node.description, f"An open object; the schema names {names}.")
            self.aliases[name] = AliasIR(name, doc, mapping.ref, is_recursive(mapping.ref))
            return _named(mapping, name)
        return mapping

    @staticmethod
    def constrained(ref: Builtin | ListOf, node: Node) -> Builtin | ListOf | Constrained:
        """Wrap a type in ``Annotated[..., Meta(...)]`` for the node's constraints."""
        if not node.constraints:
            return ref
        return Constrained(ref, tuple((_META_KEYS[k], v) for k, v in node.constraints))

    def union(self, members: list[TypeExpr], context: str, union_name: str | None) -> TypeExpr:
        """Return a native union, or a named untagged union the runtime decodes by shape."""
        flat, native = shapes.union(members)
        if native:
            return shapes.native(flat)
        key = tuple(m.ref for m in flat)
        if shapes.is_open(flat):
            key = (*key, shapes.UNKNOWN_MEMBER.ref)
        name = union_name or self.union_names.get(key)
        if name is None:
            named = all(m.shape in ("struct", "custom") for m in flat) and len(flat) <= 3
            joined = "Or".join(m.ref.name for m in flat if isinstance(m.ref, Named))
            name = unique(joined if named else context, self.taken, self.problems)
            self.union_names[key] = name
        variants = shapes.union_variants(flat)
        if name not in self.aliases:
            names = ", ".join(m.ref.render(self.spelling) for m in flat)
            doc = f"One of: {names} (told apart by shape when decoding)."
            self.aliases[name] = UnionIR(name, doc, key, variants)
        ref = Named(name)
        return TypeExpr(ref, "custom", shapes.VariantIR(ref, "any", (), ()), variants=variants)

    def field_type(self, cls: str, wire: str, sub: Node) -> TypeExpr:
        """The type of one Struct field (before ``| UnsetType``)."""
        if wire in OPEN_MAP_FIELDS:
            return _OPEN_MAP
        return self.expr(sub, cls + pascal_case(wire))


def type_everything(view: SchemaView, naming: Naming, tags: Mapping[str, tuple[str, str]]) -> Typed:
    """Pass 3: the type of every definition and of every Struct field, in a fixed order."""
    typer = _Typer(view, naming, tags)
    definitions = {name: typer.def_expr(name) for name, _ in view.doc.definitions}
    fields = {
        (cls, wire): typer.field_type(cls, wire, sub)
        for cls in sorted(naming.struct_nodes)
        for wire, sub in naming.struct_nodes[cls].properties
        if cls not in tags or wire != tags[cls][0]
    }
    return Typed(definitions, fields, typer.aliases, tuple(typer.problems))


def struct_ir(
    view: SchemaView, naming: Naming, tags: Mapping[str, tuple[str, str]], typed: Typed, cls: str
) -> StructIR:
    """Pass 4: one Struct with its fields, renames, defaults and tag."""
    node = naming.struct_nodes[cls]
    tag = tags.get(cls)
    consts = view.required_consts(node)
    fields: list[FieldIR] = []
    used: set[str] = set()
    for wire, sub in node.properties:
        if tag is not None and wire == tag[0]:
            continue
        py = snake_case(wire)
        while py in used:
            py += "_"
        used.add(py)
        ref = typed.fields[(cls, wire)].ref
        described = sub.description or (view.deref(sub).description if sub.ref else None)
        doc = _doc(described, "") if described else None
        if wire in consts:
            fields.append(FieldIR(py, wire, ref, "const", doc, consts[wire]))
        elif wire not in node.required:
            fields.append(FieldIR(py, wire, Optional(ref), "unset", doc))
        else:
            fields.append(FieldIR(py, wire, ref, "required", doc))
    has_const_default = any(f.default == "const" for f in fields)
    doc = (
        node.description or naming.struct_docs.get(cls) or f"The `{cls}` object of the MCP schema."
    )
    return StructIR(cls, _doc(doc, cls), tuple(fields), tag, has_const_default, node.pointer)


def order_aliases(aliases: Mapping[str, AliasIR | UnionIR]) -> tuple[AliasIR | UnionIR, ...]:
    """Pass 5: sort aliases so each comes after the aliases it names (evaluated at import)."""
    done: list[AliasIR | UnionIR] = []
    placed: set[str] = set()

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in placed or name in stack:
            return
        alias = aliases[name]
        if isinstance(alias, UnionIR):
            refs = [*alias.members, *(v.type for v in alias.variants)]
        else:
            refs = [alias.type]
        for used in sorted(type_names(refs)):
            if used in aliases and used != name:
                visit(used, (*stack, name))
        placed.add(name)
        done.append(alias)

    for name in sorted(aliases):
        visit(name, ())
    return tuple(done)


def build_types(doc: SchemaDocument) -> TypesResult:
    """Build every generated type of a schema document, pass after pass."""
    view = SchemaView(doc)
    naming = name_objects(view)
    tags = decide_tags(view, naming)
    typed = type_everything(view, naming, tags)
    structs = tuple(struct_ir(view, naming, tags, typed, c) for c in sorted(naming.struct_nodes))
    return TypesResult(
        structs,
        order_aliases(typed.aliases),
        typed.definitions,
        naming.problems + typed.problems,
        naming.annotated,
    )
