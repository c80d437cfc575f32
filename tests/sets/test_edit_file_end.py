"""A file whose last line has no line break ends so after an edit that appends items to it
(new, promote, import), as after one that edits its last item.

Before, the appended items ended with a line break, and so did the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit_all, write_files
from evalset.sets.setfile import load_set

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\n"
ITEM = (
    "  - id: q-001\n    question: How long do I have to return a damaged item\n"
    "    category: direct-lookup\n    expected_sources: [d.md]\n    key_points:\n"
    "      - text: The document\n        sources: [d.md]"
)
FILES = {
    "items, LF": HEADER + "items:\n" + ITEM,
    "items, CRLF": (HEADER + "items:\n" + ITEM).replace("\n", "\r\n"),
    "items with a comment last": HEADER + "items:\n" + ITEM + "\n    # checked",
    "no items": HEADER + "items: []",
}
ROW = {
    "question": "Do you ship parcels to Iceland",
    "category": "direct-lookup",
    "expected_sources": ["d.md"],
    "key_points": [{"text": "Parcels go to Iceland", "sources": ["d.md"]}],
}
EDITS = {
    "new": ("new", "s", "--question", "Do you ship parcels to Iceland"),
    "promote": ("promote", "record.jsonl", "--set", "s"),
    "import": ("import", "in.jsonl", "--set", "s", "--format", "jsonl"),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("layout", FILES)
def test_items_appended_to_a_file_without_a_last_line_break_end_without_one(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, edit: str
) -> None:
    before = FILES[layout]
    record = {"question": ROW["question"], "trace": "tr-1"}
    write_files(one_doc_repo, {"sets/s.yaml": before.encode(), "in.jsonl": json.dumps(ROW)})
    write_files(one_doc_repo, {"record.jsonl": json.dumps(record)})
    commit_all(one_doc_repo, "set")
    done = cli(one_doc_repo, *EDITS[edit])
    assert done.code == 0, done.err
    after = (one_doc_repo / "sets" / "s.yaml").read_bytes().decode()
    assert not after.endswith("\n")
    kept = before.removesuffix("items: []")
    assert after.startswith(kept)
    assert [i.question for i in load_set(one_doc_repo / "sets" / "s.yaml").items][-1] == (
        ROW["question"]
    )


def test_an_appended_text_that_keeps_its_last_line_breaks_keeps_them(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli
) -> None:
    write_files(one_doc_repo, {"sets/s.yaml": FILES["items, LF"]})
    write_files(one_doc_repo, {"in.jsonl": json.dumps({**ROW, "answer": "to Reykjavik\n\n"})})
    commit_all(one_doc_repo, "set")
    done = cli(one_doc_repo, "import", "in.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    assert load_set(one_doc_repo / "sets" / "s.yaml").items[-1].answer == "to Reykjavik\n\n"
