"""Request timeouts under one loop timer: each request still times out at its own deadline."""

from __future__ import annotations

import asyncio

import pytest

from generated._runtime.roles.deadlines import SLACK
from generated._runtime.roles.peer import RequestTimeout
from tests.support.runtime_support import STEP_S, EchoServer, connected, first_text


async def test_a_short_timeout_sent_after_a_long_one_times_out_first_and_alone() -> None:
    """The timer armed for the long deadline is moved forward for the short one."""
    server = EchoServer()
    async with connected(server) as (client, on_client, _):
        long = asyncio.create_task(client.call_tool(name="block", timeout=STEP_S * 10))
        await asyncio.wait_for(server.started.wait(), STEP_S)
        with pytest.raises(RequestTimeout, match="tools/call"):
            await client.call_tool(name="block", timeout=0.05)
        calls = [f for f in on_client.sent if f.get("method") == "tools/call"]
        cancels = [f for f in on_client.sent if f.get("method") == "notifications/cancelled"]
        assert [c["params"]["requestId"] for c in cancels] == [calls[-1]["id"]]
        assert not long.done()
        long.cancel()
        with pytest.raises(asyncio.CancelledError):
            await long


async def test_requests_answered_in_time_leave_a_later_timeout_working_and_no_pile() -> None:
    """Many requests answered before their deadline: the next one that is not answered still
    times out at its own deadline, and the deadlines kept stay bounded."""
    async with connected(EchoServer()) as (client, on_client, _):
        for n in range(4 * SLACK):
            answer = await client.call_tool(name="echo", arguments={"n": n}, timeout=STEP_S * 10)
            assert first_text(answer) == {"n": n}
            kept = len(client.peer._deadlines)  # pyright: ignore[reportPrivateUsage]
            assert kept <= SLACK + 2
        with pytest.raises(RequestTimeout):
            await client.call_tool(name="block", timeout=0.05)
        cancel = on_client.sent[-1]
        assert cancel["method"] == "notifications/cancelled"
        assert first_text(await client.call_tool(name="echo", arguments={"a": 1})) == {"a": 1}


async def test_concurrent_requests_with_the_same_timeout_all_time_out() -> None:
    """Several requests due at once are all timed out by one firing, each cancelled."""
    async with connected(EchoServer()) as (client, on_client, _):
        calls = [client.call_tool(name="block", timeout=0.05) for _ in range(5)]
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(o, RequestTimeout) for o in outcomes)
        sent = [f for f in on_client.sent if f.get("method") == "tools/call"][-5:]
        cancels = [f for f in on_client.sent if f.get("method") == "notifications/cancelled"]
        assert sorted(c["params"]["requestId"] for c in cancels) == sorted(f["id"] for f in sent)
