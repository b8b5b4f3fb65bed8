"""The floor: answer each newline-delimited JSON-RPC request with a fixed-shape result."""

from __future__ import annotations

import asyncio
import json
import sys


async def main() -> None:
    """Read lines from stdin, write one response line per request to stdout."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    while line := await reader.readline():
        message = json.loads(line)
        if "id" not in message:
            continue
        text = message.get("params", {}).get("arguments", {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}]}
        writer.write(
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n"
        )
        await writer.drain()


if __name__ == "__main__":
    asyncio.run(main())
