"""The README's "Scoring answers" part works as written on a fresh copy of the repository:
its three commands (score two runs' answers, checking the judge against people on the way,
and gate), the page of a report, and the agreement commands, each with the exit status
shown and every shown line that is not elided (…) printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_readme import fresh_copy, run_as_written, steps_of

from conftest import ROOT

SECTION = re.compile(r"### Scoring answers.*?(?=### `evalset init`)", re.S)


def test_the_answers_section_works_as_written(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = fresh_copy(tmp_path / "clone", ())
    steps = steps_of(SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))[0])
    commands = [c for c, _ in steps if c != "echo $?"]
    # score, score with labels, gate; the page; two agreements
    assert len(commands) == 6, commands
    run_as_written(repo, cli, steps)
    hybrid = json.loads((repo / "reports" / "hybrid-answers.json").read_text())
    assert hybrid["report"]["kind"] == "retrieval+answers"
    assert hybrid["judge"]["agreement"]["labels"]["path"] == "examples/labels/acme-support.csv"
    assert hybrid["judge"]["usage"]["cached"] > 0  # the first run's verdicts, reused
    page = (repo / "reports" / "hybrid-answers.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Answer misses: start reading here" in page
