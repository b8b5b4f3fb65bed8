"""The converter IR: frozen steps and rows, and the declared policy they were planned with.

Each node renders itself as the Python expression of its runtime counterpart
(``runtime/core/convert.py``), so the template only loops over steps and rows.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, TypeAlias

from ..errors import GenerationError


@dataclass(frozen=True)
class RefIR:
    """A nested value of another row's type."""

    name: str

    def render(self) -> str:
        """The runtime expression."""
        return f"Ref({self.name!r})"


@dataclass(frozen=True)
class EachIR:
    """A list whose items change."""

    item: WalkIR

    def render(self) -> str:
        """The runtime expression."""
        return f"Each({self.item.render()})"


@dataclass(frozen=True)
class ValuesIR:
    """A map whose values change."""

    item: WalkIR

    def render(self) -> str:
        """The runtime expression."""
        return f"Values({self.item.render()})"


@dataclass(frozen=True)
class LostIR:
    """The policy for a union member the target lacks."""

    action: Literal["drop", "map", "refuse"]
    to: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    reason: str = ""

    def render(self) -> str:
        """The runtime expression."""
        return f"Lost({self.action!r}, {self.to!r}, {self.fields!r}, {self.reason!r})"


@dataclass(frozen=True)
class OneOfIR:
    """A tagged union: per tag, how the member converts, and the members the target lacks."""

    tag: str
    members: tuple[tuple[str, WalkIR], ...]
    lost: tuple[tuple[str, LostIR], ...]

    def render(self) -> str:
        """The runtime expression."""
        members = ", ".join(f"({k!r}, {w.render()})" for k, w in self.members)
        lost = ", ".join(f"({k!r}, {v.render()})" for k, v in self.lost)
        return f"OneOf({self.tag!r}, {_tuple(members)}, {_tuple(lost)})"


def _tuple(items: str) -> str:
    """A tuple expression of comma-separated items (one item keeps its trailing comma)."""
    return f"({items},)" if items else "()"


WalkIR: TypeAlias = RefIR | EachIR | ValuesIR | OneOfIR


@dataclass(frozen=True)
class RowIR:
    """What converting one object type does: ``fill`` values are JSON text."""

    name: str
    drop: tuple[str, ...]
    refuse: tuple[str, ...]
    fill: tuple[tuple[str, str], ...]
    need: tuple[str, ...]
    inner: tuple[tuple[str, WalkIR], ...]

    def render(self) -> str:
        """The runtime ``Obj(...)`` expression."""
        parts: list[str] = []
        if self.drop:
            parts.append(f"drop={self.drop!r}")
        if self.refuse:
            parts.append(f"refuse={self.refuse!r}")
        if self.fill:
            fills = ", ".join(f"({k!r}, {json.loads(v)!r})" for k, v in self.fill)
            parts.append(f"fill=({fills},)")
        if self.need:
            parts.append(f"need={self.need!r}")
        if self.inner:
            inner = ", ".join(f"({k!r}, {w.render()})" for k, w in self.inner)
            parts.append(f"inner=({inner},)")
        return f"Obj({', '.join(parts)})"


@dataclass(frozen=True)
class MethodRowsIR:
    """The rows of a method's params and result in one step (None: nothing changes)."""

    method: str
    params: str | None
    result: str | None

    def render(self) -> str:
        """The runtime ``(params row, result row)`` tuple."""
        return f"({self.params!r}, {self.result!r})"


@dataclass(frozen=True)
class StepIR:
    """One direction between two neighbouring revisions."""

    source: str
    target: str
    rows: tuple[RowIR, ...]
    methods: tuple[MethodRowsIR, ...]

    @property
    def const_name(self) -> str:
        """The module-level name of the step: ``V2024_11_05_TO_V2025_03_26``."""
        return f"V{self.source.replace('-', '_')}_TO_V{self.target.replace('-', '_')}"


