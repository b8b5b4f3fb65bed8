"""Plan the converters between two revisions from ``mcpgen diff``'s classified changes.

For one direction (a source surface into a target surface) every object type of both gets a
row: the members the target lacks (dropped, or refused where the diff or a declared policy
says so), the members the target requires (filled from a constant or a declared rule, else
needed), and where nested values change (lists, maps, tagged unions whose members the target
may lack, mapped or dropped per the declared policy). Rows that change nothing are pruned, so
the generated tables only name what a conversion must touch. Pure functions over frozen data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diff.classify import lacked_field, required_by_target
from ..diff.model import Action, Category, Diff, Effect
from ..diff.shape import Shape
from ..diff.views import FieldView, Surface, TypeView
from ..errors import GenerationError
from .ir import (
    EachIR,
    LostIR,
    MethodRowsIR,
    OneOfIR,
    Policy,
    RefIR,
    RowIR,
    StepIR,
    ValuesIR,
    WalkIR,
)


def plan_step(
    src: Surface, dst: Surface, diff: Diff, upgrade: bool, policy: Policy, used: set[str]
) -> StepIR:
    """Plan converting values of ``src`` into ``dst`` (``upgrade``: ``src`` is the diff's old).

    Adds the declared rules it applied to ``used``.
    """
    planner = _Planner(src, dst, diff, upgrade, policy)
    planner.used = used
    targets = {m.method: m for m in dst.methods}
    methods: list[MethodRowsIR] = []
    for m in src.methods:
        t = targets.get(m.method)
        if t is None:
            continue
        params = planner.pair(m.params, t.params)
        result = planner.pair(m.result, t.result)
        methods.append(MethodRowsIR(m.method, params, result))
    for view in src.types:  # every type both define converts, reached by a method or not
        if view.kind == "object" and not view.inline:
            planner.pair(view.name, view.name)
    live = planner.live()
    rows = tuple(planner.prune_row(key, live) for key in sorted(planner.rows) if key in live)
    return StepIR(
        source=src.revision or src.label,
        target=dst.revision or dst.label,
        rows=rows,
        methods=tuple(
            MethodRowsIR(
                m.method,
                m.params if m.params in live else None,
                m.result if m.result in live else None,
            )
            for m in sorted(methods, key=lambda m: m.method)
        ),
    )


@dataclass
class _Row:
    """A row being planned: its own operations and the walks of its nested members."""

    drop: list[str] = field(default_factory=lambda: [])
    refuse: list[str] = field(default_factory=lambda: [])
    fill: list[tuple[str, str]] = field(default_factory=lambda: [])
    need: list[str] = field(default_factory=lambda: [])
    inner: list[tuple[str, WalkIR]] = field(default_factory=lambda: [])

    @property
    def own(self) -> bool:
        """Whether the row changes its own members (not only nested ones)."""
        return bool(self.drop or self.refuse or self.fill or self.need)


class _Planner:
    """Plans the rows of one direction; rows are keyed by source type (``A>B`` if renamed)."""

    def __init__(self, src: Surface, dst: Surface, diff: Diff, upgrade: bool, policy: Policy):
        self.src, self.dst, self.diff, self.upgrade, self.policy = src, dst, diff, upgrade, policy
        self.rows: dict[str, _Row] = {}
        self.used: set[str] = set()
        """The declared rules this direction applied (``members.TAG``, ``fill.T.f``)."""

    # -- rows ------------------------------------------------------------------------------

    def pair(self, source: str | None, target: str | None) -> str | None:
        """The row key converting the named source object type into the named target one."""
        if source is None or target is None:
            return None
        s, d = self.src.type_map.get(source), self.dst.type_map.get(target)
        if s is None or d is None or s.kind != "object" or d.kind != "object":
            return None
        key = source if source == target else f"{source}>{target}"
        if key not in self.rows:
            self.rows[key] = row = _Row()
            self._plan(row, source, s.field_map(), d)
        return key

    def effect(self, subject: str, item: str, aspect: str) -> Effect | None:
        """The diff's effect, in this direction, of the change to ``subject.item`` (``aspect``:
        ``""`` for a field only one side has, ``required`` for its required-ness)."""
        for change in self.diff.find(Category.FIELD, subject, item):
            if change.aspect == aspect:
                return change.upgrade if self.upgrade else change.downgrade
        return None

    def _plan(self, row: _Row, name: str, sf: dict[str, FieldView], into: TypeView) -> None:
        df = into.field_map()
        for wire in sf:
            if wire in df:
                continue
            # The diff's verdict; a renamed pair (no field change listed) gets the same rule.
            effect = self.effect(name, wire, "") or lacked_field(into.open)
            if effect.action is Action.COPY:
                continue
            if effect.action is Action.REFUSE or self.policy.refuses(name, wire):
                row.refuse.append(wire)
            else:
                row.drop.append(wire)
        for wire, target in df.items():
            source = sf.get(wire)
            if target.required and (source is None or not source.required):
                filler = self.policy.filler(name, wire)
                aspect = "" if source is None else "required"
                effect = self.effect(name, wire, aspect) or required_by_target(
                    True, target.const, filler is not None
                )
                if effect.action is Action.FILL and target.const is not None:
                    row.fill.append((wire, target.const))
                elif effect.action is Action.FILL and filler is not None:
                    row.fill.append((wire, filler))
                    self.used.add("fill")
                elif effect.action is Action.REFUSE:
                    row.need.append(wire)
            if source is not None:
                walk = self.walk(source.shape, target.shape, frozenset())
                if walk is not None:
                    row.inner.append((wire, walk))

    # -- nested values ---------------------------------------------------------------------

    def expand(self, shape: Shape, side: Surface, seen: frozenset[str]) -> Shape | None:
        """Expand named unions and aliases; None for a recursive alias (copied as it is)."""
        while shape.kind == "ref":
            found = side.type_map.get(shape.name)
            if found is None or found.kind == "object" or found.shape is None:
                return shape
            if shape.name in seen:
                return None
            seen = seen | {shape.name}
            shape = found.shape
        return shape

    def walk(self, s: Shape, d: Shape, seen: frozenset[str]) -> WalkIR | None:
        """How a value of shape ``s`` changes into shape ``d``; None when it is copied."""
        es, ed = self.expand(s, self.src, seen), self.expand(d, self.dst, seen)
        if es is None or ed is None:
            return None
        if es.kind == "ref" and ed.kind == "ref":
            key = self.pair(es.name, ed.name)
            return RefIR(key) if key is not None else None
        if es.kind == ed.kind and es.kind in ("array", "map"):
            item = self.walk(es.args[0], ed.args[0], seen)
            if item is None:
                return None
            return EachIR(item) if es.kind == "array" else ValuesIR(item)
        if es.kind in ("union", "ref") and ed.kind in ("union", "ref"):
            return self.union(es, ed, seen)
        return None

    def union(self, s: Shape, d: Shape, seen: frozenset[str]) -> WalkIR | None:
        """Match a union's members by their tag; plan the ones the target lacks."""
        st, dt = self.src.tagged(s), self.dst.tagged(d)
        if st is None or dt is None:
            return self.marked(s, d, seen)
        tags = {wire for wire, _ in st.values()} | {wire for wire, _ in dt.values()}
        if len(tags) != 1:
            return None
        (tag,) = tags
        by_value = {value: name for name, (_, value) in dt.items()}
        members: list[tuple[str, WalkIR]] = []
        lost: list[tuple[str, LostIR]] = []
        for name, (_, value) in sorted(st.items(), key=lambda kv: kv[1][1]):
            target = by_value.get(value)
            if target is None:
                lost.append((value, self.lost_member(value, dt, tag)))
                continue
            walk = self.walk(Shape("ref", name), Shape("ref", target), seen)
            if walk is not None:
                members.append((value, walk))
        if not members and not lost:
            return None
        return OneOfIR(tag, tuple(members), tuple(lost))

    def marked(self, s: Shape, d: Shape, seen: frozenset[str]) -> WalkIR | None:
        """An untagged union of objects, each with a required member no other one has
        (``text`` / ``blob``): members keyed by that member (``OneOf`` with an empty tag)."""
        members = s.args if s.kind == "union" else (s,)
        targets = {m.name for m in (d.args if d.kind == "union" else (d,)) if m.kind == "ref"}
        required: dict[str, set[str]] = {}
        for m in members:
            view = self.src.type_map.get(m.name) if m.kind == "ref" else None
            if view is None or view.kind != "object" or m.name not in targets:
                return None
            required[m.name] = {f.wire for f in view.fields if f.required}
        found: list[tuple[str, WalkIR]] = []
        for name, wires in sorted(required.items()):
            others: set[str] = set()
            for other, wires_of in required.items():
                if other != name:
                    others |= wires_of
            marks = sorted(wires - others)
            if not marks:
                return None
            walk = self.walk(Shape("ref", name), Shape("ref", name), seen)
            if walk is not None:
                found.append((marks[0], walk))
        return OneOfIR("", tuple(found), ()) if found else None

    def lost_member(self, value: str, targets: dict[str, tuple[str, str]], tag: str) -> LostIR:
        """The policy for the member tagged ``value`` the target lacks, checked against it.

        A ``map`` rule must name a member of the target union and write only fields that
        member has, every field it requires among them: what the rule assumes is asserted.
        """
        rule = self.policy.lost(value)
        if rule is None:
            return LostIR("drop", reason="the target lacks this member and no rule maps it")
        self.used.add(f"members.{value}")
        if rule.action != "map":
            return rule
        by_value = {v: name for name, (_, v) in targets.items()}
        member = by_value.get(rule.to)
        where = f"schema/converters.toml: members.{value} (into {self.dst.label})"
        if member is None:
            raise GenerationError(f"{where}: the target union has no {rule.to!r} member")
        fields = self.dst.type_map[member].field_map()
        written = {name for name, _ in rule.fields}
        if not written <= fields.keys():
            unknown = ", ".join(sorted(written - fields.keys()))
            raise GenerationError(f"{where}: {member} has no field {unknown}")
        required = {w for w, f in fields.items() if f.required}
        if not required <= written:
            missing = ", ".join(sorted(required - written))
            raise GenerationError(f"{where}: {member} requires {missing}; the rule omits it")
        if dict(rule.fields).get(tag) != rule.to:
            raise GenerationError(f"{where}: the rule must write {tag} = {rule.to!r}")
        return rule

    # -- pruning ---------------------------------------------------------------------------

    def live(self) -> frozenset[str]:
        """The rows that change something, themselves or in a nested value (a fixpoint)."""
        live = {key for key, row in self.rows.items() if row.own}
        grew = True
        while grew:
            grew = False
            for key, row in self.rows.items():
                if key not in live and any(_matters(w, live) for _, w in row.inner):
                    live.add(key)
                    grew = True
        return frozenset(live)

    def prune_row(self, key: str, live: frozenset[str]) -> RowIR:
        """The frozen row, its walks cut to the rows that change something."""
        row = self.rows[key]
        inner = tuple((wire, w) for wire, w in row.inner if _matters(w, live))
        return RowIR(
            key,
            tuple(row.drop),
            tuple(row.refuse),
            tuple(row.fill),
            tuple(row.need),
            tuple((wire, _prune(w, live)) for wire, w in inner),
        )


def _matters(walk: WalkIR, live: frozenset[str] | set[str]) -> bool:
    """Whether a walk reaches a live row or a union member the target lacks."""
    if isinstance(walk, RefIR):
        return walk.name in live
    if isinstance(walk, EachIR | ValuesIR):
        return _matters(walk.item, live)
    return bool(walk.lost) or any(_matters(w, live) for _, w in walk.members)


def _prune(walk: WalkIR, live: frozenset[str]) -> WalkIR:
    """Cut the branches of a walk that change nothing."""
    if isinstance(walk, EachIR):
        return EachIR(_prune(walk.item, live))
    if isinstance(walk, ValuesIR):
        return ValuesIR(_prune(walk.item, live))
    if isinstance(walk, OneOfIR):
        members = tuple((v, _prune(w, live)) for v, w in walk.members if _matters(w, live))
        return OneOfIR(walk.tag, members, walk.lost)
    return walk
