# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""``subscriptions/listen`` (2026-07-28): opted-in change notifications on a long-lived stream.

A client opens a listen request with a filter (``toolsListChanged``, ``promptsListChanged``,
``resourcesListChanged``, ``resourceSubscriptions``, and the tasks extension's ``taskIds``
for ``notifications/tasks``); the server answers with
``notifications/subscriptions/acknowledged`` (the subset it honours) before anything else, then
sends only the opted-in change notifications, each tagged with the listen request's id under
``_meta["io.modelcontextprotocol/subscriptionId"]``, until the client cancels or the server
ends it with a result (``basic/patterns/subscriptions.mdx``).

Changes travel on a ``Bus``: ``publish`` hands a ``Change`` to every attached sink. The default
``LocalBus`` reaches the listeners of this process; a deployment with several workers plugs in a
bus on a broker (``RedisBus``: one channel, every worker a subscriber), started and closed with
the app. Changes published while the broker was away are lost, so after reconnecting such a bus
hands every sink a ``RESYNC`` change: each listener then re-cues one notification of every kind
it opted in to (the client re-reads what may have changed), and never stalls silently.
``Listeners`` is what a server holds: the publish API (``notify_tools_changed()``,
``notify_resource_updated(uri)`` ...) and ``listen``, which runs one subscription over a
``send`` callable the transport provides.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol, cast

from ..core.wire import as_object

logger = logging.getLogger(__name__)

SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
TOOLS_CHANGED: Final = "notifications/tools/list_changed"
PROMPTS_CHANGED: Final = "notifications/prompts/list_changed"
RESOURCES_CHANGED: Final = "notifications/resources/list_changed"
RESOURCE_UPDATED: Final = "notifications/resources/updated"
RESYNC: Final = "mcpgen/resync"
"""Not a notification: the bus lost changes (a broker reconnect); listeners re-cue everything."""
TASK_STATUS: Final = "notifications/tasks"
"""A task's new state (the tasks extension), to listeners that named the task in ``taskIds``."""
LIST_FILTERS: Final = {
    "toolsListChanged": TOOLS_CHANGED,
    "promptsListChanged": PROMPTS_CHANGED,
    "resourcesListChanged": RESOURCES_CHANGED,
}
"""Boolean filter field -> the notification it opts in to."""
MAX_RESOURCE_SUBSCRIPTIONS: Final = 1024
"""Most URIs one listen request may name; more is refused as invalid params."""

Send = Callable[[str, dict[str, Any]], Awaitable[None]]
"""How a listener writes one notification (method, params) to its stream."""


@dataclass(frozen=True, slots=True)
class Change:
    """One published change: a notification method, and the URI for resource updates."""

    method: str
    uri: str | None = None
    """The resource URI of a resource update, the task id of a task status."""
    params: dict[str, Any] | None = None
    """The notification's params when the change carries them (a task's state)."""


class Bus(Protocol):
    """Carries changes from publishers to every attached sink (in-process or over a broker)."""

    async def publish(self, change: Change) -> None:
        """Deliver ``change`` to every sink attached anywhere on the bus."""
        ...

    def attach(self, sink: Callable[[Change], None]) -> Callable[[], None]:
        """Call ``sink`` (without blocking) for every change; return the function that detaches."""
        ...

    async def start(self) -> None:
        """Connect (before the first publish)."""
        ...

    async def close(self) -> None:
        """Disconnect."""
        ...


class LocalBus:
    """The in-process bus: ``publish`` calls every attached sink at once."""

    def __init__(self) -> None:
        self._sinks: dict[int, Callable[[Change], None]] = {}
        self._next = 0

    async def publish(self, change: Change) -> None:
        """Deliver ``change`` to every sink of this process."""
        self.deliver(change)

    def deliver(self, change: Change) -> None:
        """Call every sink of this process with ``change`` now; a sink that raises is logged
        with its error and the others still get the change (and every later one)."""
        for sink in list(self._sinks.values()):
            try:
                sink(change)
            except Exception:
                logger.exception("a listen sink failed on %s", change.method)

    def attach(self, sink: Callable[[Change], None]) -> Callable[[], None]:
        """Attach ``sink``; the returned function detaches it."""
        key = self._next
        self._next += 1
        self._sinks[key] = sink
        return lambda: self._sinks.pop(key, None) and None

    async def start(self) -> None:
        """Nothing to connect."""

    async def close(self) -> None:
        """Nothing to disconnect."""


