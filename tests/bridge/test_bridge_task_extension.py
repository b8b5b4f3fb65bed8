"""The 2026-07-28 tasks extension through the bridge, in one process over memory.

The upstream is a 2026-07-28 server with ``task_support``. A 2026-07-28 client sees the
extension declared by the bridge; its calls declaring it are forwarded with it (the
``CreateTaskResult`` comes back as the upstream sent it), ``tasks/*`` are forwarded, and a
listen stream's ``taskIds`` get the upstream's ``notifications/tasks``. A client of the
initialize era never has the extension declared upstream: an ``optional`` tool runs
synchronously for it, a ``required`` one gets the upstream's -32021 error by name, and a
2025-11-25 ``task`` request is refused by name (the two task models differ).
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from generated import runtime
from generated.runtime import MCPError, listen, spawn_server
from generated.v2025_06_18 import Client as Client0618
from generated.v2025_11_25 import Client as Client1125
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import types as t
from tests.bridge.test_bridge_roles import bridged
from tests.bridge.test_bridge_stdio import BRIDGE, PYTHON, ROOT
from tests.roles.test_stateless_tasks import JobServer
from tests.roles.test_task_client import EXTENSION, Asker, Follower
from tests.support.era_support import EraClient, Recorder
from tests.support.http_support import bounded

CAPS = "io.modelcontextprotocol/clientCapabilities"


def sent(wire: Recorder, method: str) -> list[dict[str, Any]]:
    """The requests of ``method`` the bridge sent upstream."""
    return [f for f in wire.sent if f.get("method") == method and "id" in f]


def upstream_declared(frame: dict[str, Any]) -> bool:
    """Whether an upstream request declares the extension for its client."""
    return EXTENSION in frame["params"]["_meta"][CAPS].get("extensions", {})


def answer_to(wire: Recorder, frame: dict[str, Any]) -> dict[str, Any]:
    """The upstream's answer to one request (result or error object)."""
    [found] = [f for f in wire.received if f.get("id") == frame["id"] and "method" not in f]
    return found.get("result", found.get("error"))


@bounded
async def test_the_bridge_declares_the_extension_and_a_call_is_followed_through_it() -> None:
    """Discover shows the extension; an opted-in call_tool is a task upstream, followed to
    its result with the input answered through tasks/update, all forwarded."""
    server = JobServer()
    follower = Follower()
    async with bridged(server, follower) as wire:
        assert follower.their_capabilities["extensions"] == {EXTENSION: {}}
        result = await follower.call_tool(name="ask2")
        assert result.content == [t.TextContent(text="Ada+Ada")]
        [call] = sent(wire, "tools/call")
        assert upstream_declared(call)
        assert answer_to(wire, call)["resultType"] == "task"
        updates = sent(wire, "tasks/update")
        assert updates and all(upstream_declared(f) for f in updates)
        answers = {k: v for f in updates for k, v in f["params"]["inputResponses"].items()}
        assert answers == {key: {"action": "accept", "content": {"name": "Ada"}} for key in "ab"}
        assert sent(wire, "tasks/get")


@bounded
async def test_task_calls_and_task_ids_cross_the_bridge_untouched() -> None:
    """The CreateTaskResult is the upstream's; tasks/get, tasks/update, tasks/cancel are
    forwarded; a listen stream gets notifications/tasks of the ids the upstream honours."""
    server = JobServer()
    client = Asker()
    async with bridged(server, client) as wire:
        created = await runtime.call_tool_task(client, "job", {})
        assert isinstance(created, runtime.CreatedTask)
        [call] = sent(wire, "tools/call")
        assert msgspec.to_builtins(created) == answer_to(wire, call)
        assert (await runtime.get_task(client, created.task_id)).status == "working"
        ids = ["no-such-task", created.task_id]
        async with listen(client, taskIds=ids) as stream:
            assert stream.honored == {"taskIds": [created.task_id]}
            server.release.set()
            method, params = await anext(aiter(stream))
        assert method == "notifications/tasks"
        done = runtime.task_state(params)
        assert (done.task_id, done.status) == (created.task_id, "completed")
        assert isinstance(done.result, dict)
        assert done.result["content"] == [{"type": "text", "text": "done"}]
        await runtime.update_task(client, created.task_id, {"nobody": {}})
        await runtime.cancel_task(client, created.task_id)
        with pytest.raises(MCPError) as unknown:
            await runtime.get_task(client, "no-such-task")
        assert unknown.value.code == -32602
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            assert all(upstream_declared(f) for f in sent(wire, method)), method
            assert all(f["params"]["taskId"] for f in sent(wire, method))


