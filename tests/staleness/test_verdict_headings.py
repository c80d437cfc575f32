"""Verdicts where a section's words are not all in its text: its heading, and words repeated
under several headings.

- A section gone whose text is left only where it was already when the item was verified
  ("Not eligible." under both "Sabbatical for contractors" and "Sabbatical for interns", the
  interns' section rewritten under a new heading) did not move there. Before, it was told
  `moved` to the contractors' section, and `--fix-moved` re-pointed the item there and
  marked it verified: the new interns' rule was never shown. It is `deleted` now, the new
  section under a heading like its own is its first candidate, and a note says where the
  same words still are.
- A section's text leaves its own heading out, so a reworded heading over the same text
  (`<h2 id="mfa">Multi-factor: all staff</h2>` becoming "contractors only") was `ok`. It is
  `changed` now, with the heading's word diff; a section moved by a reworded heading shows
  that diff too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, set_item, verified_items, write_files
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.snapshot import take_snapshot
from evalset.staleness.stale import stale_report

LEAVE = "# Leave\n\n## Sabbatical for contractors\n\nNot eligible.\n\n"
OTHER = "# Other\n\n## Note\n\nNot eligible.\n"
# name -> (corpus as verified, corpus now, citation, (status, new, candidates, heading, note))
CASES = {
    "boilerplate left where it was, rewritten under a new heading": (
        {"corpus/leave.md": LEAVE + "## Sabbatical for interns\n\nNot eligible.\n"},
        {"corpus/leave.md": LEAVE + "## Interns: sabbatical rules\n\nInterns with 6 months "
         "of service may take up to 2 weeks.\n"},
        "leave.md#sabbatical-for-interns",
        ("deleted", None, ["leave.md#interns-sabbatical-rules",
                           "leave.md#sabbatical-for-contractors", "leave.md#leave"], None,
         "leave.md#sabbatical-for-contractors"),
    ),
    "boilerplate left in another document only": (
        {"corpus/leave.md": "# Leave\n\n## Interns\n\nNot eligible.\n", "corpus/other.md": OTHER},
        {"corpus/leave.md": "# Leave\n\nAll staff may take a sabbatical.\n",
         "corpus/other.md": OTHER},
        "leave.md#interns",
        ("deleted", None, [], None, "other.md#note"),
    ),
    "boilerplate left where it was, and at a new place": (
        {"corpus/leave.md": LEAVE + "## Sabbatical for interns\n\nNot eligible.\n"},
        {"corpus/leave.md": LEAVE + "## Sabbaticals for interns\n\nNot eligible.\n"},
        "leave.md#sabbatical-for-interns",
        ("moved", "leave.md#sabbaticals-for-interns", ["leave.md#sabbatical-for-contractors"],
         ("Sabbatical for interns", "Sabbaticals for interns"), None),
    ),
    "a heading reworded over the same text (HTML id kept)": (
        {"corpus/it.html": '<h1>IT</h1>\n<h2 id="mfa">Multi-factor: all staff</h2>\n'
         "<p>MFA is required for remote access.</p>\n"},
        {"corpus/it.html": '<h1>IT</h1>\n<h2 id="mfa">Multi-factor: contractors only</h2>\n'
         "<p>MFA is required for remote access.</p>\n"},
        "it.html#mfa",
        ("changed", None, [], ("Multi-factor: all staff", "Multi-factor: contractors only"),
         None),
    ),
    "a heading reworded, its anchor the same": (
        {"corpus/pay.md": "# Pay\n\n## Staff hired Before 2020\n\n0.30 EUR per km.\n"},
        {"corpus/pay.md": "# Pay\n\n## Staff hired before 2020\n\n0.30 EUR per km.\n"},
        "pay.md#staff-hired-before-2020",
        ("changed", None, [], ("Staff hired Before 2020", "Staff hired before 2020"), None),
    ),
    "a heading reworded, its anchor with it": (
        {"corpus/pay.md": "# Pay\n\n## Staff hired before 2020\n\n0.30 EUR per km.\n"},
        {"corpus/pay.md": "# Pay\n\n## Staff hired after 2020\n\n0.30 EUR per km.\n"},
        "pay.md#staff-hired-before-2020",
        ("moved", "pay.md#staff-hired-after-2020", [],
         ("Staff hired before 2020", "Staff hired after 2020"), None),
    ),
    "a heading's markup changed, not its words": (
        {"corpus/pay.md": "# Pay\n\n## Staff *hired* before 2020\n\n0.30 EUR per km.\n"},
        {"corpus/pay.md": "# Pay\n\n##   Staff hired   before **2020**\n\n0.30 EUR per km.\n"},
        "pay.md#staff-hired-before-2020",
        ("ok", None, [], None, None),
    ),
    "a file renamed": (
        {"corpus/pay.md": "# Pay\n\n## Mileage\n\n0.30 EUR per km.\n"},
        {"corpus/expenses.md": "# Pay\n\n## Mileage\n\n0.30 EUR per km.\n"},
        "pay.md#mileage",
        ("moved", "expenses.md#mileage", [], None, None),
    ),
}  # fmt: skip


def _report(repo: Path, case: str, store_text: bool) -> dict:  # type: ignore[type-arg]
    before, after, citation, _ = CASES[case]
    write_files(repo, before)
    old = take_snapshot(
        repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=store_text
    )
    items = verified_items(set_item("q", citation), old.short)
    (repo / "sets" / "docs.yaml").write_text(SET_HEADER + items)
    for path in before:
        (repo / path).unlink()
    write_files(repo, after)
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=store_text)
    report = stale_report([repo / "sets" / "docs.yaml"], SnapshotStore(repo / "snapshots"), repo)
    found = [c.to_json() for item in report.items for c in item.citations if c.status != "ok"]
    return found[0] if found else {"status": "ok", "new": None, "candidates": []}


@pytest.mark.parametrize("store_text", [True, False], ids=["text stored", "hashes only"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_verdict_counts_the_heading_and_words_left_where_they_were(
    corpus_repo: Path, case: str, store_text: bool
) -> None:
    status, new, candidates, heading, also = CASES[case][3]
    found = _report(corpus_repo, case, store_text)
    assert (found["status"], found["new"]) == (status, new)
    if store_text:  # without the texts, candidates are found by heading alone
        assert found["candidates"] == candidates
    assert found.get("heading") == (
        {"was": heading[0], "now": heading[1]} if heading is not None else None
    )
    if also is not None:
        assert found["note"].startswith(f"its text is also at {also}, which held it already")


def test_stale_shows_the_headings_diff_and_fix_moved_leaves_words_left_where_they_were(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    case = "boilerplate left where it was, rewritten under a new heading"
    _report(corpus_repo, case, True)
    before = (corpus_repo / "sets" / "docs.yaml").read_bytes()
    done = cli(corpus_repo, "stale", "--fix-moved")
    assert done.code == 1, done.err
    assert (corpus_repo / "sets" / "docs.yaml").read_bytes() == before  # nothing re-pointed
    assert "deleted    leave.md#sabbatical-for-interns (similar: leave.md#interns-sab" in done.out
    assert "against leave.md#interns-sabbatical-rules: [-Not eligible.-] {+Interns" in done.out


def test_a_reworded_heading_is_shown_as_a_word_diff(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _report(corpus_repo, "a heading reworded over the same text (HTML id kept)", True)
    done = cli(corpus_repo, "stale")
    assert done.code == 1, done.err
    assert (
        "  changed    it.html#mfa\n      heading: Multi-factor: [-all staff-] {+contractors "
        "only+}\n" in done.out
    )
    data = json.loads(cli(corpus_repo, "stale", "--json").out)
    (entry,) = data["items"][0]["citations"]
    assert entry["heading"] == {"was": "Multi-factor: all staff",
                                "now": "Multi-factor: contractors only"}  # fmt: skip


@pytest.mark.parametrize("title", ["null", "7", "[]"])
def test_a_heading_that_is_not_text_in_a_manifest_is_compared_as_none(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, title: str
) -> None:
    """The manifest's checks leave a section's title alone (an edit of it is not detected):
    one that is not text counts as no heading, rather than stopping `stale`."""
    _report(corpus_repo, "boilerplate left where it was, rewritten under a new heading", True)
    for manifest in (corpus_repo / "snapshots").glob("*.json"):
        text = manifest.read_text()
        manifest.write_text(text.replace('"title": "Sabbatical for interns"', f'"title": {title}'))
    done = cli(corpus_repo, "stale", "--json")
    assert done.code == 1, done.err
    (entry,) = json.loads(done.out)["items"][0]["citations"]
    assert (entry["status"], "heading" in entry) == ("deleted", False)
