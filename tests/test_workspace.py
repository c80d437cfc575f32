"""`evalset init` in real git repositories, and finding sets by name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import git
from evalset import UnknownSet, find_workspace
from evalset.sets.validate import validate
from evalset.workspace import resolve_set, set_paths


def test_init_scaffolds_a_valid_workspace(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(git_repo, "init", "--name", "support-bot")
    assert result.code == 0
    assert result.out.splitlines() == [
        "created evalset.toml",
        "created sets/support-bot.yaml",
        "created snapshots/.gitkeep",
        "created dvc.yaml",
        "created .gitignore",
        "created schemas/evalset.schema.json",
        "created schemas/config.schema.json",
        "created schemas/failure.schema.json",
        "created .gitattributes",
        "set     git config merge.evalset.driver",
    ]
    assert git(git_repo, "config", "merge.evalset.name").strip() == (
        "evalset set files, merged by item id"
    )
    workspace = find_workspace(git_repo)
    report = validate(set_paths(workspace))
    assert report.errors == []
    assert (git_repo / ".gitignore").read_text() == "/.evalset/\n/reports/*\n!/reports/accepted/\n"
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "scaffold")  # everything init writes can be committed


def test_init_never_overwrites(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / "dvc.yaml").write_text("stages: {}\n")
    (git_repo / ".gitignore").write_text("*.pyc")
    assert cli(git_repo, "init", "--name", "x").code == 0
    assert (git_repo / "dvc.yaml").read_text() == "stages: {}\n"
    assert (git_repo / ".gitignore").read_text() == (
        "*.pyc\n/.evalset/\n/reports/*\n!/reports/accepted/\n"
    )
    set_file = git_repo / "sets" / "x.yaml"
    set_file.write_text(set_file.read_text() + "# mine\n")
    before = {
        p: p.read_bytes() for p in git_repo.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    second = cli(git_repo, "init", "--name", "x", "--json")
    assert second.code == 0
    assert '"created": []' in second.out
    after = {
        p: p.read_bytes() for p in git_repo.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    assert after == before


def test_init_uses_an_existing_pyproject_table(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / "pyproject.toml").write_text('[tool.evalset]\nsets = "sets"\n')
    assert cli(git_repo, "init").code == 0
    assert not (git_repo / "evalset.toml").exists()
    assert (git_repo / "sets" / "repo.yaml").exists()  # named after the folder


def test_init_outside_git_is_refused(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(tmp_path, "init")
    assert result.code == 2
    assert result.err.strip() == (
        f"evalset: {tmp_path.resolve()}: is not inside a git repository; run `git init` first."
    )
    assert list(tmp_path.iterdir()) == []


def test_sets_are_found_by_name_with_a_suggestion(workspace: Path) -> None:
    ws = find_workspace(workspace)
    assert resolve_set(ws, "acme-support").name == "acme-support.yaml"
    with pytest.raises(
        UnknownSet, match=r"has no set named 'acme-suport' \(did you mean 'acme-support'\?\)"
    ):
        resolve_set(ws, "acme-suport")


def test_init_waits_while_another_git_command_writes_the_git_config(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import threading
    import time

    lock = git_repo / ".git" / "config.lock"  # as another init's `git config` holds it
    lock.write_text("")
    threading.Timer(0.5, lock.unlink).start()
    start = time.monotonic()
    result = cli(git_repo, "init")
    assert result.code == 0, result.err
    assert time.monotonic() - start >= 0.5
    driver = subprocess.run(
        ["git", "config", "merge.evalset.driver"], cwd=git_repo, capture_output=True, text=True
    )
    assert driver.stdout.endswith("evalset merge-driver %O %A %B %P\n")


def test_init_names_a_git_config_lock_that_stays(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / ".git" / "config.lock").write_text("")  # left by a git command that was killed
    result = cli(git_repo, "init")
    assert result.code == 2
    assert len(result.err.splitlines()) == 1
    assert "its config is locked (" in result.err and ".git/config.lock exists)" in result.err
    assert result.err.endswith("delete that file and run `evalset init --git-hooks`.\n")
    (git_repo / ".git" / "config.lock").unlink()
    assert cli(git_repo, "init", "--git-hooks").code == 0
