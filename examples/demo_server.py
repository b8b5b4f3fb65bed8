"""A demo MCP server written once (revision 2025-11-25) and served to clients of every revision.

Tools return text, images, audio, embedded resources, resource links and structured content;
one fails, one reports progress and logs, one asks the client's model (sampling), one asks the
user (elicitation), one reads the client's roots. Resources: static text, a binary blob and a
template (``demo://notes/{id}``) whose notes can be subscribed to. Prompts take arguments and
carry an image and an embedded resource; completion suggests prompt arguments and template
variables. Run ``python examples/demo_server.py`` to serve one client over stdio.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated.converters import every_revision
from generated.runtime import CapabilityError, HttpOptions, MCPError, run_http
from generated.v2025_11_25 import Server, ServerContext, Tools
from generated.v2025_11_25 import types as t

RESOURCE_NOT_FOUND = -32002
"""The error code the spec gives an unknown resource URI."""
LOGO_PNG = (  # a 2x2 orange PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR42mP438AARAwQCgAt7gX9Yz7BCwAAAABJRU5ErkJggg=="
)
BEEP_WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YRAAAACAyIA4gMiAOIDIgDiAyIA4"
README = "# Demo\n\nThis server shows every MCP server feature, to clients of every revision.\n"
NOTE_TEMPLATE = "demo://notes/{id}"

# One process serves one stdio client, so the demo keeps its state in module globals.
NOTES: dict[str, str] = {"1": "buy milk", "2": "call Ada", "12": "water the plants"}
SUBSCRIBED: set[str] = set()


def note_uri(note_id: str) -> str:
    """The URI of a note (``NOTE_TEMPLATE`` filled in)."""
    return NOTE_TEMPLATE.replace("{id}", note_id)


def text(value: str) -> t.CallToolResult:
    """A tool result holding one text block."""
    return t.CallToolResult(content=[t.TextContent(text=value)])


def failure(value: str) -> t.CallToolResult:
    """A tool error result (``isError``): the model sees the message and may try again."""
    return t.CallToolResult(content=[t.TextContent(text=value)], is_error=True)


# -- tools --------------------------------------------------------------------------------

tools = Tools()
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


@tools.tool(
    t.Tool(
        name="echo",
        description="Repeat a text.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    )
)
async def echo(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Return the text it was given."""
    return text(args["text"])


