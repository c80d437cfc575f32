"""An edit changes the line it means to change and no other byte, whatever the item around
it holds: NEL, LS and PS (characters to the YAML evalset reads, line breaks to the library
that edits), a tab before a comment, comments on and after the line it edits. An edit
that adds an error the file did not have is refused, whatever other item already has an
error worded the same."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from conftest import ONE_ITEM as PLAIN
from conftest import ONE_ITEM_HEADER as HEADER
from evalset.sets.setfile import load_set

ODD = """\
  # reviewed by carol
  - id: q-2
    question: {question}
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 5 euros{after_text}
        sources: [d.md]
    status: active  # approved by legal
    # a note kept under the status line
    holdout: {holdout}
"""
TEXTS = {
    "NEL, plain": ("What does shipping cost\x85 in Ireland?", ""),
    "LS, single quotes": ("'What does\u2028shipping cost?'", ""),
    "PS, double quotes": ('"What does\u2029shipping cost?"', ""),
    "NEL in a comment": ("What does shipping cost?", "   # from\x85the price page"),
    "a tab before a comment": ("What does shipping cost?", "\t# price page"),
    "a question of 5,000 characters": ("What " + "very " * 999 + "long?", ""),
    "a comment line indented with a tab": ("What does shipping cost?", "\n\t# from legal"),
}


def _set(repo: Path, question: str, after_text: str, holdout: str = "false") -> Path:
    path = repo / "sets" / "s.yaml"
    odd = ODD.format(question=question, after_text=after_text, holdout=holdout)
    path.write_bytes((HEADER + PLAIN + odd).encode())
    return path


@pytest.fixture
def repo(one_doc_repo: Path) -> Path:
    return one_doc_repo


def _question(path: Path) -> str:
    return next(i.question for i in load_set(path).items if i.id == "q-2")


@pytest.mark.parametrize(("question", "after_text"), TEXTS.values(), ids=TEXTS.keys())
def test_retire_and_verify_change_only_their_line(  # type: ignore[no-untyped-def]
    cli, repo: Path, question: str, after_text: str
) -> None:
    path = _set(repo, question, after_text)
    before, asked = path.read_bytes(), _question(path)
    today = dt.date.today().isoformat()
    result = cli(repo, "retire", "s", "q-2", "--reason", "no longer sold")
    assert result.code == 0, result.err
    assert path.read_bytes() == before.replace(
        b"    status: active  # approved by legal\n",
        f"    status: retired # approved by legal; retired {today}: no longer sold\n".encode(),
    )
    assert _question(path) == asked
    path.write_bytes(before)
    snapshot = json.loads(cli(repo, "snapshot", "--json").out)["snapshot"]
    result = cli(repo, "verify", "s", "q-2")
    assert result.code == 0, result.err
    note = b"    # a note kept under the status line\n    holdout: false\n"
    assert path.read_bytes() == before.replace(note, note + f"    verified: {snapshot}\n".encode())
    assert _question(path) == asked


@pytest.mark.parametrize(("question", "after_text"), TEXTS.values(), ids=TEXTS.keys())
def test_seal_and_unseal_give_back_every_byte(  # type: ignore[no-untyped-def]
    cli, repo: Path, key: tuple[Path, str], question: str, after_text: str
) -> None:
    path = _set(repo, question, after_text, holdout="true")
    before = path.read_bytes()
    assert cli(repo, "seal", "s", "--recipient", key[1]).code == 0
    assert b"What does" not in path.read_bytes()
    os.environ["EVALSET_AGE_IDENTITY"] = str(key[0])
    try:
        result = cli(repo, "unseal", "s")
    finally:
        del os.environ["EVALSET_AGE_IDENTITY"]
    assert result.code == 0, result.err
    assert path.read_bytes() == before


REASONS = {"ESC": "see \x1b[1mJIRA-12\x1b[0m", "BEL": "ring\x07", "DEL": "gone\x7f"}


@pytest.mark.parametrize("reason", REASONS.values(), ids=REASONS.keys())
def test_a_reason_with_a_control_character_is_refused(cli, repo: Path, reason: str) -> None:  # type: ignore[no-untyped-def]
    path = _set(repo, "What does shipping cost?", "")
    before = path.read_bytes()
    result = cli(repo, "retire", "s", "q-2", "--reason", reason)
    assert result.code == 2
    assert "--reason holds the control character U+00" in result.err
    assert path.read_bytes() == before


ALREADY_BAD = {
    # an error the file has in another item, worded as the new one would be
    "white space only": ('"   "', ["--question", "   "]),
    "a category not declared": ("What does shipping cost?", ["--category", "direct-lookp"]),
}


@pytest.mark.parametrize(("question", "args"), ALREADY_BAD.values(), ids=ALREADY_BAD.keys())
def test_an_edit_that_adds_an_error_is_refused_whatever_other_items_have(  # type: ignore[no-untyped-def]
    cli, repo: Path, question: str, args: list[str]
) -> None:
    path = _set(repo, question, "")
    if "--category" in args:  # another item with the same undeclared category
        text = path.read_text()
        odd_at = text.index("  - id: q-2")
        text = text[:odd_at] + text[odd_at:].replace("direct-lookup", "direct-lookp", 1)
        path.write_text(text)
    before = path.read_bytes()
    result = cli(repo, "new", "s", *args)
    assert result.code == 2, result.out
    assert "the edit was refused because the result would be invalid" in result.err
    assert path.read_bytes() == before
    clean = _set(repo, "What does shipping cost?", "")  # and on a file without the error
    before = clean.read_bytes()
    result = cli(repo, "new", "s", *args)
    assert result.code == 2 and clean.read_bytes() == before
    if "--category" in args:
        assert "did you mean 'direct-lookup'?" in result.err


RESERVED_INPUTS = {
    "a retire reason": ["retire", "s", "q-2", "--reason", "code \U000f0000 x"],
    "a new question": ["new", "s", "--question", "What is \U000f00ff?"],
}


@pytest.mark.parametrize("args", RESERVED_INPUTS.values(), ids=RESERVED_INPUTS.keys())
def test_text_holding_a_reserved_private_use_character_is_refused(  # type: ignore[no-untyped-def]
    cli, repo: Path, args: list[str]
) -> None:
    """The edit swaps what the YAML library misreads for characters of U+F0000 to U+F00FF
    while it has a region: a value holding one would be put back as what it stands for."""
    path = _set(repo, "What does shipping cost\x85 in Ireland?", "")
    before = path.read_bytes()
    result = cli(repo, *args)
    assert result.code == 2, result.out
    assert "a private-use character evalset reserves while it edits" in result.err
    assert path.read_bytes() == before


def test_a_sealed_item_holding_a_stand_in_is_refused_not_changed(  # type: ignore[no-untyped-def]
    cli, repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed item's text is not in the file, so the stand-ins may be characters it
    holds: editing it with the key is refused rather than turning one into a NEL."""
    path = _set(repo, "What does \U000f0000 cost?", "", holdout="true")
    assert cli(repo, "seal", "s", "--recipient", key[1]).code == 0
    sealed = path.read_bytes()
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(repo, "snapshot").code == 0
    result = cli(repo, "verify", "s", "q-2")
    assert result.code == 2, result.out
    assert "an item to edit holds U+F0000" in result.err
    assert path.read_bytes() == sealed
