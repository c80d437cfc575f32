"""Near-duplicate questions, found without comparing every pair.

Two questions are near duplicates when, after normalisation (Unicode NFKC, case folding,
punctuation dropped), their word sequences are within a small edit distance: at most one
word inserted, deleted, substituted or two neighbours swapped when the longer question has
5-8 words, two such edits from 9 words on, and none below 5 words (where one word changes
the meaning: "where is my order" is not "where is my refund").

Candidates come from blocking on *multisets* of words with up to two words deleted: any pair
within the distance above shares such a multiset (a swap does not change the multiset; each
substitution or insertion costs one deletion on one or both sides). A multiset is keyed by the
sum of its words' 64-bit hashes, so every key of a question is its total minus one or two word
hashes: computed with numpy for all questions of one length at once, then grouped by sorting.
Candidates are verified with rapidfuzz's optimal-string-alignment distance over word ids.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import regex

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_NON_WORD = regex.compile(r"[^\w]+")
"""Runs of what is not part of a word (``regex``'s ``\\w`` holds the combining marks that
carry the vowels of Devanagari, Tamil or Thai words: ``re``'s split them into fragments)."""
_INSIDE_WORD = regex.compile(r"(?<=\w)['\u2019\u02bc\u2010\u2011-](?=\w)")
"""An apostrophe or hyphen within a word, dropped (``where's`` is one word, as ``e-mail``
is ``email``); other punctuation parts words."""
_ASCII_NON_WORD = re.compile(r"[^\w]+", re.ASCII)
_ASCII_INSIDE_WORD = re.compile(r"(?<=\w)['-](?=\w)", re.ASCII)
"""The two above for ASCII text, which has no marks: the standard library's, twice as fast."""
MAX_WORDS_FOR_TWO_DELETIONS = 32
MAX_BUCKET = 2000
"""Distinct questions sharing one key beyond which they are not compared one by one (two
million comparisons, a second or two): such a group is handed back as ``crowded``, and
validation says so rather than staying silent. Identical questions never count here: they
are paired without comparing them."""
COMPARISONS = 2_000_000
"""Pairs compared one by one in all, at most (a few seconds): the groups of questions sharing
a key are compared smallest first, and those past this budget are handed back as
``crowded``, as a group past ``MAX_BUCKET`` is. Without it, a set filled in from twenty
templates of 1,500 questions each took minutes (22 million pairs) in every command that
validates it."""


def normalise(text: str) -> str:
    """The form questions are compared in: NFKC, case-folded, punctuation dropped (within a
    word) or parting words, words separated by one space."""
    if text.isascii():  # (NFKC leaves ASCII as it is, and case folds it as lower does)
        folded = text.lower()
        if "'" in folded or "-" in folded:
            folded = _ASCII_INSIDE_WORD.sub("", folded)
        return " ".join(_ASCII_NON_WORD.sub(" ", folded).split())
    folded = _INSIDE_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(_NON_WORD.sub(" ", folded).split())


def allowed_distance(n_words: int) -> int:
    """Word edits allowed between two questions whose longer one has ``n_words`` words."""
    if n_words < 5:
        return 0
    return 1 if n_words < 9 else 2


def _deletions(n_words: int) -> int:
    """How many words to delete from a question of ``n_words`` words when making its keys.

    A pair within ``allowed_distance`` needs at most this many on each side: two only when
    both have 9 or more words (two substitutions); one when the longer has 5 to 8 words or
    the shorter is one word shorter than a 9-word question."""
    if n_words < 4:
        return 0
    if n_words < 9 or n_words > MAX_WORDS_FOR_TWO_DELETIONS:
        return 1
    return 2


def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


def _keys(
    token_ids: list[list[int]], word_hashes: NDArray[np.uint64]
) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """Every question's multiset keys and, for each key, the question it belongs to."""
    import numpy as np

    by_length: dict[int, list[int]] = {}
    for q, ids in enumerate(token_ids):
        by_length.setdefault(len(ids), []).append(q)
    keys: list[NDArray[np.uint64]] = []
    owners: list[NDArray[np.int64]] = []
    for n, questions in by_length.items():
        if n == 0:
            continue
        owner = np.asarray(questions, dtype=np.int64)
        hashes = word_hashes[np.asarray([token_ids[q] for q in questions], dtype=np.int64)]
        total = hashes.sum(axis=1, dtype=np.uint64)
        parts = [total[:, None]]
        depth = _deletions(n)
        if depth >= 1:
            parts.append(total[:, None] - hashes)
        if depth >= 2:
            i, j = np.triu_indices(n, k=1)
            parts.append(total[:, None] - hashes[:, i] - hashes[:, j])
        block = np.concatenate(parts, axis=1)
        keys.append(block.ravel())
        owners.append(np.repeat(owner, block.shape[1]))
    if not keys:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    return np.concatenate(keys), np.concatenate(owners)


def _candidates(
    keys: NDArray[np.uint64], owners: NDArray[np.int64], crowded: list[list[int]]
) -> set[tuple[int, int]]:
    import numpy as np

    # Shared keys are rare (near duplicates are): find them by sorting the keys alone, then
    # group only the entries holding one (sorting values is twice as fast as sorting
    # positions, and most sets have no shared key at all).
    ordered = np.sort(keys)
    shared = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
    pairs: set[tuple[int, int]] = set()
    if not len(shared):
        return pairs
    held = np.flatnonzero(np.isin(keys, shared))
    order = np.argsort(keys[held], kind="stable")
    keys, owners = keys[held][order], owners[held][order]
    same = keys[1:] == keys[:-1]
    # Runs of equal keys: starts where a run begins, ends one past its last element.
    edges = np.flatnonzero(np.diff(np.concatenate(([0], same.astype(np.int8), [0]))))
    # Questions alike but for a word share a key for each other word left out: their group
    # is one, however many keys hold it (a template filled in gave each pair ten times).
    groups = {
        tuple(sorted(set(owners[start:stop].tolist())))
        for start, stop in zip(edges[0::2], edges[1::2] + 1, strict=True)
    }
    spent = 0
    for members in sorted(groups, key=lambda g: (len(g), g)):  # the small groups first
        cost = len(members) * (len(members) - 1) // 2
        if len(members) > MAX_BUCKET or spent + cost > COMPARISONS:
            crowded.append(list(members))
            continue
        spent += cost
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1 :]:
                pairs.add((a, b))
    return pairs


