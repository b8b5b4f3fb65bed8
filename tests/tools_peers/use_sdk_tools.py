"""User code of the bindings of an SDK server's tools, over HTTP: every tool, types pinned."""

from __future__ import annotations

import asyncio
import sys
from typing import assert_type

import sdktools as st

from generated.runtime import connect_http
from generated.v2025_11_25 import Client


async def main(url: str) -> None:
    """Connect over Streamable HTTP and call each tool through its binding."""
    client = Client(timeout=30.0)
    await connect_http(client, url)
    called: list[str] = []
    try:
        shape = st.Shape(name="tri", points=[st.Point(x=0, y=0), st.Point(x=3, y=0)])
        centre = await st.centroid(client, st.CentroidInput(shape=shape))
        assert_type(centre, st.CentroidOutput)
        assert (centre.x, centre.y) == (1.5, 0.0), centre
        called.append("centroid")

        total = await st.add(client, st.AddInput(a=40))
        assert_type(total, st.AddOutput)
        assert total.result == 42
        called.append("add")

        greeting = await st.get_greeting(client, st.GetGreetingInput(name="Ada", excited=True))
        assert greeting.result == "Hello, Ada!"
        called.append("get-greeting")

        try:
            await st.fail(client, st.FailInput(reason="on purpose"))
            raise AssertionError("fail did not raise ToolError")
        except st.ToolError as exc:
            # The SDK does not pass the exception's text on; the error result arrives.
            assert str(exc).startswith("tool 'fail': "), exc
            assert exc.result.is_error is True
        called.append("fail")
    finally:
        await client.close()
    print("CALLED", " ".join(called))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
