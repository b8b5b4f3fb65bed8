"""Tasks (2025-11-25 on), the sans-I/O part: task variants of table rows and the status rules.

A request that may run as a task has two answers: its own result, or ``CreateTaskResult`` when
the requestor augmented it with ``task``. The generated table keeps the first in ``METHODS``
and states the second as a ``TaskSpec``: the same wire method, its own result type and gate
(the receiver's ``tasks.requests...`` capability). ``tasks/result`` gets one ``TaskSpec`` per
task-capable request, answered with that request's result type. The session and the
connection keep a ``TaskSpec`` they are given instead of the table's row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from .methods import MethodSpec, VariantSpec

P = TypeVar("P")
R = TypeVar("R")

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: Final[frozenset[str]] = frozenset({"completed", "failed", "cancelled"})
"""Statuses a task never leaves."""
MOVES: Final[dict[str, frozenset[str]]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}
"""The spec's status transitions: status -> the statuses it may move to."""
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key that ties a message to its task."""
TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})
"""The methods a task receiver answers from its task store."""
EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 tasks extension (SEP-2663), as declared under ``capabilities.extensions``."""
EXTENSION_METHODS: Final = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
"""The extension's requests (not in the revision's schema)."""
STATUS_NOTIFICATION: Final = "notifications/tasks"
"""The extension's status notification (on listen streams naming the task)."""


@dataclass(frozen=True, slots=True)
class TaskSpec(VariantSpec[P, R]):
    """A task variant of a table row: the same wire method with its own result type and gate."""


def variant(row: MethodSpec[P, R], given: MethodSpec[Any, Any] | str) -> MethodSpec[P, R]:
    """The spec to send with: ``given`` when it is a variant of ``row``, else ``row``."""
    if isinstance(given, VariantSpec) and given.method == row.method and given.kind == row.kind:
        return given
    return row


def may_move(old: str, new: str) -> bool:
    """Whether a task may go from status ``old`` to ``new`` (the spec's lifecycle)."""
    return new in MOVES.get(old, frozenset())


def related(task_id: str) -> dict[str, dict[str, str]]:
    """The ``_meta`` entry that ties a message to task ``task_id``."""
    return {RELATED_TASK: {"taskId": task_id}}
