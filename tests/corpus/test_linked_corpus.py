"""A corpus folder committed as a symlink (to the folder that holds the documents, or with a
link among the folders above it), or that is the repository's top, reads at a commit as in
the working tree.

The working tree's walk follows such a link, and git holds the link, not a folder: `snapshot
--rev` refused ("has no folder 'corpus' at revision ...; check the revision"), and `stale`,
for snapshots that store no text, found no old text at the snapshot's commit and said the
corpus had uncommitted changes then. Git's link is followed while it stays in the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files

# name -> (workspace folder below the repository, corpus setting, links (name -> target),
#          folder the documents are in); paths from the repository's top
LAYOUTS = {
    "the corpus folder a link beside": (".", "corpus", {"corpus": "real"}, "real"),
    "a link deeper": (".", "corpus", {"corpus": "data/real"}, "data/real"),
    "a link to a link": (".", "corpus", {"corpus": "c2", "c2": "real"}, "real"),
    "a link among the folders above": (".", "docs/corpus", {"docs": "content"},
                                       "content/corpus"),
    "a workspace in a subfolder, linked up": ("ws", "corpus", {"ws/corpus": "../shared"},
                                              "shared"),
    # at a revision, DVC names its files './g.md' and git 'g.md': the link was read as
    # the file holding the path it names
    "the repository's top, a document a link": (".", ".", {"link.md": "g.md"}, "."),
    "a link to the repository's top": (".", "corpus", {"corpus": "."}, "."),
}  # fmt: skip


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_linked_corpus_reads_at_a_commit_as_in_the_working_tree(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, layout: str
) -> None:
    folder, corpus, links, real = LAYOUTS[layout]
    ws = git_repo / folder
    config = f'corpus = "{corpus}"\nstore_text = false\n[validate]\nmin_per_category = 0\n'
    write_files(ws, {"evalset.toml": config, ".gitignore": "/.evalset/\n"})
    (ws / "sets").mkdir()
    write_files(git_repo, {f"{real}/g.md": "# A\n\nThe refund takes five days.\n"})
    for name, target in links.items():
        (git_repo / name).symlink_to(target)
    commit_all(git_repo, "corpus")
    done = cli(ws, "snapshot", "--json")
    assert done.code == 0, done.err
    first = json.loads(done.out)["id"]
    items = verified_items(set_item("q", "g.md#a"), first[:12])
    write_files(ws, {"sets/docs.yaml": SET_HEADER + items})
    commit_all(git_repo, "verified")

    done = cli(ws, "snapshot", "--rev", "HEAD", "--json")  # the same corpus, read from git
    assert (done.code, json.loads(done.out)["id"]) == (0, first), done.err
    write_files(git_repo, {f"{real}/g.md": "# A\n\nThe refund takes six days.\n"})
    commit_all(git_repo, "six")
    done = cli(ws, "snapshot", "--json")
    assert done.code == 0, done.err
    commit_all(git_repo, "snapshot")
    done = cli(ws, "stale", "--json")  # the old text, from git at the verified snapshot's commit
    assert done.code == 1, done.err
    (entry,) = json.loads(done.out)["items"][0]["citations"]
    assert (entry["status"], entry.get("diff"), entry.get("note")) == (
        "changed",
        "The refund takes [-five-] {+six+} days.",
        None,
    )
    assert json.loads(cli(ws, "status", "--json").out)["sets"][0]["stale"] == 1
    assert cli(ws, "validate").code == 0
