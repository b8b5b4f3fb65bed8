"""What one revision looks like to the diff: its types, methods, capabilities and constants."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ..parser.naming import TAG_PREFERENCE
from .shape import FieldShape, Shape

TypeKind = Literal["object", "union", "alias"]


@dataclass(frozen=True)
class FieldView:
    """One property of an object type, by exact wire name."""

    wire: str
    shape: Shape
    required: bool
    constraints: tuple[tuple[str, str], ...] = ()
    const: str | None = None
    whole: bool = False
    """The generated field is a ``dict[str, Any]`` (``_meta``, a tool's JSON Schemas): any
    object converts into it as it is."""

    @property
    def summary(self) -> str:
        """Type and required-ness in one phrase: ``str, required``."""
        return f"{self.shape.render()}, {'required' if self.required else 'optional'}"


@dataclass(frozen=True)
class TypeView:
    """A named type of the revision (a definition, or an inline object named as the IR names it)."""

    name: str
    kind: TypeKind
    fields: tuple[FieldView, ...] = ()
    open: bool = False
    """The generated type keeps members it does not name (a ``dict``: a JSON Schema,
    ``_meta``, an object with ``additionalProperties``), so a conversion into it drops nothing."""
    shape: Shape | None = None
    capability: bool = False
    inline: bool = False

    def field_map(self) -> dict[str, FieldView]:
        """Return the fields by wire name."""
        return {f.wire: f for f in self.fields}

    @property
    def members(self) -> tuple[Shape, ...]:
        """The members of a union type (none for other kinds)."""
        if self.kind != "union" or self.shape is None:
            return ()
        return self.shape.args if self.shape.kind == "union" else (self.shape,)

    @property
    def summary(self) -> str:
        """What the type is: ``object {type, text, _meta?}``, ``union of A | B``, ``str``."""
        if self.kind == "object":
            names = ", ".join(f.wire + ("" if f.required else "?") for f in self.fields)
            return f"object {{{names}}}"
        rendered = self.shape.render() if self.shape is not None else "Any"
        return f"union of {rendered}" if self.kind == "union" else rendered


@dataclass(frozen=True)
class MethodView:
    """One row of the method table the generator derives, by method name."""

    method: str
    kind: Literal["request", "notification"]
    senders: tuple[str, ...]
    params: str | None
    params_required: bool
    result: str | None
    paginated: bool
    capability: str | None
    input_required: bool

    @property
    def columns(self) -> dict[str, str]:
        """The row's columns as text, by name (``false``, ``none``, ``client and server``)."""

        def text(value: bool | str | None) -> str:
            return str(value).lower() if isinstance(value, bool) else value or "none"

        return {
            "kind": self.kind,
            "senders": " and ".join(self.senders),
            "params": text(self.params),
            "params_required": text(self.params_required),
            "result": text(self.result),
            "input_required": text(self.input_required),
            "paginated": text(self.paginated),
            "capability": text(self.capability),
        }

    @property
    def summary(self) -> str:
        """Kind, sender, params and result in one phrase."""
        parts = [f"{self.kind} from {' and '.join(self.senders)}"]
        if self.params is not None:
            parts.append(f"params {self.params}{'' if self.params_required else ' (optional)'}")
        if self.result is not None:
            parts.append(f"result {self.result}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Surface:
    """Everything of one revision the diff compares."""

    label: str
    revision: str | None
    sha256: str
    types: tuple[TypeView, ...]
    methods: tuple[MethodView, ...]
    capabilities: tuple[tuple[str, Shape], ...]
    batch: bool | None = None
    # Whether mcpgen's overrides applied (a pinned revision's, or those a next revision
    # inherits from its base): only they name the capability gating each method and the
    # protocol facts, so without them those are not compared.
    overrides: bool = False
    handshake: bool | None = None
    """Whether the revision opens with ``initialize`` (read off its methods)."""
    sse_priming: bool | None = None
    method_headers: bool | None = None

    @property
    def facts(self) -> tuple[tuple[str, bool | None], ...]:
        """The protocol facts the runtime reads from a revision's ``FACTS``, by name."""
        return (
            ("handshake", self.handshake),
            ("batch", self.batch),
            ("sse_priming", self.sse_priming),
            ("method_headers", self.method_headers),
        )

    @cached_property
    def type_map(self) -> dict[str, TypeView]:
        """The types by name."""
        return {t.name: t for t in self.types}

    def alias(self, name: str) -> Shape | None:
        """Expand a named union or alias to its shape; None for an object or unknown name."""
        found = self.type_map.get(name)
        return found.shape if found is not None and found.kind != "object" else None

    def tagged(self, shape: Shape) -> dict[str, tuple[str, str]] | None:
        """A union's object members by name -> (tag member, tag value); None if untagged.

        The converters tell a union's members apart by this tag (``type``); a union without
        one on every object member is converted as a whole.
        """
        members = shape.args if shape.kind == "union" else (shape,)
        found: dict[str, tuple[str, str]] = {}
        for m in members:
            view = self.type_map.get(m.name) if m.kind == "ref" else None
            if view is None or view.kind != "object":
                continue
            consts = sorted(
                ((f.wire, f.const) for f in view.fields if f.const is not None),
                key=lambda c: TAG_PREFERENCE.index(c[0]) if c[0] in TAG_PREFERENCE else 99,
            )
            if not consts:
                return None
            wire, const = consts[0]
            value = json.loads(const)
            if not isinstance(value, str):
                return None
            found[m.name] = (wire, value)
        return found or None

    def open_object(self, name: str) -> bool:
        """Whether a named object keeps whatever members it is given (a ``dict``)."""
        found = self.type_map.get(name)
        return found is not None and found.kind == "object" and found.open

    def object_fields(self, name: str) -> tuple[FieldShape, ...] | None:
        """The fields of a named object type; None for anything else."""
        found = self.type_map.get(name)
        if found is None or found.kind != "object":
            return None
        return tuple((f.wire, f.shape, f.required) for f in found.fields)
