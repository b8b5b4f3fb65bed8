"""Extract and classify the JSON examples of the MCP specification pages (../shared/spec)."""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SPEC_DIR = SHARED / "spec"
SCHEMA_DIR = SHARED / "schema"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
JSON_LANGS = frozenset({"json", "jsonc", "json5"})

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<lang>[A-Za-z0-9_+-]*)")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')

# Message kinds of a parsed example.
REQUEST, NOTIFICATION, RESULT, ERROR, FRAGMENT = (
    "request",
    "notification",
    "result",
    "error",
    "fragment",
)


@dataclass(frozen=True)
class Block:
    """One fenced JSON-ish code block of a spec page."""

    revision: str
    page: str
    ordinal: int
    lang: str
    line: int
    text: str
    indented: bool = False

    @property
    def id(self) -> str:
        """A readable test id such as ``2025-06-18/server/tools.mdx#3``."""
        return f"{self.revision}/{self.page}#{self.ordinal}"


@dataclass(frozen=True)
class Example:
    """A block that parsed as strict JSON, with its message kind."""

    block: Block
    value: Any
    kind: str

    @property
    def id(self) -> str:
        """The id of the block the example came from."""
        return self.block.id

    @property
    def method(self) -> str | None:
        """The JSON-RPC method of a request or notification, else None."""
        if self.kind in (REQUEST, NOTIFICATION):
            method = self.value["method"]
            return method if isinstance(method, str) else None
        return None