@tools.tool(
    t.Tool(name="media", description="An image, a sound and resources.", input_schema=NO_ARGS)
)
async def media(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Return one block of every non-text content type."""
    readme = t.TextResourceContents(uri="demo://readme", mime_type="text/markdown", text=README)
    return t.CallToolResult(
        content=[
            t.ImageContent(data=LOGO_PNG, mime_type="image/png"),
            t.AudioContent(data=BEEP_WAV, mime_type="audio/wav"),
            t.EmbeddedResource(resource=readme),
            t.ResourceLink(uri="demo://logo.png", name="logo", mime_type="image/png"),
        ]
    )


@tools.tool(
    t.Tool(
        name="weather",
        description="Today's weather in a city, as structured content.",
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        output_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
            "required": ["city", "celsius"],
        },
    )
)
async def weather(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Return structured content (checked against the outputSchema) and its JSON as text."""
    report = {"city": args["city"], "celsius": 10 + len(args["city"])}
    return t.CallToolResult(
        content=[t.TextContent(text=json.dumps(report))], structured_content=report
    )


@tools.tool(
    t.Tool(
        name="divide",
        description="Divide a by b.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    )
)
async def divide(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Fail with a tool error (not a protocol error) when b is zero."""
    if args["b"] == 0:
        return failure("cannot divide by zero")
    return text(str(args["a"] / args["b"]))


@tools.tool(
    t.Tool(
        name="count",
        description="Count to n, reporting progress and logging each step.",
        input_schema={
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}},
            "required": ["n"],
        },
    )
)
async def count(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Send one progress notification and one debug log per step, and an info log at the end."""
    n = args["n"]
    for i in range(1, n + 1):
        await ctx.progress(i, n, f"step {i} of {n}")
        await ctx.log("debug", f"counted {i}", logger="count")
    await ctx.log("info", {"counted": n}, logger="count")
    return text(f"counted to {n}")


@tools.tool(
    t.Tool(
        name="summarize",
        description="Ask the client's model to summarize a text.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    )
)
async def summarize(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Sample the client's LLM (``sampling/createMessage``)."""
    question = t.TextContent(text=f"Summarize in one line: {args['text']}")
    try:
        answer = await ctx.create_message(
            messages=[t.SamplingMessage(role="user", content=question)],
            max_tokens=50,
            system_prompt="You are terse.",
        )
    except CapabilityError as exc:
        return failure(str(exc))
    if not isinstance(answer.content, t.TextContent):
        return failure("the model did not answer with text")
    return text(f"{answer.model} says: {answer.content.text}")


@tools.tool(
    t.Tool(name="book_table", description="Book a table; asks the user.", input_schema=NO_ARGS)
)
async def book_table(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Ask the user for details (``elicitation/create``) with a requested schema."""
    schema = t.ElicitRequestFormParamsRequestedSchema(
        properties={
            "name": t.StringSchema(title="Name", min_length=1),
            "guests": t.NumberSchema(type="integer", minimum=1, maximum=12),
            "terrace": t.BooleanSchema(title="Terrace?", default=False),
        },
        required=["name", "guests"],
    )
    try:
        ask = t.ElicitRequestFormParams(message="Who is the table for?", requested_schema=schema)
        reply = await ctx.elicit(params=ask)
    except CapabilityError as exc:
        return failure(str(exc))
    if reply.action != "accept" or not isinstance(reply.content, dict):
        return text(f"booking {reply.action}ed")
    form = reply.content
    where = "on the terrace" if form.get("terrace") else "inside"
    return text(f"booked a table for {form['guests']} in the name of {form['name']}, {where}")


@tools.tool(t.Tool(name="roots", description="List the client's roots.", input_schema=NO_ARGS))
async def roots(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Ask the client for its roots (``roots/list``)."""
    try:
        found = await ctx.list_roots()
    except CapabilityError as exc:
        return failure(str(exc))
    return text(", ".join(root.uri for root in found.roots))


@tools.tool(
    t.Tool(
        name="edit_note",
        description="Change a note; subscribers get notifications/resources/updated.",
        input_schema={
            "type": "object",
            "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
            "required": ["id", "text"],
        },
    )
)
async def edit_note(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Change a note and tell the client if it subscribed to it."""
    NOTES[args["id"]] = args["text"]
    uri = note_uri(args["id"])
    # A stateless client subscribes with its listen stream, which filters what is published.
    if uri in SUBSCRIBED or ctx.facts is not None:
        await ctx.notify_resource_updated(uri=uri)
    return t.CallToolResult(content=[t.ResourceLink(uri=uri, name=f"note {args['id']}")])


# -- resources and prompts ----------------------------------------------------------------

RESOURCES = [
    t.Resource(uri="demo://readme", name="readme", title="Read me", mime_type="text/markdown"),
    t.Resource(uri="demo://logo.png", name="logo", mime_type="image/png", size=73),
]
TEMPLATES = [
    t.ResourceTemplate(uri_template=NOTE_TEMPLATE, name="note", mime_type="text/plain"),
]
PROMPTS = [
    t.Prompt(
        name="greet",
        description="Greet someone.",
        arguments=[
            t.PromptArgument(name="name", required=True),
            t.PromptArgument(name="style", description="casual or formal"),
        ],
    ),
    t.Prompt(name="describe_logo", description="Describe the logo (an image)."),
    t.Prompt(
        name="review_note",
        description="Review a note (an embedded resource).",
        arguments=[t.PromptArgument(name="id", required=True)],
    ),
]
STYLES = ["casual", "cheerful", "formal"]


def contents(uri: str) -> t.TextResourceContents | t.BlobResourceContents:
    """The contents of a resource, or the spec's resource-not-found error."""
    if uri == "demo://readme":
        return t.TextResourceContents(uri=uri, mime_type="text/markdown", text=README)
    if uri == "demo://logo.png":
        return t.BlobResourceContents(uri=uri, mime_type="image/png", blob=LOGO_PNG)
    prefix = NOTE_TEMPLATE.removesuffix("{id}")
    if uri.startswith(prefix) and uri[len(prefix) :] in NOTES:
        return t.TextResourceContents(
            uri=uri, mime_type="text/plain", text=NOTES[uri[len(prefix) :]]
        )
    raise MCPError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})


def matching(values: list[str], prefix: str) -> t.CompleteResult:
    """A completion of the values starting with ``prefix``."""
    found = [v for v in values if v.startswith(prefix)]
    return t.CompleteResult(completion=t.CompleteResultCompletion(values=found, total=len(found)))


class DemoServer(Server):
    """The demo server: overriding a handler declares its capability."""

    name = "mcpgen-demo"
    version = "1.0.0"
    instructions = "A demo of every MCP server feature. Try the `count` tool."

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """Every tool of ``tools``."""
        return t.ListToolsResult(tools=tools.definitions())

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Run a tool; ``Tools`` checks its arguments and structured output."""
        return await tools.call(params, ctx)

    async def list_resources(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListResourcesResult:
        """The static resources (notes are reached through the template)."""
        return t.ListResourcesResult(resources=RESOURCES)

    async def list_resource_templates(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListResourceTemplatesResult:
        """The note template."""
        return t.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read_resource(
        self, params: t.ReadResourceRequestParams, ctx: ServerContext
    ) -> t.ReadResourceResult:
        """Read a static resource or a note."""
        return t.ReadResourceResult(contents=[contents(params.uri)])

    async def subscribe(
        self, params: t.SubscribeRequestParams, ctx: ServerContext
    ) -> t.EmptyResult:
        """Remember the URI: ``edit_note`` sends notifications/resources/updated for it."""
        contents(params.uri)  # refuse unknown resources
        SUBSCRIBED.add(params.uri)
        return {}

    async def unsubscribe(
        self, params: t.UnsubscribeRequestParams, ctx: ServerContext
    ) -> t.EmptyResult:
        """Forget the URI."""
        SUBSCRIBED.discard(params.uri)
        return {}

    async def list_prompts(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListPromptsResult:
        """The prompts."""
        return t.ListPromptsResult(prompts=PROMPTS)

    async def get_prompt(
        self, params: t.GetPromptRequestParams, ctx: ServerContext
    ) -> t.GetPromptResult:
        """Fill in a prompt; a missing required argument is an invalid-params error."""
        args = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name == "greet":
            if "name" not in args:
                raise MCPError(-32602, "greet needs the argument 'name'")
            style = args.get("style", "casual")
            ask = t.TextContent(text=f"Write a {style} greeting for {args['name']}.")
            return t.GetPromptResult(messages=[t.PromptMessage(role="user", content=ask)])
        if params.name == "describe_logo":
            image = t.ImageContent(data=LOGO_PNG, mime_type="image/png")
            ask = t.TextContent(text="Describe this logo in five words.")
            messages = [
                t.PromptMessage(role="user", content=image),
                t.PromptMessage(role="user", content=ask),
            ]
            return t.GetPromptResult(description="the logo", messages=messages)
        if params.name == "review_note":
            note = t.EmbeddedResource(resource=contents(note_uri(args.get("id", ""))))
            ask = t.TextContent(text="Is this note clear?")
            messages = [
                t.PromptMessage(role="user", content=note),
                t.PromptMessage(role="user", content=ask),
            ]
            return t.GetPromptResult(messages=messages)
        raise MCPError(-32602, f"Unknown prompt: {params.name}")

    async def complete(
        self, params: t.CompleteRequestParams, ctx: ServerContext
    ) -> t.CompleteResult:
        """Suggest greeting styles and note ids (for the prompts and the note template)."""
        ref, arg = params.ref, params.argument
        if isinstance(ref, t.PromptReference) and ref.name == "greet" and arg.name == "style":
            return matching(STYLES, arg.value)
        is_note_ref = isinstance(ref, t.ResourceTemplateReference) and ref.uri == NOTE_TEMPLATE
        is_note_prompt = isinstance(ref, t.PromptReference) and ref.name == "review_note"
        if (is_note_ref or is_note_prompt) and arg.name == "id":
            return matching(sorted(NOTES), arg.value)
        return matching([], "")


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve over stdio (the default)")
    transport.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp (and 2024-11-05's /sse endpoints)",
    )
    parser.add_argument("--json", action="store_true", help="HTTP: answer with JSON, not SSE")
    parser.add_argument("--stateless", action="store_true", help="HTTP: no sessions")
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="HTTP: run as one of several workers sharing this Redis (and MCPGEN_STATE_KEY)",
    )
    parser.add_argument(
        "--only",
        metavar="REVISION",
        help="serve this protocol revision only (the others are refused, as by an older server)",
    )
    args = parser.parse_args(argv)
    servers = every_revision(DemoServer())
    if args.only:
        servers = [s for s in servers if args.only == s.PROTOCOL_VERSION]
        if not servers:
            parser.error(f"no revision {args.only!r}")
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: stop quietly
        if args.http:
            host, _, port = args.http.rpartition(":")
            options = HttpOptions(json_response=args.json, stateless=args.stateless)
            if args.redis:
                from generated._runtime.backends.redis import RedisBackend  # the redis extra

                options.backend = RedisBackend(args.redis)
            run_http(servers, host or "127.0.0.1", int(port), options)
        else:
            servers[0].run_stdio(*servers[1:])


if __name__ == "__main__":
    main()
