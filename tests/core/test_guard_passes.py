"""The quick depth passes decide as the exact scan does, on every kind of string and shape.

``quick_depth`` drops adjacent quote pairs to find the strings that hold brackets; these
frames mix such strings with empty and adjacent ones, escaped quotes and backslashes,
unterminated strings and unbalanced brackets, under limits small enough for every frame
to reach the passes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from generated._runtime.core.frame_guard import nesting_depth, quick_depth, too_deep

PIECES = ('"', '""', "[", "]", "{", "}", '"["', '"]"', '"}{"', '\\"', "\\\\", "a", ",", ":")
"""Fragments of malformed texts: stray quotes, brackets, strings holding brackets, escapes."""
STRINGS = ("", "[", "]", "{}", "][", 'a"b', "\\", "[\\", '"]', "x" * 40)


def value(rng: random.Random, depth: int) -> Any:
    """A random JSON value nesting at most ``depth`` more levels, strings full of brackets."""
    roll = rng.random()
    if depth == 0 or roll < 0.3:
        return rng.choice([rng.choice(STRINGS), 1, None])
    items = [value(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.65:
        return items
    return {rng.choice(STRINGS) + str(i): item for i, item in enumerate(items)}


def well_formed_frames() -> list[bytes]:
    """JSON texts of many shapes (compact and spaced), seeded so failures reproduce."""
    rng = random.Random(18)
    frames = []
    for _ in range(400):
        text = json.dumps(value(rng, rng.randint(1, 9)), ensure_ascii=False)
        frames.append(text.encode() if rng.random() < 0.5 else text.replace(" ", "").encode())
    return frames


def malformed_frames() -> list[bytes]:
    """Byte soups of quotes, brackets and escapes (what ``frame_problem`` meets unparsed)."""
    rng = random.Random(28)
    return [
        "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60))).encode() for _ in range(600)
    ]


@pytest.mark.parametrize("limit", [0, 1, 2, 3, 5, 8])
def test_quick_passes_refuse_exactly_what_the_exact_scan_refuses(limit: int) -> None:
    """Well-formed texts (no backslash outside strings): the quick passes are exact."""
    for frame in well_formed_frames():
        deep = nesting_depth(frame) > limit
        assert (quick_depth(frame, limit) > limit) == deep, frame
        assert too_deep(frame, limit) == deep, frame


@pytest.mark.parametrize("limit", [0, 1, 2, 3, 5, 8])
def test_quick_passes_on_malformed_text_never_refuse_what_the_exact_scan_passes(
    limit: int,
) -> None:
    """Malformed texts: ``too_deep`` still agrees with the exact scan wherever no backslash
    stands outside a string (``parse_error`` counts the others exactly)."""
    for frame in malformed_frames():
        if b"\\" in frame:
            assert not too_deep(frame, limit) or nesting_depth(frame) > limit, frame
        else:
            assert too_deep(frame, limit) == (nesting_depth(frame) > limit), frame
