"""A chunk not found exactly (cleaned or reflowed by the retriever) resolves by its words to
the sections holding the largest share of them, and scores through ``evalset score
retrieval`` as the same run given as the citations of those sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import set_text, write_run

from conftest import commit_all, make_git_repo, write_files
from evalset.config import find_workspace
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.outline import Outlines
from evalset.corpus.snapshot import take_snapshot
from evalset.score.chunks import Resolver
from evalset.score.runfile import Chunk

SUMMARY = (
    "# Policy\n\n## Summary\n\nItems can be returned within fourteen days of delivery in the "
    "original packaging and with all labels still attached.\n\n## Returns\n\nItems can be "
    "returned within fourteen days of delivery in the original packaging and with all labels "
    "still attached, with the receipt.\nRefunds are paid to the original payment method.\n"
)
RECEIPT = (
    "# Policy\n\n## Notes\n\nKeep your receipt for every purchase.\n\n## Returns\n\nKeep your "
    "receipt for every purchase. Returns are accepted within fourteen days.\n"
)
REPEATED = (
    "# Help\n\nStart here.\n\n## Questions\n\nAsk us.\n\n# Other\n\nMore help.\n\n"
    "## Questions\n\nAsk us.\n"
)
NESTED = (
    "# Guide\n\nRead this first.\n\n## Returns\n\nSend it back within a month.\n\n"
    "### Damaged items\n\nDamaged items can be returned with a photo of the damage.\n\n"
    "## Shipping\n\nWe ship worldwide.\n\n## FAQ\n\nCommon questions.\n"
)
CJK = (
    "# 帮助\n\n## 退货\n\n商品在收到后十四天内可以退货。\n退货时请保留收据。\n\n"
    "## 配送\n\n我们在全国范围内配送商品。\n"
)
JAPANESE = (
    "# ヘルプ\n\n## 返品\n\n返品は商品の到着から十四日以内に受け付けます。\n"
    "レシートを保管してください。\n\n## 配送\n\n全国に配送します。\n"
)

# (document, chunk, the sections it stands for: "" for the whole document)
CASES = {
    # before, the shorter Summary (84% of the trigrams) took it: a miss for Returns
    "cleaned, the section holding all of it rather than a shorter one holding 84%": (
        SUMMARY,
        "items can be returned within fourteen days of delivery in the original packaging "
        "and with all labels still attached with the receipt",
        ["returns"],
    ),
    # before, only the first of the two (by length, then manifest order)
    "cleaned, in two unrelated sections": (
        RECEIPT, "keep your receipt for every purchase", ["notes", "returns"]),
    "upper-cased, in two unrelated sections": (
        RECEIPT, "KEEP YOUR RECEIPT FOR EVERY PURCHASE", ["notes", "returns"]),
    "cleaned, under a repeated heading": (
        REPEATED, "questions ask us", ["questions", "questions-1"]),
    "cleaned, a subsection rather than its parent": (
        NESTED, "damaged items can be returned with a photo of the damage",
        ["damaged-items"]),
    "cleaned, across two sections: the section holding both": (
        NESTED, "send it back within a month damaged items damaged items can be returned",
        ["returns"]),
    "cleaned, across top-level sections: the whole document": (
        REPEATED, "ask us other more help", [""]),
    # before, a chunk under three words never met a section's trigrams: unresolved
    "two words, punctuation added": (NESTED, "Ship worldwide!", ["shipping"]),
    "two words, upper-cased": (NESTED, "SHIP WORLDWIDE", ["shipping"]),
    "a lower-cased heading": (NESTED, "faq", ["faq"]),
    "one word under a repeated heading": (REPEATED, "QUESTIONS", ["questions", "questions-1"]),
    # before, a clause read as one word: under three words, and then unresolved
    "Chinese, lines joined without a space": (
        CJK, "商品在收到后十四天内可以退货。退货时请保留收据。", ["退货"]),
    "Chinese, lines joined with a comma": (
        CJK, "商品在收到后十四天内可以退货\uff0c退货时请保留收据", ["退货"]),
    "Japanese, lines joined without a space": (
        JAPANESE, "返品は商品の到着から十四日以内に受け付けます。レシートを保管してください。",
        ["返品"]),
}  # fmt: skip

ITEM_IDS = ("a1", "a2", "a3", "a4", "m1", "m2")  # the question texts scoring_ws has


def _workspace(root: Path, doc: str) -> tuple[Path, list[str]]:
    """A workspace of one document, with an item expecting each of its sections and one
    expecting the whole document; returns the repository and the items' expected citations."""
    repo = make_git_repo(root)
    write_files(repo, {"evalset.toml": "[validate]\nmin_per_category = 0\n", "corpus/e.md": doc})
    snap = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    view = Outlines(SnapshotStore(repo / "snapshots").newest(), repo).view("e.md")
    assert view is not None
    cited = [f"e.md#{s}" for s in view.parts] + ["e.md"]
    assert len(cited) <= len(ITEM_IDS)
    items = {i: ("lookup", False, [c]) for i, c in zip(ITEM_IDS, cited, strict=False)}
    write_files(repo, {"sets/docs.yaml": set_text(snap.short, items)})
    commit_all(repo, "one document")
    return repo, cited


