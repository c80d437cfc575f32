"""`init --corpus`, the warning for a missing corpus folder, a merge driver registered so
that it survives a moved environment, and the hint a fresh clone gets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GIT_ENV, SET_HEADER, commit_all, git, set_item

BIN = str(Path(sys.executable).parent)
"""Where this environment's `evalset` command is."""


def test_init_writes_the_corpus_folder_given(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(git_repo, "init", "--name", "docs", "--corpus", "knowledge/policies")
    assert result.code == 0, result.err
    config = (git_repo / "evalset.toml").read_text()
    assert 'corpus = "knowledge/policies" # the documents' in config
    assert "      - knowledge/policies\n" in (git_repo / "dvc.yaml").read_text()
    assert result.err.strip() == (
        "warning: the corpus folder 'knowledge/policies' does not exist yet: put the documents "
        "there (or set `corpus` in evalset.toml), then run `evalset snapshot`"
    )
    (git_repo / "knowledge" / "policies").mkdir(parents=True)
    (git_repo / "knowledge" / "policies" / "returns.md").write_text("# Returns\n\nText.\n")
    assert cli(git_repo, "snapshot").code == 0


def test_init_warns_when_the_default_corpus_is_missing(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(git_repo, "init", "--json")
    assert json.loads(result.out)["warnings"] == [
        "the corpus folder 'corpus' does not exist yet: put the documents there (or set "
        "`corpus` in evalset.toml), then run `evalset snapshot`"
    ]
    (git_repo / "corpus").mkdir()
    again = cli(git_repo, "init", "--json")
    assert json.loads(again.out)["warnings"] == []
    kept = cli(git_repo, "init", "--corpus", "elsewhere", "--json")
    assert json.loads(kept.out)["warnings"] == [
        "evalset.toml was kept, and configures the corpus as 'corpus': --corpus 'elsewhere' "
        "was not written; edit `corpus` there to change it"
    ]


# Before, `--corpus " "` wrote the whole workspace and then failed on the configuration it
# had written, which every command (init again too) then refused; `--corpus ""` wrote the
# default and warned that the evalset.toml it had just created "was kept".
@pytest.mark.parametrize("corpus", [" ", "", "\t\n"], ids=["space", "empty", "blank"])
@pytest.mark.parametrize("configured", [False, True], ids=["new", "configured"])
def test_a_blank_corpus_is_refused_before_anything_is_written(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, corpus: str, configured: bool
) -> None:
    if configured:
        (git_repo / "evalset.toml").write_text('corpus = "docs"\n')
    before = sorted(p.name for p in git_repo.iterdir())
    result = cli(git_repo, "init", "--corpus", corpus)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"evalset: --corpus {corpus!r}: must be a folder name (text); give the folder that "
        "holds the documents, then run `evalset init` again (it wrote nothing).\n"
    )
    assert sorted(p.name for p in git_repo.iterdir()) == before
    assert "evalset" not in git(git_repo, "config", "--list", "--local")
    assert cli(git_repo, "init", "--corpus", "docs").code == 0
    assert cli(git_repo, "status").code == 0


# The folder settings a configuration refuses (see tests/test_config.py) are refused as
# --corpus too, before anything is written: before, init wrote `corpus = ".git"` and every
# command then refused the workspace it had made.
@pytest.mark.parametrize(
    ("corpus", "why"),
    [
        (".git", "is .git, the folder git keeps its own files in"),
        ("./.dvc/cache", "is in .dvc, the folder DVC keeps its own files in"),
        (".evalset", "is .evalset, the folder evalset keeps its own files in"),
        ("snapshots/", 'is the folder of the snapshots (snapshots = "snapshots")'),
    ],
)
def test_a_corpus_in_a_kept_folder_is_refused_before_anything_is_written(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, corpus: str, why: str
) -> None:
    before = sorted(p.name for p in git_repo.iterdir())
    result = cli(git_repo, "init", "--corpus", corpus)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"evalset: --corpus {corpus!r}: {why}; give the folder that holds the documents, then "
        "run `evalset init` again (it wrote nothing).\n"
    )
    assert sorted(p.name for p in git_repo.iterdir()) == before


def _merge(repo: Path, branch: str, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "PATH": path}
    return subprocess.run(
        ["git", "merge", "--no-edit", branch], cwd=repo, env=env, capture_output=True, text=True
    )


@pytest.fixture
def two_branches(corpus_repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    assert cli(corpus_repo, "init", "--git-hooks").code == 0
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("q-1", "a.md"))
    commit_all(corpus_repo, "base")
    git(corpus_repo, "checkout", "-qb", "other")
    path.write_text(path.read_text() + set_item("q-2", "a.md"))
    commit_all(corpus_repo, "q-2")
    git(corpus_repo, "checkout", "-q", "main")
    path.write_text(path.read_text() + set_item("q-3", "a.md"))
    commit_all(corpus_repo, "q-3")
    return corpus_repo


