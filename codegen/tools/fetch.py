"""Get a server's tools: from a saved ``tools/list`` result, or by asking the server itself
(a command spoken to over stdio, or a Streamable HTTP URL).

This is the one place where the generator talks MCP: a minimal client that initializes, lists
every page of tools and leaves. It needs nothing but the standard library.
"""

from __future__ import annotations

import contextlib
import json
import queue
import shlex
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, cast

from .. import __version__
from ..errors import GenerationError

PROTOCOL_VERSION: Final = "2025-11-25"
"""The revision the client proposes; any initialize-era server answers with one it speaks."""
TIMEOUT_S: Final = 30.0
"""Bound on each answer the server owes."""
MAX_PAGES: Final = 1000
"""Bound on ``tools/list`` pages, against a server whose cursor never ends."""

Json = dict[str, Any]


def json_object(value: object) -> Json | None:
    """``value`` if it is a decoded JSON object, else None."""
    return cast(Json, value) if isinstance(value, dict) else None


def tools_of(document: object, origin: str) -> list[Json]:
    """The tools of a saved ``tools/list`` result: the result, a JSON-RPC response, or a list."""
    top = json_object(document)
    if top is not None:
        top = json_object(top.get("result")) or top
        document = top.get("tools")
    items = cast(list[object], document) if isinstance(document, list) else None
    tools = [json_object(item) for item in items or []]
    valid = [tool for tool in tools if tool is not None and isinstance(tool.get("name"), str)]
    if items is None or len(valid) != len(tools):
        raise GenerationError(
            f"{origin} holds no tools/list result (an object with a 'tools' list of named tools)"
        )
    return valid


def load_file(path: Path) -> list[Json]:
    """Read a saved ``tools/list`` result."""
    try:
        document = json.loads(path.read_bytes())
    except OSError as exc:
        raise GenerationError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenerationError(f"{path} is not valid JSON: {exc}") from None
    return tools_of(document, str(path))


def fetch(server: str, headers: Mapping[str, str] | None = None) -> list[Json]:
    """Ask a server for all its tools: ``server`` is a URL (sent ``headers``, such as an
    Authorization) or a command line."""
    if server.startswith(("http://", "https://")):
        http = _HttpExchange(server, headers or {})
        try:
            return _list_tools(http, server)
        finally:
            http.close()
    stdio = _StdioExchange(server)
    try:
        return _list_tools(stdio, stdio.where)
    finally:
        stdio.close()


def _request(method: str, request_id: int, params: Json) -> Json:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _initialize() -> Json:
    client = {"name": "mcpgen", "version": __version__}
    return _request(
        "initialize",
        1,
        {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client},
    )


def _answer(message: Json, request_id: int, where: str) -> Json:
    """The result of our request ``request_id``; a JSON-RPC error is one clear line."""
    if "error" in message:
        error = json_object(message["error"]) or {}
        raise GenerationError(
            f"{where} answered request {request_id} with error {error.get('code')}: "
            f"{error.get('message')}"
        )
    result = json_object(message.get("result"))
    if result is None:
        raise GenerationError(f"{where} answered request {request_id} without a result object")
    return result


def _list_tools(exchange: Callable[[Json], Json], where: str) -> list[Json]:
    """Initialize, then page through ``tools/list`` with ``exchange`` (request -> result)."""
    exchange(_initialize())
    exchange({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools: list[Json] = []
    cursor: Any = None
    for page in range(MAX_PAGES):
        params: Json = {} if cursor is None else {"cursor": cursor}
        result = exchange(_request("tools/list", page + 2, params))
        tools.extend(tools_of(result, f"the tools/list result of {where}"))
        cursor = result.get("nextCursor")
        if cursor is None:
            return tools
    raise GenerationError(f"{where} sent more than {MAX_PAGES} pages of tools")


class _HttpExchange:
    """Requests over Streamable HTTP: JSON or SSE answers, the session id carried along."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self.url = url
        self.headers = {
            **headers,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }

    def __call__(self, message: Json) -> Json:
        """POST ``message``; return the result of a request (empty for a notification)."""
        body = json.dumps(message).encode()
        request = urllib.request.Request(self.url, body, self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                if session := response.headers.get("Mcp-Session-Id"):
                    self.headers["Mcp-Session-Id"] = session
                if "id" not in message:
                    return {}
                kind = response.headers.get_content_type()
                answer = (
                    _from_sse(response, message["id"], self.url)
                    if kind == "text/event-stream"
                    else json.loads(response.read())
                )
        except urllib.error.HTTPError as exc:
            raise GenerationError(f"{self.url} answered HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise GenerationError(f"cannot reach {self.url}: {exc}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise GenerationError(f"{self.url} sent a body that is not JSON: {exc}") from None
        result = _answer(answer, message["id"], self.url)
        if message["method"] == "initialize":
            version = result.get("protocolVersion")
            if isinstance(version, str):
                self.headers["MCP-Protocol-Version"] = version
        return result

    def close(self) -> None:
        """End the session, if the server gave one (best effort: it may not support DELETE)."""
        if "Mcp-Session-Id" not in self.headers:
            return
        request = urllib.request.Request(self.url, None, self.headers, method="DELETE")
        with contextlib.suppress(urllib.error.URLError, OSError):
            urllib.request.urlopen(request, timeout=TIMEOUT_S).close()


def _from_sse(response: Any, request_id: int, url: str) -> Json:
    """Read SSE events until the response to ``request_id`` arrives."""
    data: list[str] = []
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            text, data = "\n".join(data), []
            if not text:  # a priming event (an id, empty data: 2025-11-25 on) carries nothing
                continue
            message = json_object(json.loads(text))
            if message is not None and message.get("id") == request_id:
                return message
    raise GenerationError(f"{url} ended its event stream without answering request {request_id}")


class _StdioExchange:
    """Requests over stdio to a server process: newline-delimited JSON, read by a thread."""

    def __init__(self, command: str) -> None:
        argv = shlex.split(command)
        if not argv:
            raise GenerationError("--server needs a command line or a URL")
        self.where = repr(command)
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError as exc:
            raise GenerationError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def _send(self, message: Json) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise GenerationError(f"{self.where} exited before answering") from None

    def __call__(self, message: Json) -> Json:
        """Send ``message``; return the result of a request (empty for a notification)."""
        self._send(message)
        if "id" not in message:
            return {}
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT_S)
            except queue.Empty:
                raise GenerationError(
                    f"{self.where} did not answer within {TIMEOUT_S:g} s"
                ) from None
            if not line:
                raise GenerationError(f"{self.where} exited before answering {message['method']}")
            try:
                incoming = json_object(json.loads(line))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise GenerationError(
                    f"{self.where} wrote a line that is not JSON: {exc}"
                ) from None
            if incoming is None:
                continue
            if "method" in incoming and "id" in incoming:  # the server asks us something
                self._send(_refusal(incoming))
            elif incoming.get("id") == message["id"]:
                return _answer(incoming, message["id"], self.where)

    def close(self) -> None:
        """End the server process."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _refusal(request: Json) -> Json:
    """Our answer to a request of the server: ``ping`` succeeds, anything else is refused."""
    if request.get("method") == "ping":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {}}
    error = {"code": -32601, "message": "mcpgen only lists tools"}
    return {"jsonrpc": "2.0", "id": request["id"], "error": error}
