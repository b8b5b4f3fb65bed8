"""Tasks (2025-11-25 on), the asyncio part: running a handler as a task, and polling one.

A receiver opts in with ``TaskSupport`` (a store, the requests it accepts as tasks, whether
it answers ``tasks/list`` and ``tasks/cancel``): its capabilities then say so, and a request
that carries ``task`` for one of those methods is answered at once with ``CreateTaskResult``
while its handler runs in the background, unchanged and typed as usual. ``tasks/get``,
``tasks/result`` (which waits for a terminal status), ``tasks/list`` and ``tasks/cancel`` are
answered from the store; each status change is sent as ``notifications/tasks/status``.
Without the capability, ``task`` is ignored and the request is handled normally (the spec).

Tasks are bound to the connection that created them: another requestor cannot see them,
and their handlers stop when it closes. The request's progress token stays valid while the
task runs.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

import msgspec

from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, MCPError
from ..core.events import Request
from ..core.lifecycle import as_json, has_capability
from ..core.methods import MethodSpec
from ..core.tasks import RELATED_TASK, TERMINAL, related
from .connection import Connection
from .dispatch import Handler
from .peer import CURRENT_REQUEST
from .taskstore import InMemoryTaskStore, TaskRecord, TaskStore
from .taskwork import TaskWork

R = TypeVar("R")
TaskMode = Literal["required", "optional", "forbidden"]
"""A tool's ``execution.taskSupport``."""
STATUS = "notifications/tasks/status"
IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"


@dataclass
class TaskSupport:
    """What a receiver accepts as tasks: a ``Server``'s or a ``Client``'s ``task_support``.

    ``methods``: the requests that may run as tasks (a server: ``tools/call``; a client:
    ``sampling/createMessage``, ``elicitation/create``; the revision's ``TASKS`` says which).
    ``tools``: each tool's ``execution.taskSupport``; when given, a task for a tool that is
    absent or ``forbidden``, or a plain call of a ``required`` one, is refused with -32601
    (the spec's tool-level negotiation); when None, every tool may run either way.
    """

    store: TaskStore = field(default_factory=InMemoryTaskStore)
    methods: Collection[str] | None = None
    """The requests accepted as tasks; None: every one the peer may send as a task."""
    tools: Mapping[str, TaskMode] | None = None
    list: bool = True
    cancel: bool = True
    notify: bool = True
    """Whether to send ``notifications/tasks/status`` on each status change."""
    immediate_response: str | None = None
    """A tool result for the model while a ``tools/call`` task runs (spec: provisional)."""
    begins_in_handler: Collection[str] = ()
    """2026-07-28 extension: tools whose handler makes the call a task itself, with
    ``begin_task(ctx)`` after its MRTR rounds; other task tools are tasks from the start."""


def task_capabilities(
    support: TaskSupport | None, variants: Mapping[str, MethodSpec[Any, Any]]
) -> dict[str, Any]:
    """The ``tasks`` capability that ``support`` declares (empty without it)."""
    if support is None or not variants:
        return {}
    caps: dict[str, Any] = {}
    if support.list:
        caps["list"] = {}
    if support.cancel:
        caps["cancel"] = {}
    requests: dict[str, Any] = {}
    for method in accepted(support, variants):
        spec = variants.get(method)
        if spec is None or spec.capability is None:
            raise ValueError(f"{method!r} cannot run as a task in this revision")
        *path, last = spec.capability.split(".")[2:]
        node = requests
        for part in path:
            node = node.setdefault(part, {})
        node[last] = {}
    caps["requests"] = requests
    return {"tasks": caps}


