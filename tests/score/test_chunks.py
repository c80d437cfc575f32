"""Chunks given as text or as spans resolve to the sections of the snapshot that hold them,
and score exactly as the same run given as citations; what does not resolve is listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import FAQ, GUIDE, RUN, make_workspace, score_ws, set_text, write_run

from conftest import commit_all, write_files
from evalset.config import find_workspace
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.outline import Outlines
from evalset.corpus.snapshot import take_snapshot
from evalset.score.chunks import Resolver
from evalset.score.retrieval import Options, TextUnreadable, score_retrieval
from evalset.score.runfile import Chunk

__all__ = ["score_ws"]

# Each citation of RUN, as a chunk a retriever would return for it.
AS_TEXT = {
    "faq.md#hours": {"doc": "faq.md", "text": "The shop is open from nine to five,"},
    "guide.md#damaged-returns": {
        "doc": "guide.md",
        "text": "Damaged returns\n\nDamaged items can be returned within **30 days**",
    },
    "guide.md#shipping": {"doc": "guide.md", "text": "Shipping costs 4.95 below fifty euros"},
    "guide.md#returns": {
        "doc": "guide.md",
        "text": "Return within 14 days of delivery, unused and in the original box.",
    },
    "faq.md#contact": {"doc": "faq.md", "text": "Call us on weekdays"},
    "guide.md#payments": {"doc": "guide.md", "text": "We accept cards, bank transfers"},
    "guide.md": {"doc": "guide.md", "text": "and is free above. ## Payments We accept cards"},
}


def _span(doc: str, source: str, text: str) -> dict[str, Any]:
    start = source.index(text)
    return {"doc": doc, "start": start, "end": start + len(text)}


AS_SPAN = {
    "faq.md#hours": _span("faq.md", FAQ, "from nine to five, Monday"),
    "guide.md#damaged-returns": _span("guide.md", GUIDE, "within **30 days** with a photo"),
    "guide.md#shipping": _span("guide.md", GUIDE, "Shipping costs 4.95"),
    "guide.md#returns": _span("guide.md", GUIDE, "## Returns\n\nReturn within 14 days"),
    "faq.md#contact": _span("faq.md", FAQ, "write to the support address"),
    "guide.md#payments": _span("guide.md", GUIDE, "bank transfers and gift cards"),
    "guide.md": _span("guide.md", GUIDE, "free above.\n\n## Payments\n\nWe accept"),
}


def _report(
    repo: Path, run: list[dict[str, Any]], name: str = "run.jsonl", options: Options | None = None
) -> dict[str, Any]:
    path = write_run(repo / name, run)
    report = score_retrieval(find_workspace(repo), repo / "sets" / "docs.yaml", path, options)
    data: dict[str, Any] = json.loads(report.render())
    return data


def _as(run: list[dict[str, Any]], table: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**line, "retrieved": [table[c] for c in line["retrieved"]]} for line in run]


WITH_METADATA = {
    c: {**chunk, "metadata": {"score": 0.9, "chunk_id": 7}} for c, chunk in AS_TEXT.items()
}
"""The chunks as a retriever's own output carries them: extra data under "metadata"."""


@pytest.mark.parametrize(
    "table", [AS_TEXT, AS_SPAN, WITH_METADATA], ids=["text", "span", "with metadata"]
)
def test_chunks_score_exactly_as_the_same_run_given_as_citations(
    score_ws: Path, table: dict[str, dict[str, Any]]
) -> None:
    cited = _report(score_ws, RUN, "cited.jsonl")
    chunked = _report(score_ws, _as(RUN, table), "chunked.jsonl")
    assert chunked["unresolved"] == []
    assert [r["metrics"] for r in chunked["items"]] == [r["metrics"] for r in cited["items"]]
    for key in ("overall", "categories", "splits"):
        assert chunked[key] == cited[key]


def _resolver(repo: Path) -> Resolver:
    ws = find_workspace(repo)
    return Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root))


