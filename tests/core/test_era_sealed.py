"""Sealed requestState (2026-07-28 MRTR): round trip, tampering, expiry, other keys, binding."""

from __future__ import annotations

import pytest

from generated._runtime.core.sealed import (
    STATE_KEY_ENV,
    STATE_KEYS_ENV,
    InvalidRequestState,
    StateSealer,
    binding,
)

KEY = "k" * 32


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_round_trip_returns_the_data() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal({"answers": {"user_name": {"action": "accept"}}}, bind="b")
    assert sealer.open(token, bind="b") == {"answers": {"user_name": {"action": "accept"}}}


def test_workers_with_the_same_key_accept_each_others_state() -> None:
    token = StateSealer(KEY).seal([1, 2, 3])
    assert StateSealer(KEY).open(token) == [1, 2, 3]


def test_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_KEY_ENV, KEY)
    assert StateSealer(KEY).open(StateSealer().seal("x")) == "x"


def test_random_default_keys_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STATE_KEY_ENV, raising=False)
    with pytest.raises(InvalidRequestState) as info:
        StateSealer().open(StateSealer().seal("x"))
    assert info.value.reason == "sealed under another key"


def test_other_key_is_refused() -> None:
    token = StateSealer("a" * 32).seal("x")
    with pytest.raises(InvalidRequestState, match="another key"):
        StateSealer("b" * 32).open(token)


def test_previous_key_still_accepted_after_rotation() -> None:
    token = StateSealer("old-key-" * 4).seal("x")
    assert StateSealer("new-key-" * 4, previous_keys=["old-key-" * 4]).open(token) == "x"


@pytest.mark.parametrize("mutate", ["suffix", "payload", "mac", "kid"])
def test_tampered_state_is_refused(mutate: str) -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal({"n": 1})
    version, kid, payload, mac = token.split(".")
    if mutate == "suffix":
        bad = token + "-TAMPERED"
    elif mutate == "payload":
        bad = ".".join([version, kid, payload[:-2] + ("AA" if payload[-2:] != "AA" else "BB"), mac])
    elif mutate == "mac":
        bad = ".".join([version, kid, payload, mac[::-1]])
    else:
        bad = ".".join([version, "AAAAAAAAAAA", payload, mac])
    with pytest.raises(InvalidRequestState):
        sealer.open(bad)


def test_tampered_reason_names_tampering() -> None:
    sealer = StateSealer(KEY)
    version, kid, _payload, mac = sealer.seal({"n": 1}).split(".")
    forged = StateSealer(KEY).seal({"n": 2}).split(".")[2]
    with pytest.raises(InvalidRequestState) as info:
        sealer.open(".".join([version, kid, forged, mac]))
    assert info.value.reason == "tampered"


def test_expired_state_is_refused() -> None:
    clock = Clock()
    sealer = StateSealer(KEY, ttl=60, clock=clock)
    token = sealer.seal("x")
    clock.now += 59
    assert sealer.open(token) == "x"
    clock.now += 1
    with pytest.raises(InvalidRequestState) as info:
        sealer.open(token)
    assert info.value.reason == "expired"


def test_state_bound_to_another_request_is_refused() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal("x", bind=binding("tools/call", "a", {"q": 1}))
    assert sealer.open(token, bind=binding("tools/call", "a", {"q": 1})) == "x"
    with pytest.raises(InvalidRequestState, match="another request"):
        sealer.open(token, bind=binding("tools/call", "b", {"q": 1}))


@pytest.mark.parametrize("token", ["", "v1", "v2.a.b.c", "v1.a.b", "x" * 300_000, "v1.é.b.c"])
def test_malformed_state_is_refused(token: str) -> None:
    with pytest.raises(InvalidRequestState):
        StateSealer(KEY).open(token)


def test_short_key_is_a_local_error() -> None:
    with pytest.raises(ValueError):
        StateSealer("short")


def test_the_key_ring_seals_with_its_first_key_and_opens_with_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``MCPGEN_STATE_KEYS``: a rotated ring (new key first) still opens state sealed under the
    old one, and what it seals now opens only where the new key is known."""
    old, new = "old-key-" * 4, "new-key-" * 4
    monkeypatch.delenv(STATE_KEY_ENV, raising=False)
    monkeypatch.setenv(STATE_KEYS_ENV, old)
    before = StateSealer().seal("x")
    monkeypatch.setenv(STATE_KEYS_ENV, f"{new}, {old}")
    rotated = StateSealer()
    assert rotated.open(before) == "x"
    assert not rotated.random_key
    assert StateSealer(new).open(rotated.seal("y")) == "y"
    with pytest.raises(InvalidRequestState, match="another key"):
        StateSealer(old).open(rotated.seal("z"))


def test_a_single_key_is_a_ring_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MCPGEN_STATE_KEY`` alone still names the key; with neither variable the key is random."""
    monkeypatch.delenv(STATE_KEYS_ENV, raising=False)
    monkeypatch.setenv(STATE_KEY_ENV, KEY)
    assert StateSealer(KEY).open(StateSealer().seal("x")) == "x"
    monkeypatch.delenv(STATE_KEY_ENV)
    assert StateSealer().random_key