class FilterError(ValueError):
    """A listen filter that is not an object of the spec's fields (answered -32602)."""


@dataclass(frozen=True, slots=True)
class Filter:
    """The notification types a listener opted in to."""

    lists: frozenset[str]
    """Filter fields set to true (``toolsListChanged`` ...)."""
    uris: frozenset[str]
    """``resourceSubscriptions``."""
    uri_order: tuple[str, ...] = ()
    task_order: tuple[str, ...] = ()
    """``taskIds`` (the tasks extension)."""

    @property
    def task_ids(self) -> frozenset[str]:
        """The task ids whose status changes the listener gets."""
        return frozenset(self.task_order)

    def only_tasks(self, task_ids: Iterable[str]) -> Filter:
        """This filter with ``taskIds`` cut down to ``task_ids`` (those the caller may see)."""
        allowed = set(task_ids)
        return replace(self, task_order=tuple(i for i in self.task_order if i in allowed))

    @classmethod
    def parse(cls, raw: Any) -> Filter:
        """Read the ``notifications`` field of a listen request (a dict or a Struct's builtins)."""
        fields = as_object(raw)
        if fields is None:
            raise FilterError("notifications must be an object")
        lists: set[str] = set()
        for field in LIST_FILTERS:
            value: object = fields.get(field)
            if value is not None and not isinstance(value, bool):
                raise FilterError(f"{field} must be a boolean")
            if value:
                lists.add(field)
        order = _strings(fields, "resourceSubscriptions", "URIs")
        tasks = _strings(fields, "taskIds", "task ids")
        return cls(frozenset(lists), frozenset(order), order, tasks)

    def honoured(self, supported: Iterable[str]) -> Filter:
        """The subset of this filter the server supports (``supported``: field names)."""
        allowed = set(supported)
        uris = self.uri_order if "resourceSubscriptions" in allowed else ()
        tasks = self.task_order if "taskIds" in allowed else ()
        return Filter(self.lists & allowed, frozenset(uris), uris, tasks)

    def cues(self) -> list[Change]:
        """One change of every kind this filter opted in to (re-cued after a ``RESYNC``)."""
        lists = [Change(LIST_FILTERS[field]) for field in LIST_FILTERS if field in self.lists]
        return lists + [Change(RESOURCE_UPDATED, uri) for uri in self.uri_order]

    def accepts(self, change: Change) -> bool:
        """Whether a listener with this filter gets ``change``."""
        if change.method == RESOURCE_UPDATED:
            return change.uri in self.uris
        if change.method == TASK_STATUS:
            return change.uri in self.task_order
        return any(LIST_FILTERS[f] == change.method for f in self.lists)

    def to_json(self) -> dict[str, Any]:
        """The filter as the acknowledgement carries it (only what is opted in)."""
        out: dict[str, Any] = {field: True for field in LIST_FILTERS if field in self.lists}
        if self.uri_order:
            out["resourceSubscriptions"] = list(self.uri_order)
        if self.task_order:
            out["taskIds"] = list(self.task_order)
        return out


def _strings(fields: Mapping[str, Any], name: str, what: str) -> tuple[str, ...]:
    """A filter field that lists strings (absent: none), without repeats, bounded."""
    given: object = fields.get(name)
    items = cast("list[object]", given) if isinstance(given, list) else None
    if given is None:
        items = []
    values = [u for u in items or () if isinstance(u, str)]
    if items is None or len(values) != len(items):
        raise FilterError(f"{name} must be a list of {what}")
    if len(values) > MAX_RESOURCE_SUBSCRIPTIONS:
        raise FilterError(f"at most {MAX_RESOURCE_SUBSCRIPTIONS} {name}")
    return tuple(dict.fromkeys(values))


