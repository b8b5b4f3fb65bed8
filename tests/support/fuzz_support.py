"""Hostile frames for the fuzz tests and the long fuzz run, and an oracle of the right answer.

Strategies: arbitrary bytes, broken UTF-8, deep nesting, huge numbers, duplicate keys, wrong
JSON-RPC shapes, and valid frames mutated byte by byte. The oracle ``expect`` says, from the
JSON-RPC 2.0 spec and the MCP rules alone (Python's ``json`` module, not our decoder), what a
2025-06-18 server must do with a frame: answer an error with a given code and id, accept a
request (any answer with its id), or stay silent (a notification or a response). The same
rules hold for a server of the stateless era (2026-07-28), whose every request with a usable id
gets an answer with that id (the engine picks the error of a bad ``_meta`` or method), and for
a dual-era connection, where a frame whose ``_meta`` names a stateless version goes to that era.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final, Literal

from hypothesis import strategies as st

MAX_DEPTH: Final = 128
"""The runtime's default nesting bound: deeper frames are refused unparsed with -32600."""
PARSE, INVALID, NOT_FOUND, PARAMS = -32700, -32600, -32601, -32602
# Requests a 2025-06-18 server accepts from a client (a few; anything else is -32601).
SERVER_METHODS: Final = ("ping", "tools/list", "tools/call", "resources/list", "prompts/list")
METHODS: Final = (*SERVER_METHODS, "nope/x", "", "sampling/createMessage", "roots/list", "\u00e9")
STATELESS_VERSION: Final = "2026-07-28"
META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
STATELESS_METHODS: Final = ("server/discover", "tools/list", "tools/call", "prompts/list", "ping")
INITIALIZE_ERA: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
_MISSING: Final = object()
Era = Literal["initialize", "stateless", "dual"]
"""Who reads the frames: an initialize-era session, the stateless engine, or the dual router
(after ``initialize``: the session, except frames whose ``_meta`` names a stateless version)."""


@dataclass(frozen=True)
class Expect:
    """What a server must do with one frame."""

    kind: str
    """"error" (exactly this code and id), "request" (some answer with this id), "silent"."""
    code: int | None = None
    id: Any = None


def _usable(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _depth(text: str) -> int:
    """Deepest bracket nesting outside strings, by a plain character scan."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    return False


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        value[_DUPLICATE] = True
    return value


_DUPLICATE: Final = "\0duplicate"


def expect(frame: bytes, max_depth: int = MAX_DEPTH, era: Era = "initialize") -> list[Expect]:
    """The acceptable outcomes for ``frame`` (more than one only where JSON leaves it open).

    Open cases: duplicate keys in the envelope (last wins, or refused as a wrong shape), and
    integer ids beyond 64 bits (used, or refused as a wrong shape).
    """
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError:
        return [Expect("error", PARSE)]
    if _depth(text) > max_depth:
        return [Expect("error", INVALID)]
    overflow: list[str] = []
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            object_pairs_hook=_pairs,
            parse_float=lambda number: _float(number, overflow),
        )
    except (ValueError, RecursionError):
        return [Expect("error", PARSE)]
    if _has_lone_surrogate(value):
        return [Expect("error", PARSE)]  # msgspec, and I-JSON, refuse unpaired surrogates
    # RFC 8259 section 6 lets a reader limit numbers: one that reads a whole frame into values
    # (the stateless era, the dual-era router) may refuse a float beyond the double range.
    unreadable = [Expect("error", PARSE)] if overflow and era != "initialize" else []
    if not isinstance(value, dict):
        return [Expect("error", INVALID), *unreadable]  # a scalar, or a batch (none here)
    stateless = era == "stateless" or (era == "dual" and _names_stateless_version(value))
    outcomes = [_envelope(value, stateless), *unreadable]
    id_ = value.get("id")
    if value.pop(_DUPLICATE, False) or (isinstance(id_, int) and abs(id_) >= 2**63):
        outcomes += [Expect("error", INVALID, id_ if _usable(id_) else None)]
        outcomes += [Expect("error", INVALID, None)]
    return outcomes


def _float(number: str, overflow: list[str]) -> float:
    """A JSON number with a fraction or exponent; ``overflow`` notes one beyond the range."""
    value = float(number)
    if math.isinf(value):
        overflow.append(number)
    return value


def _names_stateless_version(value: dict[str, Any]) -> bool:
    """Whether a message's ``params._meta`` names a version of the stateless era."""
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION) if isinstance(meta, dict) else None
    return isinstance(version, str) and version not in INITIALIZE_ERA


