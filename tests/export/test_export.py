"""Exports of the example set, read back by each tool's documented data shape; imports."""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict
from ruamel.yaml import YAML

from conftest import ROOT, SET_HEADER, commit_all, set_item, write_files
from evalset.export.view import select
from evalset.sets.content import item_content
from evalset.sets.fingerprint import item_fingerprints
from evalset.sets.model import Item, Origin
from evalset.sets.setfile import load_set

EXAMPLE = load_set(ROOT / "sets" / "acme-support.yaml")
TUNING = {i.id for i in EXAMPLE.items if i.status == "active" and i.holdout is False}
HOLDOUT = {i.id for i in EXAMPLE.items if i.status == "active" and i.holdout is True}
NEVER = {i.id for i in EXAMPLE.items if i.status != "active"}


# The documented shapes, field for field; extra="forbid" so that a misspelt key fails.


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RagasSingleTurnSample(_Shape):
    """ragas.dataset_schema.SingleTurnSample: what EvaluationDataset.from_jsonl builds."""

    user_input: str | None = None
    retrieved_contexts: list[str] | None = None
    reference_contexts: list[str] | None = None
    retrieved_context_ids: list[str | int] | None = None
    reference_context_ids: list[str | int] | None = None
    response: str | None = None
    multi_responses: list[str] | None = None
    reference: str | None = None
    rubrics: dict[str, str] | None = None
    persona_name: str | None = None
    query_style: str | None = None
    query_length: str | None = None


RAGAS_EXTRA = {"evalset_id", "category", "split", "answerable", "verified"}
"""Keys the Ragas export adds for joining results; SingleTurnSample ignores unknown keys."""


class DeepEvalGolden(_Shape):
    """deepeval.dataset.Golden, as add_goldens_from_json_file reads it."""

    input: str
    actual_output: str | None = None
    expected_output: str | None = None
    context: list[str] | None = None
    retrieval_context: list[str] | None = None
    additional_metadata: dict[str, Any] | None = None
    custom_column_key_values: dict[str, str] | None = None
    comments: str | None = None
    source_file: str | None = None
    name: str | None = None


class LangSmithExample(_Shape):
    """langsmith.schemas.ExampleCreate, the rows Client.create_examples takes."""

    inputs: dict[str, Any]
    reference_outputs: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    split: str | list[str] | None = None


class ChatMessage(_Shape):
    role: Literal["system", "user", "assistant"]
    content: str


class OpenAIEvalsSample(BaseModel):
    """A sample for the model-graded `closedqa` spec of OpenAI Evals: chat input and the
    criterion its prompt formats in; `ideal` (a single short answer, for the basic templates)
    only where the item has one; other keys are allowed."""

    input: list[ChatMessage]
    criteria: str
    ideal: str | None = None


class PromptfooAssertion(_Shape):
    type: str
    value: str | None = None
    threshold: float | None = None


class PromptfooTest(_Shape):
    """A promptfoo test case as a tests file lists them."""

    description: str | None = None
    vars: dict[str, Any]
    # `assert` is a Python keyword: read under an alias.
    asserts: list[PromptfooAssertion] | None = None
    options: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    threshold: float | None = None

    @classmethod
    def of(cls, data: dict[str, Any]) -> PromptfooTest:
        data = dict(data)
        data["asserts"] = data.pop("assert", None)
        return cls.model_validate(data)


def run_export(cli, fmt: str, *args: str) -> str:  # type: ignore[no-untyped-def]
    # The example's policy update left items stale: exporting them needs saying so.
    result = cli(ROOT, "export", "acme-support", "--format", fmt, "--allow-stale", *args)
    assert result.code == 0, result.err
    text: str = result.out
    return text


def check_ids(ids: list[str], expected: set[str]) -> None:
    assert set(ids) == expected
    assert len(ids) == len(set(ids))
    assert not set(ids) & NEVER


def test_example_has_both_splits_and_rows_never_exported() -> None:
    assert len(TUNING) > 10 and len(HOLDOUT) > 3 and NEVER


def test_jsonl_rows_are_items_with_the_pin(cli) -> None:  # type: ignore[no-untyped-def]
    rows = [json.loads(line) for line in run_export(cli, "jsonl").splitlines()]
    for row in rows:
        pin = row.pop("evalset")
        assert pin["set"] == "acme-support" and pin["fingerprint_format"] == 2
        assert row.pop("split") == "tuning"
        Item.model_validate(row)
    check_ids([r["id"] for r in rows], TUNING)


def test_csv_rows(cli) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.DictReader(io.StringIO(run_export(cli, "csv"))))
    check_ids([r["id"] for r in rows], TUNING)
    assert {r["split"] for r in rows} == {"tuning"}
    assert all(isinstance(json.loads(r["key_points"]), list) for r in rows)


def test_ragas_samples_carry_the_cited_text(cli) -> None:  # type: ignore[no-untyped-def]
    rows = [json.loads(line) for line in run_export(cli, "ragas").splitlines()]
    assert all(set(row) >= RAGAS_EXTRA for row in rows)
    samples = [
        RagasSingleTurnSample.model_validate({k: v for k, v in row.items() if k not in RAGAS_EXTRA})
        for row in rows
    ]
    questions = {i.question: i for i in EXAMPLE.items}
    check_ids([questions[s.user_input or ""].id for s in samples], TUNING)
    assert [questions[s.user_input or ""].id for s in samples] == [r["evalset_id"] for r in rows]
    q001 = next(s for s in samples if questions[s.user_input or ""].id == "q-001")
    assert q001.reference == (
        "Damaged or defective items can be returned within 30 days of delivery. "
        "A photo of the damage is required."
    )
    assert q001.reference_context_ids and q001.reference_contexts
    assert len(q001.reference_context_ids) == len(q001.reference_contexts)
    assert all(text.strip() for text in q001.reference_contexts)
    assert "30 days" in " ".join(q001.reference_contexts)


def test_promptfoo_tests_file(cli) -> None:  # type: ignore[no-untyped-def]
    text = run_export(cli, "promptfoo")
    assert "&id" not in text  # no YAML anchors: each test stands alone
    tests = [PromptfooTest.of(t) for t in YAML(typ="safe").load(text)]
    check_ids([(t.metadata or {})["evalset_id"] for t in tests], TUNING)
    for test in tests:
        assert set(test.vars) == {"question"}
        assert test.asserts
        assert (test.metadata or {})["evalset"]["set"] == "acme-support"
    q001 = next(t for t in tests if (t.metadata or {})["evalset_id"] == "q-001")
    kinds = [(a.type, a.value) for a in q001.asserts or []]
    assert ("icontains", "30 days") in kinds
    assert any(v and v.startswith("Does not state that:") for _, v in kinds)


