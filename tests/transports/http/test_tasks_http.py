"""2025-11-25 tasks over Streamable HTTP: our typed client against our server under uvicorn."""

from __future__ import annotations

import asyncio

from generated._runtime.backends.redis_tasks import RedisTaskStore
from generated._runtime.core.errors import INTERNAL_ERROR
from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.transports.http.client import connect_http
from generated._runtime.transports.http.server import HttpOptions
from generated.v2025_11_25 import types as t
from tests.roles.test_tasks import RELATED, StatusClient, TaskServer
from tests.support.http_support import Raw, bounded, raw_client, request, serve
from tests.support.runtime_support import wait_until
from tests.support.topology_support import free_port

V1125 = "2025-11-25"


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


@bounded
async def test_a_task_request_meeting_its_store_away_in_a_session_is_503_in_json_mode() -> None:
    """Inside a session, a JSON-mode POST whose one request meets the task store away (Redis
    not reachable) is answered 503 with ``Retry-After``, its body the JSON-RPC error with
    ``data.retryAfter``, as the same request without a session is; the session serves on."""
    store = RedisTaskStore(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    server = TaskServer(TaskSupport(store=store))
    try:
        async with (
            serve(server, HttpOptions(json_response=True)) as (_, base),
            raw_client(base) as client,
        ):
            raw = Raw(client)
            await raw.start(V1125)
            asked = request(1, "tasks/get", {"taskId": "t1"})
            refused = await raw.post(asked, mcp_protocol_version=V1125)
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"] == "1"
            error = refused.json()["error"]
            assert error["code"] == INTERNAL_ERROR and error["data"] == {"retryAfter": 1}
            ping = await raw.post(request(2, "ping"), mcp_protocol_version=V1125)
            assert ping.status_code == 200 and ping.json()["result"] == {}, ping.text
    finally:
        await store.close()