def test_how_each_chunk_resolves(score_ws: Path) -> None:
    resolve = _resolver(score_ws).resolve
    found = resolve(Chunk("guide.md", text="Damaged items can be returned"))
    assert [str(c) for c in found.citations] == ["guide.md#damaged-returns"]
    assert found.how == "exact"
    # markup the snapshot does not keep: found once rendered
    marked = resolve(Chunk("guide.md", text="within **30 days** with a photo"))
    assert marked.how == "rendered" and str(marked.citations[0]) == "guide.md#damaged-returns"
    # the heading of a section and its text: that section, not its parent
    headed = resolve(Chunk("guide.md", text="Returns Return within 14 days"))
    assert [str(c) for c in headed.citations] == ["guide.md#returns"]
    # a passage across two sections: the section holding both
    across = resolve(Chunk("guide.md", text="original box. Damaged returns Damaged items"))
    assert [str(c) for c in across.citations] == ["guide.md#returns"]
    # before the first heading: the whole document
    before = resolve(Chunk("faq.md", text="Welcome to the frequently asked questions."))
    assert [str(c) for c in before.citations] == ["faq.md"]
    # cleaned by the retriever (case, punctuation): by overlap
    cleaned = resolve(Chunk("guide.md", text="we ACCEPT cards; bank transfers and gift-cards!"))
    assert cleaned.how == "overlap" and str(cleaned.citations[0]) == "guide.md#payments"
    # a plain-text document has only the whole-document citation
    notes = resolve(Chunk("notes.txt", text="notes without any"))
    assert [str(c) for c in notes.citations] == ["notes.txt"]


@pytest.mark.parametrize("granularity", ["section", "document"])
def test_what_does_not_resolve_is_listed_with_the_reason(score_ws: Path, granularity: str) -> None:
    """At document granularity too: before, a chunk was taken for a part of the document it
    named, whatever its text, and credited with it."""
    run = [
        {"id": "a1", "retrieved": [{"doc": "guide.md", "text": "Bananas are yellow and curved."},
                                   {"doc": "missing.md", "text": "anything"},
                                   {"doc": "guide.md", "start": 10, "end": 100000},
                                   "guide.md#returns"]},
    ]  # fmt: skip
    data = _report(score_ws, run, options=Options(granularity=granularity))  # type: ignore[arg-type]
    reasons = [(u["rank"], u["reason"]) for u in data["unresolved"]]
    assert reasons[0][0] == 1 and reasons[0][1].startswith(
        "not found in guide.md, and no section holds 80% of its word trigrams (best "
    )
    assert reasons[1] == (2, f"it is not in snapshot {data['snapshot']}")
    assert reasons[2][0] == 3 and reasons[2][1].startswith("the span ends at 100000, past")
    assert data["unresolved"][0]["chunk"] == {
        "doc": "guide.md",
        "text": "Bananas are yellow and curved.",
    }
    assert data["counts"]["unresolved_chunks"] == 3
    row = next(r for r in data["items"] if r["id"] == "a1")
    assert row["first_rank"] == 4  # unresolved chunks match nothing, and keep their rank
    miss_free = {m["id"] for m in data["misses"]}
    assert "a1" not in miss_free


