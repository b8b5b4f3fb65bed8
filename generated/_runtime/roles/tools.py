# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Tools with their functions: ``tools/list`` and ``tools/call`` with checked arguments.

Arguments are checked against the tool's ``inputSchema`` and, where the revision has it,
``structuredContent`` against its ``outputSchema``, with jsonschema (imported on first use,
so packages that never use ``ToolSet`` do not need it). Bad arguments give the spec's tool
error result (``isError: true``), which the model can read and correct; an unknown tool is a
protocol error (-32602).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError
from ..core.lifecycle import as_json


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
ToolFunction = Callable[[dict[str, Any], Any], Awaitable[ResultT]]
"""A tool's function: (arguments, handler context) -> the tool's result."""


def _validator(schema: Any) -> Any:
    """Compile a JSON Schema (2020-12 unless it names its dialect)."""
    try:
        # Imported by name: an optional dependency, typed as Any (it ships no stubs).
        jsonschema: Any = importlib.import_module("jsonschema")
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("ToolSet needs the jsonschema package: pip install jsonschema") from exc
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


class ToolSet(Generic[ToolT, ResultT]):
    """A set of tools; the generated ``Tools`` class of each revision binds the types."""

    def __init__(self) -> None:
        self._tools: dict[str, tuple[ToolT, ToolFunction[ResultT], Any, Any]] = {}

    def add(self, definition: ToolT, function: ToolFunction[ResultT]) -> None:
        """Register a tool: its definition (name, inputSchema, ...) and its function."""
        # Read by wire name: outputSchema exists from 2025-06-18 on only.
        wire = as_json(definition)
        output_schema = wire.get("outputSchema")
        output = None if output_schema is None else _validator(output_schema)
        inputs = _validator(wire.get("inputSchema"))
        self._tools[definition.name] = (definition, function, inputs, output)

    def tool(self, definition: ToolT) -> Callable[[ToolFunction[ResultT]], ToolFunction[ResultT]]:
        """Register the decorated function as the tool ``definition`` describes."""

        def register(function: ToolFunction[ResultT]) -> ToolFunction[ResultT]:
            self.add(definition, function)
            return function

        return register

    def definitions(self) -> list[ToolT]:
        """The tool definitions, in registration order (for ``tools/list``)."""
        return [entry[0] for entry in self._tools.values()]

    def error_result(self, message: str) -> ResultT:
        """Return a tool error result (``isError: true``) carrying ``message``."""
        raise NotImplementedError

    async def call(self, params: ToolCall, ctx: Any) -> ResultT:
        """Answer ``tools/call``: check the arguments, run the tool, check its structured output."""
        name = params.name
        entry = self._tools.get(name)
        if entry is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
        _, function, inputs, outputs = entry
        arguments = {} if isinstance(params.arguments, msgspec.UnsetType) else params.arguments
        problem = _problem(inputs, arguments)
        if problem is not None:
            return self.error_result(f"Invalid arguments for tool {name}: {problem}")
        result = await function(arguments, ctx)
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