def test_deepeval_goldens(cli) -> None:  # type: ignore[no-untyped-def]
    goldens = [DeepEvalGolden.model_validate(g) for g in json.loads(run_export(cli, "deepeval"))]
    check_ids([(g.additional_metadata or {})["evalset_id"] for g in goldens], TUNING)
    assert all(g.expected_output for g in goldens if g.context)


def test_langsmith_examples(cli) -> None:  # type: ignore[no-untyped-def]
    examples = [
        LangSmithExample.model_validate_json(line)
        for line in run_export(cli, "langsmith").splitlines()
    ]
    check_ids([(e.metadata or {})["evalset_id"] for e in examples], TUNING)
    assert {e.split for e in examples} == {"tuning"}
    assert all(isinstance(e.inputs["question"], str) for e in examples)


def test_langsmith_sdk_takes_the_examples(cli) -> None:  # type: ignore[no-untyped-def]
    """The LangSmith SDK itself (installed with the dev extra; offline) reads every row."""
    schemas = pytest.importorskip("langsmith.schemas")
    rows = [json.loads(line) for line in run_export(cli, "langsmith").splitlines()]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # `outputs` is deprecated there
        examples = [schemas.ExampleCreate(**row) for row in rows]
    for row, example in zip(rows, examples, strict=True):
        assert example.inputs == row["inputs"] and example.metadata == row["metadata"]
        assert example.reference_outputs == row["reference_outputs"]
        assert example.split == "tuning"
    check_ids([e.metadata["evalset_id"] for e in examples], TUNING)


def test_openai_evals_samples_carry_a_criterion_per_item(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "export", "acme-support", "--allow-stale", "--format", "openai")
    samples = [OpenAIEvalsSample.model_validate_json(line) for line in result.out.splitlines()]
    ids = [json.loads(line)["metadata"]["evalset_id"] for line in result.out.splitlines()]
    check_ids(ids, TUNING)
    assert all(s.input[0].role == "user" for s in samples)
    assert not any(isinstance(s.ideal, list) for s in samples)


@pytest.mark.parametrize(
    "fmt", ["jsonl", "csv", "ragas", "promptfoo", "deepeval", "langsmith", "openai"]
)
def test_no_format_leaks_a_holdout_question_into_the_tuning_view(cli, fmt: str) -> None:  # type: ignore[no-untyped-def]
    text = run_export(cli, fmt)
    for item in EXAMPLE.items:
        if item.id in HOLDOUT or item.id in NEVER:
            assert item.question not in text, item.id


def test_the_holdout_is_exported_only_when_named(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "holdout.jsonl"
    result = cli(ROOT, "export", "acme-support", "--allow-stale", "--format", "jsonl",
                 "--split", "holdout", "-o", str(out), "--json")  # fmt: skip
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["rows"] == len(HOLDOUT) and report["split"] == "holdout"
    check_ids([json.loads(line)["id"] for line in out.read_text().splitlines()], HOLDOUT)
    everything = run_export(cli, "jsonl", "--split", "all")
    check_ids([json.loads(line)["id"] for line in everything.splitlines()], TUNING | HOLDOUT)


@pytest.mark.parametrize("split", ["tuning", "holdout", "all"])
def test_the_summary_line_names_the_split_exported(cli, tmp_path: Path, split: str) -> None:  # type: ignore[no-untyped-def]
    """Before, the whole set's export said "wrote 40 all item(s)"."""
    out = tmp_path / "out.jsonl"
    result = cli(ROOT, "export", "acme-support", "--allow-stale", "--format", "jsonl",
                 "--split", split, "-o", str(out))  # fmt: skip
    assert result.code == 0, result.err
    rows = len(out.read_text().splitlines())
    which = "" if split == "all" else f"{split} "
    assert result.out == f"wrote {rows} {which}item(s) as jsonl to {out}\n"


def test_bad_export_arguments(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "export", "acme-support", "--format", "parquet")
    assert result.code == 2 and "'parquet' is not an export format; use one of" in result.err
    result = cli(ROOT, "export", "acme-support", "--format", "csv", "--split", "test")
    assert result.code == 2 and "'test' is not a split; use tuning, holdout or all" in result.err
    assert "Traceback" not in result.err


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([None, True, False]),
            st.sampled_from(["active", "draft", "retired"]),
        ),
        max_size=40,
    ),
    st.sampled_from(["tuning", "holdout", "all"]),
)
def test_views_property(rows: list[tuple[bool | None, str]], split: str) -> None:
    header = "evalset: 1\nname: s\ncategories: {c: a category}\nitems:\n"
    body = "".join(
        f"  - {{id: i-{n}, question: q {n}, category: c, status: {status}"
        + ("" if flag is None else f", holdout: {str(flag).lower()}")
        + "}\n"
        for n, (flag, status) in enumerate(rows)
    )
    from evalset.sets.setfile import parse_set

    loaded = parse_set(header + (body or "  []\n").replace("items:\n  []", "items: []"), "s.yaml")
    items, unassigned = select(loaded, split)
    assert all(i.status == "active" for i in items)
    if split == "tuning":
        assert all(i.holdout is False for i in items)
    if split == "holdout":
        assert all(i.holdout is True for i in items)
    assert unassigned == sum(1 for f, s in rows if f is None and s == "active")


# Import


@pytest.fixture
def empty_set(corpus_repo: Path) -> Path:
    path = corpus_repo / "sets" / "mine.yaml"
    categories = "".join(f"  {c}: {d}\n" for c, d in EXAMPLE.raw["categories"].items())
    path.write_text(f"evalset: 1\nname: mine  # ours\ncategories:\n{categories}items: []\n")
    return path


def export_file(cli, tmp_path: Path, fmt: str) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path / f"export.{fmt}"
    result = cli(
        ROOT,
        "export",
        "acme-support",
        "--allow-stale",
        "--format",
        fmt,
        "--split",
        "all",
        "-o",
        str(out),
    )
    assert result.code == 0, result.err
    return out


def active(path: Path) -> dict[str, Item]:
    return {i.id: i for i in load_set(path).items}