def _envelope(value: dict[str, Any], stateless: bool = False) -> Expect:
    """The outcome for a well-formed JSON object, by the JSON-RPC 2.0 and MCP rules."""
    id_ = value.get("id", _MISSING)
    rid = id_ if _usable(id_) else None
    if id_ is not _MISSING and id_ is not None and rid is None:
        return Expect("error", INVALID, None)  # an id of the wrong type cannot be echoed
    method = value.get("method", _MISSING)
    if method is not _MISSING and not isinstance(method, str):
        return Expect("error", INVALID, rid)
    if value.get("jsonrpc", _MISSING) != "2.0":
        return Expect("error", INVALID, rid)
    has_result, has_error = "result" in value, "error" in value
    if isinstance(method, str):
        if has_result or has_error:
            return Expect("error", INVALID, rid)
        if id_ is _MISSING:
            return Expect("silent")
        if rid is None:
            return Expect("error", INVALID, None)  # "id": null is no request id
        if method not in SERVER_METHODS and not stateless:
            return Expect("error", NOT_FOUND, rid)
        return Expect("request", None, rid)
    if has_result and has_error:
        return Expect("error", INVALID, rid)
    if has_result and rid is None:
        return Expect("error", INVALID, None)
    if not has_result and not has_error:
        return Expect("error", INVALID, rid)
    return Expect("silent")


def check_answer(outcomes: list[Expect], answers: list[Any]) -> str | None:
    """Say what is wrong with the decoded ``answers`` to a frame, or None if one outcome fits."""
    problems = []
    for outcome in outcomes:
        problem = _check(outcome, answers)
        if problem is None:
            return None
        problems.append(problem)
    return "; ".join(problems)


def _check(outcome: Expect, answers: list[Any]) -> str | None:
    if outcome.kind == "silent":
        return None if not answers else f"expected no answer, got {answers}"
    if len(answers) != 1 or not isinstance(answers[0], dict):
        return f"expected one answer ({outcome}), got {answers}"
    (answer,) = answers
    if answer.get("jsonrpc") != "2.0" or answer.get("id", _MISSING) != outcome.id:
        return f"expected id {outcome.id!r}, got {answer}"
    if outcome.kind == "request":
        ok = "result" in answer or isinstance(answer.get("error"), dict)
        return None if ok else f"expected a response, got {answer}"
    code = (
        (answer.get("error") or {}).get("code") if isinstance(answer.get("error"), dict) else None
    )
    return None if code == outcome.code else f"expected code {outcome.code}, got {answer}"


# -- strategies -------------------------------------------------------------------------------

_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    _json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.one_of(
    st.integers(-(2**31), 2**31),
    st.text(max_size=10),
    st.none(),
    st.booleans(),
    st.floats(),
    st.lists(st.integers(0, 9), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(0, 9), max_size=2),
)


@st.composite
def valid_frames(draw: st.DrawFn) -> dict[str, Any]:
    """Messages of the right shape: requests, notifications and responses."""
    kind = draw(st.sampled_from(["request", "notification", "result", "error"]))
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if kind in ("request", "result", "error"):
        message["id"] = draw(st.one_of(st.integers(0, 10**6), st.text(max_size=8)))
    if kind in ("request", "notification"):
        message["method"] = draw(st.sampled_from([*METHODS, "notifications/initialized"]))
        if draw(st.booleans()):
            message["params"] = draw(
                st.one_of(
                    st.dictionaries(st.text(max_size=6), json_values, max_size=3), json_values
                )
            )
    elif kind == "result":
        message["result"] = draw(json_values)
    else:
        message["error"] = {"code": draw(st.integers(-33000, 0)), "message": draw(st.text())}
    return message


@st.composite
def stateless_frames(draw: st.DrawFn) -> dict[str, Any]:
    """Messages of the stateless era: ``_meta`` naming 2026-07-28 (or, less often, broken),
    ids of any JSON type, the era's methods and others."""
    message = draw(valid_frames())
    if draw(st.booleans()):
        message["id"] = draw(ids)
    if "method" in message:
        message["method"] = draw(st.sampled_from([*STATELESS_METHODS, *METHODS]))
    meta: dict[str, Any] = {META_VERSION: STATELESS_VERSION, META_CAPABILITIES: {}}
    if draw(st.integers(0, 3)) == 0:
        meta[draw(st.sampled_from([META_VERSION, META_CAPABILITIES]))] = draw(json_values)
    params = message.get("params")
    message["params"] = {**(params if isinstance(params, dict) else {}), "_meta": meta}
    return message


