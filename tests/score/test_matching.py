"""Crediting retrieved entries: the fast path for plain citations credits exactly what the
general rule credits, repeats and nested sections included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalset.score.matching import Targets, credited_ranks, credited_ranks_plain

CITATIONS = [f"d{d}.md#s{s}" for d in range(3) for s in range(4)]


@st.composite
def targets_and_entries(draw: st.DrawFn) -> tuple[Targets, list[str]]:
    """Targets where a citation may match several expected sources (a subsection of two
    nested expected sections), and a ranked list with repeats and misses."""
    count = draw(st.integers(1, 4))
    keys = draw(st.lists(st.sampled_from(CITATIONS), min_size=1, max_size=6, unique=True))
    exact = {
        key: tuple(draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=3, unique=True)))
        for key in keys
    }
    entries = draw(st.lists(st.sampled_from([*CITATIONS, "other.md"]), max_size=25))
    return Targets(count, exact), entries


@settings(max_examples=400, deadline=None)
@given(targets_and_entries())
def test_plain_citations_are_credited_as_the_general_rule_credits_them(
    case: tuple[Targets, list[str]],
) -> None:
    targets, entries = case
    general = credited_ranks(targets, [(e,) for e in entries], "section")
    assert credited_ranks_plain(targets, entries) == general


def test_a_repeat_earns_nothing_even_where_it_lies_inside_two_expected_sections() -> None:
    # d0.md#s1 lies inside both expected sections 0 and 1: its first retrieval is credited
    # with the more specific, 1; its repeats find nothing new (before, the second was
    # credited with 0, so a retriever repeating itself scored higher); d0.md#s0 then is
    targets = Targets(2, {"d0.md#s0": (0,), "d0.md#s1": (1, 0)})
    entries = ["x.md", "d0.md#s1", "d0.md#s1", "d0.md#s1", "d0.md#s0"]
    assert credited_ranks_plain(targets, entries) == [2, 5]
    assert credited_ranks(targets, [(e,) for e in entries], "section") == [2, 5]
    assert credited_ranks_plain(targets, entries[:4]) == [2]
    assert credited_ranks_plain(targets, ["x.md", "y.md"]) == []
    # two chunks that resolve to the same section stand for the same citation: a repeat
    assert credited_ranks(targets, [("d0.md#s1",), ("d0.md#s1",)], "section") == [1]
    # an expected whole document and a section of it: the section twice is credited once
    both = Targets(2, {"d0.md#s1": (1,)}, {"d0.md": (0,)})
    assert credited_ranks(both, [("d0.md#s1",), ("d0.md#s1",), ("d0.md#s2",)], "section") == [1, 3]


def test_a_section_a_chunk_stood_for_is_a_repeat_on_its_own() -> None:
    """A chunk standing for sections a and b (the same passage in both), then a: before, a
    was no repeat (a chunk's sections were compared together only), and earned the item's
    expected whole document, which a credited already."""
    targets = Targets(2, {"d.md#a": (0,)}, {"d.md": (1,)})  # expects d.md#a, and d.md whole
    assert credited_ranks(targets, [("d.md#a", "d.md#b"), ("d.md#a",)], "section") == [1]
    # a chunk with a section not retrieved before is no repeat: b earns the document
    assert credited_ranks(targets, [("d.md#a",), ("d.md#a", "d.md#b")], "section") == [1, 2]
