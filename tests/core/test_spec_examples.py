"""The JSON-RPC examples of the spec pages decode into the generated types and re-encode intact."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest

from generated import convert, decode, encode
from generated.runtime import Unknown
from tests.support.spec_examples import (
    BAD_CASES,
    ERROR,
    FRAGMENT,
    NOTIFICATION,
    REQUEST,
    RESULT,
    SPEC_DIR,
    BadCase,
    Example,
    has_parent,
    load_revision,
    methods_table,
    omits_meta_for_brevity,
    required_fields,
    resolve_result,
    revisions_present,
    schema_methods,
    schema_properties,
    types_module,
)

if not SPEC_DIR.is_dir():
    pytest.skip("../shared/spec is not present", allow_module_level=True)

REVISIONS = revisions_present()
# A revision's pages must yield at least this many examples of each kind, or the extractor broke.
MIN_EXAMPLES = {REQUEST: 10, NOTIFICATION: 5, RESULT: 10, ERROR: 3}
MAX_UNPARSEABLE = 10
# Blocks that are neither JSONC (comments) nor elided (``...``), just broken in the spec text.
KNOWN_BROKEN = {"2025-06-18/server/tools.mdx#8": "missing comma after mimeType"}
# An embedded request (2026-07-28 ``inputRequests``): an object with ``method`` but no envelope.
EMBEDDED = "embedded-request"
# A spec example of a request that leaves out the JSON-RPC ``id`` (classified as a notification).
MISSING_ID = "request-missing-id"


def _roundtrip(value: Any, tp: Any, *, tolerant: bool = True) -> Any:
    """Convert JSON into ``tp`` and return the re-encoded JSON, parsed again."""
    return json.loads(encode(convert(value, tp, tolerant=tolerant)))


def _only(value: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """The members of ``value`` whose names are in ``keys``."""
    return {key: item for key, item in value.items() if key in keys}


def _message_kind(rev: str, example: Example) -> str | None:
    """The message category of an example, or None when it is no request/notification."""
    kind = example.kind
    if kind == FRAGMENT:
        return EMBEDDED if _is_embedded(example) else None
    spec = methods_table(rev).get(example.value["method"]) if kind == NOTIFICATION else None
    if spec is not None and spec.kind == REQUEST:
        return MISSING_ID
    return kind if kind in (REQUEST, NOTIFICATION) else None


def _message_examples(*, known: bool) -> list[Any]:
    """Pytest params of requests/notifications whose method is (or is not) in METHODS."""
    params = []
    for rev in REVISIONS:
        methods = methods_table(rev)
        for example in load_revision(rev).examples:
            kind = _message_kind(rev, example)
            if kind is not None and (example.value["method"] in methods) == known:
                params.append(pytest.param(rev, example, kind, id=example.id))
    return params


def _is_embedded(example: Example) -> bool:
    """Whether a fragment is a bare ``{"method": ..., "params": ...}`` request object."""
    value = example.value
    return isinstance(value, dict) and isinstance(value.get("method"), str) and "id" not in value


def _result_examples(strategies: tuple[str, ...]) -> list[Any]:
    """Pytest params of result examples whose method was resolved by one of ``strategies``."""
    params = []
    for rev in REVISIONS:
        for example in load_revision(rev).of_kind(RESULT):
            target = resolve_result(rev, example)
            known = target.method is None or target.method in methods_table(rev)
            strategy = target.strategy if known else "unknown-method"
            if strategy in strategies:
                params.append(pytest.param(rev, example, target.method, id=example.id))
    return params


@pytest.mark.parametrize("rev", REVISIONS)
def test_extractor_finds_examples(rev: str) -> None:
    """Each revision yields enough examples of every message kind, and every block is accounted."""
    data = load_revision(rev)
    assert len(data.blocks) == len(data.examples) + len(data.unparseable)
    for kind, minimum in MIN_EXAMPLES.items():
        found = len(data.of_kind(kind))
        assert found >= minimum, f"{rev}: only {found} {kind} examples (want >= {minimum})"
    # Fences nested in MDX lists (indented) are dedented and then parse.
    indented = [block for block in data.blocks if block.indented]
    assert all(block.text.lstrip()[:1] in "{[" for block in indented)
    if indented:
        assert any(example.block.indented for example in data.examples), rev


def _unparseable_params() -> list[Any]:
    """One param per revision whose id lists the blocks skipped as not strict JSON."""
    params = []
    for rev in REVISIONS:
        skipped = load_revision(rev).unparseable
        listing = ",".join(f"{block.page}#{block.ordinal}:{why}" for block, why in skipped)
        params.append(pytest.param(rev, id=f"{rev} skipped={len(skipped)} [{listing}]"))
    return params


@pytest.mark.parametrize("rev", _unparseable_params())
def test_unparseable_blocks_are_few_and_explained(rev: str) -> None:
    """Only a few blocks per revision are skipped, each for JSONC comments or ``...`` elisions."""
    skipped = load_revision(rev).unparseable
    assert len(skipped) <= MAX_UNPARSEABLE, [block.id for block, _ in skipped]
    for block, why in skipped:
        assert why in ("comment", "ellipsis", "bare-member") or block.id in KNOWN_BROKEN, (
            block.id,
            why,
            block.text[:200],
        )


@pytest.mark.parametrize("rev, example, kind", _message_examples(known=True))
def test_message_example_roundtrips(rev: str, example: Example, kind: str) -> None:
    """A request/notification decodes into its params and message types and re-encodes intact."""
    spec = methods_table(rev)[example.value["method"]]
    assert spec.kind == (NOTIFICATION if kind == NOTIFICATION else REQUEST), spec.kind
    value = _with_brevity_meta(rev, example, spec)
    params = value.get("params")
    if spec.params is None:
        assert params in (None, {}), f"{spec.method} takes no params but the example has {params}"
    elif params is not None:
        assert _roundtrip(params, spec.params) == params
    else:
        assert not spec.params_required, f"{spec.method} requires params"
    wire = schema_properties(rev, spec.message.__name__)
    assert {"method"} <= wire, f"schema has no definition {spec.message.__name__}"
    if kind == MISSING_ID and "id" in required_fields(rev, spec.message.__name__):
        with pytest.raises(msgspec.ValidationError, match="`id`"):
            convert(value, spec.message)
        return
    # Strict keeps what the message type defines; tolerant (the default) keeps everything.
    assert _roundtrip(value, spec.message, tolerant=False) == _only(value, wire)
    assert _roundtrip(value, spec.message) == value
    if kind in (EMBEDDED, MISSING_ID):
        return
    types = types_module(rev)
    envelope = types.JSONRPCRequest if kind == REQUEST else types.JSONRPCNotification
    decoded = json.loads(encode(convert(value, envelope)))
    keys = {"jsonrpc", "id", "method"}
    assert _only(decoded, keys) == _only(value, keys)


def _with_brevity_meta(rev: str, example: Example, spec: Any) -> dict[str, Any]:
    """The example, with the required ``_meta`` its page says it leaves out for brevity."""
    value: dict[str, Any] = example.value
    params = value.get("params", {})
    name = getattr(spec.params, "__name__", "")
    if (
        not omits_meta_for_brevity(rev, example.block.page)
        or "_meta" in params
        or "_meta" not in required_fields(rev, name)
    ):
        return value
    # _meta is optional in the Python params (an override): the client runtime fills it, and a
    # server refuses a request without it (-32602, HTTP 400:
    # tests/transports/http/test_era_http_wire.py).
    convert(params, spec.params)
    meta = {
        "io.modelcontextprotocol/protocolVersion": rev,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return {**value, "params": {**params, "_meta": meta}}


@pytest.mark.parametrize("rev, example, kind", _message_examples(known=False))
def test_unknown_method_is_not_in_schema(rev: str, example: Example, kind: str) -> None:
    """An example whose method METHODS lacks is a method the revision's schema lacks too."""
    method = example.value["method"]
    assert method not in schema_methods(rev), f"{method} is in the {rev} schema but not METHODS"
    if kind == REQUEST:
        # The generic envelope still takes it.
        request = convert(example.value, types_module(rev).JSONRPCRequest)
        assert (request.id, request.method) == (example.value["id"], method)


