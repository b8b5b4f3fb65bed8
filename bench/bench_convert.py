"""What converting between revisions costs: per message, next to decoding it, and per stdio
round trip (a 2024-11-05 client against a server written for 2025-11-25, through the bridge,
next to a 2025-11-25 client against the same server: no conversion).

Per-message figures are the best of several timed windows (the machine is shared); round
trips are medians of rounds run side by side, with the server's CPU time per call.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import ServerCPU  # noqa: E402
from generated._runtime.core.codec import decode, encode  # noqa: E402
from generated._runtime.core.convert import chain, convert_value  # noqa: E402
from generated.converters import ORDER, STEPS  # noqa: E402
from generated.v2024_11_05 import Client as OldClient  # noqa: E402
from generated.v2024_11_05 import types as old  # noqa: E402
from generated.v2025_06_18 import types as mid  # noqa: E402
from generated.v2025_11_25 import Client as NewClient  # noqa: E402
from generated.v2025_11_25 import types as new  # noqa: E402

ECHO = str(ROOT / "bench" / "peers" / "echo_server.py")
SERVER = [ECHO, "2025-11-25", "--every"]
"""Written for 2025-11-25, served to every revision."""
OLD_SERVER = [ECHO, "2024-11-05"]
"""Written for 2024-11-05: no conversion for its clients."""
CALLS = 2000
ROUNDS = 3
REPEAT = 2000


def best_ns(run: Any) -> float:
    """Nanoseconds per call of ``run``: the best of several windows."""
    return min(timeit.repeat(run, number=REPEAT, repeat=7)) / REPEAT * 1e9


def per_message() -> None:
    """Conversion cost next to decode cost, for a small and a rich tools/call result."""
    small = new.CallToolResult(content=[new.TextContent(text="hello")])
    rich = new.CallToolResult(
        content=[
            new.TextContent(text="hello"),
            new.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
            new.ResourceLink(uri="demo://logo.png", name="logo"),
            new.EmbeddedResource(resource=new.TextResourceContents(uri="demo://r", text="r")),
        ],
        structured_content={"city": "Oslo", "celsius": 14},
    )
    params = old.CallToolRequestParams(name="echo", arguments={"text": "hello"})
    cases = [
        ("result, small, 2025-11-25 -> 2025-06-18 (1 step)", small, "2025-06-18", mid, True),
        ("result, small, 2025-11-25 -> 2024-11-05 (3 steps)", small, "2024-11-05", old, True),
        ("result, rich,  2025-11-25 -> 2024-11-05 (3 steps)", rich, "2024-11-05", old, True),
    ]
    for label, value, target, module, result in cases:
        path = chain(STEPS, ORDER, "2025-11-25", target, "tools/call", result)
        assert path is not None
        cls = module.CallToolResult
        wire = encode(convert_value(path, value, cls))
        conv = best_ns(lambda: convert_value(path, value, cls))  # noqa: B023
        dec = best_ns(lambda: decode(wire, cls))  # noqa: B023
        print(f"{label}: convert {conv:,.0f} ns, decode {dec:,.0f} ns ({conv / dec:.2f}x)")
    up = chain(STEPS, ORDER, "2024-11-05", "2025-11-25", "tools/call", False)
    assert up is not None
    wire = encode(params)
    conv = best_ns(lambda: convert_value(up, params, new.CallToolRequestParams))
    dec = best_ns(lambda: decode(wire, new.CallToolRequestParams))
    print(
        f"params, 2024-11-05 -> 2025-11-25 (3 steps): convert {conv:,.0f} ns, "
        f"decode {dec:,.0f} ns ({conv / dec:.2f}x)"
    )


async def round_trips(client_cls: Any, server: list[str] = SERVER) -> tuple[float, float]:
    """Sequential tools/call round trips per second, and server CPU per call (us)."""
    client = client_cls(name="bench")
    await client.connect_stdio(sys.executable, server)
    try:
        await client.call_tool(name="echo", arguments={"text": "warm"})
        cpu = ServerCPU()
        cpu.start()
        start = time.perf_counter()
        for i in range(CALLS):
            await client.call_tool(name="echo", arguments={"text": f"m{i}"})
        elapsed = time.perf_counter() - start
        cpu.stop()
        return CALLS / elapsed, cpu.spent_ns / 1000 / CALLS
    finally:
        await client.close()


async def stdio() -> None:
    """An older client through the bridge, next to a same-revision client of the same server
    and to the older client against a server written for its own revision (no conversion)."""
    rounds = [
        (
            await round_trips(OldClient),
            await round_trips(NewClient),
            await round_trips(OldClient, OLD_SERVER),
        )
        for _ in range(ROUNDS)
    ]
    rate = [statistics.median(r[i][0] for r in rounds) for i in range(3)]
    cpu = [statistics.median(r[i][1] for r in rounds) for i in range(3)]
    print(
        f"stdio tools/call, sequential: 2024-11-05 client -> server written for 2025-11-25 "
        f"(converted) {rate[0]:,.0f}/s; 2025-11-25 client, same server {rate[1]:,.0f}/s; "
        f"2024-11-05 client -> server written for 2024-11-05 {rate[2]:,.0f}/s"
    )
    print(
        f"  conversion adds {(rate[1] / rate[0] - 1) * 100:+.1f}% to a round trip against the "
        f"same revision, {(rate[2] / rate[0] - 1) * 100:+.1f}% against the old revision served "
        "natively (time)"
    )
    print(
        f"  server CPU per call: converted {cpu[0]:.1f} us, same revision {cpu[1]:.1f} us, "
        f"old revision natively {cpu[2]:.1f} us"
    )


def main() -> None:
    """Print both."""
    per_message()
    asyncio.run(stdio())


if __name__ == "__main__":
    main()