@bounded
async def test_a_stateless_client_without_the_extension_gets_sync_or_the_named_error() -> None:
    """Not declared downstream, not declared upstream: optional runs synchronously, required
    is the upstream's -32021 naming the extension; tasks/get is refused -32021 too."""
    server = JobServer()
    server.release.set()
    client = Asker()
    async with bridged(server, client) as wire:
        result = await client.call_tool(name="job")
        assert result.content == [t.TextContent(text="done")]
        with pytest.raises(MCPError) as refused:
            await client.call_tool(name="must")
        assert refused.value.code == -32021
        assert refused.value.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
        assert not any(upstream_declared(f) for f in sent(wire, "tools/call"))


@pytest.mark.parametrize("client_type", [Client1125, Client0618])
@bounded
async def test_an_initialize_era_client_gets_results_or_the_upstream_error(
    client_type: type[Any],
) -> None:
    """The bridge never declares the extension upstream for it: an optional tool's result
    comes back; a required one's -32021 reaches the client with its name and data."""
    server = JobServer()
    server.release.set()
    client = client_type()
    async with bridged(server, client) as wire:
        result = await client.call_tool(name="job")
        assert [c.text for c in result.content] == ["done"]
        with pytest.raises(MCPError) as refused:
            await client.call_tool(name="must")
        assert refused.value.code == -32021
        assert EXTENSION in refused.value.message or EXTENSION in str(refused.value.data)
        assert not any(upstream_declared(f) for f in sent(wire, "tools/call"))


@bounded
async def test_a_2025_11_25_task_request_is_refused_by_name() -> None:
    """A ``task`` from 2025-11-25 is not converted into the extension: refused, naming both
    models, and nothing is sent upstream (the bridge declares no ``tasks``, so our typed
    client refuses ``call_tool_as_task`` itself: a plain call with ``task`` is sent)."""
    client = Client1125()
    async with bridged(JobServer(), client) as wire:
        assert "tasks" not in client.their_capabilities
        with pytest.raises(MCPError) as refused:
            await client.call_tool(name="job", task=t25.TaskMetadata(ttl=60_000))
        assert refused.value.code == -32601
        assert "tools/call as a task" in refused.value.message
        assert EXTENSION in refused.value.message
        assert not sent(wire, "tools/call")


@bounded
async def test_listen_with_task_ids_needs_the_extension_declared() -> None:
    """``taskIds`` without the extension in the request: -32021 from the bridge's server."""
    client = Asker()
    async with bridged(JobServer(), client):
        requests = client.stateless
        assert requests is not None
        spec = client.methods["subscriptions/listen"]
        params = {"notifications": {"taskIds": ["x"]}}
        with pytest.raises(MCPError) as refused:
            await asyncio.wait_for(requests.send(spec, params, None, None), 10)
        assert refused.value.code == -32021


class FollowingEraClient(EraClient):
    """The era tests' client, declaring the tasks extension."""

    tasks_extension = True


async def test_through_the_mcpgen_bridge_command_over_stdio() -> None:
    """``mcpgen bridge`` to the fixture's 2026-07-28 server: a 2026-07-28 client follows a
    task whose input it answers, and gets a required tool's task (one bridge process: the
    initialize-era clients are checked in process above)."""
    upstream = [PYTHON, "-m", "tests.support.era_fixture_server", "stdio-stateless"]
    command = [*BRIDGE, *upstream]
    client = FollowingEraClient()
    try:
        await client.connect(await spawn_server(command[0], command[1:], cwd=str(ROOT)))
        assert EXTENSION in client.their_capabilities["extensions"]
        args = {"filename": "a.txt"}
        deleted = await asyncio.wait_for(
            client.call_tool(name="confirm_delete", arguments=args), 30
        )
        assert deleted.content == [t.TextContent(text="deleted: confirm-answer")]
        assert client.asked == ["elicitation/create"]
        created = await asyncio.wait_for(runtime.call_tool_task(client, "failing_job"), 30)
        assert isinstance(created, runtime.CreatedTask)
    finally:
        await client.close()
