"""The intermediate representation: frozen, every name and every type decided here.

Types are referenced through the ``typeref`` tree, never as text; turning the IR into Python
source is the render stage's job (``codegen/render``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .typeref import LiteralValue, TypeRef

VariantKind = Literal[
    "object", "array", "string", "integer", "number", "boolean", "null", "any", "unknown"
]
Direction = Literal["client", "server", "both"]
DefaultKind = Literal["required", "unset", "const"]


@dataclass(frozen=True)
class FieldIR:
    """One struct field: Python name, wire name, type and default.

    ``default`` is ``required`` (no default), ``unset`` (may be absent: ``UNSET``) or ``const``
    (the schema's single value, ``const``).
    """

    py_name: str
    wire_name: str
    type: TypeRef
    default: DefaultKind
    doc: str | None
    const: LiteralValue = None


@dataclass(frozen=True)
class StructIR:
    """A msgspec Struct; ``tag`` is its (tag field, tag value) when it is tagged."""

    name: str
    doc: str
    fields: tuple[FieldIR, ...]
    tag: tuple[str, str] | None
    omit_defaults: bool
    pointer: str


@dataclass(frozen=True)
class AliasIR:
    """A type alias (``Cursor = str``, a natively decodable union, a Literal).

    ``recursive`` aliases refer back to themselves (``JSONValue``): type checkers see the
    recursive type, msgspec a run-time version whose back reference is a class the decode
    hook checks against the alias (``runtime/core/recursive.py``).
    """

    name: str
    doc: str
    type: TypeRef
    recursive: bool = False


@dataclass(frozen=True)
class VariantIR:
    """One member of an untagged union, with what tells it apart at decode time."""

    type: TypeRef
    kind: VariantKind
    required: tuple[str, ...]
    consts: tuple[tuple[str, LiteralValue], ...]
    known: tuple[str, ...] = ()
    nested: tuple[tuple[str, str], ...] = ()
    """(member, key) pairs: required keys inside members kept as open maps (``_meta``)."""


@dataclass(frozen=True)
class UnionIR:
    """A union msgspec cannot decode natively; the runtime picks the variant by shape."""

    name: str
    doc: str
    members: tuple[TypeRef, ...]
    variants: tuple[VariantIR, ...]


@dataclass(frozen=True)
class MethodIR:
    """One row of the method table of a revision; ``constant`` names its ``MethodSpec``."""

    method: str
    attr: str
    constant: str
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


@dataclass(frozen=True)
class TaskIR:
    """A request that may run as a task (2025-11-25 on): its two task variants.

    ``as_task`` is the request's own row answered with ``CreateTaskResult`` and gated by the
    receiver's ``capability`` (``tasks.requests.tools.call``); ``payload`` is ``tasks/result``
    answered with the request's own result type. Both render as ``TaskSpec`` constants.
    """

    method: str
    capability: str
    as_task: MethodIR
    payload: MethodIR


@dataclass(frozen=True)
class PageIR:
    """How a paginated result pages: its list field and the list's item type."""

    field: str
    item: TypeRef


@dataclass(frozen=True)
class CallIR:
    """One generated method: a call that sends a message, or a handler that answers one.

    ``args`` are the fields of the params Struct (empty when the params are a plain mapping);
    ``spec`` names the method's ``MethodSpec`` constant.
    """

    method: str
    name: str
    doc: str
    spec: str
    params_type: str | None
    params_required: bool
    args: tuple[FieldIR, ...]
    result_type: str | None
    page: PageIR | None


@dataclass(frozen=True)
class ImportsIR:
    """The names one generated module imports, by source, sorted as isort writes them."""

    types: tuple[str, ...]
    typing: tuple[str, ...]
    msgspec: tuple[str, ...]
    runtime: tuple[str, ...] = ()
    specs: tuple[str, ...] = ()
    tolerant: tuple[str, ...] = ()
    """Names from the runtime's tolerant reading (``Unknown``)."""
    recursive: tuple[str, ...] = ()
    """Names from the runtime's recursive aliases (``recursive_alias``)."""


@dataclass(frozen=True)
class ApiIR:
    """Everything ``client.py`` and ``server.py`` of a revision contain."""

    client_calls: tuple[CallIR, ...]
    client_handlers: tuple[CallIR, ...]
    client_notifies: tuple[CallIR, ...]
    server_handlers: tuple[CallIR, ...]
    server_calls: tuple[CallIR, ...]
    server_notifies: tuple[CallIR, ...]
    client_imports: ImportsIR
    server_imports: ImportsIR
    routes_client: tuple[tuple[str, str], ...]
    routes_server: tuple[tuple[str, str], ...]
    has_output_schema: bool
    connect_result: str
    """What ``connect*`` return: ``InitializeResult``, or the ``server/discover`` result."""
    progress_params: str
    """The params type of ``notifications/progress``: what a call's progress callback takes."""


@dataclass(frozen=True)
class RevisionIR:
    """Everything one revision's generated modules contain.

    ``annotated`` is the name typing's ``Annotated`` is imported under (the 2024-11-05 schema
    defines its own ``Annotated``).
    """

    revision: str
    module: str
    sha256: str
    generator_version: str
    structs: tuple[StructIR, ...]
    aliases: tuple[AliasIR | UnionIR, ...]
    methods: tuple[MethodIR, ...]
    definition_names: tuple[str, ...]
    supports_batch: bool
    sse_priming: bool
    method_headers: bool
    annotated: str
    imports: ImportsIR
    api: ApiIR
    tasks: tuple[TaskIR, ...] = ()
    """The requests that may run as tasks, with their task variants."""
    base: str | None = None
    """The revision whose overrides a next revision inherits (None for a built-in one)."""
    overrides_sha256: str | None = None
    """The sha256 of a next revision's own overrides file, when it has one."""

    @property
    def lineage(self) -> str:
        """What a next revision's overrides come from, for headers ("" for a built-in one)."""
        if self.base is None and self.overrides_sha256 is None:
            return ""
        parts = [f"base {self.base}"] if self.base is not None else []
        if self.overrides_sha256 is not None:
            parts.append(f"overrides file sha256 {self.overrides_sha256}")
        return "; ".join(parts)

    @property
    def package_header(self) -> tuple[str, ...]:
        """The lines the package's ``__init__`` header gives this revision."""
        lines = (f"{self.revision}: schema sha256 {self.sha256}",)
        return lines + ((f"  overrides: {self.lineage}",) if self.lineage else ())

    @property
    def has_handshake(self) -> bool:
        """Whether the revision opens with ``initialize`` (all but the stateless one)."""
        return any(m.method == "initialize" for m in self.methods)

    @property
    def templates(self) -> tuple[tuple[str, str], ...]:
        """(template, output file) pairs of a revision's subpackage (both eras get all five)."""
        return (
            ("revision_init.py.jinja", "__init__.py"),
            ("types.py.jinja", "types.py"),
            ("methods.py.jinja", "methods.py"),
            ("client.py.jinja", "client.py"),
            ("server.py.jinja", "server.py"),
        )

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

    def methods_of(self, kind: str, sender: str) -> tuple[str, ...]:
        """Names of the methods of ``kind`` that ``sender`` may send."""
        return tuple(
            m.method for m in self.methods if m.kind == kind and m.direction in (sender, "both")
        )