class TaskHandle:
    """A running task as its handler's context sees it: what it sends names the task.

    A request the handler sends (an elicitation, a sampling call) carries the task in
    ``_meta`` and holds the task in ``input_required`` until it is answered (the spec).
    """

    def __init__(self, runner: TaskRunner, record: TaskRecord) -> None:
        self.runner = runner
        self.record = record

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self.record.task_id

    def tag(self, params: Any) -> Any:
        """``params`` with ``_meta`` naming this task (``io.modelcontextprotocol/related-task``)."""
        value = as_json(params)
        value["_meta"] = {**as_json(value.get("_meta")), **related(self.record.task_id)}
        return value

    async def progress(
        self,
        spec: MethodSpec[Any, None],
        token: str | int,
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        """Report progress of the task: its request's token stays valid while it runs."""
        if self.record.terminal:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.runner.conn.notify(spec, self.tag(params), related=False)

    async def request(self, method: MethodSpec[Any, R], params: object, timeout: float | None) -> R:
        """Send a request for the task, ``input_required`` until it is answered."""
        record = self.record
        waiting = record.status == "working"
        if waiting:
            await self.runner.move(record, "input_required")
        try:
            result: R = await self.runner.conn.request(method, self.tag(params), timeout=timeout)
            return result
        finally:
            if waiting and record.status == "input_required":
                await self.runner.move(record, "working")


def receivable(
    variants: Mapping[str, MethodSpec[Any, Any]], sender: Literal["client", "server"]
) -> dict[str, MethodSpec[Any, Any]]:
    """The task variants of the requests ``sender`` (our peer) may send."""
    return {m: s for m, s in variants.items() if s.direction in (sender, "both")}


def accepted(support: TaskSupport, variants: Mapping[str, MethodSpec[Any, Any]]) -> list[str]:
    """The methods ``support`` accepts as tasks (all of ``variants`` unless it names some)."""
    return sorted(variants) if support.methods is None else list(support.methods)


class TaskRunner:
    """Runs one connection's task-augmented requests and answers its ``tasks/*`` requests."""

    def __init__(
        self, conn: Connection, support: TaskSupport, variants: Mapping[str, MethodSpec[Any, Any]]
    ) -> None:
        self.conn = conn
        self.support = support
        self.variants = variants
        self._accepted = frozenset(accepted(support, variants))
        self.owner = uuid.uuid4().hex
        self.work = TaskWork(support.store, self._announce if support.notify else None)

    async def close(self) -> None:
        """Stop the handlers still running: their requestor's connection is gone.

        Their tasks become ``cancelled``, so that they no longer hold a place in the store.
        """
        await self.work.close("The requestor's connection closed.")

    def install(self) -> None:
        """Answer ``tasks/*`` on the connection (unless the owner overrides them)."""
        fallbacks = self.conn.fallbacks
        fallbacks["tasks/get"] = self.get
        fallbacks["tasks/result"] = self.result
        if self.support.list:
            fallbacks["tasks/list"] = self.list
        if self.support.cancel:
            fallbacks["tasks/cancel"] = self.cancel

    # -- task-augmented requests ------------------------------------------------------------

    def _accepts(self, method: str) -> bool:
        spec = self.variants.get(method)
        return (
            spec is not None
            and spec.capability is not None
            and method in self._accepted
            and has_capability(self.conn.our_capabilities, spec.capability)
        )

    def starts(self, method: str) -> bool:
        """Whether a request of ``method`` may run as a task here (the capability we declared)."""
        return self._accepts(method)

    def maybe_start(self, request: Request, handler: Handler) -> Awaitable[dict[str, Any]] | None:
        """None if ``request`` runs normally; else its start as a task (awaited: the
        ``CreateTaskResult``), when it asks to be one and may. Decided without waiting."""
        if not self._accepts(request.method):
            return None
        task = _member(request.params, "task")
        self._check_tool(request.method, _member(request.params, "name"), task is not None)
        if task is None:
            return None
        return self._start(request, handler, task)

    async def _start(self, request: Request, handler: Handler, task: object) -> dict[str, Any]:
        """Create the task of ``request`` and run its handler in the background."""
        ttl = as_json(task).get("ttl")
        record = await self.support.store.create(
            self.owner, request.method, ttl if isinstance(ttl, int) else None
        )
        # The handler outlives the request: no tie to the request's stream from now on.
        context = self.conn.context(request)
        context.task = TaskHandle(self, record)
        token = CURRENT_REQUEST.set(None)
        try:
            runner = asyncio.get_running_loop().create_task(
                self.work.settle(record, handler(request.params, context))
            )
        finally:
            CURRENT_REQUEST.reset(token)
        self.work.track(record, runner)
        created: dict[str, Any] = {"task": record.wire()}
        if self.support.immediate_response is not None and request.method == "tools/call":
            created["_meta"] = {IMMEDIATE_RESPONSE: self.support.immediate_response}
        return created

    def _check_tool(self, method: str, name: object, as_task: bool) -> None:
        """The spec's tool-level negotiation (``execution.taskSupport``), when tools are known."""
        tools = self.support.tools
        if method != "tools/call" or tools is None:
            return
        mode = tools.get(str(name), "forbidden")
        if as_task and mode == "forbidden":
            raise MCPError(METHOD_NOT_FOUND, f"Tool {name!r} does not run as a task")
        if not as_task and mode == "required":
            raise MCPError(METHOD_NOT_FOUND, f"Tool {name!r} must be called as a task")

    async def move(self, record: TaskRecord, status: str, message: str | None = None) -> None:
        """Move a task to ``status`` (as the spec's lifecycle allows), save it, tell the peer."""
        await self.work.move(record, status, message)

    async def _announce(self, record: TaskRecord) -> None:
        spec = self.conn.methods.get(STATUS)
        if spec is not None and not self.conn.peer.closed:
            await self.conn.notify(spec, record.wire(), related=False)

    # -- tasks/* -------------------------------------------------------------------------------

    async def _record(self, request: Request, verb: str) -> TaskRecord:
        task_id = as_json(request.params).get("taskId") if request.params is not None else None
        record = (
            await self.support.store.get(self.owner, task_id) if isinstance(task_id, str) else None
        )
        if record is None:
            raise MCPError(INVALID_PARAMS, f"Failed to {verb} task: Task not found")
        return record

    async def get(self, request: Request) -> dict[str, Any]:
        """Answer ``tasks/get``: the task's current state."""
        return (await self._record(request, "retrieve")).wire()

    async def result(self, request: Request) -> dict[str, Any]:
        """Answer ``tasks/result``: wait for a terminal status, then what the request returned."""
        record = await self.support.store.wait(await self._record(request, "retrieve"))
        if record.error is not None:
            raise record.error
        if record.result is None:
            raise MCPError(INTERNAL_ERROR, f"Task {record.task_id} was {record.status}")
        meta = dict(record.result.get("_meta") or {})
        meta.update(related(record.task_id))
        return {**record.result, "_meta": meta}

    async def list(self, request: Request) -> dict[str, Any]:
        """Answer ``tasks/list``: one page of this requestor's tasks."""
        cursor = as_json(request.params).get("cursor") if request.params is not None else None
        page, after = await self.support.store.page(
            self.owner, cursor if isinstance(cursor, str) else None
        )
        out: dict[str, Any] = {"tasks": [r.wire() for r in page]}
        if after is not None:
            out["nextCursor"] = after
        return out

    async def cancel(self, request: Request) -> dict[str, Any]:
        """Answer ``tasks/cancel``: stop the handler; the task is ``cancelled`` from now on."""
        record = await self._record(request, "cancel")
        if record.status in TERMINAL:
            raise MCPError(
                INVALID_PARAMS, f"Cannot cancel task: already in terminal status {record.status!r}"
            )
        await self.work.cancel(record, "The task was cancelled by request.")
        return record.wire()


# -- the requestor's side -------------------------------------------------------------------


class TaskState(Protocol):
    """What ``poll_task`` reads of any revision's ``GetTaskResult``."""

    @property
    def status(self) -> str:
        """The task's status."""
        ...

    @property
    def poll_interval(self) -> int | msgspec.UnsetType:
        """The receiver's suggested polling interval (ms)."""
        ...


StateT = TypeVar("StateT", bound=TaskState)


async def poll_task(
    get: Callable[[str], Awaitable[StateT]], task_id: str, *, default_interval: float = 1.0
) -> AsyncIterator[StateT]:
    """Yield the task's state (``get``: e.g. ``lambda i: client.get_task(task_id=i)``), waiting
    ``pollInterval`` between polls, until it is terminal or needs input (``input_required``)."""
    while True:
        state = await get(task_id)
        yield state
        if state.status in TERMINAL or state.status == "input_required":
            return
        wait = state.poll_interval
        await asyncio.sleep(wait / 1000 if isinstance(wait, int) else default_interval)


def attach_tasks(
    conn: Connection, support: TaskSupport | None, variants: Mapping[str, MethodSpec[Any, Any]]
) -> TaskRunner | None:
    """Give ``conn`` a task runner when ``support`` is set and the revision has tasks."""
    if support is None or not variants:
        return None
    runner = TaskRunner(conn, support, variants)
    runner.install()
    return runner


__all__ = [
    "RELATED_TASK",
    "InMemoryTaskStore",
    "TaskHandle",
    "TaskRecord",
    "TaskRunner",
    "TaskStore",
    "TaskSupport",
    "accepted",
    "attach_tasks",
    "poll_task",
    "receivable",
    "task_capabilities",
]


def _member(params: object, name: str) -> object:
    """A member of decoded params (a JSON object, or a Struct whose attribute has the wire
    name, as ``task`` and ``name`` do), None when absent: read without converting the params."""
    if params is None:
        return None
    if type(params) is dict:
        return params.get(name)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    value: object = getattr(params, name, None)
    return None if value is msgspec.UNSET else value
