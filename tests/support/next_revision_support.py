"""A synthetic next revision, derived at test time from the 2026-07-28 schema file.

``2027-01-01`` is 2026-07-28 plus a new request (``tools/describe``: params with the tool's
name, a result carrying the ``Tool``), a new content block (``{"type": "chart", ...}`` in
``ContentBlock``), a new optional member of ``Tool`` (``category``), and minus an optional
member of a result (``GetPromptResult.description``). Its own overrides file names the base
and gives the new result its ``resultType`` constant, as the base does for its results.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

NEXT = "2027-01-01"
BASE = "2026-07-28"
RESULT_TYPE_DOC = "Indicates the type of the result."


def next_schema(schema_dir: Path) -> dict[str, Any]:
    """The synthetic next revision's schema, built from the base's schema file."""
    raw: dict[str, Any] = json.loads((schema_dir / BASE / "schema.json").read_text("utf-8"))
    out = copy.deepcopy(raw)
    defs: dict[str, Any] = out["$defs"]
    meta = {"$ref": "#/$defs/MetaObject"}
    defs["ChartContent"] = {
        "description": "A chart: a named series of numbers.",
        "properties": {
            "_meta": meta,
            "series": {"items": {"type": "number"}, "type": "array"},
            "title": {"type": "string"},
            "type": {"const": "chart", "type": "string"},
        },
        "required": ["series", "type"],
        "type": "object",
    }
    defs["ContentBlock"]["anyOf"].append({"$ref": "#/$defs/ChartContent"})
    defs["Tool"]["properties"]["category"] = {
        "description": "What kind of tool this is.",
        "type": "string",
    }
    del defs["GetPromptResult"]["properties"]["description"]
    defs["DescribeToolRequestParams"] = {
        "properties": {
            "_meta": copy.deepcopy(defs["RequestParams"]["properties"]["_meta"]),
            "name": {"type": "string"},
        },
        "required": ["name"],
        "type": "object",
    }
    defs["DescribeToolRequest"] = {
        "description": "Asks the server to describe one tool.",
        "properties": {
            "id": {"$ref": "#/$defs/RequestId"},
            "jsonrpc": {"const": "2.0", "type": "string"},
            "method": {"const": "tools/describe", "type": "string"},
            "params": {"$ref": "#/$defs/DescribeToolRequestParams"},
        },
        "required": ["id", "jsonrpc", "method", "params"],
        "type": "object",
    }
    defs["DescribeToolResult"] = {
        "properties": {
            "_meta": meta,
            "resultType": {"description": RESULT_TYPE_DOC, "type": "string"},
            "tool": {"$ref": "#/$defs/Tool"},
        },
        "required": ["resultType", "tool"],
        "type": "object",
    }
    defs["DescribeToolResultResponse"] = {
        "properties": {
            "id": {"$ref": "#/$defs/RequestId"},
            "jsonrpc": {"const": "2.0", "type": "string"},
            "result": {"$ref": "#/$defs/DescribeToolResult"},
        },
        "required": ["id", "jsonrpc", "result"],
        "type": "object",
    }
    defs["ClientRequest"]["anyOf"].append({"$ref": "#/$defs/DescribeToolRequest"})
    defs["ServerResult"]["anyOf"].append({"$ref": "#/$defs/DescribeToolResult"})
    return out


OWN_OVERRIDES = f'''# Overrides of the synthetic next revision {NEXT}: its base's, plus its own.
base = "{BASE}"

[[patch]]
pointer = "/$defs/DescribeToolResult/properties/resultType"
expect = {{ description = "{RESULT_TYPE_DOC}", type = "string" }}
value = {{ description = "{RESULT_TYPE_DOC}", type = "string", const = "complete" }}
why = "resultType is fixed per result type, as in the base"

[capabilities]
"tools/describe" = "tools"
'''


def write_next(schema_dir: Path, folder: Path) -> tuple[Path, Path]:
    """Write the next revision's schema file and its own overrides file into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    schema = folder / "next.json"
    schema.write_text(json.dumps(next_schema(schema_dir), indent=1), encoding="utf-8")
    overrides = folder / "next.toml"
    overrides.write_text(OWN_OVERRIDES, encoding="utf-8")
    return schema, overrides
