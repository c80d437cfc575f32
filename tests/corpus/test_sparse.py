"""A sparse checkout that leaves part of the corpus out (a developer's monorepo clone):
the files it leaves out are not deleted documents. snapshot refuses, naming one of them and
the fix; status says why it judges by the recorded snapshots; once they are checked out,
the snapshot is the full clone's. (The CI checkouts' table, tests/versions/
test_ci_checkouts.py, runs every command in a cone-mode checkout without the corpus.)"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SET_HEADER, commit_all, git, set_item, write_files


def test_a_corpus_partly_left_out_by_a_sparse_checkout_is_not_recorded(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    write_files(corpus_repo, {
        "corpus/help/faq.md": "# FAQ\n\n## Hours\n\nNine to five.\n",
        "corpus/policies/returns.md": "# Returns\n\n## Damaged\n\nWithin 30 days.\n",
        "corpus/policies/refunds.md": "# Refunds\n\n## Timing\n\nFive days.\n",
        "sets/docs.yaml": SET_HEADER + set_item("q-1", "policies/returns.md#damaged"),
    })  # fmt: skip
    full = json.loads(cli(corpus_repo, "snapshot", "--json").out)["id"]
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "corpus and set")

    clone = tmp_path / "sparse"
    git(tmp_path, "clone", "-q", "--no-checkout", str(corpus_repo), str(clone))
    git(clone, "sparse-checkout", "set", "--no-cone", "/*", "!/corpus/policies/")
    git(clone, "checkout", "-q", "main")
    assert not (clone / "corpus/policies").exists() and (clone / "corpus/help/faq.md").exists()
    recorded = sorted((clone / "snapshots").iterdir())

    done = cli(clone, "snapshot")
    assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
    # (patterns, not cone mode: adding the corpus would not undo the one that leaves it out)
    assert (
        "the corpus folder is not all checked out here: git's sparse checkout leaves out "
        "corpus/policies/refunds.md and 1 more file(s); run `git sparse-checkout disable`, "
        "then take the snapshot."
    ) in done.err
    assert sorted((clone / "snapshots").iterdir()) == recorded
    status = cli(clone, "status")
    assert "git's sparse checkout leaves out corpus/policies/refunds.md" in status.out
    stale = json.loads(cli(clone, "stale", "--json").out)
    assert stale["items"] == [] and stale["newest"]["corpus"] == "absent"

    git(clone, "sparse-checkout", "disable")
    again = cli(clone, "snapshot", "--json")
    assert again.code == 0 and json.loads(again.out)["id"] == full, again.err


def test_in_cone_mode_the_fix_adds_the_corpus_from_where_evalset_runs(
    git_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """A workspace in a subfolder (evals/, its corpus evals/docs/kb): git takes the folder
    of `sparse-checkout add` from where it runs, so the fix names it from there."""
    write_files(git_repo, {
        "evals/evalset.toml": 'corpus = "docs/kb"\n[validate]\nmin_per_category = 0\n',
        "evals/docs/kb/faq.md": "# FAQ\n\n## Hours\n\nNine to five.\n",
        "evals/sets/.keep": "",
    })  # fmt: skip
    commit_all(git_repo, "workspace")
    clone = tmp_path / "sparse"
    git(tmp_path, "clone", "-q", "--sparse", str(git_repo), str(clone))
    git(clone, "sparse-checkout", "set", "evals/sets")
    done = cli(clone / "evals", "snapshot")
    assert done.code == 2 and "run `git sparse-checkout add docs/kb`, then take" in done.err
    git(clone / "evals", "sparse-checkout", "add", "docs/kb")  # as told, from there
    assert cli(clone / "evals", "snapshot").code == 0