def test_jsonl_round_trip_keeps_every_label(cli, tmp_path: Path, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "jsonl")
    result = cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format", "jsonl")
    assert result.code == 0, result.err
    assert f"added {len(TUNING | HOLDOUT)} item(s)" in result.out and "0 as drafts" in result.out
    imported = active(empty_set)
    for ident in TUNING | HOLDOUT:
        original = next(i for i in EXAMPLE.items if i.id == ident)
        assert item_content(imported[ident]) == item_content(original)
        assert imported[ident].tags == original.tags
        assert imported[ident].origin == kept_origin(original)
    assert "name: mine  # ours" in empty_set.read_text()

    # Importing the same rows again adds nothing, and says why.
    again = cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format", "jsonl")
    assert "added 0 item(s)" in again.out and f"skipped {len(imported)}" in again.out
    assert "  skipped q-001: the set has this item already" in again.out


def kept_origin(original: Item) -> Origin:
    """The origin an item exported and imported back has: its own, kind and traces kept;
    kind imported, dated the day of the import, for an item that had none."""
    return original.origin or Origin(kind="imported", date=dt.date.today())


# a trace an exported item was promoted from, and another record asking its question
PROMOTED_AGAIN = [
    {"question": "Hi, my kettle arrived cracked last week, can I return it?", "trace": "tr-5521"},
    {"question": "Will I be charged import duty on a delivery to Switzerland?", "trace": "tr-6120"},
]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "langsmith"])
def test_a_trace_promoted_before_a_round_trip_is_not_promoted_again(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, example_workspace: Path, fmt: str
) -> None:
    source = export_file(cli, tmp_path, fmt)
    assert cli(example_workspace, "import", str(source), "--set", "brought", "--format",
               fmt).code == 0  # fmt: skip
    failures = example_workspace / "failures.jsonl"
    failures.write_text("".join(json.dumps(r) + "\n" for r in PROMOTED_AGAIN))
    path = example_workspace / "sets" / "brought.yaml"
    before = path.read_bytes()
    result = cli(example_workspace, "promote", str(failures), "--set", "brought", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["added"], report["written"]) == ([], False)
    assert [s["reason"] for s in report["skipped"]] == [
        "trace already promoted as q-013", "trace already promoted as q-017"
    ]  # fmt: skip
    assert path.read_bytes() == before
    kinds = {i.id: i.origin.kind for i in load_set(path).items if i.origin}
    assert (kinds["q-013"], kinds["q-017"], kinds["q-001"]) == ("production", "production",
                                                                "imported")  # fmt: skip


def test_a_carried_origin_of_the_wrong_shape_is_refused(cli, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    rows = {
        "csv": ("question,origin\nWhy?,tr-1\n", "bad.txt:2: the row has a column 'origin' that "
                'is not a JSON object such as {"kind": "manual"}'),
        "langsmith": ('{"inputs": {"question": "Why?"}, "metadata": {"origin": "tr-1"}}\n',
                      'bad.txt:1: the row has metadata.origin "tr-1", not a JSON object'),
        "jsonl": ('{"question": "Why?", "origin": {"kind": "found"}}\n', "bad.txt:1: "
                  "origin.kind: text ('found') is not allowed; use one of 'production', "
                  "'manual', 'synthetic' or 'imported'; fix the row"),
    }  # fmt: skip
    before = empty_set.read_bytes()
    for fmt, (content, message) in rows.items():
        (empty_set.parents[1] / "bad.txt").write_text(content)
        result = cli(empty_set.parents[1], "import", "bad.txt", "--set", "mine", "--format", fmt)
        assert (result.code, message in result.err) == (2, True), (fmt, result.err)
        assert empty_set.read_bytes() == before


LABELS = ("question", "category", "answerable", "answer", "expected_sources", "key_points",
          "must_not_say", "tags", "holdout", "status", "verified")  # fmt: skip


@pytest.fixture
def example_workspace(tmp_path: Path) -> Path:
    """A workspace with the example's corpus and snapshots but no set."""
    import shutil

    from conftest import make_git_repo

    repo = make_git_repo(tmp_path / "other")
    for folder in ("corpus", "snapshots"):
        shutil.copytree(ROOT / folder, repo / folder)
    (repo / "sets").mkdir()
    (repo / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\n')
    return repo


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "langsmith"])
def test_round_trips_give_a_valid_set_equal_in_every_label(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, example_workspace: Path, fmt: str
) -> None:
    source = export_file(cli, tmp_path, fmt)
    result = cli(example_workspace, "import", str(source), "--set", "brought", "--format", fmt)
    assert result.code == 0, result.err
    path = example_workspace / "sets" / "brought.yaml"
    imported = active(path)
    assert set(imported) == TUNING | HOLDOUT
    for ident, item in imported.items():
        original = next(i for i in EXAMPLE.items if i.id == ident)
        assert {k: getattr(item, k) for k in LABELS} == {k: getattr(original, k) for k in LABELS}
        assert item.origin == kept_origin(original)
    loaded = load_set(path)
    assert loaded.header is not None and EXAMPLE.header is not None
    used = {i.category for i in EXAMPLE.items if i.id in TUNING | HOLDOUT}
    assert set(loaded.header.categories) == used
    if fmt != "csv":  # the meanings travel in the pin of JSONL rows and LangSmith metadata
        assert loaded.header.categories == EXAMPLE.header.categories
    report = json.loads(cli(example_workspace, "validate", "brought", "--json").out)
    assert report["errors"] == 0, report["findings"]
    # Same content, so the same item fingerprints: results compare item by item.
    ours, theirs = item_fingerprints(loaded), item_fingerprints(EXAMPLE)
    assert ours == {k: v for k, v in theirs.items() if k in ours}
    again = cli(example_workspace, "import", str(source), "--set", "brought", "--format", fmt)
    assert again.code == 0 and "added 0 item(s)" in again.out


