"""The intermediate representation: frozen, every name and every rendered type decided here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .api import ApiIR


@dataclass(frozen=True)
class FieldIR:
    """One struct field: Python name, wire name, rendered annotation and default."""

    py_name: str
    wire_name: str
    annotation: str
    default: str | None
    doc: str | None

    @property
    def assignment(self) -> str:
        """The text after the annotation: ``= UNSET`` or ``= field(default=UNSET, name=...)``."""
        if self.py_name != self.wire_name:
            default = f"default={self.default}, " if self.default is not None else ""
            return f' = field({default}name="{self.wire_name}")'
        return f" = {self.default}" if self.default is not None else ""


@dataclass(frozen=True)
class StructIR:
    """A msgspec Struct; ``class_args`` is the rendered keyword list after the base class."""

    name: str
    doc: str
    fields: tuple[FieldIR, ...]
    class_args: str
    pointer: str


@dataclass(frozen=True)
class AliasIR:
    """A type alias (``Cursor = str``, a natively decodable union, a Literal)."""

    name: str
    doc: str
    annotation: str


@dataclass(frozen=True)
class VariantIR:
    """One member of an untagged union, with what tells it apart at decode time."""

    annotation: str
    kind: Literal["object", "array", "string", "integer", "number", "boolean", "null", "any"]
    required: tuple[str, ...]
    consts: tuple[tuple[str, str], ...]
    known: tuple[str, ...] = ()

    @property
    def call(self) -> str:
        """The ``Variant(...)`` expression that describes this member to the runtime."""
        consts = "(" + "".join(f"({k!r}, {v}), " for k, v in self.consts) + ")"
        known = f", {self.known!r}" if self.known else ""
        return f"Variant({self.annotation}, {self.kind!r}, {self.required!r}, {consts}{known})"


@dataclass(frozen=True)
class UnionIR:
    """A union msgspec cannot decode natively; the runtime picks the variant by shape."""

    name: str
    doc: str
    annotation: str
    variants: tuple[VariantIR, ...]


Direction = Literal["client", "server", "both"]


@dataclass(frozen=True)
class MethodIR:
    """One row of the method table of a revision."""

    method: str
    attr: str
    kind: Literal["request", "notification"]
    direction: Direction
    message_type: str
    params_type: str | None
    params_required: bool
    result_type: str | None
    paginated: bool
    capability: str | None
    capability_owner: Literal["receiver", "sender"] | None
    input_required: bool

    @property
    def spec_args(self) -> str:
        """The keyword arguments of this row's ``MethodSpec(...)``, rendered."""

        def ref(name: str | None) -> str:
            return f"t.{name}" if name else "None"

        def opt(value: str | None) -> str:
            return repr(value) if value is not None else "None"

        return (
            f"method={self.method!r}, kind={self.kind!r}, direction={self.direction!r}, "
            f"message={ref(self.message_type)}, params={ref(self.params_type)}, "
            f"params_required={self.params_required}, result={ref(self.result_type)}, "
            f"paginated={self.paginated}, capability={opt(self.capability)}, "
            f"capability_owner={opt(self.capability_owner)}, input_required={self.input_required}"
        )


@dataclass(frozen=True)
class RevisionIR:
    """Everything one revision's generated modules contain."""

    revision: str
    module: str
    sha256: str
    generator_version: str
    structs: tuple[StructIR, ...]
    aliases: tuple[AliasIR | UnionIR, ...]
    methods: tuple[MethodIR, ...]
    definition_names: tuple[str, ...]
    supports_batch: bool
    typing_imports: str
    msgspec_imports: str
    runtime_imports: str
    extra_imports: tuple[str, ...]
    api: ApiIR

    @property
    def has_handshake(self) -> bool:
        """Whether the revision opens with ``initialize`` (all but the stateless one)."""
        return any(m.method == "initialize" for m in self.methods)

    @property
    def templates(self) -> tuple[tuple[str, str], ...]:
        """(template, output file) pairs of this revision's subpackage.

        The stateless revision (no ``initialize``) gets types and methods only, until the
        runtime speaks its protocol.
        """
        files = [
            ("revision_init.py.jinja", "__init__.py"),
            ("types.py.jinja", "types.py"),
            ("methods.py.jinja", "methods.py"),
        ]
        files += [("client.py.jinja", "client.py"), ("server.py.jinja", "server.py")]
        return tuple(files)

    @property
    def init_lazy(self) -> tuple[tuple[str, str], ...]:
        """(name, module) of what ``__init__`` loads on first use: the client and server API.

        ``import pkg.vX.types`` stays as light as the types; ``pkg.vX.Client`` loads the runtime.
        """
        return (
            ("Client", "client"),
            ("Server", "server"),
            ("ServerContext", "server"),
            ("Tools", "server"),
        )

    @property
    def init_typing(self) -> str:
        """What the revision's ``__init__.py`` imports from typing."""
        return "TYPE_CHECKING, Any" if self.init_lazy else "Any"

    @property
    def init_type_imports(self) -> str:
        """The ``if TYPE_CHECKING:`` block that lets type checkers see the lazy names."""
        modules: dict[str, list[str]] = {}
        for name, module in self.init_lazy:
            modules.setdefault(module, []).append(name)
        if not modules:
            return ""
        lines = [f"    from .{m} import {', '.join(names)}" for m, names in modules.items()]
        return "if TYPE_CHECKING:\n" + "\n".join(lines) + "\n"

    @property
    def init_all(self) -> str:
        """The ``__all__`` entries of the revision's ``__init__.py``."""
        names = ["METHODS", "PROTOCOL_VERSION", *(name for name, _ in self.init_lazy)]
        return ", ".join(f'"{n}"' for n in names)

    @property
    def init_extra_doc(self) -> str:
        """What the ``__init__`` docstring adds for revisions with a client and server."""
        return ", ``client`` and ``server`` the typed API" if self.has_handshake else ""

    @property
    def output_schema_doc(self) -> str:
        """What the ``Tools`` docstring adds when the revision has structured tool output."""
        tool = next((s for s in self.structs if s.name == "Tool"), None)
        has_output = tool is not None and any(f.wire_name == "outputSchema" for f in tool.fields)
        return " and structuredContent against its outputSchema" if has_output else ""

    @property
    def header(self) -> str:
        """The first line of every generated module of this revision."""
        return (
            f"# Generated by mcpgen {self.generator_version} from MCP schema revision "
            f"{self.revision}. Do not edit.\n# Schema sha256: {self.sha256}"
        )

    def methods_of(self, kind: str, sender: str) -> tuple[str, ...]:
        """Names of the methods of ``kind`` that ``sender`` may send."""
        return tuple(
            m.method for m in self.methods if m.kind == kind and m.direction in (sender, "both")
        )
