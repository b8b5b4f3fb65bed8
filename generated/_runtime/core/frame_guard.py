# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Checks on an incoming frame: UTF-8, nesting depth, well-formedness, JSON-RPC shape.

msgspec decodes fast but leaves three holes the session must close before trusting it: it
does not check the UTF-8 of the parts it keeps raw (``params``, ``result``) or skips (unknown
fields), it recurses once per nesting level (a deep enough frame raises ``RecursionError``),
and a typed decode stops at the first value of the wrong type, so a malformed text may be
reported as a wrong shape.

Two ways to close them. Before decoding (``frame_problem``: the general path, the HTTP
arrival check) the bytes are scanned: UTF-8 by ``bytes.decode``, depth by a few passes in C.
After a decode that succeeded (``decoded_problem``: the one-pass path of every frame) msgspec
has already done most of the work: every string it turned into ``str`` was UTF-8-checked on
the way (it raises ``UnicodeDecodeError``), so only the parts it kept raw are checked, and a
well-formed frame of ``n`` bytes nests at most ``n // 2`` levels, so only a longer one has its
depth counted, on the decoded value when that is cheaper than on the bytes.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Any, Final

import msgspec
from msgspec import UNSET

from .depth import builtins_too_deep
from .depth import too_deep as value_too_deep
from .errors import INVALID_REQUEST, PARSE_ERROR, RemoteProtocolError
from .message import Message

DEFAULT_MAX_DEPTH: Final = 128
"""Deepest nesting of arrays and objects accepted in a frame (the frame itself is level 1)."""

_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
"""A string as a character scan meets it: escapes skipped, unterminated ones run to the end."""
# Brackets become +1 / -1 (as signed bytes); everything else is deleted.
_BRACKETS: Final = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
_PARENS: Final = bytes.maketrans(b"[{]}", b"(())")
_NOT_OPENING: Final = bytes(b for b in range(256) if b not in b"[{")
_BACKSLASH: Final = ord("\\")
_NOT_QUOTES_OR_BRACKETS: Final = bytes(b for b in range(256) if b not in b'"[]{}')


def nesting_depth(frame: bytes) -> int:
    """The deepest nesting of arrays and objects in ``frame``, brackets in strings ignored.

    Unbalanced brackets (a malformed frame) count as they open, as a parser would meet them;
    a backslash outside a string (never in JSON) is a plain character, as in a parser.
    """
    shape = _STRING.sub(b"", frame).translate(_BRACKETS, _NOT_BRACKETS)
    return max(accumulate(array("b", shape), initial=0))


def quick_depth(frame: bytes, limit: int) -> int:
    """``nesting_depth`` (up to ``limit + 1``) in a few passes in C, exact wherever
    backslashes are in strings; 0 as soon as the frame is seen to nest ``limit`` levels or
    fewer (at once if it opens no more brackets than that).

    Escape pairs go first (escaped backslashes, then escaped quotes); what is left but
    quotes and brackets is dropped. Adjacent quotes only ever close and open strings (or
    open and close an empty one): when they pair every quote, no string holds a bracket and
    the brackets are the shape; else they are dropped and the quotes still left enclose
    brackets.
    """
    short = len(frame) <= _SHORT  # a long one is counted once reduced to its quotes and brackets
    if short and frame.count(b"{") + frame.count(b"[") <= limit:  # counts: no copy
        return 0
    if _BACKSLASH in frame:  # an int: a byte search (a bytes needle is ~5x slower here)
        frame = frame.replace(b"\\\\", b"").replace(b'\\"', b"")
    quoted = frame.translate(None, _NOT_QUOTES_OR_BRACKETS)
    shape = quoted.translate(None, b'"')
    opening = len(shape.translate(None, _NOT_OPENING))  # strings' brackets too: at most
    if opening <= limit:
        return 0
    # Every quote adjacent to its partner (counted, not copied: a long list has hundreds of
    # strings): no string holds a bracket, so the brackets alone are the shape.
    if len(quoted) - len(shape) != 2 * quoted.count(b'""'):
        shape = quoted.replace(b'""', b"")
        shape = b"".join(shape.split(b'"')[::2])
    # Each pass drops the innermost pairs, one level less (balanced brackets, any JSON text,
    # lose them all in as many passes as levels): ``depth`` passes plus the brackets still
    # open bound the nesting. Deeper or unbalanced ones are counted as ``nesting_depth`` does.
    paired = shape.translate(_PARENS)
    depth = 0
    while paired and depth < _PASSES:
        inner = paired.replace(b"()", b"")
        if len(inner) == len(paired):
            break
        opening -= (len(paired) - len(inner)) >> 1
        paired = inner
        depth += 1
        if depth + opening <= limit:
            return 0
    if not paired:
        return depth
    return max(accumulate(array("b", shape.translate(_BRACKETS)), initial=0))


_SHORT: Final = 1024
"""Frames up to this many bytes have their opening brackets counted before anything else."""
_PASSES: Final = 16
"""Levels ``quick_depth`` peels pass by pass (each pass copies the shape) before counting."""


def too_deep(frame: bytes, limit: int) -> bool:
    """Whether ``frame`` nests deeper than ``limit``; a few passes in C unless it does.

    A frame the quick count finds too deep is confirmed by the exact scan (they differ only
    where a backslash stands outside a string: see ``parse_error``).
    """
    if len(frame) <= limit:
        return False  # fewer bytes than levels
    return quick_depth(frame, limit) > limit and nesting_depth(frame) > limit


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
        return _nesting_error(max_depth)
    return None


