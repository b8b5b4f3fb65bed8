"""Decode, inspect and re-encode MCP messages with the generated bindings in ``generated/``."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated import REVISIONS, decode, encode
from generated.v2025_11_25 import METHODS
from generated.v2025_11_25 import types as t

CALL = b'{"name":"get_weather","arguments":{"city":"Lyon"},"_meta":{"progressToken":7}}'
RESULT = (
    b'{"content":[{"type":"text","text":"12 C"},'
    b'{"type":"resource","resource":{"uri":"file:///w.png","blob":"iVBO","mimeType":"image/png"}}],'
    b'"structuredContent":{"celsius":12}}'
)


def main() -> None:
    """Show what the generated package holds and decode a tools/call round trip."""
    print(f"revisions: {', '.join(REVISIONS)}")
    spec = METHODS["tools/call"]
    print(
        f"tools/call: params={spec.params.__name__} result={spec.result.__name__}"
        f" gate={spec.capability}"
    )
    params = decode(CALL, spec.params)
    print(f"decoded params: {params!r}")
    result = decode(RESULT, spec.result)
    for block in result.content:
        print(f"  content block: {type(block).__name__}")
    assert isinstance(result.content[1], t.EmbeddedResource)
    print(f"re-encoded result: {encode(result).decode()}")
    try:
        decode(b'{"arguments":{}}', spec.params)
    except msgspec.ValidationError as exc:
        print(f"bad params rejected: {exc}")


if __name__ == "__main__":
    main()
