"""A configured command judge whose `command` list holds something other than words: TOML
lets a list hold numbers, tables, dates and empty texts, and each was refused as "the judge
command is empty", which sent the reader looking for a missing command. Each now names the
word and what it is, through every command that loads a judge, with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

from evalset.config import find_workspace
from evalset.score.judges.base import JudgeBroken
from evalset.score.judges.registry import load_judge

NOT_TEXT = 'not text; write command = "PROGRAM ARGS" or a list of texts.'
CASES = {
    "a number first": ("[1, 2]", f"word 1 of the judge command is a number, {NOT_TEXT}"),
    "a float": ('["python3", 1.5]', f"word 2 of the judge command is a number, {NOT_TEXT}"),
    "a boolean": ('["python3", true]', f"word 2 of the judge command is a boolean, {NOT_TEXT}"),
    "a table": ('["python3", {a = 1}]', f"word 2 of the judge command is a table, {NOT_TEXT}"),
    "a list": ('["python3", ["j.py"]]', f"word 2 of the judge command is a list, {NOT_TEXT}"),
    "a date": ('["python3", 1979-05-27]',
               f"word 2 of the judge command is a date or time, {NOT_TEXT}"),
    "an empty word": ('["python3", "j.py", ""]', "word 3 of the judge command is empty; remove "
                      "it, or give the text the program takes there."),
    "no word": ("[]", "the judge command is empty; give the program to run, as in --judge "
                "'command:python my_judge.py'."),
}  # fmt: skip


@pytest.mark.parametrize(("command", "problem"), CASES.values(), ids=CASES.keys())
def test_a_command_list_of_other_than_words_is_named(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, command: str, problem: str
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    config = repo / "evalset.toml"
    config.write_text(
        config.read_text() + f"\n[judges.mine]\nkind = 'command'\ncommand = {command}\n",
        encoding="utf-8",
    )
    message = f"{config}: judges.mine: {problem}"
    with pytest.raises(JudgeBroken) as caught:
        load_judge("mine", find_workspace(repo))
    assert str(caught.value) == message
    (repo / "labels.csv").write_text("id,answer,claim,label\nk1,a b,a,yes\n", encoding="utf-8")
    done = cli(repo, "agreement", "labels.csv", "--judge", "mine", "--set", "qa")
    assert (done.code, done.err) == (2, f"evalset: evalset.toml: judges.mine: {problem}\n")
    run = write_run(repo / "run.jsonl", ANSWERS)
    scored = cli(repo, "score", "answers", "qa", str(run), "--judge", "mine", "-o", "r.json")
    assert (scored.code, scored.err) == (2, f"evalset: evalset.toml: judges.mine: {problem}\n")
    assert not (repo / "r.json").exists()
