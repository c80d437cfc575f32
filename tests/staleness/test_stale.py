"""Citation statuses, stale reports, verify and --fix-moved on real repositories."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files
from evalset.corpus.manifest import SnapshotStore, document_line, manifest_text, read_snapshot
from evalset.corpus.snapshot import take_snapshot
from evalset.errors import EvalsetError
from evalset.sets.setfile import load_set
from evalset.staleness import stale
from evalset.staleness.stale import SEARCHED_UP_TO, stale_report

V1 = {
    "corpus/policy.md": (
        "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n\n"
        "## Refund timing\n\nRefunds are issued within 5 business days.\n\n"
        "## Exchanges\n\nWe do not swap items directly; return and reorder.\n\n"
        "## Empty\n\n## Gift cards\n\nGift cards expire after three years.\n"
    ),
    "corpus/other.md": "# Other\n\n## Copy\n\nReturn within 14 days of delivery.\n",
    "corpus/terms.txt": "Terms of sale.\n",
}
V2 = {
    "corpus/policy.md": (
        "# Policy\n\n## Returns\n\nReturn within 30 days of delivery.\n\n"
        "## When you get your money back\n\nRefunds are issued within 5 business days.\n\n"
        "## Exchanging an item\n\nWe do not swap items directly; return and reorder online.\n\n"
        "## Vacant\n\n## Gift cards\n\n* Gift cards expire after *three* years.\n"
    ),
    "corpus/other.md": "# Other\n\n## Copy\n\nReturn within 14 days of delivery.\n",
    "corpus/terms-of-sale.txt": "Terms of sale.\n",
}


def snapshot(repo: Path) -> str:
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short


def snapshot_without_text(repo: Path) -> str:
    return take_snapshot(
        repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=False
    ).short


def setup(repo: Path, items: str) -> tuple[str, str]:
    write_files(repo, V1)
    old = snapshot(repo)
    (repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    for path in V1:
        (repo / path).unlink()
    write_files(repo, V2)
    return old, snapshot(repo)


def statuses(repo: Path) -> dict[str, list[tuple[str, str, str | None, list[str]]]]:
    report = stale_report([repo / "sets" / "docs.yaml"], SnapshotStore(repo / "snapshots"), repo)
    return {
        item.id: [(c.citation, c.status, c.new, c.candidates) for c in item.citations]
        for item in report.items
    }


ITEMS = (
    set_item("ok", "policy.md#gift-cards")  # reformatted only
    + set_item("changed", "policy.md#returns")
    + set_item("moved", "policy.md#refund-timing")
    + set_item("deleted", "policy.md#exchanges")
    + set_item("empty", "policy.md#empty")
    + set_item("unresolved", "policy.md#no-such-section")
    + set_item("doc-moved", "terms.txt")
)


EVERY_STATUS = {
    "changed": [("policy.md#returns", "changed", None, [])],
    "moved": [("policy.md#refund-timing", "moved", "policy.md#when-you-get-your-money-back", [])],
    "deleted": [("policy.md#exchanges", "deleted", None, ["policy.md#exchanging-an-item"])],
    "empty": [("policy.md#empty", "deleted", None, [])],
    "unresolved": [("policy.md#no-such-section", "unresolved", None, [])],
    "doc-moved": [("terms.txt", "moved", "terms-of-sale.txt", [])],
}


def test_every_status(corpus_repo: Path) -> None:
    setup(corpus_repo, ITEMS)
    assert statuses(corpus_repo) == EVERY_STATUS


def test_a_section_merged_into_another_is_its_first_candidate(corpus_repo: Path) -> None:
    """Its heading removed, a section's text joins the one before: word for word in it,
    but too little of it (0.44 of the words alike) to have been named a candidate."""
    v1 = V1["corpus/policy.md"]
    merged = v1.replace("## Refund timing\n\n", "").replace(
        "Return within 14 days of delivery.",
        "Return within 14 days of delivery, unused and in the box, with the receipt and "
        "the order number we sent.",
    )
    write_files(corpus_repo, {"corpus/policy.md": v1})
    old = snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + verified_items(set_item("gone", "policy.md#refund-timing"), old)
    )
    write_files(corpus_repo, {"corpus/policy.md": merged})
    snapshot(corpus_repo)
    assert statuses(corpus_repo)["gone"] == [
        ("policy.md#refund-timing", "deleted", None, ["policy.md#returns", "policy.md#policy"])
    ]  # (the document's top section holds it too)


@pytest.mark.parametrize("searched", [0, SEARCHED_UP_TO])
def test_gone_text_is_found_by_searching_the_manifest_or_by_its_table_alike(
    corpus_repo: Path, monkeypatch: pytest.MonkeyPatch, searched: int
) -> None:
    """Where a gone citation's text went is looked for in the newest manifest's text, one
    search per hash, while few are looked for (a million-document manifest is not parsed
    for a few), and in a table of every hash after that: the statuses are the same. A line
    that holds the hash in a section's text is no match."""
    monkeypatch.setattr(stale, "SEARCHED_UP_TO", searched)
    old, _ = setup(corpus_repo, ITEMS)
    gone = SnapshotStore(corpus_repo / "snapshots").get(old)
    assert gone is not None
    quoted = gone.documents["policy.md"]["sections"]["refund-timing"]["hash"]
    write_files(corpus_repo, {"corpus/quote.md": f"# Quote\n\n## Hash\n\nIt was {quoted}.\n"})
    snapshot(corpus_repo)
    assert statuses(corpus_repo) == EVERY_STATUS


def test_moved_prefers_the_same_document_and_lists_the_others(corpus_repo: Path) -> None:
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    items = set_item("dup", "policy.md#returns")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(
        corpus_repo,
        {"corpus/policy.md": V1["corpus/policy.md"].replace("## Returns", "## Sending back")},
    )
    snapshot(corpus_repo)
    assert statuses(corpus_repo) == {
        "dup": [("policy.md#returns", "moved", "policy.md#sending-back", ["other.md#copy"])]
    }


def test_changed_citations_come_with_old_and_new_text(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo, set_item("changed", "policy.md#returns"))
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert "  changed    policy.md#returns" in result.out
    assert "      Return within [-14-] {+30+} days of delivery." in result.out
    document = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert document["items"] == [
        {
            "set": "docs",
            "id": "changed",
            "verified": document["items"][0]["verified"],
            "citations": [
                {
                    "citation": "policy.md#returns",
                    "status": "changed",
                    "new": None,
                    "candidates": [],
                    "old_text": "Return within 14 days of delivery.",
                    "new_text": "Return within 30 days of delivery.",
                    "diff": "Return within [-14-] {+30+} days of delivery.",
                    "cited_by": {
                        "expected_sources": True,
                        "key_points": [{"index": 0, "text": "The fact changed asks about"}],
                    },
                }
            ],
        }
    ]
    md = cli(corpus_repo, "stale", "--format", "md")
    assert "| docs | `changed` | `policy.md#returns` | changed |  |" in md.out
    assert "Return within ~~14~~ **30** days of delivery." in md.out
    assert cli(corpus_repo, "stale", "--no-fail").code == 0


