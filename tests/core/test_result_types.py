"""2026-07-28 results are told apart by ``resultType``, and JSON values are typed recursively.

``ServerResult`` decodes a result whose method is not known (a gateway, a log): the spec says
``resultType`` decides how to parse it (``input_required`` or ``complete``), and a plain result
that carries ``_meta`` is the generic ``Result``, not the subscription-closing result; a result
without ``resultType`` is none of them. ``JSONValue`` has no ``null`` at any depth.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import convert
from generated._runtime.core.events import InvalidResponse, Response
from generated._runtime.core.session import Session
from generated.v2026_07_28 import methods
from generated.v2026_07_28 import types as t
from tests.conftest import ROOT
from tests.support.schema_support import validation_schema, validator_class

ANY_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)
"""Any JSON value, ``null`` included at any depth."""


def server_result(value: dict[str, Any]) -> Any:
    """Decode ``value`` as the revision's ``ServerResult``."""
    return convert(value, t.ServerResult)  # type: ignore[arg-type]


def test_plain_result_with_meta_is_the_generic_result() -> None:
    """A complete result that carries only ``_meta`` is a plain Result (a dict), nothing else."""
    value = {"resultType": "complete", "_meta": {"example.com/trace": "abc"}}
    result = server_result(value)
    assert not isinstance(result, t.SubscriptionsListenResult)
    assert result == value


def test_complete_result_is_never_input_required() -> None:
    """``{"resultType": "complete"}`` is a complete (empty) result, not an InputRequiredResult."""
    result = server_result({"resultType": "complete"})
    assert not isinstance(result, t.InputRequiredResult)
    assert result == {"resultType": "complete"}


def test_input_required_is_told_by_result_type() -> None:
    """``resultType: input_required`` is the interim result, whatever else it carries."""
    result = server_result({"resultType": "input_required", "requestState": "s1"})
    assert isinstance(result, t.InputRequiredResult) and result.request_state == "s1"


def test_subscription_end_needs_its_subscription_id() -> None:
    """The listen result is chosen only when its ``_meta`` names the subscription."""
    meta = {"io.modelcontextprotocol/subscriptionId": 7}
    result = server_result({"resultType": "complete", "_meta": meta})
    assert isinstance(result, t.SubscriptionsListenResult) and result.meta == meta


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"resultType": "complete", "content": []}, t.CallToolResult),
        ({"resultType": "complete", "completion": {"values": []}}, t.CompleteResult),
        ({"resultType": "complete", "messages": []}, t.GetPromptResult),
    ],
)
def test_specific_results_keep_their_type(value: dict[str, Any], expected: type) -> None:
    """Results with their own required members still decode as their own type."""
    assert isinstance(server_result(value), expected)


@pytest.mark.parametrize("value", [{}, {"_meta": {}}, {"x-extra": 1}])
def test_a_result_without_result_type_is_refused(value: dict[str, Any]) -> None:
    """The catch-all ``Result`` requires ``resultType`` (the schema's ``required``)."""
    with pytest.raises(msgspec.ValidationError, match="matches none"):
        server_result(value)
    assert server_result({**value, "resultType": "complete"}) == {**value, "resultType": "complete"}


def test_wrong_result_type_is_refused() -> None:
    """A result type that contradicts the shape is an error, not a silent other type."""
    with pytest.raises(msgspec.ValidationError):
        convert({"resultType": "input_required", "content": []}, t.CallToolResult)


def _alias_source(name: str) -> str:
    """The type checkers' definition of an alias in the generated 2026-07-28 types module."""
    tree = ast.parse((ROOT / "generated" / "v2026_07_28" / "types.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and ast.unparse(stmt.target) == name:
                    return ast.unparse(stmt.value) if stmt.value else ""
    raise AssertionError(f"{name} has no TYPE_CHECKING definition")


def test_json_value_is_recursive_for_type_checkers() -> None:
    """JSONValue and JSONObject name each other where they nest, not Any."""
    assert _alias_source("JSONValue") == "JSONObject | list['JSONValue'] | str | int | float | bool"
    assert _alias_source("JSONObject") == "dict[str, 'JSONValue']"


def test_json_value_decodes_json_without_null() -> None:
    """At run time the recursive members take any JSON but ``null``, returned as it came."""
    value = {"a": [1, 2.5, {"b": ["c", True, {}, []]}]}
    assert convert(value, t.JSONObject) == value  # type: ignore[arg-type]
    assert convert([value, "d"], t.JSONValue) == [value, "d"]  # type: ignore[arg-type]
    assert Path(t.__file__).name == "types.py"


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"a": None}, " - at `$[...]`"),
        ({"a": [1, None]}, " at `[1]` - at `$[...]`"),
        ({"a": {"b": {"c": [None]}}}, " at `b.c[0]` - at `$[...]`"),
    ],
)
def test_json_object_refuses_null_at_any_depth(value: dict[str, Any], where: str) -> None:
    """The schema's JSONValue is an object, an array, a string, a number or a boolean."""
    expected = "Expected `object | array | str | int | float | bool`, got `null`"
    with pytest.raises(msgspec.ValidationError) as info:
        convert(value, t.JSONObject)  # type: ignore[arg-type]
    assert str(info.value) == expected + where
    with pytest.raises(msgspec.ValidationError, match="got `null`"):
        convert([value], t.JSONValue)  # type: ignore[arg-type]


def test_a_client_refuses_null_in_server_capabilities() -> None:
    """On the wire: a ``server/discover`` result with a null inside an experimental capability
    is an invalid response naming where; the same result without the null is a Response."""
    session = Session(methods.METHODS, role="client")

    def answer(experimental: dict[str, Any]) -> Any:
        request_id = session.send_request(methods.SERVER_DISCOVER, t.RequestParams())
        session.data_to_send()
        result = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"experimental": experimental},
        }
        frame = {"jsonrpc": "2.0", "id": request_id, "result": result}
        [event] = session.receive(msgspec.json.encode(frame))
        return event

    refused = answer({"example.com/x": {"on": [True, None]}})
    assert isinstance(refused, InvalidResponse)
    assert "got `null` at `[1]` - at `$.capabilities.experimental[...][...]`" in str(refused.error)
    kept = answer({"example.com/x": {"on": [True, {"a": 1.5}]}})
    assert isinstance(kept, Response) and isinstance(kept.result, t.DiscoverResult)
    assert kept.result.capabilities.experimental == {"example.com/x": {"on": [True, {"a": 1.5}]}}


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(ANY_JSON)
def test_json_values_accept_exactly_what_the_schema_accepts(value: Any) -> None:
    """For any JSON value, JSONValue, JSONObject and JSONArray accept it iff the schema does."""
    for name in ("JSONValue", "JSONObject", "JSONArray"):
        valid = _json_validators(name).is_valid(value)
        try:
            decoded = convert(value, getattr(t, name))
        except msgspec.ValidationError:
            assert not valid, f"{name} refused a schema-valid {value!r}"
        else:
            assert valid, f"{name} accepted {value!r}, which the schema refuses"
            assert decoded == value


def _json_validators(name: str) -> Any:
    """The 2026-07-28 schema's validator of one definition."""
    found = _VALIDATORS.get(name)
    if found is None:
        found = _VALIDATORS[name] = validator_class(REVISION)(validation_schema(REVISION, name))
    return found


REVISION = "2026-07-28"
_VALIDATORS: dict[str, Any] = {}
