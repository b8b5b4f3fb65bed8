"""A request's headers as the app reads them: lower-case names, Latin-1 text, the last of a
repeated name, and the kept decodings bounded whatever a client sends."""

from __future__ import annotations

from generated._runtime.transports.http import server
from generated._runtime.transports.http.server import header_map


def test_names_are_lower_case_and_the_last_repeat_wins() -> None:
    """Mixed-case names are keyed lower case; a repeated name keeps its last value."""
    raw = [(b"Mcp-Method", b"tools/call"), (b"X-Twice", b"one"), (b"x-twice", b"two")]
    assert header_map(raw) == {"mcp-method": "tools/call", "x-twice": "two"}


def test_values_are_latin_1_text_the_same_every_time() -> None:
    """Bytes past ASCII decode as Latin-1, and a kept value decodes the same again."""
    raw = [(b"x-name", b"caf\xe9"), (b"x-long", b"v" * 100)]
    for _ in range(2):
        assert header_map(raw) == {"x-name": "caf\u00e9", "x-long": "v" * 100}


def test_what_is_kept_stays_bounded_whatever_the_client_sends() -> None:
    """Thousands of distinct names and values: each is read right, the kept ones stay bounded."""
    for i in range(2000):
        raw = [(f"X-Name-{i}".encode(), f"value-{i}".encode()), (b"x-big", b"b" * 70 + b"%d" % i)]
        assert header_map(raw) == {f"x-name-{i}": f"value-{i}", "x-big": "b" * 70 + str(i)}
    assert len(server._NAMES) <= server.NAMES_KEPT
    assert len(server._VALUES) <= server.VALUES_KEPT
    assert all(len(value) <= server.VALUE_KEPT_BYTES for value in server._VALUES)


def test_credentials_and_session_ids_are_not_kept() -> None:
    """A token, a cookie, a DPoP proof or a session id is read, and not kept after the request."""
    secrets = [
        (b"Authorization", b"Bearer short-token-1"),
        (b"Cookie", b"sid=abc"),
        (b"DPoP", b"proof.jwt.short"),
        (b"Mcp-Session-Id", b"session-1"),
    ]
    server._VALUES.clear()  # room to keep them: only the rule keeps them out
    read = header_map([*secrets, (b"accept", b"application/json")])
    assert server._VALUES[b"application/json"] == "application/json"
    assert read["authorization"] == "Bearer short-token-1"
    assert read["mcp-session-id"] == "session-1"
    for _, value in secrets:
        assert value not in server._VALUES