PAIRWISE_BELOW = 300
"""Sets smaller than this compare every pair directly: as exact, and cheaper than loading
numpy (about 0.1 s, half of what `evalset status` may take)."""


def near_duplicate_pairs(
    questions: Sequence[str], crowded: list[list[int]] | None = None
) -> list[tuple[int, int]]:
    """Index pairs (i < j) of near-duplicate questions, sorted. Groups of more than
    ``MAX_BUCKET`` distinct questions that share a key are not compared one by one: their
    indices are appended to ``crowded`` (each group sorted)."""
    from itertools import combinations

    from rapidfuzz.distance import OSA

    vocabulary: dict[str, int] = {}
    token_ids = [
        [vocabulary.setdefault(word, len(vocabulary)) for word in normalise(q).split()]
        for q in questions
    ]
    if len(questions) < PAIRWISE_BELOW:
        return _all_pairs(token_ids)
    import numpy as np

    # identical questions are near duplicates however many there are: the blocking sees one
    # of each, and its pairs stand for every pair of their copies
    copies: dict[tuple[int, ...], list[int]] = {}
    for q, ids in enumerate(token_ids):
        copies.setdefault(tuple(ids), []).append(q)
    distinct = [list(ids) for ids in copies]
    holders = list(copies.values())
    found = [pair for ids, group in copies.items() if ids for pair in combinations(group, 2)]
    word_hashes = np.fromiter(
        (_word_hash(w) for w in vocabulary), dtype=np.uint64, count=len(vocabulary)
    )
    keys, owners = _keys(distinct, word_hashes)
    skipped: list[list[int]] = []
    candidates = _candidates(keys, owners, skipped)
    candidates |= _long_candidates(distinct, skipped)
    for a, b in sorted(candidates):
        limit = allowed_distance(max(len(distinct[a]), len(distinct[b])))
        if OSA.distance(distinct[a], distinct[b], score_cutoff=limit) <= limit:
            found += [(min(x, y), max(x, y)) for x in holders[a] for y in holders[b]]
    if crowded is not None:  # a group shares several keys (one per word left out): once
        groups = {tuple(sorted(q for d in group for q in holders[d])) for group in skipped}
        crowded += [list(group) for group in sorted(groups)]
    return sorted(found)


