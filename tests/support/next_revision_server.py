"""The synthetic next revision's demo server (``next_revision_support``), written against
its generated package, which it finds by name: ``python next_revision_server.py ROOT PKG``
serves one client over stdio; the test builds it in-process for HTTP (``make_server``).

The steps are those of the 2026-07-28 demo (``examples/demo_era_server.py``): tools, the new
``chart`` content block and ``tools/describe``, an MRTR elicitation through ``ask``, and
``add_tool`` telling the ``subscriptions/listen`` streams that the tool list changed.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
"""The ``_meta`` key a stateless request carries the client's capabilities under."""
TOOL_NAMES = ("add_tool", "chart", "client_caps", "sign_guestbook")


def make_server(package: str) -> Any:
    """A server of the next revision of the generated package ``package``."""
    rev = importlib.import_module(f"{package}.v2027_01_01")
    t = importlib.import_module(f"{package}.v2027_01_01.types")
    runtime = importlib.import_module(f"{package}.runtime")
    extra: list[str] = []

    def tool(name: str) -> Any:
        return t.Tool(name=name, input_schema={"type": "object"}, category="demo")

    def text(value: str) -> Any:
        return t.CallToolResult(content=[t.TextContent(text=value)])

    class NextServer(rev.Server):  # type: ignore[misc,name-defined]
        """Tools, a chart, an MRTR question and list-changed notifications."""

        name = "next-revision-demo"
        version = "1.0.0"
        list_changed = frozenset({"tools"})

        async def list_tools(self, params: Any, ctx: Any) -> Any:
            """The demo tools (each with the new ``category`` member)."""
            tools = [tool(n) for n in (*TOOL_NAMES, *extra)]
            return t.ListToolsResult(tools=tools, ttl_ms=1_000, cache_scope="public")

        async def describe_tool(self, params: Any, ctx: Any) -> Any:
            """The new request: one tool by name."""
            return t.DescribeToolResult(tool=tool(params.name))

        async def call_tool(self, params: Any, ctx: Any) -> Any:
            """Each demo tool."""
            if params.name == "chart":
                chart = t.ChartContent(series=[1.0, 2.5, 4.0], title="growth")
                return t.CallToolResult(content=[chart])
            if params.name == "client_caps":
                return text(json.dumps((params.meta or {}).get(CLIENT_CAPABILITIES)))
            if params.name == "sign_guestbook":
                form = t.ElicitRequestFormParams(
                    message="Your name for the guestbook?",
                    requested_schema=t.ElicitRequestFormParamsRequestedSchema(
                        properties={"name": t.StringSchema()}, required=["name"]
                    ),
                )
                answer = await runtime.ask(ctx, "elicitation/create", form, key="name")
                return text(f"thank you {(answer.content or {}).get('name')}")
            if params.name == "add_tool":
                extra.append(f"extra_{len(extra) + 1}")
                await ctx.notify_tool_list_changed()
                return text(f"added {extra[-1]}")
            return t.CallToolResult(content=[t.TextContent(text="no such tool")], is_error=True)

    return NextServer()


def main() -> None:
    """Serve one client over stdio: ``ROOT`` holds the generated package ``PKG``."""
    root, package = sys.argv[1], sys.argv[2]
    sys.path.insert(0, root)
    make_server(package).run_stdio()


if __name__ == "__main__":
    main()
