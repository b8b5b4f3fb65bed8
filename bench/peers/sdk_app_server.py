"""The issue's server on the official SDK's MCPServer: 2 tools, 1 resource, 1 prompt."""

import sys

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

mcp = MCPServer("weather")


class Forecast(BaseModel):
    city: str
    celsius: float


@mcp.tool()
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool()
async def forecast(city: str) -> Forecast:
    """Today's weather in a city."""
    return Forecast(city=city, celsius=10 + len(city))


@mcp.resource("demo://readme", mime_type="text/markdown")
def readme() -> str:
    """What this server offers."""
    return "# Weather\nTools: add, forecast."


@mcp.prompt()
def greet(name: str, style: str = "casual") -> str:
    """Greet someone."""
    return f"Say hello to {name}, {style}."


if __name__ == "__main__":  # python sdk_app_server.py [--http PORT]
    if sys.argv[1:2] == ["--http"]:
        mcp.run("streamable-http", port=int(sys.argv[2]))
    else:
        mcp.run()
