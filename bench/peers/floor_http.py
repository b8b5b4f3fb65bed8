"""The HTTP floor: a minimal ASGI endpoint answering every POST with a fixed JSON-RPC result."""

from __future__ import annotations

import sys
from typing import Any

import uvicorn

BODY = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"m"}]}}'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Read the body, answer the fixed result."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
