"""``mcpgen bridge`` latency, side by side with direct calls, printed as ratios.

Sequential ``tools/call`` round trips (one in flight: latency, not throughput) of a 2025-06-18
client: directly to a 2025-06-18 server (the same-revision baseline), through the bridge to that
server (the bridge's own cost: one more process and hop; the frames relayed as bytes,
``roles/bridge_relay.py``), through the bridge to a 2026-07-28-only server (the converting
bridge: two typed decodes and encodes, the converters and the stateless ``_meta`` added), beside
the official SDK's client and server directly and through the bridge (the SDK's server also
speaks 2026-07-28, which the bridge's negotiation upstream picks: so that run converts
2025-11-25 to 2026-07-28 and back, as a deployed SDK client before such a server sees it) and
the raw floors: an NDJSON echo pair with msgspec (bench/peers/raw_echo.py), and the same pair
through a minimal line relay (bench/peers/raw_relay.py), whose ratio is what one more process
and hop costs at the least, and our client and server through that same relay: the bridge's
floor with the bridge's own peers (what one more process adds depends on the peers on either
side: the raw pair's hop is no measure of the hop between ours).
The floors move bytes as ours do (uvloop in the spawned processes when it is installed, the
same pipes and read size). Medians of ``ROUNDS`` rounds, the runs alternating (each round
in the reverse order of the one before, so the bridge runs as often just before its direct
baseline as just after it, and whatever a run leaves behind falls on both). Beside the
latencies and their ratios (also the median of each round's own ratio), the CPU the child
process spent per call (``bench/cpu.py``: the server directly,
the bridge or relay process through it), which the machine's load changes much less than the
wall clock, and the load average (``os.getloadavg``) before and after.

``python bench/bench_bridge.py [--fifo]``: with ``--fifo`` (root) every process of the bench
runs under ``SCHED_FIFO``, so the machine's other processes no longer preempt them or run
before them (on a machine busy with other work, the rounds of one run spread 1.5x at most
instead of 5x). The
kernel then places woken processes by another policy than the default one users run under:
quote both, each named.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import ServerCPU  # noqa: E402
from bench.peers.raw_echo import RawClient  # noqa: E402
from generated.v2025_06_18 import Client  # noqa: E402

PEERS = Path(__file__).resolve().parent / "peers"
MCPGEN = str(Path(sys.executable).parent / "mcpgen")
CALLS = 1000
ROUNDS = 7
FIFO_PRIORITY = 10
"""With ``--fifo``: the real-time priority of the bench and the processes it starts."""
RELAY = "raw relay floor"
OUR_RELAY = "raw relay, our peers"
SDK_BRIDGED = "SDK, bridge converting"


async def latency(call: Callable[[int], Awaitable[object]]) -> float:
    """Microseconds per call, ``CALLS`` calls one after the other (after a warm-up)."""
    for i in range(20):
        await call(i)
    start = time.perf_counter()
    for i in range(CALLS):
        await call(i)
    return (time.perf_counter() - start) / CALLS * 1e6


CPU: dict[str, list[float]] = {}
"""Microseconds of CPU per call of the child process (server or bridge), by run."""


async def ours(name: str, command: list[str]) -> float:
    """Our 2025-06-18 client against the server ``command`` starts (its CPU noted)."""
    client = Client(name="bench")
    await client.connect_stdio(command[0], command[1:])
    cpu = ServerCPU()
    try:
        cpu.start()
        us = await latency(lambda i: client.call_tool(name="echo", arguments={"text": f"m{i}"}))
        cpu.stop()
        CPU.setdefault(name, []).append(cpu.spent_ns / (CALLS + 20) / 1e3)
        return us
    finally:
        await client.close()


async def sdk(bridged: bool = False) -> float:
    """The official SDK's client against its low-level server (``bridged``: through the bridge,
    which speaks 2026-07-28 to that server, the client 2025-11-25)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = [sys.executable, str(PEERS / "sdk_server.py")]
    command = [MCPGEN, "bridge", "--log-level", "warning", "--", *server] if bridged else server
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await latency(lambda i: session.call_tool("echo", {"text": f"m{i}"}))


async def raw(name: str, *argv: str) -> float:
    """A floor: the raw NDJSON client against ``argv`` (its CPU noted)."""
    client = await RawClient.spawn(sys.executable, *argv)
    cpu = ServerCPU()
    try:
        await client.call(-1, "started")  # the process's start-up is not counted
        cpu.start()
        us = await latency(lambda i: client.call(i, f"m{i}"))
        cpu.stop()
        CPU.setdefault(name, []).append(cpu.spent_ns / (CALLS + 20) / 1e3)
        return us
    finally:
        await client.wait_closed()


