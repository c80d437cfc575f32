"""The README's "Scoring answers" part works as written on a fresh copy of the repository:
its three commands (score two runs' answers, checking the judge against people on the way,
and gate) and the agreement commands, each with the exit status shown and every shown line
that is not elided (…) printed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from test_readme import _steps

from conftest import ROOT, commit_all, make_git_repo

SECTION = re.compile(r"### Scoring answers.*?(?=### `evalset init`)", re.S)


def test_the_answers_section_works_as_written(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = make_git_repo(tmp_path / "clone")
    for name in ("corpus", "sets", "snapshots", "examples"):
        shutil.copytree(ROOT / name, repo / name)
    for name in ("pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, repo / name)
    commit_all(repo, "a fresh clone")
    steps = _steps(SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))[0])
    commands = [c for c, _ in steps if c != "echo $?"]
    assert len(commands) == 5, commands  # score, score with labels, gate; two agreements
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
        for line in shown:
            if "…" in line or not line.strip():
                continue
            assert line.rstrip() in printed, f"`{command}` did not print: {line}"
    hybrid = json.loads((repo / "reports" / "hybrid-answers.json").read_text())
    assert hybrid["report"]["kind"] == "retrieval+answers"
    assert hybrid["judge"]["agreement"]["labels"]["path"] == "examples/labels/acme-support.csv"
    assert hybrid["judge"]["usage"]["cached"] > 0  # the first run's verdicts, reused