def test_the_driver_is_found_on_path_wherever_the_environment_is(two_branches: Path) -> None:
    """The registered command names no interpreter: the environment can move."""
    driver = git(two_branches, "config", "merge.evalset.driver")
    assert BIN not in driver
    done = _merge(two_branches, "other", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    text = (two_branches / "sets" / "docs.yaml").read_text()
    assert "id: q-2" in text and "id: q-3" in text


def test_the_driver_says_when_evalset_is_not_on_path(two_branches: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bin"  # git and the shell's tools, but no evalset
    bare.mkdir()
    git_exe = shutil.which("git")
    assert git_exe is not None
    (bare / "git").symlink_to(git_exe)
    done = _merge(two_branches, "other", f"{bare}{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert done.returncode != 0
    assert (
        "evalset merge driver: the evalset command is not on PATH, so this set file was merged "
        "line by line by git, its conflicts marked; to merge it item by item, abort (git merge "
        "--abort, or git rebase --abort, git cherry-pick --abort), activate the environment "
        "evalset is installed in (or install it with pipx) and run it again"
    ) in done.stderr
    # git's line merge, its conflict marked: neither side's item is lost, nor validates
    text = (two_branches / "sets" / "docs.yaml").read_text()
    assert "<<<<<<< ours" in text and "id: q-2" in text and "id: q-3" in text


def test_a_rebase_without_evalset_on_path_leaves_both_sides_marked(  # type: ignore[no-untyped-def]
    two_branches: Path, tmp_path: Path, cli
) -> None:
    """In a rebase, too: the file must not be left as one side, which `git add` and `git
    rebase --continue` would keep, dropping the other without a word."""
    bare = tmp_path / "bin"
    bare.mkdir()
    git_exe = shutil.which("git")
    assert git_exe is not None
    (bare / "git").symlink_to(git_exe)
    env = {**os.environ, **GIT_ENV, "PATH": f"{bare}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    done = subprocess.run(["git", "rebase", "other"], cwd=two_branches, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0
    text = (two_branches / "sets" / "docs.yaml").read_text()
    assert "<<<<<<< ours" in text and "id: q-2" in text and "id: q-3" in text
    assert cli(two_branches, "validate").code == 2  # a conflict left unresolved is named


def test_a_fresh_clone_is_told_to_register_the_driver(  # type: ignore[no-untyped-def]
    two_branches: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(two_branches), str(clone))
    note = (
        "note: the set-file merge driver is not registered in this clone; run "
        "`evalset init --git-hooks`"
    )
    assert note in cli(clone, "status").out
    assert json.loads(cli(clone, "status", "--json").out)["merge_driver"]["ok"] is False
    assert cli(clone, "init", "--git-hooks").code == 0
    assert "merge driver" not in cli(clone, "status").out
    assert json.loads(cli(clone, "status", "--json").out)["merge_driver"] == {
        "ok": True, "problem": None,
    }  # fmt: skip
    # A driver registered by evalset 0.1, with an interpreter's absolute path.
    git(
        clone,
        "config",
        "merge.evalset.driver",
        "/gone/venv/bin/python -m evalset merge-driver %O %A %B %P",
    )
    shown = cli(clone, "status").out
    assert "the set-file merge driver is registered as another command" in shown
    assert "run `evalset init --git-hooks`" in shown


def test_a_corpus_path_that_would_break_the_files_is_written_as_a_string(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    import tomllib

    from ruamel.yaml import YAML

    odd = 'my docs: "x"\nstages: {}'
    result = cli(git_repo, "init", "--corpus", odd)
    assert result.code == 0, result.err
    with (git_repo / "evalset.toml").open("rb") as f:
        assert tomllib.load(f)["corpus"] == odd
    pipeline = YAML(typ="safe").load((git_repo / "dvc.yaml").read_text())
    assert pipeline["stages"]["snapshot"]["deps"] == [odd]


def test_init_again_names_every_file_it_left_alone(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    first = json.loads(cli(git_repo, "init", "--json").out)
    again = cli(git_repo, "init", "--json")
    second = json.loads(again.out)
    assert second["created"] == []
    assert sorted(second["kept"]) == sorted(first["created"])
    said = cli(git_repo, "init").out
    for path in first["created"]:
        assert f"kept    {os.path.relpath(path, git_repo)} (exists)" in said


@pytest.mark.parametrize("given", ["notes.md", "missing"], ids=["a-file", "missing"])
def test_a_corpus_that_is_not_a_folder_is_named_for_what_it_is(
    git_repo: Path, cli, given: str
) -> None:  # type: ignore[no-untyped-def]
    (git_repo / "notes.md").write_text("# Notes\n\nText.\n")
    what = "is a file, not a folder" if given == "notes.md" else "does not exist"
    init = cli(git_repo, "init", "--corpus", given, "--json")
    assert init.code == 0, init.err
    assert what + (":" if given == "notes.md" else " yet:") in json.loads(init.out)["warnings"][0]
    result = cli(git_repo, "snapshot")
    assert result.code == 2
    assert result.err.strip() == (
        f"evalset: {given}: the corpus folder {what}, but evalset.toml names it as the folder "
        f'of the documents (corpus = "{given}"); put the documents there, or check `corpus` in '
        "evalset.toml."
    )
    assert not list((git_repo / "snapshots").glob("*.json"))


# Folder names git would misread in a .gitattributes line written as they are: (the name,
# a folder beside it that the pattern must not route).
ODD_FOLDERS = {
    "space": ("my evals", "my"),
    "two-spaces": ("my  evals", "my evals"),
    "tab": ("my\tevals", "myevals"),
    "hash": ("#evals", "evals"),
    "hash-inside": ("ev#als", "evals"),
    "bang": ("!evals", "evals"),
    "brackets": ("ev[a]ls", "evals"),
    "star": ("ev*", "evals"),
    "question-mark": ("ev?ls", "evals"),
    "quote": ('"evals', "evals"),
    "backslash": ("ev\\als", "evals"),
    "unicode": ("évals ü", "evals"),
}


def _routed(repo: Path, path: Path) -> str:
    return git(repo, "check-attr", "merge", "--", str(path)).rsplit(": ", 1)[1].strip()


@pytest.mark.parametrize(("folder", "decoy"), ODD_FOLDERS.values(), ids=ODD_FOLDERS.keys())
@pytest.mark.parametrize("where", ["workspace", "sets"])
def test_set_files_in_a_folder_of_any_name_reach_the_merge_driver(  # type: ignore[no-untyped-def]
    git_repo: Path,
    cli,
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
    decoy: str,
    where: str,
) -> None:
    """The name is the workspace's folder, or the sets folder the configuration names."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    if where == "workspace":
        root, sets = git_repo / folder, git_repo / folder / "sets"
        decoy_file = git_repo / decoy / "sets" / "x.yaml"
    else:
        root, sets = git_repo, git_repo / folder
        (root / "evalset.toml").write_text(f"sets = {json.dumps(folder)}\n", "utf-8")
        decoy_file = git_repo / decoy / "x.yaml"
    root.mkdir(exist_ok=True)
    result = cli(root, "init", "--name", "s1")
    assert result.code == 0, result.err
    for suffix in (".yaml", ".yml"):
        assert _routed(git_repo, sets / f"s1{suffix}") == "evalset"
    assert _routed(git_repo, decoy_file) == "unspecified"
    checked = subprocess.run(
        ["git", "check-attr", "merge", "--", str(sets / "s1.yaml")],
        cwd=git_repo, capture_output=True, text=True,
    )  # fmt: skip
    assert checked.stderr == ""  # no line git cannot read
    assert json.loads(cli(root, "status", "--json").out)["merge_driver"] == {
        "ok": True, "problem": None,
    }  # fmt: skip


UNREAD = ["space", "two-spaces", "tab", "hash", "bang", "brackets", "backslash", "unicode"]
"""The folders whose name, written as it is, makes a line git does not read as meant (the
others' names match themselves, among others)."""


@pytest.mark.parametrize("folder", [ODD_FOLDERS[k][0] for k in UNREAD], ids=UNREAD)
def test_status_names_a_set_file_git_does_not_route_and_init_repairs_it(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, monkeypatch: pytest.MonkeyPatch, folder: str
) -> None:
    """As evalset 0.1 wrote the line: the folder's name as it is."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    root = git_repo / folder
    root.mkdir()
    assert cli(root, "init", "--name", "s1").code == 0
    old = f"{folder}/sets/*.yaml merge=evalset\n{folder}/sets/*.yml merge=evalset\n"
    (git_repo / ".gitattributes").write_text("*.md text\n" + old, "utf-8")
    assert _routed(git_repo, root / "sets" / "s1.yaml") != "evalset"
    shown = cli(root, "status")
    assert (
        "note: git does not route sets/s1.yaml to the set-file merge driver (no line of "
        ".gitattributes that git reads matches it); run `evalset init --git-hooks`, which "
        "writes one"
    ) in shown.out
    problem = json.loads(cli(root, "status", "--json").out)["merge_driver"]["problem"]
    assert problem.startswith("git does not route sets/s1.yaml to the set-file merge driver")
    assert cli(root, "init", "--git-hooks").code == 0
    text = (git_repo / ".gitattributes").read_text("utf-8")
    assert text.startswith("*.md text\n") and old not in text
    assert _routed(git_repo, root / "sets" / "s1.yaml") == "evalset"
    assert json.loads(cli(root, "status", "--json").out)["merge_driver"]["ok"] is True
