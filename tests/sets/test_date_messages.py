"""A date that is not one, wherever a date is read: the set file's ``origin.date`` and
``holdout_moves[].date``, an imported row's, a promoted record's. Before, pydantic's own words
came through ("input should be a valid date or datetime, month value is outside expected range
of 1-12"), naming neither the form a date takes nor the fix, and an imported row named its
field ``holdout_moves.0.date`` where `validate` says ``holdout_moves[0].date``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SET = "sets/acme-support.yaml"
# a date as written -> why it is not one
NOT_DATES = {
    "2024-13-01": "'2024-13-01' is not a date: month must be in 1..12",
    "2024-02-30": "'2024-02-30' is not a date: day is out of range for month",
    "2024-00-10": "'2024-00-10' is not a date: month must be in 1..12",
    "yesterday": "'yesterday' is not a date",
    "2024-1-1": "'2024-1-1' is not a date",
    "28.11.2026": "'28.11.2026' is not a date",
    "": "'' is not a date",
}


def _item(date: str, where: str) -> str:
    field = (
        f"    origin: {{kind: production, date: {json.dumps(date)}}}\n"
        if where == "origin"
        else f"    holdout_moves: [{{to: tuning, date: {json.dumps(date)}}}]\n"
    )
    return (
        "  - id: q-900\n    question: Can I return a kettle I used once?\n"
        "    category: paraphrased\n    expected_sources: [policies/returns.md]\n"
        f"{field}    status: draft\n"
    )


@pytest.mark.parametrize("where", ["origin", "holdout_moves"])
@pytest.mark.parametrize("written", list(NOT_DATES))
def test_validate_says_why_a_date_in_the_set_file_is_not_one(  # type: ignore[no-untyped-def]
    example: Path, cli, written: str, where: str
) -> None:
    path = example / SET
    path.write_text(path.read_text() + _item(written, where))
    done = cli(example, "validate", "acme-support", "--json")
    field = "origin.date" if where == "origin" else "holdout_moves[0].date"
    found = [f for f in json.loads(done.out)["findings"] if f["severity"] == "error"]
    assert [(f["item"], f["field"], f["message"], f["hint"]) for f in found] == [
        ("q-900", field, NOT_DATES[written], "write it as YYYY-MM-DD")
    ]


def test_a_holdout_items_date_is_not_quoted(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A holdout item's origin is not quoted in findings, which CI logs show to the people
    tuning prompts; its date is no exception."""
    path = example / SET
    path.write_text(path.read_text() + _item("2024-13-01", "origin") + "    holdout: true\n")
    done = cli(example, "validate", "acme-support", "--json")
    (found,) = [f for f in json.loads(done.out)["findings"] if f["severity"] == "error"]
    assert (found["message"], found["hint"]) == (
        "text (a holdout item: not shown) is not a date",
        "write it as YYYY-MM-DD",
    )


@pytest.mark.parametrize("where", ["origin", "holdout_moves"])
@pytest.mark.parametrize("written", list(NOT_DATES))
def test_import_says_why_a_rows_date_is_not_one(  # type: ignore[no-untyped-def]
    example: Path, cli, written: str, where: str
) -> None:
    row = {"id": "q-900", "question": "Can I return a kettle I used once?",
           "category": "paraphrased", "expected_sources": ["policies/returns.md"]}  # fmt: skip
    if where == "origin":
        row["origin"] = {"kind": "production", "date": written}
        field = "origin.date"
    else:
        row["holdout_moves"] = [{"to": "tuning", "date": written}]
        field = "holdout_moves[0].date"
    (example / "rows.jsonl").write_text(json.dumps(row) + "\n")
    before = (example / SET).read_bytes()
    done = cli(example, "import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl")
    assert (done.code, done.err) == (2, (
        f"evalset: rows.jsonl:1: {field}: {NOT_DATES[written]}; write it as YYYY-MM-DD; fix the "
        "row, nothing was imported.\n"
    ))  # fmt: skip
    assert (example / SET).read_bytes() == before


@pytest.mark.parametrize("written", list(NOT_DATES))
def test_promote_says_why_a_records_date_is_not_one(  # type: ignore[no-untyped-def]
    example: Path, cli, written: str
) -> None:
    record = {"question": "Can I return a kettle I used once?", "trace": "t-9", "date": written}
    (example / "records.jsonl").write_text(json.dumps(record) + "\n")
    before = (example / SET).read_bytes()
    done = cli(example, "promote", "records.jsonl", "--set", "acme-support")
    assert (done.code, done.err) == (2, (
        f"evalset: records.jsonl:1: the record date: {NOT_DATES[written]}; write YYYY-MM-DD, an "
        "ISO timestamp (2026-11-30T14:02:11Z), or the time in seconds or milliseconds since "
        "1970. Nothing was promoted: fix the records: none is valid, so leaving them out "
        "(--skip-invalid) would leave nothing.\n"
    ))  # fmt: skip
    assert (example / SET).read_bytes() == before
