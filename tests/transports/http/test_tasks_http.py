"""2025-11-25 tasks over Streamable HTTP: our typed client against our server under uvicorn."""

from __future__ import annotations

import asyncio

from generated._runtime.transports.http.client import connect_http
from generated.v2025_11_25 import types as t
from tests.roles.test_tasks import RELATED, StatusClient, TaskServer
from tests.support.http_support import bounded, serve
from tests.support.runtime_support import wait_until


@bounded
async def test_task_over_http_result_waits_and_the_status_reaches_the_get_stream() -> None:
    server = TaskServer()
    async with serve(server) as (_, url):
        client = StatusClient()
        await connect_http(client, url + "/mcp")
        try:
            created = await client.call_tool_as_task(name="slow", task=t.TaskMetadata(ttl=10_000))
            assert created.task.status == "working"
            await asyncio.wait_for(server.started.wait(), 30)
            waiting = asyncio.create_task(
                client.call_tool_task_result(task_id=created.task.task_id)
            )
            await asyncio.sleep(0.1)
            assert not waiting.done()  # tasks/result blocks until the task is terminal
            got = await client.get_task(task_id=created.task.task_id)
            assert got.status == "working"
            server.gate.set()
            result = await asyncio.wait_for(waiting, 30)
            assert result.content == [t.TextContent(text="slow")]
            assert result.meta == {RELATED: {"taskId": created.task.task_id}}
            await wait_until(lambda: bool(client.statuses))
            [status] = client.statuses
            assert status.task_id == created.task.task_id and status.status == "completed"
        finally:
            await client.close()
