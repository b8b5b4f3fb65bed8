"""2026-07-28 Streamable HTTP header rules: Mcp-Method, Mcp-Name, Mcp-Param-*, Base64 sentinel."""

from __future__ import annotations

from typing import Any

import pytest

from generated._runtime.transports.http.headers import (
    HEADER_MISMATCH,
    HeaderError,
    InvalidToolHeaders,
    ParamHeader,
    check_request,
    decode_value,
    encode_value,
    param_headers,
    request_headers,
)

SQL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "query": {"type": "string"},
        "opts": {
            "type": "object",
            "properties": {"limit": {"type": "integer", "x-mcp-header": "Limit"}},
        },
        "dry": {"type": "boolean", "x-mcp-header": "Dry"},
    },
}


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        (42, "42"),
        (-7, "-7"),
        (True, "true"),
        (False, "false"),
    ],
)
def test_encoding_matches_the_spec_table(value: str | int | bool, encoded: str) -> None:
    assert encode_value(value) == encoded
    assert decode_value(encoded) == (str(value).lower() if isinstance(value, bool) else str(value))


@pytest.mark.parametrize("raw", ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?/w==?="])
def test_bad_base64_is_a_header_error(raw: str) -> None:
    with pytest.raises(HeaderError):
        decode_value(raw)


@pytest.mark.parametrize("raw", ["SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?="])
def test_values_without_the_full_sentinel_are_literal(raw: str) -> None:
    assert decode_value(raw) == raw


def test_outer_whitespace_is_dropped_and_controls_refused() -> None:
    assert decode_value("  get_weather \t") == "get_weather"
    with pytest.raises(HeaderError):
        decode_value("a\x01b")


def test_param_headers_follow_properties_chains() -> None:
    assert param_headers(SQL_SCHEMA) == (
        ParamHeader("Region", ("region",), "string"),
        ParamHeader("Limit", ("opts", "limit"), "integer"),
        ParamHeader("Dry", ("dry",), "boolean"),
    )


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"x": {"type": "number", "x-mcp-header": "X"}}},
        {"properties": {"x": {"type": "object", "x-mcp-header": "X"}}},
        {"properties": {"x": {"type": "string", "x-mcp-header": ""}}},
        {"properties": {"x": {"type": "string", "x-mcp-header": "Bad Name"}}},
        {"properties": {"x": {"type": "string", "x-mcp-header": "A\r\nB"}}},
        {
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Dup"},
                "b": {"type": "string", "x-mcp-header": "dup"},
            }
        },
        {"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}},
        {"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]},
        {"$defs": {"d": {"type": "string", "x-mcp-header": "D"}}},
        {"type": "string", "x-mcp-header": "Root"},
    ],
)
def test_invalid_annotations_make_the_tool_invalid(schema: dict[str, Any]) -> None:
    with pytest.raises(InvalidToolHeaders):
        param_headers(schema)


def test_client_headers_mirror_method_name_and_params() -> None:
    params = {
        "name": "execute_sql",
        "arguments": {"region": "us-west1", "query": "q", "opts": {"limit": 5}, "dry": False},
    }
    assert request_headers("2026-07-28", "tools/call", params, param_headers(SQL_SCHEMA)) == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "execute_sql",
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Limit": "5",
        "Mcp-Param-Dry": "false",
    }


def test_client_omits_headers_of_absent_or_null_values() -> None:
    params = {"name": "execute_sql", "arguments": {"region": None}}
    headers = request_headers("2026-07-28", "tools/call", params, param_headers(SQL_SCHEMA))
    assert not any(h.startswith("Mcp-Param-") for h in headers)


def test_resource_uri_and_non_ascii_prompt_name() -> None:
    assert (
        request_headers("2026-07-28", "resources/read", {"uri": "file:///a b"})["Mcp-Name"]
        == "file:///a b"
    )
    assert (
        request_headers("2026-07-28", "prompts/get", {"name": "grüß"})["Mcp-Name"]
        == "=?base64?Z3LDvMOf?="
    )
    assert "Mcp-Name" not in request_headers("2026-07-28", "tools/list", {})


def _lower(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def test_server_accepts_what_the_client_sends() -> None:
    params = {"name": "grüß", "arguments": {"region": "日本", "opts": {"limit": 3}, "dry": True}}
    tool = param_headers(SQL_SCHEMA)
    check_request(
        _lower(request_headers("2026-07-28", "tools/call", params, tool)),
        "tools/call",
        params,
        tool,
    )


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "Mcp-Method header is missing"),
        ({"mcp-method": "prompts/list"}, "does not match"),
        ({"mcp-method": "TOOLS/CALL"}, "does not match"),
        ({"mcp-method": "tools/call"}, "Mcp-Name header is missing"),
        (
            {"mcp-method": "tools/call", "mcp-name": "wrong_tool_name"},
            "'wrong_tool_name' does not match body value 'execute_sql'",
        ),
        ({"mcp-method": "tools/call", "mcp-name": "execute_sql"}, "Mcp-Param-Region is missing"),
        (
            {"mcp-method": "tools/call", "mcp-name": "execute_sql", "mcp-param-region": "eu"},
            "does not match",
        ),
        (
            {
                "mcp-method": "tools/call",
                "mcp-name": "execute_sql",
                "mcp-param-region": "=?base64?SGVsbG8?=",
            },
            "Base64",
        ),
    ],
)
def test_server_refuses_mismatches(headers: dict[str, str], message: str) -> None:
    params = {"name": "execute_sql", "arguments": {"region": "us-west1"}}
    with pytest.raises(HeaderError, match=message) as info:
        check_request(headers, "tools/call", params, param_headers(SQL_SCHEMA))
    assert (info.value.code, info.value.status) == (HEADER_MISMATCH, 400)


def test_server_compares_integers_numerically_and_tolerates_whitespace() -> None:
    params = {"name": "t", "arguments": {"opts": {"limit": 42}}}
    tool = param_headers(SQL_SCHEMA)
    check_request(
        {"mcp-method": "tools/call", "mcp-name": "  t ", "mcp-param-limit": "42.0"},
        "tools/call",
        params,
        tool,
    )
    with pytest.raises(HeaderError):
        check_request(
            {"mcp-method": "tools/call", "mcp-name": "t", "mcp-param-limit": "41"},
            "tools/call",
            params,
            tool,
        )