@pytest.mark.parametrize(
    ("doc", "hint"),
    [
        # the path as the retriever loaded it, with the corpus folder (LangChain's "source")
        ("corpus/guide.md", "guide.md"),
        ("project/corpus/faq.md", "faq.md"),
        ("docs/notes.txt", "notes.txt"),
        ("missing.md", None),
        ("corpus/missing.md", None),
        ("guide.md/extra.md", None),
        # in other letter case, as the snapshot's names are matched (and the run's
        # citations, whose note names the same document: one lookup for both)
        ("Guide.md", "guide.md"),
        ("CORPUS/GUIDE.MD", "guide.md"),
        ("MISSING.md", None),
    ],
)
@pytest.mark.parametrize("kind", ["text", "span"])
def test_a_chunk_of_a_document_named_by_a_longer_path_says_which_document(
    score_ws: Path, doc: str, hint: str | None, kind: str
) -> None:
    """Before, the reason was only that the document is not in the snapshot, which reads as
    if the snapshot were out of date: every chunk of a run whose retriever kept the corpus
    folder in its paths was unresolved, and the scores all zero."""
    chunk = {"doc": doc, "text": "Return within"} if kind == "text" else {
        "doc": doc, "start": 0, "end": 10
    }  # fmt: skip
    data = _report(score_ws, [{"id": "a1", "retrieved": [chunk]}])
    [entry] = data["unresolved"]
    reason = f"it is not in snapshot {data['snapshot']}"
    if hint is not None and doc.endswith("/" + hint):
        reason += (
            f" (did you mean {hint!r}? a document is named by its path inside the corpus "
            "folder, corpus)"
        )
    elif hint is not None and "/" in doc:
        reason += (
            f" (did you mean {hint!r}? a document is named by its path inside the corpus "
            "folder, corpus, in its letter case)"
        )
    elif hint is not None:
        reason += f" (did you mean {hint!r}? a document's name is matched in its letter case)"
    assert entry["reason"] == reason


def test_the_same_passage_in_two_sections_stands_for_both(tmp_path: Path) -> None:
    repo, _ = make_workspace(tmp_path / "repo")
    write_files(
        repo, {"corpus/twice.md": "# One\n\nThe same sentence.\n\n# Two\n\nThe same sentence.\n"}
    )
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    found = _resolver(repo).resolve(Chunk("twice.md", text="The same sentence."))
    assert sorted(str(c) for c in found.citations) == ["twice.md#one", "twice.md#two"]


def test_sections_come_from_the_source_when_the_snapshot_stores_no_text(tmp_path: Path) -> None:
    repo, _ = make_workspace(tmp_path / "repo")
    (repo / "evalset.toml").write_text("store_text = false\n[validate]\nmin_per_category = 0\n")
    write_files(repo, {"corpus/guide.md": GUIDE + "\n## Fees\n\nNo fees.\n"})
    commit_all(repo, "a new section")
    new = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=False)
    text = (repo / "snapshots" / f"{new.id}.json").read_text()
    assert '"text"' not in text
    resolved = _resolver(repo).resolve(Chunk("guide.md", text="Damaged items can be returned"))
    assert [str(c) for c in resolved.citations] == ["guide.md#damaged-returns"]
    # the subsection still counts for its parent
    run = [{"id": "a1", "retrieved": ["guide.md#damaged-returns"]}]
    path = write_run(repo / "run.jsonl", run)
    report = score_retrieval(
        find_workspace(repo), repo / "sets" / "docs.yaml", path,
        Options(snapshot=new.short, allow_stale=True),
    )  # fmt: skip
    row = json.loads(report.render())["items"][0]
    assert row["id"] == "a1" and row["first_rank"] == 1


# A passage and where it lies, in documents whose outline is certain unless said otherwise:
# (document, passage, the sections it stands for, or None when the outline cannot place
# them and the run is refused). Items expect alpha, beta and the subsection of beta.
PASSAGES = {
    "in one section only": (
        "# Alpha\n\nRead this first.\n\n# Beta\n\n## Notes\n\nKeep all receipts.\n",
        "Keep all receipts.", ["notes"]),
    # the subsection's heading and text also read as a sentence of Alpha's: a coincidence,
    # not a sign that Notes lies inside Alpha (the outline places it inside Beta)
    "in two unrelated sections": (
        "# Alpha\n\nRead this first. Notes Keep all receipts. Ask at the desk.\n\n# Beta\n\n"
        "## Notes\n\nKeep all receipts.\n",
        "Keep all receipts.", ["notes", "alpha"]),
    "in two unrelated sections, under another heading": (
        "# Alpha\n\nRead this first. Notes Keep all receipts. Ask at the desk.\n\n# Beta\n\n"
        "## Memo\n\nKeep all receipts.\n",
        "Keep all receipts.", ["memo", "alpha"]),
    "in a parent and its subsection": (
        "# Alpha\n\nKeep all receipts.\n\n## Notes\n\nKeep all receipts.\n\n# Beta\n\n"
        "Other things.\n",
        "Keep all receipts.", ["notes"]),
    "a heading's text inside another section's text, the passage in one": (
        "# Alpha\n\nSee Notes Keep all receipts for more.\n\n# Beta\n\n## Notes\n\n"
        "Keep all receipts.\n",
        "Keep all receipts.", ["notes"]),
    "a heading's text inside another section's text, the passage in both": (
        "# Alpha\n\nSee Notes Keep all receipts for more.\n\n# Beta\n\n## Notes\n\n"
        "Keep all receipts.\n",
        "Keep all receipts", ["notes", "alpha"]),
    # Alpha's text ends with the subsection's heading and text: the snapshot cannot tell
    # whether Notes lies inside Alpha or Beta
    "an ambiguous outline": (
        "# Alpha\n\nRead this first. Notes Keep all receipts.\n\n# Beta\n\n## Notes\n\n"
        "Keep all receipts.\n",
        "Keep all receipts.", None),
}  # fmt: skip