def paired(through: list[float], direct: list[float]) -> float:
    """The median of each round's ratio (a round's runs are neighbours: the load they share
    cancels)."""
    return statistics.median(t / d for t, d in zip(through, direct, strict=True))


def echo(revision: str) -> list[str]:
    """The benchmark echo server of ``revision`` (that revision only)."""
    return [sys.executable, str(PEERS / "echo_server.py"), revision]


async def main() -> None:
    """Alternate the runs; print medians and the bridge/direct ratios."""
    runs: dict[str, Callable[[], Awaitable[float]]] = {
        "direct": lambda: ours("direct", echo("2025-06-18")),
        "bridge": lambda: ours(
            "bridge", [MCPGEN, "bridge", "--log-level", "warning", "--", *echo("2025-06-18")]
        ),
        "bridge to 2026-07-28": lambda: ours(
            "bridge to 2026-07-28",
            [MCPGEN, "bridge", "--log-level", "warning", "--", *echo("2026-07-28")],
        ),
        OUR_RELAY: lambda: ours(
            OUR_RELAY, [sys.executable, str(PEERS / "raw_relay.py"), *echo("2025-06-18")]
        ),
        "SDK direct": sdk,
        SDK_BRIDGED: lambda: sdk(bridged=True),
        "raw floor": lambda: raw("raw floor", str(PEERS / "raw_echo.py")),
        RELAY: lambda: raw(
            RELAY,
            str(PEERS / "raw_relay.py"),
            sys.executable,
            str(PEERS / "raw_echo.py"),
        ),
    }
    load = os.getloadavg()
    got: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs.items())
    for _ in range(ROUNDS):
        for name, run in order:
            got[name].append(await run())
        order.reverse()  # every run in both places of a round: no side always follows another
    us = {name: statistics.median(values) for name, values in got.items()}
    print(f"stdio tools/call latency, sequential, median of {ROUNDS} rounds of {CALLS} calls:")
    for name, value in us.items():
        spread = f"{min(got[name]):.0f}-{max(got[name]):.0f}"
        print(f"  {name:22} {value:8.0f} us/call  (rounds {spread})")
    cpu = {name: statistics.median(values) for name, values in CPU.items()}
    print(
        "CPU per call of the child process: "
        + ", ".join(f"{name} {value:.0f} us" for name, value in cpu.items())
        + f" (bridge process / direct server = {cpu['bridge'] / cpu['direct']:.2f}x)"
    )
    direct, floor = us["direct"], us["raw floor"]
    bridged, relayed = paired(got["bridge"], got["direct"]), paired(got[RELAY], got["raw floor"])
    ours_relayed = paired(got[OUR_RELAY], got["direct"])
    print(
        f"bridge/direct = {us['bridge'] / direct:.2f}x (target 1.5x; median of the rounds' own "
        f"ratios {bridged:.2f}x); the floors' raw relay/raw = "
        f"{us[RELAY] / floor:.2f}x ({relayed:.2f}x); the raw relay between our client and "
        f"server/direct = {us[OUR_RELAY] / direct:.2f}x ({ours_relayed:.2f}x); "
        f"bridge/that relay = {paired(got['bridge'], got[OUR_RELAY]):.2f}x (paired); "
        f"bridge to 2026-07-28/direct = {us['bridge to 2026-07-28'] / direct:.2f}x; "
        f"direct/SDK direct = {direct / us['SDK direct']:.2f}x; "
        f"bridge/SDK direct = {us['bridge'] / us['SDK direct']:.2f}x; "
        f"direct/raw = {direct / floor:.2f}x; SDK, bridge converting/SDK direct = "
        f"{us[SDK_BRIDGED] / us['SDK direct']:.2f}x "
        f"({paired(got[SDK_BRIDGED], got['SDK direct']):.2f}x)"
    )
    print(
        f"added by the hop: bridge {us['bridge'] - direct:.0f} us, raw relay between our "
        f"client and server {us[OUR_RELAY] - direct:.0f} us, "
        f"raw relay between the raw pair {us[RELAY] - floor:.0f} us"
    )
    after = os.getloadavg()
    print(
        "load average (1, 5, 15 min): before "
        + " ".join(f"{x:.2f}" for x in load)
        + ", after "
        + " ".join(f"{x:.2f}" for x in after)
    )


def fifo() -> None:
    """Run this process and every process it starts under ``SCHED_FIFO`` (needs root)."""
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(FIFO_PRIORITY))


if __name__ == "__main__":
    if "--fifo" in sys.argv[1:]:
        fifo()
        print(f"(every process of the bench under SCHED_FIFO, priority {FIFO_PRIORITY})")
    asyncio.run(main())
