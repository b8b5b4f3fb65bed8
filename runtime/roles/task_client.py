"""The requestor's side of the 2026-07-28 tasks extension (``io.modelcontextprotocol/tasks``).

The extension's methods are not in the revision's schema, so they have no generated types:
a client without handshake knows them as runtime rows (``extension_rows``: ``tasks/get``,
``tasks/update``, ``tasks/cancel``, JSON object params and results, and the server's
``notifications/tasks``), and reads what matters into two small runtime Structs:
``CreatedTask``, the flat ``CreateTaskResult`` (``resultType: "task"``), and ``TaskState``,
what ``tasks/get`` answers and ``notifications/tasks`` carries (the task, and by status its
``result``, ``error`` or ``inputRequests``, left as JSON: the extension names no types).

A client opts in with ``tasks_extension = True``: every request's ``_meta`` client
capabilities then declare the extension, and the typed ``call_tool`` follows a task to its end
(``follow``): ``tasks/get`` every ``pollIntervalMs``, the ``inputRequests`` answered by the
client's own handlers through ``tasks/update``, the tool's typed result returned (a ``failed``
task raises its JSON-RPC error; cancelling the call sends ``tasks/cancel``). Without the
opt-in, ``call_tool_task`` declares the extension for that one call and returns the
``CreatedTask`` (or the result, when the server ran the call synchronously); ``get_task``,
``update_task``, ``cancel_task`` and ``listen(client, taskIds=[...])`` declare it for theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, Final, Literal, Protocol, Union, cast

import msgspec
from msgspec import UNSET, UnsetType

from ..core.base import MCPStruct
from ..core.codec import convert
from ..core.errors import INTERNAL_ERROR, MCPError
from ..core.meta import META_CAPABILITIES
from ..core.methods import MethodSpec, VariantSpec
from ..core.tasks import EXTENSION, EXTENSION_METHODS, STATUS_NOTIFICATION, TERMINAL
from ..core.wire import as_object
from .connection import DEFAULT, Default

__all__ = [
    "EXTENSION",
    "CreatedTask",
    "TaskState",
    "call_tool_task",
    "cancel_task",
    "get_task",
    "update_task",
]

CANCEL_TIMEOUT_S: Final = 5.0
"""How long a cancelled ``call_tool`` waits for its ``tasks/cancel`` to be acknowledged."""
DEFAULT_POLL_MS: Final = 1000
"""The polling interval when the server names none."""
MIN_POLL_MS: Final = 10
"""The shortest polling interval followed (a server naming 0 is not polled in a busy loop)."""
MAX_POLL_MS: Final = 60_000
"""The longest polling interval followed (a task is looked at least once a minute)."""


class _Task(MCPStruct, kw_only=True):
    """The fields of a task the extension's messages share."""

    task_id: str = msgspec.field(name="taskId")
    status: str
    status_message: str | UnsetType = msgspec.field(default=UNSET, name="statusMessage")
    created_at: str | UnsetType = msgspec.field(default=UNSET, name="createdAt")
    last_updated_at: str | UnsetType = msgspec.field(default=UNSET, name="lastUpdatedAt")
    ttl_ms: int | UnsetType | None = msgspec.field(default=UNSET, name="ttlMs")
    poll_interval_ms: int | UnsetType = msgspec.field(default=UNSET, name="pollIntervalMs")
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")


class CreatedTask(_Task, kw_only=True, tag_field="resultType", tag="task"):
    """The flat ``CreateTaskResult``: the server made the call a task (``resultType: "task"``)."""


class TaskState(_Task, kw_only=True):
    """A task as ``tasks/get`` answers it and ``notifications/tasks`` carries it."""

    result: dict[str, Any] | UnsetType = UNSET
    """The request's result once ``completed`` (JSON)."""
    error: dict[str, Any] | UnsetType = UNSET
    """The JSON-RPC error once ``failed``."""
    input_requests: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="inputRequests")
    """What the server asks while ``input_required``, by key (answer with ``update_task``)."""
    result_type: str | UnsetType = msgspec.field(default=UNSET, name="resultType")

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (``completed``, ``failed`` or ``cancelled``)."""
        return self.status in TERMINAL


def extension_rows() -> dict[str, MethodSpec[Any, Any]]:
    """The extension's methods as rows of a client's session (JSON object params/results)."""
    rows: dict[str, MethodSpec[Any, Any]] = {
        method: MethodSpec(method, "request", "client", dict, dict[str, Any], True, dict[str, Any])
        for method in sorted(EXTENSION_METHODS)
    }
    rows[STATUS_NOTIFICATION] = MethodSpec(
        STATUS_NOTIFICATION, "notification", "server", dict, dict[str, Any], True, None
    )
    return rows


_ROWS: Final = extension_rows()
"""The extension's rows, as every client without handshake adds them to its session."""