def _passage_workspace(root: Path, doc: str) -> Path:
    repo = make_workspace(root)[0]
    write_files(repo, {"corpus/e.md": doc})
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    sub = "memo" if "## Memo" in doc else "notes"
    items = {
        "a1": ("lookup", False, ["e.md#alpha"]),
        "a2": ("lookup", False, ["e.md#beta"]),
        "a3": ("lookup", False, [f"e.md#{sub}"]),
    }
    write_files(repo, {"sets/docs.yaml": set_text(snapshot, items)})
    commit_all(repo, "one document")
    return repo


def _outcome(repo: Path, entry: Any) -> dict[str, Any] | str:
    """Each item's metrics when the run retrieves ``entry`` for it, or the refusal."""
    run = [{"id": ident, "retrieved": [entry]} for ident in ("a1", "a2", "a3")]
    try:
        data = _report(repo, run)
    except TextUnreadable as refused:
        return str(refused)
    assert data["unresolved"] == []
    return {row["id"]: row["metrics"] for row in data["items"]}


def _lies_in(doc: str, at: int) -> str:
    """The anchor of the section of a PASSAGES document where position ``at`` lies: that of
    the last heading before it."""
    heading = [line for line in doc[:at].splitlines() if line.startswith("#")][-1]
    return heading.lstrip("# ").lower()


@pytest.mark.parametrize("case", list(PASSAGES))
def test_a_passage_scores_as_the_citations_of_the_sections_it_lies_in(
    tmp_path: Path, case: str
) -> None:
    """As text and as a span, a chunk scores as the best of the sections it lies in, each
    given as a citation, where the outline places them; where it cannot, both are refused
    alike. Before, a subsection whose heading and text another section's text also held
    was taken to lie inside it: the passage stood for the subsection alone."""
    doc, passage, sections = PASSAGES[case]
    repo = _passage_workspace(tmp_path / "repo", doc)
    resolved = _resolver(repo).resolve(Chunk("e.md", text=passage))
    as_text = _outcome(repo, {"doc": "e.md", "text": passage})
    cited = [_outcome(repo, f"e.md#{s}") for s in (sections or ["notes"])]
    for start in (doc.index(passage), doc.rindex(passage)):
        # a span is where its offsets say: it scores as that section's citation, even where
        # its text is in several (before, a span of a repeated passage stood for them all)
        # (where the outline cannot place a subsection, a span in it is refused as its
        # citation is, and one in Alpha's own text is Alpha's, which nothing holds)
        as_span = _outcome(repo, {"doc": "e.md", "start": start, "end": start + len(passage)})
        assert as_span == _outcome(repo, f"e.md#{_lies_in(doc, start)}"), start
    if sections is None:
        assert isinstance(as_text, str) and as_text == cited[0]
        assert "whether e.md#notes lies inside e.md#alpha, which item a1 expects, cannot " in (
            as_text
        )
        return
    assert sorted(str(c) for c in resolved.citations) == sorted(f"e.md#{s}" for s in sections)
    assert all(isinstance(c, dict) for c in cited) and isinstance(as_text, dict)
    best = {
        ident: {m: max(c[ident][m] for c in cited) for m in as_text[ident]}  # type: ignore[index]
        for ident in as_text
    }
    assert as_text == best
    if len(sections) > 1:  # the items expecting each of them find it
        assert as_text["a1"]["hit@1"] == 1.0
        assert as_text["a2"]["hit@1"] == as_text["a3"]["hit@1"] == 1.0