def _metrics(cli: Any, repo: Path, entry: Any, name: str, items: int) -> dict[str, Any]:
    """Each item's metrics when the run retrieves ``entry`` for every item."""
    run = [{"id": i, "retrieved": [entry]} for i in ITEM_IDS[:items]]
    write_run(repo / f"{name}.jsonl", run)
    done = cli(repo, "score", "retrieval", "docs", f"{name}.jsonl", "-o", f"{name}.json")
    assert done.code == 0, done.err
    data = json.loads((repo / f"{name}.json").read_text())
    assert data["unresolved"] == []
    return {row["id"]: row["metrics"] for row in data["items"]}


@pytest.mark.parametrize("case", list(CASES))
def test_a_chunk_found_by_its_words_scores_as_the_sections_holding_most_of_them(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, case: str
) -> None:
    doc, text, sections = CASES[case]
    repo, expected = _workspace(tmp_path / "repo", doc)
    ws = find_workspace(repo)
    resolver = Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root))
    found = resolver.resolve(Chunk("e.md", text=text))
    assert found.how == "overlap"
    wanted = sorted(f"e.md#{s}" if s else "e.md" for s in sections)
    assert sorted(str(c) for c in found.citations) == wanted
    chunked = _metrics(cli, repo, {"doc": "e.md", "text": text}, "chunked", len(expected))
    cited = [_metrics(cli, repo, c, f"cited-{k}", len(expected)) for k, c in enumerate(wanted)]
    best = {i: {m: max(c[i][m] for c in cited) for m in chunked[i]} for i in chunked}
    assert chunked == best
    if len(wanted) > 1:  # the items expecting each of them find it
        hits = [
            chunked[i]["hit@1"] for i, c in zip(ITEM_IDS, expected, strict=False) if c in wanted
        ]
        assert hits == [1.0] * len(wanted)


COMMON = "# Pets\n\n## Cats\n\nThe cat sat still.\n\n## Dogs\n\nThe dog ran off.\n"


EVERYWHERE = "in 2 unrelated sections of e.md: too few words to tell which"
SAID_TWICE = "in 2 unrelated sections: too few words to tell which"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("THE", f"not found in e.md, and its word is {SAID_TWICE}"),
        ("cat, THE", "not found in e.md, and no section holds its words, one after the other"),
        ("Birds", "not found in e.md, and no section holds its word"),
        # found as written, a word or two in several sections tells no more: before, `The`
        # stood for both (a hit for any item expecting either), while `THE` was unresolved
        ("The", f"its word is {EVERYWHERE}"),
        ("the", f"not found in e.md, and its word is {SAID_TWICE}"),  # (case differs)
        ("**The**", f"its word is {EVERYWHERE}"),  # markup removed, as the snapshot's text
        ("ran off", None),  # one section's
        ("The cat sat", None),  # three words: one section's
    ],
)
def test_a_word_or_two_that_tells_no_section_is_listed_unresolved(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, text: str, reason: str | None
) -> None:
    """A common word held by several unrelated sections does not stand for all of them (a
    chunk ``the`` would find almost every item's section), however it was found; two words
    must be found in that order; before, every chunk under three words was unresolved with
    "best 0%"."""
    repo, _ = _workspace(tmp_path / "repo", COMMON)
    write_run(repo / "run.jsonl", [{"id": "a1", "retrieved": [{"doc": "e.md", "text": text}]}])
    done = cli(repo, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    assert done.code == 0, done.err
    data = json.loads((repo / "out.json").read_text())
    assert [u["reason"] for u in data["unresolved"]] == ([reason] if reason else [])


FORMS = (
    "# Shop\n\n## Office\n\nThe o\ufb03ce is open for \ufb01ve days a week.\n\n"
    "## Stra\u00dfe\n\nDie Stra\u00dfe vor dem Laden ist ab acht Uhr gesperrt.\n\n"
    "## R\u00fcckgabe\n\nDie R\u00fcck\u00adgabe ist kosten\u200blos innerhalb von "
    "vierzehn Tagen.\n\n## \u30ab\u30fc\u30c9\n\n\uff21\uff23\uff2d\uff25 "
    "\uff76\uff70\uff84\uff9e\u3067\u6255\u3048\u307e\u3059\u3002\n"
)
"""Text as PDFs and web pages leave it: ligatures, a soft hyphen and a zero-width space
within words, full-width letters and half-width katakana."""


@pytest.mark.parametrize(
    ("text", "section"),
    [
        # the retriever's text in compatibility form (NFKC), as text cleaning leaves it
        ("the office is open for five days a week", "office"),
        ("THE OFFICE IS OPEN", "office"),
        ("office is", "office"),
        ("ACME \u30ab\u30fc\u30c9\u3067\u6255\u3048\u307e\u3059", "\u30ab\u30fc\u30c9"),
        # the corpus in compatibility form, the chunk with ligatures
        # (in capitals: a snapshot leaves the soft hyphen and zero-width space out, so the
        # chunk as written is found exactly)
        ("Die R\u00fcckgabe ist KOSTENLOS", "r\u00fcckgabe"),
        ("die r\u00fcckgabe ist kostenlos innerhalb von vierzehn tagen", "r\u00fcckgabe"),
        ("R\u00dcCKGABE IST", "r\u00fcckgabe"),
        # upper case of a sharp s (case folded: SS)
        ("DIE STRASSE VOR DEM LADEN", "stra\u00dfe"),
        ("STRASSE", "stra\u00dfe"),
    ],
)
def test_words_compare_as_a_reader_reads_them(tmp_path: Path, text: str, section: str) -> None:
    """A chunk's words are compared in compatibility form (NFKC) and case folded, and a soft
    hyphen or zero-width space does not split a word: before, a retriever that cleaned its
    text (\"office\" for \"o\ufb03ce\", ACME for the full-width letters, a word without the
    soft hyphen) matched no section's words, and its chunk was listed unresolved."""
    repo, _ = _workspace(tmp_path / "repo", FORMS)
    ws = find_workspace(repo)
    found = Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root)).resolve(
        Chunk("e.md", text=text)
    )
    assert (found.how, [str(c) for c in found.citations]) == ("overlap", [f"e.md#{section}"])


