"""Rows that break a rule `validate` holds items to, beyond their own shape: a category the
set does not declare, key points or expected sources on an unanswerable item, a must_not_say
that is also a key point. Before, `--dry-run` said it would add them (exit 0) and the import
itself was refused naming a line of the set file it never wrote, not the row. Both now name
the row, exit 2, and write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems: []\n"
ROW = {"id": "r-1", "question": "How long is the return window for a kettle?",
       "category": "direct-lookup", "expected_sources": ["d.md"],
       "key_points": [{"text": "30 days", "sources": ["d.md"]}], "holdout": False}  # fmt: skip
BROKEN = {
    "an undeclared category": (
        {"category": "lookup"},
        "category: category 'lookup' is not declared in the set's categories (did you mean "
        "'direct-lookup'?)",
    ),
    "key points on an unanswerable item": (
        {"answerable": False, "expected_sources": []},
        "key_points: an item with `answerable: false` carries no key points (it is scored by "
        "whether the system declines; remove them)",
    ),
    "expected sources on an unanswerable item": (
        {"answerable": False, "key_points": []},
        "expected_sources: an item with `answerable: false` carries no expected sources (it is "
        "scored by whether the system declines; remove them)",
    ),
    "a must_not_say that is a key point": (
        {"must_not_say": ["30 Days"]},
        "must_not_say[0]: the same statement is also a key point, so no answer can pass "
        "(remove it from one of the two lists)",
    ),
}


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry run", "run"])
@pytest.mark.parametrize("broken", BROKEN)
def test_a_row_breaking_an_item_rule_is_refused_naming_the_row(  # type: ignore[no-untyped-def]
    cli, one_doc_repo: Path, broken: str, dry_run: bool
) -> None:
    changes, said = BROKEN[broken]
    path = one_doc_repo / "sets" / "s.yaml"
    path.write_text(HEADER)
    good = {**ROW, "id": "r-0", "question": "Do you ship kettles to Iceland?"}
    rows = [good, {**ROW, **changes}]
    (one_doc_repo / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["import", "rows.jsonl", "--set", "s", "--format", "jsonl"]
    done = cli(one_doc_repo, *args, *(["--dry-run"] if dry_run else []))
    assert (done.code, done.out) == (2, "")
    assert done.err == f"evalset: rows.jsonl:2: {said}; fix the row, nothing was imported.\n"
    assert path.read_text() == HEADER


def test_a_new_set_declares_the_categories_its_rows_use(cli, one_doc_repo: Path) -> None:  # type: ignore[no-untyped-def]
    (one_doc_repo / "rows.jsonl").write_text(json.dumps({**ROW, "category": "lookup"}) + "\n")
    done = cli(one_doc_repo, "import", "rows.jsonl", "--set", "fresh", "--format", "jsonl")
    assert done.code == 0, done.err
    assert cli(one_doc_repo, "validate", "fresh").code == 0
