"""What a retrieved citation is credited with, where the snapshot's text is ambiguous or
missing: an empty section whose heading is a word of another section's text lies inside the
section that holds its heading; a citation the snapshot does not have is a miss, whatever
its document; a source listed twice counts once; and a section that may lie inside an
expected one, in a document whose text cannot be read, refuses the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import score_ws, write_run

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import take_snapshot

__all__ = ["score_ws"]


def _workspace(
    root: Path, doc: str, items: dict[str, list[str]], store_text: bool = True, git: bool = True
) -> Path:
    """A repository whose corpus is ``d.md`` (``doc``) and ``c.txt`` (committed unless not
    ``git``), and a set of one item per entry of ``items`` (id -> expected sources),
    verified against its snapshot."""
    repo = make_git_repo(root)
    config = "[validate]\nmin_per_category = 0\n"
    if not git:
        write_files(repo, {".gitignore": "/corpus/\n"})
    write_files(repo, {
        "evalset.toml": config if store_text else "store_text = false\n" + config,
        "corpus/d.md": doc,
        "corpus/c.txt": "Plain text about kiwis.\n",
    })  # fmt: skip
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset",
                             store_text=store_text).short  # fmt: skip
    entries = "".join(
        f"  - id: {ident}\n    question: What does item {ident} ask about here?\n"
        f"    category: lookup\n    expected_sources: [{', '.join(sources)}]\n"
        f"    key_points:\n      - text: The fact {ident} asks about\n"
        f"        sources: [{sources[0]}]\n    holdout: false\n    verified: {snapshot}\n"
        for ident, sources in items.items()
    )
    write_files(repo, {"sets/s.yaml": f"evalset: 1\nname: s\ncategories:\n  lookup: one\n"
                                      f"items:\n{entries}"})  # fmt: skip
    commit_all(repo, "workspace")
    return repo


def _scored(
    cli, repo: Path, run: list[dict[str, Any]], *args: str, name: str = "s"
) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Each item's first credited rank and metrics, by id."""
    write_run(repo / "run.jsonl", run)
    result = cli(repo, "score", "retrieval", name, "run.jsonl", "--json", "--k", "1,3", *args)
    assert result.code == 0, result.err
    return {row["id"]: row for row in json.loads(result.out)["items"]}


DOCS = {
    # the tester's document: "Exceptions" (an empty subsection of Shipping) is also a word
    # of the Returns text, before it
    "a word of an earlier section": (
        "# Help\n\n## Returns\n\nItems can be returned. Exceptions apply to sale items.\n\n"
        "## Shipping\n\nWe ship everywhere.\n\n### Exceptions\n\n### Costs\n\nFive euros.\n",
        {"returns": None, "shipping": 1}, "d.md#exceptions"),
    "a word of a later section": (
        "# Help\n\n## Returns\n\nWithin 14 days.\n\n### Notes\n\n## Shipping\n\n"
        "Notes are kept with the parcel.\n",
        {"returns": 1, "shipping": None}, "d.md#notes"),
    "two sections alike, numbered in the order of the document": (
        "# Returns\n\nWithin 14 days.\n\n## Questions\n\nEmail help.\n\n# Shipping\n\n"
        "Two days.\n\n## Questions\n\nEmail help.\n",
        {"returns": None, "shipping": 1}, "d.md#questions-1"),
    "two empty sections in a row, both words of an earlier one": (
        "# Help\n\n## Returns\n\nFirst and Second apply.\n\n## Shipping\n\nWe ship.\n\n"
        "### First\n\n### Second\n\n## Payments\n\nCards.\n",
        {"returns": None, "shipping": 1, "payments": None}, "d.md#second"),
}  # fmt: skip


@pytest.mark.parametrize(("doc", "expected", "retrieved"), DOCS.values(), ids=DOCS.keys())
def test_an_empty_section_lies_inside_the_section_that_holds_its_heading(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, doc: str, expected: dict[str, int | None], retrieved: str
) -> None:
    for store_text in (True, False):  # stored text, or read again from the working tree
        repo = _workspace(tmp_path / f"text-{store_text}", doc,
                          {s: [f"d.md#{s}"] for s in expected}, store_text)  # fmt: skip
        rows = _scored(cli, repo, [{"id": s, "retrieved": [retrieved]} for s in expected])
        assert {s: rows[s]["first_rank"] for s in expected} == expected


def test_a_citation_the_snapshot_does_not_have_is_a_miss_whatever_its_document(  # type: ignore[no-untyped-def]
    cli, score_ws: Path
) -> None:
    run = [
        {"id": "a1", "retrieved": ["guide.md#no-such-section", "guide.md#returns"]},
        {"id": "a2", "retrieved": ["guide.md#shipping"]},
        # the whole document faq.md is not expected, but a section of guide.md is
        {"id": "m1", "retrieved": ["faq.md#no-such", "guide.md#payments", "faq.md#contact"]},
        # a chunk makes the line a mixed one (another path through the scorer)
        {"id": "m2", "retrieved": ["guide.md#nope", {"doc": "guide.md",
                                   "text": "Shipping costs 4.95 below fifty euros"}]},
    ]  # fmt: skip
    for granularity, ranks in (("section", {"a1": 2, "m1": 2, "m2": 2}),
                               ("document", {"a1": 2, "m1": 2, "m2": 2})):  # fmt: skip
        rows = _scored(cli, score_ws, run, "--granularity", granularity, name="docs")
        assert {i: rows[i]["first_rank"] for i in ranks} == ranks, granularity