def test_missing_verified_snapshot_is_reported_not_a_crash(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo, set_item("lost", "policy.md#returns", verified="abcdef123456"))
    result = cli(corpus_repo, "stale", "--json")
    assert result.code == 1
    (citation,) = json.loads(result.out)["items"][0]["citations"]
    assert citation["status"] == "unknown"
    assert citation["note"].startswith("snapshot abcdef123456 is not in ")
    validate = cli(corpus_repo, "validate")
    assert "item lost: verified: error: snapshot 'abcdef123456' is not in " in validate.out


# Items verified against snapshots when there is no snapshot at all: the folder left out of a
# checkout, misspelt in the config, or empty. Before, `stale` passed (exit 0, "no snapshot
# yet") without reading the sets, and `stale_report` was empty even for a file that does
# not exist.
@pytest.mark.parametrize("folder", ["missing", "misspelt", "empty"])
def test_items_verified_against_snapshots_that_are_not_here_are_unknown(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, folder: str
) -> None:
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    items = set_item("a", "terms.txt") + set_item("b", "policy.md#returns", verified=old)
    path.write_text(SET_HEADER + items + set_item("c", "terms.txt", verified=old))
    config = corpus_repo / "evalset.toml"
    if folder == "misspelt":
        config.write_text('snapshots = "snapshot"\n' + config.read_text())
    else:
        for manifest in (corpus_repo / "snapshots").iterdir():
            manifest.unlink()
        if folder == "missing":
            (corpus_repo / "snapshots").rmdir()
    shown = "snapshot" if folder == "misspelt" else "snapshots"
    report = stale_report([path], SnapshotStore(corpus_repo / shown), corpus_repo)
    assert report.snapshot is None
    assert [(i.id, [(c.citation, c.status) for c in i.citations]) for i in report.items] == [
        ("b", [("policy.md#returns", "unknown")]),
        ("c", [("terms.txt", "unknown")]),
    ]
    assert report.unverified == {"docs": ["a"]}
    result = cli(corpus_repo, "stale")
    assert result.code == 1, result.out
    what = "holds no snapshot" if folder == "empty" else "does not exist"
    assert result.out.splitlines()[-2] == (
        f"2 stale item(s): {shown} {what}, so the snapshots they were verified against are "
        "not here and none of them could be compared; restore the snapshots from git, or "
        f'check `snapshots` in evalset.toml (snapshots = "{shown}").'
    )
    assert f"sets/docs.yaml: item b (verified {old}, newest none: no snapshot here)" in result.out
    data = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert [i["id"] for i in data["items"]] == ["b", "c"]
    note = data["items"][0]["citations"][0]["note"]
    if folder == "empty":
        assert note == f"snapshot {old} is not in {corpus_repo / 'snapshots'}; restore it from git"
    else:
        assert note == (
            f"snapshot {old} is not here: {corpus_repo / shown} does not exist (restore it "
            "from git, or check the `snapshots` setting)"
        )
    md = cli(corpus_repo, "stale", "--format", "md")
    assert md.code == 1
    assert md.out.startswith("### 2 stale item(s) (no snapshot here to compare them with")
    # `status` counts them as `stale` does, rather than "no snapshots yet"
    overview = cli(corpus_repo, "status")
    assert (
        f"stale: 2 (b, c), verified against snapshots that are not here ({shown} {what}; see "
        "`evalset stale`)" in overview.out
    ), overview.out
    (docs,) = json.loads(cli(corpus_repo, "status", "--json").out)["sets"]
    assert (docs["stale"], docs["stale_items"], docs["unverified_items"]) == (2, ["b", "c"], ["a"])
    assert docs["snapshot"] is None
    missing = cli(corpus_repo, "stale", "sets/nothing.yaml")
    assert missing.code == 2
    assert (
        missing.err == "evalset: sets/nothing.yaml: no such file; check the path or the set name.\n"
    )
    with pytest.raises(EvalsetError, match="no such file"):
        stale_report([corpus_repo / "no.yaml"], SnapshotStore(corpus_repo / "snapshots"))
    path.write_text(path.read_text().replace("category: direct-lookup", "category: 5", 1))
    broken = cli(corpus_repo, "stale")
    assert broken.code == 2
    assert "staleness cannot be told for an item that fails the schema" in broken.err


def test_a_workspace_with_no_snapshot_and_nothing_verified_passes(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, {"corpus/a.md": "# A\n\nText.\n",
                              "sets/docs.yaml": SET_HEADER + set_item("a", "a.md")})  # fmt: skip
    result = cli(corpus_repo, "stale")
    assert (result.code, result.out) == (
        0,
        "no snapshot in snapshots yet: run `evalset snapshot`.\n",
    )
    assert json.loads(cli(corpus_repo, "stale", "--json").out)["unverified"] == {"docs": ["a"]}
    assert "stale: not checked (no snapshots yet)" in cli(corpus_repo, "status").out
    assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["stale"] is None


