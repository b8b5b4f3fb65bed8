"""The IR of the typed API: client calls and handlers, server handlers and context calls."""

from __future__ import annotations

from .imports import module_imports
from .ir import ApiIR, CallIR, FieldIR, ImportsIR, MethodIR, PageIR, StructIR, TaskIR
from .names import snake_case
from .tasks import task_calls
from .typeref import ListOf, Named, Need, TypeRef, needs_of

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


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0].strip().rstrip(".")
    return line.replace("\\", "\\\\").replace('"""', "'''")


def _page(m: MethodIR, structs: dict[str, StructIR]) -> PageIR | None:
    """The list a paginated result pages through, when it has exactly one."""
    result = structs.get(m.result_type or "")
    if not m.paginated or result is None:
        return None
    lists = [f for f in result.fields if isinstance(f.type, ListOf)]
    if len(lists) != 1:
        return None
    field = lists[0]
    assert isinstance(field.type, ListOf)
    return PageIR(field.py_name, field.type.item)


def _call(m: MethodIR, structs: dict[str, StructIR], prefix: str = "") -> CallIR:
    message = m.message_type
    stem = message.removesuffix("Request").removesuffix("Notification")
    struct = structs.get(m.params_type or "")
    args: tuple[FieldIR, ...] = struct.fields if struct is not None else ()
    doc = _first_line(structs[message].doc) if message in structs else f"Send ``{m.method}``"
    return CallIR(
        method=m.method,
        name=prefix + snake_case(stem),
        doc=doc,
        spec=m.constant,
        params_type=m.params_type,
        params_required=m.params_required,
        args=args,
        result_type=m.result_type,
        page=_page(m, structs),
    )


def _sends(m: MethodIR, side: str) -> bool:
    return m.direction in (side, "both")


def _needs(calls: tuple[CallIR, ...], *, args: bool = True, pages: bool = False) -> frozenset[Need]:
    """The names the signatures and bodies of ``calls`` use (handlers: no ``args``)."""
    refs: list[TypeRef] = [Named(n) for c in calls for n in (c.params_type, c.result_type) if n]
    if args:
        refs += [a.type for c in calls for a in c.args]
    if pages:
        refs += [c.page.item for c in calls if c.page]
    unset: frozenset[Need] = frozenset({("msgspec", "UNSET")})
    if args and any(a.default == "unset" for c in calls for a in c.args):
        return needs_of(refs) | unset
    return needs_of(refs)


def _specs(*groups: tuple[CallIR, ...], extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What a module imports from ``methods``: the table, ``extra`` and the specs its calls send."""
    names = {"FACTS", "METHODS", "SUPPORTS_BATCH", *extra} | {c.spec for g in groups for c in g}
    return tuple(sorted(names))


def _with_tasks(
    calls: tuple[CallIR, ...], tasks: tuple[TaskIR, ...], structs: dict[str, StructIR]
) -> tuple[CallIR, ...]:
    """``calls``, each task-capable request followed by its calls as a task and for its result."""
    by_method = {t.method: t for t in tasks}
    out: list[CallIR] = []
    for call in calls:
        out.append(call)
        task = by_method.get(call.method)
        if task is not None:
            payload = structs.get(task.payload.params_type or "")
            out += task_calls(call, task, payload.fields if payload is not None else ())
    return tuple(out)


def build_api(
    methods: tuple[MethodIR, ...], structs: tuple[StructIR, ...], tasks: tuple[TaskIR, ...] = ()
) -> ApiIR:
    """Decide the generated API of a revision from its method table, types and task variants."""
    by_name = {s.name: s for s in structs}
    requests = [m for m in methods if m.kind == "request" and m.method not in RUNTIME_REQUESTS]
    notes = [
        m for m in methods if m.kind == "notification" and m.method not in RUNTIME_NOTIFICATIONS
    ]
    client_calls = _with_tasks(
        tuple(_call(m, by_name) for m in requests if _sends(m, "client")), tasks, by_name
    )
    client_handlers = tuple(_call(m, by_name, "on_") for m in requests if _sends(m, "server"))
    client_notifies = tuple(_call(m, by_name, "notify_") for m in notes if _sends(m, "client"))
    server_handlers = tuple(_call(m, by_name) for m in requests if _sends(m, "client"))
    server_calls = _with_tasks(
        tuple(_call(m, by_name) for m in requests if _sends(m, "server")), tasks, by_name
    )
    server_notifies = tuple(_call(m, by_name, "notify_") for m in notes if _sends(m, "server"))
    has_pages = any(c.page for c in client_calls)
    opening = {m.method: m.result_type for m in methods if m.result_type}
    connect_result = opening.get("initialize") or opening.get("server/discover") or "Result"
    # What a progress callback takes; a schema without progress never calls one.
    progress_params = {m.method: m.params_type for m in methods}.get("notifications/progress")
    client_imports = module_imports(
        _needs(client_calls, pages=True)
        | _needs(client_handlers, args=False)
        | _needs(client_notifies),
        typing=("ClassVar",),
        # The iterators of paginated calls use UNSET and UnsetType themselves.
        msgspec=("UNSET", "UnsetType") * has_pages,
        types=(connect_result, *filter(None, [progress_params])),
        specs=_specs(client_calls, client_notifies, extra=("TASKS",) * bool(tasks)),
    )
    server_imports = module_imports(
        _needs(server_handlers, args=False) | _needs(server_calls) | _needs(server_notifies),
        typing=("ClassVar",),
        types=("Tool", "CallToolResult", "TextContent"),
        specs=_specs(server_calls, server_notifies, extra=("TASKS",) * bool(tasks)),
    )
    tool = by_name.get("Tool")
    return ApiIR(
        client_calls=client_calls,
        client_handlers=client_handlers,
        client_notifies=client_notifies,
        server_handlers=server_handlers,
        server_calls=server_calls,
        server_notifies=server_notifies,
        client_imports=client_imports,
        server_imports=server_imports,
        routes_client=tuple((c.method, c.name) for c in client_handlers),
        routes_server=tuple((c.method, c.name) for c in server_handlers),
        has_output_schema=tool is not None
        and any(f.wire_name == "outputSchema" for f in tool.fields),
        connect_result=connect_result,
        progress_params=progress_params or "object",
    )


__all__ = ["ApiIR", "CallIR", "ImportsIR", "build_api"]
