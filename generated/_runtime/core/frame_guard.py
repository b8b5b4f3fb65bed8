# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Checks on an incoming frame: UTF-8, nesting depth, well-formedness, JSON-RPC shape.

msgspec decodes fast but leaves three holes the session must close before trusting it: it
does not check the UTF-8 of the parts it keeps raw (``params``, ``result``), it recurses once
per nesting level (a deep enough frame raises ``RecursionError``), and a typed decode stops at
the first value of the wrong type, so a malformed text may be reported as a wrong shape. The
functions here are pure and cheap on ordinary frames (a few passes in C over the bytes).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Final

import msgspec
from msgspec import UNSET

from .errors import INVALID_REQUEST, PARSE_ERROR, RemoteProtocolError

if TYPE_CHECKING:  # wire imports this module: no import of it at run time
    from .wire import Message

DEFAULT_MAX_DEPTH: Final = 128
"""Deepest nesting of arrays and objects accepted in a frame (the frame itself is level 1)."""

_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Brackets become +1 / -1 (as signed bytes); everything else is deleted.
_BRACKETS: Final = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")


def nesting_depth(frame: bytes) -> int:
    """The deepest nesting of arrays and objects in ``frame``, brackets in strings ignored.

    Unbalanced brackets (a malformed frame) count as they open, as a parser would meet them.
    """
    shape = _STRING.sub(b"", frame).translate(_BRACKETS, _NOT_BRACKETS)
    return max(accumulate(array("b", shape)), default=0)


def too_deep(frame: bytes, limit: int) -> bool:
    """Whether ``frame`` nests deeper than ``limit``; O(1) scans unless it has many brackets."""
    if frame.count(b"[") + frame.count(b"{") <= limit:
        return False
    return nesting_depth(frame) > limit


def is_utf8(frame: bytes) -> bool:
    """Whether ``frame`` is valid UTF-8 (ASCII, the common case, is checked without copying)."""
    if frame.isascii():
        return True
    try:
        frame.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def well_formed(frame: bytes) -> bool:
    """Whether ``frame`` is one well-formed JSON text (syntax only; call after ``too_deep``)."""
    try:
        msgspec.json.decode(frame, type=msgspec.Raw)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


def frame_problem(frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> RemoteProtocolError | None:
    """What makes ``frame`` unfit to decode (broken UTF-8: -32700; too deep: -32600), or None.

    A frame nested deeper than ``max_depth`` is refused unparsed, as an oversized one is.
    """
    if not is_utf8(frame):
        return RemoteProtocolError("Parse error: the frame is not valid UTF-8", PARSE_ERROR)
    if too_deep(frame, max_depth):
        message = f"Invalid request: nesting deeper than {max_depth} levels is refused"
        return RemoteProtocolError(message, INVALID_REQUEST)
    return None


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def shape_problem(env: Message) -> str | None:
    """What makes one decoded message invalid JSON-RPC 2.0, or None (the session's rules)."""
    if env.jsonrpc != "2.0":
        return '"jsonrpc" must be "2.0"'
    answer = env.result is not UNSET or env.error is not UNSET
    if isinstance(env.method, str):
        if answer:
            return "a request must not carry result or error"
        if env.id is not UNSET and not _usable_id(env.id):
            return "a request id must be a string or an integer"
        return None
    if env.result is not UNSET and env.error is not UNSET:
        return "a response must not carry both result and error"
    if env.result is not UNSET and not _usable_id(env.id):
        return "a response needs the id of its request"
    if not answer:
        return "a message needs a method, a result or an error"
    return None


def decode_untyped(frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Decode a frame to builtins, or raise ``RemoteProtocolError`` (-32700 / -32600).

    For the paths that read a whole message generically (the 2026-07-28 era): broken UTF-8,
    nesting past ``max_depth`` and text that is not JSON are the peer's errors, never ours.
    """
    problem = frame_problem(frame, max_depth)
    if problem is not None:
        raise problem
    try:
        return msgspec.json.decode(frame)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise RemoteProtocolError(f"Parse error: {exc}", PARSE_ERROR) from None