def test_a_whole_document_expected_is_not_found_by_a_section_it_lacks(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    repo = _workspace(tmp_path / "repo", "# Doc\n\nText.\n", {"k1": ["c.txt"]})
    rows = _scored(cli, repo, [{"id": "k1", "retrieved": ["c.txt#no-such-section", "c.txt"]}])
    assert rows["k1"]["first_rank"] == 2 and rows["k1"]["metrics"]["hit@1"] == 0.0


def test_a_source_listed_twice_counts_once(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = "# Doc\n\n## One\n\nApples.\n\n## Two\n\nPears.\n"
    repo = _workspace(tmp_path / "repo", doc, {"k1": ["d.md#one", "d.md#one"]})
    validated = cli(repo, "validate", "s", "--json")
    findings = json.loads(validated.out)["findings"]
    assert [f["message"] for f in findings if "expected_sources" in f["message"]] == [
        "expected_sources lists d.md#one more than once; it counts once in recall, ndcg and map"
    ]
    rows = _scored(cli, repo, [{"id": "k1", "retrieved": ["d.md#one"]}])
    metrics = rows["k1"]["metrics"]
    assert (metrics["recall@1"], metrics["map"], metrics["ndcg@3"]) == (1.0, 1.0, 1.0)


NESTED = "# Alpha\n\n## One\n\nApples.\n\n### One sub\n\nBananas.\n\n## Two\n\nPears.\n"


@pytest.mark.parametrize(
    ("retrieved", "refused"),
    [
        ("d.md#one-sub", True),  # deeper, in the expected section's document: cannot tell
        ("d.md#two", False),  # as deep as the expected one: never inside it
        ("d.md#alpha", False),  # shallower
        ("c.txt", False),  # another document
        ("d.md#one", False),  # the expected section itself
    ],
)
def test_a_section_that_may_lie_inside_an_expected_one_needs_the_documents_text(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, retrieved: str, refused: bool
) -> None:
    repo = _workspace(tmp_path / "repo", NESTED, {"k1": ["d.md#one"]}, store_text=False,
                      git=False)  # fmt: skip
    run = [{"id": "k1", "retrieved": [retrieved]}]
    here = _scored(cli, repo, run)["k1"]["first_rank"]  # the text read from the corpus
    assert here == (1 if retrieved in ("d.md#one-sub", "d.md#one") else None)
    shutil.move(repo / "corpus", tmp_path / "away")  # a checkout without the corpus
    result = cli(repo, "score", "retrieval", "s", "run.jsonl", "--json", "--k", "1")
    if not refused:
        assert result.code == 0, result.err
        assert json.loads(result.out)["items"][0]["first_rank"] == here
        return
    assert result.code == 2
    assert result.err.startswith(
        "evalset: run.jsonl:1: whether d.md#one-sub lies inside d.md#one, which item k1 "
        "expects, cannot be told: snapshot "
    )
    assert "stores no text" in result.err
    assert result.err.endswith(  # the corpus is not here: bring it back (a corpus that is
        "; the corpus folder is not here; bring it back (or set `corpus` in evalset.toml to "
        "where it is), then score again.\n"  # here but not the snapshot's: score where it is)
    )


def test_an_empty_section_that_fits_two_places_refuses_what_it_would_decide(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    """ "Returns" ends the Policy text just before Shipping starts, and ends the document:
    both places fit, and the snapshot keeps no order of its sections. Whether it lies inside
    Policy cannot be told, so a run that retrieves it for an item expecting Policy is
    refused; one that retrieves what is certain is scored."""
    doc = "# Policy\n\nWe accept Returns\n\n# Shipping\n\nShips in two days.\n\n## Returns\n"
    repo = _workspace(tmp_path / "repo", doc, {"k1": ["d.md#policy"]})
    write_run(repo / "run.jsonl", [{"id": "k1", "retrieved": ["d.md#returns"]}])
    result = cli(repo, "score", "retrieval", "s", "run.jsonl")
    assert result.code == 2
    assert result.err.startswith(
        "evalset: run.jsonl:1: whether d.md#returns lies inside d.md#policy, which item k1 "
        "expects, cannot be told: the snapshot's text of d.md holds the heading and text of "
        "returns in more than one place that fits"
    )
    rows = _scored(cli, repo, [{"id": "k1", "retrieved": ["d.md#shipping", "d.md#policy"]}])
    assert rows["k1"]["first_rank"] == 2
