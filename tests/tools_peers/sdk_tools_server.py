"""An MCP server of the official SDK (MCPServer) with typed tools, for ``mcpgen tools`` tests."""

from __future__ import annotations

import sys
from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

mcp: MCPServer = MCPServer(name="sdk-tools", version="1.0")


class Point(BaseModel):
    """A point in the plane."""

    x: float
    y: float


class Shape(BaseModel):
    """A named list of points."""

    name: str
    points: list[Point]
    kind: Literal["polygon", "line"] = "polygon"


@mcp.tool()
def centroid(shape: Shape) -> Point:
    """The centroid of a shape's points."""
    n = len(shape.points)
    return Point(x=sum(p.x for p in shape.points) / n, y=sum(p.y for p in shape.points) / n)


@mcp.tool()
def add(a: int, b: int = 2) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(name="get-greeting")
def greet(name: str, excited: bool = False) -> str:
    """Greet someone."""
    return f"Hello, {name}{'!' if excited else '.'}"


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