@st.composite
def wrong_shapes(draw: st.DrawFn) -> dict[str, Any]:
    """Objects with JSON-RPC members present or missing, of any JSON type."""
    message: dict[str, Any] = {}
    for key, good in [
        ("jsonrpc", st.just("2.0")),
        ("id", ids),
        ("method", st.sampled_from(METHODS)),
        ("params", json_values),
        ("result", json_values),
        ("error", json_values),
    ]:
        choice = draw(st.sampled_from(["absent", "good", "any"]))
        if choice == "good":
            message[key] = draw(good)
        elif choice == "any":
            message[key] = draw(json_values)
    return message


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def broken_utf8(draw: st.DrawFn) -> bytes:
    """A valid frame with an invalid UTF-8 sequence put inside one of its strings."""
    frame = _dumps(draw(valid_frames()))
    bad = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88"]))
    quotes = [i for i, b in enumerate(frame) if b == ord('"')]
    at = draw(st.sampled_from(quotes)) + 1
    return frame[:at] + bad + frame[at:]


@st.composite
def deep_nesting(draw: st.DrawFn) -> bytes:
    """Arrays or objects nested around the bound and far beyond it, inside a message or bare."""
    depth = draw(st.one_of(st.integers(MAX_DEPTH - 4, MAX_DEPTH + 4), st.integers(1, 5000)))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    closed = draw(st.booleans()) or draw(st.booleans())
    core = opener * depth + b"1" + (closer * depth if closed else b"")
    if draw(st.booleans()):
        return core
    return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":' + (
        core + b"}}"
    )


@st.composite
def huge_numbers(draw: st.DrawFn) -> bytes:
    """Numbers far beyond 64 bits and float range, as ids, params and results."""
    digits = draw(st.integers(19, 600))
    number = draw(
        st.sampled_from(
            [
                b"9" * digits,
                b"-" + b"1" * digits,
                b"1e" + str(digits * 10).encode(),
                b"-1.5E-" + str(digits * 10).encode(),
                b"0." + b"3" * digits,
            ]
        )
    )
    where = draw(st.sampled_from(["id", "params", "result", "progress"]))
    if where == "id":
        return b'{"jsonrpc":"2.0","id":' + number + b',"method":"ping"}'
    if where == "result":
        return b'{"jsonrpc":"2.0","id":1,"result":' + number + b"}"
    if where == "progress":
        return b'{"jsonrpc":"2.0","method":"notifications/progress","params":' + (
            b'{"progressToken":1,"progress":' + number + b"}}"
        )
    return b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":' + number + b"}}"


@st.composite
def duplicate_keys(draw: st.DrawFn) -> bytes:
    """A message whose members repeat (the JSON text, not a dict, can say it)."""
    message = draw(valid_frames())
    pairs = [(k, _dumps(v)) for k, v in message.items()]
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]))
        value = _dumps(draw(st.one_of(json_values, ids)))
        pairs.insert(draw(st.integers(0, len(pairs))), (key, value))
    return b"{" + b",".join(_dumps(k) + b":" + v for k, v in pairs) + b"}"


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]] | None = None) -> bytes:
    """A valid frame (of ``base``, else any) with bytes flipped, inserted, deleted, cut short."""
    frame = bytearray(_dumps(draw(valid_frames() if base is None else base)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        at = draw(st.integers(0, max(len(frame) - 1, 0)))
        if op == "flip" and frame:
            frame[at] = draw(st.integers(0, 255))
        elif op == "insert":
            frame[at:at] = draw(st.sampled_from([b"{", b"[", b'"', b",", b"\\", b"\x00", b"}"]))
        elif op == "delete" and frame:
            del frame[at]
        elif op == "truncate":
            del frame[at:]
    return bytes(frame)


arbitrary_bytes = st.binary(max_size=256)
KINDS: Final = {
    "bytes": arbitrary_bytes,
    "utf8": broken_utf8(),
    "deep": deep_nesting(),
    "numbers": huge_numbers(),
    "duplicates": duplicate_keys(),
    "shapes": wrong_shapes().map(_dumps),
    "valid": valid_frames().map(_dumps),
    "mutated": mutated(),
}
"""Each kind of hostile frame, by name."""
frames = st.one_of(*KINDS.values())
"""Any hostile frame."""
stateless_hostile = st.one_of(frames, stateless_frames().map(_dumps), mutated(stateless_frames()))
"""Any hostile frame, and frames of the stateless era, whole and mutated (for dual-era servers)."""
