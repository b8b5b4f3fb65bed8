"""Two worker processes behind HAProxy round-robin, sharing one Redis: a session lives on one
worker and is served through either (see ``topology_support``)."""

from __future__ import annotations

import asyncio
import re
import signal
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from generated._runtime.roles.subscriptions import ACKNOWLEDGED, RESOURCE_UPDATED
from generated.runtime import MCPError, RequestContext, connect_http
from generated.v2025_11_25 import Client
from generated.v2025_11_25 import types as t
from generated.v2026_07_28 import Client as StatelessClientBase
from generated.v2026_07_28 import types as t28
from tests.support.http_support import parse_events
from tests.support.topology_support import Topology, topology

V1125 = "2025-11-25"
NOTE = "demo://notes/1"
CALLS = 200
STEP_S = 10.0
"""Bound on any one HTTP exchange."""
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def topo() -> Iterator[Topology]:
    """The topology, shared by the tests of this file (they restart what they kill)."""
    with topology() as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A raw HTTP client with a bound on every exchange."""
    async with httpx.AsyncClient(timeout=STEP_S) as client:
        yield client


def frames(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of a POST's answer (an SSE stream or one JSON body)."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [event.data for event in parse_events(response.content) if event.data]


async def open_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    """Initialize a 2025-11-25 session; return the headers its later requests carry (with
    ``Host: 127.0.0.1``, which the workers accept when reached directly)."""
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": V1125,
            "capabilities": {},
            "clientInfo": {"name": "topology-test", "version": "1"},
        },
    }
    response = await http.post(url, json=init, headers={**HEADERS, "host": "127.0.0.1"})
    assert response.status_code == 200, response.text
    session = {
        **HEADERS,
        "host": "127.0.0.1",
        "mcp-session-id": response.headers["mcp-session-id"],
        "mcp-protocol-version": V1125,
    }
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    response = await http.post(url, json=done, headers=session)
    assert response.status_code == 202, response.text
    return session


def echo(id_: int, text: str) -> dict[str, Any]:
    """A ``tools/call`` of the demo's echo tool."""
    params = {"name": "echo", "arguments": {"text": text}}
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


async def test_a_session_is_served_through_either_worker(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """A 2025-11-25 client through round-robin: every one of 200 calls is answered (2xx, its
    own echo), though about half of them reach the worker that does not hold the session."""
    session = await open_session(http, topo.url)
    failed: list[tuple[int, int, str]] = []
    for i in range(1, CALLS + 1):
        response = await http.post(topo.url, json=echo(i, f"call {i}"), headers=session)
        answers = frames(response) if response.status_code == 200 else []
        texts = [a["result"]["content"][0]["text"] for a in answers if "result" in a]
        if texts != [f"call {i}"]:
            failed.append((i, response.status_code, response.text[:200]))
    assert failed == [], f"{len(failed)} of {CALLS} calls failed, the first: {failed[:3]}"


class AgreeableClient(Client):
    """A 2025-11-25 client answering the server's sampling and elicitation requests."""

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: RequestContext
    ) -> t.CreateMessageResult:
        """Answer as a fake model."""
        answer = t.TextContent(text="short")
        return t.CreateMessageResult(role="assistant", content=answer, model="fake")

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: RequestContext) -> t.ElicitResult:
        """Fill in the form."""
        return t.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})


def text_of(result: t.CallToolResult) -> str:
    """The text of a tool result's first block."""
    block = result.content[0]
    assert isinstance(block, t.TextContent), result
    return block.text


async def test_server_requests_are_answered_through_the_other_worker(topo: Topology) -> None:
    """Sampling and elicitation asked on one worker's stream are answered by POSTs that the
    load balancer sends to either worker (half of them reach the owner only by forwarding)."""
    client = AgreeableClient(timeout=STEP_S)
    await connect_http(client, topo.url)
    try:
        for _ in range(6):
            summary = await client.call_tool(name="summarize", arguments={"text": "a b c"})
            assert text_of(summary) == "fake says: short"
            booked = await client.call_tool(name="book_table", arguments={})
            assert "Ada" in text_of(booked), booked
    finally:
        await client.close()


