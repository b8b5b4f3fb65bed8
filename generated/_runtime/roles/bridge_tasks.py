# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Capabilities and tasks across the bridge: what the upstream declared, and the
task-augmented requests (2025-11-25 ``task``) that are forwarded as tasks or refused by name.

A request with ``task`` reaching the bridge's own server goes upstream as its ``TASKS`` row
when the upstream declared ``tasks.requests`` for it (``Bridge._as_task``); through an adapter
(a client of another revision) the conversion would lose the task, so ``refuse_tasks`` makes
the adapter refuse it first. The bridge's upstream clients run none of the upstream's tasks
(``task_method``: their handlers are not set, so they declare no ``tasks``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import msgspec

from ..core.errors import METHOD_NOT_FOUND, MCPError
from ..core.methods import MethodSpec
from ..core.wire import as_object
from .dispatch import Handler
from .server import ServerBase, ServerContext

__all__ = ["declared", "refuse_tasks", "task_method", "task_of", "task_refused"]


def declared(capabilities: Mapping[str, Any], capability: str | None) -> bool:
    """Whether the upstream declared ``capability``: each part of its dotted path present,
    as ``true`` (``resources.subscribe``) or an object (``tasks.requests.tools.call``)."""
    if capability is None:
        return True
    value: Any = capabilities
    for part in capability.split("."):
        if not isinstance(value, Mapping):
            return False
        value = cast(Mapping[str, Any], value).get(part)
        if value is None or value is False:
            return False
    return True


def task_of(params: Any) -> Any:
    """The ``task`` a request's params ask for (None: none)."""
    if isinstance(params, msgspec.Struct) and "task" in params.__struct_fields__:
        task = getattr(params, "task")  # noqa: B009 (a field of some params Structs)
        return None if task is msgspec.UNSET else task
    found = as_object(params)
    return None if found is None else found.get("task")


def task_refused(method: str, who: str) -> MCPError:
    """The error for a task-augmented request that cannot be forwarded as a task."""
    return MCPError(
        METHOD_NOT_FOUND, f"{method} as a task: {who} does not run it as one through the bridge"
    )


def refuse_tasks(adapter: ServerBase, upstream: str) -> None:
    """Make ``adapter`` refuse task-augmented requests: across revisions the task would be
    lost in the conversion, so it is refused by name instead."""
    for method in adapter.TASKS:
        attr = adapter.ROUTES.get(method)
        handler = None if attr is None else adapter.__dict__.get(attr)
        if attr is None or handler is None:
            continue

        def refusing(inner: Handler, method: str = method) -> Handler:
            async def handle(params: Any, ctx: ServerContext) -> Any:
                if task_of(params) is not None:
                    version = adapter.PROTOCOL_VERSION
                    raise task_refused(method, f"a {version} client to a {upstream} server")
                return await inner(params, ctx)

            return handle

        setattr(adapter, attr, refusing(handler))


def task_method(spec: MethodSpec[Any, Any]) -> bool:
    """Whether ``spec`` is one of the requestor's side of tasks (``tasks/*`` on a receiver):
    the bridge's clients run no tasks of the upstream's, so declare none."""
    return (spec.capability or "").startswith("tasks") or spec.method.startswith("tasks/")
