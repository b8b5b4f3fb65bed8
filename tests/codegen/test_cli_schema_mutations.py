"""Bad schemas: a real schema, mutated, either generates a valid importable package (exit 0)
or is refused with one line naming the problem (exit 2); never a traceback, never invalid
Python."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from mcpgen.cli import cli
from tests.conftest import schema_dir

REVISION = "2025-06-18"
EXAMPLES = 14
"""About 0.7 s each: the whole test stays under ~15 s."""


def _original() -> dict[str, Any]:
    """The real schema the mutations start from."""
    loaded: dict[str, Any] = json.loads((schema_dir() / REVISION / "schema.json").read_text())
    return loaded


def _schema_nodes(raw: dict[str, Any]) -> Iterator[tuple[str, ...]]:
    """The path of every schema object under the definitions (properties, items, anyOf ...)."""
    pending: list[tuple[tuple[str, ...], Any]] = [
        (("definitions", name), node) for name, node in raw["definitions"].items()
    ]
    while pending:
        path, node = pending.pop()
        if not isinstance(node, dict):
            continue
        yield path
        sub: dict[str, Any] = node
        for name, prop in (sub.get("properties") or {}).items():
            pending.append(((*path, "properties", name), prop))
        for key in ("items", "additionalProperties"):
            if isinstance(sub.get(key), dict):
                pending.append(((*path, key), sub[key]))
        for key in ("anyOf", "allOf"):
            for i, member in enumerate(sub.get(key) or []):
                pending.append(((*path, key, str(i)), member))


def _at(raw: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` (array indexes as strings)."""
    for token in path:
        raw = raw[int(token)] if isinstance(raw, list) else raw[token]
    return raw


def _present(raw: Any, path: tuple[str, ...]) -> bool:
    """Whether ``path`` still leads to an object (an earlier mutation may have removed it)."""
    try:
        return isinstance(_at(raw, path), dict)
    except (KeyError, IndexError, TypeError, ValueError):
        return False


ORIGINAL = _original()
NODES = sorted(_schema_nodes(ORIGINAL))
WITH = {
    key: [p for p in NODES if key in _at(ORIGINAL, p)]
    for key in ("type", "$ref", "properties", "required", "enum", "items", "anyOf", "const")
}
REFERENCED = sorted(
    {ref.rsplit("/", 1)[-1] for p in WITH["$ref"] for ref in [_at(ORIGINAL, p)["$ref"]]}
)
NOT_SCHEMAS = [5, "text", [], None, [1, 2], 1.5, True]
"""Values that are not JSON Schema objects (``True`` is one: any value)."""
NAMES = ["1abc", "class", "a b", "", "naïve", "__init__", "_", "A" * 300, "None", "x-y"]


def _set(path: tuple[str, ...], key: str, value: Any) -> Callable[[Any], None]:
    """A mutation setting ``key`` of the schema node at ``path``."""

    def apply(raw: Any) -> None:
        if _present(raw, path):
            _at(raw, path)[key] = value

    apply.__doc__ = f"{'/'.join(path)}/{key} = {value!r}"
    return apply


def _replace(path: tuple[str, ...], value: Any) -> Callable[[Any], None]:
    """A mutation replacing the schema node at ``path``."""

    def apply(raw: Any) -> None:
        if not _present(raw, path):
            return
        parent = _at(raw, path[:-1])
        parent[int(path[-1]) if isinstance(parent, list) else path[-1]] = value

    apply.__doc__ = f"{'/'.join(path)} = {value!r}"
    return apply


def _delete_definition(name: str) -> Callable[[Any], None]:
    """A mutation deleting a definition that others refer to."""

    def apply(raw: Any) -> None:
        raw["definitions"].pop(name, None)

    apply.__doc__ = f"del definitions/{name}"
    return apply


def _rename_property(path: tuple[str, ...], new: str) -> Callable[[Any], None]:
    """A mutation renaming every property of a node (and its ``required`` entries) to ``new``."""

    def apply(raw: Any) -> None:
        if not _present(raw, path):
            return
        node = _at(raw, path)
        props = node.get("properties")
        if isinstance(props, dict) and props:
            first = next(iter(props))
            node["properties"] = {new if k == first else k: v for k, v in props.items()}

    apply.__doc__ = f"{'/'.join(path)}: first property renamed {new!r}"
    return apply


