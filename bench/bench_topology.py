"""Several workers behind HAProxy sharing Redis (the test topology): what sharing costs.

Printed (medians of 3 runs): for a 2025-11-25 session, the p50/p99 of a ``tools/call`` sent
to the owning worker and to the other one (forwarded over Redis), and their ratio; calls per
second through HAProxy with two workers; Redis commands per call (from ``INFO stats``, minus
the background rate of lease renewals) for a forwarded call, an owner-local call and a
2026-07-28 call; and the delivery p99 of a listen notification published on the other worker.

Then scaling: the same HAProxy and Redis settings in front of 1 and of 2 workers, under
``LOAD_CLIENTS`` concurrent callers through HAProxy (2025-11-25 sessions, and 2026-07-28
calls): requests per second, p50/p99, Redis commands per request, and 2-worker/1-worker ratios.
On a machine with fewer cores than processes (workers, HAProxy, Redis, the load) the ratio
says what sharing costs more than what a second worker gains.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402

from generated.runtime import connect_http  # noqa: E402
from tests.support.topology_support import Topology, topology  # noqa: E402
from tests.transports.http.test_topology import (  # noqa: E402
    StatelessClient,
    direct,
    echo,
    listening,
    open_session,
    session_on,
)

CALLS = 200
RUNS = 3
NOTICES = 50
LOAD_CLIENTS = 8
LOAD_CALLS = 40
"""Calls per concurrent caller in the scaling runs."""


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def latencies(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], calls: int = CALLS
) -> list[float]:
    """Seconds per sequential echo call."""
    out: list[float] = []
    for i in range(calls):
        start = time.perf_counter()
        response = await http.post(url, json=echo(i, "x"), headers=headers)
        out.append(time.perf_counter() - start)
        assert response.status_code == 200, response.text
    return out


async def commands(topo: Topology) -> int:
    """Commands Redis has processed so far."""
    redis = aioredis.Redis.from_url(topo.redis_url)
    try:
        stats: dict[str, Any] = await redis.info("stats")
        return int(stats["total_commands_processed"])
    finally:
        await redis.aclose()


async def per_call(topo: Topology, calls: Any, count: int = CALLS) -> float:
    """Redis commands per call of ``calls()`` (``count`` calls), background subtracted."""
    before, start = await commands(topo), time.perf_counter()
    await calls()
    spent = time.perf_counter() - start
    during = await commands(topo) - before - 1
    idle_before, idle_start = await commands(topo), time.perf_counter()
    await asyncio.sleep(spent)
    idle = (await commands(topo) - idle_before - 1) / (time.perf_counter() - idle_start)
    return max(0.0, (during - idle * spent) / count)


async def stateless_calls(topo: Topology) -> None:
    """CALLS 2026-07-28 echo calls through HAProxy."""
    client = StatelessClient(timeout=10)
    await connect_http(client, topo.url)
    try:
        for i in range(CALLS):
            await client.call_tool(name="echo", arguments={"text": str(i)})
    finally:
        await client.close()


async def notice_delays(topo: Topology) -> list[float]:
    """Seconds from publishing on worker 1 to delivery on worker 0's listener."""
    client, got, task = await listening(topo, 0)
    other = StatelessClient(timeout=10)
    await connect_http(other, direct(topo, 1), headers={"Host": "127.0.0.1"})
    delays: list[float] = []
    try:
        for _ in range(NOTICES):
            start = time.perf_counter()
            await other.call_tool(name="announce")
            await asyncio.wait_for(got.get(), 10)
            delays.append(time.perf_counter() - start)
    finally:
        task.cancel()
        await other.close()
        await client.close()
    return delays


