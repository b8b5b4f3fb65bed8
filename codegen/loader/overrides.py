"""Per-revision overrides: patches for known schema defects and facts the schema leaves implicit.

A built-in revision's overrides are ``schema/overrides/<revision>.toml``. A revision outside
the manifest (a next revision given as a schema file) names a base revision whose overrides
it inherits, and may have an overrides file of its own (``base = "..."``, its own entries,
and ``drop`` lists of inherited ones): see ``next_overrides``.
"""

from __future__ import annotations

import copy
import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ..errors import GenerationError, Level, Problem
from .model import is_array

PROTOCOL_FACTS = ("batch", "sse_priming", "method_headers")
"""The ``[protocol]`` facts an overrides file may state (each a boolean)."""
OWN_KEYS = frozenset({"base", "drop", "patch", "results", "capabilities", "protocol"})
"""The tables and keys an overrides file may hold."""
DROP_KEYS = frozenset({"patches", "capabilities", "results"})
"""What a next revision's ``[drop]`` table may name: base patch pointers, base methods."""


@dataclass(frozen=True)
class Patch:
    """Replace the value at ``pointer``, which must currently equal ``expect``.

    ``inherited``: the base revision this patch comes from ("" for the revision's own).
    """

    pointer: str
    expect: Any
    value: Any
    why: str
    inherited: str = ""


@dataclass(frozen=True)
class Overrides:
    """What a revision's overrides say: its own file's, plus what it inherits from a base."""

    patches: tuple[Patch, ...] = ()
    results: dict[str, str] = field(default_factory=dict[str, str])
    capabilities: dict[str, str] = field(default_factory=dict[str, str])
    supports_batch: bool = False
    sse_priming: bool = False
    method_headers: bool = False
    base: str | None = None
    """The revision whose overrides these inherit (None for a built-in revision's own)."""
    inherited_methods: frozenset[str] = frozenset()
    """Methods of ``results``/``capabilities`` entries inherited from the base: one whose
    method the schema no longer has is reported and skipped, not an error."""
    file_sha256: str | None = None
    """The sha256 of the revision's own overrides file, when one was given."""


def _builtin_table(revision: str) -> dict[str, Any] | None:
    """The parsed ``schema/overrides/<revision>.toml``, or None when there is none."""
    entry = resources.files("mcpgen.schema").joinpath("overrides", f"{revision}.toml")
    if not entry.is_file():
        return None
    return tomllib.loads(entry.read_text(encoding="utf-8"))


def _from_table(table: dict[str, Any], inherited: str = "") -> Overrides:
    """The overrides one parsed file states (its patches marked ``inherited`` from a base)."""
    patches = tuple(
        Patch(p["pointer"], p["expect"], p["value"], p.get("why", ""), inherited)
        for p in table.get("patch", ())
    )
    protocol = table.get("protocol", {})
    return Overrides(
        patches=patches,
        results=dict(table.get("results", {})),
        capabilities=dict(table.get("capabilities", {})),
        supports_batch=bool(protocol.get("batch", False)),
        sse_priming=bool(protocol.get("sse_priming", False)),
        method_headers=bool(protocol.get("method_headers", False)),
    )


def load_overrides(revision: str) -> Overrides:
    """Load the overrides of a built-in revision; a revision without a file gets none."""
    table = _builtin_table(revision)
    return Overrides() if table is None else _from_table(table)


