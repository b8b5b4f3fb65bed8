"""Decide which requests may run as tasks, and their task variants (2025-11-25 on).

The schema says it in two places: a request whose params carry ``task: TaskMetadata`` (every
member, for params that are a union) may be task-augmented, and the receiver's capabilities
hold ``tasks.requests.<method with dots>`` for it. Such a request is answered either with its
own result or, when augmented, with ``CreateTaskResult``; its own result then comes from
``tasks/result``. Each becomes a ``TaskIR`` with two extra table rows, so a typed call names
what it gets back (no cast, no union for the caller to narrow).
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import Level, Problem
from ..loader.model import Node, SchemaDocument
from .ir import CallIR, FieldIR, MethodIR, TaskIR
from .names import class_name
from .typeref import Optional

TASK_METADATA = "TaskMetadata"
CREATE_TASK_RESULT = "CreateTaskResult"
TASKS_RESULT = "tasks/result"
AS_TASK = "_as_task"
"""Suffix of the constant and the call that send a request as a task."""
TASK_RESULT = "_task_result"
"""Suffix of the constant and the call that fetch a task's result, typed as the request's."""


def _takes_task(doc: SchemaDocument, node: Node) -> bool:
    """Whether params (an object, or a union of objects) all carry ``task: TaskMetadata``."""
    defs = doc.definition_map()
    if node.ref is not None:
        return _takes_task(doc, defs[doc.ref_name(node.ref)])
    if node.any_of:
        return all(_takes_task(doc, member) for member in node.any_of)
    task = node.property_map().get("task")
    return task is not None and task.ref is not None and doc.ref_name(task.ref) == TASK_METADATA


def task_capability(method: str) -> str:
    """The receiver's capability allowing ``method`` as a task (``tasks.requests.tools.call``)."""
    return "tasks.requests." + method.replace("/", ".")


def _has_path(defs: dict[str, Node], holder: str, path: str) -> bool:
    node = defs.get(holder)
    for part in path.split("."):
        node = node.property_map().get(part) if node is not None else None
    return node is not None


def build_tasks(
    doc: SchemaDocument, methods: tuple[MethodIR, ...]
) -> tuple[tuple[TaskIR, ...], tuple[Problem, ...]]:
    """The task variants of every request the schema lets run as a task."""
    defs = doc.definition_map()
    rows = {m.method: m for m in methods}
    payload = rows.get(TASKS_RESULT)
    if CREATE_TASK_RESULT not in defs or payload is None:
        return (), ()
    by_class = {class_name(name): name for name in defs}
    found: list[TaskIR] = []
    problems: list[Problem] = []
    for m in methods:
        message = defs.get(by_class.get(m.message_type, ""))
        params = message.property_map().get("params") if message is not None else None
        if m.kind != "request" or params is None or not _takes_task(doc, params):
            continue
        capability = task_capability(m.method)
        holder = "ServerCapabilities" if m.direction == "client" else "ClientCapabilities"
        if not _has_path(defs, holder, capability):
            problems.append(
                Problem(Level.ERROR, m.message_type, f"no capability {capability!r} in {holder}")
            )
            continue
        as_task = replace(
            m,
            constant=m.constant + AS_TASK.upper(),
            result_type=CREATE_TASK_RESULT,
            paginated=False,
            capability=capability,
            capability_owner="receiver",
        )
        result = replace(
            payload,
            constant=m.constant + TASK_RESULT.upper(),
            direction=m.direction,
            result_type=m.result_type,
        )
        found.append(TaskIR(m.method, capability, as_task, result))
    return tuple(found), tuple(problems)


def _required(f: FieldIR) -> FieldIR:
    """The field as a required argument: no default, and not ``UnsetType``."""
    return replace(
        f, default="required", type=f.type.inner if isinstance(f.type, Optional) else f.type
    )


def task_calls(base: CallIR, task: TaskIR, payload_args: tuple[FieldIR, ...]) -> list[CallIR]:
    """The two calls a task-capable request adds next to ``base``: as a task, and its result.

    The ``task`` argument of the call as a task has no default: sending one is the point.
    """
    args = tuple(_required(a) if a.wire_name == "task" else a for a in base.args)
    as_task = replace(
        base,
        name=base.name + AS_TASK,
        doc=f"{base.doc}, as a task: answers ``CreateTaskResult`` at once",
        spec=task.as_task.constant,
        args=args,
        result_type=CREATE_TASK_RESULT,
        page=None,
    )
    result = CallIR(
        method=TASKS_RESULT,
        name=base.name + TASK_RESULT,
        doc=f"The result of a ``{task.method}`` task, waiting until the task is done",
        spec=task.payload.constant,
        params_type=task.payload.params_type,
        params_required=True,
        args=payload_args,
        result_type=base.result_type,
        page=None,
    )
    return [as_task, result]