def _rename_definition(name: str, new: str) -> Callable[[Any], None]:
    """A mutation renaming a definition (its references are left as they are)."""

    def apply(raw: Any) -> None:
        defs = raw["definitions"]
        if name in defs:
            raw["definitions"] = {new if k == name else k: v for k, v in defs.items()}

    apply.__doc__ = f"definitions/{name} renamed {new!r}"
    return apply


def _paths(key: str) -> st.SearchStrategy[tuple[str, ...]]:
    return st.sampled_from(WITH[key])


MUTATIONS: st.SearchStrategy[Callable[[Any], None]] = st.one_of(
    st.builds(_delete_definition, st.sampled_from(REFERENCED)),
    st.builds(
        _set,
        _paths("type"),
        st.just("type"),
        st.sampled_from([5, "strnig", [5], ["string", 5], [], None, {"a": 1}, "null"]),
    ),
    st.builds(
        _set,
        _paths("$ref"),
        st.just("$ref"),
        st.sampled_from(["#/definitions/Missing", "#/nowhere", "http://x/y", 5, "", None]),
    ),
    st.builds(
        _replace, st.sampled_from([p for p in NODES if len(p) > 2]), st.sampled_from(NOT_SCHEMAS)
    ),
    st.builds(
        _set,
        st.sampled_from(NODES),
        st.sampled_from(["properties", "required", "enum", "items", "anyOf", "allOf"]),
        st.sampled_from([5, "x", [5], {"a": 5}, None, [], {}]),
    ),
    st.builds(
        _set,
        st.sampled_from(NODES),
        st.sampled_from(["const", "description", "minimum", "pattern", "default", "format"]),
        st.sampled_from([5, '"""\\', {"a": [1]}, None, "x\ny", 1e308, "'''"]),
    ),
    st.builds(_rename_property, _paths("properties"), st.sampled_from(NAMES)),
    st.builds(
        _rename_definition, st.sampled_from(sorted(ORIGINAL["definitions"])), st.sampled_from(NAMES)
    ),
)


def _import_all(folder: Path, package: str) -> None:
    """Compile every generated module and import the package and each revision's modules."""
    for path in sorted(folder.rglob("*.py")):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    sys.path.insert(0, str(folder.parent))
    try:
        pkg = importlib.import_module(package)
        for revision in pkg.REVISIONS:
            for module in ("types", "methods", "client", "server"):
                importlib.import_module(f"{package}.v{revision.replace('-', '_')}.{module}")
    finally:
        sys.path.remove(str(folder.parent))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


COUNTER = iter(range(10**9))


@pytest.mark.usefixtures("schemas")
def test_mutated_schemas_generate_or_fail_in_one_line(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Every mutation ends with exit 0 and importable output, or exit 2 and one error line."""
    root = tmp_path_factory.mktemp("mutations")

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(MUTATIONS, min_size=1, max_size=3))
    @example(
        [
            _set(
                ("definitions", "CallToolRequest", "properties", "params"),
                "$ref",
                "#/definitions/Nope",
            )
        ]
    )
    @example([_set(("definitions", "TextContent", "properties", "text"), "type", 5)])
    @example([_set(("definitions", "TextContent"), "type", 5)])
    @example([_delete_definition("ContentBlock")])
    def check(mutations: list[Callable[[Any], None]]) -> None:
        raw = copy.deepcopy(ORIGINAL)
        for mutate in mutations:
            mutate(raw)
        what = "; ".join(m.__doc__ or "" for m in mutations)
        n = next(COUNTER)
        schema = root / f"schema{n}.json"
        schema.write_text(json.dumps(raw), encoding="utf-8")
        package = f"mutated{n}"
        out = root / package
        result = CliRunner().invoke(cli, ["--schema", str(schema), "-r", REVISION, "-o", str(out)])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            what,
            result.exc_info,
        )
        assert result.exit_code in (0, 2), (what, result.stderr)
        if result.exit_code == 2:
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("mcpgen: error: "), (what, lines)
            assert "internal error" not in lines[0], (what, lines)
        else:
            _import_all(out, package)

    check()
