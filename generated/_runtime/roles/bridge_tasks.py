# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Capabilities and tasks across the bridge: what the upstream declared, the task-augmented
requests (2025-11-25 ``task``) that are forwarded as tasks or refused by name, and the
2026-07-28 tasks extension (``io.modelcontextprotocol/tasks``) forwarded as it is.

A request with ``task`` reaching the bridge's own server goes upstream as its ``TASKS`` row
when the upstream declared ``tasks.requests`` for it (``Bridge._as_task``); through an adapter
(a client of another revision) the conversion would lose the task, so ``refuse_tasks`` makes
the adapter refuse it first (to a 2026-07-28 upstream too: its tasks are the extension, another
model). The bridge's upstream clients run none of the upstream's tasks (``task_method``: their
handlers are not set, so they declare no ``tasks``).

The extension crosses only between clients and servers of the revision that has it: when the
upstream's ``server/discover`` declares it, the bridge's own server declares it too
(``ForwardedTasks``); a downstream client of that revision that declares it in a request has
it declared upstream for that request (``forwarded_capabilities``), so the upstream may answer
its ``tools/call`` with a ``CreateTaskResult``, passed back untouched, and its ``tasks/get``,
``tasks/update`` and ``tasks/cancel`` are forwarded with their JSON as sent. Any other client
(an initialize-era one, through an adapter) never has it declared upstream: an ``optional``
tool runs synchronously for it, and a ``required`` one gets the upstream's -32021 error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

import msgspec

from ..core.errors import INTERNAL_ERROR, METHOD_NOT_FOUND, MCPError
from ..core.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION
from ..core.methods import MethodSpec
from ..core.tasks import EXTENSION, EXTENSION_METHODS
from ..core.wire import as_object
from .bridge_listen import TaskListens
from .connection import RequestFacts
from .dispatch import Handler
from .server import ServerBase, ServerContext
from .stateless_tasks import Call, Plan, declares_extension
from .task_client import declaring

__all__ = [
    "ForwardedTasks",
    "declared",
    "forward_tasks",
    "forwarded_capabilities",
    "refuse_tasks",
    "task_method",
    "task_of",
    "task_refused",
    "with_capabilities",
]

HOP_META: Final = frozenset({META_VERSION, META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL})
"""``_meta`` keys of one hop: the upstream request gets the bridge's own."""
if TYPE_CHECKING:
    from .client import ClientBase

SendTask = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends one of the extension's requests upstream (params as JSON); its JSON answer."""


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


def refuse_tasks(adapter: ServerBase, upstream: str, extension: bool = False) -> None:
    """Make ``adapter`` refuse task-augmented requests: across revisions the task would be
    lost in the conversion, so it is refused by name instead (``extension``: the upstream's
    tasks are the 2026-07-28 extension, which the message names)."""
    other = f" (its tasks are the {EXTENSION} extension, another model)" if extension else ""
    for method in adapter.TASKS:
        attr = adapter.ROUTES.get(method)
        handler = None if attr is None else adapter.__dict__.get(attr)
        if attr is None or handler is None:
            continue

        def refusing(inner: Handler, method: str = method) -> Handler:
            async def handle(params: Any, ctx: ServerContext) -> Any:
                if task_of(params) is not None:
                    version = adapter.PROTOCOL_VERSION
                    who = f"a {version} client to a {upstream} server{other}"
                    raise task_refused(method, who)
                return await inner(params, ctx)

            return handle

        setattr(adapter, attr, refusing(handler))


def task_method(spec: MethodSpec[Any, Any]) -> bool:
    """Whether ``spec`` is one of the requestor's side of tasks (``tasks/*`` on a receiver):
    the bridge's clients run no tasks of the upstream's, so declare none."""
    return (spec.capability or "").startswith("tasks") or spec.method.startswith("tasks/")


def with_capabilities(params: Any, capabilities: dict[str, Any]) -> Any:
    """``params`` whose ``_meta`` states ``capabilities`` as the client's."""
    if params is None:
        return {"_meta": {META_CAPABILITIES: capabilities}}
    if isinstance(params, msgspec.Struct) and "meta" in params.__struct_fields__:
        own = as_object(getattr(params, "meta"))  # noqa: B009 (a field of any params Struct)
        meta = {} if own is None else dict(own)
        meta[META_CAPABILITIES] = capabilities
        return msgspec.structs.replace(params, meta=meta)
    return params


def forwarded_capabilities(
    theirs: Mapping[str, Any], ours: Mapping[str, Any], extension: bool
) -> dict[str, Any]:
    """The downstream client's capabilities as declared upstream: what the bridge's upstream
    client can answer too, and the tasks extension when ``extension`` (both sides have it)
    and the downstream client declared it."""
    caps = {name: value for name, value in theirs.items() if name in ours}
    return declaring(caps) if extension and declares_extension(theirs) else caps


class ForwardedTasks:
    """The tasks extension of the bridge's own server: its requests forwarded upstream.

    The upstream decides which calls become tasks (``plan``: every call is forwarded as it
    is) and which task ids a requestor may listen to (its acknowledgement, see
    ``bridge_listen.TaskListens``)."""

    methods: frozenset[str] = EXTENSION_METHODS

    def __init__(self, send: SendTask, ours: Callable[[], Mapping[str, Any]]) -> None:
        self._send = send
        self._ours = ours

    def plan(self, method: str, tool: object, params: object) -> Plan:
        """Forwarded as it is: the upstream answers with a task or a result."""
        return "sync"

    async def run(
        self, plan: Plan, method: str, call: Call, facts: RequestFacts
    ) -> tuple[dict[str, Any] | None, Any]:
        """Never called (every plan is ``sync``)."""
        raise MCPError(INTERNAL_ERROR, f"{method}: the bridge runs no task itself")

    async def owned(self, task_ids: list[str]) -> list[str]:
        """All of them: the upstream's acknowledgement says which it honours."""
        return list(task_ids)

    async def answer(
        self, method: str, params: Mapping[str, Any], capabilities: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Forward ``tasks/get``, ``tasks/update`` or ``tasks/cancel``; the answer untouched."""
        meta = {k: v for k, v in (as_object(params.get("_meta")) or {}).items()}
        for key in HOP_META:
            meta.pop(key, None)
        meta[META_CAPABILITIES] = forwarded_capabilities(capabilities, self._ours(), True)
        return await self._send(method, {**params, "_meta": meta})


def forward_tasks(server: ServerBase, upstream: ClientBase[Any]) -> None:
    """Declare the upstream's tasks extension on ``server`` (of the upstream's revision) and
    forward its requests, and the task ids of its listen streams, to ``upstream``."""
    from .stateless import StatelessServer

    requests = upstream.stateless
    assert requests is not None

    async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
        spec = requests.conn.peer.session.methods[method]
        found: dict[str, Any] = await requests.send(spec, params, None, None)
        return found

    face = StatelessServer.of(server)
    face.take_tasks(ForwardedTasks(send, lambda: upstream.our_capabilities))
    TaskListens(requests).wrap(face.listeners)
