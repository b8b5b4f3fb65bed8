"""Per-revision overrides: patches for known schema defects and facts the schema leaves implicit."""

from __future__ import annotations

import copy
import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ..errors import GenerationError
from .model import is_array


@dataclass(frozen=True)
class Patch:
    """Replace the value at ``pointer``, which must currently equal ``expect``."""

    pointer: str
    expect: Any
    value: Any
    why: str


@dataclass(frozen=True)
class Overrides:
    """What ``schema/overrides/<revision>.toml`` says about one revision."""

    patches: tuple[Patch, ...] = ()
    results: dict[str, str] = field(default_factory=dict[str, str])
    capabilities: dict[str, str] = field(default_factory=dict[str, str])
    supports_batch: bool = False
    sse_priming: bool = False
    method_headers: bool = False


def load_overrides(revision: str) -> Overrides:
    """Load the overrides of a revision; a revision without a file gets none."""
    entry = resources.files("mcpgen.schema").joinpath("overrides", f"{revision}.toml")
    if not entry.is_file():
        return Overrides()
    table = tomllib.loads(entry.read_text(encoding="utf-8"))
    patches = tuple(
        Patch(p["pointer"], p["expect"], p["value"], p.get("why", ""))
        for p in table.get("patch", ())
    )
    return Overrides(
        patches=patches,
        results=dict(table.get("results", {})),
        capabilities=dict(table.get("capabilities", {})),
        supports_batch=bool(table.get("protocol", {}).get("batch", False)),
        sse_priming=bool(table.get("protocol", {}).get("sse_priming", False)),
        method_headers=bool(table.get("protocol", {}).get("method_headers", False)),
    )


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _step(node: Any, token: str) -> Any:
    """The member ``token`` of a JSON array or object."""
    return node[int(token)] if is_array(node) else node[token]


def apply_patches(raw: Any, patches: tuple[Patch, ...], revision: str) -> Any:
    """Return a copy of the decoded schema with every patch applied, checking each old value."""
    if not patches:
        return raw
    out = copy.deepcopy(raw)
    for patch in patches:
        *parents, last = _tokens(patch.pointer)
        node: Any = out
        try:
            for token in parents:
                node = _step(node, token)
            current = _step(node, last)
        except (KeyError, IndexError, ValueError, TypeError):
            raise GenerationError(
                f"override for {revision}: {patch.pointer} is missing; update the overrides"
            ) from None
        if current != patch.expect:
            raise GenerationError(
                f"override for {revision}: {patch.pointer} is {json.dumps(current)}, expected "
                f"{json.dumps(patch.expect)} (fixed upstream?); update the overrides"
            )
        if isinstance(node, list):
            node[int(last)] = patch.value
        else:
            node[last] = patch.value
    return out