def _result_type(rev: str, method: str, value: dict[str, Any], request: Any) -> tuple[str, Any]:
    """The result type a response to ``method`` decodes into, and the rule that chose it."""
    types = types_module(rev)
    spec = methods_table(rev)[method]
    if value.get("resultType") == "input_required" and spec.input_required:
        return "input-required", types.InputRequiredResult
    if isinstance(request, dict) and "task" in request and hasattr(types, "CreateTaskResult"):
        return "task-created", types.CreateTaskResult
    return "method-result", spec.result


def _decodes_into_some_result(rev: str, value: dict[str, Any]) -> list[str]:
    """The names of the revision's result types that decode ``value`` and re-encode it intact."""
    winners = []
    candidates = {id(s.result): s.result for s in methods_table(rev).values() if s.result}
    types = types_module(rev)
    for extra in ("CreateTaskResult", "InputRequiredResult"):
        if hasattr(types, extra):
            candidates[id(getattr(types, extra))] = getattr(types, extra)
    for tp in candidates.values():
        try:
            if _roundtrip(value, tp) == value:
                winners.append(getattr(tp, "__name__", str(tp)))
        except msgspec.ValidationError:
            continue
    return winners


def _check_result_envelope(rev: str, example: Example) -> None:
    """The whole response decodes into the revision's JSON-RPC result envelope."""
    types = types_module(rev)
    envelope = getattr(types, "JSONRPCResultResponse", None) or types.JSONRPCResponse
    decoded = json.loads(encode(convert(example.value, envelope)))
    assert decoded["id"] == example.value["id"] and decoded["jsonrpc"] == "2.0"


