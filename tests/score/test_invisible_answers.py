"""An answer of invisible characters only (a zero-width space, a word joiner, a byte-order
mark, a direction mark, with or without white space) says nothing, as an empty answer says
nothing: it is scored without asking the judge, exactly as "" is. Before, the judge was
asked whether such an answer stated each key point and whether it declined."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from answers_ws import ANSWERS, STUB, make_answers_ws, write_run

from evalset.config import find_workspace
from evalset.score.answers import AnswerOptions, score_answers
from evalset.score.judges.command import CommandJudge

INVISIBLE = ["\u200b", "\u2060", "\ufeff", "\u200e", " \u200b\n\u200d ", "\u00ad", "\u2066\u2069"]


def _rows(repo: Path, answer: str, log: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setenv("STUB_LOG", str(log))
    run = write_run(repo / "run.jsonl", [{**line, "answer": answer} for line in ANSWERS])
    judge = CommandJudge([sys.executable, str(STUB)], repo)
    try:
        report, _ = score_answers(
            find_workspace(repo), repo / "sets" / "qa.yaml", run, judge, AnswerOptions()
        )
    finally:
        judge.close()
    return [{k: v for k, v in row.items() if k != "answer"} for row in report.to_json()["items"]]


@pytest.mark.parametrize("answer", INVISIBLE, ids=[repr(a) for a in INVISIBLE])
def test_an_answer_of_invisible_characters_scores_as_an_empty_one(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    empty = _rows(repo, "", tmp_path / "empty.log", monkeypatch)
    invisible = _rows(repo, answer, tmp_path / "invisible.log", monkeypatch)
    assert invisible == empty
    assert not (tmp_path / "invisible.log").exists()  # the judge was asked nothing
