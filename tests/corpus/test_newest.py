"""Which snapshot is the newest: the corpus as it is now, else the latest commit, never the
latest call; and a manifest is never rewritten for content it already records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import commit_all, git, set_item, write_files
from evalset.config import find_workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.newest import ParallelSnapshots

V1 = "# Returns\n\n## Window\n\nYou may return items within 14 days.\n"
V2 = "# Returns\n\n## Window\n\nYou may return items within 30 days.\n"
SET = "evalset: 1\nname: docs\ncategories:\n  direct-lookup: a fact\nitems:\n"


def _snapshot(cli, repo: Path, *args: str) -> dict:  # type: ignore[no-untyped-def]
    result = cli(repo, "snapshot", "--json", *args)
    assert result.code == 0, result.err
    return json.loads(result.out)


def _two_versions(cli, repo: Path) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """Corpus V1 at one commit and V2 at the next, and a snapshot of the working tree (V2).
    Returns the old commit, the new commit and the snapshot's id."""
    write_files(repo, {"corpus/returns.md": V1})
    old = commit_all(repo, "v1")
    write_files(repo, {"corpus/returns.md": V2})
    new = commit_all(repo, "v2")
    now = _snapshot(cli, repo)["id"]
    return old, new, now


def test_a_snapshot_of_an_old_revision_leaves_the_newest_alone(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, new, now = _two_versions(cli, corpus_repo)
    written = (corpus_repo / "snapshots" / f"{now}.json").read_bytes()
    write_files(corpus_repo, {"sets/docs.yaml": SET + set_item("q-1", "returns.md#window",
                                                               verified=now[:12])})  # fmt: skip
    taken = _snapshot(cli, corpus_repo, "--rev", old[:8])
    assert taken["written"] and taken["commit"] == old
    assert taken["newest"]["snapshot"] == now[:12] and taken["newest"]["rule"] == "corpus"
    assert taken["changes"] is None  # no "since" listing that would read backwards
    text = cli(corpus_repo, "snapshot", "--rev", old[:8])
    assert f"the newest snapshot is still {now[:12]} (the corpus as it is now)" in text.out
    # Nothing about the newer manifest changed, and staleness compares with it.
    assert (corpus_repo / "snapshots" / f"{now}.json").read_bytes() == written
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 0, stale.out
    report = json.loads(stale.out)
    assert report["snapshot"] == now[:12] and report["items"] == []
    assert report["newest"]["reason"] == "the corpus as it is now"
    assert "0 stale item(s) against snapshot " + now[:12] + " (the corpus as it is now)" in (
        cli(corpus_repo, "stale").out
    )
    status = json.loads(cli(corpus_repo, "status", "--json").out)
    assert status["newest"]["snapshot"] == now[:12] and status["sets"][0]["stale"] == 0
    shown = cli(corpus_repo, "status").out
    assert f"newest snapshot: {now[:12]} (the corpus as it is now)" in shown
    # A plain store (no workspace, so no look at the corpus) orders by history: V2's
    # snapshot was taken at the later commit.
    choice = SnapshotStore(corpus_repo / "snapshots").newest_choice()
    assert choice is not None and (choice.id, choice.rule, choice.commit) == (now, "commit", new)


def test_content_seen_before_keeps_its_manifest_byte_for_byte(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, new, now = _two_versions(cli, corpus_repo)
    manifests = corpus_repo / "snapshots"
    first = (manifests / f"{now}.json").read_bytes()
    older = _snapshot(cli, corpus_repo, "--rev", old)["id"]
    before = (manifests / f"{older}.json").read_bytes()
    # The same contents again, by every route: nothing is rewritten.
    for args in ((), ("--rev", new), ("--rev", old), ()):
        result = _snapshot(cli, corpus_repo, *args)
        assert not result["written"], args
    assert (manifests / f"{now}.json").read_bytes() == first
    assert (manifests / f"{older}.json").read_bytes() == before


def test_a_fresh_clone_has_the_same_newest(corpus_repo: Path, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """No cache in a clone: the corpus decides, and without a corpus the history does."""
    old, new, now = _two_versions(cli, corpus_repo)
    older = _snapshot(cli, corpus_repo, "--rev", old)["id"]  # taken after the newer one
    # the sets folder, empty but kept (a clone has no folder git holds no file of, and a
    # missing sets folder is refused as a misspelled one is)
    write_files(corpus_repo, {"sets/.gitkeep": ""})
    commit_all(corpus_repo, "snapshots")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(corpus_repo), str(clone))
    assert not (clone / ".evalset").exists()
    stale = json.loads(cli(clone, "stale", "--json").out)
    assert stale["snapshot"] == now[:12]
    assert stale["newest"] == {
        "snapshot": now[:12], "rule": "corpus", "corpus": "matches", "commit": None,
        "reason": "the corpus as it is now",
    }  # fmt: skip
    # A corpus kept elsewhere (a DVC remote not pulled here): the latest commit decides.
    shutil.rmtree(clone / "corpus")
    shutil.rmtree(clone / ".evalset")
    stale = json.loads(cli(clone, "stale", "--json").out)
    assert stale["snapshot"] == now[:12] and stale["newest"]["rule"] == "commit"
    assert stale["newest"]["reason"] == (
        f"taken at commit {new[:10]}, the latest with a snapshot; no corpus folder here to compare"
    )
    assert older != now


def test_a_corpus_put_back_as_it_was_is_the_newest_again(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, {"corpus/returns.md": V1})
    commit_all(corpus_repo, "v1")
    first = _snapshot(cli, corpus_repo)["id"]
    write_files(corpus_repo, {"corpus/returns.md": V2})
    second = _snapshot(cli, corpus_repo)["id"]
    write_files(corpus_repo, {"corpus/returns.md": V1})
    # Without a new snapshot call, the newest is the corpus as it is.
    assert json.loads(cli(corpus_repo, "stale", "--json").out)["newest"]["snapshot"] == first[:12]
    again = _snapshot(cli, corpus_repo)
    assert again["id"] == first and not again["written"]
    assert again["previous"] == second[:12]  # by history, the newest before this call
    assert again["changes"]["changed"] == {
        "returns.md": {"added": [], "removed": [], "changed": ["returns", "window"]}
    }


def test_a_corpus_changed_since_the_newest_is_said_and_blocks_verify(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    write_files(corpus_repo, {"corpus/returns.md": V1})
    head = commit_all(corpus_repo, "v1")
    first = _snapshot(cli, corpus_repo)["id"]
    write_files(corpus_repo, {"sets/docs.yaml": SET + set_item("q-1", "returns.md#window")})
    write_files(corpus_repo, {"corpus/returns.md": V2})
    stale = cli(corpus_repo, "stale")
    assert (
        f"against snapshot {first[:12]} (taken at commit {head[:10]}, the latest with a "
        "snapshot; the corpus has changed since: run `evalset snapshot`)"
    ) in stale.out
    refused = cli(corpus_repo, "verify", "docs", "q-1")
    assert refused.code == 2
    assert refused.err.strip() == (
        "evalset: corpus: has changed since the newest snapshot, "
        f"{first[:12]}, so what you checked is not recorded anywhere; run `evalset snapshot`, "
        "then verify again."
    )
    assert "verified:" not in (corpus_repo / "sets" / "docs.yaml").read_text()
    _snapshot(cli, corpus_repo)
    assert cli(corpus_repo, "verify", "docs", "q-1").code == 0


def test_a_damaged_manifest_written_again_keeps_its_header(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old, _, _ = _two_versions(cli, corpus_repo)
    older = _snapshot(cli, corpus_repo, "--rev", old)["id"]
    path = corpus_repo / "snapshots" / f"{older}.json"
    good = path.read_bytes()
    path.write_bytes(good.replace(b"14 days", b"15 days"))
    result = _snapshot(cli, corpus_repo, "--rev", old)
    assert result["written"] and path.read_bytes() == good


def test_symlinks_at_a_revision_are_followed_as_the_working_tree_follows_them(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """Before, `snapshot --rev` read a link committed in git as a document whose text was the
    path it named: the documents behind it lost their sections, and `stale` called their
    items moved."""
    import os

    write_files(corpus_repo, {"corpus/real.md": V1, "corpus/deep/other.md": V2})
    links = {
        "corpus/policy.md": "real.md",  # a file inside: read as that file
        "corpus/deep/up.md": "../real.md",  # the same, from a sub-folder
        "corpus/chain.md": "policy.md",  # a link to a link to a file
        "corpus/out.md": "../../outside.md",  # outside the corpus: not followed, and said
        "corpus/gone.md": "missing.md",  # dangling: nothing to read
        "corpus/folder.md": "deep",  # a folder: no document
        "corpus/loop-a.md": "loop-b.md",
        "corpus/loop-b.md": "loop-a.md",
    }
    links["corpus/absolute.md"] = str(corpus_repo / "corpus" / "real.md")  # on this machine
    (corpus_repo.parent / "outside.md").write_text("# Secret\n\nNot a document.\n")
    for link, target in links.items():
        os.symlink(target, corpus_repo / link)
    commit_all(corpus_repo, "links")
    now = _snapshot(cli, corpus_repo)
    shutil.rmtree(corpus_repo / "snapshots")
    then = _snapshot(cli, corpus_repo, "--rev", "HEAD")
    assert then["id"] == now["id"]
    manifest = json.loads((corpus_repo / "snapshots" / f"{then['id']}.json").read_text())
    documents = manifest["documents"]
    assert sorted(documents) == [
        "absolute.md",
        "chain.md",
        "deep/other.md",
        "deep/up.md",
        "policy.md",
        "real.md",
    ]
    assert documents["policy.md"]["sections"] == documents["real.md"]["sections"]
    assert (
        then["warnings"]
        == now["warnings"]
        == ["out.md: symlink to outside the corpus; not followed"]
    )


def _branched(cli, repo: Path) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """V1 on main, snapshot and committed; then a branch `feature` (checked out) whose
    commit changes the corpus to V2. Returns the snapshot's id and the feature commit."""
    write_files(repo, {"corpus/returns.md": V1})
    commit_all(repo, "v1")
    first = _snapshot(cli, repo)["id"]
    commit_all(repo, "snapshot of v1")
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, {"corpus/returns.md": V2})
    return first, commit_all(repo, "v2")


def test_a_snapshot_a_squash_merge_brought_is_as_new_as_that_merge(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A snapshot taken on a branch merged by squash (or rebase) records a commit main's
    history does not hold: it is as new as the commit that brought it, not older than every
    snapshot of main's, so the next corpus change is judged against it, not one before."""
    first, _ = _branched(cli, corpus_repo)
    second = _snapshot(cli, corpus_repo)["id"]
    commit_all(corpus_repo, "snapshot of v2")
    git(corpus_repo, "checkout", "-q", "main")
    git(corpus_repo, "merge", "-q", "--squash", "feature")
    squash = commit_all(corpus_repo, "feature, squashed")
    write_files(corpus_repo, {"corpus/returns.md": V2 + "\n## Fees\n\nReturns are free.\n"})
    store = SnapshotStore(corpus_repo / "snapshots")
    choice = store.newest_choice()
    assert choice is not None
    assert (choice.id, choice.rule, choice.commit) == (second, "commit", squash)
    assert store.in_order() == [first, second]
    status = json.loads(cli(corpus_repo, "status", "--json").out)
    assert status["newest"]["snapshot"] == second[:12]


def test_a_snapshot_of_another_branchs_revision_recorded_here_stays_as_old_as_it(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """`snapshot --rev` of a branch not merged here, its manifest committed on main: a
    snapshot of a revision is as old as its commit, not as new as the commit adding it."""
    first, feature = _branched(cli, corpus_repo)
    git(corpus_repo, "checkout", "-q", "main")
    other = _snapshot(cli, corpus_repo, "--rev", feature)["id"]
    commit_all(corpus_repo, "a snapshot of the feature branch, for comparison")
    write_files(corpus_repo, {"corpus/returns.md": V1 + "\n## Fees\n\nReturns are free.\n"})
    choice = SnapshotStore(corpus_repo / "snapshots").newest_choice()
    assert choice is not None and choice.id == first
    assert SnapshotStore(corpus_repo / "snapshots").in_order() == [other, first]


# -- two lines of history, each with a snapshot of its own, merged ----------------------

RETURNS = "# Returns\n\n## Window\n\nReturns within {} days.\n"
SHIPPING = "# Shipping\n\n## Cost\n\nFree over {} euros.\n"
PARALLEL = "none of them is the newest; record the corpus as it is now with `evalset snapshot`"


def _merged(cli, repo: Path, how: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """main with both documents snapshotted; branch s1 changes returns.md, s2 shipping.md,
    each snapshotting the change (``how``), and both merged into main. Returns the ids of
    the snapshots by name (base, s1, s2, and after: one of the merged corpus)."""
    write_files(repo, {"corpus/returns.md": RETURNS.format(60),
                       "corpus/shipping.md": SHIPPING.format(50)})  # fmt: skip
    ids = {"base": _snapshot(cli, repo)["id"]}
    items = set_item("q-1", "returns.md#window", verified=ids["base"][:12])
    write_files(repo, {"sets/docs.yaml": SET + items + set_item("q-2", "shipping.md#cost")})
    commit_all(repo, "base")
    for branch, name, text in (("s1", "returns", RETURNS.format(45)),
                               ("s2", "shipping", SHIPPING.format(40))):  # fmt: skip
        git(repo, "checkout", "-q", "main")
        git(repo, "checkout", "-q", "-b", branch)
        write_files(repo, {f"corpus/{name}.md": text})
        if how == "committed first":  # the snapshot taken at the branch's own commit
            commit_all(repo, f"{branch}: the corpus")
        if how != "one branch snapshots" or branch == "s1":
            ids[branch] = _snapshot(cli, repo)["id"]
        commit_all(repo, f"{branch}: snapshot")
        if how == "one after the other":  # s2 starts from main with s1 merged
            git(repo, "checkout", "-q", "main")
            git(repo, "merge", "-q", "--no-edit", branch)
    git(repo, "checkout", "-q", "main")
    for branch in ("s1", "s2"):
        git(repo, "merge", "-q", "--no-edit", branch)
    if how == "snapshot after the merge":
        ids["after"] = _snapshot(cli, repo)["id"]
        commit_all(repo, "snapshot of the merge")
    return ids


# how the two lines went: the snapshot chosen as the newest once the corpus changed again
# after the merge, or None where none can be (refused)
HISTORIES = {
    "snapshots at the same commit": None,
    "committed first": None,
    "snapshot after the merge": "after",
    "one branch snapshots": "s1",
    "one after the other": "s2",
}


@pytest.mark.parametrize("how", HISTORIES)
def test_snapshots_of_two_merged_lines_are_no_newest_for_a_corpus_matching_neither(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, how: str
) -> None:
    """Ordered by their commits, one of two branches' snapshots was taken for the newest,
    and `stale` then showed the other branch's change as stale, reversed."""
    ids = _merged(cli, corpus_repo, how)
    if how == "one branch snapshots":  # the corpus is s1's: s2 changed nothing
        write_files(corpus_repo, {"corpus/shipping.md": SHIPPING.format(50)})
    else:
        write_files(corpus_repo, {"corpus/extra.md": "# Extra\n\nA change after the merge.\n"})
    expected = HISTORIES[how]
    store = workspace_store(find_workspace(corpus_repo))  # the corpus looked at, as commands do
    if expected is not None:
        choice = store.newest_choice()
        assert choice is not None and choice.id == ids[expected]
        stale = cli(corpus_repo, "stale")
        assert stale.code == 1 and f"newest {ids[expected][:12]})" in stale.out  # q-1's change
        return
    with pytest.raises(ParallelSnapshots, match=PARALLEL):
        store.newest_choice()
    for argv in (["stale"], ["pin", "docs"], ["validate"], ["stale", "--json"]):
        result = cli(corpus_repo, *argv)
        assert result.code == 2, argv
        assert PARALLEL in result.err and ids["s1"][:12] in result.err
        assert ids["s2"][:12] in result.err and "Traceback" not in result.err
    # status informs, exit 0 (before, it refused, exit 2, against its help): the finding
    # first, with the fix, and staleness not checked
    shown = cli(corpus_repo, "status")
    assert (shown.code, shown.err) == (0, "")
    assert shown.out.startswith("newest snapshot: none; ") and PARALLEL in shown.out
    assert "stale: not checked (no snapshot is the newest: see above)" in shown.out
    overview = json.loads(cli(corpus_repo, "status", "--json").out)
    assert overview["newest"] is None and PARALLEL in overview["newest_problem"]
    assert overview["sets"][0]["stale"] is None
    taken = cli(corpus_repo, "snapshot")
    assert taken.code == 0, taken.err
    assert "what changed since is not listed" in taken.err
    assert "shallow" not in taken.err
    stale = cli(corpus_repo, "stale")  # against the corpus as it is now
    assert stale.code == 1 and f"newest {taken.out.split()[1].rstrip(':')})" in stale.out


def test_a_corpus_matching_one_of_two_merged_lines_snapshots_is_that_one(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """The corpus as it is now decides first: a merge that keeps one line's corpus (the
    other's change undone) is that line's snapshot."""
    ids = _merged(cli, corpus_repo, "snapshots at the same commit")
    write_files(corpus_repo, {"corpus/shipping.md": SHIPPING.format(50)})
    choice = workspace_store(find_workspace(corpus_repo)).newest_choice()
    assert choice is not None and (choice.id, choice.rule) == (ids["s1"], "corpus")
