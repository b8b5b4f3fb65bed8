"""A 2025-06-18 server over stdio written as raw JSON lines: the bytes it sends are its own.

The bridge's relay tests read what reaches each side byte for byte. Its ``initialize`` result
and tool results carry members no revision defines, spaced oddly (a re-encoding would show).
Tools: ``echo_frame`` answers with the exact line it received (``echo_frame_top`` too, its
answer carrying a top-level member no revision defines, ``TOP_EXTRA``); ``ask`` / ``elicit`` send
``sampling/createMessage`` / ``elicitation/create`` to the client and answer with the line
that came back; ``sleep`` never answers; ``log`` sends a debug and an info message;
``seen`` answers with every line received so far (a JSON list of strings).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Final

INITIALIZE = (
    b'{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},'
    b'"serverInfo":{"name":"raw","version":"1"},"x-server-extra": {"kept":  true}}'
)
EXTRA = b'"x-result-extra": {"b": 1,  "a": [1 ,2]}'
TOP_EXTRA = b'"x-answer-top": {"kept":  [1 ,2]}'
QUESTIONS: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "ask": (
        "sampling/createMessage",
        {"messages": [{"role": "user", "content": {"type": "text", "text": "?"}}], "maxTokens": 5},
    ),
    "elicit": (
        "elicitation/create",
        {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}},
    ),
}


def send(frame: bytes) -> None:
    """Write one line."""
    sys.stdout.buffer.write(frame + b"\n")
    sys.stdout.buffer.flush()


def answer(request_id: Any, result: bytes, extra: bytes = b"") -> None:
    """Answer a request with ``result`` (bytes as they are) and ``extra`` members."""
    head = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode()
    send(head + (b"," + extra if extra else b"") + b',"result":' + result + b"}")


def text_result(text: str) -> bytes:
    """A tool result with one text block and the extra member."""
    return b'{"content":[{"type":"text","text":' + json.dumps(text).encode() + b"}]," + EXTRA + b"}"


def main() -> None:
    """Serve until stdin ends."""
    seen: list[str] = []
    waiting: dict[str, Any] = {}  # our question's id -> the tool call it answers
    for raw in sys.stdin.buffer:
        line = raw.rstrip(b"\n")
        seen.append(line.decode("utf-8", "replace"))
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method is None:  # the client's answer to our question
            pending = waiting.pop(str(request_id), None)
            if pending is not None:
                answer(pending, text_result(line.decode()))
        elif method == "server/discover":
            error = b'{"code":-32601,"message":"Method not found"}'
            send(
                b'{"jsonrpc":"2.0","id":'
                + json.dumps(request_id).encode()
                + b',"error":'
                + error
                + b"}"
            )
        elif method == "initialize":
            answer(request_id, INITIALIZE)
        elif method in ("logging/setLevel", "ping"):
            answer(request_id, b"{}")
        elif method == "tools/call":
            call(message, line, request_id, seen, waiting)


def call(
    message: dict[str, Any], line: bytes, request_id: Any, seen: list[str], waiting: dict[str, Any]
) -> None:
    """Run one tool."""
    name = message["params"]["name"]
    if name == "echo_frame":
        answer(request_id, text_result(line.decode()))
    elif name == "echo_frame_top":
        answer(request_id, text_result(line.decode()), TOP_EXTRA)
    elif name in QUESTIONS:
        method, params = QUESTIONS[name]
        ours = f"q{len(waiting) + len(seen)}"
        waiting[ours] = request_id
        send(
            json.dumps({"jsonrpc": "2.0", "id": ours, "method": method, "params": params}).encode()
        )
    elif name == "log":
        for level in ("debug", "info"):
            note = {"level": level, "data": f"at {level}"}
            send(
                json.dumps(
                    {"jsonrpc": "2.0", "method": "notifications/message", "params": note}
                ).encode()
            )
        answer(request_id, text_result("logged"))
    elif name == "seen":
        answer(request_id, text_result(json.dumps(seen)))


if __name__ == "__main__":
    main()