def _dedent(lines: list[str], indent: str) -> str:
    """Strip the fence's own indentation (MDX list nesting) from each body line."""
    out = []
    for line in lines:
        out.append(line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t"))
    return "\n".join(out)


def extract_blocks(revision: str, path: Path) -> list[Block]:
    """Return every ``json``/``jsonc``/``json5`` fenced block of one page, numbered from 1."""
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(SPEC_DIR / revision).as_posix()
    blocks: list[Block] = []
    ordinal = 0
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, indent, lang = match["fence"], match["indent"], match["lang"].lower()
        start = i + 1
        i = start
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while i < len(lines) and not closing.match(lines[i]):
            i += 1
        if lang in JSON_LANGS:
            ordinal += 1
            text = _dedent(lines[start:i], indent)
            blocks.append(Block(revision, page, ordinal, lang, start, text, bool(indent)))
        i += 1
    return blocks


def classify(value: Any) -> str:
    """Tell a JSON-RPC request, notification, result or error from any other JSON fragment."""
    if not isinstance(value, dict) or "jsonrpc" not in value:
        return FRAGMENT
    if "method" in value:
        return REQUEST if "id" in value else NOTIFICATION
    if "result" in value and "id" in value:
        return RESULT
    if "error" in value:
        return ERROR
    return FRAGMENT


def unparseable_reason(text: str) -> str:
    """Say why a block is not strict JSON: comments, ``...`` elisions, or something else."""
    code = _STRING.sub('""', text)
    if "//" in code or "/*" in code:
        return "comment"
    if "..." in code:
        return "ellipsis"
    if re.match(r'^\s*"[^"]*"\s*:', text):
        return "bare-member"
    return "other"


@dataclass
class RevisionExamples:
    """Everything extracted from one revision's pages."""

    revision: str
    blocks: list[Block]
    examples: list[Example]
    unparseable: list[tuple[Block, str]]

    def of_kind(self, kind: str) -> list[Example]:
        """The examples of one message kind."""
        return [example for example in self.examples if example.kind == kind]


@cache
def load_revision(revision: str) -> RevisionExamples:
    """Extract, parse and classify every JSON block of a revision's spec pages."""
    blocks: list[Block] = []
    for path in sorted((SPEC_DIR / revision).rglob("*.mdx")):
        blocks.extend(extract_blocks(revision, path))
    examples: list[Example] = []
    unparseable: list[tuple[Block, str]] = []
    for block in blocks:
        try:
            value = json.loads(block.text)
        except json.JSONDecodeError:
            unparseable.append((block, unparseable_reason(block.text)))
            continue
        examples.append(Example(block, value, classify(value)))
    return RevisionExamples(revision, blocks, examples, unparseable)


@cache
def omits_meta_for_brevity(revision: str, page: str) -> bool:
    """Whether a page says its request examples leave out the required ``_meta`` for brevity."""
    text = (SPEC_DIR / revision / page).read_text(encoding="utf-8")
    return "omit the `_meta`" in " ".join(text.split())


def required_fields(revision: str, name: str) -> set[str]:
    """The ``required`` members the schema declares for a definition."""
    return set(schema_definitions(revision).get(name, {}).get("required", []))


def revisions_present() -> list[str]:
    """The revisions whose spec pages exist in ../shared (empty when it is missing)."""
    return [rev for rev in REVISIONS if (SPEC_DIR / rev).is_dir()]


def module_name(revision: str) -> str:
    """The generated subpackage of a revision, e.g. ``v2025_06_18``."""
    return "v" + revision.replace("-", "_")


def types_module(revision: str) -> ModuleType:
    """The generated ``types`` module of a revision."""
    return importlib.import_module(f"generated.{module_name(revision)}.types")


def methods_table(revision: str) -> dict[str, Any]:
    """The generated ``METHODS`` table of a revision."""
    methods: dict[str, Any] = importlib.import_module(
        f"generated.{module_name(revision)}.methods"
    ).METHODS
    return methods


@cache
def schema_definitions(revision: str) -> dict[str, Any]:
    """The ``definitions`` (or ``$defs``) of a revision's schema.json."""
    schema = json.loads((SCHEMA_DIR / revision / "schema.json").read_text(encoding="utf-8"))
    defs: dict[str, Any] = schema.get("definitions") or schema.get("$defs") or {}
    return defs


def schema_methods(revision: str) -> set[str]:
    """Every method name the schema pins with a ``const`` on a ``method`` property."""
    found: set[str] = set()
    for definition in schema_definitions(revision).values():
        method = (
            definition.get("properties", {}).get("method", {})
            if isinstance(definition, dict)
            else {}
        )
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            found.add(method["const"])
    return found


def schema_properties(revision: str, name: str) -> set[str]:
    """The property names the schema declares for a definition (following ``allOf``)."""
    definition = schema_definitions(revision).get(name, {})
    props = set(definition.get("properties", {}))
    for part in definition.get("allOf", []):
        ref = part.get("$ref", "")
        if ref:
            props |= schema_properties(revision, ref.rsplit("/", 1)[-1])
        props |= set(part.get("properties", {}))
    return props


@dataclass(frozen=True)
class ResultTarget:
    """Which method a result example answers and how that was worked out."""

    strategy: str
    method: str | None


def resolve_result(revision: str, example: Example) -> ResultTarget:
    """Find the request a result answers: nearest earlier request with that id in the page."""
    data = load_revision(revision)
    page = example.block.page
    same_page = [
        other
        for other in data.of_kind(REQUEST)
        if other.block.page == page and other.value.get("id") == example.value["id"]
    ]
    before = [other for other in same_page if other.block.ordinal < example.block.ordinal]
    if before:
        return ResultTarget("matched-request", before[-1].method)
    if same_page:
        return ResultTarget("matched-later-request", same_page[0].method)
    return ResultTarget("all-result-types", None)


DELETE: Any = object()
"""Stands for "remove this member" in a ``BadCase``."""


@dataclass(frozen=True)
class BadCase:
    """One mutation of a valid spec payload and what the validation error must mention."""

    name: str
    method: str
    part: str  # "params", "result", "message" (the request type) or "envelope" (JSONRPCRequest)
    path: tuple[str | int, ...]
    new: Any
    expected: tuple[str, ...]

    def apply(self, value: Any) -> Any:
        """A deep copy of ``value`` with the member at ``path`` replaced by ``new`` or deleted."""
        copy = json.loads(json.dumps(value))
        parent = copy
        for step in self.path[:-1]:
            parent = parent[step]
        if self.new is DELETE:
            del parent[self.path[-1]]
        else:
            parent[self.path[-1]] = self.new
        return copy


def _case(name: str, where: str, dotted: str, new: Any, *expected: str) -> BadCase:
    """Build a ``BadCase`` from ``method:part`` and a dotted path (digits index arrays)."""
    method, part = where.rsplit(":", 1)
    path = tuple(int(step) if step.isdigit() else step for step in dotted.split("."))
    return BadCase(name, method, part, path, new, expected)


def has_parent(value: Any, path: tuple[str | int, ...]) -> bool:
    """Whether every step of ``path`` but the last exists in ``value``."""
    for step in path[:-1]:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(value, (dict, list))


BAD_CASES: tuple[BadCase, ...] = (
    _case("missing-name", "tools/call:params", "name", DELETE, "`name`"),
    _case("name-not-str", "tools/call:params", "name", 42, "`$.name`"),
    _case("arguments-not-object", "tools/call:params", "arguments", "x", "`$.arguments`"),
    _case("wrong-method-const", "tools/call:message", "method", "tools/run", "`$.method`"),
    _case("wrong-jsonrpc-const", "tools/call:envelope", "jsonrpc", "1.0", "`$.jsonrpc`"),
    _case("missing-version", "initialize:params", "protocolVersion", DELETE, "`protocolVersion`"),
    _case("client-name-not-str", "initialize:params", "clientInfo.name", 7, "`$.clientInfo.name`"),
    _case("capabilities-not-object", "initialize:params", "capabilities", [], "`$.capabilities`"),
    _case("missing-server-info", "initialize:result", "serverInfo", DELETE, "`serverInfo`"),
    _case("version-not-str", "initialize:result", "protocolVersion", 1, "`$.protocolVersion`"),
    _case(
        "missing-versions",
        "server/discover:result",
        "supportedVersions",
        DELETE,
        "`supportedVersions`",
    ),
    _case(
        "capabilities-not-object", "server/discover:result", "capabilities", "x", "`$.capabilities`"
    ),
    _case(
        "content-wrong-type-const",
        "tools/call:result",
        "content.0.type",
        "bogus",
        "`$.content[0].type`",
    ),
    _case("content-not-array", "tools/call:result", "content", {}, "`$.content`"),
    _case("is-error-not-bool", "tools/call:result", "isError", "yes", "`$.isError`"),
    _case(
        "text-not-str", "resources/read:result", "contents.0.text", 42, "`text`", "`$.contents[0]`"
    ),
    _case("missing-contents", "resources/read:result", "contents", DELETE, "`contents`"),
    _case(
        "wrong-role-const", "prompts/get:result", "messages.0.role", "robot", "`$.messages[0].role`"
    ),
)
"""Bad payloads: each mutates a spec example of ``method`` that the revision has."""