@dataclass(frozen=True)
class ConvertIR:
    """Every step of the package, in both directions between each neighbouring pair."""

    revisions: tuple[str, ...]
    steps: tuple[StepIR, ...]
    sha256: tuple[str, ...] = ()
    """The schema sha256 of each revision, in the order of ``revisions``."""
    servers: tuple[tuple[str, str], ...] = ()
    """(revision, subpackage) of the revisions with a ``Server`` the bridge can adapt."""
    clients: tuple[tuple[str, str], ...] = ()
    """(revision, subpackage) of those whose ``Client`` can stand in for another in an
    ``initialize`` handshake (the stateless revision has none)."""
    bridge_clients: tuple[tuple[str, str], ...] = ()
    """(revision, subpackage) of every revision whose ``Client`` the bridge may connect
    upstream with, both eras."""

    @property
    def bases(self) -> tuple[tuple[str, str, str], ...]:
        """(subpackage, module, class) of each ``Client``/``Server`` imported, in import order."""
        found = [(m, "client", "Client") for _, m in self.bridge_clients or self.clients]
        found += [(m, "server", "Server") for _, m in self.servers]
        return tuple(sorted(found))

    @property
    def schemas(self) -> tuple[tuple[str, str], ...]:
        """(revision, schema sha256) for the header."""
        return tuple(zip(self.revisions, self.sha256, strict=True))

    @property
    def imports(self) -> str:
        """The runtime names the tables use, sorted (``Step`` always)."""
        used = {"Step"}
        for step in self.steps:
            for row in step.rows:
                if row.drop or row.refuse or row.fill or row.need or row.inner:
                    used.add("Obj")
                for _, walk in row.inner:
                    used |= _names(walk)
        return ", ".join(sorted(used))


def _names(walk: WalkIR) -> set[str]:
    """The runtime classes a walk's expression uses."""
    if isinstance(walk, RefIR):
        return {"Ref"}
    if isinstance(walk, EachIR):
        return {"Each"} | _names(walk.item)
    if isinstance(walk, ValuesIR):
        return {"Values"} | _names(walk.item)
    found: set[str] = {"OneOf", "Lost"} if walk.lost else {"OneOf"}
    for _, w in walk.members:
        found |= _names(w)
    return found


@dataclass(frozen=True)
class Policy:
    """The declared rules (``schema/converters.toml``) the converters are planned with."""

    fills: tuple[tuple[str, str], ...] = ()
    """``Type.field`` or ``*.field`` -> the JSON text of the value that fills it."""
    refused: frozenset[str] = frozenset()
    """``Type.field`` members that are refused, not dropped, where the target lacks them."""
    members: tuple[tuple[str, LostIR], ...] = ()
    """Union member tag -> what becomes of it where the target lacks it."""

    def filler(self, owner: str, wire: str) -> str | None:
        """The JSON text a rule fills ``owner.wire`` with, if any."""
        for key, value in self.fills:
            if key in (f"{owner}.{wire}", f"*.{wire}"):
                return value
        return None

    def refuses(self, owner: str, wire: str) -> bool:
        """Whether losing ``owner.wire`` is refused instead of dropped."""
        return f"{owner}.{wire}" in self.refused or f"*.{wire}" in self.refused

    def lost(self, tag: str) -> LostIR | None:
        """The declared policy for a member tagged ``tag`` the target lacks, if any."""
        for key, found in self.members:
            if key == tag:
                return found
        return None

    @property
    def member_actions(self) -> dict[str, str]:
        """The declared action of each union member tag, for ``mcpgen diff``'s ``members``."""
        return {tag: lost.action for tag, lost in self.members}

    @property
    def rule_names(self) -> frozenset[str]:
        """The ``Type.field`` names the fill rules cover, for ``mcpgen diff``'s ``rules``."""
        return frozenset(key for key, _ in self.fills)


def load_policy(text: str | None = None) -> Policy:
    """Read ``schema/converters.toml`` (or ``text``), checking every entry's shape."""
    if text is None:
        text = resources.files("mcpgen.schema").joinpath("converters.toml").read_text("utf-8")
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GenerationError(f"schema/converters.toml: {exc}") from None
    fills = tuple(sorted((k, json.dumps(v)) for k, v in data.get("fill", {}).items()))
    refused = frozenset(str(x) for x in data.get("refuse", {}).get("fields", []))
    members: list[tuple[str, LostIR]] = []
    for tag, entry in sorted(data.get("members", {}).items()):
        action = entry.get("action", "map")
        if action not in ("drop", "map", "refuse"):
            raise GenerationError(
                f"schema/converters.toml: members.{tag}: unknown action {action!r}"
            )
        to = str(entry.get("to", ""))
        if action == "map" and not to:
            raise GenerationError(f"schema/converters.toml: members.{tag}: 'map' needs 'to'")
        fields = tuple(sorted((str(k), str(v)) for k, v in entry.get("fields", {}).items()))
        members.append((tag, LostIR(action, to, fields, str(entry.get("why", "")))))
    return Policy(fills, refused, tuple(members))
