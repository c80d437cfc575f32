"""A file whose last line has no line break ends so after an edit that appends items to it
(new, promote, import), as after one that edits its last item, and so does a file an edit
writes again whole (items in a flow list).

Before, the appended items ended with a line break, and so did the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml as pyyaml
from ruamel.yaml import YAML

from conftest import commit_all, write_files
from evalset.sets.setfile import load_set
from evalset.sets.yamlio import parse_yaml

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
    "items as a flow list": HEADER + "items: [{id: q-001, question: How long do I have to "
    "return a damaged item, category: direct-lookup, expected_sources: [d.md], key_points: "
    "[{text: The document, sources: [d.md]}]}]",
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


def appended(repo: Path, cli, before: str, edit: str) -> str:  # type: ignore[no-untyped-def]
    """The set file ``before``, committed, after ``ROW`` is added to it by the command of
    ``EDITS[edit]``."""
    record = {"question": ROW["question"], "trace": "tr-1"}
    write_files(repo, {"sets/s.yaml": before.encode(), "in.jsonl": json.dumps(ROW)})
    write_files(repo, {"record.jsonl": json.dumps(record)})
    commit_all(repo, "set")
    done = cli(repo, *EDITS[edit])
    assert done.code == 0, done.err
    return (repo / "sets" / "s.yaml").read_bytes().decode()


def readings(text: str) -> list[Any]:
    """``text`` as ruamel.yaml, yaml-rs (evalset's reader) and PyYAML read it."""
    return [
        YAML(typ="rt", pure=True).load(text),
        parse_yaml(text, Path("s.yaml")),
        pyyaml.safe_load(text),
    ]


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("layout", FILES)
def test_items_appended_to_a_file_without_a_last_line_break_end_without_one(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, edit: str
) -> None:
    before = FILES[layout]
    after = appended(one_doc_repo, cli, before, edit)
    assert not after.endswith("\n")
    kept = before.removesuffix("items: []")
    if "flow list" not in layout:  # the file written again whole
        assert after.startswith(kept)
    assert [i.question for i in load_set(one_doc_repo / "sets" / "s.yaml").items][-1] == (
        ROW["question"]
    )


NOTES = {
    "a text of two lines": "Should have offered an exchange.\nThe customer asked twice.",
    "a text ending in a line break": "Should have offered an exchange.\n",
    "a text ending in two line breaks": "Should have offered an exchange.\n\n",
}


@pytest.mark.parametrize("layout", ["items, LF", "items, CRLF", "no items"])
@pytest.mark.parametrize("note", NOTES)
def test_a_last_text_of_several_lines_keeps_the_line_break_every_reader_needs(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, note: str, layout: str
) -> None:
    """A ``|`` text that ends a file without a line break is read with one by yaml-rs and
    without by ruamel.yaml and PyYAML: the file then ends with the line break."""
    record = {"question": ROW["question"], "trace": "tr-1", "note": NOTES[note]}
    write_files(one_doc_repo, {"sets/s.yaml": FILES[layout].encode()})
    write_files(one_doc_repo, {"record.jsonl": json.dumps(record)})
    commit_all(one_doc_repo, "set")
    done = cli(one_doc_repo, "promote", "record.jsonl", "--set", "s")
    assert done.code == 0, done.err
    text = (one_doc_repo / "sets" / "s.yaml").read_bytes().decode()
    assert [r["items"][-1]["origin"]["note"] for r in readings(text)] == [NOTES[note]] * 3


def test_a_holdout_row_sealed_on_arrival_last_reads_alike_everywhere(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row sealed on arrival ends with its armored text, a ``|`` text: at the end of a
    file without a last line break, yaml-rs would read it with the line break that
    ruamel.yaml and PyYAML read it without."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    write_files(one_doc_repo, {"sets/s.yaml": FILES["items, LF"] + "\n    holdout: true"})
    commit_all(one_doc_repo, "set")
    assert cli(one_doc_repo, "seal", "s", "-r", key[1]).code == 0
    path = one_doc_repo / "sets" / "s.yaml"
    path.write_bytes(path.read_bytes().removesuffix(b"\n"))
    write_files(one_doc_repo, {"in.jsonl": json.dumps({**ROW, "split": "holdout"})})
    commit_all(one_doc_repo, "sealed")
    done = cli(one_doc_repo, "import", "in.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    text = path.read_bytes().decode()
    assert len({r["items"][-1]["sealed"]["age"] for r in readings(text)}) == 1
