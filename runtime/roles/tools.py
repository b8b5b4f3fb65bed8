"""Tools with their functions: ``tools/list`` and ``tools/call`` with checked arguments.

Arguments are checked against the tool's ``inputSchema`` and, where the revision has it,
``structuredContent`` against its ``outputSchema``, with jsonschema (imported on first use,
so packages that never use ``ToolSet`` do not need it). Bad arguments give the spec's tool
error result (``isError: true``), which the model can read and correct; an unknown tool is a
protocol error (-32602).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Generic, Protocol, TypeVar

import msgspec

from ..core.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MCPError,
    MissingDependency,
    RoundTripSignal,
    ToolError,
)
from ..core.lifecycle import as_json

logger = logging.getLogger(__name__)

PASSED_ON: Final = (MCPError, RoundTripSignal)
"""What a tool raises that its handler's caller answers: a protocol error it chose, or a
multi round-trip signal. Every other exception is a tool error result."""


def failure_text(tool: str, exc: Exception) -> str:
    """The text of the tool error result answering ``exc`` from ``tool``: a ``ToolError``'s
    own message; anything else is logged with its traceback and answered without details."""
    if isinstance(exc, ToolError):
        return str(exc) or f"tool {tool} failed"
    logger.exception("tool %s failed", tool, exc_info=exc)
    return f"internal error in tool {tool}"


class ToolDefinition(Protocol):
    """What a ``ToolSet`` reads of any revision's ``Tool``."""

    @property
    def name(self) -> str:
        """The tool's name."""
        ...

    @property
    def input_schema(self) -> Any:
        """The JSON Schema of its arguments."""
        ...


class ToolCall(Protocol):
    """What a ``ToolSet`` reads of any revision's ``tools/call`` params."""

    @property
    def name(self) -> str:
        """The tool to call."""
        ...

    @property
    def arguments(self) -> dict[str, Any] | msgspec.UnsetType:
        """Its arguments, if any."""
        ...


ToolT = TypeVar("ToolT", bound=ToolDefinition)
ResultT = TypeVar("ResultT")
ContextT = TypeVar("ContextT")
ArgumentsT = TypeVar("ArgumentsT", bound="dict[str, Any] | msgspec.Struct")
ToolFunction = Callable[[ArgumentsT, ContextT], Awaitable[ResultT]]
"""A tool's function: (arguments, the handler's context) -> the tool's result. The arguments
are the wire dict, or a msgspec ``Struct`` when the function's first parameter is one."""


def _arguments_type(function: Callable[..., object]) -> type[msgspec.Struct] | None:
    """The Struct type of ``function``'s first parameter, if it is annotated with one (only
    that annotation is resolved: the others may name what only the function's scope knows)."""
    first = next(iter(inspect.signature(function).parameters.values()), None)
    if first is None or first.annotation is inspect.Parameter.empty:
        return None
    scope = types.SimpleNamespace(
        __annotations__={first.name: first.annotation},
        __globals__=getattr(function, "__globals__", {}),
    )
    try:
        hint = typing.get_type_hints(scope).get(first.name)
    except Exception:  # a name its module does not hold: taken as the wire dict
        return None
    return hint if isinstance(hint, type) and issubclass(hint, msgspec.Struct) else None


_Entry = tuple[
    ToolT,
    Callable[[Any, ContextT], Awaitable[ResultT]],
    "type[msgspec.Struct] | None",
    Any,
    Any,
]
"""A registered tool: definition, function, its arguments Struct (or None), the input and
output validators."""


def _validator(schema: Any) -> Any:
    """Compile a JSON Schema (2020-12 unless it names its dialect)."""
    try:
        # Imported by name: an optional dependency, typed as Any (it ships no stubs).
        jsonschema: Any = importlib.import_module("jsonschema")
    except ImportError:  # pragma: no cover - depends on the installation
        raise MissingDependency("jsonschema", "runtime", "Tools (checking arguments)") from None
    if not isinstance(schema, Mapping):
        return None
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def _problem(validator: Any, value: Any) -> str | None:
    """Return the first validation problem of ``value`` (with where it is), or None."""
    if validator is None:
        return None
    error = next(iter(sorted(validator.iter_errors(value), key=lambda e: list(e.path))), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{error.message} (at /{where})" if where else str(error.message)


class ToolSet(Generic[ToolT, ResultT, ContextT]):
    """A set of tools; the generated ``Tools`` class of each revision binds the types: its
    ``Tool``, its ``CallToolResult`` and its ``ServerContext``."""

    def __init__(self) -> None:
        self._tools: dict[str, _Entry[ToolT, ContextT, ResultT]] = {}

    def add(self, definition: ToolT, function: ToolFunction[ArgumentsT, ContextT, ResultT]) -> None:
        """Register a tool: its definition (name, inputSchema, ...) and its function."""
        # Read by wire name: outputSchema exists from 2025-06-18 on only.
        wire = as_json(definition)
        output_schema = wire.get("outputSchema")
        output = None if output_schema is None else _validator(output_schema)
        inputs = _validator(wire.get("inputSchema"))
        arguments = _arguments_type(function)
        self._tools[definition.name] = (definition, function, arguments, inputs, output)

    def tool(
        self, definition: ToolT
    ) -> Callable[
        [ToolFunction[ArgumentsT, ContextT, ResultT]], ToolFunction[ArgumentsT, ContextT, ResultT]
    ]:
        """Register the decorated function as the tool ``definition`` describes; the function
        is returned unchanged."""

        def register(
            function: ToolFunction[ArgumentsT, ContextT, ResultT],
        ) -> ToolFunction[ArgumentsT, ContextT, ResultT]:
            self.add(definition, function)
            return function

        return register

    def definitions(self) -> list[ToolT]:
        """The tool definitions, in registration order (for ``tools/list``)."""
        return [entry[0] for entry in self._tools.values()]

    def error_result(self, message: str) -> ResultT:
        """Return a tool error result (``isError: true``) carrying ``message``."""
        raise NotImplementedError

    async def call(self, params: ToolCall, ctx: ContextT) -> ResultT:
        """Answer ``tools/call``: check the arguments, run the tool, check its structured output.

        A ``ToolError`` from the tool is a tool error result carrying its message; any other
        exception is logged and answered with a tool error result that names only the tool.
        """
        name = params.name
        entry = self._tools.get(name)
        if entry is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
        _, function, struct, inputs, outputs = entry
        arguments = {} if isinstance(params.arguments, msgspec.UnsetType) else params.arguments
        problem = _problem(inputs, arguments)
        typed: object = arguments
        if problem is None and struct is not None:
            try:
                typed = msgspec.convert(arguments, struct)
            except msgspec.ValidationError as exc:
                problem = str(exc)
        if problem is not None:
            return self.error_result(f"Invalid arguments for tool {name}: {problem}")
        try:
            result = await function(typed, ctx)
        except PASSED_ON:
            raise
        except Exception as exc:
            return self.error_result(failure_text(name, exc))
        # Read by wire name: the result types of revisions with outputSchema have these.
        wire = as_json(result) if outputs is not None else {}
        if outputs is not None and wire.get("isError") is not True:
            structured = wire.get("structuredContent", msgspec.UNSET)
            if structured is msgspec.UNSET:
                problem = "it has an outputSchema but returned no structuredContent"
            else:
                problem = _problem(outputs, structured)
            if problem is not None:
                raise MCPError(INTERNAL_ERROR, f"Tool {name} returned an invalid result: {problem}")
        return result