def accepting_task(spec: MethodSpec[Any, Any]) -> MethodSpec[Any, Any]:
    """The variant of a ``tools/call`` row whose result may also be a ``CreatedTask``.

    Made once per row and kept by the row's identity (hashing a row hashes its types)."""
    found = _ACCEPTING.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    row: MethodSpec[Any, Any] = VariantSpec(
        spec.method,
        spec.kind,
        spec.direction,
        spec.message,
        spec.params,
        spec.params_required,
        Union[spec.result, CreatedTask],  # noqa: UP007 (a runtime type object)
        spec.paginated,
        spec.capability,
        spec.capability_owner,
        spec.input_required,
    )
    if len(_ACCEPTING) >= 64:  # rows are few; only tests make many
        _ACCEPTING.clear()
        _VARIANTS.clear()
    _ACCEPTING[id(spec)] = (spec, row)
    _VARIANTS[id(row)] = row
    return row


_ACCEPTING: dict[int, tuple[MethodSpec[Any, Any], MethodSpec[Any, Any]]] = {}
_VARIANTS: dict[int, MethodSpec[Any, Any]] = {}
"""The variants made, by identity."""


def accepts_task(spec: MethodSpec[Any, Any]) -> bool:
    """Whether ``spec`` is an ``accepting_task`` variant (its caller takes a ``CreatedTask``)."""
    return _VARIANTS.get(id(spec)) is spec


