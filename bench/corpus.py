"""A mixed corpus of MCP messages as a 2025-06-18 server and client receive them (bench input)."""

from __future__ import annotations

import json
from typing import Any

TEXT = "Looks things up in a catalogue and returns matching entries."
MARKDOWN_LINES = (
    "## Résumé — “quoted” text, a [link](https://example.org/a?b=[1]) and {braces}\n",
    'A path C:\\docs\\readme.md, a "plain quote", ‘single’ and «guillemets» ✓\n',
    "東京の天気は晴れ 🌤️ 気温は二十一度 😀 中文文本 한국어 텍스트 Ελληνικά\n",
    '- [ ] item {one} [two] `code: {"a": [1, 2]}` — naïve café façade\n\n',
)


def markdown(size: int) -> str:
    """Non-ASCII markdown of about ``size`` UTF-8 bytes: emoji, CJK, typographic quotes,
    brackets, quotes and backslashes in the text."""
    block = "".join(MARKDOWN_LINES)
    return block * (size // len(block.encode()) + 1)


def tools(n: int) -> list[dict[str, Any]]:
    """``n`` tool definitions with input schemas and annotations."""
    return [
        {
            "name": f"tool_{i}",
            "title": f"Tool {i}",
            "description": TEXT,
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
        }
        for i in range(n)
    ]


def _request(id_: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


CALL = {"name": "search", "arguments": {"query": "weather in Lyon", "limit": 5}}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}},
    "clientInfo": {"name": "bench-client", "version": "1.0.0"},
}

SERVER_RECEIVES: list[dict[str, Any]] = [
    _request(1, "initialize", INITIALIZE),
    _notification("notifications/initialized"),
    _request(2, "tools/list", {}),
    _request(3, "tools/call", CALL),
    _request(4, "tools/call", {**CALL, "_meta": {"progressToken": 4}}),
    _request(5, "tools/call", {"name": "echo", "arguments": {"text": "m5"}}),
    _request(6, "resources/read", {"uri": "file:///docs/readme.md"}),
    _request(7, "prompts/get", {"name": "summarise", "arguments": {"style": "short"}}),
    _request(8, "ping"),
    _notification("notifications/cancelled", {"requestId": 5, "reason": "user"}),
    _request(
        9,
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "summarise"},
            "argument": {"name": "style", "value": "sh"},
        },
    ),
]
"""What a server receives: requests (with and without a progress token) and notifications."""

CLIENT_RECEIVES: list[tuple[str, dict[str, Any]]] = [
    (
        "initialize",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": True}, "logging": {}, "prompts": {}},
                "serverInfo": {"name": "bench-server", "version": "1.0.0"},
            },
        },
    ),
    ("tools/list", {"jsonrpc": "2.0", "id": 2, "result": {"tools": tools(20)}}),
    (
        "tools/call",
        {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {
                "content": [{"type": "text", "text": "Sunny, 21 degrees"}],
                "isError": False,
            },
        },
    ),
    (
        "tools/call",
        {
            "jsonrpc": "2.0",
            "id": 5,
            "result": {
                "content": [{"type": "text", "text": "m5"}],
            },
        },
    ),
    (
        "resources/read",
        {
            "jsonrpc": "2.0",
            "id": 6,
            "result": {
                "contents": [
                    {
                        "uri": "file:///docs/readme.md",
                        "mimeType": "text/markdown",
                        "text": TEXT * 4,
                    },
                ]
            },
        },
    ),
    (
        "resources/read",
        {
            "jsonrpc": "2.0",
            "id": 10,
            "result": {
                "contents": [
                    {
                        "uri": "file:///docs/guide.md",
                        "mimeType": "text/markdown",
                        "text": markdown(64 * 1024),
                    },
                ]
            },
        },
    ),
    (
        "prompts/get",
        {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Summarise briefly."}},
                ]
            },
        },
    ),
    ("ping", {"jsonrpc": "2.0", "id": 8, "result": {}}),
    (
        "",
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": 4, "progress": 0.5, "total": 1.0},
        },
    ),
    (
        "",
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": {"step": 3}},
        },
    ),
    ("tools/call", {"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": "bad"}}),
]
"""What a client receives: (the method a response answers, or "" for a notification, message)."""


def frames(messages: list[Any]) -> list[bytes]:
    """Encode messages compactly, as peers send them (UTF-8, non-ASCII unescaped)."""
    return [json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode() for m in messages]
