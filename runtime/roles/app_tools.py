"""A tool of the decorator app: its ``tools/list`` definition read from a typed function's
signature and return annotation, and its ``tools/call``: arguments decoded by msgspec, the
function called, its value shaped into content and ``structuredContent``."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from types import UnionType
from typing import Any, Union, is_typeddict

import msgspec

from ..core.methods import MethodSpec
from .app_context import Context, object_schema, text_block
from .server import ServerContext
from .tools import PASSED_ON, failure_text

Json = dict[str, Any]
_ENCODER = msgspec.json.Encoder()


def doc_line(fn: Callable[..., object]) -> str | None:
    """The first paragraph of ``fn``'s docstring on one line (a definition's description)."""
    text = inspect.getdoc(fn)
    return text.split("\n\n")[0].replace("\n", " ") if text else None


def is_record(tp: object) -> bool:
    """Struct, dataclass or TypedDict: returned as structured content as it is."""
    if not isinstance(tp, type):
        return False
    cls: type[object] = tp
    return issubclass(cls, msgspec.Struct) or dataclasses.is_dataclass(cls) or is_typeddict(cls)


@dataclasses.dataclass(frozen=True)
class AppTool:
    """A tool: its definition on the wire and how to call its function."""

    fn: Callable[..., object]
    definition: Json
    arguments: type[msgspec.Struct]
    struct_param: str | None
    context_param: str | None
    output: str  # "text" (str), "content" (blocks), "record" (as is), "wrapped", "none"
    is_async: bool

    @classmethod
    def build(cls, fn: Callable[..., object], name: str | None, title: str | None) -> AppTool:
        """Read the signature and return annotation of ``fn``."""
        hints = typing.get_type_hints(fn, include_extras=True)
        params = inspect.signature(fn).parameters.values()
        context = next((p.name for p in params if hints.get(p.name) is Context), None)
        plain = [p for p in params if p.name != context]
        tool_name = name or fn.__name__
        struct_param = None
        if len(plain) == 1 and is_struct(hints.get(plain[0].name)):
            struct_param, arguments = plain[0].name, hints[plain[0].name]
        else:
            fields = [
                (p.name, hints.get(p.name, Any))
                if p.default is inspect.Parameter.empty
                else (p.name, hints.get(p.name, Any), p.default)
                for p in plain
            ]
            arguments = msgspec.defstruct(f"{tool_name}_arguments", fields, kw_only=True)
        definition: Json = {"name": tool_name, "inputSchema": object_schema(arguments)}
        if (description := doc_line(fn)) is not None:
            definition["description"] = description
        if title is not None:
            definition["title"] = title
        returns = hints.get("return", type(None))
        if returns is str:
            output = "text"
        elif returns is type(None):
            output = "none"
        elif is_content_list(returns):
            output = "content"
        elif is_record(returns):
            output = "record"
            definition["outputSchema"] = object_schema(returns)
        else:
            output = "wrapped"
            wrapper = msgspec.defstruct(f"{tool_name}_output", [("result", returns)])
            definition["outputSchema"] = object_schema(wrapper)
        is_async = inspect.iscoroutinefunction(fn)
        return cls(fn, definition, arguments, struct_param, context, output, is_async)

    async def call(
        self, arguments: object, ctx: ServerContext, methods: Mapping[str, MethodSpec[Any, Any]]
    ) -> Json:
        """Decode the arguments, call the function, shape the result; failures are isError."""
        try:
            args = msgspec.convert(arguments or {}, self.arguments)
        except msgspec.ValidationError as exc:
            return {"content": [text_block(f"invalid arguments: {exc}")], "isError": True}
        kwargs: dict[str, object] = (
            {self.struct_param: args}
            if self.struct_param is not None
            else msgspec.structs.asdict(args)
        )
        if self.context_param is not None:
            kwargs[self.context_param] = Context(ctx, methods)
        try:
            value = self.fn(**kwargs)
            if self.is_async:
                value = await typing.cast(Awaitable[object], value)
        except PASSED_ON:
            raise
        except Exception as exc:  # the model reads a ToolError and may try again
            name = str(self.definition["name"])
            return {"content": [text_block(failure_text(name, exc))], "isError": True}
        if self.output == "none":
            return {"content": []}
        if self.output == "text":
            return {"content": [text_block(str(value))]}
        if self.output == "content":
            return {"content": msgspec.to_builtins(value)}
        structured = msgspec.to_builtins(value if self.output == "record" else {"result": value})
        text = _ENCODER.encode(structured).decode()
        return {"content": [text_block(text)], "structuredContent": structured}


def is_struct(tp: object) -> bool:
    """A msgspec Struct type."""
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def is_content_list(tp: object) -> bool:
    """``list[X]`` of the revision's content blocks (Structs, or a union of them): content."""
    if typing.get_origin(tp) is not list:
        return False
    (item,) = typing.get_args(tp) or (object,)
    members = typing.get_args(item) if typing.get_origin(item) in (Union, UnionType) else (item,)
    return bool(members) and all(is_struct(member) for member in members)
