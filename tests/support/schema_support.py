"""Loading, patching and reshaping the MCP reference schemas for the property tests."""

from __future__ import annotations

import copy
import json
import os
import tomllib
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import hypothesis_jsonschema._from_schema as hjs_from_schema
import jsonschema
from hypothesis.internal.conjecture import utils as conjecture_utils

REPO_ROOT = Path(__file__).resolve().parents[2]
OVERRIDES_DIR = REPO_ROOT / "schema" / "overrides"
REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

JSON = Any


def schema_dir() -> Path:
    """Return the directory holding <rev>/schema.json (MCPGEN_SCHEMA_DIR or ../shared/schema)."""
    env = os.environ.get("MCPGEN_SCHEMA_DIR")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "schema"


def schema_path(rev: str) -> Path:
    """Return the path of one revision's reference schema.json."""
    return schema_dir() / rev / "schema.json"


def available_revisions() -> list[str]:
    """Return the revisions whose reference schema is present on disk."""
    return [rev for rev in REVISIONS if schema_path(rev).is_file()]


def _resolve_pointer(doc: JSON, pointer: str) -> tuple[JSON, str | int]:
    """Return the parent container and final key of an RFC 6901 JSON pointer."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("/").split("/")]
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last: str | int = int(parts[-1]) if isinstance(node, list) else parts[-1]
    return node, last


def apply_patches(schema: JSON, rev: str) -> JSON:
    """Apply the generator's [[patch]] overrides for a revision, checking each expected value."""
    overrides = OVERRIDES_DIR / f"{rev}.toml"
    patches = tomllib.loads(overrides.read_text()).get("patch", []) if overrides.is_file() else []
    for patch in patches:
        parent, key = _resolve_pointer(schema, patch["pointer"])
        if parent[key] != patch["expect"]:
            raise AssertionError(f"{rev}: patch {patch['pointer']} no longer matches the schema")
        parent[key] = copy.deepcopy(patch["value"])
    return schema


@cache
def _patched(rev: str) -> str:
    """Return one revision's patched schema, serialised (so every caller gets a fresh copy)."""
    return json.dumps(apply_patches(json.loads(schema_path(rev).read_text()), rev))


def patched_schema(rev: str) -> JSON:
    """Return a fresh copy of one revision's schema with the overrides applied."""
    return json.loads(_patched(rev))


def defs_key(schema: JSON) -> str:
    """Return the name of the definitions section: "$defs" (2020-12) or "definitions"."""
    return "$defs" if "$defs" in schema else "definitions"


def definition_names(rev: str) -> list[str]:
    """Return the names of every definition of a revision, sorted."""
    schema = patched_schema(rev)
    return sorted(schema[defs_key(schema)])


def validator_class(rev: str) -> type[Any]:
    """Return the jsonschema validator class matching the revision's declared $schema."""
    cls: type[Any] = jsonschema.validators.validator_for(patched_schema(rev))
    return cls


def validation_schema(rev: str, name: str) -> JSON:
    """Return a self-contained schema for one definition: a $ref plus the whole section."""
    schema = patched_schema(rev)
    key = defs_key(schema)
    return {"$schema": schema["$schema"], key: schema[key], "allOf": [{"$ref": f"#/{key}/{name}"}]}


# --- hypothesis-jsonschema 0.23.1 against hypothesis 6.170 ---------------------------------------


class _ManyWithMore:
    """The old ``many(...).more()`` protocol hypothesis-jsonschema uses, over the new iterator one.

    hypothesis-jsonschema 0.23.1 builds objects with ``while elements.more():``; the pinned
    Hypothesis only offers ``with many(...) as elements: for _ in elements:``, so without this
    every object schema fails with "'many' object has no attribute 'more'".
    """

    def __init__(self, data: Any, **sizes: Any) -> None:
        """Open the underlying ``many`` span."""
        self._many = conjecture_utils.many(data, **sizes)
        self._many.__enter__()
        self._elements = iter(self._many)
        self._open = True

    def more(self) -> bool:
        """Whether to draw another element; closes the span once the answer is no."""
        if self._open and next(self._elements, False) is None:
            return True
        if self._open:
            self._open = False
            self._many.__exit__(None)
        return False

    def reject(self, why: str | None = None) -> None:
        """Do not count the current element."""
        self._many.reject(why)


def _memoized(original: Any) -> Any:
    """Wrap a (schema, alphabet=, custom_formats=) -> strategy builder with a cache."""
    cache: dict[tuple[str, int, int], tuple[Any, Any, Any]] = {}

    def build(schema: JSON, *, alphabet: Any, custom_formats: Any) -> Any:
        """Return the cached strategy for this schema, building it on first use."""
        key = (json.dumps(schema, sort_keys=True), id(alphabet), id(custom_formats))
        if key not in cache:  # the cache holds alphabet and formats, so their ids stay unique
            strategy = original(schema, alphabet=alphabet, custom_formats=custom_formats)
            cache[key] = (strategy, alphabet, custom_formats)
        return cache[key][0]

    return build


