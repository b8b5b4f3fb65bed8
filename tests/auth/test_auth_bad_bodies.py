"""Odd POST bodies through the resource server: answered as the unprotected app answers them.

With a valid token and per-method scopes configured, ``ProtectedMcpApp`` reads each POST's
methods before the app does. Whatever the body (broken UTF-8 anywhere, nesting thousands deep,
JSON that is no message, a batch, no method), the client gets the status and the JSON-RPC error
the bare ``McpHttpApp`` gives, and no handler runs.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from generated._runtime.auth import (
    JWTVerifier,
    ProtectedMcpApp,
    ProtectedResource,
    scopes_by_method,
)
from generated._runtime.auth import server as protected_server
from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated.v2025_11_25 import ServerContext
from generated.v2025_11_25 import types as t
from tests.auth.test_auth_e2e import Notes
from tests.auth.test_auth_security import HEADERS, INIT
from tests.support.auth_support import Provider
from tests.support.http_support import bounded

RESOURCE = "http://127.0.0.1/mcp"
DEEP = b"[" * 3000 + b"]" * 3000


def call_bytes(params: bytes, method: bytes = b"tools/call") -> bytes:
    """A request body with ``method`` and raw ``params`` bytes."""
    return b'{"jsonrpc":"2.0","id":7,"method":"' + method + b'","params":' + params + b"}"


WRITE = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "write"}}
ODD_BODIES: dict[str, bytes] = {
    "utf8-method": call_bytes(b'{"name":"write"}', b"tools/ca\xffll"),
    "utf8-params": call_bytes(b'{"name":"wr\xc3\x28ite"}'),
    "utf8-key": call_bytes(b'{"na\xffme":"write"}'),
    "deep-params": call_bytes(b'{"name":"write","arguments":{"x":' + DEEP + b"}}"),
    "deep-body": DEEP,
    "number": b"3",
    "string": b'"tools/call"',
    "null": b"null",
    "batch": json.dumps([WRITE]).encode(),
    "empty-batch": b"[]",
    "batch-with-a-number": json.dumps([1, WRITE]).encode(),
    "no-method": json.dumps({"jsonrpc": "2.0", "id": 7, "params": {"name": "write"}}).encode(),
    "method-not-a-string": json.dumps({**WRITE, "method": 5}).encode(),
    "not-json": b'{"jsonrpc":"2.0","id":7,"method":"tools/call"',
}


class Watched(Notes):
    """The e2e server, noting every tool call that reaches it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        """Note the call, then run it."""
        self.calls.append(params.name)
        return await super().call_tool(params, ctx)


def protect(app: Any, scopes: list[str]) -> tuple[ProtectedMcpApp, str]:
    """``app`` behind the resource server (``tools/call`` of ``write`` needs ``mcp:write``),
    and the authorization header of a valid token with ``scopes``."""
    provider = Provider("https://as.example.com")
    resource = ProtectedResource(
        resource=RESOURCE,
        authorization_servers=(provider.issuer,),
        scopes_for=scopes_by_method({"tools/call:write": ["mcp:write"]}),
    )
    key = provider.key.public_key()
    verifier = JWTVerifier(issuer=provider.issuer, audience=RESOURCE, key=key)
    token = provider.access_token("c", scopes, RESOURCE)
    return ProtectedMcpApp(app, resource, verifier), f"Bearer {token}"


@asynccontextmanager
async def endpoint(
    protected: bool, max_depth: int = 128
) -> AsyncIterator[tuple[httpx.AsyncClient, Watched]]:
    """A client on an initialized session of the app (behind the resource server or bare)."""
    server = Watched()
    app: Any = McpHttpApp(server, HttpOptions(json_response=True, max_depth=max_depth))
    headers = dict(HEADERS)
    if protected:
        app, headers["authorization"] = protect(app, ["mcp:read", "mcp:write"])
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers=headers
    ) as http:
        opened = await http.post("/mcp", json=INIT)
        assert opened.status_code == 200, opened.text
        http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post("/mcp", json=ready)).status_code == 202
        yield http, server


async def answer(protected: bool, body: bytes, max_depth: int = 128) -> tuple[int, Any, list[str]]:
    """The status and body the app answers to ``body`` on a session; the tools it ran."""
    async with endpoint(protected, max_depth) as (http, server):
        response = await http.post("/mcp", content=body)
        json_body = response.headers.get("content-type") == "application/json"
        return response.status_code, response.json() if json_body else response.text, server.calls


@pytest.mark.parametrize("body", ODD_BODIES.values(), ids=ODD_BODIES.keys())
@bounded
async def test_odd_body_gets_the_answer_of_the_unprotected_app(body: bytes) -> None:
    """Item 3: broken UTF-8 or deep nesting made the method probe raise (500 from uvicorn)."""
    bare = await answer(False, body)
    assert bare[0] == 400 and "error" in bare[1] and bare[2] == [], bare
    assert await answer(True, body) == bare


