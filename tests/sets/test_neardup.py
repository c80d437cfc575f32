"""Near-duplicate detection: what counts, and that blocking finds every verified pair."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalset.sets import neardup
from evalset.sets.neardup import (
    allowed_distance,
    near_duplicate_pairs,
    near_duplicates_of,
    normalise,
)


def test_normalise_ignores_case_punctuation_and_spacing() -> None:
    assert normalise("  How LONG, do I have?!  ") == "how long do i have"
    assert normalise("\uff26\uff55\uff4c\uff4cwidth ÉTÉ") == "fullwidth été"  # NFKC


def test_planted_edits_are_found() -> None:
    base = "how long do i have to return a damaged item"
    variants = [
        "How long do I have to return a damaged item?",  # case and punctuation
        "how long do i have to return a damaged item please",  # word added
        "how long do i have to return damaged item",  # word removed
        "how long do i have to return a broken item",  # word substituted
        "how long i do have to return a damaged item",  # neighbours swapped
        "how long do i have to send back a damaged item",  # two edits
    ]
    pairs = near_duplicate_pairs([base, *variants])
    assert {(0, j) for j in range(1, len(variants) + 1)} <= set(pairs)


def test_different_questions_are_not_paired() -> None:
    questions = [
        "Where is my order?",
        "Where is my refund?",  # 4 words, but one edit on a short question
        "Do you ship to Norway?",
        "Can I pay with PayPal?",
        "How long is the legal guarantee on products?",
        "How do I reset my password?",
    ]
    assert near_duplicate_pairs(questions) == []


def test_short_questions_must_match_exactly() -> None:
    assert allowed_distance(4) == 0
    assert near_duplicate_pairs(
        ["track my order now", "track my parcel now", "Track my order now!"]
    ) == [(0, 2)]


_words = st.lists(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=2, max_size=5).map(
    "".join
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(_words, min_size=1, max_size=14), min_size=2, max_size=30),
    st.integers(0, 2**32),
)
def test_blocking_finds_every_pair_that_verification_accepts(
    sentences: list[list[str]], seed: int
) -> None:
    """Compare with all-pairs: the fast method must find exactly the pairs within the limit."""
    from rapidfuzz.distance import OSA

    rng = random.Random(seed)
    questions = [" ".join(words) for words in sentences]
    for _ in range(5):  # plant close variants so that pairs exist
        words = rng.choice(sentences)[:]
        if len(words) > 1:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        words.insert(rng.randrange(len(words) + 1), "extra")
        questions.append(" ".join(words))
    expected = []
    tokens = [normalise(q).split() for q in questions]
    for a in range(len(questions)):
        for b in range(a + 1, len(questions)):
            limit = allowed_distance(max(len(tokens[a]), len(tokens[b])))
            if OSA.distance(tokens[a], tokens[b]) <= limit:
                expected.append((a, b))
    assert near_duplicate_pairs(questions) == expected  # small: every pair compared
    saved = neardup.PAIRWISE_BELOW
    neardup.PAIRWISE_BELOW = 0  # the blocking used for large sets
    try:
        assert near_duplicate_pairs(questions) == expected
    finally:
        neardup.PAIRWISE_BELOW = saved


def _filler(n: int) -> list[str]:
    """``n`` questions no two of which share a key (two words of each are its own), enough
    for the blocking to be used."""
    return [f"filler question {i} about item x{i}" for i in range(n)]


def test_a_group_too_large_to_compare_is_handed_back_not_dropped(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(neardup, "MAX_BUCKET", 5)
    alike = [f"What is the warranty period for the {c} model sold in this shop?"
             for c in ("red", "blue", "green", "black", "white", "grey", "pink")]  # fmt: skip
    questions = _filler(neardup.PAIRWISE_BELOW) + alike
    crowded: list[list[int]] = []
    pairs = near_duplicate_pairs(questions, crowded)
    first = neardup.PAIRWISE_BELOW
    assert crowded == [list(range(first, first + len(alike)))]
    assert not [p for p in pairs if p[0] >= first]  # not compared, and said to be so


def test_groups_past_the_comparison_budget_are_handed_back_smallest_compared_first(  # type: ignore[no-untyped-def]
    monkeypatch,
) -> None:
    """A set filled in from templates: before, every group of questions sharing a key was
    compared one by one, and each group once per key it shared (a word left out at a time):
    20 templates of 1,500 questions took minutes in every command that validates."""
    monkeypatch.setattr(neardup, "COMPARISONS", 100)
    templates = [
        ("How long do I have to return the {} model I bought in this shop?", 8),  # 28 pairs
        ("What is the warranty period for the {} model sold in this shop?", 12),  # 66 pairs
        ("Which courier delivers the {} model when I order it from this shop?", 10),  # 45
    ]
    questions = _filler(neardup.PAIRWISE_BELOW)
    ranges = []
    for text, count in templates:
        ranges.append(range(len(questions), len(questions) + count))
        questions += [text.format(f"x{k}") for k in range(count)]
    crowded: list[list[int]] = []
    pairs = set(near_duplicate_pairs(questions, crowded))
    # within the budget: 28 + 45 pairs (the smallest groups first); the 66 would pass it
    compared = [ranges[0], ranges[2]]
    assert pairs == {(a, b) for r in compared for a in r for b in r if a < b}
    assert crowded == [list(ranges[1])]


def test_identical_questions_pair_however_many_there_are(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(neardup, "MAX_BUCKET", 5)
    copies = ["How long do I have to return a damaged item?"] * 12
    questions = _filler(neardup.PAIRWISE_BELOW) + copies
    crowded: list[list[int]] = []
    pairs = near_duplicate_pairs(questions, crowded)
    first = neardup.PAIRWISE_BELOW
    assert [p for p in pairs if p[0] >= first] == [
        (a, b) for a in range(first, len(questions)) for b in range(a + 1, len(questions))
    ]
    assert crowded == []


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_words, min_size=30, max_size=40), min_size=2, max_size=12),
       st.integers(0, 2**32))  # fmt: skip
def test_blocking_finds_two_edits_between_long_questions(
    sentences: list[list[str]], seed: int
) -> None:
    """Questions of more than 32 words get keys that leave one word out, not two: before,
    two substitutions between two of them (a leak, on either side of the holdout) went
    unfound in a set large enough for the blocking (300 questions)."""
    from rapidfuzz.distance import OSA

    rng = random.Random(seed)
    questions = [" ".join(words) for words in sentences]
    for words in sentences[:4]:  # two substitutions apart
        changed = words[:]
        for i in rng.sample(range(len(changed)), 2):
            changed[i] = f"sub{i}"
        questions.append(" ".join(changed))
    tokens = [normalise(q).split() for q in questions]
    expected = [(a, b) for a in range(len(questions)) for b in range(a + 1, len(questions))
                if OSA.distance(tokens[a], tokens[b]) <= allowed_distance(
                    max(len(tokens[a]), len(tokens[b])))]  # fmt: skip
    saved = neardup.PAIRWISE_BELOW
    neardup.PAIRWISE_BELOW = 0
    try:
        assert near_duplicate_pairs(questions) == expected
    finally:
        neardup.PAIRWISE_BELOW = saved


# The normal form as a person reads a question: (text, its words). Before, combining vowel
# signs (not `\w` to Python's re) split Devanagari and Thai words into fragments, and an
# apostrophe or a hyphen split a word in two ("where s", "e mail").
NORMAL_FORMS = {
    "मेरा बिल कहाँ है": "मेरा बिल कहाँ है",
    "मेरा ऑर्डर अभी तक क्यों नहीं आया": "मेरा ऑर्डर अभी तक क्यों नहीं आया",
    "Where's my order now?": "wheres my order now",
    "You can\u2019t return it": "you cant return it",
    "Send an e-mail": "send an email",
    "refunds/returns - and - more": "refunds returns and more",
}


def test_normalise_keeps_words_whole() -> None:
    assert {text: normalise(text) for text in NORMAL_FORMS} == NORMAL_FORMS
    assert len(normalise("मेरा ऑर्डर अभी तक क्यों नहीं आया").split()) == 7
    # four words each, one apart: short questions must match exactly (before: a leak error)
    assert near_duplicate_pairs(["मेरा बिल कहाँ है", "मेरा बैग कहाँ है"]) == []
    assert near_duplicate_pairs(["Where's my order now?", "Where's my refund now?"]) == []
    # seven words, one apart: near duplicates (before: ten fragments, not paired)
    seven = ["मेरा ऑर्डर अभी तक क्यों नहीं आया", "मेरा पार्सल अभी तक क्यों नहीं आया"]
    assert near_duplicate_pairs(seven) == [(0, 1)]


@pytest.mark.parametrize("seed", range(3))
def test_the_pairs_of_a_few_questions_are_those_the_set_wide_search_finds(seed: int) -> None:
    """What an edit checks (its few questions against the set's many, in C) is what
    `validate` finds for them: planted near duplicates of up to three edits, questions too
    short to pair, an empty one."""
    rng = random.Random(seed)
    words = [f"w{n}" for n in range(60)]
    base = [" ".join(rng.choices(words, k=rng.randint(3, 14))) for _ in range(300)]
    asked = base + [_edited(rng.choice(base), rng, words) for _ in range(400)]
    asked += ["", "a b", "where is my order", "where is my refund"]
    pairs = near_duplicate_pairs(asked)
    assert len(pairs) > 100
    for _ in range(30):
        of = set(rng.sample(range(len(asked)), rng.randint(1, 40)))
        assert near_duplicates_of(asked, of) == [p for p in pairs if of & set(p)]


def _edited(question: str, rng: random.Random, words: list[str]) -> str:
    """``question`` with up to three word edits: a word substituted, deleted, inserted, or
    two neighbours swapped."""
    out = question.split()
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(len(out)) if out else 0
        kind = rng.choice(["sub", "del", "ins", "swap"])
        if kind == "sub" and out:
            out[at] = rng.choice(words)
        elif kind == "del" and len(out) > 1:
            del out[at]
        elif kind == "swap" and at + 1 < len(out):
            out[at], out[at + 1] = out[at + 1], out[at]
        else:
            out.insert(at, rng.choice(words))
    return " ".join(out)
