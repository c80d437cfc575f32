"""`evalset status --coverage`: where the questions point, and what nothing covers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT, SET_HEADER, set_item, write_files
from evalset.sets.model import item_citations
from evalset.sets.setfile import load_set


def test_example_coverage_counts_every_active_item(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "status", "--coverage", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)["sets"][0]
    coverage = report["coverage"]
    assert coverage["categories"] == report["categories"]
    loaded = load_set(ROOT / "sets" / "acme-support.yaml")
    expected: Counter[tuple[str, str]] = Counter()
    for item in loaded.items:
        if item.status == "active":
            split = "holdout" if item.holdout else "tuning"
            expected.update((doc, split) for doc in {c.doc for c in item_citations(item)})
    got = {(doc, split): n for doc, row in coverage["documents"].items()
           for split, n in row.items() if n}  # fmt: skip
    assert got == dict(expected)
    assert coverage["corpus_documents"] == 12 and coverage["uncited_documents"] == []
    assert coverage["empty_categories"] == []

    human = cli(ROOT, "status", "--coverage")
    assert "coverage by cited document" in human.out
    assert "every one of the 12 corpus documents is cited" in human.out


def test_uncovered_documents_and_categories_are_findings(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    header = SET_HEADER.replace("items:\n", "  multi-hop: two facts\nitems:\n")
    write_files(corpus_repo, {
        "corpus/a.md": "# A\n\n## One\n\ntext\n",
        "corpus/b.md": "# B\n\ntext\n",
        "corpus/sub/c.md": "# C\n\ntext\n",
        "sets/docs.yaml": header + set_item("q-1", "a.md#one") + "    holdout: true\n"
        + set_item("q-2", "a.md", "b.md") + "    holdout: false\n",
    })  # fmt: skip
    result = cli(corpus_repo, "status", "--coverage", "--json")
    assert result.code == 0, result.err
    coverage = json.loads(result.out)["sets"][0]["coverage"]
    assert coverage["documents"] == {
        "a.md": {"tuning": 1, "holdout": 1, "unassigned": 0},
        "b.md": {"tuning": 1, "holdout": 0, "unassigned": 0},
    }
    assert coverage["corpus_documents"] == 3  # read off the corpus folder: no snapshot yet
    assert coverage["uncited_documents"] == ["sub/c.md"]
    assert coverage["empty_categories"] == ["multi-hop"]

    human = cli(corpus_repo, "status", "--coverage").out
    assert "no item cites 1 of 3 corpus documents: sub/c.md" in human
    assert "no active item in categories: multi-hop" in human

    # Once there is a snapshot, its documents are the corpus.
    assert cli(corpus_repo, "snapshot").code == 0
    (corpus_repo / "corpus" / "d.md").write_text("# D\n")
    again = json.loads(cli(corpus_repo, "status", "--coverage", "--json").out)
    assert again["sets"][0]["coverage"]["uncited_documents"] == ["sub/c.md"]


def test_status_without_coverage_has_no_coverage_key(cli) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(cli(ROOT, "status", "--json").out)["sets"][0]
    assert "coverage" not in report


def test_a_document_only_a_sealed_item_may_cite_is_not_said_uncited(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the key, a sealed item's citations are unknown: the documents no item in the
    clear cites are named as such; with it, they are counted."""
    write_files(corpus_repo, {
        "corpus/a.md": "# A\n\ntext\n", "corpus/c.md": "# C\n\ntext\n",
        "sets/docs.yaml": SET_HEADER + set_item("q-1", "a.md") + "    holdout: false\n"
        + set_item("q-2", "c.md").replace("Question q-2 about the policy?", "Who signs the "
                                          "delivery note for a parcel?") + "    holdout: true\n",
    })  # fmt: skip
    assert cli(corpus_repo, "seal", "docs", "--recipient", key[1]).code == 0
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    human = cli(corpus_repo, "status", "--coverage").out
    assert "no item in the clear cites 1 of 2 corpus documents: c.md (a sealed item may)" in human
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    human = cli(corpus_repo, "status", "--coverage").out
    assert "every one of the 2 corpus documents is cited" in human