@bounded
async def test_a_good_call_still_reaches_the_handler_through_both() -> None:
    """The comparison above is between two apps that do run tools."""
    for protected in (False, True):
        status, body, calls = await answer(protected, json.dumps(WRITE).encode())
        assert status == 200 and body["result"]["content"][0]["text"] == "written"
        assert calls == ["write"]


@pytest.mark.parametrize(("max_depth", "status"), [(300, 200), (100, 400)])
@bounded
async def test_the_nesting_limit_is_the_wrapped_apps(max_depth: int, status: int) -> None:
    """The resource server reads bodies as deep as the app it wraps accepts, and no deeper."""
    body = call_bytes(b'{"name":"write","arguments":{"x":' + b"[" * 200 + b"]" * 200 + b"}}")
    bare = await answer(False, body, max_depth)
    assert bare[0] == status and len(bare[2]) == (status == 200), bare
    assert await answer(True, body, max_depth) == bare


@bounded
async def test_a_batch_item_that_is_no_object_does_not_hide_the_others() -> None:
    """``[1, <tools/call write>]`` made the whole method probe fail: it passed with base scopes.

    ``McpHttpApp`` refuses such a batch whole, but an app that takes its good items would have
    run the call with a token lacking ``mcp:write``.
    """
    reached: list[bytes] = []

    async def lenient(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    app, authorization = protect(lenient, ["mcp:read"])
    headers = {**HEADERS, "authorization": authorization}
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        mixed = await http.post("/mcp", json=[1, WRITE], headers=headers)
        other = [1, {**WRITE, "params": {"name": "whoami"}}]
        allowed = await http.post("/mcp", json=other, headers=headers)
    assert mixed.status_code == 403 and "mcp:write" in mixed.headers["www-authenticate"]
    assert allowed.status_code == 200 and [json.loads(b) for b in reached] == [other]


def lenient_app(reached: list[bytes]) -> Any:
    """An ASGI app that notes each body it gets and answers ``{}``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    return app


@bounded
async def test_a_well_formed_post_is_decoded_by_the_app_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probe reads a call's method and tool name without decoding the body: the app gets
    the same bytes, scopes still follow the tool, and only an odd body is decoded here."""
    decoded: list[bytes] = []
    real = protected_server.decode_untyped

    def spied(frame: bytes, *args: Any, **kwargs: Any) -> Any:
        decoded.append(frame)
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(protected_server, "decode_untyped", spied)
    reached: list[bytes] = []
    big = {**WRITE, "params": {"name": "write", "arguments": {"text": "x" * 200_000}}}
    body = json.dumps(big).encode()
    for scopes, status in ((["mcp:read", "mcp:write"], 200), (["mcp:read"], 403)):
        app, authorization = protect(lenient_app(reached), scopes)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        headers = {**HEADERS, "authorization": authorization}
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            answered = await http.post("/mcp", content=body, headers=headers)
        assert answered.status_code == status, answered.text
    assert reached == [body] and decoded == []
    status, _, calls = await answer(True, ODD_BODIES["utf8-key"])
    assert status == 400 and calls == [] and decoded == [ODD_BODIES["utf8-key"]]


@bounded
async def test_scopes_for_gets_params_that_read_as_decoded_json() -> None:
    """``scopes_for`` sees each method and params that read like the decoded JSON object
    (a mapping), scalars and arrays decoded, and no params as None."""
    seen: list[tuple[str, Any]] = []

    def scopes_for(method: str, params: Any) -> list[str]:
        seen.append((method, dict(params) if isinstance(params, Mapping) else params))
        return []

    provider = Provider("https://as.example.com")
    resource = ProtectedResource(
        resource=RESOURCE, authorization_servers=(provider.issuer,), scopes_for=scopes_for
    )
    verifier = JWTVerifier(issuer=provider.issuer, audience=RESOURCE, key=provider.key.public_key())
    token = provider.access_token("c", ["mcp:read"], RESOURCE)
    reached: list[bytes] = []
    app = ProtectedMcpApp(lenient_app(reached), resource, verifier)
    batch = [
        {**WRITE, "params": {"name": "write", "arguments": {"a": [1, {"b": None}]}}},
        {"jsonrpc": "2.0", "id": 8, "method": "ping"},
        {"jsonrpc": "2.0", "id": 9, "method": "odd", "params": [1, "two"]},
        {"jsonrpc": "2.0", "method": "notifications/initialized", "params": None},
    ]
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        answered = await http.post("/mcp", json=batch, headers=headers)
    assert answered.status_code == 200 and len(reached) == 1
    assert seen == [
        ("tools/call", {"name": "write", "arguments": {"a": [1, {"b": None}]}}),
        ("ping", None),
        ("odd", [1, "two"]),
        ("notifications/initialized", None),
    ]
