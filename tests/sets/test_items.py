"""`evalset new` (a draft skeleton with a fresh id) and `evalset retire` (with the reason)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLE_SET
from evalset.sets.items import next_id
from evalset.sets.setfile import load_set

NEXT_IDS = {
    "no items": ([], "q-001"),
    "numbered, with hashes beside": (
        ["q-001", "q-002", "q-010", "q-80989283", "q-3f2a9c41"],
        "q-011",
    ),
    "another prefix": (["faq-7", "faq-9", "x"], "faq-10"),
    "the prefix most use": (["a-1", "a-2", "b-01"], "a-3"),
    "hashes alone, ending in digits": (["q-7c7834ff", "q-a14b1599"], "q-001"),
    "a hash ending in digits, before a number": (["q-a14b1599", "q-001"], "q-002"),
    "a hash of digits, before a number": (["q-80989283", "q-001"], "q-002"),
    "a hash ending in digits, after a number": (["q-001", "q-3f2a9c41"], "q-002"),
    "seven digits": (["q-1234567", "q-001"], "q-002"),
    "a tie: the first in the file": (["b-01", "a-1"], "b-02"),
    "the next taken in other case": (["q-001", "q-002", "Q-003"], "q-004"),
    "numbered in capitals": (["Q-003"], "Q-004"),
    "a hash in capitals is numbering": (["Q-A14B1599"], "Q-A14B1600"),
}


@pytest.mark.parametrize(("ids", "expected"), NEXT_IDS.values(), ids=NEXT_IDS.keys())
def test_next_id_continues_the_numbering(ids: list[str], expected: str) -> None:
    assert next_id(ids) == expected


def test_new_after_promote_numbers_from_one(cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Promoted items have hash ids; the first hand-written item is q-001, not the hash
    counted on."""
    path = tmp_path / "s.yaml"
    path.write_text("evalset: 1\nname: s\ndescription: d\ncategories:\n  a: cat a\nitems:\n")
    failures = tmp_path / "failures.jsonl"
    failures.write_text(
        '{"question": "why was I charged a currency fee", "trace": "tr-1"}\n'
        '{"question": "can I get my invoice with the VAT number", "trace": "tr-2"}\n'
    )
    assert cli(tmp_path, "promote", str(failures), "--set", str(path)).code == 0
    ids = [i.id for i in load_set(path).items]
    assert len(ids) == 2 and all(re.fullmatch(r"q-[0-9a-f]{8}", i) for i in ids)
    assert any(i[-1].isdigit() for i in ids)  # a hash the old rule counted on
    for expected in ("q-001", "q-002"):
        result = cli(tmp_path, "new", str(path), "-q", f"hand-written {expected}", "--json")
        assert result.code == 0, result.err
        assert json.loads(result.out)["id"] == expected


def copy_example(tmp_path: Path) -> Path:
    target = tmp_path / "sets" / EXAMPLE_SET.name
    target.parent.mkdir()
    shutil.copy(EXAMPLE_SET, target)
    return target


def test_new_appends_a_draft_skeleton(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = copy_example(tmp_path)
    before = path.read_text()
    result = cli(tmp_path, "new", str(path), "--category", "direct-lookup", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["id"] == "q-042"  # q-041 is the last numbered item
    after = path.read_text()
    assert after.startswith(before)  # nothing else moved
    assert after[len(before) :] == (
        "\n  - id: q-042\n    question: 'TODO: the question, as a user would ask it'\n"
        "    category: direct-lookup\n    status: draft\n    expected_sources: []\n"
        "    key_points: []\n"
    )
    validate = cli(tmp_path, "validate", str(path)).out
    assert (
        "item q-042: warning: draft still lacks a question, key points and expected sources"
    ) in validate
    text = cli(tmp_path, "new", str(path), "--question", "Can I return a gift?").out
    assert text.startswith("added draft q-043 to ")
    assert load_set(path).items[-1].question == "Can I return a gift?"
    # the next step names what is still to write, not what was given
    assert "next: write its category, expected sources and key points, set" in text
    both = cli(tmp_path, "new", str(path), "-q", "Gift?", "--category", "direct-lookup").out
    assert "next: write its expected sources and key points, set `status: active`" in both


def test_retire_records_the_reason(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = copy_example(tmp_path)
    result = cli(tmp_path, "retire", str(path), "q-040", "q-041", "--reason", "policy ended")
    assert result.code == 0, result.err
    assert "retired q-040 in " in result.out and "already retired: q-041" in result.out
    text = path.read_text()
    assert "    status: retired  # retired " in text and ": policy ended\n" in text
    assert next(i for i in load_set(path).items if i.id == "q-040").status == "retired"


def test_retire_refuses_an_unknown_item_and_changes_nothing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = copy_example(tmp_path)
    before = path.read_bytes()
    result = cli(tmp_path, "retire", str(path), "q-040", "q-0400", "--reason", "x")
    assert result.code == 2
    assert "has no item 'q-0400' (did you mean 'q-040'?); nothing was retired." in result.err
    assert path.read_bytes() == before
    assert cli(tmp_path, "retire", str(path), "q-040").code == 2  # --reason is required
