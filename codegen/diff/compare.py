"""Compare two revisions' surfaces into a ``Diff``, classifying every change both ways."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping

from . import classify as cl
from .model import Category, Change, Diff, Effect, Kind, Side
from .shape import Shape, accepts, ref
from .views import FieldView, MethodView, Surface, TypeView

C, M, CAP, T, MEM, F = (
    Category.CONSTANT,
    Category.METHOD,
    Category.CAPABILITY,
    Category.TYPE,
    Category.MEMBER,
    Category.FIELD,
)
ADDED, REMOVED, CHANGED = Kind.ADDED, Kind.REMOVED, Kind.CHANGED
# The effect of one method-table column changing: (source row, target row, upgrade) -> effect.
ColumnEffect = Callable[[MethodView, MethodView, bool], Effect]


def compare(
    old: Surface,
    new: Surface,
    rules: frozenset[str] = frozenset(),
    members: Mapping[str, str] | None = None,
) -> Diff:
    """Diff ``old`` against ``new``.

    ``rules`` name the fields a declared rule fills when the target requires them and the source
    lacks them: ``Type.field``, or ``*.field`` for every type. ``members``: the declared action
    (``map``, ``drop``, ``refuse``) for a union member, by tag, where the target lacks it
    (``drop`` when absent), as the converters apply it.
    """
    pair = _Pair(old, new, rules, members or {})
    changes = [
        *pair.constants(),
        *pair.methods(),
        *pair.capabilities(),
        *pair.types(),
    ]
    return Diff(
        Side(old.label, old.revision, old.sha256),
        Side(new.label, new.revision, new.sha256),
        tuple(sorted(changes, key=Change.sort_key)),
        tuple(sorted(rules)),
    )


def _added(cat: Category, subject: str, item: str, new: str, what: str) -> Change:
    return Change(cat, ADDED, subject, item, "", None, new, cl.ABSENT, cl.missing_in_target(what))


def _removed(cat: Category, subject: str, item: str, old: str, what: str) -> Change:
    return Change(cat, REMOVED, subject, item, "", old, None, cl.missing_in_target(what), cl.ABSENT)


def _constraints(f: FieldView) -> dict[str, float | str]:
    return {k: json.loads(v) for k, v in f.constraints}


def _render_constraints(f: FieldView) -> str:
    return ", ".join(f"{k}={v}" for k, v in f.constraints) or "none"


def _class_names(shape: Shape, side: Surface) -> set[str]:
    """The named object types a shape mentions that are generated classes (not inline)."""
    if shape.kind != "ref":
        names: set[str] = set()
        return names.union(*(_class_names(a, side) for a in shape.args))
    found = side.type_map.get(shape.name)
    return (
        {shape.name} if found is not None and found.kind == "object" and not found.inline else set()
    )


ENVELOPE = ("id", "jsonrpc")
_RUNTIME_READS = cl.informational("the runtime acts on each revision's FACTS")
_SUPPORTED = {True: "supported", False: "not supported"}
FACT_CHANGES: dict[str, tuple[str, Effect, dict[bool, str]]] = {
    "handshake": (
        "initialize handshake",
        _RUNTIME_READS,
        {True: "initialize", False: "none (stateless)"},
    ),
    "batch": (
        "JSON-RPC batches",
        cl.informational("a batch is sent as single messages"),
        _SUPPORTED,
    ),
    "sse_priming": ("SSE priming event", _RUNTIME_READS, _SUPPORTED),
    "method_headers": ("Mcp-Method/Mcp-Name headers", _RUNTIME_READS, _SUPPORTED),
}
"""The protocol facts ``mcpgen diff`` reports: title, effect both ways, how values read."""
"""Members of the JSON-RPC envelope: on the wire in every revision, listed in some schemas."""


def _message(view: TypeView) -> bool:
    """Whether a type is a JSON-RPC message (it has a ``method``)."""
    return any(f.wire == "method" for f in view.fields)


def _column_only(source: MethodView, target: MethodView, upgrade: bool) -> Effect:
    return cl.informational("this column only; messages convert as typed")


def _expand(shape: Shape, side: Surface) -> Shape:
    """A named union or alias replaced by its shape (a recursive alias stays a name)."""
    seen: set[str] = set()
    while shape.kind == "ref" and shape.name not in seen:
        found = side.alias(shape.name)
        if found is None:
            break
        seen.add(shape.name)
        shape = found
    return shape


class _Pair:
    """The two surfaces being compared, with the helpers that need both."""

    def __init__(
        self, old: Surface, new: Surface, rules: frozenset[str], members: Mapping[str, str]
    ) -> None:
        self.old, self.new, self.rules, self.members = old, new, rules, members

    def fits(self, source: Shape, target: Shape, upgrade: bool, loose: bool = False) -> bool:
        """Whether ``source`` values fit ``target`` (old -> new when ``upgrade``); ``loose``:
        leaving out the members the target does not define."""
        src, tgt = (self.old, self.new) if upgrade else (self.new, self.old)
        return accepts(target, source, tgt, src, loose)

    def conversion(
        self, s: Shape, t: Shape, upgrade: bool, required: bool, in_list: bool | None = False
    ) -> Effect:
        """What the converters do with a ``s`` value going into ``t``: copy it, leave out what
        the target does not define, apply the declared rule of a union member the target lacks
        (the union told apart by the tag both sides' members carry), or refuse it."""
        if self.fits(s, t, upgrade):
            return cl.COPY
        if self.fits(s, t, upgrade, loose=True):
            return cl.LEFT_OUT
        src, dst = (self.old, self.new) if upgrade else (self.new, self.old)
        es, et = _expand(s, src), _expand(t, dst)
        if es.kind == et.kind and es.kind in ("array", "map"):
            return self.conversion(es.args[0], et.args[0], upgrade, True, True)
        st, dt = src.tagged(es), dst.tagged(et)
        if st is None or dt is None or len({w for w, _ in (*st.values(), *dt.values())}) != 1:
            return cl.REFUSED_VALUE
        present = {value for _, value in dt.values()}
        effects: list[Effect] = []
        for m in es.args if es.kind == "union" else (es,):
            if self.fits(m, et, upgrade):
                continue
            tag = st.get(m.name) if m.kind == "ref" else None
            if tag is None or tag[1] in present:
                return cl.REFUSED_VALUE
            action = self.members.get(tag[1], "drop")
            effects.append(cl.lost_member(action, in_list, required))
        return cl.worst(effects)

    def same_values(self, o: Shape, n: Shape) -> bool:
        """Equal values under another name, unless a generated class is renamed.

        ``dict[str, Any]`` and an alias ``MetaObject`` of it are the same to users, as are two
        inline objects named after where they sit; a named object type becoming another named
        object type (``ListToolsRequestParams`` -> ``PaginatedRequestParams``) is still shown.
        """
        if not (self.fits(o, n, True) and self.fits(n, o, False)):
            return False
        return _class_names(o, self.old) == _class_names(n, self.new)

    def ruled(self, owner: str, wire: str) -> bool:
        """Whether a declared rule fills ``owner.wire`` (or ``*.wire``)."""
        return f"{owner}.{wire}" in self.rules or f"*.{wire}" in self.rules

    def name_fit(self, source: str | None, target: str | None, upgrade: bool) -> Effect:
        """A method's params or result type is another named type."""
        if source and target and self.fits(ref(source), ref(target), upgrade):
            return cl.informational(f"{source} converts to {target} keeping every field")
        return cl.type_name_fit(source, target)

    # -- constants ---------------------------------------------------------
    def constants(self) -> Iterator[Change]:
        """The protocol version and the protocol facts (handshake, batches, HTTP stream rules)."""
        old, new = self.old, self.new
        if old.revision and new.revision and old.revision != new.revision:
            effect = cl.informational("the version is negotiated per connection; rewritten")
            yield Change(
                C,
                CHANGED,
                "PROTOCOL_VERSION",
                "",
                "value",
                json.dumps(old.revision),
                json.dumps(new.revision),
                effect,
                effect,
            )
        for (name, was), (_, now) in zip(old.facts, new.facts, strict=True):
            if was is None or now is None or was == now:
                continue
            title, effect, words = FACT_CHANGES[name]
            yield Change(
                C,
                CHANGED,
                title,
                "",
                "value",
                words[was],
                words[now],
                effect if was or name != "batch" else cl.ABSENT,
                effect if now or name != "batch" else cl.ABSENT,
            )

    # -- methods -----------------------------------------------------------
    def methods(self) -> Iterator[Change]:
        """Methods added, removed, and changed in any column of the method table."""
        olds = {m.method: m for m in self.old.methods}
        news = {m.method: m for m in self.new.methods}
        for name in sorted(olds.keys() | news.keys()):
            o, n = olds.get(name), news.get(name)
            if o is None and n is not None:
                yield _added(M, name, "", n.summary, n.kind)
            elif n is None and o is not None:
                yield _removed(M, name, "", o.summary, o.kind)
            elif o is not None and n is not None:
                yield from self.method_changes(o, n)

    def method_changes(self, o: MethodView, n: MethodView) -> Iterator[Change]:
        """The differences of one method present in both revisions, column by column."""
        columns: tuple[tuple[str, ColumnEffect], ...] = (
            ("kind", lambda a, b, up: cl.missing_in_target(a.kind)),
            ("senders", lambda a, b, up: cl.senders_fit(a.senders, b.senders, a.kind)),
            ("params", lambda a, b, up: self.name_fit(a.params, b.params, up)),
            ("params_required", self.params_fill),
            ("result", lambda a, b, up: self.name_fit(a.result, b.result, up)),
            (
                "input_required",
                lambda a, b, up: cl.input_required_fit(a.input_required, b.input_required),
            ),
            ("paginated", _column_only),
            ("capability", _column_only),
        )
        for aspect, effect in columns:
            old, new = o.columns[aspect], n.columns[aspect]
            known = aspect != "capability" or (self.old.overrides and self.new.overrides)
            if old != new and known:
                up, down = effect(o, n, True), effect(n, o, False)
                yield Change(M, CHANGED, o.method, "", aspect.replace("_", " "), old, new, up, down)

    def params_fill(self, source: MethodView, target: MethodView, upgrade: bool) -> Effect:
        """Params become required in the target: ``{}`` fills them if no field is required."""
        if not target.params_required or source.params_required:
            return cl.COPY
        side = self.new if upgrade else self.old
        params = side.type_map.get(target.params or "")
        empty_ok = params is not None and not any(f.required for f in params.fields)
        return cl.required_by_target(True, "{}" if empty_ok else None, False, "params")

    # -- capabilities ------------------------------------------------------
    def capabilities(self) -> Iterator[Change]:
        """Capability paths (``ServerCapabilities.tools.listChanged``) added, removed, retyped."""
        olds, news = dict(self.old.capabilities), dict(self.new.capabilities)
        for path in sorted(olds.keys() | news.keys()):
            o, n = olds.get(path), news.get(path)
            if o is None and n is not None:
                yield _added(CAP, path, "", n.render(), "capability")
            elif n is None and o is not None:
                yield _removed(CAP, path, "", o.render(), "capability")
            elif o is not None and n is not None and o.render() != n.render():
                up, down = self.fits(o, n, True), self.fits(n, o, False)
                yield Change(
                    CAP,
                    CHANGED,
                    path,
                    "",
                    "type",
                    o.render(),
                    n.render(),
                    cl.shape_fit(up),
                    cl.shape_fit(down),
                )

    # -- types -------------------------------------------------------------
    def types(self) -> Iterator[Change]:
        """Named types, their union members, enum values and fields."""
        olds = {t.name: t for t in self.old.types if not t.capability}
        news = {t.name: t for t in self.new.types if not t.capability}
        for name in sorted(olds.keys() | news.keys()):
            o, n = olds.get(name), news.get(name)
            if (o is None or o.inline) and (n is None or n.inline) and (o is None or n is None):
                continue  # an inline object only on one side shows as the field holding it
            if o is None and n is not None:
                yield Change(T, ADDED, name, "", "", None, n.summary, cl.WHERE_USED, cl.WHERE_USED)
            elif n is None and o is not None:
                yield Change(
                    T, REMOVED, name, "", "", o.summary, None, cl.WHERE_USED, cl.WHERE_USED
                )
            elif o is not None and n is not None:
                yield from self.type_changes(o, n)

    def type_changes(self, o: TypeView, n: TypeView) -> Iterator[Change]:
        """The differences of one type present in both revisions."""
        if o.kind == n.kind == "object":
            if o.open != n.open:
                yield Change(
                    T,
                    CHANGED,
                    o.name,
                    "",
                    "extra members",
                    "allowed" if o.open else "refused",
                    "allowed" if n.open else "refused",
                    cl.openness_fit(o.open, n.open),
                    cl.openness_fit(n.open, o.open),
                )
            yield from self.field_changes(o, n)
            return
        if o.kind == n.kind == "union":
            olds = {m.render(): m for m in o.members}
            news = {m.render(): m for m in n.members}
            o_union, n_union = o.shape or ref(o.name), n.shape or ref(n.name)
            for key in sorted(olds.keys() - news.keys()):
                up = self.conversion(olds[key], n_union, True, False, None)
                yield Change(MEM, REMOVED, o.name, key, "", key, None, up, cl.ABSENT)
            for key in sorted(news.keys() - olds.keys()):
                down = self.conversion(news[key], o_union, False, False, None)
                yield Change(MEM, ADDED, o.name, key, "", None, key, cl.ABSENT, down)
            return
        o_shape, n_shape = o.shape, n.shape
        if (
            o_shape is not None
            and n_shape is not None
            and o_shape.kind == n_shape.kind == "literal"
        ):
            for value in sorted(set(o_shape.values) - set(n_shape.values)):
                yield _removed(C, o.name, value, value, "value")
            for value in sorted(set(n_shape.values) - set(o_shape.values)):
                yield _added(C, o.name, value, value, "value")
            return
        if o.summary != n.summary:
            # An object on one side (its kind changed) is compared field by field by name.
            o_shape, n_shape = o_shape or ref(o.name), n_shape or ref(n.name)
            aspect = "type" if o.kind == n.kind else "kind"
            yield Change(
                T,
                CHANGED,
                o.name,
                "",
                aspect,
                o.summary,
                n.summary,
                self.conversion(o_shape, n_shape, True, True),
                self.conversion(n_shape, o_shape, False, True),
            )

    def field_changes(self, o: TypeView, n: TypeView) -> Iterator[Change]:
        """Fields added, removed, and changed in type, required-ness or constraints."""
        olds, news = o.field_map(), n.field_map()
        message = _message(o) or _message(n)
        for wire in sorted(olds.keys() | news.keys()):
            of, nf = olds.get(wire), news.get(wire)
            ruled = self.ruled(o.name, wire)
            if message and wire in ENVELOPE and (of is None or nf is None):
                before = of.summary if of is not None else None
                after = nf.summary if nf is not None else None
                kind = ADDED if before is None else REMOVED
                yield Change(F, kind, o.name, wire, "", before, after, cl.ENVELOPE, cl.ENVELOPE)
            elif of is None and nf is not None:
                up = cl.required_by_target(nf.required, nf.const, ruled)
                down = cl.lacked_field(o.open)
                yield Change(F, ADDED, o.name, wire, "", None, nf.summary, up, down)
            elif nf is None and of is not None:
                down = cl.required_by_target(of.required, of.const, ruled)
                yield Change(
                    F,
                    REMOVED,
                    o.name,
                    wire,
                    "",
                    of.summary,
                    None,
                    cl.lacked_field(n.open),
                    down,
                )
            elif of is not None and nf is not None:
                yield from self.field_diff(o.name, of, nf, ruled)

    def field_diff(self, owner: str, o: FieldView, n: FieldView, ruled: bool) -> Iterator[Change]:
        """The differences of one field present in both revisions."""
        if o.shape.render() != n.shape.render() and not self.same_values(o.shape, n.shape):
            literal = o.shape.kind == n.shape.kind == "literal"
            yield Change(
                C if literal else F,
                CHANGED,
                owner,
                o.wire,
                "values" if literal else "type",
                o.shape.render(),
                n.shape.render(),
                cl.COPY if n.whole else self.conversion(o.shape, n.shape, True, n.required),
                cl.COPY if o.whole else self.conversion(n.shape, o.shape, False, o.required),
            )
        if o.required != n.required:

            def needed(source: FieldView, target: FieldView) -> Effect:
                if source.required or not target.required:
                    return cl.COPY
                when = "it where the source omits it"
                return cl.required_by_target(True, target.const, ruled, when)

            yield Change(
                F,
                CHANGED,
                owner,
                o.wire,
                "required",
                "required" if o.required else "optional",
                "required" if n.required else "optional",
                needed(o, n),
                needed(n, o),
            )
        if o.constraints != n.constraints:
            oc, nc = _constraints(o), _constraints(n)
            yield Change(
                F,
                CHANGED,
                owner,
                o.wire,
                "constraints",
                _render_constraints(o),
                _render_constraints(n),
                cl.constraint_fit(cl.stricter(oc, nc), n.required),
                cl.constraint_fit(cl.stricter(nc, oc), o.required),
            )
