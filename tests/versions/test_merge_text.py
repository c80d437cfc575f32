"""The merge driver keeps text: a change of either side reaches the merged file byte for
byte, comments and layout included, whether it changed a value or only text; items are
deleted with the comments above them; a side's order and the place of its new items are
kept. Changes that touch the same lines are merged as values, and only a field changed
differently on both sides is a conflict."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_merge import SET as PATH
from test_merge import branched, edit, merge  # noqa: F401 (a fixture)

from conftest import commit_all, git
from evalset.sets.setfile import parse_set
from evalset.sets.validate import check_set
from evalset.versions.merge import merge_sets

SET = Path("sets/docs.yaml")
BASE = """\
# the support set
evalset: 1
name: docs  # the file's name
categories:
  direct-lookup: a fact
  paraphrased: the same, reworded
items:
  # returns
  - id: a
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [returns.md]
    key_points:
      - text: 30 days   # checked with legal
        sources: [returns.md]

  - id: b
    question: What does shipping cost?
    category: direct-lookup
    expected_sources: [shipping.md]
    key_points:
      - text: 5 euros\t# price page
        sources: [shipping.md]
    status: active  # approved

  # shipping abroad
  - id: c
    question: Do you ship abroad?
    category: direct-lookup
    expected_sources: [shipping.md]
    key_points:
      - text: to the EU only
        sources: [shipping.md]
# end of items
"""

A_QUESTION = ("How long is the return window?", "How long may I return an item?")
B_QUESTION = ("What does shipping cost?", "What does shipping cost me?")
# Each case: what ours changes and what theirs changes, as (old, new) replacements of the
# base's text; the merged file is the base with both applied.
CASES: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    "a comment added on their side": ([A_QUESTION], [
        ("      - text: 5 euros\t# price page", "      - text: 5 euros\t# rises in January")]),
    "our comment, their value, one item": ([
        ("# checked with legal", "# re-checked 2026-12")], [A_QUESTION]),
    "retired there (its reason is a comment), reworded here": ([B_QUESTION], [
        ("    status: active  # approved\n",
         "    status: retired  # approved; retired 2026-12-05: no longer sold\n")]),
    "a key point edited there, the question here": ([A_QUESTION], [
        ("30 days   #", "30 days of delivery   #")]),
    "a comment between items": ([A_QUESTION], [
        ("  # shipping abroad\n", "  # shipping abroad\n  # owner: dave\n")]),
    "a comment at the end": ([B_QUESTION], [
        ("# end of items\n", "# end of items\n# reviewed 2026-12\n")]),
    "a header comment there, a category meaning here": ([
        ("  direct-lookup: a fact\n", "  direct-lookup: a fact stated in one section\n")], [
        ("name: docs  # the file's name", "name: docs  # as the file is named")]),
    "a file comment both sides": ([("# the support set\n", "# the support set (ours)\n")], [
        ("# end of items\n", "# end of items (theirs)\n")]),
    "lines that touch, merged as values": ([A_QUESTION], [
        ("    category: direct-lookup\n    expected_sources: [returns.md]",
         "    category: paraphrased\n    expected_sources: [returns.md]")]),
    "an item YAML's round-trip reader cannot read, edited there": ([A_QUESTION], [
        ("5 euros\t#", "6 euros\t#")]),
}  # fmt: skip


def _applied(text: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(("ours", "theirs"), CASES.values(), ids=CASES.keys())
def test_changes_of_both_sides_reach_the_merged_text_byte_for_byte(
    ours: list[tuple[str, str]], theirs: list[tuple[str, str]]
) -> None:
    for one, other in ((ours, theirs), (theirs, ours)):  # the same, whichever side is ours
        result = merge_sets(BASE, _applied(BASE, one), _applied(BASE, other), SET)
        assert result is not None and result.clean, result and result.conflicts
        assert result.text == _applied(BASE, [*one, *other])


def _item(ident: str) -> str:
    return (
        f"\n  - id: {ident}\n    question: Question {ident}?\n    category: direct-lookup\n"
        f"    expected_sources: [returns.md]\n    key_points:\n      - text: fact {ident}\n"
        "        sources: [returns.md]\n"
    )


def _pieces(text: str) -> tuple[str, dict[str, str], str]:
    """The header, each item's piece (with the lines above it) and the end of ``BASE``."""
    head, rest = text.split("items:\n", 1)
    a_end = rest.index("\n  - id: b")
    c_start = rest.index("\n  # shipping abroad")
    end = rest.index("# end of items")
    pieces = {"a": rest[:a_end + 1], "b": rest[a_end + 1:c_start + 1],
              "c": rest[c_start + 1:end]}  # fmt: skip
    return head + "items:\n", pieces, rest[end:]