FEW_AGAINST_MANY = 2_000_000
"""Comparisons beyond which ``near_duplicates_of`` finds the pairs of every question (by
blocking) and keeps those it was asked for, rather than compare its few one by one."""


def near_duplicates_of(
    questions: Sequence[str], of: Collection[int], words: dict[str, list[str]] | None = None
) -> list[tuple[int, int]]:
    """Index pairs (i < j) of near-duplicate questions at least one of which is at an index
    in ``of``: each of those compared with every other question (an edit's few against a
    set's many), by the rule of ``near_duplicate_pairs``. ``words``: each question's
    normalised words, kept across calls (the same questions before and after an edit)."""
    chosen = set(of)
    if len(chosen) * len(questions) > FEW_AGAINST_MANY:
        return [p for p in near_duplicate_pairs(questions) if p[0] in chosen or p[1] in chosen]
    from rapidfuzz.distance import OSA

    known = {} if words is None else words
    tokens = [known.get(q) or known.setdefault(q, normalise(q).split()) for q in questions]
    rows = sorted(a for a in chosen if tokens[a])
    if not rows:
        return []
    import numpy as np
    from rapidfuzz import process

    # every distance at once, in C, cut at the largest allowed; each pair then at its own
    most = allowed_distance(MAX_WORDS_FOR_TWO_DELETIONS)
    near = process.cdist([tokens[a] for a in rows], tokens, scorer=OSA.distance, score_cutoff=most)
    found = set()
    for r, b in zip(*np.nonzero(near <= most), strict=True):
        a, second = rows[r], tokens[b]
        if b == a or not second:
            continue
        if near[r, b] <= allowed_distance(max(len(tokens[a]), len(second))):
            found.add((min(a, int(b)), max(a, int(b))))
    return sorted(found)


LONG_COMPARISONS = 2_000_000
"""Comparisons of long questions (``MAX_WORDS_FOR_TWO_DELETIONS`` words and more) one by one
beyond which they are handed back as ``crowded`` rather than compared: such questions are rare,
and a set of thousands would take seconds."""


def _long_candidates(distinct: list[list[int]], crowded: list[list[int]]) -> set[tuple[int, int]]:
    """Pairs with a question longer than ``MAX_WORDS_FOR_TWO_DELETIONS`` words, whose keys
    leave one word out, not two: two substitutions apart, they share no key. Each is paired
    with every question within two words of its length (the blocking finds the rest)."""
    long = [q for q, ids in enumerate(distinct) if len(ids) > MAX_WORDS_FOR_TWO_DELETIONS]
    if not long:
        return set()
    by_length: dict[int, list[int]] = {}
    for q, ids in enumerate(distinct):
        if len(ids) > MAX_WORDS_FOR_TWO_DELETIONS - 2:
            by_length.setdefault(len(ids), []).append(q)
    near = {q: [o for n in range(len(distinct[q]) - 2, len(distinct[q]) + 3)
                for o in by_length.get(n, ()) if o != q] for q in long}  # fmt: skip
    if sum(map(len, near.values())) > LONG_COMPARISONS:
        crowded.append(sorted(long))
        return set()
    return {(min(q, o), max(q, o)) for q, others in near.items() for o in others}


def _all_pairs(token_ids: list[list[int]]) -> list[tuple[int, int]]:
    """Every pair within the allowed distance, by comparing all of them (what the blocking
    above finds without doing so)."""
    from rapidfuzz.distance import OSA

    found = []
    for a, first in enumerate(token_ids):
        if not first:
            continue
        for b in range(a + 1, len(token_ids)):
            second = token_ids[b]
            if not second:
                continue
            limit = allowed_distance(max(len(first), len(second)))
            if abs(len(first) - len(second)) > limit:
                continue
            if OSA.distance(first, second, score_cutoff=limit) <= limit:
                found.append((a, b))
    return found
