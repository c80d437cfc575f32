"""A corpus kept in a git submodule that the clone did not check out: the submodule's folder
is empty, and a snapshot of it would record its documents as deleted. Three layouts: the
corpus folder is the submodule, lies in one, or holds one. In each, a clone without its
submodules refuses to record the corpus and says which submodule to check out; once
checked out, it records the snapshot the recursive clone records. git keeps a submodule's
commit, not its files, so `snapshot --rev` refuses in each layout rather than record the
submodule's documents as deleted (the CI checkouts' table, tests/versions/
test_ci_checkouts.py, runs every command through the first layout)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit_all, git, make_git_repo, write_files

FILE = ("-c", "protocol.file.allow=always")
"""git fetches submodules over file:// only when told (these repositories are local)."""
POLICY = "# Returns\n\n## Damaged items\n\nWithin 30 days.\n"

# layout: (the submodule's path, the corpus folder, what the refusal says of them)
LAYOUTS = {
    "is": ("corpus", "corpus", "is the git submodule corpus"),
    "in": ("docs", "docs/corpus", "is in the git submodule docs"),
    "holds": ("corpus/vendor", "corpus", "holds the git submodule corpus/vendor"),
}


def _origin(base: Path, layout: str) -> Path:
    path, corpus, _ = LAYOUTS[layout]
    policies = make_git_repo(base / "policies")
    inner = {"is": "policy.md", "in": "corpus/policy.md", "holds": "vendor.md"}[layout]
    write_files(policies, {inner: POLICY})
    commit_all(policies, "policies")
    repo = make_git_repo(base / "origin")
    config = f'corpus = "{corpus}"\n[validate]\nmin_per_category = 0\n'
    files = {"evalset.toml": config, ".gitignore": "/.evalset/\n"}
    if layout == "holds":
        files["corpus/own.md"] = "# Own\n\n## Hours\n\nNine to five.\n"
    write_files(repo, files)
    git(repo, *FILE, "submodule", "add", "-q", f"file://{policies}", path)
    commit_all(repo, "workspace")
    return repo


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_submodule_not_checked_out_is_named_and_nothing_is_recorded(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    layout: str,
) -> None:
    origin = _origin(tmp_path, layout)
    full = tmp_path / "full"
    git(tmp_path, *FILE, "clone", "-q", "--recurse-submodules", str(origin), str(full))
    recorded = cli(full, "snapshot", "--json")
    assert recorded.code == 0, recorded.err
    # git holds a submodule's commit, not its files: a revision's corpus cannot be read
    said = LAYOUTS[layout][2]
    done = cli(full, "snapshot", "--rev", "HEAD")
    assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
    assert f"the corpus folder {said}, and git's history holds a submodule's commit" in done.err

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    done = cli(clone, "snapshot")
    assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
    assert f"{said}, not checked out here" in done.err, done.err
    assert "run `git submodule update --init`" in done.err, done.err
    assert not (clone / "snapshots").exists()

    git(clone, *FILE, "submodule", "update", "-q", "--init")
    again = cli(clone, "snapshot", "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["id"] == json.loads(recorded.out)["id"]