@pytest.mark.parametrize(
    "rev, example, method", _result_examples(("matched-request", "matched-later-request"))
)
def test_result_of_matched_request_roundtrips(rev: str, example: Example, method: str) -> None:
    """A result whose request (same page, same id) is known decodes into that method's result."""
    _check_result_envelope(rev, example)
    value = example.value["result"]
    request = _matching_request_params(rev, example)
    if method == "tasks/result":
        # The payload has the original request's result structure: some result type must fit.
        convert(value, methods_table(rev)[method].result)
        assert _decodes_into_some_result(rev, value), f"no {rev} result type fits {value}"
        return
    rule, tp = _result_type(rev, method, value, request)
    assert _roundtrip(value, tp) == value, f"{method} via {rule}"


def _matching_request_params(rev: str, example: Example) -> Any:
    """The params of the request example a result was matched to, if any."""
    page, rid = example.block.page, example.value["id"]
    requests = [
        other
        for other in load_revision(rev).of_kind(REQUEST)
        if other.block.page == page and other.value.get("id") == rid
    ]
    earlier = [other for other in requests if other.block.ordinal < example.block.ordinal]
    chosen = earlier[-1] if earlier else requests[0]
    return chosen.value.get("params")


@pytest.mark.parametrize("rev, example, method", _result_examples(("all-result-types",)))
def test_result_of_unknown_request_fits_some_result_type(
    rev: str, example: Example, method: None
) -> None:
    """A result with no matching request on its page round-trips through some result type."""
    assert method is None
    _check_result_envelope(rev, example)
    assert _decodes_into_some_result(rev, example.value["result"]), example.value["result"]


def test_results_of_unknown_methods_are_not_in_schema() -> None:
    """A result answering a method METHODS lacks answers a method the schema lacks too."""
    for param in _result_examples(("unknown-method",)):
        rev, example, method = param.values
        assert method not in schema_methods(rev), f"{example.id}: {method} is in the schema"


def _error_examples() -> list[Any]:
    """Pytest params of every error response example."""
    return [
        pytest.param(rev, example, id=example.id)
        for rev in REVISIONS
        for example in load_revision(rev).of_kind(ERROR)
    ]