def supported_filters(capabilities: Mapping[str, Any]) -> frozenset[str]:
    """Filter fields a server with these capabilities honours."""
    out: set[str] = set()
    for top, field in (
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ):
        entry = as_object(capabilities.get(top))
        if entry is not None and entry.get("listChanged"):
            out.add(field)
    resources = as_object(capabilities.get("resources"))
    if resources is not None and resources.get("subscribe"):
        out.add("resourceSubscriptions")
    return frozenset(out)


def tagged(subscription_id: Any, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``params`` with the subscription id added to its ``_meta``."""
    out = dict(params or {})
    meta = dict(out.get("_meta") or {})
    meta[SUBSCRIPTION_ID] = subscription_id
    out["_meta"] = meta
    return out


class Listeners:
    """The listen streams of one server and the API that publishes changes to them."""

    def __init__(self, bus: Bus | None = None) -> None:
        self.bus: Bus = bus if bus is not None else LocalBus()
        self._closing = asyncio.Event()
        self.active = 0

    async def notify_tools_changed(self) -> None:
        """Tell every listener that opted in that the tool list changed."""
        await self.bus.publish(Change(TOOLS_CHANGED))

    async def notify_prompts_changed(self) -> None:
        """Tell every listener that opted in that the prompt list changed."""
        await self.bus.publish(Change(PROMPTS_CHANGED))

    async def notify_resources_changed(self) -> None:
        """Tell every listener that opted in that the resource list changed."""
        await self.bus.publish(Change(RESOURCES_CHANGED))

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell every listener subscribed to ``uri`` that the resource changed."""
        await self.bus.publish(Change(RESOURCE_UPDATED, uri))

    async def notify_task(self, task_id: str, state: dict[str, Any]) -> None:
        """Send a task's new state (``notifications/tasks``) to the listeners that named it."""
        await self.bus.publish(Change(TASK_STATUS, task_id, state))

    def close(self) -> None:
        """End every subscription gracefully (each listen request gets its result)."""
        self._closing.set()

    async def listen(
        self, subscription_id: Any, wanted: Filter, supported: Iterable[str], send: Send
    ) -> dict[str, Any]:
        """Run one subscription: acknowledge, then forward opted-in changes until closed.

        Returns the listen result (graceful end); cancelling the task ends it without one.
        Pending changes are coalesced (one per method and URI), so a slow stream holds at
        most one entry per opted-in type and memory stays bounded.
        """
        agreed = wanted.honoured(supported)
        pending: dict[tuple[str, str | None], Change] = {}
        wake = asyncio.Event()

        def sink(change: Change) -> None:
            for cue in agreed.cues() if change.method == RESYNC else [change]:
                if agreed.accepts(cue):
                    pending.pop((cue.method, cue.uri), None)  # the newest goes last
                    pending[cue.method, cue.uri] = cue
                    wake.set()

        detach = self.bus.attach(sink)
        self.active += 1
        try:
            await send(ACKNOWLEDGED, tagged(subscription_id, {"notifications": agreed.to_json()}))
            closing = asyncio.ensure_future(self._closing.wait())
            try:
                while not self._closing.is_set():
                    waiter = asyncio.ensure_future(wake.wait())
                    try:
                        await asyncio.wait({waiter, closing}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        waiter.cancel()
                    wake.clear()
                    while pending and not self._closing.is_set():
                        change = pending.pop(next(iter(pending)))
                        if change.params is not None:
                            params = change.params
                        else:
                            params = {"uri": change.uri} if change.uri is not None else {}
                        await send(change.method, tagged(subscription_id, params))
            finally:
                closing.cancel()
        finally:
            self.active -= 1
            detach()
        return {"resultType": "complete", "_meta": {SUBSCRIPTION_ID: subscription_id}}


def share_bus(engine: object, bus: Bus) -> None:
    """Make the listeners of a stateless-era ``engine`` (anything with ``listeners``) publish
    and listen on ``bus`` (one shared by several workers)."""
    listeners = getattr(engine, "listeners", None)
    if isinstance(listeners, Listeners):
        listeners.bus = bus