HEAD, PIECES, TAIL = _pieces(BASE)


def _file(*parts: str) -> str:
    return HEAD + "".join(PIECES.get(p, p) for p in parts) + TAIL


LAYOUTS = {
    # ours, theirs, merged: each a list of item pieces ("a", "b", "c") or new item texts
    "their new order is kept, with our edit": (
        [_file("a", "b", "c").replace(*B_QUESTION)], [_file("c", "a", "b")],
        _file("c", "a", "b").replace(*B_QUESTION)),
    "deleted there with the comment above it": (
        [_file("a", "b", "c").replace(*A_QUESTION)], [_file("a", "b")],
        _file("a", "b").replace(*A_QUESTION)),
    "their item inserted in the middle stays there": (
        [_file("a", "b", "c", _item("d"))], [_file("a", _item("e"), "b", "c")],
        _file("a", _item("e"), "b", "c", _item("d"))),
    "both appended at the end: ours, then theirs": (
        [_file("a", "b", "c", _item("d"))], [_file("a", "b", "c", _item("e"))],
        _file("a", "b", "c", _item("d"), _item("e"))),
}  # fmt: skip


@pytest.mark.parametrize(("ours", "theirs", "merged"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_order_deletions_and_new_items_keep_their_place(
    ours: list[str], theirs: list[str], merged: str
) -> None:
    result = merge_sets(BASE, ours[0], theirs[0], SET)
    assert result is not None and result.clean, result and result.conflicts
    assert result.text == merged


def test_a_field_changed_differently_on_both_sides_is_still_a_conflict() -> None:
    ours = BASE.replace("30 days   # checked", "31 days   # checked")
    theirs = BASE.replace("30 days   # checked", "28 days   # checked")
    result = merge_sets(BASE, ours, theirs, SET)
    assert result is not None and result.conflicts == ["item a: key_points"]
    assert "<<<<<<< ours (item a: key_points; evalset merge)" in result.text
    assert "31 days" in result.text and "28 days" in result.text
    assert result.text.count("id: b") == 1 and result.text.endswith("# end of items\n")


def test_a_line_merge_that_gives_no_readable_set_is_a_conflict(
    branched: Path,  # noqa: F811 (the fixture imported above)
) -> None:
    """A side that broke the YAML is merged by git line by line; the result is not committed
    as if all were well."""
    git(branched, "checkout", "-q", "other")
    edit(branched, "The fact q-2 asks about", '"The fact q-2 asks about')  # a quote left open
    commit_all(branched, "theirs: a broken quote")
    git(branched, "checkout", "-q", "main")
    edit(branched, "Question q-1 about the policy?", "Question q-1, reworded?")
    commit_all(branched, "ours")
    done = merge(branched, "other")
    assert done.returncode != 0
    assert "git's line merge gave no readable set" in done.stderr + done.stdout
    assert git(branched, "diff", "--name-only", "--diff-filter=U").split() == [PATH]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=branched, capture_output=True,
                            text=True, check=True).stdout  # fmt: skip
    assert f"UU {PATH}" in status


OWNED = """\
evalset: 1
name: docs
categories:
  direct-lookup: a fact
  paraphrased: the same, reworded
items:
  - id: q-1
    question: What is the return window for damaged goods?
    category: direct-lookup
    expected_sources: [returns.md]
    key_points:
      - text: thirty days
    # trailing note of q-1

  - id: q-2
    question: How much is standard shipping?
    category: direct-lookup
    expected_sources: [shipping.md]
    key_points:
      - text: five euros
    # reviewed by alice
"""


def _new(ident: str) -> str:
    return (f"\n  - id: {ident}\n    question: Is there a discount for {ident}?\n"
            "    category: direct-lookup\n    expected_sources: [shipping.md]\n"
            "    key_points:\n      - text: no\n")  # fmt: skip


def _ours_theirs(ours: str, theirs: str) -> str:
    result = merge_sets(OWNED, ours, theirs, SET)
    assert result is not None and result.clean, result and result.conflicts
    return result.text


def test_comments_under_an_item_are_its_own_and_are_not_doubled() -> None:
    # both append after the comment under the last item: it stays once, above both
    merged = _ours_theirs(OWNED + _new("q-3"), OWNED + _new("q-4"))
    assert merged == OWNED + _new("q-3") + _new("q-4")
    # one inserts an item after q-1's own comment, the other edits that comment
    edited = OWNED.replace("# trailing note of q-1", "# trailing note of q-1, edited")
    inserted = OWNED.replace("\n  - id: q-2", _new("q-0") + "\n  - id: q-2", 1)
    merged = _ours_theirs(edited, inserted)
    assert merged == edited.replace("\n  - id: q-2", _new("q-0") + "\n  - id: q-2", 1)


def test_lines_that_touch_merge_field_by_field_keeping_both_sides_comments() -> None:
    ours = OWNED.replace("How much is standard shipping?", "How much does shipping cost?")
    theirs = OWNED.replace(
        "  - id: q-2\n    question: How much is standard shipping?\n    category: direct-lookup",
        "  # bob: moved, see ticket 77\n  - id: q-2\n    question: How much is standard "
        "shipping?\n    category: paraphrased  # was direct-lookup",
    )
    merged = _ours_theirs(ours, theirs)
    assert merged == theirs.replace(
        "How much is standard shipping?", "How much does shipping cost?"
    )


def test_an_item_given_two_new_ids_is_a_conflict() -> None:
    ours, theirs = OWNED.replace("id: q-2", "id: q-2a"), OWNED.replace("id: q-2", "id: ship")
    result = merge_sets(OWNED, ours, theirs, SET)
    assert result is not None
    assert result.conflicts == [
        "item q-2: renamed to q-2a on our side and to ship on theirs; keep one id"
    ]
    assert result.text.count("<<<<<<< ours (item q-2: renamed") == 1
    assert "id: q-2a" in result.text and "id: ship" in result.text


RENAMED = OWNED.replace("id: q-2", "id: ship")
"""q-2 given another id, and nothing else."""
# What the other side did to q-2 while one side renamed it: (its text, the merged text when
# the merge is clean, else the conflict's label with {side} and {other} for the sides)
AGAINST_A_RENAME = {
    "nothing": (OWNED, RENAMED),
    "the same rename": (RENAMED, RENAMED),
    "an edit of the next line": (
        OWNED.replace("How much is standard shipping?", "What does shipping cost?"),
        RENAMED.replace("How much is standard shipping?", "What does shipping cost?"),
    ),
    "an edit further down": (
        OWNED.replace("five euros", "5 euros"),
        RENAMED.replace("five euros", "5 euros"),
    ),
    "a deletion": (
        OWNED.replace(OWNED[OWNED.index("\n  - id: q-2") :], "\n"),
        "item q-2: renamed to ship on {side} side, deleted (or given another id) on {other}s",
    ),
    "another rename and an edit": (
        OWNED.replace("id: q-2", "id: fee").replace("five euros", "5 euros"),
        "item q-2: renamed to ship on {side} side, deleted (or given another id) on {other}s",
    ),
    "the same rename and an edit": (
        RENAMED.replace("five euros", "5 euros"),
        RENAMED.replace("five euros", "5 euros"),
    ),
    "another rename": (
        OWNED.replace("id: q-2", "id: fee"),
        "item q-2: renamed to {ours} on our side and to {theirs} on theirs; keep one id",
    ),
}


@pytest.mark.parametrize("renamer", ["ours", "theirs"])
@pytest.mark.parametrize("against", AGAINST_A_RENAME)
def test_a_rename_is_a_change_of_the_id_merged_with_the_other_sides(
    renamer: str, against: str
) -> None:
    """Before, a rename against an edit was a conflict that called it a deletion, with the
    renamed item outside the markers; against a deletion, or another rename and an edit,
    it merged cleanly and kept the item twice, or dropped the deletion."""
    other, wanted = AGAINST_A_RENAME[against]
    ours, theirs = (RENAMED, other) if renamer == "ours" else (other, RENAMED)
    result = merge_sets(OWNED, ours, theirs, SET)
    assert result is not None
    if wanted.startswith("evalset: 1"):
        assert result.clean, result.conflicts
        assert result.text == wanted
        return
    side, second = ("our", "their") if renamer == "ours" else ("their", "our")
    new_ids = ("ship", "fee") if renamer == "ours" else ("fee", "ship")
    label = wanted.format(side=side, other=second, ours=new_ids[0], theirs=new_ids[1])
    assert result.conflicts == [label]
    assert result.text.count("<<<<<<< ours (") == 1 and f"({label}; evalset merge)" in result.text
    # the renamed item is inside the markers, not beside them as a clean item
    after = result.text[result.text.index(">>>>>>> theirs") :]
    assert "id: ship" not in after and "id: q-2" not in after


# Edits of OWNED each side may make, comments among them: (what the text held, what it
# holds after), applied to the first place it occurs
EDITS = {
    "header value": ("name: docs\n", "name: docs\ndescription: the support set\n"),
    "header comment": ("categories:\n", "# legal reviewed these\ncategories:\n"),
    "header inline comment": ("name: docs\n", "name: docs  # the file's name\n"),
    "category": ("    category: direct-lookup\n    expected_sources: [shipping.md]",
                 "    category: paraphrased\n    expected_sources: [shipping.md]"),
    "category with a comment": (
        "    category: direct-lookup\n    expected_sources: [shipping.md]",
        "    category: paraphrased  # reworded\n    expected_sources: [shipping.md]",
    ),
    "comment above category": (
        "    category: direct-lookup\n    expected_sources: [shipping.md]",
        "    # bob: check this\n    category: direct-lookup\n    expected_sources: [shipping.md]",
    ),
    "question": ("How much is standard shipping?", "What does standard shipping cost?"),
    "keys reordered": ("  - id: q-2\n    question: How much is standard shipping?\n",
                       "  - question: How much is standard shipping?\n    id: q-2\n"),
    "five euros": ("      - text: five euros\n", "      - text: 5 euros  # from the tariff\n"),
}  # fmt: skip


def _edited(*names: str) -> str:
    text = OWNED
    for name in names:
        was, now = EDITS[name]
        text = text.replace(was, now, 1)
    return text


def _comments(text: str) -> set[str]:
    return {line.strip()[line.strip().find("#") :] for line in text.splitlines() if "#" in line}


@pytest.mark.parametrize("mine", EDITS)
@pytest.mark.parametrize("yours", EDITS)
def test_a_clean_merge_keeps_every_comment_either_side_added(mine: str, yours: str) -> None:
    """Before, where both sides changed lines that touch, the header (and an item merged by
    value, its keys in another order on one side) took our text with their values written
    in, and their new comments were lost; so were their comments on a value both sides
    changed alike. Each such merge is a conflict now, or keeps them."""
    ours, theirs = _edited(mine), _edited(yours)
    if "keys reordered" in (mine, yours) and "question" in (mine, yours):
        return  # the reorder takes the question's line with it: not the edit named
    result = merge_sets(OWNED, ours, theirs, SET)
    assert result is not None
    if result.clean:
        added = (_comments(ours) | _comments(theirs)) - _comments(OWNED)
        assert added <= _comments(result.text), added - _comments(result.text)


# Changes that merge as text, each side valid, but not as a set: (ours, theirs, the error)
INVALID_TOGETHER = {
    "a category deleted and used": (
        OWNED.replace("  paraphrased: the same, reworded\n", ""),
        OWNED.replace("    category: direct-lookup\n    expected_sources: [shipping.md]",
                      "    category: paraphrased\n    expected_sources: [shipping.md]"),
        "q-2: category 'paraphrased' is not declared in the set's categories",
    ),
    "one question on either side of the holdout": (
        OWNED + _new("q-3") + "    holdout: true\n",
        OWNED + _new("q-4").replace("for q-4", "for q-3") + "    holdout: false\n",
        "near duplicate of item 'q-3', and one of the two is holdout",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", INVALID_TOGETHER)
def test_a_merge_that_only_the_two_changes_together_make_invalid_is_a_conflict(
    case: str,
) -> None:
    ours, theirs, error = INVALID_TOGETHER[case]
    for side in (ours, theirs):  # each valid alone
        assert not [f for f in check_set(parse_set(side, SET), errors_only=True)]
    result = merge_sets(OWNED, ours, theirs, SET)
    assert result is not None and len(result.conflicts) == 1, result and result.conflicts
    assert result.conflicts[0].startswith("the merged set: ") and error in result.conflicts[0]
    assert "<<<<<<<" not in result.text  # every change merged: nothing to choose between


# Item layouts the field-by-field merge cuts as YAML reads them: a list whose entries start
# at the key's column, an LS (a line break to some readers, text to YAML) in a question.
# Ours changes the category, theirs the expected sources on the next line.
FIELD_LAYOUTS = {
    "a list at its key's column": (
        "    expected_sources:\n    - shipping.md\n",
        "    expected_sources:  # checked\n    - shipping.md\n    - returns.md\n",
    ),
    "an LS in the question": (
        "    expected_sources: [shipping.md]\n",
        "    expected_sources: [shipping.md, returns.md]\n",
    ),
}


@pytest.mark.parametrize(("sources", "changed"), FIELD_LAYOUTS.values(), ids=FIELD_LAYOUTS.keys())
def test_touching_changes_merge_field_by_field_whatever_the_layout(
    sources: str, changed: str
) -> None:
    base = OWNED.replace("    expected_sources: [shipping.md]\n", sources)
    if changed.endswith("returns.md]\n"):
        base = base.replace("How much is standard shipping?", "How much is\u2028shipping?")
    category = ("    category: direct-lookup\n" + sources, "    category: paraphrased\n" + sources)
    ours = base.replace(*category)
    theirs = base.replace(sources, changed)
    result = merge_sets(base, ours, theirs, SET)
    assert result is not None and result.clean, result and result.conflicts
    assert result.text == ours.replace(sources, changed)


# A comment line above a field and the field's value, changed one on each side (lines that
# touch): both changes stay, whichever side made which.
COMMENTED = OWNED.replace(
    "    category: direct-lookup\n    expected_sources: [shipping.md]",
    "    # checked by alice\n    category: direct-lookup\n    expected_sources: [shipping.md]",
)
COMMENT = ("    # checked by alice\n", "    # checked by alice and bob\n")
VALUE = ("    category: direct-lookup\n    expected_sources: [shipping",
         "    category: paraphrased\n    expected_sources: [shipping")  # fmt: skip


@pytest.mark.parametrize("comment_side", ["ours", "theirs"])
def test_a_comment_above_a_field_and_its_value_changed_apart_both_stay(comment_side: str) -> None:
    commented, valued = COMMENTED.replace(*COMMENT), COMMENTED.replace(*VALUE)
    ours, theirs = (commented, valued) if comment_side == "ours" else (valued, commented)
    result = merge_sets(COMMENTED, ours, theirs, SET)
    assert result is not None and result.clean, result and result.conflicts
    assert result.text == COMMENTED.replace(*COMMENT).replace(*VALUE)


# An item whose last value is a block scalar ending in lines that look blank or like
# comments: those lines are its text, and go wherever the item goes, whatever happens to
# the item after it.
SCALAR_ENDS = {
    "a line that looks like a comment": "    answer: |\n      thirty days\n\n      # from legal\n",
    "kept blank lines": "    answer: |+\n      thirty days\n\n\n",
    "a literal block in a list": "    must_not_say:\n      - |\n        sixty days\n        # no\n",
}


@pytest.mark.parametrize("scalar", SCALAR_ENDS.values(), ids=SCALAR_ENDS.keys())
def test_a_block_scalar_s_last_lines_stay_with_its_item(scalar: str) -> None:
    base = OWNED.replace("      - text: thirty days\n", "      - text: thirty days\n" + scalar)
    ours = base + _new("q-3")
    theirs = base[: base.index("\n  - id: q-2")] + "\n"  # q-2 deleted
    result = merge_sets(base, ours, theirs, SET)
    assert result is not None and result.clean, result and result.conflicts
    merged = _item_of_text(result.text, "q-1")
    assert merged == _item_of_text(base, "q-1")
    assert "id: q-2" not in result.text and "id: q-3" in result.text


def _item_of_text(text: str, ident: str) -> dict[str, object]:
    from evalset.sets.setfile import parse_set

    items = parse_set(text, Path("docs.yaml")).raw_items
    found: dict[str, object] = next(i for i in items if i["id"] == ident)
    return found


# The comment above a field changed on both sides in lines that touch, or changed on one side
# and the field deleted on the other: a conflict naming it, as git would give, not one
# side's comment kept and the other's edit lost.
COMMENT_CLASHES = {
    "both edit it": (COMMENTED.replace(*COMMENT),
                     COMMENTED.replace(*COMMENT).replace("and bob", "and carol")),
    "both edit it, one the value too": (
        COMMENTED.replace(*COMMENT).replace(*VALUE),
        COMMENTED.replace(*COMMENT).replace("and bob", "and carol")),
    "one edits it, the other deletes the field": (
        COMMENTED.replace(*COMMENT),
        COMMENTED.replace("    # checked by alice\n    category: direct-lookup\n", "")),
}  # fmt: skip


@pytest.mark.parametrize(("ours", "theirs"), COMMENT_CLASHES.values(), ids=COMMENT_CLASHES.keys())
def test_a_comment_changed_on_both_sides_is_a_conflict(ours: str, theirs: str) -> None:
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge_sets(COMMENTED, a, b, SET)
        assert result is not None and not result.clean
        assert result.conflicts == ["item q-2: the comments above category"]
        assert "<<<<<<< ours (item q-2: the comments above category; evalset merge)" in (
            result.text
        )


# A comment (or the layout) inside one field on one side, and that field's value changed on
# the other (lines that touch): taking the new value's text whole would drop the comment,
# so it is a conflict naming the field. (base, one side, the other side, the field)
TAGGED = OWNED.replace("    expected_sources: [shipping.md]\n",
                       "    expected_sources: [shipping.md]  # from the FAQ\n")  # fmt: skip
LISTED = OWNED.replace("      - text: five euros\n",
                       "      - text: five euros\n      - text: Monday to Friday\n")  # fmt: skip
INSIDE_CLASHES = {
    "an inline comment edited": (
        TAGGED, TAGGED.replace("# from the FAQ", "# from the FAQ, checked by legal"),
        TAGGED.replace("[shipping.md]", "[shipping.md, prices.md]"), "expected_sources"),
    "an inline comment added": (
        OWNED, TAGGED, OWNED.replace("[shipping.md]", "[shipping.md, prices.md]"),
        "expected_sources"),
    "a comment between list entries": (
        LISTED, LISTED.replace("      - text: Monday", "      # legal: LEG-12\n"
                               "      - text: Monday"),
        LISTED.replace("five euros", "six euros"), "key_points"),
    "the layout of a list": (
        OWNED, OWNED.replace("[shipping.md]", "\n      - shipping.md"),
        OWNED.replace("[shipping.md]", "[shipping.md, prices.md]"), "expected_sources"),
}  # fmt: skip


@pytest.mark.parametrize(("base", "kept", "valued", "name"), INSIDE_CLASHES.values(),
                         ids=INSIDE_CLASHES.keys())  # fmt: skip
def test_a_comment_in_a_field_whose_value_the_other_side_changed_is_a_conflict(
    base: str, kept: str, valued: str, name: str
) -> None:
    for ours, theirs in ((kept, valued), (valued, kept)):
        result = merge_sets(base, ours, theirs, SET)
        assert result is not None and not result.clean, result and result.text
        assert result.conflicts == [f"item q-2: the comments or layout in {name}"]
    same = merge_sets(base, valued, valued, SET)  # the same value on both sides: no conflict
    assert same is not None and same.clean


def test_an_item_added_on_both_sides_with_other_comments_is_a_conflict() -> None:
    ours = OWNED + _new("q-3").replace("  - id: q-3", "  # from ticket 12\n  - id: q-3")
    theirs = OWNED + _new("q-3").replace("  - id: q-3", "  # from ticket 98\n  - id: q-3")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge_sets(OWNED, a, b, SET)
        assert result is not None and not result.clean
        assert result.conflicts == ["item q-3: added on both sides with other comments or layout"]
        assert "# from ticket 12" in result.text and "# from ticket 98" in result.text
    same = merge_sets(OWNED, ours, ours, SET)
    assert same is not None and same.clean and same.text == ours