def test_fix_moved_rewrites_in_place_and_the_item_is_no_longer_stale(
    corpus_repo: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    old, new = setup(
        corpus_repo,
        set_item("moved", "policy.md#refund-timing") + set_item("changed", "policy.md#returns"),
    )
    path = corpus_repo / "sets" / "docs.yaml"
    before = path.read_text()
    # the moved item kept all its text: it is verified against the snapshot it now cites
    at = before.index("  - id: changed")
    before = before[:at].replace(f"verified: {old}", f"verified: {new}") + before[at:]
    result = cli(corpus_repo, "stale", "--fix-moved")
    assert (
        "fixed moved: policy.md#refund-timing -> policy.md#when-you-get-your-money-back"
        in result.out
    )

    # Only the citation changes; comments inside key points survive (ruamel.yaml may
    # narrow the gap before a comment that the longer value now reaches).
    def gap(text: str) -> str:
        return re.sub(r" +#", " #", text)

    assert gap(path.read_text()) == gap(
        before.replace("policy.md#refund-timing", "policy.md#when-you-get-your-money-back")
    )
    assert list(statuses(corpus_repo)) == ["changed"]
    assert cli(corpus_repo, "validate").code == 0  # the new citation is verified by its text


def test_a_moved_section_changed_later_is_told_changed_not_unresolved(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """Before, --fix-moved left `verified:` on the old snapshot, which has no section of the
    new name: a later edit of the moved text was told "unresolved" with no diff, and
    `validate` failed. An item with a citation that changed keeps its old `verified:` (it
    is stale, and is verified again once reviewed)."""
    old, new = setup(
        corpus_repo,
        set_item("moved", "policy.md#refund-timing")
        + set_item("mixed", "policy.md#refund-timing", "policy.md#returns"),
    )
    assert cli(corpus_repo, "stale", "--fix-moved").code == 1  # "mixed" is still stale
    verified = {i.id: i.verified for i in load_set(corpus_repo / "sets" / "docs.yaml").items}
    assert verified == {"moved": new, "mixed": old}
    policy = corpus_repo / "corpus" / "policy.md"
    policy.write_text(policy.read_text().replace("5 business days", "7 business days"))
    snapshot(corpus_repo)
    found = statuses(corpus_repo)
    assert [status for _, status, _, _ in found["moved"]] == ["changed"]
    # ("mixed" cites a name its old snapshot lacks until it is re-verified, as it must be)
    assert "item moved" not in cli(corpus_repo, "validate").out


# a later edit of the text `--fix-moved` relabelled, on an item that keeps its old snapshot
# (its other citation changed): (the new text of the relabelled section, its status)
RELABELLED_EDITS = {
    "unchanged": (None, "ok"),
    "edited": ("Refunds are issued within 7 business days.", "changed"),
    # text another section had in the old snapshot (and still has): no move, a change
    "edited to another section's text": ("Return within 14 days of delivery.", "changed"),
}


@pytest.mark.parametrize("edit", RELABELLED_EDITS)
def test_a_relabelled_citation_is_told_against_the_text_it_relabels(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, edit: str
) -> None:
    """Before, such a citation was "ok" whenever its text was any section's text in the old
    snapshot (a price changed to another section's price went unreported), "unresolved"
    with no diff otherwise, and a relabelled whole document was "unresolved" at once, with
    `validate` failing on evalset's own rewrite."""
    new_text, told = RELABELLED_EDITS[edit]
    setup(corpus_repo, set_item("mixed", "policy.md#refund-timing", "terms.txt",
                                "policy.md#returns"))  # fmt: skip
    assert cli(corpus_repo, "stale", "--fix-moved").code == 1  # #returns changed
    cited = load_set(corpus_repo / "sets" / "docs.yaml").items[0].expected_sources
    assert [str(c) for c in cited] == [
        "policy.md#when-you-get-your-money-back",
        "terms-of-sale.txt",
        "policy.md#returns",
    ]
    if new_text is not None:
        policy = corpus_repo / "corpus" / "policy.md"
        text = policy.read_text()
        policy.write_text(text.replace("Refunds are issued within 5 business days.", new_text))
        snapshot(corpus_repo)
    report = json.loads(cli(corpus_repo, "stale", "--json").out)
    found = {c["citation"]: c for c in report["items"][0]["citations"]}
    moved = found["policy.md#when-you-get-your-money-back"]
    assert moved["status"] == told, moved
    if told == "changed":
        assert moved["old_text"] == "Refunds are issued within 5 business days."
        assert moved["new_text"] == new_text
    assert found["terms-of-sale.txt"]["status"] == "ok"
    assert found["policy.md#returns"]["status"] == "changed"
    assert ": error:" not in cli(corpus_repo, "validate").out  # the rewrite is no bad citation


def test_verify_records_the_newest_snapshot(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _, new = setup(
        corpus_repo,
        set_item("changed", "policy.md#returns") + set_item("deleted", "policy.md#exchanges"),
    )
    path = corpus_repo / "sets" / "docs.yaml"
    result = cli(corpus_repo, "verify", "docs", "changed")
    assert result.code == 0
    assert f"    verified: {new}\n" in path.read_text()
    assert list(statuses(corpus_repo)) == ["deleted"]
    before = path.read_bytes()
    refused = cli(corpus_repo, "verify", "docs", "deleted")
    assert refused.code == 2
    assert (
        f"cannot verify against snapshot {new}: item deleted: policy.md has no section "
        "'exchanges' in snapshot"
    ) in refused.err
    assert "its text was deleted (the most similar section now: policy.md#exchanging-an-item)" \
        in refused.err  # fmt: skip
    assert path.read_bytes() == before
    typo = cli(corpus_repo, "verify", "docs", "chnged")
    assert typo.code == 2 and "has no item 'chnged' (did you mean 'changed'?)" in typo.err


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ("moved", "policy.md has no section 'refund-timing' in snapshot {new}; its text moved to "
         "policy.md#when-you-get-your-money-back (`evalset stale --fix-moved` relabels it)"),
        ("doc-moved", "document 'terms.txt' is not in snapshot {new}; its text moved to "
         "terms-of-sale.txt (`evalset stale --fix-moved` relabels it)"),
        ("deleted", "policy.md has no section 'exchanges' in snapshot {new}; its text was "
         "deleted (the most similar section now: policy.md#exchanging-an-item)"),
        # where the text went is not known: the nearest name, if any
        ("empty", "policy.md has no section 'empty' in snapshot {new}"),
        ("unresolved", "policy.md has no section 'no-such-section' in snapshot {new}"),
    ],
)  # fmt: skip
def test_verify_says_where_the_text_of_a_citation_went(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, item: str, why: str
) -> None:
    """A did-you-mean by name pointed a moved section at its namesake; what stale knows
    (moved, or deleted and the most similar section now) comes first."""
    _, new = setup(corpus_repo, ITEMS)
    refused = cli(corpus_repo, "verify", "docs", item)
    assert refused.code == 2
    assert f"item {item}: {why.format(new=new)}" in refused.err, refused.err


def test_verify_all_adopts_a_set(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    new = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("a", "policy.md#returns"))
    assert "not verified against any corpus snapshot yet" in cli(corpus_repo, "validate").out
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    assert f"    verified: {new}\n" in path.read_text()
    assert "snapshot:" not in path.read_text()  # recorded on the item, not in the header
    assert "not verified" not in cli(corpus_repo, "validate").out


def test_validate_resolves_citations_with_did_you_mean(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    new = snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER
        + set_item("a", "policy.md#return", verified=new)
        + set_item("b", "polcy.md#returns", verified=new)
    )
    result = cli(corpus_repo, "validate")
    assert result.code == 1
    assert (
        f"sets/docs.yaml:9:24: item a: expected_sources[0]: error: policy.md has no section "
        f"'return' in snapshot {new} (did you mean 'returns'?)"
    ) in result.out.splitlines()
    assert (
        f"sets/docs.yaml:17:24: item b: expected_sources[0]: error: document 'polcy.md' is not "
        f"in snapshot {new} (did you mean 'policy.md'?)"
    ) in result.out.splitlines()


def test_status_counts_stale_items(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo, ITEMS)
    document = json.loads(cli(corpus_repo, "status", "--json").out)
    assert document["sets"][0]["stale"] == 6
    assert document["sets"][0]["stale_items"] == [
        "changed",
        "moved",
        "deleted",
        "empty",
        "unresolved",
        "doc-moved",
    ]


def test_a_set_file_is_checked_with_the_workspace_it_lies_in(
    corpus_repo: Path, tmp_path: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    snapshot(corpus_repo)
    outside = tmp_path / "elsewhere" / "docs.yaml"
    outside.parent.mkdir()
    outside.write_text(SET_HEADER + set_item("a", "nowhere.md#x"))
    # Run from inside the workspace: its snapshots must not judge a file that lies outside.
    result = cli(corpus_repo, "validate", str(outside))
    assert "nowhere.md" not in result.out and "not verified" not in result.out
    inside = corpus_repo / "sets" / "docs.yaml"
    inside.write_text(SET_HEADER + set_item("a", "nowhere.md#x"))
    assert "document 'nowhere.md' is not in snapshot" in cli(tmp_path, "validate", str(inside)).out


def test_unchanged_documents_are_decided_without_parsing(corpus_repo: Path) -> None:
    # Identical manifest lines: a present section is ok (non-ASCII anchors included), an
    # absent one is still unresolved.
    files = {"corpus/de.md": "# Rückgabe\n\n## Größe ändern\n\nInnerhalb von 14 Tagen.\n"}
    write_files(corpus_repo, files)
    old = snapshot(corpus_repo)
    items = set_item("ok", "de.md#größe-ändern") + set_item("missing", "de.md#groesse")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(corpus_repo, {"corpus/other.md": "# Other\n\ntext\n"})
    snapshot(corpus_repo)
    assert statuses(corpus_repo) == {"missing": [("de.md#groesse", "unresolved", None, [])]}


def test_old_texts_are_read_from_git_when_snapshots_hold_none(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Without stored text, the old wording of every changed citation is read at the old
    snapshot's commit (all of them in one batch); text the commit never had is explained."""

    write_files(corpus_repo, V1)
    commit_all(corpus_repo, "v1")
    old = snapshot_without_text(corpus_repo)
    items = set_item("changed", "policy.md#returns") + set_item("exchanges", "other.md#copy")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(corpus_repo, V2)
    write_files(
        corpus_repo, {"corpus/other.md": "# Other\n\n## Copy\n\nReturn it within a week.\n"}
    )
    commit_all(corpus_repo, "v2")
    snapshot_without_text(corpus_repo)
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert "      Return within [-14-] {+30+} days of delivery." in result.out
    assert "      Return {+it+} within [-14 days of delivery.-] {+a week.+}" in result.out
    # A snapshot of uncommitted text: its commit has other wording, and the output says so.
    write_files(corpus_repo, {"corpus/other.md": "# Other\n\n## Copy\n\nUncommitted words.\n"})
    uncommitted = snapshot_without_text(corpus_repo)
    sets = corpus_repo / "sets" / "docs.yaml"
    sets.write_text(sets.read_text().replace(f"verified: {old}", f"verified: {uncommitted}"))
    write_files(
        corpus_repo, {"corpus/other.md": "# Other\n\n## Copy\n\nReturn it within a week.\n"}
    )
    snapshot_without_text(corpus_repo)
    later = cli(corpus_repo, "stale").out
    assert "differs from snapshot" in later and "uncommitted changes" in later


# Before, `stale_report` without `root=` read no old text through git (the README's recipe
# passes none), so its report had no diff where `evalset stale --json` had one, and its note
# said the corpus "could not be read at their commits" when nothing had been tried.
def test_stale_report_reads_old_text_through_git_as_the_command_does(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(corpus_repo, V1)
    commit_all(corpus_repo, "v1")
    old = snapshot_without_text(corpus_repo)
    sets = corpus_repo / "sets" / "docs.yaml"
    sets.write_text(SET_HEADER + verified_items(set_item("changed", "policy.md#returns"), old))
    write_files(corpus_repo, V2)
    commit_all(corpus_repo, "v2")
    snapshot_without_text(corpus_repo)
    shown = json.loads(cli(corpus_repo, "stale", "--json").out)["items"][0]["citations"][0]
    assert shown["diff"] == "Return within [-14-] {+30+} days of delivery."
    monkeypatch.chdir(tmp_path)  # from outside the workspace, as a script may run
    report = stale_report([sets], SnapshotStore(corpus_repo / "snapshots"))
    (citation,) = report.items[0].citations
    assert (citation.old_text, citation.new_text, citation.note) == (
        "Return within 14 days of delivery.",
        "Return within 30 days of delivery.",
        None,
    )
    assert citation.to_json() | {"cited_by": shown["cited_by"]} == shown
    # snapshots and set copied out of any workspace: nothing is read, and the note says so
    outside = tmp_path / "outside"
    shutil.copytree(corpus_repo / "snapshots", outside / "snapshots")
    shutil.copy(sets, outside / "docs.yaml")
    report = stale_report([outside / "docs.yaml"], SnapshotStore(outside / "snapshots"))
    (citation,) = report.items[0].citations
    assert (citation.old_text, citation.note) == (
        None,
        "no text to compare: the snapshots do not store text, and they lie in no workspace "
        "whose corpus could be read at their commits; only the hashes differ",
    )


# Before, after `hash = "source"` replaced the default, every item citing a section with
# markup was "changed", its diff only the markup (`[-three-] {+*three*+}`), and the items
# citing plain text were "ok": hashes of rendered text were compared with hashes of source.
def test_items_verified_in_another_hash_mode_are_not_compared(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V2)
    old = snapshot(corpus_repo)
    items = set_item("markup", "policy.md#gift-cards") + set_item("plain", "policy.md#returns")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    config = corpus_repo / "evalset.toml"
    config.write_text('hash = "source"\n' + config.read_text())
    taken = cli(corpus_repo, "snapshot")
    assert taken.code == 0, taken.err
    new = json.loads(cli(corpus_repo, "snapshot", "--json").out)["snapshot"]
    assert taken.err == (
        f"warning: snapshot {new} hashes the source of sections, and the one before it, {old}, "
        "hashed the rendered text of sections (the `hash` setting changed), so every section "
        "with markup differs between them, whatever its wording; `stale` cannot compare the "
        "items verified against the one before with this one: check them, then `evalset "
        "verify` them\n"
    )
    note = (
        f"snapshot {old} hashed the rendered text of sections, and the newest, {new}, hashes "
        "the source of sections (the `hash` setting changed), so they cannot be compared: "
        "check the item against the text as it is now, then `evalset verify` it"
    )
    report = stale_report(
        [corpus_repo / "sets" / "docs.yaml"], SnapshotStore(corpus_repo / "snapshots")
    )
    assert [
        (i.id, [(c.citation, c.status, c.note) for c in i.citations]) for i in report.items
    ] == [
        ("markup", [("policy.md#gift-cards", "unknown", note)]),
        ("plain", [("policy.md#returns", "unknown", note)]),
    ]
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert "[-" not in result.out and f"      ({note})" in result.out
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    assert cli(corpus_repo, "stale").code == 0


def as_format_1(repo: Path, ident: str, keep_text: bool = True) -> str:
    """Rewrite a snapshot as evalset's format 1 wrote it: every hash BLAKE2b-128 of the text,
    rows hashed likewise, the id sha256 over those rows. Returns the new id's prefix."""
    (path,) = (repo / "snapshots").glob(f"{ident}*.json")
    data = json.loads(path.read_text())

    def blake(text: str) -> str:
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    rows = []
    for doc, entry in sorted(data["documents"].items()):
        entry["hash"] = blake(entry["text"])
        for section in entry["sections"].values():
            section["hash"] = blake(section["text"])
        parts = [doc, entry["hash"]]
        parts += [f"{sid}={s['hash']}" for sid, s in sorted(entry["sections"].items())]
        rows.append(f"{doc}\t{blake(chr(9).join(parts) + chr(10))}\n")
        if not keep_text:
            del entry["text"]
            for section in entry["sections"].values():
                del section["text"]
    about = dict(data["about"], version=1, id=hashlib.sha256("".join(rows).encode()).hexdigest())
    lines = ",\n".join(
        document_line(doc, data["documents"][doc]) for doc in sorted(data["documents"])
    )
    path.unlink()
    (repo / "snapshots" / f"{about['id']}.json").write_bytes(manifest_text(about, lines))
    return str(about["id"])[:12]


def test_format_1_manifests_are_compared_by_their_stored_text(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, _ = setup(corpus_repo, ITEMS)
    legacy = as_format_1(corpus_repo, old)
    set_file = corpus_repo / "sets" / "docs.yaml"
    set_file.write_text(set_file.read_text().replace(f"verified: {old}", f"verified: {legacy}"))
    (path,) = (corpus_repo / "snapshots").glob(f"{legacy}*.json")
    assert read_snapshot(path, verify=True).id.startswith(legacy)  # its id checked as format 1
    found = statuses(corpus_repo)
    assert found["changed"] == [("policy.md#returns", "changed", None, [])]
    assert "ok" not in found  # reformatted only: the same hash once recomputed
    assert set(found) == {"changed", "moved", "deleted", "empty", "unresolved", "doc-moved"}
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert "      Return within [-14-] {+30+} days of delivery." in result.out


def test_format_1_manifests_without_text_are_a_clear_error(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, _ = setup(corpus_repo, set_item("changed", "policy.md#returns"))
    legacy = as_format_1(corpus_repo, old, keep_text=False)
    set_file = corpus_repo / "sets" / "docs.yaml"
    set_file.write_text(set_file.read_text().replace(f"verified: {old}", f"verified: {legacy}"))
    result = cli(corpus_repo, "stale")
    assert result.code == 2
    assert "was written by an earlier evalset with other hashes (snapshot format 1)" in result.err
    assert "take it again with `evalset snapshot --rev " in result.err
    assert "Traceback" not in result.err


BROKEN = {
    "a status in capitals": ("    status: Active\n", "status"),
    "a verified that is no id": ("    verified: 'abc '\n", "verified"),
    "a key the schema lacks": ("    colour: blue\n", "colour"),
}


@pytest.mark.parametrize("broken", BROKEN, ids=list(BROKEN))
@pytest.mark.parametrize(
    "command",
    [("stale",), ("stale", "--json"), ("stale", "docs"), ("verify", "docs", "q-1"),
     ("verify", "docs", "--all")],
)  # fmt: skip
def test_an_item_that_fails_the_schema_is_named_not_passed_over(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, broken: str, command: tuple[str, ...]
) -> None:
    """Before, such an item was left out of `stale` (which then said "0 stale" and exited 0),
    of `verify --all`, and `verify` said the set had no such item."""
    setup(corpus_repo, set_item("q-1", "policy.md#returns") + set_item("q-2", "terms.txt"))
    path = corpus_repo / "sets" / "docs.yaml"
    text = path.read_text()
    line, field = BROKEN[broken]
    start, end = text.index("  - id: q-1\n"), text.index("  - id: q-2\n")
    item = (
        re.sub(r"(?m)^    verified: .*\n", "", text[start:end])
        if "verified" in line
        else (text[start:end])
    )
    path.write_text(text[:start] + item.rstrip("\n") + "\n" + line + text[end:])
    kept = path.read_bytes()
    done = cli(corpus_repo, *command)
    assert done.code == 2, (done.out, done.err)
    named = "item 'q-1' is not valid" if "q-1" in command else "item q-1"  # by its id
    assert named in done.err and field in done.err, done.err
    assert len(done.err.strip().splitlines()) == 1
    assert path.read_bytes() == kept


def test_a_set_named_twice_is_checked_once_and_an_item_verified_once(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """Before, `stale docs sets/docs.yaml` counted each stale item twice, `verify docs q-1
    q-1` said "q-1, q-1", and `verify docs q-1 --all` was taken as --all."""
    setup(corpus_repo, set_item("changed", "policy.md#returns") + set_item("kept", "terms.txt"))
    once = json.loads(cli(corpus_repo, "stale", "--json").out)
    twice = cli(corpus_repo, "stale", "--json", "docs", "sets/docs.yaml", "./sets/docs.yaml")
    assert json.loads(twice.out)["items"] == once["items"]
    assert len(once["items"]) == 2  # terms.txt was renamed: "kept" is stale too
    both = cli(corpus_repo, "verify", "docs", "changed", "--all")
    assert both.code == 2 and "name the items, or pass --all, not both" in both.err
    done = cli(corpus_repo, "verify", "docs", "changed", "changed", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["verified"] == ["changed"]


def test_fix_moved_rewrites_a_citation_written_in_either_unicode_form(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """Before, a citation written decomposed (NFD: text pasted from a PDF, say) was read as
    moved, and --fix-moved said "fixed" but looked its bytes up among the NFC names: nothing
    was rewritten, and the item was verified against the newest snapshot, which no longer
    holds the old name, so the move was lost for good."""
    write_files(corpus_repo, {"corpus/a.md": "# Doc\n\n## Gebühren Alt\n\nDie Gebühr: 5 Euro.\n"})
    old = snapshot(corpus_repo)
    cited = unicodedata.normalize("NFD", "a.md#gebühren-alt")
    items = set_item("q-1", cited)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(corpus_repo, {"corpus/a.md": "# Doc\n\n## Gebühren Neu\n\nDie Gebühr: 5 Euro.\n"})
    new = snapshot(corpus_repo)
    result = cli(corpus_repo, "stale", "--fix-moved")
    assert "fixed q-1: a.md#gebühren-alt -> a.md#gebühren-neu" in result.out, result.out
    text = (corpus_repo / "sets" / "docs.yaml").read_text()
    assert cited not in text and text.count("a.md#gebühren-neu") == 2
    assert f"verified: {new}" in text
    assert statuses(corpus_repo) == {}


# A section whose text other sections hold too (boilerplate): where it went is the section
# that did not hold that text before, whichever document it is in and however it sorts.
# (corpus before, corpus after, the citation, where it moved, the others)
ALIKE = "## Questions\n\nWrite to help@example.com.\n"
MOVED_AMONG_ALIKE = {
    "renamed heading": (
        {"corpus/a.md": "# A\n\n## Beta plan\n\nTen euros.\n\n## Alpha plan\n\nTen euros.\n"},
        {"corpus/a.md": "# A\n\n## Zeta plan\n\nTen euros.\n\n## Alpha plan\n\nTen euros.\n"},
        "a.md#beta-plan", "a.md#zeta-plan", ["a.md#alpha-plan"]),
    "renamed file": (
        {"corpus/returns.md": "# Returns\n\n" + ALIKE, "corpus/payments.md": "# Pay\n\n" + ALIKE},
        {"corpus/refunds.md": "# Returns\n\n" + ALIKE, "corpus/payments.md": "# Pay\n\n" + ALIKE},
        "returns.md#questions", "refunds.md#questions", ["payments.md#questions"]),
}  # fmt: skip


@pytest.mark.parametrize(("before", "after", "cited", "new", "others"),
                         MOVED_AMONG_ALIKE.values(), ids=MOVED_AMONG_ALIKE.keys())  # fmt: skip
def test_moved_prefers_a_section_that_did_not_hold_the_text_before(  # type: ignore[no-untyped-def]
    corpus_repo: Path,
    cli,
    before: dict[str, str],
    after: dict[str, str],
    cited: str,
    new: str,
    others: list[str],
) -> None:
    write_files(corpus_repo, before)
    old = snapshot(corpus_repo)
    items = set_item("q-1", cited)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    for gone in set(before) - set(after):
        (corpus_repo / gone).unlink()
    write_files(corpus_repo, after)
    snapshot(corpus_repo)
    assert statuses(corpus_repo) == {"q-1": [(cited, "moved", new, others)]}
    assert f"fixed q-1: {cited} -> {new}" in cli(corpus_repo, "stale", "--fix-moved").out


FLOW_COMMENTS = """\
  - id: q-flow
    question: How do I contact you about refunds?
    category: direct-lookup
    # history: cited policy.md#refund-timing since the first review
    expected_sources: [
      policy.md#returns,   # where the window is
      policy.md#refund-timing,  # reviewer: keep policy.md#refund-timing, see ticket 42
    ]
    key_points:
      - text: Refunds are issued within 5 business days
        sources: [ policy.md#refund-timing ]
      - text: Return within 14 days of delivery
        sources:
          - policy.md#returns  # the window
    verified: {old}
"""


def test_fix_moved_keeps_the_comments_and_layout_of_the_lists_it_rewrites(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """Before, the item was written again by the YAML library: the comments inside a flow
    list (on the entry it renamed and on the one it did not) were lost, and `[ x ]` lost
    its spaces. A comment naming the citation is a comment: left as it is."""
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + FLOW_COMMENTS.format(old=old))
    for name in V1:
        (corpus_repo / name).unlink()
    write_files(corpus_repo, V2)
    snapshot(corpus_repo)
    before = path.read_text()
    assert cli(corpus_repo, "stale", "--fix-moved").code == 1  # #returns changed
    new = "policy.md#when-you-get-your-money-back"
    assert path.read_text() == before.replace("  policy.md#refund-timing,", f"  {new},").replace(
        "[ policy.md#refund-timing ]", f"[ {new} ]"
    )


def test_fix_moved_leaves_a_citation_moved_to_two_places_alike(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, it took the first by name, a guess nothing said was one."""
    v1 = V1["corpus/policy.md"]
    twice = v1.replace(
        "## Refund timing\n\nRefunds are issued within 5 business days.",
        "## Help\n\nRefunds are issued within 5 business days.\n\n"
        "## Support\n\nRefunds are issued within 5 business days.",
    )
    write_files(corpus_repo, {"corpus/policy.md": v1})
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + verified_items(set_item("q", "policy.md#refund-timing"), old))
    write_files(corpus_repo, {"corpus/policy.md": twice})
    snapshot(corpus_repo)
    before = path.read_bytes()
    done = cli(corpus_repo, "stale", "--fix-moved")
    assert done.code == 1 and path.read_bytes() == before
    assert (
        "not fixed q: policy.md#refund-timing moved to policy.md#help and policy.md#support "
        "alike; cite the one meant by hand"
    ) in done.out
    found = json.loads(cli(corpus_repo, "stale", "--fix-moved", "--json").out)
    assert (found["fixed"], found["not_fixed"]) == (
        {},
        {"q": {"policy.md#refund-timing": ["policy.md#help", "policy.md#support"]}},
    )


def test_a_section_edited_in_a_renamed_document_is_offered_where_the_document_went(
    corpus_repo: Path,
) -> None:
    """Before, candidates came from the old document only: renamed, it had none."""
    v1 = V1["corpus/policy.md"]
    write_files(corpus_repo, {"corpus/policy.md": v1})
    old = snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + verified_items(set_item("q", "policy.md#refund-timing"), old)
    )
    (corpus_repo / "corpus/policy.md").unlink()
    edited = v1.replace("within 5 business days", "within 7 business days, to your card")
    write_files(corpus_repo, {"corpus/refund-policy.md": edited})
    snapshot(corpus_repo)
    assert statuses(corpus_repo)["q"] == [
        ("policy.md#refund-timing", "deleted", None, ["refund-policy.md#refund-timing"])
    ]


# A section's text that became a whole document without headings, and back: the text is the
# same, so the citation moved (before: "deleted", with no candidate to look at).
# (corpus before, corpus after, citation, where it went)
ACROSS_KINDS = {
    "a section became a document": (
        {"corpus/returns.md": "# Returns\n\nIntro.\n\n## Refunds\n\nWe refund in 30 days.\n"},
        {
            "corpus/returns.md": "# Returns\n\nIntro.\n",
            "corpus/refunds.md": "We refund in 30 days.\n",
        },
        "returns.md#refunds",
        "refunds.md",
    ),
    "a document became a section": (
        {
            "corpus/returns.md": "# Returns\n\nIntro.\n",
            "corpus/refunds.md": "We refund in 30 days.\n",
        },
        {"corpus/returns.md": "# Returns\n\nIntro.\n\n## Refunds\n\nWe refund in 30 days.\n"},
        "refunds.md",
        "returns.md#refunds",
    ),
}


@pytest.mark.parametrize("case", ACROSS_KINDS)
def test_text_moved_between_a_section_and_a_whole_document_is_moved(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str
) -> None:
    before, after, citation, where = ACROSS_KINDS[case]
    write_files(corpus_repo, before)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + verified_items(set_item("q", citation), old))
    for name in before:
        (corpus_repo / name).unlink()
    write_files(corpus_repo, after)
    new = snapshot(corpus_repo)
    assert statuses(corpus_repo)["q"] == [(citation, "moved", where, [])]

    done = cli(corpus_repo, "stale", "--fix-moved")
    assert f"fixed q: {citation} -> {where}" in done.out, done.out
    item = load_set(path).items[0]
    assert [str(c) for c in item.expected_sources] == [where]
    assert item.verified == new  # every citation kept its text
    assert cli(corpus_repo, "stale").code == 0
    assert cli(corpus_repo, "validate").code == 0


def draft(ident: str, *citations: str, status: str = "draft") -> str:
    """An item never verified (a draft, or an active item nobody verified) citing
    ``citations``."""
    text = set_item(ident, *citations)
    return text.replace("    category:", f"    status: {status}\n    category:", 1)


# An item never verified whose citation the newest snapshot lacks: (how the corpus changed
# since the snapshot that last held it, the citation, what --fix-moved makes of it, the
# validate hint before). Before, --fix-moved skipped such items, and validate guessed a
# section by its name alone (`did you mean 'returns'?`).
UNVERIFIED = {
    "heading renamed": (
        {"corpus/policy.md": V1["corpus/policy.md"].replace("## Refund timing", "## Money back")},
        "policy.md#refund-timing",
        ("fixed", "policy.md#money-back"),
        "its text is now at policy.md#money-back; `evalset stale --fix-moved` relabels it",
    ),
    "moved to two places alike": (
        {
            "corpus/policy.md": V1["corpus/policy.md"].replace(
                "## Refund timing\n\nRefunds are issued within 5 business days.",
                "## Help\n\nRefunds are issued within 5 business days.\n\n"
                "## Support\n\nRefunds are issued within 5 business days.",
            )
        },
        "policy.md#refund-timing",
        ("not_fixed", ["policy.md#help", "policy.md#support"]),
        "its text is now at policy.md#help and policy.md#support; `evalset stale --fix-moved` "
        "relabels it where one of them is likelier, else cite the one meant by hand",
    ),
    "its text changed too": (
        {
            "corpus/policy.md": V1["corpus/policy.md"].replace(
                "## Refund timing\n\nRefunds are issued within 5", "## Money back\n\nRefunds in 7"
            )
        },
        "policy.md#refund-timing",
        None,
        "policy.md has no section 'refund-timing' in snapshot",  # its text is nowhere now
    ),
    "never in any snapshot": (
        {"corpus/policy.md": V1["corpus/policy.md"] + "\n## New\n\nNew text.\n"},
        "policy.md#refund-timng",
        None,
        "did you mean 'refund-timing'?",
    ),
}


@pytest.mark.parametrize("status", ["draft", "active"])
@pytest.mark.parametrize("case", UNVERIFIED)
def test_an_unverified_items_moved_citation_is_told_and_fixed(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, status: str
) -> None:
    after, citation, outcome, hint = UNVERIFIED[case]
    write_files(corpus_repo, V1)
    snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    untouched = draft("kept", "policy.md#returns", status=status)
    path.write_text(SET_HEADER + draft("q", citation, status=status) + untouched)
    write_files(corpus_repo, after)
    snapshot(corpus_repo)

    checked = cli(corpus_repo, "validate", "--json")
    found = [f for f in json.loads(checked.out)["findings"] if f["rule"] == "citation"]
    assert [f["item"] for f in found] == ["q", "q"]  # expected_sources, key point sources
    told = f"{found[0]['message']} ({found[0]['hint']})"
    assert hint in told and ("now at" in told) == (outcome is not None), told
    if status == "draft":  # not "ready to verify", as it was told before
        assert (
            "    q  undated; complete; 2 error(s) (see `evalset validate`)\n"
            in cli(corpus_repo, "status").out
        )
    before = path.read_text()
    done = json.loads(cli(corpus_repo, "stale", "--fix-moved", "--json").out)
    item = next(i for i in load_set(path).items if i.id == "q")
    if outcome is None or outcome[0] == "not_fixed":
        assert path.read_text() == before and done["fixed"] == {}
        assert done["not_fixed"] == ({"q": {citation: outcome[1]}} if outcome else {})
        return
    assert done["fixed"] == {"q": {citation: outcome[1]}} and done["not_fixed"] == {}
    assert [str(c) for c in item.expected_sources] == [outcome[1]]
    assert item.verified is None and item.status == status  # moved is not checked
    assert path.read_text() == before.replace(citation, outcome[1])
    assert cli(corpus_repo, "validate").code == 0
    if status == "draft":
        assert "    q  undated; complete, ready to verify\n" in cli(corpus_repo, "status").out


def test_a_relabelled_citation_is_read_where_it_was_relabelled_whatever_the_ids(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """q1 cites #alpha (7 days) and #gamma; #alpha is renamed and #gamma edited, and
    --fix-moved relabels #alpha (q1 keeps its old snapshot, #gamma changed). Then the 7 days
    become 14, the text #beta had in the old snapshot, #beta goes and #gamma is put back.
    Before, the relabel was looked for in the snapshots in the order of their ids: when the
    last one sorted first, #alpha-two was taken for a relabel of #beta, and the change was
    "ok". Snapshots are now read in the order they were taken."""
    doc = "# Doc\n\n## Alpha\n\nRefunds take 7 days.\n\n## Beta\n\nRefunds take 14 days.\n\n"
    write_files(corpus_repo, {"corpus/doc.md": doc + "## Gamma\n\nShipping is free.\n"})
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(
        SET_HEADER + verified_items(set_item("q1", "doc.md#alpha", "doc.md#gamma"), old)
    )
    renamed = doc.replace("## Alpha", "## Alpha Two") + "## Gamma\n\nShipping is free over 50.\n"
    write_files(corpus_repo, {"corpus/doc.md": renamed})
    second = snapshot(corpus_repo)
    assert cli(corpus_repo, "stale", "--fix-moved").code == 1
    assert "doc.md#alpha-two" in path.read_text()
    folder = corpus_repo / "snapshots"
    for salt in range(200):  # a last snapshot whose id sorts before the second's
        write_files(corpus_repo, {
            "corpus/doc.md": "# Doc\n\n## Alpha Two\n\nRefunds take 14 days.\n\n"
                             "## Gamma\n\nShipping is free.\n",
            "corpus/salt.md": f"# Salt\n\n{salt}\n",
        })  # fmt: skip
        last = snapshot(corpus_repo)
        if last < second:
            break
        next(folder.glob(f"{last}*.json")).unlink()
    assert last < second
    found = statuses(corpus_repo)["q1"]
    assert ("doc.md#alpha-two", "changed", None, []) in found


def test_a_drafts_citation_is_sent_where_the_latest_corpus_put_it(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A draft written against commit 2 (14 days); commit 3 renames the section and keeps
    the old 30-day text as an archive; then someone records commit 1's corpus (`snapshot
    --rev`). Before, that snapshot, recorded last, counted as the corpus that last held the
    draft's citation, and --fix-moved sent it to the archive. Recency is history's."""
    write_files(corpus_repo, {"corpus/a.md": "# A\n\n## Returns\n\nReturn within 30 days.\n"})
    first = commit_all(corpus_repo, "old policy")
    write_files(corpus_repo, {"corpus/a.md": "# A\n\n## Returns\n\nReturn within 14 days.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + draft("q1", "a.md#returns"))
    commit_all(corpus_repo, "new policy, a draft")
    write_files(corpus_repo, {"corpus/a.md": "# A\n\n## Refunds\n\nReturn within 14 days.\n\n"
                                             "## Archive\n\nReturn within 30 days.\n"})  # fmt: skip
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "renamed")
    assert cli(corpus_repo, "snapshot", "--rev", first).code == 0
    told = cli(corpus_repo, "validate").out
    assert "its text is now at a.md#refunds;" in told, told
    assert "fixed q1: a.md#returns -> a.md#refunds" in cli(corpus_repo, "stale", "--fix-moved").out


def test_a_heading_repeated_above_a_cited_one_says_where_its_text_is(corpus_repo: Path) -> None:
    """A new `### Exceptions` above two others renumbers them: each cited label now names
    the text of the one before it. The verdict stays "changed" (a label that still exists
    may have been rewritten: a person decides), but it now says where the verified text is,
    unchanged; before, the diff between two unrelated sections was all it showed."""
    policy = (
        "# Policies\n\n## Returns\n\nReturn in 14 days.\n\n### Exceptions\n\nSale items "
        "cannot be returned.\n\n## Shipping\n\nEU only.\n\n### Exceptions\n\nNo islands.\n"
    )
    write_files(corpus_repo, {"corpus/p.md": policy})
    old = snapshot(corpus_repo)
    items = set_item("q1", "p.md#exceptions") + set_item("q2", "p.md#exceptions-1")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    warranty = (
        "# Policies\n\n## Warranty\n\nTwo years.\n\n### Exceptions\n\nBatteries: 6 months.\n\n"
    )
    write_files(corpus_repo, {"corpus/p.md": policy.replace("# Policies\n\n", warranty)})
    snapshot(corpus_repo)
    found = statuses(corpus_repo)
    assert found["q1"] == [("p.md#exceptions", "changed", None, ["p.md#exceptions-1"])]
    assert found["q2"] == [("p.md#exceptions-1", "changed", None, ["p.md#exceptions-2"])]
    report = stale_report(
        [corpus_repo / "sets" / "docs.yaml"], SnapshotStore(corpus_repo / "snapshots"), corpus_repo
    )
    note = report.items[0].citations[0].note or ""
    assert note.startswith(
        "the text it was verified against is now, unchanged, at p.md#exceptions-1"
    )


@pytest.mark.parametrize(
    "argv",
    [[], ["--no-fail"], ["--json"], ["--format", "md"], ["docs"]],
    ids=lambda a: " ".join(a) or "plain",
)
def test_require_snapshot_fails_a_corpus_changed_without_its_snapshot(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, argv: list[str]
) -> None:
    """A CI check: `validate && stale` passed a pull request that changed the corpus and
    committed no snapshot (the note said so, the exit status did not)."""
    write_files(corpus_repo, {"corpus/policy.md": "# Policy\n\n## Returns\n\nWithin 14 days.\n"})
    snapshot = json.loads(cli(corpus_repo, "snapshot", "--json").out)["id"][:12]
    item = set_item("q-1", "policy.md#returns", verified=snapshot)
    write_files(corpus_repo, {"sets/docs.yaml": SET_HEADER + item})
    commit_all(corpus_repo, "a set and its corpus")
    assert cli(corpus_repo, "stale", "--require-snapshot", *argv).code == 0
    write_files(corpus_repo, {"corpus/other.md": "# Other\n\nNo item cites it.\n"})
    commit_all(corpus_repo, "a document, and no snapshot of it")
    assert cli(corpus_repo, "stale", *argv).code == 0  # the note alone, as before
    result = cli(corpus_repo, "stale", "--require-snapshot", *argv)
    assert result.code == 1
    if "--json" in argv:
        assert json.loads(result.out)["newest"]["corpus"] == "changed"
    else:
        assert (
            f"failed (--require-snapshot): the corpus has changed since snapshot {snapshot}; "
            "record it with `evalset snapshot` and commit the manifest"
        ) in result.out
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "stale", "--require-snapshot", *argv).code == 0