def install_hypothesis_jsonschema_shim() -> None:
    """Make hypothesis-jsonschema work with the pinned Hypothesis, and fast on big schemas.

    Besides the ``many().more()`` adapter, the builders it calls while drawing (and so once per
    draw, re-canonicalising the same subschemas each time) are memoized: strategies are immutable.
    """
    if getattr(hjs_from_schema, "_mcpgen_shimmed", False):
        return
    if not hasattr(conjecture_utils.many, "more"):
        hjs_from_schema.cu = SimpleNamespace(many=_ManyWithMore)  # type: ignore[attr-defined]
    for name in ("__from_schema", "merged_as_strategies"):
        setattr(hjs_from_schema, name, _memoized(getattr(hjs_from_schema, name)))
    hjs_from_schema._mcpgen_shimmed = True  # type: ignore[attr-defined]


# --- the schema fed to hypothesis-jsonschema -------------------------------------------------


def _rewrite_refs(node: JSON, old: str, new: str) -> JSON:
    """Return ``node`` with every "$ref" prefix ``old`` replaced by ``new``."""
    if isinstance(node, dict):
        out = {k: _rewrite_refs(v, old, new) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(old):
            out["$ref"] = new + ref[len(old) :]
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, old, new) for v in node]
    return node


def _merge_all_of(node: JSON, defs: dict[str, JSON]) -> JSON:
    """Inline an allOf of object schemas into one schema, so closing it stays satisfiable."""
    merged: dict[str, Any] = {k: v for k, v in node.items() if k not in ("allOf", "description")}
    props: dict[str, Any] = dict(merged.pop("properties", {}))
    required: list[str] = list(merged.pop("required", []))
    for branch in node["allOf"]:
        while "$ref" in branch:
            branch = defs[branch["$ref"].rsplit("/", 1)[1]]
        if "allOf" in branch:
            branch = _merge_all_of(branch, defs)
        for prop, sub in branch.get("properties", {}).items():
            props[prop] = {"allOf": [props[prop], sub]} if prop in props else sub
        required += [r for r in branch.get("required", []) if r not in required]
        for key, value in branch.items():
            if key not in ("properties", "required", "description", "additionalProperties"):
                merged.setdefault(key, value)
    return {**merged, "properties": props, "required": required}


def _close(node: JSON, defs: dict[str, JSON]) -> JSON:
    """Forbid unknown keys on object schemas with properties (not in _meta or open maps)."""
    if isinstance(node, list):
        return [_close(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "allOf" in node and all(isinstance(b, dict) for b in node["allOf"]):
        node = _merge_all_of(node, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {p: s if p == "_meta" else _close(s, defs) for p, s in value.items()}
        else:
            out[key] = _close(value, defs)
    if "properties" in out and out.get("additionalProperties", True) in (True, {}):
        out["additionalProperties"] = False
    return out


def _unroll(node: JSON, defs: dict[str, JSON], stack: tuple[str, ...], depth: int) -> JSON:
    """Inline every $ref; a definition met ``depth`` times on one path becomes ``false``."""
    if isinstance(node, list):
        return [_unroll(v, defs, stack, depth) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if stack.count(name) >= depth:
            return False
        target = _unroll(defs[name], defs, (*stack, name), depth)
        rest = {k: _unroll(v, defs, stack, depth) for k, v in node.items() if k != "$ref"}
        rest.pop("description", None)
        return {"allOf": [target, rest]} if rest else target
    return {k: _unroll(v, defs, stack, depth) for k, v in node.items()}


@cache
def _closed_definitions(rev: str) -> dict[str, JSON]:
    """Return a revision's definitions with draft-07 refs and closed objects (do not mutate)."""
    schema = patched_schema(rev)
    key = defs_key(schema)
    defs = _rewrite_refs(schema[key], f"#/{key}/", "#/definitions/")
    return {n: _close(d, defs) for n, d in defs.items()}


def generation_schema(rev: str, name: str, depth: int = 2) -> JSON:
    """Return a draft-07, ref-free, closed schema for one definition, for hypothesis-jsonschema.

    2020-12 "$defs" become draft-07 "definitions" (this schema uses no 2020-12-only keyword),
    objects with properties get additionalProperties false (unknown keys are dropped by the
    generated Structs by design), and recursive definitions are unrolled ``depth`` levels.
    """
    closed = _closed_definitions(rev)
    root = _unroll(closed[name], closed, (name,), depth)
    if root is False:
        return False
    return {"$schema": "http://json-schema.org/draft-07/schema#", **root}


def is_recursive(rev: str, name: str) -> bool:
    """Whether a definition reaches itself through $refs."""
    schema = patched_schema(rev)
    defs = schema[defs_key(schema)]

    def refs(node: JSON) -> set[str]:
        """Return the names of the definitions directly referenced by ``node``."""
        if isinstance(node, dict):
            found = {node["$ref"].rsplit("/", 1)[1]} if "$ref" in node else set()
            return found.union(*(refs(v) for v in node.values()))
        if isinstance(node, list):
            return set().union(*(refs(v) for v in node))
        return set()

    seen: set[str] = set()
    todo = list(refs(defs[name]))
    while todo:
        current = todo.pop()
        if current == name:
            return True
        if current not in seen:
            seen.add(current)
            todo.extend(refs(defs[current]))
    return False
