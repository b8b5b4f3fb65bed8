"""The IR of the typed API: client calls and handlers, server handlers and context calls."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ir import MethodIR, StructIR
from .names import snake_case

# Methods the runtime itself sends or answers; they get no generated method.
RUNTIME_REQUESTS = frozenset({"initialize", "ping"})
RUNTIME_NOTIFICATIONS = frozenset(
    {
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/message",
    }
)
TYPING_NAMES = ("Annotated", "Any", "Literal")
MSGSPEC_NAMES = ("UNSET", "Meta", "UnsetType")


@dataclass(frozen=True)
class ArgIR:
    """One keyword argument of a generated call: a field of the params Struct."""

    py_name: str
    annotation: str
    default: str | None

    @property
    def parameter(self) -> str:
        """The argument as written in a signature."""
        default = f" = {self.default}" if self.default is not None else ""
        return f"{self.py_name}: {self.annotation}{default}"


@dataclass(frozen=True)
class PageIR:
    """How a paginated result pages: its list field and the list's item type."""

    field: str
    item: str


@dataclass(frozen=True)
class CallIR:
    """One generated method: a call that sends a message, or a handler that answers one."""

    method: str
    name: str
    doc: str
    params_type: str | None
    args: tuple[ArgIR, ...]
    result_type: str | None
    page: PageIR | None

    @property
    def signature(self) -> str:
        """Keyword parameters of a call (after ``self, *``), without timeout/progress."""
        if self.params_type is None:
            return ""
        if not self.args:
            return f"params: {self.params_type} | None = None, "
        return "".join(f"{a.parameter}, " for a in self.args)

    @property
    def notify_parameters(self) -> str:
        """The parameters of a notification sender after ``self``."""
        return f", *, {self.signature.rstrip(', ')}" if self.signature else ""

    @property
    def handler_params(self) -> str:
        """The annotation of a handler's ``params`` argument."""
        return self.params_type or "None"

    @property
    def params_expr(self) -> str:
        """The expression that builds the params from the call's arguments."""
        if self.params_type is None:
            return "None"
        if not self.args:
            return "params"
        return (
            f"{self.params_type}(" + ", ".join(f"{a.py_name}={a.py_name}" for a in self.args) + ")"
        )

    @property
    def forward(self) -> str:
        """The arguments a paginating iterator passes on to the page call (cursor aside)."""
        return "".join(f"{a.py_name}={a.py_name}, " for a in self.args if a.py_name != "cursor")

    @property
    def page_signature(self) -> str:
        """The iterator's parameters: the page call's, without the cursor."""
        return "".join(f"{a.parameter}, " for a in self.args if a.py_name != "cursor")


@dataclass(frozen=True)
class ImportsIR:
    """The names one generated module imports, rendered as comma-separated lists."""

    types: str
    typing: str
    msgspec: str
    extra: tuple[str, ...]


def _rendered(c: CallIR, role: str) -> str:
    """The text a template writes for ``c`` in ``role`` (call, handler, notify)."""
    if role == "handler":
        return f"{c.handler_params} {c.result_type}"
    page = c.page.item if c.page and role == "paged" else ""
    return f"{c.signature} {c.params_expr} {c.result_type or ''} {page}"


def _imports(
    groups: list[tuple[tuple[CallIR, ...], str]], type_names: set[str], annotated: str, base: str
) -> ImportsIR:
    """Compute what a module rendering ``groups`` (calls and their role) must import."""
    text = base + " ".join(_rendered(c, role) for calls, role in groups for c in calls)
    tokens = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    extra: tuple[str, ...] = ()
    if annotated != "Annotated" and annotated in tokens:
        extra = (f"from typing import Annotated as {annotated}",)
    return ImportsIR(
        types=", ".join(sorted(tokens & type_names, key=str.lower)),
        typing=", ".join(sorted([*(n for n in TYPING_NAMES if n in tokens), "ClassVar", "cast"])),
        msgspec=", ".join(n for n in MSGSPEC_NAMES if n in tokens),
        extra=extra,
    )


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


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0].strip().rstrip(".")
    return line.replace("\\", "\\\\").replace('"""', "'''")


def _call(m: MethodIR, structs: dict[str, StructIR], prefix: str = "") -> CallIR:
    message = m.message_type
    stem = message.removesuffix("Request").removesuffix("Notification")
    name = prefix + snake_case(stem)
    struct = structs.get(m.params_type or "")
    args: tuple[ArgIR, ...] = ()
    if struct is not None:
        args = tuple(ArgIR(f.py_name, f.annotation, f.default) for f in struct.fields)
    doc = _first_line(structs[message].doc) if message in structs else f"Send ``{m.method}``"
    page = None
    result = structs.get(m.result_type or "")
    if m.paginated and result is not None:
        lists = [f for f in result.fields if f.annotation.startswith("list[")]
        if len(lists) == 1:
            page = PageIR(lists[0].py_name, lists[0].annotation[len("list[") : -1])
    return CallIR(m.method, name, doc, m.params_type, args, m.result_type, page)


def _sends(m: MethodIR, side: str) -> bool:
    return m.direction in (side, "both")


def build_api(
    methods: tuple[MethodIR, ...],
    structs: tuple[StructIR, ...],
    type_names: set[str],
    annotated: str,
) -> ApiIR:
    """Decide the generated API of a revision from its method table and types."""
    by_name = {s.name: s for s in structs}
    requests = [m for m in methods if m.kind == "request" and m.method not in RUNTIME_REQUESTS]
    notes = [
        m for m in methods if m.kind == "notification" and m.method not in RUNTIME_NOTIFICATIONS
    ]
    client_calls = tuple(_call(m, by_name) for m in requests if _sends(m, "client"))
    client_handlers = tuple(_call(m, by_name, "on_") for m in requests if _sends(m, "server"))
    client_notifies = tuple(_call(m, by_name, "notify_") for m in notes if _sends(m, "client"))
    server_handlers = tuple(_call(m, by_name) for m in requests if _sends(m, "client"))
    server_calls = tuple(_call(m, by_name) for m in requests if _sends(m, "server"))
    server_notifies = tuple(_call(m, by_name, "notify_") for m in notes if _sends(m, "server"))
    client = [(client_calls, "paged"), (client_handlers, "handler"), (client_notifies, "call")]
    server = [(server_handlers, "handler"), (server_calls, "call"), (server_notifies, "call")]
    # The iterators of paginated calls use UNSET and UnsetType themselves.
    pages = "UNSET UnsetType " if any(c.page for c in client_calls) else ""
    return ApiIR(
        client_calls=client_calls,
        client_handlers=client_handlers,
        client_notifies=client_notifies,
        server_handlers=server_handlers,
        server_calls=server_calls,
        server_notifies=server_notifies,
        client_imports=_imports(client, type_names, annotated, pages),
        server_imports=_imports(server, type_names, annotated, "Tool CallToolResult TextContent "),
        routes_client=tuple((c.method, c.name) for c in client_handlers),
        routes_server=tuple((c.method, c.name) for c in server_handlers),
    )