# origins written by hand (kind manual, the default): kept by a round trip like any other
MANUAL = {"q-001": {"kind": "manual", "note": "written by Ann from the returns policy",
                    "date": "2025-03-04"},
          "q-002": {"kind": "manual"}}  # fmt: skip


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "langsmith"])
def test_a_manual_origin_survives_a_round_trip(cli, example: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    """Before, the exports left out the default kind, and an import read a row without one
    as another tool's: kind imported (dated today, for a bare origin)."""
    from evalset.sets.editor import edit_set

    path = example / "sets" / "acme-support.yaml"
    with edit_set(path) as editor:
        for ident, origin in MANUAL.items():
            editor.update_item(ident, {"origin": origin})
    out = example / f"export.{fmt}"
    assert cli(example, "export", "acme-support", "--allow-stale", "--format", fmt, "--split",
               "all", "-o", str(out)).code == 0  # fmt: skip
    done = cli(example, "import", str(out), "--set", "brought", "--format", fmt)
    assert done.code == 0, done.err
    brought = {i.id: i for i in load_set(example / "sets" / "brought.yaml").items}
    for ident, origin in MANUAL.items():
        assert brought[ident].origin is not None, ident
        assert brought[ident].origin.model_dump(mode="json", exclude_defaults=True) == {
            k: v for k, v in origin.items() if k != "kind"
        }, ident
        assert brought[ident].origin.kind == "manual", ident


def test_import_reports_an_id_with_other_content_and_skips_near_duplicates(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, example_workspace: Path
) -> None:
    source = export_file(cli, tmp_path, "jsonl")
    assert cli(example_workspace, "import", str(source), "--set", "brought", "--format",
               "jsonl").code == 0  # fmt: skip
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    q001 = next(r for r in rows if r["id"] == "q-001")
    changed = {**q001, "answer": "sixty days"}
    copy = {**q001, "id": "q-901", "question": q001["question"].replace("How long", "how long")}
    new = tmp_path / "more.jsonl"
    new.write_text(json.dumps(changed) + "\n" + json.dumps(copy) + "\n")
    path = example_workspace / "sets" / "brought.yaml"
    before = path.read_bytes()
    result = cli(example_workspace, "import", str(new), "--set", "brought", "--format", "jsonl")
    assert result.code == 1
    assert (
        "  conflict q-001: line 1: the set has q-001 with other content (answer); rename one of "
        "them or edit the set's item"
    ) in result.out
    assert "  skipped q-901: line 2: near duplicate of q-001's question" in result.out
    assert path.read_bytes() == before


def test_a_verified_snapshot_unknown_here_is_dropped(cli, tmp_path: Path, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "jsonl")
    result = cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format",
                 "jsonl", "--json")  # fmt: skip
    report = json.loads(result.out)
    assert sorted(report["unverified"]) == sorted(TUNING | HOLDOUT)
    assert all(item.verified is None for item in active(empty_set).values())


def test_langsmith_import_reads_tags_and_key_point_sources(
    cli, tmp_path: Path, empty_set: Path
) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "langsmith")
    assert cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format",
               "langsmith").code == 0  # fmt: skip
    q001 = active(empty_set)["q-001"]
    assert q001.tags == ["returns"]
    assert [str(s) for s in q001.key_points[0].sources] == ["policies/returns.md#damaged-items"]


def test_ragas_import_takes_ids_and_categories_over(cli, tmp_path: Path, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "ragas")
    result = cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format", "ragas",
                 "--json")  # fmt: skip
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert sorted(report["added"]) == sorted(TUNING | HOLDOUT)
    items = active(empty_set)
    original = {i.id: i for i in EXAMPLE.items}
    for ident, item in items.items():
        assert (item.category, item.holdout, item.answerable) == (
            original[ident].category,
            original[ident].holdout,
            original[ident].answerable,
        )
    # The key points come back as one sentence-joined point, to review.
    assert [p.text for p in items["q-001"].key_points] == [
        "Damaged or defective items can be returned within 30 days of delivery. "
        "A photo of the damage is required."
    ]
    validated = cli(empty_set.parents[1], "validate", "mine", "--json")
    assert json.loads(validated.out)["errors"] == 0, validated.out


def test_dry_run_imports_nothing(cli, tmp_path: Path, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "jsonl")
    before = empty_set.read_bytes()
    result = cli(empty_set.parents[1], "import", str(source), "--set", "mine", "--format", "jsonl",
                 "--dry-run")  # fmt: skip
    assert result.code == 0 and "would add" in result.out
    assert empty_set.read_bytes() == before


