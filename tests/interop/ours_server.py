"""An MCP server written with our generated API, served over stdio.

The counterpart of ``sdk_server.py`` for the interop tests. Run as
``python tests/interop/ours_server.py [REVISION ...]`` (default ``2025-06-18``): the first
revision's ``Server`` serves the connection, the others are offered alongside it
(``run_stdio(*others)``), so the client's proposal picks among them.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated._runtime.roles.peer import MCPError

STRUCTURED_SINCE = "2025-06-18"
"""The first revision with ``structuredContent``/``outputSchema`` and ``elicitation/create``."""
OBJECT: dict[str, Any] = {"type": "object"}
NUMBER: dict[str, Any] = {"type": "number"}


def package(revision: str) -> ModuleType:
    """Import ``generated.vYYYY_MM_DD`` for ``revision``."""
    return importlib.import_module("generated.v" + revision.replace("-", "_"))


def build(revision: str) -> Any:
    """Return a server of ``revision`` with tools, resources, prompts and completions."""
    pkg = package(revision)
    t: Any = pkg.types
    newer = revision >= STRUCTURED_SINCE
    has_message = "message" in t.ProgressNotificationParams.__struct_fields__
    state: dict[str, Any] = {"slow": "idle", "cancelled": 0}
    tools = pkg.Tools()

    def text(value: str, **extra: Any) -> Any:
        """A tool result with one text block."""
        return t.CallToolResult(content=[t.TextContent(text=value)], **extra)

    async def echo(args: dict[str, Any], ctx: Any) -> Any:
        """Echo the text back."""
        return text(f"echo: {args['text']}")

    async def add(args: dict[str, Any], ctx: Any) -> Any:
        """Add two numbers (structured content where the revision has it)."""
        total = args["a"] + args["b"]
        return text(str(total), structured_content={"sum": total}) if newer else text(str(total))

    async def progress(args: dict[str, Any], ctx: Any) -> Any:
        """Report three steps of progress."""
        for step in (1, 2, 3):
            await ctx.progress(step, 3, f"step {step}" if has_message else None)
        return text("done")

    async def log(args: dict[str, Any], ctx: Any) -> Any:
        """Log at debug, info and warning (the runtime filters by the client's level)."""
        for level, msg in (("debug", "d"), ("info", "i"), ("warning", "w")):
            await ctx.log(level, {"msg": msg}, logger="ours")
        return text("logged")

    async def sample(args: dict[str, Any], ctx: Any) -> Any:
        """Ask the client's model a question."""
        question = t.SamplingMessage(role="user", content=t.TextContent(text="What is 2+2?"))
        answer = await ctx.create_message(messages=[question], max_tokens=20)
        return text(f"model {answer.model} said {answer.content.text}")

    async def elicit(args: dict[str, Any], ctx: Any) -> Any:
        """Ask the user for a name and an age."""
        props = {"name": t.StringSchema(), "age": t.NumberSchema(type="integer")}
        if revision >= "2025-11-25":
            schema = t.ElicitRequestFormParamsRequestedSchema(properties=props, required=["name"])
            params = t.ElicitRequestFormParams(message="Who are you?", requested_schema=schema)
            reply = await ctx.elicit(params=params)
        else:
            schema = t.ElicitRequestParamsRequestedSchema(properties=props, required=["name"])
            reply = await ctx.elicit(message="Who are you?", requested_schema=schema)
        content = None if reply.content is msgspec.UNSET else reply.content
        return text(f"{reply.action}: {content}")

    async def slow(args: dict[str, Any], ctx: Any) -> Any:
        """Sleep long enough to be cancelled; record what happened."""
        state["slow"] = "running"
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["slow"] = "cancelled"
            state["cancelled"] += 1
            raise
        state["slow"] = "finished"
        return text("slow done")

    async def slow_status(args: dict[str, Any], ctx: Any) -> Any:
        """Say what became of the last ``slow`` call and how many were cancelled."""
        return text(f"{state['slow']} {state['cancelled']}")

    string = {"type": "string"}
    tools.add(
        t.Tool(
            name="echo",
            description="Echo the text back",
            input_schema={"type": "object", "properties": {"text": string}, "required": ["text"]},
        ),
        echo,
    )
    add_schema = {
        "type": "object",
        "properties": {"a": NUMBER, "b": NUMBER},
        "required": ["a", "b"],
    }
    if newer:
        out = {"type": "object", "properties": {"sum": NUMBER}, "required": ["sum"]}
        tools.add(t.Tool(name="add", input_schema=add_schema, output_schema=out), add)
    else:
        tools.add(t.Tool(name="add", input_schema=add_schema), add)
    for name, fn in (("progress", progress), ("log", log), ("sample", sample)):
        tools.add(t.Tool(name=name, input_schema=OBJECT), fn)
    tools.add(t.Tool(name="slow", input_schema=OBJECT), slow)
    tools.add(t.Tool(name="slow_status", input_schema=OBJECT), slow_status)
    if newer:
        tools.add(t.Tool(name="elicit", input_schema=OBJECT), elicit)

    class Demo(pkg.Server):  # type: ignore[name-defined,misc]
        """The interop server of one revision."""

        name = "ours-interop"
        version = revision
        instructions = "ours interop server"

        async def list_tools(self, params: Any, ctx: Any) -> Any:
            """Answer ``tools/list``."""
            return t.ListToolsResult(tools=tools.definitions())

        async def call_tool(self, params: Any, ctx: Any) -> Any:
            """Answer ``tools/call``."""
            return await tools.call(params, ctx)

        async def list_resources(self, params: Any, ctx: Any) -> Any:
            """Answer ``resources/list``."""
            greeting = t.Resource(name="greeting", uri="mem://greeting", mime_type="text/plain")
            return t.ListResourcesResult(resources=[greeting])

        async def list_resource_templates(self, params: Any, ctx: Any) -> Any:
            """Answer ``resources/templates/list``."""
            item = t.ResourceTemplate(name="item", uri_template="mem://items/{id}")
            return t.ListResourceTemplatesResult(resource_templates=[item])

        async def read_resource(self, params: Any, ctx: Any) -> Any:
            """Answer ``resources/read`` for the greeting and the template's items."""
            uri = params.uri
            if uri == "mem://greeting":
                body = "hello from ours"
            elif uri.startswith("mem://items/"):
                body = f"item {uri.removeprefix('mem://items/')}"
            else:
                raise MCPError(-32002, f"Resource not found: {uri}")
            contents = t.TextResourceContents(uri=uri, mime_type="text/plain", text=body)
            return t.ReadResourceResult(contents=[contents])

        async def list_prompts(self, params: Any, ctx: Any) -> Any:
            """Answer ``prompts/list``."""
            argument = t.PromptArgument(name="name", required=True)
            return t.ListPromptsResult(prompts=[t.Prompt(name="greet", arguments=[argument])])

        async def get_prompt(self, params: Any, ctx: Any) -> Any:
            """Answer ``prompts/get``."""
            args = {} if params.arguments is msgspec.UNSET else params.arguments
            content = t.TextContent(text=f"Say hello to {args.get('name', 'nobody')}")
            message = t.PromptMessage(role="user", content=content)
            return t.GetPromptResult(description="A greeting", messages=[message])

        async def complete(self, params: Any, ctx: Any) -> Any:
            """Answer ``completion/complete`` (the prompt's ``name``, the template's ``id``)."""
            names = ["alice", "albert", "bob"]
            choices = names if params.argument.name == "name" else ["1", "12", "2"]
            values = [c for c in choices if c.startswith(params.argument.value)]
            completion = t.CompleteResultCompletion(values=values, total=len(values))
            return t.CompleteResult(completion=completion)

    return Demo()


def main(argv: list[str]) -> None:
    """Serve the revisions named in ``argv`` over stdio."""
    revisions = argv or ["2025-06-18"]
    servers = [build(r) for r in revisions]
    servers[0].run_stdio(*servers[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
