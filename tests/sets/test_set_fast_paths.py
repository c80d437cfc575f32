"""The fast paths of reading and validating a set give what the plain way gives: a set
parsed ahead in a thread, header positions found in the header alone, and the errors of a
validation that does not locate its warnings, each fed generated set files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import seeded
from evalset.config import ValidateConfig
from evalset.sets.setfile import parse_set
from evalset.sets.validate import Baseline, check_set

QUESTIONS = [
    "How long do I have to return a damaged item?",
    "how long do i have to return a DAMAGED item",  # a near duplicate of the first
    "Which payment methods are accepted?",
    "Can I change my delivery address after ordering?",
    "What is the weather on Mars?",
]
POINT = "Damaged items can be returned within 30 days"


@st.composite
def set_items(draw: st.DrawFn, k: int) -> str:
    """One item with any mix of the problems validation finds: a repeated id, a category
    missing or not declared, labels missing or not allowed, a draft lacking things, a key
    point source outside expected_sources, a must_not_say that is a key point, a near
    duplicate across the holdout split, an unknown key, a value of the wrong type."""
    ident = draw(st.sampled_from([f"q-{k}", f"q-{k}", "q-0"]))
    lines = [f"  - id: {ident}", f"    question: {draw(st.sampled_from(QUESTIONS))}"]
    category = draw(st.sampled_from(["lookup", "lookup", "refuse", "typo", None]))
    if category:
        lines.append(f"    category: {category}")
    status = draw(st.sampled_from([None, None, "draft", "retired"]))
    if status:
        lines.append(f"    status: {status}")
    if draw(st.booleans()):
        lines.append("    expected_sources: [policies/returns.md#damaged-items]")
    if draw(st.booleans()):
        source = draw(st.sampled_from(["policies/returns.md#damaged-items", "other.md#x"]))
        lines += ["    key_points:", f"      - text: {POINT}", f"        sources: [{source}]"]
    if draw(st.integers(0, 3)) == 0:
        lines.append(f"    must_not_say: ['{draw(st.sampled_from([POINT.upper(), 'Never']))}']")
    answerable = draw(st.sampled_from([None, None, "false", "maybe"]))
    if answerable:
        lines.append(f"    answerable: {answerable}")
    holdout = draw(st.sampled_from([None, "true", "false"]))
    if holdout:
        lines.append(f"    holdout: {holdout}")
    if draw(st.integers(0, 5)) == 0:
        lines.append("    unknown_key: 1")
    if draw(st.integers(0, 4)) == 0:
        lines.append("    # a comment inside the item")
    return "\n".join(lines) + "\n"


@st.composite
def set_texts(draw: st.DrawFn) -> str:
    """A set file: the header keys in any order (some after the items), comments and blank
    lines between items, CR LF line breaks."""
    header = [
        "evalset: 1\n",
        "name: rules\n",
        "categories:\n  lookup: one section\n  refuse: cannot answer  # a comment\n  empty: none\n",
        "description: A set\n",
    ]
    order = draw(st.permutations(range(len(header))))
    after = draw(st.integers(0, len(header)))  # the header keys after the items
    items = [draw(set_items(k)) for k in range(draw(st.integers(0, 8)))]
    body = "".join(draw(st.sampled_from(["", "", "\n", "  # between items\n"])) + i for i in items)
    text = "".join(header[i] for i in order[:after]) + "items:\n" + body
    text += "".join(header[i] for i in order[after:])
    return text.replace("\n", "\r\n") if draw(st.integers(0, 4)) == 0 else text


def _baseline(text: str) -> Baseline:
    """The set as committed before its holdout flags were flipped by hand."""
    flipped = text.replace("holdout: true", "holdout: x").replace("holdout: false", "holdout: true")
    return Baseline(
        parse_set(flipped.replace("holdout: x", "holdout: false"), Path("rules.yaml")), "HEAD"
    )


# --- check_set(..., errors_only=True) ------------------------------------------------------


@seeded(150)
@given(set_texts(), st.integers(0, 3))
def test_errors_only_gives_the_errors_of_a_full_check(text: str, minimum: int) -> None:
    """Every family of finding, mixed, with a holdout baseline and coverage minimums: the
    same errors, in the same order, at the same positions."""
    config = ValidateConfig(min_per_category=minimum)
    every = check_set(parse_set(text, Path("rules.yaml")), config, baseline=_baseline(text))
    wanted = [str(f) for f in every if f.severity == "error"]
    loaded = parse_set(text, Path("rules.yaml"))  # positions found afresh
    found = check_set(loaded, config, baseline=_baseline(text), errors_only=True)
    assert [str(f) for f in found] == wanted


def test_errors_only_gives_the_errors_of_a_full_check_past_the_parse_budget() -> None:
    """A set with more warnings inside items than the budget of exact positions: the
    warnings, located first, used it up, so an error after them was placed at its field in
    a full check and exactly with ``errors_only``."""
    from evalset.sets.locate import MAX_REGION_PARSES

    text = "evalset: 1\nname: rules\ncategories:\n  lookup: one section\nitems:\n"
    for k in range(MAX_REGION_PARSES + 20):
        text += (
            f"  - id: q-{k}\n    question: Question {k} on topic {k * 7919}?\n"
            "    category: lookup\n    expected_sources: [a.md#x]\n"
            "    key_points:\n      - text: A fact\n        sources: [b.md#y]\n"
        )
    text += (
        "  - id: q-last\n    question: Where?\n    category: lookup\n"
        "    expected_sources: [a.md#x]\n    key_points:\n      - text: A fact\n"
        "        sources: [a.md#x]\n    must_not_say: [a fact]\n"
    )
    every = check_set(parse_set(text, Path("rules.yaml")), ValidateConfig())
    assert sum(f.severity == "warning" for f in every) > MAX_REGION_PARSES
    wanted = [str(f) for f in every if f.severity == "error"]
    found = check_set(parse_set(text, Path("rules.yaml")), ValidateConfig(), errors_only=True)
    assert [str(f) for f in found] == wanted
    line = text.splitlines().index("    must_not_say: [a fact]") + 1
    assert wanted == [
        f"rules.yaml:{line}:20: item q-last: must_not_say[0]: error: the same statement is "
        "also a key point, so no answer can pass (remove it from one of the two lists)"
    ]


# --- TextIndex: header positions from the header alone ------------------------------------------

HEADER_PATHS = [("evalset",), ("name",), ("description",), ("categories",),
                ("categories", "lookup"), ("categories", "empty"), ("nothing",),
                ("items",)]  # fmt: skip


@seeded(80)
@given(set_texts(), st.data())
def test_positions_are_those_of_a_whole_parse(text: str, data: st.DataObject) -> None:
    """Header keys before, after or around the items, asked first (found in the header
    alone) or after the items were scanned, and paths inside items: the position a
    ruamel.yaml parse of the whole file gives (or its nearest ancestor's)."""
    from evalset.sets.locate import TextIndex, _node_position

    whole_index = TextIndex(text)
    count = text.count("  - id: ")
    paths = [*HEADER_PATHS]
    for k in range(count):
        paths += [("items", k), ("items", k, "question"), ("items", k, "category"),
                  ("items", k, "key_points", 0, "sources", 0),
                  ("items", k, "must_not_say", 0)]  # fmt: skip
    for path in data.draw(st.permutations(paths)):
        whole = _node_position(whole_index._whole, path)
        assert whole is not None or path == ("nothing",)
        expected = (whole[0] + 1, whole[1] + 1) if whole else None
        fresh = TextIndex(text)  # nothing scanned yet: a header key is found in the header
        assert fresh.position(path, count) == expected, path
        scanned = TextIndex(text)
        assert scanned.spans is not None or "\r" in text or not count
        assert scanned.position(path, count) == expected, path


# --- yamlio.prefetch: a set parsed ahead in a thread ------------------------------------------


ENCODINGS = ["utf-8", "utf-8", "utf-8-sig", "utf-16"]
DAMAGE = ["", "", "\t", "{", "name: again\n", "<<<<<<< HEAD\n", "x: !!python/object y\n"]


@seeded(25)
@given(set_texts(), st.sampled_from(ENCODINGS), st.sampled_from(DAMAGE), st.booleans())
def test_a_prefetched_set_loads_as_a_set_read_when_asked(
    tmp_path_factory: pytest.TempPathFactory, text: str, encoding: str, damage: str, bad: bool
) -> None:
    """Valid and broken files, with a byte-order mark, UTF-16, bad UTF-8: the set (its
    values, items, findings and their positions) or the refusal is the same whether the
    file was parsed ahead in a thread or when asked."""
    import threading

    from evalset.errors import SetFileError
    from evalset.sets import yamlio
    from evalset.sets.setfile import load_set
    from evalset.sets.yamlio import prefetch

    path = tmp_path_factory.mktemp("set") / "rules.yaml"
    data = (text + damage).encode(encoding)
    path.write_bytes(data + (b"\xff" if bad else b""))

    def load(ahead: bool) -> object:
        if ahead:
            prefetch(path)
        try:
            loaded = load_set(path)
        except SetFileError as exc:
            return str(exc)
        findings = [str(f) for f in loaded.schema_findings]
        return loaded.raw, loaded.items, loaded.header, findings, loaded.text, loaded.bom

    assert load(ahead=True) == load(ahead=False)
    assert not yamlio._prefetched and threading.active_count() == 1


# --- near duplicates: blocking on shared word multisets vs comparing every pair -------------


def test_the_blocking_finds_the_pairs_of_a_large_group() -> None:
    from evalset.sets.neardup import _all_pairs, near_duplicate_pairs, normalise

    colours = ["red", "blue", "green", "black", "white", "grey", "pink", "gold", "teal", "navy",
               "lime", "plum", "rose", "sand", "jade", "ruby", "onyx", "opal", "iris", "mint",
               "sage"]  # fmt: skip
    template = [f"What is the warranty period for the {a} {b} model sold here?"
                for a in colours for b in colours]  # fmt: skip
    copies = ["How long do I have to return a damaged item?"] * 401
    for questions in (copies + template[:10], template):
        vocabulary: dict[str, int] = {}
        ids = [[vocabulary.setdefault(w, len(vocabulary)) for w in normalise(q).split()]
               for q in questions]  # fmt: skip
        assert near_duplicate_pairs(questions) == _all_pairs(ids)