def test_a_document_is_read_for_scripts_without_spaces_in_the_form_its_words_are(
    tmp_path: Path,
) -> None:
    """Its only ideograph is a compatibility character ("㊙", NFKC "秘"): the document was
    taken to hold no script without spaces, and read "project秘notes" as one word where the
    chunk's words are three; the chunk was unresolved."""
    doc = "# Notes\n\n## Secret\n\nProject\u3299notes are kept apart.\n\n## Other\n\nNothing.\n"
    repo, _ = _workspace(tmp_path / "repo", doc)
    ws = find_workspace(repo)
    found = Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root)).resolve(
        Chunk("e.md", text="PROJECT\u79d8NOTES ARE KEPT")
    )
    assert [str(c) for c in found.citations] == ["e.md#secret"]


PARTS = (
    "# Rewards\n\n## Points\n\nYou earn 21 points per order and keep them 130 days.\n\n"
    "## Expiry\n\nUnused points expire after 30 days.\n\n## 退货\n\n可以退货时请保留收据。\n"
)


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        # a word or two found inside longer words is not found: before, "30 days" stood for
        # Points too (in "130 days"), and "1 point" for Points (in "21 points")
        ("30 days", ["expiry"]),
        ("30 days.", ["expiry"]),
        ("1 point", []),
        ("xpire", []),
        ("", []),
        (" ", []),
        ("points", []),  # as whole words, in each: a word in two sections tells neither
        ("Unused points", ["expiry"]),
        ("You earn", ["points"]),
        # characters of a script without spaces are words of their own
        ("退货", ["退货"]),
        ("保留", ["退货"]),
        # three words or more are found as written, cut inside words at their ends as a
        # chunker cuts them
        ("ou earn 21 poi", ["points"]),
    ],
)
def test_a_word_or_two_is_found_exactly_only_as_whole_words(
    tmp_path: Path, text: str, sections: list[str]
) -> None:
    assert _standing_for(tmp_path, PARTS, text) == sorted(f"e.md#{s}" for s in sections)


def _standing_for(tmp_path: Path, doc: str, text: str) -> list[str]:
    """What a chunk of ``text`` stands for in a snapshot of ``doc``, sorted."""
    repo, _ = _workspace(tmp_path / "repo", doc)
    ws = find_workspace(repo)
    found = Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root)).resolve(
        Chunk("e.md", text=text)
    )
    return sorted(str(c) for c in found.citations)


MARKED = (
    "# Books\n\n## वापसी\n\nकिताब तीस दिनों में लौटाएँ।\n\n## बदलाव\n\nकिताब बदलने के लिए रसीद रखें।\n"
    "\n## திருப்பி\n\nபுத்தகம் முப்பது நாட்களில்\n\n## மாற்றம்\n\nபுத்தகம் மாற்ற ரசீது\n"
)
"""Words whose vowels are combining marks (Devanagari, Tamil)."""


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        # before, "किताब" was the three words क, त and ब: found as written, it stood for both
        # sections holding it; and "ीस", the end of "तीस", was found inside that word
        ("किताब", []),
        ("புத்தகம்", []),
        ("किताब तीस", ["वापसी"]),
        ("तीस", ["वापसी"]),
        ("ीस", []),
        ("ரசீது", ["மாற்றம்"]),
        ("சீது", []),
        ("किताब बदलने के लिए", ["बदलाव"]),
    ],
)
def test_a_word_with_combining_marks_is_one_word(
    tmp_path: Path, text: str, sections: list[str]
) -> None:
    assert _standing_for(tmp_path, MARKED, text) == sorted(f"e.md#{s}" for s in sections)
