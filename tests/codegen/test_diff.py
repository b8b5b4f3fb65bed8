"""``mcpgen diff`` on the five revisions: the known changes of each neighbouring pair, and the CLI.

The expected changes come from ../shared/NOTES.md and each revision's changelog.mdx.
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from mcpgen.convert.ir import load_policy
from mcpgen.diff import Category, Change, Diff, Impact, Kind, compare, load_surface
from mcpgen.diff.jsonformat import JSON_SCHEMA, from_data, render_json, to_data
from mcpgen.diff.render import render_markdown, render_text
from tests.codegen.test_cli import run_cli
from tests.conftest import REVISIONS, ROOT

PAIRS = list(itertools.pairwise(REVISIONS))
DOC = ROOT / "docs" / "diff-2025-11-25-to-2026-07-28.md"
LOSSLESS, LOSSY, REFUSED = Impact.LOSSLESS, Impact.LOSSY, Impact.REFUSED


@cache
def diff_of(old: str, new: str) -> Diff:
    """The diff of two pinned revisions under the converters' declared rules (as ``mcpgen
    diff`` prints it), computed once per test session."""
    policy = load_policy()
    return compare(load_surface(old), load_surface(new), policy.rule_names, policy.member_actions)


def one(diff: Diff, category: Category, subject: str, item: str = "", aspect: str = "") -> Change:
    """The single change of an element (and aspect), failing when there is none or several."""
    found = [c for c in diff.find(category, subject, item) if not aspect or c.aspect == aspect]
    assert len(found) == 1, (category, subject, item, aspect, found)
    return found[0]


def absent(diff: Diff, category: Category, subject: str, item: str = "") -> None:
    """No change is reported for the element."""
    assert diff.find(category, subject, item) == ()


@pytest.fixture(autouse=True)
def _need_schemas(schemas: Path) -> None:
    """Every test here reads the pinned schema files."""


# -- 2024-11-05 -> 2025-03-26 ------------------------------------------------------------------


def test_2025_03_26_adds_audio_annotations_batches() -> None:
    """Audio content, tool annotations, progress messages, completions and batches arrive."""
    d = diff_of("2024-11-05", "2025-03-26")
    assert one(d, Category.TYPE, "AudioContent").kind is Kind.ADDED
    assert one(d, Category.TYPE, "ToolAnnotations").kind is Kind.ADDED
    tool = one(d, Category.FIELD, "Tool", "annotations")
    assert (tool.kind, tool.new) == (Kind.ADDED, "ToolAnnotations, optional")
    assert (tool.upgrade.impact, tool.downgrade.impact) == (LOSSLESS, LOSSY)
    assert one(d, Category.FIELD, "ProgressNotificationParams", "message").kind is Kind.ADDED
    cap = one(d, Category.CAPABILITY, "ServerCapabilities.completions")
    assert (cap.kind, cap.downgrade.impact) == (Kind.ADDED, LOSSY)
    batches = one(d, Category.CONSTANT, "JSON-RPC batches")
    assert (batches.old, batches.new) == ("not supported", "supported")
    version = one(d, Category.CONSTANT, "PROTOCOL_VERSION")
    assert (version.old, version.new) == ('"2024-11-05"', '"2025-03-26"')


def test_2025_03_26_audio_in_content_is_lossy_or_refused_downwards() -> None:
    """Audio going down is mapped to text by the converters' rule, in a list or alone; without
    the rule it is dropped from a list and refused as the single required content."""
    d = diff_of("2024-11-05", "2025-03-26")
    content = one(d, Category.FIELD, "CallToolResult", "content", "type")
    assert "AudioContent" in (content.new or "") and "AudioContent" not in (content.old or "")
    assert (content.upgrade.impact, content.downgrade.impact) == (LOSSLESS, LOSSY)
    sampled = one(d, Category.FIELD, "SamplingMessage", "content", "type")
    assert (sampled.upgrade.impact, sampled.downgrade.impact) == (LOSSLESS, LOSSY)
    assert sampled.downgrade.action.value == "map"
    bare = compare(load_surface("2024-11-05"), load_surface("2025-03-26"))
    listed = one(bare, Category.FIELD, "CallToolResult", "content", "type").downgrade
    alone = one(bare, Category.FIELD, "SamplingMessage", "content", "type").downgrade
    assert (listed.impact, listed.action.value, alone.impact) == (LOSSY, "drop", REFUSED)
    # Inline annotations became the shared Annotations type with the same fields: lossless.
    text = one(d, Category.FIELD, "TextContent", "annotations", "type")
    assert (text.new, text.upgrade.impact, text.downgrade.impact) == (
        "Annotations",
        LOSSLESS,
        LOSSLESS,
    )


# -- 2025-03-26 -> 2025-06-18 ------------------------------------------------------------------


def test_2025_06_18_adds_elicitation_resource_links_structured_output() -> None:
    """elicitation/create, ResourceLink in ContentBlock, structured output; batches leave."""
    d = diff_of("2025-03-26", "2025-06-18")
    elicit = one(d, Category.METHOD, "elicitation/create")
    assert elicit.kind is Kind.ADDED
    assert (elicit.upgrade.impact, elicit.downgrade.impact) == (LOSSLESS, REFUSED)
    assert "method not found" in elicit.downgrade.reason
    assert one(d, Category.TYPE, "ResourceLink").kind is Kind.ADDED
    block = one(d, Category.TYPE, "ContentBlock")
    assert block.kind is Kind.ADDED and "ResourceLink" in (block.new or "")
    assert one(d, Category.FIELD, "CallToolResult", "structuredContent").kind is Kind.ADDED
    assert one(d, Category.FIELD, "Tool", "outputSchema").kind is Kind.ADDED
    assert one(d, Category.FIELD, "CompleteRequestParams", "context").kind is Kind.ADDED
    assert one(d, Category.FIELD, "Tool", "title").kind is Kind.ADDED
    assert one(d, Category.TYPE, "JSONRPCBatchRequest").kind is Kind.REMOVED
    assert one(d, Category.CAPABILITY, "ClientCapabilities.elicitation").kind is Kind.ADDED
    assert one(d, Category.MEMBER, "ServerRequest", "ElicitRequest").kind is Kind.ADDED
    content = one(d, Category.FIELD, "CallToolResult", "content", "type")
    assert (content.new, content.downgrade.impact) == ("list[ContentBlock]", LOSSY)


# -- 2025-06-18 -> 2025-11-25 ------------------------------------------------------------------

TASK_METHODS = ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel")


def test_2025_11_25_adds_tasks_url_elicitation_icons() -> None:
    """Tasks, elicitation completion, URL-mode elicitation, icons and sampling tools arrive."""
    d = diff_of("2025-06-18", "2025-11-25")
    for method in TASK_METHODS:
        change = one(d, Category.METHOD, method)
        assert change.kind is Kind.ADDED and change.downgrade.impact is REFUSED
    status = one(d, Category.METHOD, "notifications/tasks/status")
    assert (status.kind, status.downgrade.impact) == (Kind.ADDED, LOSSY)
    assert one(d, Category.METHOD, "notifications/elicitation/complete").kind is Kind.ADDED
    assert one(d, Category.CAPABILITY, "ServerCapabilities.tasks").kind is Kind.ADDED
    assert one(d, Category.CAPABILITY, "ClientCapabilities.elicitation.url").kind is Kind.ADDED
    params = one(d, Category.TYPE, "ElicitRequestParams")
    assert params.aspect == "kind" and "ElicitRequestURLParams" in (params.new or "")
    assert one(d, Category.FIELD, "Implementation", "description").kind is Kind.ADDED
    assert one(d, Category.FIELD, "Tool", "icons").kind is Kind.ADDED
    assert one(d, Category.FIELD, "CreateMessageRequestParams", "tools").kind is Kind.ADDED
    assert one(d, Category.FIELD, "CallToolRequestParams", "task").kind is Kind.ADDED


def test_2025_11_25_requests_carry_jsonrpc_and_id() -> None:
    """The ``jsonrpc`` and ``id`` the 2025-11-25 request types list are the JSON-RPC envelope's,
    on the wire in every revision: lossless both ways, so no bump fails the upgrade gate."""
    d = diff_of("2025-06-18", "2025-11-25")
    for owner in ("CallToolRequest", "PaginatedRequest", "InitializeRequest"):
        for wire in ("jsonrpc", "id"):
            change = one(d, Category.FIELD, owner, wire)
            assert change.kind is Kind.ADDED
            assert (change.upgrade.impact, change.downgrade.impact) == (LOSSLESS, LOSSLESS)
            assert "envelope" in change.upgrade.reason
    assert d.impacts("upgrade")["refused"] == 0
    ruled = compare(load_surface("2025-06-18"), load_surface("2025-11-25"), frozenset({"*.id"}))
    assert ruled.rules == ("*.id",) and from_data(to_data(ruled)) == ruled


def test_renamed_inline_types_with_the_same_fields_are_no_change() -> None:
    """Params split into standalone definitions (SEP-1319) are not reported when equal."""
    d = diff_of("2025-06-18", "2025-11-25")
    # Inline in 2025-06-18, a definition in 2025-11-25; only the new ``task`` field differs.
    assert {c.item for c in d.changes if c.subject == "CallToolRequestParams"} == {"task"}
    absent(d, Category.TYPE, "CallToolRequestParams")


# -- 2025-11-25 -> 2026-07-28 ------------------------------------------------------------------

GONE_2026 = (
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    *TASK_METHODS,
)


def test_2026_07_28_is_stateless() -> None:
    """initialize and friends go, server/discover and subscriptions/listen come."""
    d = diff_of("2025-11-25", "2026-07-28")
    for method in GONE_2026:
        change = one(d, Category.METHOD, method)
        assert change.kind is Kind.REMOVED
        assert (change.upgrade.impact, change.downgrade.impact) == (REFUSED, LOSSLESS)
    for method in ("notifications/initialized", "notifications/roots/list_changed"):
        assert one(d, Category.METHOD, method).upgrade.impact is LOSSY
    for method in ("server/discover", "subscriptions/listen"):
        change = one(d, Category.METHOD, method)
        assert (change.kind, change.downgrade.impact) == (Kind.ADDED, REFUSED)
    added = one(d, Category.METHOD, "notifications/subscriptions/acknowledged")
    assert added.kind is Kind.ADDED
    progress = one(d, Category.METHOD, "notifications/progress", aspect="senders")
    assert (progress.old, progress.new) == ("client and server", "server")
    assert (progress.upgrade.impact, progress.downgrade.impact) == (LOSSY, LOSSLESS)
    assert one(d, Category.CAPABILITY, "ServerCapabilities.extensions").kind is Kind.ADDED
    assert one(d, Category.CAPABILITY, "ClientCapabilities.tasks").kind is Kind.REMOVED


def test_2026_07_28_results_carry_result_type_and_cache_fields() -> None:
    """``resultType`` is required on every result; list results add ``ttlMs``/``cacheScope``."""
    d = diff_of("2025-11-25", "2026-07-28")
    base = one(d, Category.FIELD, "Result", "resultType")
    assert (base.kind, base.new) == (Kind.ADDED, "str, required")
    # The converters' rule fills it; 2025-11-25's generic Result keeps members it does not
    # name (additionalProperties), so going down loses nothing either.
    assert (base.upgrade.impact, base.downgrade.impact) == (LOSSLESS, LOSSLESS)
    for owner in ("CallToolResult", "ListToolsResult", "ReadResourceResult"):
        change = one(d, Category.FIELD, owner, "resultType")
        assert change.kind is Kind.ADDED and change.downgrade.impact is LOSSY
        # A constant (an override may pin it) or the converters' declared rule fills it going
        # up; nothing is silently copied.
        assert (change.upgrade.impact, change.upgrade.action.value) == (LOSSLESS, "fill")
    # Required in the schema; an override may make them optional where the runtime fills them.
    for wire, rendered in (("ttlMs", "int"), ("cacheScope", 'Literal["private", "public"]')):
        change = one(d, Category.FIELD, "ListToolsResult", wire)
        assert change.kind is Kind.ADDED and change.downgrade.impact is LOSSY
        required = change.new == f"{rendered}, required"
        assert required or change.new == f"{rendered}, optional"
        assert change.upgrade.impact is (REFUSED if required else LOSSLESS)
    ruled = compare(
        load_surface("2025-11-25"), load_surface("2026-07-28"), frozenset({"*.resultType"})
    )
    assert one(ruled, Category.FIELD, "CallToolResult", "resultType").upgrade.impact is LOSSLESS
    bare = compare(load_surface("2025-11-25"), load_surface("2026-07-28"))
    assert one(bare, Category.FIELD, "Result", "resultType").upgrade.impact is REFUSED


def test_2026_07_28_input_required_results() -> None:
    """tools/call may answer an InputRequiredResult, which older clients cannot take."""
    d = diff_of("2025-11-25", "2026-07-28")
    for method in ("tools/call", "prompts/get", "resources/read"):
        change = one(d, Category.METHOD, method, aspect="input required")
        assert (change.old, change.new) == ("false", "true")
        assert (change.upgrade.impact, change.downgrade.impact) == (LOSSLESS, REFUSED)
    assert one(d, Category.TYPE, "InputRequiredResult").kind is Kind.ADDED
    assert one(d, Category.MEMBER, "ServerResult", "InputRequiredResult").kind is Kind.ADDED
    gone = one(d, Category.FIELD, "ElicitRequestURLParams", "elicitationId")
    assert (gone.kind, gone.downgrade.impact) == (Kind.REMOVED, REFUSED)


def test_counts_per_pair_are_stable() -> None:
    """Each neighbouring pair has changes; the same revision against itself has none."""
    for old, new in PAIRS:
        assert diff_of(old, new).changes, (old, new)
    same = compare(load_surface("2025-06-18"), load_surface("2025-06-18"))
    assert same.changes == () and same.worst() is None


# -- renderings --------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_json_validates_and_round_trips(old: str, new: str) -> None:
    """The JSON form validates against its schema and reads back into the same diff."""
    d = diff_of(old, new)
    text = render_json(d)
    data = json.loads(text)
    jsonschema.validate(data, JSON_SCHEMA)
    assert from_data(data) == d
    assert render_json(from_data(data)) == text
    assert data["summary"]["changes"] == len(d.changes) == len(data["changes"])
    assert sum(data["summary"]["upgrade"].values()) == len(d.changes)


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_command_prints_the_library_diff(old: str, new: str) -> None:
    """``mcpgen diff OLD NEW --format json`` in a fresh process prints exactly the same bytes."""
    proc = run_cli("diff", old, new, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == render_json(diff_of(old, new))


def test_every_change_renders_in_text_and_markdown() -> None:
    """Each change is one entry of the text report and one table row of the Markdown page."""
    d = diff_of("2025-11-25", "2026-07-28")
    text, markdown = render_text(d), render_markdown(d)
    entries = [line for line in text.splitlines() if line[:4] in ("  + ", "  - ", "  ~ ")]
    rows = [line for line in markdown.splitlines() if line[:4] in ("| + ", "| - ", "| ~ ")]
    assert len(entries) == len(rows) == len(d.changes)
    assert "  - method initialize: request from client" in text


def test_checked_in_doc_is_fresh_output() -> None:
    """docs/ holds exactly what ``mcpgen diff 2025-11-25 2026-07-28 --format markdown`` prints."""
    proc = run_cli("diff", "2025-11-25", "2026-07-28", "--format", "markdown")
    assert proc.returncode == 1, proc.stderr
    assert DOC.read_text(encoding="utf-8") == proc.stdout, (
        "regenerate: mcpgen diff 2025-11-25 2026-07-28 --format markdown "
        "--fail-on never -o docs/diff-2025-11-25-to-2026-07-28.md"
    )
