"""User code of the bindings of the demo server's tools: calls every tool, types pinned."""

from __future__ import annotations

import asyncio
import sys
from typing import assert_type

import demotools as dt

from examples.demo_client import DemoClient
from generated.v2025_06_18 import types as t


def text_of(result: t.CallToolResult) -> str:
    """The text of the first block."""
    first = result.content[0]
    assert isinstance(first, t.TextContent), first
    return first.text


async def main(server: str) -> None:
    """Connect to the demo server over stdio and call each tool through its binding."""
    client = DemoClient()
    await client.connect_stdio(sys.executable, [server])
    called: list[str] = []
    try:
        echo = await dt.echo(client, dt.EchoInput(text="hi"))
        assert_type(echo, t.CallToolResult)
        assert text_of(echo) == "hi"
        called.append("echo")

        weather = await dt.weather(client, dt.WeatherInput(city="Paris"))
        assert_type(weather, dt.WeatherOutput)
        assert (weather.city, weather.celsius) == ("Paris", 15)
        called.append("weather")

        assert text_of(await dt.divide(client, dt.DivideInput(a=6, b=3))) == "2.0"
        try:
            await dt.divide(client, dt.DivideInput(a=1, b=0))
            raise AssertionError("divide by zero did not raise ToolError")
        except dt.ToolError as exc:
            assert str(exc) == "tool 'divide': cannot divide by zero", exc
            assert_type(exc.result, dt.ToolResult)
        called.append("divide")

        assert text_of(await dt.count(client, dt.CountInput(n=2))) == "counted to 2"
        called.append("count")
        media = await dt.media(client)
        assert len(media.content) == 4
        called.append("media")
        said = text_of(await dt.summarize(client, dt.SummarizeInput(text="milk; Ada")))
        assert said == "demo-model says: Buy milk, call Ada.", said
        called.append("summarize")
        booked = text_of(await dt.book_table(client, dt.BookTableInput()))
        assert booked.startswith("booked a table for 4"), booked
        called.append("book_table")
        assert text_of(await dt.roots(client)) == "file:///tmp/demo-project"
        called.append("roots")
        edited = await dt.edit_note(client, dt.EditNoteInput(id="1", text="buy bread"))
        assert not edited.is_error
        called.append("edit_note")
    finally:
        await client.close()
    print("CALLED", " ".join(called))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
