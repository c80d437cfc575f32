"""Two branches that add different items under the same id: a conflict that says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SET_HEADER, set_item
from evalset.versions.merge import merge_sets

SET = Path("sets/docs.yaml")
BASE = SET_HEADER + set_item("a", "d.md")


def test_the_same_id_added_on_both_branches_is_named_as_such() -> None:
    ours = BASE + set_item("q-9", "d.md")
    theirs = BASE + set_item("q-9", "e.md").replace("Question q-9 about", "Another q-9 about")
    result = merge_sets(BASE, ours, theirs, SET)
    assert result is not None
    assert result.conflicts == ["item q-9: the same id was added on both branches; renumber one"]
    assert (
        "<<<<<<< ours (item q-9: the same id was added on both branches; renumber one; "
        "evalset merge)"
    ) in result.text
    assert "Question q-9 about" in result.text and "Another q-9 about" in result.text


def test_the_same_item_added_on_both_branches_merges() -> None:
    both = BASE + set_item("q-9", "d.md")
    result = merge_sets(BASE, both, both, SET)
    assert result is not None and result.clean
    assert result.text.count("id: q-9") == 1


# (ours, theirs, the conflict): an id a side took by renaming an item is named as such, and
# not as "added", which that side did not do
TAKEN = {
    "renamed on ours, added on theirs": (
        BASE.replace("id: a\n", "id: q-9\n"),
        BASE + set_item("q-9", "e.md"),
        "the same id was given to a (renamed) on our side and to a new item on theirs",
    ),
    "added on ours, renamed on theirs": (
        BASE + set_item("q-9", "e.md"),
        BASE.replace("id: a\n", "id: q-9\n"),
        "the same id was given to a new item on our side and to a (renamed) on theirs",
    ),
    "added on both": (
        BASE + set_item("q-9", "e.md"),
        BASE + set_item("q-9", "f.md"),
        "the same id was added on both branches",
    ),
}


@pytest.mark.parametrize(("ours", "theirs", "said"), TAKEN.values(), ids=TAKEN.keys())
def test_an_id_taken_on_both_branches_says_how(ours: str, theirs: str, said: str) -> None:
    result = merge_sets(BASE, ours, theirs, SET)
    assert result is not None
    assert result.conflicts == [f"item q-9: {said}; renumber one"]
    assert f"<<<<<<< ours (item q-9: {said}; renumber one; evalset merge)" in result.text
