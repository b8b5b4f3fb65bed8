# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""What the HTTP server checks in a POSTed body before a session sees it.

Over HTTP a body the server cannot accept must be refused with a 4xx and a JSON-RPC error
body on the POST itself: once the body is accepted (202 for notifications and responses),
the session's error answers would have no stream but the GET one, which must never carry a
response that is not resumed. So the rules the session core applies to one message are
applied here to the whole body first (same codes: -32700 malformed, -32600 wrong shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from ...core.errors import INVALID_REQUEST, PARSE_ERROR
from ...core.events import RequestId
from ...core.frame_guard import DEFAULT_MAX_DEPTH, frame_problem, shape_problem, well_formed
from ...core.wire import ENVELOPE_DECODER, FRAME_DECODER, Envelope, as_id, id_of


class BadBody(Exception):
    """A POSTed body refused before any session saw it: HTTP 400 with this JSON-RPC error."""

    def __init__(self, message: str, code: int = INVALID_REQUEST, id_: RequestId | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.id = id_


@dataclass(frozen=True, slots=True)
class Body:
    """A POSTed body that passed: its messages, undecoded beyond the envelope."""

    messages: list[Envelope]
    batch: bool

    @property
    def request_ids(self) -> list[RequestId]:
        """The ids of the requests in the body (the answers the POST's stream waits for)."""
        ids = (as_id(m.id) for m in self.messages if isinstance(m.method, str))
        return [rid for rid in ids if rid is not None]

    @property
    def methods(self) -> set[str]:
        """The methods of the requests and notifications in the body."""
        return {m.method for m in self.messages if isinstance(m.method, str)}


def _decode(body: bytes, max_depth: int) -> Any:
    """Decode the envelope(s) of a body, or raise ``BadBody`` with the code a session would use."""
    problem = frame_problem(body, max_depth)
    if problem is not None:
        raise BadBody(problem.message, problem.code)
    try:
        return FRAME_DECODER.decode(body)
    except msgspec.ValidationError as exc:
        if not well_formed(body):
            raise BadBody("Parse error: not well-formed JSON", PARSE_ERROR) from None
        raise BadBody(f"Invalid Request: {exc}", INVALID_REQUEST, id_of(body)) from None
    except (msgspec.DecodeError, RecursionError) as exc:
        raise BadBody(f"Parse error: {exc}", PARSE_ERROR) from None


def read_body(body: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Body:
    """Check a POSTed body; raise ``BadBody`` unless every message in it is valid JSON-RPC."""
    value = _decode(body, max_depth)
    if isinstance(value, Envelope):
        messages = [value]
    elif not value:
        raise BadBody("Invalid Request: empty batch")
    else:
        messages = []
        for raw in value:
            try:
                messages.append(ENVELOPE_DECODER.decode(raw))
            except msgspec.ValidationError as exc:
                raise BadBody(f"Invalid Request: {exc}", INVALID_REQUEST, id_of(raw)) from None
    for env in messages:
        problem = shape_problem(env)
        if problem is not None:
            raise BadBody(f"Invalid Request: {problem}", INVALID_REQUEST, as_id(env.id))
    return Body(messages, not isinstance(value, Envelope))
