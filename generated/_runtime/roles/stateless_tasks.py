# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The tasks extension without a handshake (``io.modelcontextprotocol/tasks``, SEP-2663).

The server decides: a ``tools/call`` for a task-supporting tool, from a client that declared the
extension in this request's ``_meta`` capabilities, is answered with a flat ``CreateTaskResult``
(``resultType: "task"``, the task's fields at the top level) once the task is in the store,
and the unchanged handler goes on in the background. A ``required`` tool called without the
extension is refused with -32021 naming the extension. ``tasks/get`` returns the task with its
outcome inlined (``result``, or ``error`` for a JSON-RPC error; a tool result with
``isError`` is ``completed``) and, while it waits for input, its ``inputRequests``;
``tasks/update`` delivers ``inputResponses``; ``tasks/cancel`` acknowledges with an empty
result. All three need the extension in the request's capabilities (-32021) and refuse an
unknown task id (-32602); ``tasks/result`` and ``tasks/list`` do not exist (-32601).

What is not wire lives in ``taskwork.py`` and ``taskstore.py``, shared with 2025-11-25: this
module only maps the extension's messages onto them. A task is bound to the identity that
created it (the OAuth principal of the request; without authorization every caller is the same
anonymous requestor and the unguessable task id is the only key).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal, Protocol

import msgspec

from ..core.codec import convert
from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError
from ..core.events import Request
from ..core.tasks import EXTENSION, EXTENSION_METHODS, TERMINAL
from ..core.wire import as_object, meta_of
from .connection import RequestContext, RequestFacts, client_capabilities
from .dispatch import Handler
from .mrtr import INPUT_CAPABILITY, InvalidInputResponse, MissingClientCapability, params_json
from .taskstore import SharedTaskStore, TaskRecord
from .taskwork import TaskWork

MAX_INPUT_REQUESTS: Final = 1024
"""Most input requests one task may issue over its lifetime (keys are never reused)."""

Plan = Literal["sync", "task", "handler"]
"""How a call runs: synchronously, as a task from the start, or as a task once its handler
calls ``begin_task`` (after the MRTR rounds it needs)."""
Call = Callable[[], Awaitable[Any]]
Publish = Callable[[TaskRecord, dict[str, Any]], Awaitable[None]]
"""Sends a task's new state (``notifications/tasks`` params) to those listening for it."""


class ExtensionTasks(Protocol):
    """What answers a stateless server's tasks extension: its own tasks (``StatelessTasks``)
    or, in a bridge, those of the server it forwards to (``bridge_tasks.ForwardedTasks``)."""

    methods: frozenset[str]
    """The extension's requests it answers."""

    def plan(self, method: str, tool: object, params: object) -> Plan:
        """How a call of ``tool`` runs."""
        ...

    async def run(
        self, plan: Plan, method: str, call: Call, facts: RequestFacts
    ) -> tuple[dict[str, Any] | None, Any]:
        """Run a call that may become a task."""
        ...

    async def owned(self, task_ids: list[str]) -> list[str]:
        """The ids among ``task_ids`` the requestor may listen to."""
        ...

    async def answer(
        self, method: str, params: Mapping[str, Any], capabilities: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Answer ``tasks/get``, ``tasks/update`` or ``tasks/cancel``."""
        ...


def missing_extension() -> MissingClientCapability:
    """The -32021 error naming the extension under ``requiredCapabilities.extensions``."""
    return MissingClientCapability(EXTENSION, {"extensions": {EXTENSION: {}}})


def declares_extension(client_capabilities: Mapping[str, Any]) -> bool:
    """Whether the request's client capabilities include the tasks extension."""
    extensions = as_object(client_capabilities.get("extensions"))
    return extensions is not None and as_object(extensions.get(EXTENSION)) is not None


def requestor() -> str:
    """The identity a task is bound to: the request's OAuth principal, or the anonymous one.

    The principal module is imported here, not at the top: a package that does not use
    authorization loads nothing of ``_runtime.auth``."""
    from ..auth.principal import current_principal

    principal = current_principal()
    if principal is None:
        return ""
    return "\x00".join((principal.issuer or "", principal.subject or "", principal.client_id or ""))


class TaskInput:
    """The input requests of one running task (``inputRequests``) and their answers.

    A handler's ``ask`` adds a request under a key never used before in this task and holds the
    task in ``input_required`` until every pending request is answered by ``tasks/update``.
    """

    def __init__(
        self,
        work: TaskWork,
        record: TaskRecord,
        client_capabilities: Mapping[str, Any],
        result_types: Mapping[str, Any],
    ) -> None:
        self.work = work
        self.record = record
        self.client_capabilities = client_capabilities
        self.result_types = result_types
        self.pending: dict[str, dict[str, Any]] = {}
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._issued: set[str] = set()

    def _fresh(self, key: str) -> str:
        if len(self._issued) >= MAX_INPUT_REQUESTS:
            raise MCPError(INTERNAL_ERROR, f"a task may issue at most {MAX_INPUT_REQUESTS} inputs")
        fresh, n = key, 1
        while fresh in self._issued:
            n += 1
            fresh = f"{key}-{n}"
        self._issued.add(fresh)
        return fresh

    async def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """Ask the client through the task and return the typed answer once it is delivered."""
        capability = INPUT_CAPABILITY.get(method)
        if capability is None:
            raise ValueError(f"{method} is not a request a server may put in inputRequests")
        if not isinstance(self.client_capabilities.get(capability), Mapping):
            raise MissingClientCapability(capability)
        key = self._fresh(key or f"{capability}-{len(self._issued) + 1}")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[key] = {"method": method, "params": params_json(params)}
        self._waiting[key] = future
        self.record.input_requests = dict(self.pending)
        try:
            if self.record.status == "working":
                await self.work.move(self.record, "input_required")
            elif self.record.status == "input_required":
                await self.work.save(self.record)  # one more request shown while it waits
            raw = await future
        finally:
            self.pending.pop(key, None)
            self._waiting.pop(key, None)
            self.record.input_requests = dict(self.pending) or None
        return convert(raw, self.result_types[method])

    async def answer(self, responses: Mapping[str, Any]) -> None:
        """Deliver the answers to pending requests (others are ignored, as the extension says);
        an answer that is not a valid result of its request refuses the whole update."""
        given = checked(self.pending, responses, self.result_types)
        if not given:
            return
        for key, raw in given.items():
            del self.pending[key]
            future = self._waiting.get(key)
            if future is not None and not future.done():
                future.set_result(raw)
        self.record.input_requests = dict(self.pending) or None
        if not self.pending and self.record.status == "input_required":
            await self.work.move(self.record, "working")
        else:
            await self.work.save(self.record)


def checked(
    requests: Mapping[str, Any], responses: Mapping[str, Any], result_types: Mapping[str, Any]
) -> dict[str, Any]:
    """The responses to the pending ``requests`` (others are ignored, as the extension says);
    one that is not a valid result of its request raises ``InvalidInputResponse``."""
    given: dict[str, Any] = {}
    for key, raw in responses.items():
        asked = as_object(requests.get(key))
        method = None if asked is None else asked.get("method")
        result_type = result_types.get(method) if isinstance(method, str) else None
        if result_type is None:
            continue
        try:
            convert(raw, result_type)
        except (msgspec.ValidationError, TypeError) as exc:
            raise InvalidInputResponse(f"inputResponses[{key!r}]: {exc}") from None
        given[key] = raw
    return given


class StatelessTasks:
    """The tasks extension of one stateless server: its plan per call, and ``tasks/*``."""

    def __init__(self, support: Any, result_types: Mapping[str, Any], publish: Publish) -> None:
        self.support = support
        self.result_types = result_types
        self.publish = publish
        announce = self._announce if support.notify else None
        self.work = TaskWork(support.store, announce, error_result="completed")
        self.inputs: dict[str, TaskInput] = {}
        self.methods = EXTENSION_METHODS if support.cancel else EXTENSION_METHODS - {"tasks/cancel"}
        self._settling: set[asyncio.Task[None]] = set()
        self.task_tools = _task_tools(support)
        """The tools whose calls may be tasks (None: any tool), read once from ``support``:
        a call of another is planned ``sync`` without a look at its ``_meta``."""

    def plan(self, method: str, tool: object, params: object) -> Plan:
        """How a call of ``tool`` runs (its ``_meta`` is read from ``params`` only for a tool
        that may be a task); raises -32021 for a ``required`` tool without the extension."""
        if method != "tools/call" or (
            self.support.methods is not None and method not in self.support.methods
        ):
            return "sync"
        name = str(tool)
        tools = self.support.tools
        mode = "optional" if tools is None else tools.get(name, "forbidden")
        if mode == "forbidden":
            return "sync"
        if not declares_extension(client_capabilities(meta_of(params))):
            if mode == "required":
                raise missing_extension()
            return "sync"
        return "handler" if name in self.support.begins_in_handler else "task"

    async def run(
        self, plan: Plan, method: str, call: Call, facts: RequestFacts
    ) -> tuple[dict[str, Any] | None, Any]:
        """Run a call that may become a task: ``(CreateTaskResult, None)`` once its task began
        (the handler goes on in the background), else ``(None, result)``; errors propagate."""
        begun: asyncio.Future[tuple[TaskRecord, dict[str, Any]]]
        begun = asyncio.get_running_loop().create_future()

        async def begin() -> None:
            if begun.done():
                return
            record = await self.support.store.create(requestor(), method, None)
            caps = facts.client_capabilities
            facts.asker = self.inputs[record.task_id] = TaskInput(
                self.work, record, caps, self.result_types
            )
            facts.streaming = False  # the request is answered: nothing more on its stream
            begun.set_result((record, {"resultType": "task", **self.detailed(record)}))

        async def body() -> Any:
            if plan == "task":
                await begin()
            return await call()

        facts.begin_task = begin
        runner = asyncio.get_running_loop().create_task(body())
        try:
            await asyncio.wait({runner, begun}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if not begun.done():
                runner.cancel()
            raise
        if not begun.done():
            return None, runner.result()
        record, created = begun.result()
        # tasks/cancel cancels the handler itself; tasks/update answered elsewhere reaches it
        self.work.track(record, runner, self.inputs[record.task_id].answer)
        settler = asyncio.get_running_loop().create_task(self._settle(record, runner))
        self._settling.add(settler)
        settler.add_done_callback(self._settling.discard)
        return created, None

    async def _settle(self, record: TaskRecord, runner: asyncio.Task[Any]) -> None:
        """Record the outcome of a call that became a task, then forget its inputs."""
        try:
            await self.work.settle(record, runner)
        finally:
            self.inputs.pop(record.task_id, None)

    def detailed(self, record: TaskRecord) -> dict[str, Any]:
        """The task as ``tasks/get`` and ``notifications/tasks`` show it (``DetailedTask``)."""
        out = record.wire(ttl="ttlMs", poll_interval="pollIntervalMs")
        if record.status == "input_required" and record.input_requests is not None:
            out["inputRequests"] = dict(record.input_requests)
        if record.status == "completed" and record.result is not None:
            out["result"] = record.result
        if record.status == "failed" and record.error is not None:
            error: dict[str, Any] = {"code": record.error.code, "message": record.error.message}
            if record.error.data is not None:
                error["data"] = record.error.data
            out["error"] = error
        return out

    async def _announce(self, record: TaskRecord) -> None:
        await self.publish(record, self.detailed(record))

    async def owned(self, task_ids: list[str]) -> list[str]:
        """The ids among ``task_ids`` of tasks the current requestor may see."""
        owner = requestor()
        return [i for i in task_ids if await self.support.store.get(owner, i) is not None]

    async def answer(
        self, method: str, params: Mapping[str, Any], capabilities: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Answer ``tasks/get``, ``tasks/update`` or ``tasks/cancel`` for the requestor."""
        if not declares_extension(capabilities):
            raise missing_extension()
        task_id = params.get("taskId")
        record = (
            await self.support.store.get(requestor(), task_id) if isinstance(task_id, str) else None
        )
        if record is None:
            raise MCPError(INVALID_PARAMS, f"Failed to {method[6:]} task: Task not found")
        if method == "tasks/get":
            return {"resultType": "complete", **self.detailed(record)}
        if method == "tasks/update":
            responses = as_object(params.get("inputResponses"))
            if responses is None:
                raise MCPError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
            if record.status not in TERMINAL:
                try:
                    await self._update(record, responses)
                except InvalidInputResponse as exc:
                    raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        elif record.status not in TERMINAL:
            await self.work.cancel(record, "The task was cancelled by request.")
        return {"resultType": "complete"}

    async def _update(self, record: TaskRecord, responses: Mapping[str, Any]) -> None:
        """Deliver input to the task's handler: here when it runs here, else (a store shared
        by workers) checked against the requests the task stored and handed to its worker."""
        inputs = self.inputs.get(record.task_id)
        if inputs is not None:
            await inputs.answer(responses)
            return
        store = self.support.store
        given = checked(record.input_requests or {}, responses, self.result_types)
        if given and isinstance(store, SharedTaskStore):
            await store.deliver(record, given)


def _task_tools(support: Any) -> frozenset[str] | None:
    """The tools whose calls ``StatelessTasks.plan`` may make tasks (``task_tools``)."""
    if support.methods is not None and "tools/call" not in support.methods:
        return frozenset()
    tools: Mapping[str, str] | None = support.tools
    if tools is None:
        return None
    return frozenset(name for name, mode in tools.items() if mode != "forbidden")


class TaskStarter:
    """The tasks extension's hook in ``dispatch.py`` for one connection: a call that may
    become a task runs through ``StatelessTasks.run`` (as ``TaskRunner`` does with a handshake)."""

    def __init__(self, tasks: ExtensionTasks, context: Callable[[Request], RequestContext]) -> None:
        self.tasks = tasks
        self.context = context
        self._task_tools: frozenset[str] | None = getattr(tasks, "task_tools", None)
        """The tools whose calls may be tasks, when the tasks say so once; None: every call
        is planned (``ExtensionTasks.plan``)."""

    def starts(self, method: str) -> bool:
        """Whether a request of ``method`` may become a task: ``tools/call`` only."""
        return method == "tools/call"

    def maybe_start(self, request: Request, handler: Handler) -> Awaitable[Any] | None:
        """None: run it as usual; else the ``CreateTaskResult`` (or the result, if no task
        began), awaited. Asked only for a ``tools/call`` (``starts``). The plan is made without
        waiting; a tool that is never a task (``task_tools``, worked out once) is told apart
        by one lookup."""
        params: Any = request.params  # a dict or typed params: read without a cast call
        kind = params.__class__
        tool: object = params.get("name") if kind is dict else getattr(params, "name", None)
        may_be = self._task_tools
        if may_be is not None and type(tool) is str and tool not in may_be:
            return None
        plan = self.tasks.plan(request.method, tool, params)
        if plan == "sync":
            return None  # the context is made once, by dispatch
        return self._run(plan, request, handler)

    async def _run(self, plan: Plan, request: Request, handler: Handler) -> Any:
        context = self.context(request)
        facts = context.facts
        assert facts is not None
        call: Call = lambda: handler(request.params, context)  # noqa: E731
        created, result = await self.tasks.run(plan, request.method, call, facts)
        return created if created is not None else result

    async def close(self) -> None:
        """Nothing to stop: the tasks belong to the server, not to one connection."""


async def begin_task(ctx: RequestContext) -> None:
    """Make the rest of this ``tools/call`` a task (tasks extension, stateless era): the client
    gets ``CreateTaskResult`` now and the handler goes on in the background. For a tool named in
    ``TaskSupport.begins_in_handler``, after the MRTR rounds it needs; a no-op elsewhere."""
    facts = ctx.facts
    if facts is not None and facts.begin_task is not None:
        await facts.begin_task()
