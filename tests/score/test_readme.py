"""The README's "Scoring a run" part works as written on a copy of the repository: each
`$ evalset …` command of its console blocks runs with the exit status shown, and every
shown output line that is not elided (…) is printed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from conftest import ROOT, commit_all, make_git_repo

SECTION = re.compile(r"### Scoring a run.*?(?=### The DVC pipeline)", re.S)
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def steps_of(text: str) -> list[tuple[str, list[str]]]:
    """(command, shown output lines) of each `$` line in the console blocks."""
    steps: list[tuple[str, list[str]]] = []
    for block in BLOCK.findall(text):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
    return steps


def fresh_copy(root: Path, folders: tuple[str, ...]) -> Path:
    """A git repository holding the example as a fresh clone has it (and ``folders``)."""
    repo = make_git_repo(root)
    for name in ("corpus", "sets", "snapshots", "examples", *folders):
        shutil.copytree(ROOT / name, repo / name)
    for name in ("pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, repo / name)
    commit_all(repo, "a fresh clone")
    return repo


def run_as_written(repo: Path, cli, steps: list[tuple[str, list[str]]]) -> None:  # type: ignore[no-untyped-def]
    """Each step's command exits as the next `echo $?` shows and prints every shown line
    that is not elided (…); a `--json` command's output only has to be JSON."""
    last = 0
    for command, shown in steps:
        if command == "echo $?":
            assert last == int(shown[0]), f"exit status of the command before `{command}`"
            continue
        args = command.split()
        assert args[0] == "evalset", command
        done = cli(repo, *args[1:])
        last = done.code
        printed = [line.rstrip() for line in (done.out + done.err).splitlines()]
        if "--json" in args:
            json.loads(done.out)
            continue
        for line in shown:
            if "…" in line or not line.strip():
                continue
            assert line.rstrip() in printed, f"`{command}` did not print: {line}"


def test_the_scoring_section_works_as_written(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = fresh_copy(tmp_path / "clone", ("tests/score/data",))
    steps = steps_of(SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))[0])
    assert len(steps) >= 8
    run_as_written(repo, cli, steps)
    assert (repo / "reports" / "accepted" / "acme-support.json").is_file()
    assert (repo / "reports" / "hybrid.html").is_file()
