"""A cited text that went where no citation can name it.

A snapshot takes a document whose path no citation can name (`faq#2.md`: a citation is cut
at its first `#`; a `\\`; a leading space) and an HTML section whose own `id` holds white
space or a `#`, with a warning to rename them. Where a cited text went was looked for among
every document and section, each written `doc#id` and read back as a citation: `stale`,
`status` and `validate` stopped with an internal error ("citation ' lead.md#a' starts with
white space"), and a whole document renamed to `faq#2.txt` was reported `moved` to section
`2.txt` of a document `faq`, which `--fix-moved` would have written into the set. Such a
place is no place a citation can go: the citation is `deleted`, with a note naming where
its text is and the fix, and nothing is re-pointed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files
from evalset.corpus.manifest import SnapshotStore
from evalset.staleness.stale import stale_report

SECTION = "# A\n\nThe refund takes five days.\n"
# name -> (corpus as verified, corpus now, citation, where its text is now)
CASES = {
    "a document renamed with a leading space": (
        {"corpus/d.md": SECTION}, {"corpus/ d.md": SECTION}, "d.md#a", "' d.md#a'"
    ),
    "a document renamed with a '#'": (
        {"corpus/d.md": SECTION}, {"corpus/faq#2.md": SECTION}, "d.md#a", "'faq#2.md#a'"
    ),
    "a document renamed with a backslash": (
        {"corpus/d.md": SECTION}, {"corpus/old\\d.md": SECTION}, "d.md#a", "'old\\\\d.md#a'"
    ),
    "a whole document renamed with a '#'": (
        {"corpus/d.txt": "The refund takes five days.\n"},
        {"corpus/faq#2.txt": "The refund takes five days.\n"},
        "d.txt",
        "'faq#2.txt'",
    ),
    "a section moved under an HTML id with a space": (
        {"corpus/d.md": SECTION, "corpus/p.html": "<h1>P</h1><p>Other words.</p>"},
        {"corpus/d.md": "# B\n\nNothing else.\n",
         "corpus/p.html": '<h1>P</h1><p>Other words.</p><h2 id="x y">A</h2>'
                          "<p>The refund takes five days.</p>"},
        "d.md#a",
        "'p.html#x y'",
    ),
    "a section moved under an HTML id with a '#'": (
        {"corpus/d.md": SECTION, "corpus/p.html": "<h1>P</h1><p>Other words.</p>"},
        {"corpus/d.md": "# B\n\nNothing else.\n",
         "corpus/p.html": '<h1>P</h1><p>Other words.</p><h2 id="x#y">A</h2>'
                          "<p>The refund takes five days.</p>"},
        "d.md#a",
        "'p.html#x#y'",
    ),
    "a section edited, its id now with a space": (
        {"corpus/p.html": '<h1 id="p">P</h1><h2 id="a">A</h2><p>The refund takes five days.</p>'},
        {"corpus/p.html": '<h1 id="p">P</h1><h2 id="a b">A</h2><p>The refund takes six days.</p>'},
        "p.html#a",
        None,  # its text is nowhere: the section holding it is the one candidate
    ),
}  # fmt: skip


def _stale(repo: Path, case: str, cli) -> bytes:  # type: ignore[no-untyped-def]
    """The workspace with the item verified against the corpus before, and a snapshot of
    the corpus after; the set file's bytes."""
    before, after, citation, _ = CASES[case]
    write_files(repo, before)
    assert cli(repo, "snapshot").code == 0
    short = SnapshotStore(repo / "snapshots").newest().short
    (repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + verified_items(set_item("q", citation), short)
    )
    commit_all(repo, "verified")
    for path in before:
        (repo / path).unlink()
    write_files(repo, after)
    done = cli(repo, "snapshot")
    assert done.code == 0, done.err
    assert "no item can cite" in done.err  # the snapshot warned of it
    commit_all(repo, "changed")
    return (repo / "sets" / "docs.yaml").read_bytes()


@pytest.mark.parametrize("searched", [32, 0], ids=["hash by hash", "a table of every hash"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_text_gone_where_no_citation_can_name_it_is_deleted_with_a_note(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, searched: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways the newest snapshot is searched for a text (a search of its manifest per
    hash, or one table of every hash once many are looked for) agree."""
    monkeypatch.setattr("evalset.staleness.stale.SEARCHED_UP_TO", searched)
    where = CASES[case][3]
    written = _stale(corpus_repo, case, cli)
    report = stale_report(
        [corpus_repo / "sets" / "docs.yaml"], SnapshotStore(corpus_repo / "snapshots")
    )
    ((entry,),) = [
        [c.to_json() for c in item.citations if c.status != "ok"] for item in report.items
    ]
    candidates = [] if where is not None else ["p.html#p"]
    assert (entry["status"], entry["new"], entry["candidates"]) == ("deleted", None, candidates)
    if where is not None:
        assert entry["note"] == (
            f"its text is now at {where}, which no citation can name (the snapshot warned of "
            "it): rename the document, or change the section's id, run `evalset snapshot`, "
            "and cite it there"
        )
    done = cli(corpus_repo, "stale", "--json")
    assert done.code == 1, done.err
    assert json.loads(done.out)["items"][0]["citations"][0]["status"] == "deleted"
    done = cli(corpus_repo, "stale", "--fix-moved")
    assert (done.code, done.err) == (1, "")
    assert (corpus_repo / "sets" / "docs.yaml").read_bytes() == written  # nothing re-pointed
    done = cli(corpus_repo, "status", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["sets"][0]["stale"] == 1
    done = cli(corpus_repo, "validate")
    assert done.code == 0, done.err
    done = cli(corpus_repo, "verify", "docs", "q")  # no name alike offered that cannot be cited
    assert (done.code, "did you mean" in done.err) == (2, False), done.err
    assert done.err.startswith("evalset: sets/docs.yaml: cannot verify against snapshot ")


@pytest.mark.parametrize("was", ["faq#2.txt", " d.txt", "old\\d.txt"])
def test_a_citation_is_not_taken_for_one_no_citation_could_name(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, was: str
) -> None:
    """An item citing ``x.txt``, which its verified snapshot lacked, where a document no
    citation could name held the same text then: the citation relabels nothing (read back,
    ``faq#2.txt`` was section ``2.txt`` of ``faq``, and `stale` and `validate` stopped on an
    assertion). It is unresolved, as any citation the verified snapshot lacks."""
    write_files(corpus_repo, {f"corpus/{was}": "The refund takes five days.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    short = SnapshotStore(corpus_repo / "snapshots").newest().short
    items = verified_items(set_item("q", "x.txt"), short)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + items)
    (corpus_repo / "corpus" / was).rename(corpus_repo / "corpus" / "x.txt")
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "renamed")
    done = cli(corpus_repo, "stale", "--json")
    assert done.code == 1, done.err
    (entry,) = json.loads(done.out)["items"][0]["citations"]
    assert (entry["status"], entry["note"]) == ("unresolved", f"not in snapshot {short}")
    done = cli(corpus_repo, "validate")
    assert done.code == 1, done.err
    assert f"expected_sources[0]: error: document 'x.txt' is not in snapshot {short}\n" in done.out
    assert cli(corpus_repo, "status").code == 0
