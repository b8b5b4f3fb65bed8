"""The issue's server on the decorator app: 2 tools, 1 resource, 1 prompt; stdio or HTTP."""

import msgspec

from generated.runtime import App

app = App("weather")


class Forecast(msgspec.Struct):
    city: str
    celsius: float


@app.tool
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@app.tool
async def forecast(city: str) -> Forecast:
    """Today's weather in a city."""
    return Forecast(city=city, celsius=10 + len(city))


@app.resource("demo://readme", mime_type="text/markdown")
def readme() -> str:
    """What this server offers."""
    return "# Weather\nTools: add, forecast."


@app.prompt
def greet(name: str, style: str = "casual") -> str:
    """Greet someone."""
    return f"Say hello to {name}, {style}."


if __name__ == "__main__":  # python app_server.py [--http [HOST:]PORT]
    app.run()
