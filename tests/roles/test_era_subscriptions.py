"""subscriptions/listen model: acknowledgement first, tags, filtering, fan-out, graceful end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from generated._runtime.roles.subscriptions import (
    Change,
    Filter,
    FilterError,
    Listeners,
    LocalBus,
    supported_filters,
)

ALL = ("toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions")


class Stream:
    """Collects what a listener sends, as wire notifications."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def send(self, method: str, params: dict[str, Any]) -> None:
        self.frames.append({"jsonrpc": "2.0", "method": method, "params": params})
        self.changed.set()

    async def wait_for(self, count: int) -> None:
        while len(self.frames) < count:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 30)


async def open_listener(
    hub: Listeners, sub_id: Any, raw: dict[str, Any], supported: tuple[str, ...] = ALL
) -> tuple[Stream, asyncio.Task[dict[str, Any]]]:
    stream = Stream()
    task = asyncio.create_task(hub.listen(sub_id, Filter.parse(raw), supported, stream.send))
    await stream.wait_for(1)
    return stream, task


async def test_acknowledgement_first_then_only_opted_in_types_tagged() -> None:
    hub = Listeners()
    stream, task = await open_listener(
        hub, 7, {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}
    )
    await hub.notify_prompts_changed()
    await hub.notify_resource_updated("file:///b")
    await hub.notify_tools_changed()
    await hub.notify_resource_updated("file:///a")
    await stream.wait_for(3)
    await asyncio.sleep(0.01)
    assert stream.frames == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]},
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
            },
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "file:///a", "_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
        },
    ]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert hub.active == 0


async def test_acknowledgement_lists_only_what_the_server_supports() -> None:
    hub = Listeners()
    stream, task = await open_listener(
        hub, "s", {"toolsListChanged": True, "promptsListChanged": True}, ("toolsListChanged",)
    )
    assert stream.frames[0]["params"]["notifications"] == {"toolsListChanged": True}
    await hub.notify_prompts_changed()
    await hub.notify_tools_changed()
    await stream.wait_for(2)
    assert [f["method"] for f in stream.frames] == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ]
    task.cancel()


async def test_publish_reaches_every_listener_and_close_ends_them_with_a_result() -> None:
    hub = Listeners()
    one, t1 = await open_listener(hub, 1, {"toolsListChanged": True})
    two, t2 = await open_listener(hub, 2, {"toolsListChanged": True})
    await hub.notify_tools_changed()
    await one.wait_for(2)
    await two.wait_for(2)
    assert two.frames[1]["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 2}
    hub.close()
    assert await asyncio.wait_for(t1, 30) == {
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/subscriptionId": 1},
    }
    ended = await asyncio.wait_for(t2, 30)
    assert ended["_meta"] == {"io.modelcontextprotocol/subscriptionId": 2}


async def test_a_slow_listener_gets_changes_coalesced() -> None:
    hub = Listeners()
    gate = asyncio.Event()
    sent: list[str] = []

    async def slow_send(method: str, params: dict[str, Any]) -> None:
        sent.append(method)
        if method != "notifications/subscriptions/acknowledged":
            await gate.wait()

    task = asyncio.create_task(
        hub.listen(1, Filter.parse({"toolsListChanged": True}), ALL, slow_send)
    )
    await asyncio.sleep(0.01)
    for _ in range(1000):
        await hub.notify_tools_changed()
    await asyncio.sleep(0.01)
    gate.set()
    await asyncio.sleep(0.01)
    for _ in range(5):
        await hub.notify_tools_changed()
    await asyncio.sleep(0.01)
    assert sent.count("notifications/tools/list_changed") <= 3
    task.cancel()


async def test_pluggable_bus_is_used_for_fan_out() -> None:
    class CountingBus(LocalBus):
        def __init__(self) -> None:
            super().__init__()
            self.published: list[Change] = []

        async def publish(self, change: Change) -> None:
            self.published.append(change)
            await super().publish(change)

    bus = CountingBus()
    hub = Listeners(bus)
    stream, task = await open_listener(hub, 1, {"resourcesListChanged": True})
    await hub.notify_resources_changed()
    await stream.wait_for(2)
    assert bus.published == [Change("notifications/resources/list_changed")]
    task.cancel()


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        {"toolsListChanged": "yes"},
        {"resourceSubscriptions": "file:///a"},
        {"resourceSubscriptions": [1]},
    ],
)
def test_bad_filters_are_refused(raw: Any) -> None:
    with pytest.raises(FilterError):
        Filter.parse(raw)


def test_supported_filters_follow_capabilities() -> None:
    caps = {"tools": {"listChanged": True}, "prompts": {}, "resources": {"subscribe": True}}
    assert supported_filters(caps) == {"toolsListChanged", "resourceSubscriptions"}