def owner_index(topo: Topology, worker: str) -> int:
    """Which worker process has the id ``worker``."""
    ids = [w.worker_id() for w in topo.workers]
    assert worker in ids, (worker, ids)
    return ids.index(worker)


async def owner_of(topo: Topology, session: str) -> int:
    """The index of the worker owning ``session`` (read from Redis)."""
    redis = aioredis.Redis.from_url(topo.redis_url)
    try:
        owner = await redis.hget(f"mcpgen:{{{session}}}:session", "owner")
    finally:
        await redis.aclose()
    assert owner is not None, f"no owner recorded for {session}"
    return owner_index(topo, owner.decode())


async def session_on(http: httpx.AsyncClient, topo: Topology, worker: int) -> dict[str, str]:
    """A session that worker ``worker`` owns (opened there directly)."""
    session = await open_session(http, direct(topo, worker))
    assert await owner_of(topo, session["mcp-session-id"]) == worker
    return session


def direct(topo: Topology, index: int) -> str:
    """Worker ``index``'s own endpoint."""
    return topo.worker_url(index)


async def first_status(
    http: httpx.AsyncClient, url: str, session: dict[str, str], within: float
) -> int:
    """POST an echo on ``session`` until it is answered 404, for at most ``within`` seconds;
    return the last status (0: no answer in time)."""
    deadline = asyncio.get_running_loop().time() + within
    status = 0
    headers = session
    while asyncio.get_running_loop().time() < deadline:
        try:
            left = max(0.05, deadline - asyncio.get_running_loop().time())
            response = await http.post(url, json=echo(1, "x"), headers=headers, timeout=left)
            status = response.status_code
        except httpx.HTTPError:
            status = 0
        if status == 404:
            return status
        await asyncio.sleep(0.05)
    return status


