"""Issue 18: the depth of a decoded frame walked by its types (``core/depth.py``).

Past 4 KB, or past as many opening brackets as levels allowed, the guard counts the depth on
the decoded value: Structs by their fields, the open members (``Any``, dicts and lists of it)
a level at a time in C. A deep payload in any open member is refused at the same limit and
with the same error as the byte scan refuses it; the scan (``nesting_depth``) is the oracle.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from generated._runtime.core.depth import builtins_too_deep
from generated._runtime.core.errors import INVALID_REQUEST, RemoteProtocolError
from generated._runtime.core.frame_guard import (
    COUNTED_UP_TO,
    DEFAULT_MAX_DEPTH,
    decode_untyped,
    decoded_too_deep,
    nesting_depth,
)
from generated._runtime.core.reader import reader_for
from generated._runtime.core.session import Session
from generated._runtime.core.wire import Malformed
from generated.v2025_06_18 import types as t
from generated.v2025_06_18.methods import METHODS
from tests.core.test_harden_decode import answer, assert_error


def nested(levels: int, empty: bool = False) -> Any:
    """A value nesting ``levels`` containers, objects and arrays by turns (the innermost
    empty when ``empty``)."""
    value: Any = {} if empty else 1
    for i in range(levels - 1 if empty else levels):
        value = {"a": value} if i % 2 else [value]
    return value


def dump(value: Any) -> bytes:
    """Compact JSON, as peers send it."""
    return json.dumps(value, separators=(",", ":")).encode()


def tool(i: int, schema: Any = None, meta: Any = None, output: Any = None) -> dict[str, Any]:
    """A tool definition, its open members as given."""
    found: dict[str, Any] = {
        "name": f"tool_{i}",
        "description": "Looks things up.",
        "inputSchema": schema if schema is not None else {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    if meta is not None:
        found["_meta"] = meta
    if output is not None:
        found["outputSchema"] = output
    return found


def tool_list(deep: dict[str, Any]) -> bytes:
    """A ``tools/list`` result of 40 tools (over 4 KB, more brackets than levels allowed),
    the 7th one built with ``deep``."""
    tools = [tool(i, **(deep if i == 7 else {})) for i in range(40)]
    return dump({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}})


def client_reads(frame: bytes, method: str, limit: int = DEFAULT_MAX_DEPTH) -> Any:
    """What a client awaiting ``method``'s result parses ``frame`` into."""
    reader = reader_for(METHODS, "server")
    (message,) = reader.parse(frame, METHODS[method].result, limit).messages
    return message


@pytest.mark.parametrize("member", ["schema", "meta", "output"])
@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_a_deep_open_member_of_a_listed_tool_is_refused_at_the_bound(
    member: str, extra: int
) -> None:
    """Levels: frame, result, tools, tool, then the member: the list's open members are
    gathered in C, a deep one is still -32600 exactly past the bound."""
    levels = DEFAULT_MAX_DEPTH - 4 + extra
    frame = tool_list({member: {"x": nested(levels - 1)}})
    assert len(frame) > COUNTED_UP_TO
    assert nesting_depth(frame) == DEFAULT_MAX_DEPTH + extra
    message = client_reads(frame, "tools/list")
    if extra:
        assert type(message) is Malformed and message.error.code == INVALID_REQUEST
        assert message.error.message == (
            f"Invalid request: nesting deeper than {DEFAULT_MAX_DEPTH} levels is refused"
        )
    else:
        assert isinstance(message.result, t.ListToolsResult)
        assert len(message.result.tools) == 40


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_deep_arguments_of_a_long_request_are_refused_at_the_bound(extra: int) -> None:
    """A request's open member (``arguments``) past 4 KB, beside many shallow siblings."""
    arguments = {"leaves": [{}] * 1500, "deep": nested(DEFAULT_MAX_DEPTH - 3 + extra)}
    params = {"name": "echo", "arguments": arguments}
    frame = dump({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    assert len(frame) > COUNTED_UP_TO
    assert nesting_depth(frame) == DEFAULT_MAX_DEPTH + extra
    if extra:
        assert_error(answer(frame), None, INVALID_REQUEST)
    else:
        (event,) = Session(METHODS, role="server").receive(frame)
        assert type(event).__name__ == "Request"


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-bound", "one-more"])
def test_an_empty_container_at_the_deepest_level_counts(extra: int) -> None:
    """``{}`` and ``[]`` hold nothing but are a level: counted as the bytes count them."""
    levels = DEFAULT_MAX_DEPTH - 4 + extra
    frame = tool_list({"schema": {"x": nested(levels - 1, empty=True)}})
    assert nesting_depth(frame) == DEFAULT_MAX_DEPTH + extra
    message = client_reads(frame, "tools/list")
    assert (type(message) is Malformed) == bool(extra)


def random_json(rng: random.Random, levels: int) -> Any:
    """A random JSON value nesting exactly ``levels`` containers (0: a scalar)."""
    if levels == 0:
        return rng.choice([1, "s", None, True, 2.5, "]]}}", "[{"])
    siblings = [random_json(rng, rng.randrange(levels)) for _ in range(rng.randrange(3))]
    inner = random_json(rng, levels - 1)
    items = [*siblings, inner]
    rng.shuffle(items)
    if rng.random() < 0.5:
        return items
    return {f"k{i}": item for i, item in enumerate(items)}


@pytest.mark.parametrize("seed", range(40))
def test_the_typed_walk_counts_what_the_byte_scan_counts(seed: int) -> None:
    """Random payloads in every kind of open member (lone, gathered per Struct, gathered per
    list, under a union of Structs, in an error), small limits near the Structs' own levels:
    the walk refuses exactly the frames the byte scan finds too deep."""
    rng = random.Random(seed)
    payload = random_json(rng, rng.randrange(1, 9))
    padding = "p" * COUNTED_UP_TO  # past the count: the walk decides
    frames = {
        "tools/list": tool_list({rng.choice(["schema", "meta", "output"]): {"x": payload}}),
        "tools/call": dump(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "result": {
                    "content": [
                        {"type": "text", "text": padding},
                        {"type": "text", "text": "t", "_meta": {"x": payload}},
                    ],
                    "structuredContent": {"x": payload},
                },
            }
        ),
        "resources/read": dump(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "result": {"contents": [{"uri": "u", "text": padding, "_meta": {"x": payload}}]},
            }
        ),
    }
    for method, frame in frames.items():
        depth = nesting_depth(frame)
        for limit in range(2, depth + 2):
            message = client_reads(frame, method, 1000)
            assert type(message) is not Malformed
            assert decoded_too_deep(message, frame, limit) == (depth > limit), (method, limit)
            refused = type(client_reads(frame, method, limit)) is Malformed
            assert refused == (depth > limit), (method, limit)


@pytest.mark.parametrize("seed", range(20))
def test_builtins_are_counted_a_level_at_a_time_exactly(seed: int) -> None:
    """The C count of decoded builtins against the byte scan, and the generic decode's
    refusal of a long ASCII frame (past the count) nesting too deep."""
    rng = random.Random(seed)
    value = random_json(rng, rng.randrange(1, 12))
    depth = nesting_depth(dump(value))
    for limit in range(depth + 2):
        assert builtins_too_deep((value,), 1, limit) == (depth > limit)
    frame = dump({"pad": "p" * COUNTED_UP_TO, "deep": nested(DEFAULT_MAX_DEPTH - 1 + seed % 2)})
    if seed % 2:
        with pytest.raises(RemoteProtocolError) as caught:
            decode_untyped(frame)
        assert caught.value.code == INVALID_REQUEST
    else:
        assert decode_untyped(frame)["pad"]
