"""A row with no id of its own asks what an item of the set (or an earlier row) asks, in
another case or spacing. Its id is the hash of the question, case and spacing ignored, so it
got the item's id and was reported as a conflict, "rename one of them" (exit 1), for a row
that has no id to rename, while a less alike row was skipped as a near duplicate (exit 0).
It is skipped as the near duplicate it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalset.intake.importer import question_id
from evalset.sets.setfile import load_set

ASKED = "Do you ship parcels to Norway and Iceland?"
FIRST = question_id(ASKED)

# (file name, content): rows without an id, asking ASKED again
AGAIN = {
    "lower-case-csv": ("rows.csv", f"question\n{ASKED.lower()}\n"),
    "upper-case-jsonl": ("rows.jsonl", json.dumps({"question": ASKED.upper()}) + "\n"),
    "spacing": ("rows.jsonl", json.dumps({"question": "  Do you ship parcels\tto Norway  and "
                                                      "Iceland?\n"}) + "\n"),
    "other-labels": ("rows.jsonl", json.dumps({"question": ASKED.lower(), "category": "shipping",
                                               "must_not_say": ["We do not ship abroad"]}) + "\n"),
    "invalid-id": ("rows.jsonl", json.dumps({"id": "not an id", "question": ASKED.lower()}) + "\n"),
    "langsmith": ("rows.langsmith", json.dumps({"inputs": {"question": ASKED.lower()},
                                                "outputs": {"answer": "yes"}}) + "\n"),
}  # fmt: skip
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".langsmith": "langsmith"}


@pytest.mark.parametrize(("name", "content"), AGAIN.values(), ids=AGAIN.keys())
def test_a_row_without_an_id_asking_an_items_question_again_is_a_near_duplicate(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, name: str, content: str
) -> None:
    (corpus_repo / "first.jsonl").write_text(json.dumps({"question": ASKED}) + "\n")
    assert cli(corpus_repo, "import", "first.jsonl", "--set", "s", "--format", "jsonl").code == 0
    before = (corpus_repo / "sets" / "s.yaml").read_bytes()
    (corpus_repo / name).write_text(content)
    fmt = FORMATS[Path(name).suffix]
    done = cli(corpus_repo, "import", name, "--set", "s", "--format", fmt)
    assert done.code == 0, done.out
    assert done.out == (f"added 0 item(s) to sets/s.yaml (0 as drafts to review); skipped 1\n"
                        f"  skipped {FIRST}: line {2 if fmt == 'csv' else 1}: near duplicate of "
                        f"{FIRST}'s question\n")  # fmt: skip
    assert (corpus_repo / "sets" / "s.yaml").read_bytes() == before


def test_two_rows_without_an_id_asking_alike_are_one_item(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    rows = [{"question": ASKED}, {"question": ASKED.lower(), "category": "shipping"}]
    (corpus_repo / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl", "--json")
    assert done.code == 0, done.out
    report = json.loads(done.out)
    assert (report["added"], report["skipped"], report["conflicts"]) == (
        [FIRST], {FIRST: f"line 2: near duplicate of {FIRST}'s question"}, {}
    )  # fmt: skip
    assert [i.question for i in load_set(corpus_repo / "sets" / "s.yaml").items] == [ASKED]


def test_a_row_with_the_items_id_and_its_question_respelt_is_still_a_conflict(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path
) -> None:
    """The row names the item: its question was edited, which the set's item is not."""
    (corpus_repo / "first.jsonl").write_text(json.dumps({"question": ASKED}) + "\n")
    assert cli(corpus_repo, "import", "first.jsonl", "--set", "s", "--format", "jsonl").code == 0
    (corpus_repo / "rows.jsonl").write_text(json.dumps({"id": FIRST, "question": ASKED.lower()}))
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 1, done.out
    assert f"conflict {FIRST}: line 1: the set has {FIRST} with other content (question)" in (
        done.out
    )
