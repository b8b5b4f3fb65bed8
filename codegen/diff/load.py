"""Read one side of a diff through the generator's own pipeline: schema model, IR, method table.

This is the only module of the diff that touches the pipeline. Types and fields come from the
typed schema model (exact wire names, required-ness, constraints); inline objects are named as
the IR names them, and methods come from the IR's method table.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..errors import GenerationError
from ..inputs import Sources, revision_input
from ..loader.model import Node, SchemaDocument
from ..loader.overrides import Overrides
from ..loader.source import resolve
from ..parser.implicit import inherit_base_params
from ..parser.ir import RevisionIR
from ..parser.names import class_name, pascal_case
from ..parser.naming import OPEN_MAP_FIELDS, SchemaView
from ..revision import BuiltRevision, RevisionInput, build_revision_of, known_revisions
from . import shape as sh
from .shape import Shape
from .views import FieldView, MethodView, Surface, TypeKind, TypeView

CAPABILITY_ROOTS = ("ClientCapabilities", "ServerCapabilities")
_PRIMS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def load_surface(
    spec: str | RevisionInput | BuiltRevision, given: Sources | None = None
) -> Surface:
    """Load a side: a pinned revision, a schema file, ``REV=FILE`` (a file read as REV), a
    revision's input, or a revision already built (the generator's, not built again).

    A pinned revision's overrides apply (to its file too, given as ``REV=FILE``), and so do
    the inherited ones of a revision outside the manifest that ``given`` names a base or an
    overrides file for; a file of another revision, or of none, is read as it is.
    """
    if isinstance(spec, BuiltRevision):
        built, label = spec, spec.given.revision
    elif isinstance(spec, RevisionInput):
        built, label = build_revision_of(spec), spec.revision
    else:
        revision, path = _parse_spec(spec)
        label = revision if path is None and revision else spec
        given = given or Sources()
        if revision and path is not None:
            given = replace(given, files={**given.files, revision: path})
        if revision:
            given_input, _ = revision_input(revision, given)
        else:
            given_input = RevisionInput(resolve("", path), Overrides())
        built = build_revision_of(given_input)
    given_input, doc, ir = built.given, built.doc, built.ir
    overrides = given_input.overrides
    known = given_input.revision in known_revisions() or overrides.base is not None
    known = known or overrides.file_sha256 is not None
    source = given_input.source
    surface = _surface(label, source.revision or None, source.sha256, inherit_base_params(doc), ir)
    return replace(
        surface,
        overrides=known,
        handshake=ir.has_handshake,
        batch=ir.supports_batch if known else None,
        sse_priming=ir.sse_priming if known else None,
        method_headers=ir.method_headers if known else None,
    )


def _parse_spec(spec: str) -> tuple[str | None, Path | None]:
    """Split a side into (revision or None, schema file or None)."""
    known = known_revisions()
    if spec in known:
        return spec, None
    path = Path(spec)
    if path.is_file():
        return None, path
    revision, sep, rest = spec.partition("=")
    if sep and revision and rest:
        return revision, Path(rest)
    raise GenerationError(
        f"{spec!r} is neither a known revision ({', '.join(known)}) nor a schema file"
    )


def _surface(
    label: str, revision: str | None, sha256: str, doc: SchemaDocument, ir: RevisionIR
) -> Surface:
    walker = _Walker(doc, {s.pointer: s.name for s in ir.structs})
    for name, node in doc.definitions:
        walker.define(class_name(name), node, name in CAPABILITY_ROOTS)
    definitions = {class_name(name) for name, _ in doc.definitions}
    types = {k: replace(v, inline=k not in definitions) for k, v in walker.types.items()}
    capabilities: list[tuple[str, Shape]] = []
    for root in CAPABILITY_ROOTS:
        if root in types:
            capabilities.extend(_capability_paths(types, types[root], root))
    methods = tuple(
        MethodView(
            method=m.method,
            kind=m.kind,
            senders=("client", "server") if m.direction == "both" else (m.direction,),
            params=m.params_type,
            params_required=m.params_required,
            result=m.result_type,
            paginated=m.paginated,
            capability=m.capability,
            input_required=m.input_required,
        )
        for m in ir.methods
    )
    return Surface(
        label=label,
        revision=revision,
        sha256=sha256,
        types=tuple(types[k] for k in sorted(types)),
        methods=tuple(sorted(methods, key=lambda m: m.method)),
        capabilities=tuple(sorted(capabilities, key=lambda c: c[0])),
    )


def _capability_paths(
    types: dict[str, TypeView], view: TypeView, prefix: str
) -> list[tuple[str, Shape]]:
    """Flatten a capabilities object into (dotted path, shape), nested objects as open maps."""
    out: list[tuple[str, Shape]] = []
    for f in view.fields:
        path = f"{prefix}.{f.wire}"
        nested = types.get(f.shape.name) if f.shape.kind == "ref" else None
        if nested is not None and nested.capability and nested.kind == "object":
            out.append((path, sh.mapping(sh.ANY)))  # an object; its members follow
            out.extend(_capability_paths(types, nested, path))
        else:
            out.append((path, f.shape))
    return out


def _single_const(node: Node) -> object | None:
    value: object | None = None
    if node.has_const:
        value = node.const
    elif node.enum is not None and len(node.enum) == 1:
        value = node.enum[0]
    return value


class _Walker:
    """Walks a schema document into named type views; inline objects become named types too."""

    def __init__(self, doc: SchemaDocument, ir_names: dict[str, str]) -> None:
        self.doc = doc
        self.defs = doc.definition_map()
        self.ir_names = ir_names
        self.types: dict[str, TypeView] = {}
        self.pointers: dict[str, str] = {}
        self.capability = False
        self.struct_view = SchemaView(doc)
        self.whole = False
        """Inside a field the generator keeps whole as a dict (a JSON Schema, ``_meta``)."""

    def merged(self, node: Node) -> Node:
        """Flatten ``allOf`` into one object node, later parts overriding earlier ones."""
        if not node.all_of:
            return node
        props: dict[str, Node] = {}
        required = set(node.required)
        for part in node.all_of:
            if part.ref is not None:
                part = self.defs[self.doc.ref_name(part.ref)]
            part = self.merged(part)
            props.update(part.properties)
            required |= part.required
        props.update(node.properties)
        return replace(
            node,
            all_of=(),
            properties=tuple(props.items()),
            required=frozenset(required),
            has_properties=True,
            types=("object",),
        )

    def define(self, name: str, node: Node, capability: bool) -> None:
        """Record the type ``name`` for ``node`` (a definition or an inline object)."""
        outer, self.capability = self.capability, capability
        try:
            self._define(name, self.merged(node))
        finally:
            self.capability = outer

    def _define(self, name: str, node: Node) -> None:
        self.pointers[node.pointer] = name
        kind: TypeKind
        if node.any_of or len(node.types) > 1 or node.ref is not None:
            shape = self.shape(node)
            kind = "union" if shape.kind == "union" else "alias"
            self.types[name] = TypeView(name, kind, shape=shape, capability=self.capability)
            return
        if node.properties:
            self.types[name] = TypeView(name, "object", capability=self.capability)
            fields = tuple(
                self.field(prop, sub, prop in node.required) for prop, sub in node.properties
            )
            # Open: the generated type keeps members it does not name (a dict, not a Struct).
            is_open = self.whole or not self.struct_view.is_struct(node)
            view = TypeView(name, "object", fields, is_open, capability=self.capability)
            self.types[name] = view
            return
        self.types[name] = TypeView(
            name, "alias", shape=self.shape(node), capability=self.capability
        )

    def field(self, wire: str, node: Node, required: bool) -> FieldView:
        """Build the view of one property."""
        node = self.merged(node)
        constraints = tuple((k, json.dumps(v)) for k, v in node.constraints)
        if node.format is not None:
            constraints += (("format", json.dumps(node.format)),)
        const = _single_const(node)
        outer, self.whole = self.whole, self.whole or wire in OPEN_MAP_FIELDS
        try:
            shape = self.shape(node)
        finally:
            self.whole = outer
        return FieldView(
            wire=wire,
            shape=shape,
            required=required,
            constraints=constraints,
            const=json.dumps(const) if const is not None else None,
            whole=wire in OPEN_MAP_FIELDS,
        )

    def inline_name(self, node: Node) -> str:
        """The name of an inline object: the IR's, else one read from where it sits."""
        if node.pointer in self.pointers:
            return self.pointers[node.pointer]
        name = self.ir_names.get(node.pointer)
        if name is None:
            base = _pointer_name(node)
            name, n = base, 2
            while name in self.types or name in self.defs:
                name, n = f"{base}{n}", n + 1
        return name

    def shape(self, node: Node) -> Shape:
        """Return the shape of any node; inline objects with properties become named types."""
        if node.ref is not None:
            return sh.ref(class_name(self.doc.ref_name(node.ref)))
        node = self.merged(node)
        if node.has_const or node.enum is not None:
            return sh.literal((node.const,) if node.has_const else tuple(node.enum or ()))
        if node.any_of:
            return sh.union([self.shape(sub) for sub in node.any_of])
        if len(node.types) > 1:
            return sh.union([self.shape(replace(node, types=(t,))) for t in node.types])
        kind = node.types[0] if node.types else ("object" if node.has_properties else None)
        if kind == "array":
            return sh.array(self.shape(node.items) if node.items else sh.ANY)
        if kind == "object" and node.properties:
            name = self.inline_name(node)
            if name not in self.types:
                self.define(name, node, self.capability)
            return sh.ref(name)
        if kind == "object":
            extra = node.additional
            return sh.mapping(self.shape(extra) if isinstance(extra, Node) else sh.ANY)
        return sh.prim(_PRIMS[kind]) if kind in _PRIMS else sh.ANY


def _pointer_name(node: Node) -> str:
    """Name an inline object after where it sits, as the IR does: ``ToolInputSchema``."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in node.pointer.split("/")[2:]]
    name = class_name(tokens[0]) if tokens else "Inline"
    rest = tokens[1:]
    while rest:
        step, rest = rest[0], rest[1:]
        if step == "properties" and rest:
            name, rest = name + pascal_case(rest[0]), rest[1:]
        elif step == "items":
            name += "Item"
        elif step == "additionalProperties":
            name += "Value"
        elif step == "anyOf" and rest:
            const = next(
                (v for _, sub in node.properties if isinstance(v := _single_const(sub), str)),
                None,
            )
            last = len(rest) == 1 and const is not None
            name += pascal_case(str(const)) if last else f"Option{int(rest[0]) + 1}"
            rest = rest[1:]
    return name
