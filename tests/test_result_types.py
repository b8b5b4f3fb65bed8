"""2026-07-28 results are told apart by ``resultType``, and JSON values are typed recursively.

``ServerResult`` decodes a result whose method is not known (a gateway, a log): the spec says
``resultType`` decides how to parse it (``input_required`` or ``complete``), and a plain result
that carries ``_meta`` is the generic ``Result``, not the subscription-closing result.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec
import pytest

from generated import convert
from generated.v2026_07_28 import types as t

from .conftest import ROOT


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


def test_json_value_still_decodes_any_json() -> None:
    """At run time the recursive members decode as any JSON (msgspec has no recursive aliases)."""
    value = {"a": [1, 2.5, {"b": ["c", True]}]}
    assert convert(value, t.JSONObject) == value  # type: ignore[arg-type]
    assert Path(t.__file__).name == "types.py"
