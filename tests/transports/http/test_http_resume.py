"""Our HTTP server: 2025-03-26 batches, resumable streams (Last-Event-ID), session isolation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from generated._runtime.transports.http.server import HttpOptions
from generated._runtime.transports.http.session import MemoryEventStore
from generated.v2025_06_18.methods import (
    NOTIFICATIONS_RESOURCES_LIST_CHANGED,
    NOTIFICATIONS_TOOLS_LIST_CHANGED,
)
from tests.support.http_support import (
    SSE,
    OldServer,
    Raw,
    bounded,
    call,
    kinds,
    live_app,
    messages,
    parse_events,
    raw_client,
    request,
    serve,
    wait_detached,
)

V0326 = "2025-03-26"
BATCH = [call(1, "echo", {"text": "a"}), call("two", "echo", {"text": "b"})]


def echo_answers(frames: list[Any]) -> dict[Any, str]:
    """Map each tools/call response's id to its text (batched arrays flattened)."""
    flat = [f for frame in frames for f in (frame if isinstance(frame, list) else [frame])]
    return {f["id"]: f["result"]["content"][0]["text"] for f in flat}


@bounded
async def test_batch_of_requests_sse_mode() -> None:
    """A 2025-03-26 server answers a POSTed batch of two requests on the POST's SSE stream."""
    async with serve(OldServer()) as (_, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start(V0326)
        response = await raw.post(BATCH)
        assert response.status_code == 200
        assert response.headers["content-type"] == SSE
        frames = messages(parse_events(response.content))
        assert echo_answers(frames) == {1: "echo a", "two": "echo b"}


@bounded
async def test_batch_of_requests_json_mode() -> None:
    """JSON mode: a batch of two requests is answered with one JSON array of both responses."""
    options = HttpOptions(json_response=True)
    async with serve(OldServer(), options) as (_, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start(V0326)
        response = await raw.post(BATCH)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        body = response.json()
        assert isinstance(body, list) and len(body) == 2
        assert echo_answers(body) == {1: "echo a", "two": "echo b"}


@bounded
async def test_batch_of_notifications_gets_202() -> None:
    """A batch holding only notifications is accepted with 202 and no body."""
    async with serve(OldServer()) as (_, url), raw_client(url) as client:
        raw = Raw(client)
        await raw.start(V0326)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
        response = await raw.post([cancel, cancel])
        assert (response.status_code, response.content) == (202, b"")


@bounded
async def test_batch_to_2025_06_18_server_is_an_error() -> None:
    """2025-06-18 has no batches: the POST gets a JSON-RPC error (not a stream that never ends).

    The error must be the answer of this POST; the test allows an HTTP error status with a
    JSON-RPC error body, or an SSE stream carrying the error.
    """
    async with live_app() as live:
        await live.raw.start()
        try:
            body = json.dumps([request(1, "ping"), request(2, "ping")])
            response = await live.client.post(
                "/mcp", content=body, headers=live.raw.headers(), timeout=30
            )
        except httpx.ReadTimeout:
            raise AssertionError(
                "the batch POST was never answered (its stream stays open)"
            ) from None
        if response.headers.get("content-type") == SSE:
            frames = messages(parse_events(response.content))
        else:
            frames = [response.json()]
        assert [f["error"]["code"] for f in frames] == [-32600], frames


@bounded
async def test_resume_post_stream_after_drop() -> None:
    """Drop a POST stream after the first progress; resume with Last-Event-ID: no loss, no dup."""
    async with live_app() as live:
        await live.raw.start()
        async with live.raw.stream("POST", call(5, "slow", {}, token="t")) as post:
            first = await post.next()
        assert first.data["params"]["progress"] == 1 and first.id
        await wait_detached(live)
        live.server.gate("a").set()  # progress 2 and a log are sent while nobody listens
        await asyncio.sleep(0.2)
        async with live.raw.stream("GET", last_event_id=first.id or "") as resumed:
            replayed = [await resumed.next(), await resumed.next()]
            live.server.gate("b").set()
            events = [*replayed, *await resumed.rest()]
        frames = messages(events)
        expected = ["notifications/progress", "notifications/message", "notifications/progress"]
        assert kinds(frames) == [*expected, "response:5"], frames
        assert [
            f["params"]["progress"] for f in frames if "progressToken" in f.get("params", {})
        ] == [2, 3]
        ids = [first.id, *(e.id for e in events)]
        assert len(set(ids)) == len(ids)


@bounded
async def test_resume_post_stream_after_it_completed() -> None:
    """Resuming a POST stream whose response was sent meanwhile replays the rest, then ends."""
    async with live_app() as live:
        await live.raw.start()
        async with live.raw.stream("POST", call(6, "slow", {}, token="t")) as post:
            first = await post.next()
        await wait_detached(live)
        live.server.gate("a").set()
        live.server.gate("b").set()
        await asyncio.sleep(0.2)
        async with live.raw.stream("GET", last_event_id=first.id or "") as resumed:
            frames = messages(await resumed.rest())
        expected = ["notifications/progress", "notifications/message", "notifications/progress"]
        assert kinds(frames) == [*expected, "response:6"], frames


@bounded
async def test_resume_get_stream() -> None:
    """The GET stream resumes after its last seen event: missed messages once, then live ones."""
    async with live_app() as live:
        await live.raw.start()
        connection = live.connection()
        async with live.raw.stream("GET") as get:
            await connection.notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
            seen = await get.next()
        await wait_detached(live)
        await connection.notify(NOTIFICATIONS_RESOURCES_LIST_CHANGED, None)
        await connection.notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
        async with live.raw.stream("GET", last_event_id=seen.id or "") as resumed:
            events = [await resumed.next(), await resumed.next()]
            await connection.notify(NOTIFICATIONS_RESOURCES_LIST_CHANGED, None)
            events += await resumed.until_quiet()
        methods = [e.data["method"] for e in events]
        assert methods == [
            "notifications/resources/list_changed",
            "notifications/tools/list_changed",
            "notifications/resources/list_changed",
        ], [(e.id, m) for e, m in zip(events, methods, strict=True)]
        assert len({seen.id, *(e.id for e in events)}) == 4


@bounded
async def test_event_ids_unique_within_session() -> None:
    """Every event of a session (POST streams and the GET stream) has its own id."""
    async with live_app() as live:
        first = await live.raw.start()
        ids = [e.id for e in parse_events(first.content)]
        async with live.raw.stream("GET") as get:
            for i in range(3):
                ids += [
                    e.id
                    for e in parse_events(
                        (await live.raw.post(call(i, "count", {"n": 2}, token=i))).content
                    )
                ]
                await live.connection().notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
                ids.append((await get.next()).id)
        assert None not in ids and len(ids) == 1 + 3 * 5 + 3
        assert len(set(ids)) == len(ids)


@bounded
async def test_event_store_is_bounded() -> None:
    """MemoryEventStore(limit=N) keeps a session's N latest events; older Last-Event-ID -> 404."""
    async with live_app(HttpOptions(event_store=MemoryEventStore(limit=4))) as live:
        await live.raw.start()
        response = await live.raw.post(call(1, "count", {"n": 3}, token=1))
        events = parse_events(response.content)  # 7 events: the oldest were dropped
        assert len(events) == 7
        headers = live.raw.headers(accept=SSE, last_event_id=events[0].id or "")
        assert (await live.client.get("/mcp", headers=headers)).status_code == 404
        headers = live.raw.headers(accept=SSE, last_event_id="not-a-number")
        assert (await live.client.get("/mcp", headers=headers)).status_code == 404
        async with live.raw.stream("GET", last_event_id=events[-3].id or "") as kept:
            replayed = await kept.rest()
        assert [e.id for e in replayed] == [e.id for e in events[-2:]]


@bounded
async def test_event_store_forgets_deleted_session() -> None:
    """After DELETE, the store holds nothing of the session."""
    store = MemoryEventStore()
    async with live_app(HttpOptions(event_store=store)) as live:
        await live.raw.start()
        last = parse_events((await live.raw.post(call(1, "count", {"n": 1}))).content)[-1]
        assert await store.replay(live.raw.session_id or "", last.id or "") is not None
        assert (await live.client.delete("/mcp", headers=live.raw.headers())).status_code == 200
        assert await store.replay(live.raw.session_id or "", last.id or "") is None


async def count_in(raw: Raw, tag: str) -> list[Any]:
    """Call ``count`` with request id 1 and progress token 1 (the same in every session)."""
    response = await raw.post(call(1, "count", {"n": 3, "tag": tag}, token=1))
    return messages(parse_events(response.content))


@bounded
async def test_sessions_are_isolated() -> None:
    """Two sessions using the same request ids and progress tokens see only their own messages."""
    async with live_app() as live:
        other = Raw(live.client)
        await live.raw.start()
        await other.start()
        async with live.raw.stream("GET") as get_a, other.stream("GET") as get_b:
            mine, theirs = await asyncio.gather(count_in(live.raw, "A"), count_in(other, "B"))
            await live.connection().notify(NOTIFICATIONS_TOOLS_LIST_CHANGED, None)
            other_connection = live.connection(other.session_id)
            await other_connection.notify(NOTIFICATIONS_RESOURCES_LIST_CHANGED, None)
            assert (await get_a.next()).data["method"] == "notifications/tools/list_changed"
            assert (await get_b.next()).data["method"] == "notifications/resources/list_changed"
            await get_a.quiet(0.1)
            await get_b.quiet(0.1)
        for frames, tag in [(mine, "A"), (theirs, "B")]:
            texts = [json.dumps(f) for f in frames]
            assert len(frames) == 7 and all(tag in s for s in texts), frames
            assert frames[-1]["result"]["content"][0]["text"] == f"{tag}counted 3"