def decoded_problem(message: Message, frame: bytes, max_depth: int) -> bool:
    """Whether ``message``, which msgspec decoded from ``frame`` skipping nothing but the
    unknown members of a decoded ``error``, fails the guard: too deep, or broken UTF-8 in a
    part kept raw (or anywhere in a frame with a decoded error). True sends the frame to
    ``frame_problem`` for its exact error.
    """
    if len(frame) > 2 * max_depth + 1 and decoded_too_deep(message, frame, max_depth):
        return True
    # Only the parts kept raw are left to check (each ASCII one at once): no generator, and
    # no scan of the whole frame.
    raw = msgspec.Raw
    part = message.params
    if type(part) is raw and not is_utf8(bytes(part)):
        return True
    part = message.result
    if type(part) is raw and not is_utf8(bytes(part)):
        return True
    part = message.error
    if part is UNSET:
        return False
    if type(part) is raw:
        return not is_utf8(bytes(part))
    # An error decoded in the one pass: msgspec skipped its unknown members unchecked (UTF-8,
    # and depth, which a walk of the decoded value would not see), so the bytes are checked.
    return frame_problem(frame, max_depth) is not None


COUNTED_UP_TO: Final = 4096
"""Frames of at most this many bytes have their opening brackets counted (in C, about five
instructions a byte) before their decoded value is walked: a walk costs about as much as the
count of 4 KB, and few frames this short have more opening brackets than levels allowed."""


def decoded_too_deep(value: Any, frame: bytes, max_depth: int) -> bool:
    """Whether ``value``, decoded from the well-formed ``frame``, nests deeper than
    ``max_depth``: at once if ``frame`` is short and opens too few brackets, else counted on
    the value by its types (``depth.too_deep``; raw parts on their bytes).
    """
    if len(frame) <= COUNTED_UP_TO and frame.count(b"{") + frame.count(b"[") <= max_depth:
        return False  # two counts: no copy
    return value_too_deep(value, 1, max_depth, too_deep)


def _nesting_error(max_depth: int) -> RemoteProtocolError:
    """The error for a frame nesting deeper than ``max_depth`` (-32600)."""
    message = f"Invalid request: nesting deeper than {max_depth} levels is refused"
    return RemoteProtocolError(message, INVALID_REQUEST)


def parse_error(
    frame: bytes, detail: str, max_depth: int = DEFAULT_MAX_DEPTH
) -> RemoteProtocolError:
    """The error for a frame that is not JSON: -32700, or -32600 if it nests too deep.

    ``too_deep`` trusts its quick scan below the limit, which may undercount only where a
    backslash stands outside a string (no JSON text has one): such a frame is counted here.
    """
    if b"\\" in frame and nesting_depth(frame) > max_depth:
        return _nesting_error(max_depth)
    return RemoteProtocolError(f"Parse error: {detail}", PARSE_ERROR)


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def shape_problem(env: Message) -> str | None:
    """What makes one decoded message invalid JSON-RPC 2.0, or None (the session's rules)."""
    answer = (env.result is not UNSET, env.error is not UNSET)
    return _shape_problem(env.jsonrpc, env.id, env.method, *answer)


def object_problem(message: dict[str, Any]) -> str | None:
    """``shape_problem`` for a message decoded to builtins (how the stateless era reads it)."""
    found = message.get
    answer = ("result" in message, "error" in message)
    return _shape_problem(found("jsonrpc"), found("id", UNSET), found("method", UNSET), *answer)


def _shape_problem(
    jsonrpc: Any, id_: Any, method: Any, has_result: bool, has_error: bool
) -> str | None:
    """The JSON-RPC 2.0 rules on one message's members, in every era and on every transport.

    An id may be absent (a notification), null (an error answering no request) or a string
    or integer; anything else (an array, an object, a float, a boolean) is refused, so the
    error is addressed to id null.
    """
    if jsonrpc != "2.0":
        return '"jsonrpc" must be "2.0"'
    if id_ is not UNSET and id_ is not None and not _usable_id(id_):
        return "an id must be a string or an integer"
    if method is not UNSET and not isinstance(method, str):
        return '"method" must be a string'
    answer = has_result or has_error
    if isinstance(method, str):
        if answer:
            return "a request must not carry result or error"
        if id_ is None:
            return "a request id must be a string or an integer"
        return None
    if has_result and has_error:
        return "a response must not carry both result and error"
    if has_result and not _usable_id(id_):
        return "a response needs the id of its request"
    if not answer:
        return "a message needs a method, a result or an error"
    return None


def decode_untyped(
    frame: bytes, max_depth: int = DEFAULT_MAX_DEPTH, *, checked: bool = False
) -> Any:
    """Decode a frame to builtins, or raise ``RemoteProtocolError`` (-32700 / -32600).

    For the paths that read a whole message generically (the 2026-07-28 era): broken UTF-8,
    nesting past ``max_depth`` and text that is not JSON are the peer's errors, never ours.
    The decode comes first: it checks the UTF-8 of every string it reads, so only the depth
    of what it returns is left to check. ``checked``: ``frame_problem`` already passed the
    frame (not checked again).
    """
    try:
        value = msgspec.json.decode(frame)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        problem = None if checked else frame_problem(frame, max_depth)
        raise problem or parse_error(frame, str(exc), max_depth) from None
    if checked or len(frame) <= 2 * max_depth + 1:
        return value
    if len(frame) <= COUNTED_UP_TO and frame.count(b"{") + frame.count(b"[") <= max_depth:
        return value
    if builtins_too_deep((value,), 1, max_depth):  # builtins only: a level per C call
        raise _nesting_error(max_depth)
    return value
