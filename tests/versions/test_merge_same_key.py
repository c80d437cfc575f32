"""A field both branches add to one item (or to the header), each on another line.

git's line merge of the item keeps both lines, as their changes do not touch, and the item
then holds the key twice: no readable set. The merge driver must see that and merge the
item field by field, naming the field when the values differ, rather than fall back to git's
line merge of the whole file and report "the whole file" with no item named.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_merge import SET, branched, edit, merge  # noqa: F401  (branched: a fixture)

from conftest import SET_HEADER, commit_all, git, set_item
from evalset.sets.setfile import load_set

QUESTION = "    question: Question q-2 about the policy?\n"
VERIFIED = "        sources: [policy.md]  # cited here too\n"
LAST_Q2 = "  - id: q-3\n"

# (what ours does, what theirs does, the conflict the merge names, or None: merged, and a
# line the merged set holds once)
CASES = {
    "an item, other values": (
        (QUESTION, QUESTION + "    answer: thirty days\n"),
        (VERIFIED + LAST_Q2, VERIFIED + "    answer: 30 days\n" + LAST_Q2),
        "item q-2: answer",
    ),
    "an item, the same value": (
        (QUESTION, QUESTION + "    answer: 30 days\n"),
        (VERIFIED + LAST_Q2, VERIFIED + "    answer: 30 days\n" + LAST_Q2),
        None,
    ),
    "the header, other values": (
        ("name: docs\n", "name: docs\ndescription: the docs set\n"),
        ("items:\n", "description: the policy set\nitems:\n"),
        "header: description",
    ),
    "the header, the same value": (
        ("name: docs\n", "name: docs\ndescription: the docs set\n"),
        ("items:\n", "description: the docs set\nitems:\n"),
        None,
    ),
}


def added(edit: tuple[str, str]) -> str:
    """The line an edit adds."""
    return next(line for line in edit[1].splitlines() if line not in edit[0].splitlines())


@pytest.mark.parametrize(("ours", "theirs", "conflict"), CASES.values(), ids=CASES.keys())
def test_a_key_added_on_both_sides_on_other_lines(
    branched: Path,  # noqa: F811
    ours: tuple[str, str],
    theirs: tuple[str, str],
    conflict: str | None,
) -> None:
    assert (branched / SET).read_text().count(SET_HEADER) == 1
    assert set_item("q-2", "policy.md") in (branched / SET).read_text()
    git(branched, "checkout", "-q", "other")
    edit(branched, *theirs)
    commit_all(branched, "theirs: a key added")
    git(branched, "checkout", "-q", "main")
    edit(branched, *ours)
    commit_all(branched, "ours: the same key added elsewhere")

    done = merge(branched, "other")
    said = [line for line in done.stderr.splitlines() if line.startswith("evalset merge:")]
    text = (branched / SET).read_text()
    if conflict is None:
        assert done.returncode == 0, done.stdout + done.stderr
        assert said == []
        load_set(branched / SET)  # a readable set: no key twice
        assert text.count(added(ours)) == 1
    else:
        assert done.returncode != 0, done.stdout + done.stderr
        assert said == [f"evalset merge: {SET}: conflict in {conflict}"]
        assert f"<<<<<<< ours ({conflict.split(':')[0]}" in text
        # both values are kept between the markers, for the person resolving it
        for side in (ours, theirs):
            assert added(side) in text


def test_an_item_using_an_anchor_of_another_merges_line_by_line(branched: Path) -> None:  # noqa: F811
    """An item whose piece cannot be read alone (an alias of an anchor another item set)
    still merges line by line when both sides changed it in lines that do not touch."""
    edit(branched, "  - id: q-1\n", "  - id: q-1\n    tags: &shared [policy]\n")
    q2 = "    category: direct-lookup\n    expected_sources: [policy.md]\n    key_points:\n"
    q2 += "      - text: The fact q-2"
    edit(branched, q2, q2.replace("direct-lookup\n", "direct-lookup\n    tags: *shared\n"))
    commit_all(branched, "q-2 shares q-1's tags")
    git(branched, "branch", "-f", "other")
    git(branched, "checkout", "-q", "other")
    edit(branched, "The fact q-2 asks about", "The fact q-2 asks about, theirs")
    commit_all(branched, "theirs: q-2's key point")
    git(branched, "checkout", "-q", "main")
    edit(branched, "Question q-2 about", "Question q-2, ours, about")
    commit_all(branched, "ours: q-2's question")

    done = merge(branched, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    q2 = next(item for item in load_set(branched / SET).items if item.id == "q-2")
    assert q2.question == "Question q-2, ours, about the policy?"
    assert q2.key_points[0].text == "The fact q-2 asks about, theirs"
    assert "    tags: *shared\n" in (branched / SET).read_text()
