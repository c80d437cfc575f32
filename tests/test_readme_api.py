"""The README's Python API example runs as written on the example workspace as shipped, and
prints what its comments say: a user's first program against the library is that block."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_git_repo

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def readme_python_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Python API") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the Python API section shows a program"
    return found.group(1)


def test_the_readme_python_example_runs_as_written(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "repo")
    for folder in ("corpus", "sets", "snapshots", "examples"):
        shutil.copytree(ROOT / folder, repo / folder)
    # the repository's own workspace is configured in its pyproject.toml: the same, alone
    config = re.search(r"^\[tool\.evalset\]\n.*?(?=^\[tool\.(?!evalset))", PYPROJECT, re.S | re.M)
    assert config
    (repo / "evalset.toml").write_text(
        config.group(0).replace("[tool.evalset.", "[").replace("[tool.evalset]\n", ""), "utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "example")
    program = readme_python_block()

    done = subprocess.run(
        [sys.executable, "-c", program], cwd=repo, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "I'm <EMAIL_1>, card <CARD_1>" in out  # as the comment beside the print says
    assert "{'value': 0.875, 'low': " in out
    assert "\nTrue\n" in out  # the gate of a report against itself: nothing dropped
    assert "['q-003', 'q-011', 'q-012', 'q-022', 'q-025', 'q-029']" in out  # the six stale
    # the edit at its end changed what it said, and nothing else
    diff = git(repo, "diff", "-U0", "--", "sets/acme-support.yaml")
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in "+++---"]
    assert all("q-042" in line or "Iceland" in line or "draft" in line or "tags" in line
               or "shipping" in line or "customs" in line for line in changed), changed  # fmt: skip
    assert any("q-042" in line for line in changed) and any("customs" in line for line in changed)