def test_a_chunk_the_outline_cannot_place_is_refused_as_its_citation_is(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    """Before, the chunk was scored by the outline's guess (Notes inside Alpha): a hit for
    the item expecting Alpha, a miss for the one expecting Beta, with exit 0."""
    doc = PASSAGES["an ambiguous outline"][0]
    repo = _passage_workspace(tmp_path / "repo", doc)
    chunk = {"doc": "e.md", "text": "Keep all receipts."}
    write_run(repo / "run.jsonl", [{"id": "a2", "retrieved": [chunk]}])
    result = cli(repo, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    assert result.code == 2
    assert result.err.startswith(
        "evalset: run.jsonl:1: whether e.md#notes lies inside e.md#beta, which item a2 "
        "expects, cannot be told: the snapshot's text of e.md holds the heading and text of "
        "notes in more than one place that fits"
    )
    assert "Traceback" not in result.err and not (repo / "out.json").exists()


def test_a_chunk_standing_for_several_sections_is_one_entry_among_the_misses(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    """Before, its citations were joined with the entries' own separator: two entries read
    as three (``twice.md#one, twice.md#two, twice.md#one``), and every later rank was off
    by one for a reader counting them."""
    repo, _ = make_workspace(tmp_path / "repo")
    write_files(
        repo, {"corpus/twice.md": "# One\n\nThe same sentence.\n\n# Two\n\nThe same sentence.\n"}
    )
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    commit_all(repo, "a document saying one thing twice")
    chunk = {"doc": "twice.md", "text": "The same sentence."}
    run = [{"id": "a1", "retrieved": [chunk, "twice.md#one", "guide.md#returns"]}]
    write_run(repo / "run.jsonl", run)
    args = ("score", "retrieval", "docs", "run.jsonl", "--k", "1,2")
    done = cli(repo, *args, "-o", "r.json", "--html", "r.html")
    assert done.code == 0, done.err
    data = json.loads((repo / "r.json").read_text())
    miss = next(m for m in data["misses"] if m["id"] == "a1")
    assert miss["retrieved"] == [["twice.md#one", "twice.md#two"], "twice.md#one"]
    assert next(r for r in data["items"] if r["id"] == "a1")["first_rank"] == 3
    shown = "{twice.md#one + twice.md#two}, twice.md#one"
    assert f"      retrieved  {shown}\n" in done.out
    md = cli(repo, *args, "--format", "md")
    assert f"| `{shown}` |" in md.out
    assert f"<td>{shown}</td>" in (repo / "r.html").read_text()


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("markup", [True, False], ids=["with its tags", "its text"])
def test_a_span_of_html_repeated_in_two_sections_is_where_its_offsets_are(
    tmp_path: Path, which: int, markup: bool
) -> None:
    """A span of HTML source holds tags, which no section's text holds: its place was not
    weighed, and it stood for both sections saying the passage."""
    page = (
        '<html><body><h2 id="alpha">Alpha</h2><p>Keep all receipts for a year.</p>'
        '<h2 id="beta">Beta</h2><p>Keep all receipts for a year.</p></body></html>'
    )
    repo = make_workspace(tmp_path / "repo")[0]
    write_files(repo, {"corpus/e.html": page})
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    passage = "<p>Keep all receipts for a year.</p>" if markup else "Keep all receipts for a year."
    starts = [page.index(passage), page.rindex(passage)]
    found = _resolver(repo).resolve(
        Chunk("e.html", start=starts[which], end=starts[which] + len(passage))
    )
    assert [str(c) for c in found.citations] == [f"e.html#{('alpha', 'beta')[which]}"]