async def test_a_killed_owner_ends_its_streams_and_its_sessions(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """SIGKILL the owner: the GET stream relayed by the other worker ends, the next POST gets
    404 (no waiting for a lease to lapse), and the project's client re-initialises and goes
    on."""
    client = AgreeableClient(timeout=STEP_S)
    await connect_http(client, topo.url)
    try:
        assert (
            text_of(await client.call_tool(name="echo", arguments={"text": "before"})) == "before"
        )
        transport: Any = client.peer.transport
        victim = await owner_of(topo, transport.session_id)
        survivor = 1 - victim
        session = await session_on(http, topo, victim)
        get_headers = {**session, "accept": "text/event-stream"}
        async with http.stream("GET", direct(topo, survivor), headers=get_headers) as stream:
            assert stream.status_code == 200
            topo.workers[victim].signal(signal.SIGKILL)
            await asyncio.wait_for(stream.aread(), STEP_S)  # the stream ends (bounded)
        # the stream ended because the survivor found the owner gone: the next POST is 404
        response = await http.post(direct(topo, survivor), json=echo(1, "x"), headers=session)
        assert response.status_code == 404, response.text
        for i in range(4):  # the client's session was on either worker: each call succeeds
            assert (
                text_of(await client.call_tool(name="echo", arguments={"text": f"after {i}"}))
                == f"after {i}"
            )
    finally:
        await client.close()
        topo.restart_worker(victim)


async def test_a_stopped_owner_loses_its_sessions_for_good(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """SIGSTOP the owner: once its lease lapses (2 s) the other worker answers 404 (waited
    for, bounded by ``STEP_S``: a loaded machine may be slow to see the lapse); after SIGCONT
    the owner does not bring the session back."""
    session = await session_on(http, topo, 0)
    topo.workers[0].signal(signal.SIGSTOP)
    try:
        assert await first_status(http, direct(topo, 1), session, STEP_S) == 404
    finally:
        topo.workers[0].signal(signal.SIGCONT)
    for index in (0, 1):  # the owner's first answer after SIGCONT already refuses it
        response = await http.post(direct(topo, index), json=echo(2, "y"), headers=session)
        assert response.status_code == 404, (index, response.text)
    fresh = await open_session(http, topo.url)  # the worker serves new sessions again
    response = await http.post(topo.url, json=echo(3, "z"), headers=fresh)
    assert response.status_code == 200 and "z" in response.text


class StatelessClient(StatelessClientBase):
    """A 2026-07-28 client answering the server's elicitation (an MRTR round)."""

    async def on_elicit(self, params: Any, ctx: Any) -> t28.ElicitResult:
        """Fill in the form."""
        return t28.ElicitResult(action="accept", content={"name": "Ada", "guests": 2})


async def test_an_mrtr_round_is_finished_on_the_other_worker(topo: Topology) -> None:
    """2026-07-28 through round-robin: round 1 of a call and its retry with the answers reach
    different workers; the state sealed by one (the shared key ring) is opened by the other."""
    client = StatelessClient(timeout=STEP_S)
    await connect_http(client, topo.url)
    try:
        for _ in range(10):
            booked = await client.call_tool(name="book_table")
            block = booked.content[0]
            assert isinstance(block, t28.TextContent) and "Ada" in block.text, booked
    finally:
        await client.close()


CALLERS = 8
CALLS_EACH = 20
KILL_AFTER = 40
"""Calls answered (all callers together) before the worker is killed."""
HOLD_S = 0.2
"""How long each call is in flight on its worker (callers start 25 ms apart)."""


def cut_off(topo: Topology, server: str) -> int:
    """How many requests HAProxy had forwarded to ``server`` that ended without its answer
    (HAProxy logs only abnormal requests, each naming its worker)."""
    topo.haproxy.log.seek(0)
    return len(re.findall(rf" workers/{server} [-0-9]+/".encode(), topo.haproxy.log.read()))


async def test_a_killed_worker_fails_only_the_calls_in_flight_on_it(topo: Topology) -> None:
    """2026-07-28 callers through round-robin, a worker SIGKILLed under load: only calls in
    flight on it may fail, at most one per caller: each failed call had reached the killed
    worker's app (its log says so) or was cut off there by HAProxy (HAProxy's log says so);
    a call on a keep-alive connection HAProxy closed meanwhile is sent again, not failed."""
    clients = [StatelessClient(timeout=STEP_S) for _ in range(CALLERS)]
    for client in clients:
        await connect_http(client, topo.url)
    answered, failed, before = 0, list[str](), cut_off(topo, "w1")
    killed = asyncio.Event()

    async def caller(index: int, client: StatelessClient) -> None:
        nonlocal answered
        await asyncio.sleep(index * HOLD_S / CALLERS)
        for call in range(CALLS_EACH):
            tag = f"c{index}-{call}"
            try:
                arguments = {"tag": tag, "pause": HOLD_S}
                result = await client.call_tool(name="hold", arguments=arguments)
                block = result.content[0]
                assert isinstance(block, t28.TextContent) and block.text == tag, result
                answered += 1
            except MCPError:
                failed.append(tag)
            if answered >= KILL_AFTER and not killed.is_set():
                killed.set()
                topo.workers[1].signal(signal.SIGKILL)

    try:
        await asyncio.gather(*(caller(i, c) for i, c in enumerate(clients)))
    finally:
        for client in clients:
            await client.close()
        topo.workers[1].process.wait(STEP_S)
        topo.workers[1].log.seek(0)
        received = set(re.findall(rb"received (c\d+-\d+)", topo.workers[1].log.read()))
        topo.restart_worker(1)
    assert killed.is_set() and answered == CALLERS * CALLS_EACH - len(failed)
    strays = [tag for tag in failed if tag.encode() not in received]
    cut = cut_off(topo, "w1") - before
    assert len(strays) <= cut, f"{strays} failed, never received by the killed worker"
    callers = [tag.split("-")[0] for tag in failed]
    assert len(callers) == len(set(callers)), f"a caller failed more than once: {failed}"


async def test_a_stream_resumes_on_the_other_worker_when_its_worker_dies(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """A call's SSE stream relayed by one worker, which is SIGKILLed after event 10 of 50:
    ``Last-Event-ID`` on the other worker delivers events 11-50 and the answer, each once, in
    order."""
    session = await session_on(http, topo, 0)
    params = {"name": "tick", "arguments": {"n": 50, "pause": 0.03}, "_meta": {"progressToken": 7}}
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}
    seen: list[Any] = []
    last_id = ""
    try:
        async with http.stream("POST", direct(topo, 1), json=call, headers=session) as response:
            assert response.status_code == 200
            buffer = b""
            async for chunk in response.aiter_bytes():
                buffer += chunk
                while b"\n\n" in buffer:
                    raw, buffer = buffer.split(b"\n\n", 1)
                    for event in parse_events(raw + b"\n\n"):
                        if event.data and len(seen) < 10:  # what the client took: 10 events
                            seen.append(event.data)
                            last_id = event.id or last_id
                if len(seen) >= 10:
                    break
            topo.workers[1].signal(signal.SIGKILL)
        assert [m["params"]["progress"] for m in seen] == list(range(1, 11))
        get_headers = {**session, "accept": "text/event-stream", "last-event-id": last_id}
        resumed = await http.get(direct(topo, 0), headers=get_headers, timeout=STEP_S)
        assert resumed.status_code == 200, resumed.text
        rest = [event.data for event in parse_events(resumed.content) if event.data]
    finally:
        topo.restart_worker(1)
    progress = [m["params"]["progress"] for m in rest if m.get("method")]
    answers = [m for m in rest if m.get("id") == 9]
    assert progress == list(range(11, 51))
    assert len(answers) == 1 and answers[0]["result"]["content"][0]["text"] == "ticked 50"
    assert rest[-1] is answers[0]


async def listening(topo: Topology, index: int) -> tuple[Any, asyncio.Queue[str], Any]:
    """A 2026-07-28 client of worker ``index`` listening for changes of note 1: the client,
    the methods it receives, and the listen task."""
    client = StatelessClient(timeout=STEP_S)
    await connect_http(client, direct(topo, index), headers={"Host": "127.0.0.1"})
    got: asyncio.Queue[str] = asyncio.Queue()

    async def on_event(method: str, params: Any) -> None:
        got.put_nowait(method)

    task = asyncio.create_task(client.stateless.listen({"resourceSubscriptions": [NOTE]}, on_event))
    assert await asyncio.wait_for(got.get(), STEP_S) == ACKNOWLEDGED
    return client, got, task


async def test_a_change_on_one_worker_reaches_listeners_on_the_other(topo: Topology) -> None:
    """Listen on worker 0, change on worker 1: delivered."""
    client, got, task = await listening(topo, 0)
    other = StatelessClient(timeout=STEP_S)
    await connect_http(other, direct(topo, 1), headers={"Host": "127.0.0.1"})
    try:
        await other.call_tool(name="announce")
        assert await asyncio.wait_for(got.get(), STEP_S) == RESOURCE_UPDATED
    finally:
        task.cancel()
        await other.close()
        await client.close()


async def stamped(topo: Topology, index: int) -> str:
    """``stamp`` called on worker ``index`` by a client that learnt its header there."""
    client = StatelessClient(timeout=STEP_S)
    await connect_http(client, direct(topo, index), headers={"Host": "127.0.0.1"})
    try:
        await client.list_tools()
        result = await client.call_tool(name="stamp", arguments={"region": "eu"})
        block = result.content[0]
        assert isinstance(block, t28.TextContent), result
        return block.text
    finally:
        await client.close()


async def test_a_tool_change_on_one_worker_clears_the_header_cache_of_the_other(
    topo: Topology,
) -> None:
    """Worker 1 checks ``stamp``'s ``Mcp-Param-Region`` (cached); its tool source changes
    unannounced, then worker 0 announces a tools change: worker 1 now accepts the new header."""
    assert await stamped(topo, 1) == "eu"
    for index, publish in ((1, False), (0, True)):
        client = StatelessClient(timeout=STEP_S)
        await connect_http(client, direct(topo, index), headers={"Host": "127.0.0.1"})
        try:
            arguments = {"header": "Zone", "publish": publish}
            await client.call_tool(name="retag", arguments=arguments)
        finally:
            await client.close()
    try:
        for _ in range(50):  # the change travels through Redis (bounded wait)
            try:
                assert await stamped(topo, 1) == "eu"
                break
            except MCPError:
                await asyncio.sleep(0.02)
        else:
            raise AssertionError("worker 1 still checks the old header")
    finally:
        for index in (0, 1):
            client = StatelessClient(timeout=STEP_S)
            await connect_http(client, direct(topo, index), headers={"Host": "127.0.0.1"})
            try:
                arguments = {"header": "Region", "publish": True}
                await client.call_tool(name="retag", arguments=arguments)
            finally:
                await client.close()


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


async def stateless_post(
    http: httpx.AsyncClient, topo: Topology, index: int, method: str, params: dict[str, Any]
) -> Any:
    """One 2026-07-28 request (with the tasks extension) to worker ``index``; its result."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    headers = {**HEADERS, "host": "127.0.0.1", "mcp-protocol-version": "2026-07-28"}
    headers["mcp-method"] = method
    headers["mcp-name"] = params["name"] if "name" in params else params["taskId"]
    response = await http.post(direct(topo, index), json=body, headers=headers)
    assert response.status_code == 200, response.text
    (answer,) = frames(response)
    assert "result" in answer, answer
    return answer["result"]


async def test_a_task_made_on_one_worker_is_read_and_finished_on_the_other(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """A ``hold`` call made a task on worker 0 (the store the Redis backend handed the
    server): worker 1 reads it while it works, and reads its result once it completed."""
    call = {"name": "hold", "arguments": {"tag": "task-1", "pause": 0.5}}
    created = await stateless_post(http, topo, 0, "tools/call", call)
    assert created["resultType"] == "task" and created["status"] == "working", created
    task = {"taskId": created["taskId"]}
    seen = await stateless_post(http, topo, 1, "tasks/get", task)
    assert seen["status"] == "working", seen
    for _ in range(600):  # bounded (30 s): the task ends after 0.5 s
        seen = await stateless_post(http, topo, 1, "tasks/get", task)
        if seen["status"] != "working":
            break
        await asyncio.sleep(0.05)
    assert seen["status"] == "completed", seen
    assert seen["result"]["content"] == [{"type": "text", "text": "task-1"}], seen


async def new_sessions_work(http: httpx.AsyncClient, topo: Topology) -> dict[str, str]:
    """Open a session on each worker, retrying (a worker may answer 503 while it takes its
    lease again) for at most ``STEP_S``; the last one's headers."""
    deadline = asyncio.get_running_loop().time() + STEP_S
    fresh: dict[str, str] = {}
    for index in (0, 1):
        while True:
            try:
                fresh = await open_session(http, direct(topo, index))
                break
            except AssertionError:
                assert asyncio.get_running_loop().time() < deadline, "no new session in time"
                await asyncio.sleep(0.1)
    return fresh


async def test_after_a_redis_restart_every_listener_is_cued(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """Redis restarted (what was published meanwhile is lost): each listener, on each worker,
    gets a resync cue (a resources/updated of its note) instead of stalling silently; new
    sessions work on each worker again."""
    first = await listening(topo, 0)
    second = await listening(topo, 1)
    try:
        topo.restart_redis()
        for _, got, _ in (first, second):
            assert await asyncio.wait_for(got.get(), 3.0 + STEP_S) == RESOURCE_UPDATED
    finally:
        for client, _, task in (first, second):
            task.cancel()
            await client.close()
    await new_sessions_work(http, topo)


async def test_redis_stopped_fails_fast_with_503_and_recovers(
    topo: Topology, http: httpx.AsyncClient
) -> None:
    """Redis frozen: a request that needs it is answered 503 once the worker's Redis call
    times out (its socket timeout, 1 s: the answer says so), not left hanging (bounded by
    ``STEP_S``, a margin for a loaded machine); once Redis is back, new sessions work."""
    session = await session_on(http, topo, 0)
    topo.redis.signal(signal.SIGSTOP)
    try:
        response = await http.post(direct(topo, 1), json=echo(1, "x"), headers=session)
        assert response.status_code == 503, response.text
        assert response.headers.get("retry-after") == "1"
        assert "Redis is unavailable (Timeout" in response.json()["error"]["message"]
    finally:
        topo.redis.signal(signal.SIGCONT)
    fresh = await new_sessions_work(http, topo)
    response = await http.post(topo.url, json=echo(2, "back"), headers=fresh)
    assert response.status_code == 200 and "back" in response.text