def parse_own_file(text: str, where: str) -> dict[str, Any]:
    """Parse a next revision's own overrides file, checking its tables and keys."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GenerationError(f"overrides file {where} is not valid TOML: {exc}") from None
    unknown = sorted(set(table) - OWN_KEYS)
    drops = table.get("drop", {})
    unknown += [f"drop.{k}" for k in sorted(set(drops) - DROP_KEYS)]
    unknown += [f"protocol.{k}" for k in sorted(set(table.get("protocol", {})) - {*PROTOCOL_FACTS})]
    if unknown:
        raise GenerationError(f"overrides file {where}: unknown key(s) {', '.join(unknown)}")
    base = table.get("base")
    if base is not None and not isinstance(base, str):
        raise GenerationError(f"overrides file {where}: base must be a revision name")
    return table


def next_overrides(
    revision: str, base: str | None, own: dict[str, Any] | None, own_sha256: str | None
) -> Overrides:
    """The overrides of a next revision: its base's, then its own file's on top.

    The own file's ``[[patch]]`` with the pointer of a base patch replaces it;
    ``[drop] patches = [pointer, ...]`` leaves base patches out, ``[drop] capabilities`` and
    ``[drop] results`` leave out base entries by method; ``[capabilities]``/``[results]``
    entries add to or replace the base's; each ``[protocol]`` fact given replaces the base's.
    """
    own = own or {}
    inherited = Overrides()
    if base is not None:
        table = _builtin_table(base)
        if table is None:
            raise GenerationError(
                f"revision {revision}: base {base!r} is no revision with overrides "
                f"(built-in revisions: schema/overrides/<revision>.toml)"
            )
        inherited = _from_table(table, inherited=base)
    mine = _from_table(own)
    drops = own.get("drop", {})
    dropped = set(drops.get("patches", ())) | {p.pointer for p in mine.patches}
    stray = sorted(set(drops.get("patches", ())) - {p.pointer for p in inherited.patches})
    if stray:
        raise GenerationError(
            f"revision {revision}: [drop] patches names {', '.join(stray)}, which no patch of "
            f"base {base} has"
        )
    patches = tuple(p for p in inherited.patches if p.pointer not in dropped) + mine.patches
    capabilities = {
        m: c for m, c in inherited.capabilities.items() if m not in drops.get("capabilities", ())
    }
    results = {m: r for m, r in inherited.results.items() if m not in drops.get("results", ())}
    carried = (set(capabilities) - set(mine.capabilities)) | (set(results) - set(mine.results))
    capabilities.update(mine.capabilities)
    results.update(mine.results)
    protocol = own.get("protocol", {})
    facts = {
        name: bool(protocol[name]) if name in protocol else getattr(inherited, attr)
        for name, attr in zip(
            PROTOCOL_FACTS, ("supports_batch", "sse_priming", "method_headers"), strict=True
        )
    }
    return Overrides(
        patches=patches,
        results=results,
        capabilities=capabilities,
        supports_batch=facts["batch"],
        sse_priming=facts["sse_priming"],
        method_headers=facts["method_headers"],
        base=base,
        inherited_methods=frozenset(carried),
        file_sha256=own_sha256,
    )


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _step(node: Any, token: str) -> Any:
    """The member ``token`` of a JSON array or object."""
    return node[int(token)] if is_array(node) else node[token]


def _patch_name(patch: Patch, revision: str) -> str:
    """How a report names a patch: whose it is and what it is for."""
    owner = f"patch of base {patch.inherited}" if patch.inherited else f"override for {revision}"
    return f"{owner} ({patch.why})" if patch.why and patch.inherited else owner


def patch_schema(
    raw: Any, patches: tuple[Patch, ...], revision: str
) -> tuple[Any, tuple[Problem, ...]]:
    """Return a copy of the decoded schema with every patch applied, checking each old value.

    A patch whose pointer holds another value stops generation. One whose pointer is missing
    stops it too, unless the patch is inherited from a base: the next revision no longer has
    what it fixed, so it is reported (a warning) and skipped.
    """
    if not patches:
        return raw, ()
    out = copy.deepcopy(raw)
    skipped: list[Problem] = []
    for patch in patches:
        *parents, last = _tokens(patch.pointer)
        node: Any = out
        try:
            for token in parents:
                node = _step(node, token)
            current = _step(node, last)
        except (KeyError, IndexError, ValueError, TypeError):
            if patch.inherited:
                skipped.append(
                    Problem(
                        Level.WARNING,
                        f"overrides of {revision}",
                        f"{_patch_name(patch, revision)}: {patch.pointer} is gone; skipped",
                    )
                )
                continue
            raise GenerationError(
                f"override for {revision}: {patch.pointer} is missing; update the overrides"
            ) from None
        if current != patch.expect:
            remedy = (
                f"; drop or replace it in the overrides file of {revision}"
                if patch.inherited
                else " (fixed upstream?); update the overrides"
            )
            raise GenerationError(
                f"{_patch_name(patch, revision)}: {patch.pointer} is {json.dumps(current)}, "
                f"expected {json.dumps(patch.expect)}{remedy}"
            )
        if isinstance(node, list):
            node[int(last)] = patch.value
        else:
            node[last] = patch.value
    return out, tuple(skipped)


def apply_patches(raw: Any, patches: tuple[Patch, ...], revision: str) -> Any:
    """Return a copy of the decoded schema with every patch applied (see ``patch_schema``)."""
    return patch_schema(raw, patches, revision)[0]
