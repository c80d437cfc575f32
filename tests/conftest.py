"""Helpers: real temporary git repositories and workspaces, and in-process CLI runs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# No test reaches the network: DVC's command line would otherwise collect an analytics
# report of each command in a temporary file and start a process to send it.
os.environ["DVC_NO_ANALYTICS"] = "1"
# Nor on the developer's DVC configuration (a cache folder set for every repository of the
# machine, say): DVC's user and system configuration are read from a folder that is never
# there (a test that needs one points these at its own).
NO_DVC_CONFIG = str(Path(__file__).resolve().parent / "no-dvc-config")
os.environ["DVC_GLOBAL_CONFIG_DIR"] = os.environ["DVC_SYSTEM_CONFIG_DIR"] = NO_DVC_CONFIG

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLE_SET = ROOT / "sets" / "acme-support.yaml"

# Tests must not depend on the developer's git configuration.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def make_git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "repo")


@pytest.fixture
def workspace(git_repo: Path) -> Path:
    """A git repository holding a copy of the example workspace (config, corpus, one set)."""
    (git_repo / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\n', "utf-8")
    shutil.copytree(ROOT / "corpus", git_repo / "corpus")
    (git_repo / "sets").mkdir()
    shutil.copy(EXAMPLE_SET, git_repo / "sets" / EXAMPLE_SET.name)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "example workspace")
    return git_repo


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A git repository holding the whole example workspace, snapshots included."""
    repo = make_git_repo(tmp_path / "repo")
    for folder in ("corpus", "sets", "snapshots"):
        shutil.copytree(ROOT / folder, repo / folder)
    config = 'sets = "sets"\ncorpus = "corpus"\nsnapshots = "snapshots"\n'
    (repo / "evalset.toml").write_text(config + "[split]\nratio = 0.2\n", "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "example")
    return repo


def seeded(examples: int, shrink: bool = True) -> Any:
    """Hypothesis settings for a differential test: the same ``examples`` generated cases on
    every run (derandomised), however long each takes; ``shrink=False`` for a test expected
    to fail (xfail), which need not look for the smallest failing case."""
    from hypothesis import HealthCheck, Phase, settings

    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        phases=list(Phase) if shrink else [Phase.explicit, Phase.generate],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run `evalset ARGS...` in-process in a folder; return exit code, stdout, stderr."""
    from evalset.cli import main

    def run(cwd: Path, *args: str) -> Result:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["evalset", *args])
        capsys.readouterr()
        handler = signal.getsignal(signal.SIGINT)  # a command interrupted ignores a second
        try:  # Ctrl-C: the test session must not
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            signal.signal(signal.SIGINT, handler)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def set_copy(tmp_path: Path) -> Iterator[Path]:
    """A writable copy of the example set outside any workspace."""
    target = tmp_path / "sets" / EXAMPLE_SET.name
    target.parent.mkdir()
    shutil.copy(EXAMPLE_SET, target)
    yield target


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


def dvc(repo: Path, *args: str) -> str:
    """Run the real dvc command line of this environment."""
    exe = Path(sys.executable).with_name("dvc")
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        [str(exe), *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


SET_HEADER = """\
evalset: 1
name: docs
categories:
  direct-lookup: a fact
items:
"""
SMALL_HEADER = SET_HEADER.replace("name: docs", "name: small")
"""The header of a set named small (the file sets/small.yaml)."""


def set_item(ident: str, *citations: str, verified: str | None = None) -> str:
    """An item citing ``citations`` in expected_sources and one key point."""
    listed = ", ".join(citations)
    text = (
        f"  - id: {ident}\n"
        f"    question: Question {ident} about the policy?\n"
        f"    category: direct-lookup\n"
        f"    expected_sources: [{listed}]\n"
        f"    key_points:\n"
        f"      - text: The fact {ident} asks about\n"
        f"        sources: [{listed}]  # cited here too\n"
    )
    return text + (f"    verified: {verified}\n" if verified else "")


def verified_items(items: str, snapshot: str) -> str:
    """``items`` (set-file text) with ``verified: SNAPSHOT`` on each item that has none, as
    `evalset verify NAME --all` writes it: the items were checked against that snapshot."""
    blocks = re.split(r"(?m)^(?=  - id: )", items)
    return "".join(
        block.rstrip("\n") + f"\n    verified: {snapshot}\n"
        if block.startswith("  - id: ") and "\n    verified:" not in block
        else block
        for block in blocks
    )


@pytest.fixture
def corpus_repo(git_repo: Path) -> Path:
    """A git repository configured as a workspace, with an empty corpus and sets folder."""
    (git_repo / "evalset.toml").write_text("[validate]\nmin_per_category = 0\n", "utf-8")
    (git_repo / "corpus").mkdir()
    (git_repo / "sets").mkdir()
    (git_repo / ".gitignore").write_text("/.evalset/\n")
    return git_repo


@pytest.fixture
def one_doc_repo(corpus_repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """A workspace whose corpus is one document, ``d.md``, snapshotted and committed."""
    write_files(corpus_repo, {"corpus/d.md": "# D\n\nThe document.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "corpus")
    return corpus_repo


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, str]:
    """A fresh age key file (with its `# public key:` line, as age-keygen writes it) and its
    public key."""
    from pyrage import x25519

    identity = x25519.Identity.generate()
    path = tmp_path / "holdout.key"
    path.write_text(f"# created: test\n# public key: {identity.to_public()}\n{identity}\n")
    return path, str(identity.to_public())


ONE_ITEM_HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
ONE_ITEM = """\
  - id: q-1
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 30 days
        sources: [d.md]
    holdout: false
"""
"""The one item of a set `s` (after ``ONE_ITEM_HEADER``), laid out as evalset writes it:
the editing tests put items of odd layouts beside it."""