def test_import_says_written_only_when_it_wrote(cli, tmp_path: Path, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    """Before, `--json` said `"written": true` for an import that added nothing."""
    source = export_file(cli, tmp_path, "jsonl")
    root = empty_set.parents[1]
    first = cli(root, "import", str(source), "--set", "mine", "--format", "jsonl", "--json")
    assert json.loads(first.out)["written"] is True
    before = empty_set.read_bytes()
    again = cli(root, "import", str(source), "--set", "mine", "--format", "jsonl", "--json")
    assert json.loads(again.out)["written"] is False and empty_set.read_bytes() == before


@pytest.mark.parametrize(
    ("fmt", "content", "message"),
    [
        (
            "jsonl",
            '{"question": "ok?"}\n{"question": \n',
            "bad.txt:2:14: the row is not valid JSON",
        ),
        ("jsonl", '{"question": "ok?"}\n[1, 2]\n', "bad.txt:2: the row is not a JSON object"),
        ("jsonl", '{"question": "ok?"}\n{"id": "x"}\n', "bad.txt:2: the row has no question"),
        (
            "jsonl",
            '{"question": "ok?", "colour": "red"}\n',
            "bad.txt:1: the row has the key 'colour', which import does not read",
        ),
        ("ragas", '{"reference": "x"}\n', "bad.txt:1: the row has no user_input text"),
        ("langsmith", '{"outputs": {}}\n', "bad.txt:1: the row has no inputs object"),
        ("csv", "id,text\nq-1,hello\n", "bad.txt:1: the row (the header) has no 'question' column"),
        ("csv", 'question,tags\nWhy?,"not json"\n', "bad.txt:2: the row has a column 'tags'"),
        ("xml", "<a/>", "'xml' cannot be imported; use one of jsonl, csv, ragas, langsmith"),
    ],
)
def test_bad_import_files_change_nothing(  # type: ignore[no-untyped-def]
    cli, empty_set: Path, fmt: str, content: str, message: str
) -> None:
    bad = empty_set.parents[1] / "bad.txt"
    bad.write_text(content)
    before = empty_set.read_bytes()
    result = cli(empty_set.parents[1], "import", "bad.txt", "--set", "mine", "--format", fmt)
    assert result.code == 2, result.out
    assert message in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
    assert empty_set.read_bytes() == before


def test_import_of_a_missing_file(cli, empty_set: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli(empty_set.parents[1], "import", "nope.jsonl", "--set", "mine", "--format", "jsonl")
    assert result.code == 2 and "nope.jsonl: no such file; check the path." in result.err


def test_import_into_a_new_set(cli, tmp_path: Path, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "langsmith")
    result = cli(corpus_repo, "import", str(source), "--set", "brought", "--format",
                 "langsmith", "--json")  # fmt: skip
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["created"] is True and len(report["added"]) == len(TUNING | HOLDOUT)
    created = load_set(corpus_repo / "sets" / "brought.yaml")
    assert created.name == "brought" and not created.schema_findings
    used = list(dict.fromkeys(i.category for i in EXAMPLE.items if i.id in TUNING | HOLDOUT))
    assert created.header is not None and list(created.header.categories) == used
    assert cli(corpus_repo, "validate", "brought").code == 0
    # Importing again into what now exists adds nothing.
    again = json.loads(cli(corpus_repo, "import", str(source), "--set", "brought", "--format",
                           "langsmith", "--json").out)  # fmt: skip
    assert again["created"] is False and again["added"] == []


def test_import_dry_run_creates_no_set(cli, tmp_path: Path, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    source = export_file(cli, tmp_path, "jsonl")
    result = cli(corpus_repo, "import", str(source), "--set", "brought", "--format", "jsonl",
                 "--dry-run")  # fmt: skip
    assert result.code == 0, result.err and "a new set" in result.out
    assert not (corpus_repo / "sets" / "brought.yaml").exists()


# -- hostile targets and corpora --------------------------------------------------------------


def test_export_onto_a_folder_is_one_sentence_and_into_a_missing_one_makes_it(  # type: ignore[no-untyped-def]
    cli, example: Path
) -> None:
    """As the scoring commands' -o does, export -o makes the folders it writes in."""
    export = ("export", "acme-support", "--allow-stale", "--format", "jsonl", "-o")
    result = cli(example, *export, "sets")
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalset: sets: ")
    assert "is a folder; name a file to write instead." in lines[0]
    assert cli(example, *export, "missing/out.jsonl").code == 0
    assert (example / "missing" / "out.jsonl").read_text().count("\n") > 1


def test_corpus_text_is_never_read_through_a_link_that_leaves_the_corpus(example: Path) -> None:
    from evalset.corpus.revision import document_versions

    secret = example.parent / "secret.md"
    secret.write_text("# Secret\n\nthe text outside the workspace\n")
    (example / "corpus" / "leak.md").symlink_to(secret)
    (example / "corpus" / "inside.md").symlink_to(example / "corpus" / "policies" / "returns.md")
    (example / "corpus" / ".hidden.md").write_text("# Hidden\n\nnot a document\n")
    assert list(document_versions(example, "corpus", None, "leak.md", "rendered")) == []
    assert list(document_versions(example, "corpus", None, ".hidden.md", "rendered")) == []
    assert list(document_versions(example, "corpus", None, "policies/../leak.md", "rendered")) == []
    inside = list(document_versions(example, "corpus", None, "inside.md", "rendered"))
    assert len(inside) == 1  # a link that stays inside the corpus is read, as snapshot does


def test_export_refuses_an_invalid_set(cli, example: Path) -> None:  # type: ignore[no-untyped-def]
    path = example / "sets" / "acme-support.yaml"
    text = path.read_text()
    path.write_text(text.replace("    holdout: true\n", "    holdout: true\n    oops: 1\n", 1))
    result = cli(
        example, "export", "acme-support", "--allow-stale", "--split", "all", "--format", "jsonl"
    )
    assert result.code == 1 and result.out == ""
    assert result.err.startswith(
        "evalset: sets/acme-support.yaml: cannot export acme-support with 1 validation error(s)"
    )
    assert "unknown field 'oops'" in result.err and "`evalset validate acme-support`" in result.err


def test_the_readme_imports_print_what_the_readme_shows(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The README's import commands, in order on a fresh copy of the example with the files
    of examples/imports/, exit 0 and print every line the README shows; the one the README
    shows refused (a typo of the set's name) exits 2 with the sentence shown, and writes
    nothing."""
    import re
    import shutil

    shutil.copytree(ROOT / "examples", example / "examples")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### `evalset import`.*?```console\n(.*?)```", readme, re.S)
    assert block
    steps = [step.splitlines() for step in block[1].split("$ ")[1:]]
    assert len(steps) == 4
    for command, *shown in steps:
        args = command.split("  #")[0].split()
        assert args[:2] == ["evalset", "import"] and args[2].startswith("examples/imports/")
        result = cli(example, *args[1:])
        if shown[0].startswith("evalset: "):
            assert result.code == 2 and result.err.splitlines() == shown
        else:
            assert result.code == 0, result.err
            assert [line for line in shown if line not in result.out.splitlines()] == []
    assert (example / "sets" / "legacy.yaml").is_file()
    assert not (example / "sets" / "acme-suport.yaml").exists()


def test_an_imported_jsonl_row_is_not_cut_at_a_character_json_leaves_unescaped() -> None:
    """Exports write JSON with ensure_ascii=False, so a question holding U+2028, U+0085 or a
    form feed stands unescaped in its line: importing it reads one row (it was cut in two
    and refused as not JSON), so an export imports back."""
    from evalset.export.rows import json_lines

    rows = [{"question": f"a{c}b"} for c in ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"]]
    for newline in ("\n", "\r\n", "\r"):
        text = newline.join(json.dumps(r, ensure_ascii=False) for r in rows) + newline
        assert list(json_lines(text)) == list(enumerate(rows, 1))


def test_jsonl_files_joined_with_their_byte_order_marks_read_as_one(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`cat a.jsonl b.jsonl`, each saved by a tool that starts its files with a byte-order
    mark: the second mark stands at the start of a line in the middle. Every JSONL reader
    (import, promote, run files) reads the joined file as the two files (the line was refused
    as not JSON before, with Python's advice to decode it as utf-8-sig)."""

    def joined(lines: list[str], name: str) -> str:
        half = len(lines) // 2
        parts = ["".join(lines[:half]), "".join(lines[half:])]
        (example / name).write_bytes(b"".join(("\ufeff" + p).encode() for p in parts))
        return name

    asked = ["How long do refunds take?", "Can I return a used kettle?",
             "Do gift cards expire?", "Which carriers deliver on Sundays?"]  # fmt: skip
    rows = [json.dumps({"question": q}) + "\n" for q in asked]
    done = cli(example, "import", joined(rows, "rows.jsonl"), "--set", "mine", "--format",
               "jsonl", "--json")  # fmt: skip
    assert done.code == 0 and len(json.loads(done.out)["added"]) == 4, done.err
    records = (ROOT / "examples" / "failures.jsonl").read_text().splitlines(keepends=True)[:4]
    done = cli(example, "promote", joined(records, "failures.jsonl"), "--set", "acme-support",
               "--dry-run", "--json")  # fmt: skip
    assert done.code == 0 and not json.loads(done.out)["invalid"], done.err
    run = (ROOT / "examples/runs/acme-support-bm25.jsonl").read_text().splitlines(keepends=True)
    done = cli(example, "score", "retrieval", "acme-support", joined(run, "run.jsonl"),
               "--allow-stale", "--json")  # fmt: skip
    assert done.code == 0 and json.loads(done.out)["counts"]["invalid_lines"] == 0, done.err


BREAKS = {"NEL": "\x85", "LS": "\u2028", "PS": "\u2029"}
"""Line breaks to YAML 1.1 (ruamel.yaml's emitter), text to YAML 1.2 (the reader)."""


@pytest.mark.parametrize("where", ["inside", "at the end"])
@pytest.mark.parametrize("char", BREAKS, ids=list(BREAKS))
def test_text_holding_a_yaml_1_1_line_break_is_written_as_it_is(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, empty_set: Path, char: str, where: str
) -> None:
    """Before, import and promote wrote such text broken and indented, so it read back with
    spaces added (NEL: replaced by a space), and importing it again found conflicts; the
    promptfoo export did the same."""
    c = BREAKS[char]

    def text(words: str) -> str:
        return f"{words}{c} and more" if where == "inside" else f"{words}{c}"

    row = {"id": "q-1", "question": text("Can I return a kettle?"), "category": "direct-lookup",
           "answer": text("Within 30 days"), "key_points": [{"text": text("30 days")}]}  # fmt: skip
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    root = empty_set.parents[1]
    assert cli(root, "import", str(source), "--set", "mine", "--format", "jsonl").code == 0
    (item,) = load_set(empty_set).items
    assert (item.question, item.answer, item.key_points[0].text) == (
        row["question"], row["answer"], row["key_points"][0]["text"],
    )  # fmt: skip
    again = cli(root, "import", str(source), "--set", "mine", "--format", "jsonl")
    assert again.code == 0 and "the set has this item already" in again.out, again.out

    record = {"question": text("Do you ship to Iceland?"), "trace": "tr-1", "answer": "No."}
    failures = tmp_path / "failures.jsonl"
    failures.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert cli(root, "promote", str(failures), "--set", "mine").code == 0
    drafts = [i for i in load_set(empty_set).items if i.id != "q-1"]
    assert [d.question for d in drafts] == [record["question"]]

    from ruamel.yaml import YAML

    from evalset.export.promptfoo import write
    from evalset.export.view import View

    view = View("mine", "all", [item], {"fingerprint": "sha256:x"}, lambda *_: None)
    (test,) = YAML(typ="safe", pure=True).load(write(view))  # promptfoo reads YAML 1.2 too
    assert test["vars"]["question"] == row["question"]


@pytest.mark.parametrize("fmt", ["ragas", "deepeval"])
@pytest.mark.parametrize("case", ["outside a workspace", "text stored nowhere"])
def test_contexts_whose_text_is_not_known_are_named(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, tmp_path: Path, fmt: str, case: str
) -> None:
    """Before, such contexts went out empty ("" for Ragas, none for DeepEval) with exit 0 and
    no word, and a stale item among them was said to carry the text it was verified against."""
    (corpus_repo / "evalset.toml").write_text(
        "store_text = false\n[validate]\nmin_per_category = 0\n"
    )
    write_files(corpus_repo, {"corpus/a.md": "# A\n\n## Sec one\n\nAlpha text one.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    row = {"id": "x-1", "question": "What is alpha?", "category": "direct-lookup",
           "split": "tuning", "expected_sources": ["a.md#sec-one"],
           "key_points": [{"text": "Alpha text one", "sources": ["a.md#sec-one"]}]}  # fmt: skip
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    header = "evalset: 1\nname: s\ncategories:\n  direct-lookup: a fact\nitems: []\n"
    (corpus_repo / "sets" / "s.yaml").write_text(header)
    assert cli(corpus_repo, "import", str(source), "--set", "s", "--format", "jsonl").code == 0
    assert cli(corpus_repo, "verify", "s", "--all").code == 0
    if case == "outside a workspace":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        shutil.copy(corpus_repo / "sets" / "s.yaml", elsewhere / "s.yaml")
        where, target = elsewhere, "s.yaml"
    else:  # edited and snapshotted, never committed: its old text is nowhere
        write_files(corpus_repo, {"corpus/a.md": "# A\n\n## Sec one\n\nAlpha text CHANGED.\n"})
        assert cli(corpus_repo, "snapshot").code == 0
        where, target = corpus_repo, "s"
    done = cli(where, "export", target, "--format", fmt, "--allow-stale")
    assert done.code == 0, done.err
    assert "1 item(s) exported with empty contexts" in done.err and "x-1 (a.md#sec-one)" in done.err
    assert "exported with the text they were verified against" not in done.err


@pytest.mark.parametrize(
    "text",
    ["first line\rsecond part", "ends with CR\r", "a\r\nb\rc\nd",
     "next\x85line", "line\u2028separator", "paragraph\u2029separator"],
)  # fmt: skip
def test_a_carriage_return_in_a_text_survives_a_csv_round_trip(  # type: ignore[no-untyped-def]
    cli, empty_set: Path, text: str
) -> None:
    """csv quotes a cell holding the line terminator's characters only: with "\\n" as the
    terminator, a bare "\\r" was written unquoted, and the export could not be read back
    (the row split where it stood, as a spreadsheet splits it). The other line breaks of
    Python's `splitlines` are quoted too, as the README says of a line break of any kind."""
    root = empty_set.parents[1]
    empty_set.write_text(empty_set.read_text().replace("items: []\n", "items:\n") + (
        "  - id: q-1\n    question: " + json.dumps(text) + "\n    category: direct-lookup\n"
        "    answerable: false\n    holdout: false\n"
    ))  # fmt: skip
    assert load_set(empty_set).items[0].question == text
    done = cli(root, "export", "mine", "--format", "csv", "-o", "out.csv", "--allow-stale")
    assert done.code == 0, done.err
    assert f'"{text}"'.encode() in (root / "out.csv").read_bytes()  # quoted
    back = cli(root, "import", "out.csv", "--set", "again", "--create", "--format", "csv")
    assert back.code == 0, back.err
    assert load_set(root / "sets" / "again.yaml").items[0].question == text


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "langsmith"])
def test_an_unanswerable_item_with_a_short_answer_round_trips(  # type: ignore[no-untyped-def]
    cli, empty_set: Path, fmt: str
) -> None:
    """Before, the LangSmith reader made the short answer of an item with no key points a
    key point, which an `answerable: false` item may not have: its own export was refused."""
    root = empty_set.parents[1]
    empty_set.write_text(empty_set.read_text().replace("items: []\n", "items:\n") + (
        "  - id: q-out\n    question: Do you sell garden furniture?\n"
        "    category: direct-lookup\n    answerable: false\n    answer: 'no'\n"
        "    holdout: false\n"
    ))  # fmt: skip
    done = cli(root, "export", "mine", "--format", fmt, "-o", f"out.{fmt}", "--allow-stale")
    assert done.code == 0, done.err
    back = cli(root, "import", f"out.{fmt}", "--set", "again", "--create", "--format", fmt)
    assert back.code == 0, back.err
    (item,) = load_set(root / "sets" / "again.yaml").items
    assert (item.answerable, item.answer, item.key_points) == (False, "no", [])


def test_csv_citations_hold_the_text_as_it_is_and_escaped_ones_still_import(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path
) -> None:
    """Before, the citation columns alone escaped what is not ASCII (`r\\u00fcckgabe.md`);
    files written so still import, with the same item."""
    write_files(
        corpus_repo, {"corpus/rückgabe.md": "# Rückgabe\n\n## Schäden\n\nBinnen 30 Tagen.\n"}
    )
    assert cli(corpus_repo, "snapshot").code == 0
    snapshot = next((corpus_repo / "snapshots").glob("*.json")).name[:12]
    item = set_item("q-1", "rückgabe.md#schäden", verified=snapshot)
    write_files(corpus_repo, {"sets/docs.yaml": SET_HEADER + item + "    holdout: false\n"})
    commit_all(corpus_repo, "set")
    done = cli(corpus_repo, "export", "docs", "--format", "csv")
    assert done.code == 0, done.err
    (row,) = csv.DictReader(io.StringIO(done.out))
    assert row["expected_sources"] == '["rückgabe.md#schäden"]'
    assert row["key_point_sources"] == '[["rückgabe.md#schäden"]]'
    assert "\\u" not in done.out
    for name, text in (
        ("now", done.out),
        ("before", done.out.replace("ü", "\\u00fc").replace("ä", "\\u00e4")),
    ):
        source = corpus_repo.parent / f"{name}.csv"
        source.write_text(text, encoding="utf-8")
        back = cli(corpus_repo, "import", str(source), "--set", "docs", "--format", "csv", "--json")
        assert back.code == 0, back.err
        assert json.loads(back.out)["skipped"] == {"q-1": "the set has this item already"}, name


SENTENCES = [
    ("Open 9 to 5", "Open 9 to 5."),
    ("Open 9 to 5.", "Open 9 to 5."),
    ("Is the shop open at 9?", "Is the shop open at 9?"),
    ("Yes!", "Yes!"),
    ("Opening hours vary...", "Opening hours vary..."),
    ("Opening hours vary…", "Opening hours vary…"),
    ('The sign says "Open 9 to 5."', 'The sign says "Open 9 to 5."'),
    ("Returns are free (with a label.)", "Returns are free (with a label.)"),
    ('The sign says "Open"', 'The sign says "Open".'),
    ("The steps are:", "The steps are."),
    ("営業時間は9時から。", "営業時間は9時から。"),
]
"""Key points and the sentence each is in a reference: as it is when it ends as a sentence
does. Before, trailing full stops were stripped and one added: `Yes!.`, `vary.`."""


def test_references_keep_the_key_points_punctuation(cli, example: Path) -> None:  # type: ignore[no-untyped-def]
    from evalset.sets.editor import edit_set

    path = example / "sets" / "acme-support.yaml"
    item = next(i for i in load_set(path).items if i.holdout is False and i.status == "active"
                and i.answerable)  # fmt: skip
    sources = [str(c) for c in item.key_points[0].sources]
    with edit_set(path) as editor:
        editor.update_item(item.id, {
            "key_points": [{"text": text, "sources": sources} for text, _ in SENTENCES]
        })  # fmt: skip
    expected = " ".join(sentence for _, sentence in SENTENCES)
    ragas = cli(example, "export", "acme-support", "--format", "ragas", "--allow-stale")
    assert ragas.code == 0, ragas.err
    row = next(r for r in map(json.loads, ragas.out.splitlines()) if r["evalset_id"] == item.id)
    assert row["reference"] == expected
    deepeval = cli(example, "export", "acme-support", "--format", "deepeval", "--allow-stale")
    assert deepeval.code == 0, deepeval.err
    golden = next(g for g in json.loads(deepeval.out)
                  if g["additional_metadata"]["evalset_id"] == item.id)  # fmt: skip
    assert golden["expected_output"] == expected


ESCAPED = {"tab": "\t", "CR": "\r", "SOH": "\x01", "NEL": "\x85", "LS": "\u2028",
           "BOM": "\ufeff"}  # fmt: skip
"""Characters a double-quoted YAML text holds escaped: ``\\t``, ``\\r``, ``\\x01``, ``\\N``,
``\\L``, ``\\uFEFF``."""
FOLDS = (*range(4055, 4095), *range(8145, 8190))
"""Where in a text an escape falls near the 4096th column (a value's key, indentation and
prefix, ``States that:``, come before it), and near the 8192nd, where a writer folding at
4096 folded again."""
LONGER = {4060: 5_000, 4070: 6_000, 4080: 7_000, 4090: 9_000, 8160: 10_000}
"""The lengths of some of the texts (the others end soon after the escape)."""


def long_texts(char: str) -> list[str]:
    """Texts of 4,000 to 10,000 characters with ``char`` at each place of ``FOLDS``, after
    words, and for one text in four after a run without spaces (the writer cannot fold
    before it). Before, where the writer folded right after the escape it wrote a bare line
    break, which every reader takes for a space."""
    texts = []
    for at in FOLDS:
        run = "w" * at if at % 4 == 0 else ("word " * at)[:at]
        size = LONGER.get(at, at + 20)
        texts.append(f"{run}{char}returns and more{' words' * 1000}"[:size])
    return texts


FIELDS = ("key point", "must_not_say", "answer")


def long_text_tests(texts: list[str]) -> str:
    """A promptfoo tests file with each of ``texts`` as an item's question (and so in its
    description) and, in turn, its key point, must_not_say or answer."""
    from evalset.export.promptfoo import write
    from evalset.export.view import View

    items = []
    for n, text in enumerate(texts):
        other = [text if FIELDS[n % 3] == field else field for field in FIELDS]
        items.append(Item(id=f"q-{n}", question=text, category="c",
                          key_points=[{"text": other[0]}], must_not_say=[other[1]],
                          answer=other[2]))  # fmt: skip
    return write(View("mine", "all", items, {"fingerprint": "sha256:x"}, lambda *_: None))


def changed_texts(texts: list[str], tests: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Where the tests of ``long_text_tests`` as read back do not hold ``texts``: the text's
    index and the field."""
    changed = []
    for n, (text, test) in enumerate(zip(texts, tests, strict=True)):
        value = test["assert"][n % 3]["value"]
        field = value.removeprefix("States that: ").removeprefix("Does not state that: ")
        got = {"question": test["vars"]["question"], FIELDS[n % 3]: field,
               "description": test["description"].removeprefix(f"q-{n}: ")}  # fmt: skip
        changed += [(n, where) for where, found in got.items() if found != text]
    return changed


def test_long_texts_cover_the_lengths() -> None:
    assert {len(t) // 1000 for t in long_texts("\t")} == set(range(4, 11))


@pytest.mark.parametrize("char", ESCAPED.values(), ids=list(ESCAPED))
def test_a_long_text_with_an_escape_where_a_line_would_fold_reads_back_as_it_is(
    char: str,
) -> None:
    texts = long_texts(char)
    written = long_text_tests(texts)
    assert changed_texts(texts, YAML(typ="safe", pure=True).load(written)) == []
    lines = written.splitlines()[1:]  # no value folded over lines: each starts with its key
    assert all(re.match(r" *(- )?[a-z_]+:", line) for line in lines)


OUTER = {
    "block scalar": "|\n      30 days\n",
    "block scalar keeping breaks": "|+\n      30 days\n\n",
    "spaces": "'  30 days '",
    "tab and CRLF": '"\\t30 days\\r\\n"',
    "no-break spaces": '"\\u00a030 days\\u3000"',
    "line separator": '"30 days\\u2028"',
}
"""A short answer ``30 days`` written with white space around it, as the set file holds it."""


@pytest.mark.parametrize("written", OUTER.values(), ids=list(OUTER))
def test_a_short_answer_is_checked_without_the_white_space_around_it(  # type: ignore[no-untyped-def]
    cli, example: Path, written: str
) -> None:
    """promptfoo's ``icontains`` and OpenAI Evals' ``ideal`` (``Match``, ``Includes``) compare
    the answer literally: they get it without the white space around it, which the exact judge
    ignores too, so the two agree. Before, ``answer: |`` gave ``icontains "30 days\\n"``,
    which failed an answer the judge accepted. The formats that carry the item for a round
    trip (JSONL, CSV, LangSmith) keep the answer as the set holds it."""
    from evalset.score.normalise import contains

    path = example / "sets" / "acme-support.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    answer: 30 days\n", f"    answer: {written}\n", 1), "utf-8")
    answer = active(path)["q-001"].answer
    assert answer is not None and answer != "30 days" and answer.strip() == "30 days"
    said = "You can return it within 30 days of delivery."
    assert contains(said, answer)  # what `evalset score answers --judge exact` checks

    def export(fmt: str) -> str:
        done = cli(example, "export", "acme-support", "--format", fmt, "--allow-stale")
        assert done.code == 0, done.err
        out: str = done.out
        return out

    tests = YAML(typ="safe", pure=True).load(export("promptfoo"))
    (test,) = [t for t in tests if t["metadata"]["evalset_id"] == "q-001"]
    (icontains,) = [a["value"] for a in test["assert"] if a["type"] == "icontains"]
    assert icontains == "30 days" and icontains.lower() in said.lower()
    samples = [json.loads(line) for line in export("openai").split("\n") if line]
    (sample,) = [s for s in samples if s["metadata"]["evalset_id"] == "q-001"]
    assert sample["ideal"] == "30 days" and said.rfind(sample["ideal"]) != -1
    carried = [json.loads(line) for line in export("langsmith").split("\n") if line]
    (example_row,) = [e for e in carried if e["metadata"]["evalset_id"] == "q-001"]
    assert example_row["reference_outputs"]["answer"] == answer
    rows = [json.loads(line) for line in export("jsonl").split("\n") if line]
    assert next(r for r in rows if r["id"] == "q-001")["answer"] == answer


def test_the_readme_reads_a_ragas_export_with_its_ids_as_written(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path
) -> None:
    """The README's way to read a Ragas export for joining per item. Before, it said
    `pandas.read_json(path, lines=True)`, which reads the ids `001`, `002` as 1 and 2, and a
    category `10` as 10: they joined with no item of the set."""
    pandas = pytest.importorskip("pandas")
    said = re.search(r"`(pandas\.read_json\(path, lines=True[^`]*\))`", ROOT.joinpath(
        "README.md").read_text(encoding="utf-8"))  # fmt: skip
    assert said, "the README no longer says how to read a Ragas export with pandas"
    path = example / "sets" / "acme-support.yaml"
    numbers = itertools.count(1)  # ids and categories of digits only, as a spreadsheet has
    text = re.sub(r"(?m)^  - id: .*$", lambda _: f"  - id: '{next(numbers):03d}'",
                  path.read_text(encoding="utf-8"))  # fmt: skip
    for n, category in enumerate(EXAMPLE.raw["categories"], 10):
        text = re.sub(rf"\b{category}\b", f"'{n}'", text)
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "tuning.jsonl"
    done = cli(example, "export", "acme-support", "--format", "ragas", "--allow-stale",
               "-o", str(out))  # fmt: skip
    assert done.code == 0, done.err
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line]
    assert {"001", "002"} <= {row["evalset_id"] for row in written}
    table = eval(said.group(1), {"pandas": pandas, "path": out})  # the README's own words
    for key in ("evalset_id", "category"):
        assert table[key].tolist() == [row[key] for row in written]
