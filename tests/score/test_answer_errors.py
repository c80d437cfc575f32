"""Bad input to `evalset score answers`: one sentence, exit 2, no report written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from answers_ws import ANSWERS, STUB, make_answers_ws, write_run


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    return make_answers_ws(tmp_path / "repo")


def _score(qa: Path, cli, *args: str):  # type: ignore[no-untyped-def]
    return cli(qa, "score", "answers", "qa", "run.jsonl", "-o", "reports/r.json", *args)


def test_a_retrieval_run_without_answers(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(qa / "run.jsonl", [{"id": "k1", "retrieved": ["guide.md#returns"]}])
    done = _score(qa, cli, "--judge", "exact")
    assert done.code == 2
    assert done.err.strip() == (
        'evalset: run.jsonl: has no "answer" on any line, so it is a retrieval run; score it '
        "with `evalset score retrieval`, or give each line what the system answered."
    )
    assert not (qa / "reports" / "r.json").exists()


def test_a_line_without_its_answer(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    lines = [*ANSWERS[:2], {"id": "k3", "retrieved": []}, *ANSWERS[3:]]
    write_run(qa / "run.jsonl", lines)
    done = _score(qa, cli, "--judge", "exact")
    assert done.code == 2
    assert done.err.strip() == (
        'evalset: run.jsonl:3: item k3 has no "answer"; give what the system answered (an '
        "empty text if it said nothing); fix the line, or leave invalid lines out with "
        "--skip-invalid."
    )
    assert not (qa / "reports" / "r.json").exists()
    skipped = _score(qa, cli, "--judge", "exact", "--skip-invalid")
    assert skipped.code == 0 and "1 invalid run line(s) left out" in skipped.out


def test_an_answer_that_is_not_text(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(qa / "run.jsonl", [{"id": "k1", "answer": ["a"]}])
    done = _score(qa, cli, "--judge", "exact")
    assert done.code == 2
    assert 'run.jsonl:1: item k1: "answer" must be text, not a list' in done.err


def test_contexts_that_are_not_texts(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(qa / "run.jsonl", [{"id": "k1", "answer": "a", "contexts": "one passage"}])
    done = _score(qa, cli, "--judge", "exact")
    assert done.code == 2
    assert 'item k1: "contexts" must be a list of texts' in done.err


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("crash", "exited (status 3) without answering (request 1); its last error output: "
                  "'stub judge: out of credits'"),
        ("garbage", "printed 'Verdict: YES!!', which is not an answer to it (request 1)"),
        ("hang", "gave no answer within 0.5 s (timeout) (request 1)"),
    ],
)  # fmt: skip
def test_a_judge_command_that_crashes_hangs_or_prints_garbage(
    qa: Path,
    cli,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    says: str,  # type: ignore[no-untyped-def]
) -> None:
    write_run(qa / "run.jsonl", ANSWERS)
    (qa / "evalset.toml").write_text(
        "[validate]\nmin_per_category = 0\n[judges.stub]\nkind = 'command'\n"
        f"command = ['{sys.executable}', '{STUB}']\ntimeout = 0.5\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("STUB_MODE", mode)
    done = _score(qa, cli, "--judge", "stub")
    assert done.code == 2
    assert done.err.strip() == (
        f"evalset: judge command `{sys.executable} {STUB}` {says}; a judge answers each request "
        "line with one JSON line, as the README's judge protocol says."
    )
    assert "Traceback" not in done.err
    assert not (qa / "reports" / "r.json").exists()


def test_claims_a_judge_could_not_decide_exit_1_with_the_report_written(
    qa: Path,
    cli,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    write_run(qa / "run.jsonl", ANSWERS)
    monkeypatch.setenv("STUB_MODE", "error:cards")
    done = _score(qa, cli, "--judge", f"command:{sys.executable} {STUB}")
    assert done.code == 1
    assert "2 claim(s) the judge could not decide" in done.out
    assert (qa / "reports" / "r.json").is_file()


@pytest.mark.parametrize("fork", [True, False])
def test_an_invalid_set_is_refused_first_and_no_judge_is_asked(
    fork: bool, qa: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The set is checked aside while the run is read: an invalid set is refused with its
    own sentence even when the run is broken too, and a judge that costs something (its
    verdicts are cached) is not asked anything for a set that cannot be scored."""
    monkeypatch.setattr("evalset.aside.can_fork", lambda: fork)
    log = qa / "calls.log"
    monkeypatch.setenv("STUB_LOG", str(log))
    (qa / "evalset.toml").write_text(
        (qa / "evalset.toml").read_text()
        + f"\n[judges.stub]\nkind = 'command'\ncommand = ['{sys.executable}', '{STUB}']\n"
    )
    path = qa / "sets" / "qa.yaml"
    path.write_text(path.read_text().replace("category: lookup", "category: lokup", 1))
    write_run(qa / "run.jsonl", ANSWERS)
    for judge in ("exact", "stub"):
        done = _score(qa, cli, "--judge", judge)
        assert done.code == 1, done.err
        assert done.err.startswith("evalset: sets/qa.yaml: cannot score a run against an "
                                   "invalid set (1 error(s); "), done.err  # fmt: skip
        assert not log.exists() and not (qa / "reports" / "r.json").exists()
    (qa / "run.jsonl").write_text("not json\n")
    broken = _score(qa, cli, "--judge", "exact")
    assert broken.code == 1 and "cannot score a run against an invalid set" in broken.err


@pytest.mark.parametrize("which", ["run", "labels"])
def test_a_file_that_cannot_be_opened_is_named_before_the_sets_problems(  # type: ignore[no-untyped-def]
    which: str, qa: Path, cli
) -> None:
    """A refused set (exit 1) must not hide that a file given is not there (exit 2)."""
    set_file = qa / "sets" / "qa.yaml"
    set_file.write_text(set_file.read_text().replace("id: k2", "id: k1"), encoding="utf-8")
    labels = ["--labels", "labels.csv"] if which == "labels" else []
    if which == "labels":
        write_run(qa / "run.jsonl", ANSWERS)
    done = _score(qa, cli, "--judge", "exact", *labels)
    assert done.code == 2, done.err
    name = "run.jsonl" if which == "run" else "labels.csv"
    kind = "run" if which == "run" else "label"
    assert done.err == f"evalset: {name}: no such file; give the path of the {kind} file.\n"


SPLITS_NOTHING = """\
import json, sys
for line in sys.stdin:
    asked = json.loads(line)
    if asked["op"] == "statements":
        print(json.dumps({"id": asked["id"], "error": "the splitter is down"}), flush=True)
    else:
        print(json.dumps({"id": asked["id"], "verdict": True}), flush=True)
"""


def test_faithfulness_not_scored_because_the_judge_failed_says_so(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The run has contexts and the judge splits answers: the note names its failures, not
    what the run or the judge lacks."""
    write_run(qa / "run.jsonl", ANSWERS)
    (qa / "splits_nothing.py").write_text(SPLITS_NOTHING)
    done = _score(qa, cli, "--judge", f"command:{sys.executable} splits_nothing.py")
    assert done.code == 1, done.err
    assert "note: faithfulness not scored: the judge could not split 1 answer(s)" in done.out
    assert "it needs run lines with contexts" not in done.out