@pytest.mark.parametrize("rev, example", _error_examples())
def test_error_example_roundtrips(rev: str, example: Example) -> None:
    """An error response decodes into the revision's JSON-RPC error type and re-encodes intact."""
    types = types_module(rev)
    envelope = getattr(types, "JSONRPCErrorResponse", None) or types.JSONRPCError
    assert _roundtrip(example.value, envelope) == example.value


def test_category_counts_are_reported() -> None:
    """Every parsed example lands in exactly one counted category (none silently dropped)."""
    messages = _message_examples(known=True)
    unknown = _message_examples(known=False)
    strategies = ("matched-request", "matched-later-request", "all-result-types", "unknown-method")
    results = _result_examples(strategies)
    errors = _error_examples()
    fragments = [
        example
        for rev in REVISIONS
        for example in load_revision(rev).of_kind(FRAGMENT)
        if not _is_embedded(example)
    ]
    parsed = sum(len(load_revision(rev).examples) for rev in REVISIONS)
    total = len(messages) + len(unknown) + len(results) + len(errors) + len(fragments)
    assert total == parsed


# --- Bad payloads: a mutated spec example is rejected with an error naming the field. ---

MIN_BAD_CASES = 12


def _source(rev: str, method: str, part: str) -> tuple[Any, dict[str, Any]] | None:
    """The type to decode and a valid spec payload (params, message or result) of ``method``."""
    spec = methods_table(rev).get(method)
    if spec is None:
        return None
    data = load_revision(rev)
    if part == "result":
        for example in data.of_kind(RESULT):
            result = example.value["result"]
            target = resolve_result(rev, example)
            complete = result.get("resultType", "complete") == "complete"
            task = (_matching_request_params(rev, example) or {}).get("task")
            if target.method == method and complete and task is None:
                return spec.result, result
        return None
    for example in data.of_kind(REQUEST):
        if example.value["method"] == method:
            value = _with_brevity_meta(rev, example, spec)
            if part == "params":
                return spec.params, value["params"]
            envelope = types_module(rev).JSONRPCRequest
            return (spec.message if part == "message" else envelope), value
    return None


def _bad_params() -> list[Any]:
    """Pytest params of every bad-payload case whose method and spec example the revision has."""
    params = []
    for rev in REVISIONS:
        for case in BAD_CASES:
            source = _source(rev, case.method, case.part)
            if source is not None and has_parent(source[1], case.path):
                tp, value = source
                case_id = f"{rev}/{case.method}:{case.part}:{case.name}"
                params.append(pytest.param(rev, tp, value, case, id=case_id))
    return params


@pytest.mark.parametrize("rev", REVISIONS)
def test_bad_payload_cases_cover_each_revision(rev: str) -> None:
    """Enough bad-payload cases find a spec example to mutate in every revision."""
    cases = [param for param in _bad_params() if param.values[0] == rev]
    assert len(cases) >= MIN_BAD_CASES, [param.id for param in cases]


@pytest.mark.parametrize("rev, tp, value, case", _bad_params())
def test_bad_payload_is_rejected_naming_the_field(
    rev: str, tp: Any, value: Any, case: BadCase
) -> None:
    """The valid example decodes; the mutated one raises a ValidationError naming the field."""
    convert(value, tp)
    bad = case.apply(value)
    expected = case.expected
    with pytest.raises(msgspec.ValidationError) as info:
        convert(bad, tp, tolerant=False)
    for text in expected:
        assert text in str(info.value), f"{text} not in {info.value}"
    # The bytes decoder (the public decode) reports the same.
    with pytest.raises(msgspec.ValidationError, match=re.escape(expected[0])):
        decode(json.dumps(bad).encode(), tp, tolerant=False)
    # Tolerant (the default) refuses the same, but for a content block of a kind the revision
    # does not define, which it keeps as Unknown.
    if case.name == "content-wrong-type-const":
        assert isinstance(convert(bad, tp).content[0], Unknown)
    else:
        with pytest.raises(msgspec.ValidationError, match=re.escape(expected[0])):
            decode(json.dumps(bad).encode(), tp)