async def one_run(topo: Topology) -> dict[str, float]:
    """One run's figures."""
    async with httpx.AsyncClient(timeout=10) as http:
        session = await session_on(http, topo, 0)
        local = await latencies(http, direct(topo, 0), session)
        forwarded = await latencies(http, direct(topo, 1), session)
        start = time.perf_counter()
        await latencies(http, topo.url, session)
        through = CALLS / (time.perf_counter() - start)

        async def local_calls() -> None:
            await latencies(http, direct(topo, 0), session)

        async def forwarded_calls() -> None:
            await latencies(http, direct(topo, 1), session)

        return {
            "local p50 ms": statistics.median(local) * 1000,
            "local p99 ms": percentile(local, 0.99) * 1000,
            "forwarded p50 ms": statistics.median(forwarded) * 1000,
            "forwarded p99 ms": percentile(forwarded, 0.99) * 1000,
            "forwarded/local p50": statistics.median(forwarded) / statistics.median(local),
            "calls/s via HAProxy, 2 workers, 1 client": through,
            "Redis commands per local call": await per_call(topo, local_calls),
            "Redis commands per forwarded call": await per_call(topo, forwarded_calls),
            "Redis commands per 2026-07-28 call": await per_call(
                topo, lambda: stateless_calls(topo)
            ),
            "listen delivery p99 ms (other worker)": percentile(await notice_delays(topo), 0.99)
            * 1000,
        }


async def session_caller(url: str, out: list[float]) -> None:
    """One 2025-11-25 session calling echo ``LOAD_CALLS`` times through ``url``."""
    async with httpx.AsyncClient(timeout=10) as http:
        session = await open_session(http, url)
        out.extend(await latencies(http, url, session, LOAD_CALLS))


async def stateless_caller(url: str, out: list[float]) -> None:
    """One 2026-07-28 client calling echo ``LOAD_CALLS`` times through ``url``."""
    client = StatelessClient(timeout=10)
    await connect_http(client, url)
    try:
        for i in range(LOAD_CALLS):
            start = time.perf_counter()
            await client.call_tool(name="echo", arguments={"text": str(i)})
            out.append(time.perf_counter() - start)
    finally:
        await client.close()


async def under_load(topo: Topology, caller: Any) -> dict[str, float]:
    """Requests/s, p50/p99 and Redis commands per request of ``LOAD_CLIENTS`` callers."""
    out: list[float] = []
    spent: list[float] = []

    async def load() -> None:
        start = time.perf_counter()
        await asyncio.gather(*(caller(topo.url, out) for _ in range(LOAD_CLIENTS)))
        spent.append(time.perf_counter() - start)

    per_request = await per_call(topo, load, LOAD_CLIENTS * LOAD_CALLS)
    return {
        "req/s": len(out) / spent[0],
        "p50 ms": statistics.median(out) * 1000,
        "p99 ms": percentile(out, 0.99) * 1000,
        "Redis cmds/req": per_request,
    }


ERAS = (("2025-11-25", session_caller), ("2026-07-28", stateless_caller))


async def scaling() -> None:
    """Print the load figures for 1 and 2 workers (medians of ``RUNS``) and their ratios."""
    figures: dict[int, dict[str, float]] = {}
    for workers in (1, 2):
        with topology(workers=workers) as topo:
            runs: list[dict[str, float]] = []
            for _ in range(RUNS):
                run: dict[str, float] = {}
                for era, caller in (
                    ("2025-11-25", session_caller),
                    ("2026-07-28", stateless_caller),
                ):
                    for name, value in (await under_load(topo, caller)).items():
                        run[f"{era} {name}"] = value
                runs.append(run)
        figures[workers] = {name: statistics.median(r[name] for r in runs) for name in runs[0]}
    print(f"\n{LOAD_CLIENTS} concurrent callers through HAProxy, {LOAD_CALLS} calls each")
    print(f"{'':40s} {'1 worker':>10s} {'2 workers':>10s} {'2/1':>8s}")
    for name, one in figures[1].items():
        two = figures[2][name]
        counted = name.endswith("cmds/req")  # near 0 with one worker: a ratio says nothing
        ratio = f"{'-':>8s}" if counted or not one else f"{two / one:8.2f}"
        print(f"{name:40s} {one:10.2f} {two:10.2f} {ratio}")


async def main() -> None:
    """Run ``RUNS`` times on one topology; print the medians; then the scaling figures."""
    with topology() as topo:
        runs = [await one_run(topo) for _ in range(RUNS)]
    for name in runs[0]:
        print(f"{name:45s} {statistics.median(r[name] for r in runs):10.2f}")
    await scaling()


if __name__ == "__main__":
    asyncio.run(main())