def declaring(capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """``capabilities`` with the extension declared under ``extensions``."""
    extensions = as_object(capabilities.get("extensions")) or {}
    return {**capabilities, "extensions": {**extensions, EXTENSION: {}}}


def task_state(params: Any) -> TaskState:
    """A ``notifications/tasks`` params object (or a ``tasks/get`` result) as a ``TaskState``."""
    return convert(params, TaskState)


class TaskRequests(Protocol):
    """What the extension's calls use of a client's requests without handshake
    (``StatelessRequests``)."""

    def meta(self) -> dict[str, Any]:
        """The ``_meta`` every request of the client carries."""
        ...

    async def send(
        self, spec: MethodSpec[Any, Any], params: Any, timeout: float | None, progress: None
    ) -> Any:
        """One request with the client's ``_meta``."""
        ...

    async def request(
        self, spec: MethodSpec[Any, Any], params: Any, timeout: float | None, progress: None
    ) -> Any:
        """A request whose input rounds are answered; its typed result."""
        ...

    async def answer_json(self, requests: Mapping[str, Any]) -> dict[str, Any]:
        """Answers to input requests by the client's own handlers, as JSON."""
        ...


class TaskClient(Protocol):
    """What the extension's calls use of a client (``ClientBase``)."""

    @property
    def stateless(self) -> TaskRequests | None:
        """The client's requests without handshake (None: a handshake client)."""
        ...

    @property
    def protocol_version(self) -> str:
        """The revision the client speaks."""
        ...

    @property
    def timeout(self) -> float | None:
        """The client's default request timeout."""
        ...

    @property
    def methods(self) -> Mapping[str, MethodSpec[Any, Any]]:
        """The client's method table."""
        ...


# -- the calls -------------------------------------------------------------------------------


def _requests(client: TaskClient) -> TaskRequests:
    """The client's request path without a handshake (the extension has no other)."""
    requests = client.stateless
    if requests is None:
        raise MCPError(
            INTERNAL_ERROR,
            f"the tasks extension needs a client without handshake ({client.protocol_version})",
        )
    return requests


def _own_meta(requests: TaskRequests) -> dict[str, Any]:
    """A request's own ``_meta`` declaring the extension with the client's capabilities."""
    caps = requests.meta().get(META_CAPABILITIES)
    return {META_CAPABILITIES: declaring(as_object(caps) or {})}


async def task_request(
    requests: TaskRequests,
    method: Literal["tasks/get", "tasks/update", "tasks/cancel"],
    params: dict[str, Any],
    timeout: float | None,
) -> dict[str, Any]:
    """Send one of the extension's requests, declaring the extension; its JSON result."""
    spec = _ROWS[method]
    body = {**params, "_meta": _own_meta(requests)}
    found: dict[str, Any] = await requests.send(spec, body, timeout, None)
    return found


def _timeout(client: TaskClient, timeout: float | Default | None) -> float | None:
    """The call's timeout, or the client's own."""
    return client.timeout if isinstance(timeout, Default) else timeout


async def call_tool_task(
    client: TaskClient,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    timeout: float | Default | None = DEFAULT,
) -> Any:
    """Call a tool declaring the extension: the ``CreatedTask`` when the server made the call
    a task, else the tool's typed result (a tool the server runs synchronously)."""
    requests = _requests(client)
    params: dict[str, Any] = {"name": name, "_meta": _own_meta(requests)}
    if arguments is not None:
        params["arguments"] = dict(arguments)
    spec = accepting_task(client.methods["tools/call"])
    return await requests.request(spec, params, _timeout(client, timeout), None)


async def get_task(
    client: TaskClient,
    task_id: str,
    *,
    timeout: float | Default | None = DEFAULT,
) -> TaskState:
    """``tasks/get``: the task's state, with its result, error or input requests inlined."""
    found = await task_request(
        _requests(client), "tasks/get", {"taskId": task_id}, _timeout(client, timeout)
    )
    return task_state(found)


async def update_task(
    client: TaskClient,
    task_id: str,
    input_responses: Mapping[str, Any],
    *,
    timeout: float | Default | None = DEFAULT,
) -> None:
    """``tasks/update``: answer some of the task's ``inputRequests`` (by key)."""
    answers = msgspec.to_builtins(dict(input_responses))
    params = {"taskId": task_id, "inputResponses": answers}
    await task_request(_requests(client), "tasks/update", params, _timeout(client, timeout))


async def cancel_task(
    client: TaskClient,
    task_id: str,
    *,
    timeout: float | Default | None = DEFAULT,
) -> None:
    """``tasks/cancel``: stop the task (a task already ended is acknowledged all the same)."""
    params = {"taskId": task_id}
    await task_request(_requests(client), "tasks/cancel", params, _timeout(client, timeout))


# -- following a task to its end -------------------------------------------------------------


async def follow(
    requests: TaskRequests,
    spec: MethodSpec[Any, Any],
    created: CreatedTask,
    timeout: float | None,
) -> Any:
    """Poll a task until it ends, answering its input requests; the request's typed result."""
    task_id = created.task_id
    state: CreatedTask | TaskState = created
    answered: set[str] = set()
    try:
        while state.status not in TERMINAL:
            asked = state.input_requests if isinstance(state, TaskState) else UNSET
            fresh = {} if isinstance(asked, UnsetType) else _fresh(asked, answered)
            if state.status == "input_required" and fresh:
                answers = await requests.answer_json(fresh)
                answered.update(answers)
                update = {"taskId": task_id, "inputResponses": msgspec.to_builtins(answers)}
                await task_request(requests, "tasks/update", update, timeout)
            else:
                await asyncio.sleep(_interval(state.poll_interval_ms) / 1000)
            got = await task_request(requests, "tasks/get", {"taskId": task_id}, timeout)
            state = task_state(got)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            cancel = task_request(requests, "tasks/cancel", {"taskId": task_id}, CANCEL_TIMEOUT_S)
            await asyncio.shield(cancel)
        raise
    return _outcome(spec, cast(TaskState, state))


def _fresh(asked: Mapping[str, Any], answered: set[str]) -> dict[str, Any]:
    """The input requests not answered yet (a key is never reused within a task)."""
    return {key: value for key, value in asked.items() if key not in answered}


def _interval(poll_ms: int | UnsetType) -> int:
    """The polling interval to follow, in ms, within sane bounds."""
    wanted = DEFAULT_POLL_MS if isinstance(poll_ms, UnsetType) else poll_ms
    return min(max(wanted, MIN_POLL_MS), MAX_POLL_MS)


def _outcome(spec: MethodSpec[Any, Any], state: TaskState) -> Any:
    """An ended task's result as ``spec``'s typed result, or its error raised."""
    if state.status == "completed" and not isinstance(state.result, UnsetType):
        return convert(state.result, spec.result)
    if state.status == "failed" and not isinstance(state.error, UnsetType):
        code, message = state.error.get("code"), state.error.get("message")
        raise MCPError(
            code if isinstance(code, int) else INTERNAL_ERROR,
            message if isinstance(message, str) else "the task failed",
            state.error.get("data"),
        )
    raise MCPError(INTERNAL_ERROR, f"{spec.method}: task {state.task_id} ended {state.status}")
