"""From a server's tools to a package: names decided once (the IR), msgspec Structs from the
tools' JSON Schemas by datamodel-code-generator, one async function per tool from a template."""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import keyword
import re
import warnings
from dataclasses import dataclass, replace
from typing import Any, Final, cast

from .. import __version__
from ..errors import GenerationError
from ..render.project import format_python, template_environment
from .fetch import json_object

Json = dict[str, Any]

RESERVED: Final = frozenset(
    {*keyword.kwlist, *keyword.softkwlist, *dir(builtins), "annotations", "msgspec", "models"}
)
"""Names a tool function may not take: keywords, builtins, and what the package imports."""
OWN_NAMES: Final = frozenset(
    {"StructuredToolResult", "ToolClient", "ToolError", "ToolResult", "R", "R_co", "Out"}
)
"""Names the package's ``__init__`` defines itself; a model of the same name stays in models."""
DOC_LIMIT: Final = 200
"""Longest docstring line taken from a tool's description."""


@dataclass(frozen=True)
class ToolIR:
    """One tool: its wire name and the Python names decided for it."""

    name: str
    function: str
    doc: str
    input_class: str
    output_class: str | None
    args_required: bool

    @property
    def name_literal(self) -> str:
        """The wire name as a Python string literal."""
        return repr(self.name)


@dataclass(frozen=True)
class ToolsPackageIR:
    """What the ``__init__.py`` of a tools package lists."""

    generator_version: str
    sha256: str
    tools: tuple[ToolIR, ...]
    models: tuple[str, ...] = ()
    """Every name ``models.py`` defines, re-exported (those of the tools' own definitions too)."""


def _snake(name: str) -> str:
    """``getWeather``, ``get-weather`` and ``get.weather`` all become ``get_weather``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    snake = re.sub(r"[^0-9A-Za-z]+", "_", spaced).strip("_").lower()
    if not snake:
        snake = "tool"
    if snake[0].isdigit():
        snake = f"tool_{snake}"
    return f"{snake}_" if snake in RESERVED else snake


def _pascal(snake: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_") if part)


def _doc(tool: Json) -> str:
    """A one-line docstring from the tool's title or description, safe inside triple quotes."""
    text = tool.get("description") or tool.get("title") or ""
    first = str(text).strip().splitlines()[0].strip() if str(text).strip() else ""
    if not first:
        first = f"Call the ``{tool['name']}`` tool."
    first = first[:DOC_LIMIT].replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return first + " " if first.endswith('"') else first


def _object_schema(schema: object) -> Json:
    """A tool schema as an object schema (a missing or empty one accepts any object)."""
    found = json_object(schema)
    if found is None:
        return {"type": "object"}
    return found if "type" in found else {"type": "object", **found}


def _rebased(node: object, base: str) -> object:
    """``node`` with every local ``$ref`` pointing into it moved under ``base``."""
    if (mapping := json_object(node)) is not None:
        return {
            key: (
                base + value[1:]
                if key == "$ref" and isinstance(value, str) and value.startswith("#")
                else _rebased(value, base)
            )
            for key, value in mapping.items()
            if key != "$schema"
        }
    if isinstance(node, list):
        return [_rebased(item, base) for item in cast(list[object], node)]
    return node


def build_ir(tools: list[Json], sha256: str) -> ToolsPackageIR:
    """Decide the names: functions in snake_case, their Structs ``<Name>Input``/``Output``."""
    taken: set[str] = set()
    out: list[ToolIR] = []
    for tool in sorted(tools, key=lambda tool: str(tool["name"])):
        function = base = _snake(str(tool["name"]))
        counter = 2
        while function in taken:
            function, counter = f"{base}_{counter}", counter + 1
        taken.add(function)
        schema = _object_schema(tool.get("inputSchema"))
        required = schema.get("required")
        out.append(
            ToolIR(
                name=str(tool["name"]),
                function=function,
                doc=_doc(tool),
                input_class=f"{_pascal(function)}Input",
                output_class=(
                    f"{_pascal(function)}Output" if tool.get("outputSchema") is not None else None
                ),
                args_required=bool(required),
            )
        )
    return ToolsPackageIR(__version__, sha256, tuple(out))


def schema_document(tools: list[Json], ir: ToolsPackageIR) -> Json:
    """One JSON Schema whose ``$defs`` are every tool's input and output schema, by class name."""
    by_name = {str(tool["name"]): tool for tool in tools}
    defs: Json = {}
    for tool in ir.tools:
        source = by_name[tool.name]
        defs[tool.input_class] = _rebased(
            _object_schema(source.get("inputSchema")), f"#/$defs/{tool.input_class}"
        )
        if tool.output_class is not None:
            defs[tool.output_class] = _rebased(
                _object_schema(source.get("outputSchema")), f"#/$defs/{tool.output_class}"
            )
    return {"$defs": defs}


def models_source(document: Json, header: str) -> str:
    """msgspec Structs for the schema document, written by datamodel-code-generator."""
    # Loaded here: only ``mcpgen tools`` needs it, and it is slow to import.
    from datamodel_code_generator import InputFileType, LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import Formatter

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its notices about future defaults, not ours
            source = generate(
                document,
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.MsgspecStruct,
                target_python_version=PythonVersion.PY_311,
                disable_timestamp=True,
                skip_root_model=True,
                keyword_only=True,
                use_schema_description=True,
                use_field_description=True,
                enum_field_as_literal=LiteralType.All,
                custom_file_header=header,
                formatters=[Formatter.BUILTIN],
            )
    except Exception as exc:  # its errors have no common base; each is one line for the user
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GenerationError(f"cannot generate types for the tool schemas: {first}") from None
    if not isinstance(source, str):
        raise GenerationError("internal error: datamodel-code-generator wrote no single module")
    return source


def _defined(source: str) -> set[str]:
    tree = ast.parse(source)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def render_tools_package(tools: list[Json]) -> dict[str, str]:
    """Every file of the tools package, relative path to text."""
    saved = json.dumps({"tools": tools}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    sha256 = hashlib.sha256(saved.encode()).hexdigest()
    ir = build_ir(tools, sha256)
    header = (
        f"# Generated by mcpgen {__version__} (types by datamodel-code-generator) from the tools "
        f"in tools.json, sha256 {sha256}. Do not edit."
    )
    models = models_source(schema_document(tools, ir), header)
    wanted = {t.input_class for t in ir.tools}
    wanted.update(t.output_class for t in ir.tools if t.output_class is not None)
    missing = wanted - _defined(models)
    if missing:
        raise GenerationError(
            f"internal error: the tool types {', '.join(sorted(missing))} were not generated"
        )
    exported = tuple(sorted(_defined(models) - OWN_NAMES))
    template = template_environment().get_template("tools_init.py.jinja")
    init = template.render(pkg=replace(ir, models=exported))
    return {
        "__init__.py": format_python("__init__.py", init),
        "models.py": format_python("models.py", models),
        "py.typed": "",
        "tools.json": saved,
    }
