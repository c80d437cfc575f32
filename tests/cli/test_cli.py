"""Each command once through the command line, on the shipped example."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT


def test_validate_example_exits_0(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "validate")
    assert result.code == 0
    assert result.out.splitlines()[-1] == "0 error(s), 2 warning(s) in 1 file(s)"
    strict = cli(ROOT, "validate", "acme-support", "--strict")
    assert strict.code == 1


def test_validate_json(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "validate", "--json")
    document = json.loads(result.out)
    assert document["ok"] is True and document["errors"] == 0 and document["warnings"] == 2
    assert document["findings"][0]["item"] == "q-3f2a9c41"
    assert document["findings"][0]["line"] == 550


def test_status_json_counts_match_the_example(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "status", "--json")
    assert result.code == 0
    (entry,) = json.loads(result.out)["sets"]
    assert entry["name"] == "acme-support"
    assert entry["items"] == {
        "active": 40,
        "holdout": 9,
        "tuning": 31,
        "unassigned": 0,
        "draft": 3,
        "retired": 1,
        "sealed": 0,
    }
    assert entry["categories"]["direct-lookup"] == {"tuning": 9, "holdout": 3, "unassigned": 0}
    assert entry["categories"]["injection"] == {"tuning": 4, "holdout": 1, "unassigned": 0}
    assert sum(sum(row.values()) for row in entry["categories"].values()) == 40
    assert (entry["errors"], entry["warnings"], entry["stale"]) == (0, 2, 6)
    assert entry["stale_items"] == ["q-003", "q-011", "q-012", "q-022", "q-025", "q-029"]


def test_status_informs_and_exits_0_even_with_errors(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = workspace / "sets" / "acme-support.yaml"
    path.write_text(path.read_text().replace("category: injection", "category: injecton", 1))
    result = cli(workspace, "status")
    assert result.code == 0
    assert "1 error(s)" in result.out
    assert cli(workspace, "validate").code == 1


def test_status_of_named_sets_only(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Named sets (by name or path, each shown once) limit the overview; an unknown name is
    one sentence, exit 2."""
    sets = workspace / "sets"
    (sets / "second.yaml").write_text(
        (sets / "acme-support.yaml").read_text().replace("name: acme-support", "name: second")
    )
    every = json.loads(cli(workspace, "status", "--json").out)["sets"]
    assert [s["name"] for s in every] == ["acme-support", "second"]
    for args in (["second"], ["second", "sets/second.yaml"], ["--coverage", "second"]):
        shown = json.loads(cli(workspace, "status", *args, "--json").out)["sets"]
        assert [s["name"] for s in shown] == ["second"], args
        assert shown[0] == next(s for s in every if s["name"] == "second") | (
            {"coverage": shown[0]["coverage"]} if "--coverage" in args else {}
        )
    text = cli(workspace, "status", "second")
    assert text.code == 0 and "second (sets/second.yaml)" in text.out
    assert "acme-support (" not in text.out
    unknown = cli(workspace, "status", "nope")
    assert unknown.code == 2
    assert unknown.err.startswith("evalset: sets: has no set named 'nope'")
    assert len(unknown.err.splitlines()) == 1


USAGE_ERRORS = {
    (
        "validate",
        "--no-such-flag",
    ): "No such option: --no-such-flag; see `evalset validate --help`.",
    # a group without its command: the help on standard output, and a sentence that says so
    (): "no command given; see `evalset --help`.",
    ("score",): "no command given; see `evalset score --help`.",
}


@pytest.mark.parametrize("args", USAGE_ERRORS)
def test_usage_errors_exit_2_in_one_sentence(cli, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, *args)
    assert result.code == 2
    assert result.err == f"evalset: {USAGE_ERRORS[args]}\n"


def test_every_command_has_help(cli) -> None:  # type: ignore[no-untyped-def]
    for command in ("validate", "status", "init", "schema"):
        result = cli(ROOT, command, "--help")
        assert result.code == 0
        assert "Example: evalset" in result.out, command


def test_console_script_and_version() -> None:
    from evalset import __version__

    done = subprocess.run(
        [Path(sys.executable).with_name("evalset"), "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"evalset {__version__}"


def test_plain_forms_skip_typer_and_print_the_same(example: Path, cli, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """`status`, `stale` and `snapshot` with their flags, and the scoring commands' usual
    forms (TREC mode's too), run without the typer app; what they print and their exit code
    equal the typer path's. Other forms go through typer."""
    from evalset.cli import plain_form
    from evalset.cli.app import run_app

    def through_typer(*args: str) -> tuple[int, str, str]:
        monkeypatch.chdir(example)
        monkeypatch.setattr(sys, "argv", ["evalset", *args])
        capsys.readouterr()
        try:
            code = run_app()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    for args in (
        ["status"],
        ["status", "--json", "--coverage"],
        ["stale"],
        ["stale", "--json", "acme-support"],
        ["stale", "--format", "md", "--no-fail"],
    ):
        assert plain_form(args) is not None, args
        fast = cli(example, *args)
        assert (fast.code, fast.out, fast.err) == through_typer(*args), args
    shutil.copy(ROOT / "examples" / "runs" / "acme-support-bm25.jsonl", example / "run.jsonl")
    (example / "q.txt").write_text("t1 0 d1 1\nt1 0 d2 0\nt2 0 d3 2\n", encoding="utf-8")
    (example / "r.txt").write_text(
        "t1 Q0 d2 1 2.0 x\nt1 Q0 d1 2 1.0 x\nt2 Q0 d3 1 0.5 x\n", encoding="utf-8"
    )
    (example / "bad.txt").write_text("t1 Q0 d2 1\n", encoding="utf-8")
    for args in (
        ["score", "retrieval", "--qrels", "q.txt", "--run", "r.txt"],
        ["score", "retrieval", "--run", "r.txt", "--json", "--qrels", "q.txt"],
        ["score", "retrieval", "--qrels", "q.txt", "--run", "bad.txt", "--json"],  # refused
        ["score", "retrieval", "--qrels", "missing.txt", "--run", "r.txt"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--allow-stale"],
        ["score", "retrieval", "--json", "acme-support", "run.jsonl", "--allow-stale"],
        ["score", "retrieval", "acme-support", "run.jsonl", "-o", "r.json", "--allow-stale"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--skip-invalid"],  # stale: refused
        ["score", "retrieval", "acme-support", "missing.jsonl", "--allow-stale"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "exact", "--allow-stale"],
        ["score", "answers", "--json", "acme-support", "run.jsonl", "--allow-stale", "--judge",
         "exact"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "exact", "-o", "r.json",
         "--allow-stale", "--skip-invalid"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "exact"],  # stale
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "nope", "--allow-stale"],
    ):  # fmt: skip
        assert plain_form(args) is not None, args
        fast = cli(example, *args)
        written = (example / "r.json").read_text() if "-o" in args else None
        with monkeypatch.context() as typer_only:  # main() as it runs every other form
            typer_only.setattr("evalset.cli.plain_form", lambda argv: None)
            slow = cli(example, *args)
        assert (fast.code, fast.out, fast.err) == (slow.code, slow.out, slow.err), args
        if written is not None:
            assert (example / "r.json").read_text() == written
    others = [
        ["score", "retrieval", "acme-support"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--k", "1,3"],
        ["score", "retrieval", "acme-support", "run.jsonl", "-o"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--json", "--json"],
        ["score", "retrieval", "--qrels", "q", "--run", "r", "--k", "5"],
        ["score", "retrieval", "--qrels", "q", "--run", "r", "--run", "r"],
        ["score", "retrieval", "--qrels", "q", "--run", "r", "-o", "x.json"],
        ["score", "retrieval", "--qrels", "q", "--run"],
        ["score", "retrieval", "--qrels", "q", "--run", "--json"],
        ["score", "retrieval", "--qrels", "q"],
        ["score", "retrieval", "--qrels=q", "--run", "r"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--qrels", "q", "--run", "r"],
        ["score", "answers", "acme-support", "run.jsonl"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "exact", "--format", "md"],
        ["score", "answers", "acme-support", "run.jsonl", "--judge=exact"],
        ["status", "--help"],
        ["stale", "--format=md"],
        ["stale", "--format", "x"],
        ["snapshot", "--rev", "HEAD"],
        ["snapshot", "--json", "--json"],
        ["validate"],
    ]
    for args in others:
        assert plain_form(args) is None, args


def test_scoring_in_its_own_process_writes_everything_before_it_ends(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`evalset score retrieval` run as a program ends its process as soon as its output is
    flushed (without the interpreter's teardown): stdout, the report and the exit code are
    those of the same command run in-process, in full."""
    shutil.copy(ROOT / "examples" / "runs" / "acme-support-bm25.jsonl", example / "run.jsonl")
    for args in (
        ["score", "retrieval", "acme-support", "run.jsonl", "--allow-stale", "--json"],
        ["score", "retrieval", "acme-support", "run.jsonl", "--allow-stale", "-o", "r.json"],
        ["score", "retrieval", "acme-support", "run.jsonl"],  # stale: refused, exit 1
        ["score", "answers", "acme-support", "run.jsonl", "--judge", "exact", "--allow-stale",
         "-o", "r.json"],
    ):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "evalset", *args], cwd=example, capture_output=True, text=True
        )
        written = (example / "r.json").read_text() if "-o" in args else None
        inside = cli(example, *args)
        assert (done.returncode, done.stdout, done.stderr) == (inside.code, inside.out, inside.err)
        if written is not None:
            assert (example / "r.json").read_text() == written
            assert json.loads(written)["digest"].startswith("sha256:")


def test_messages_name_paths_as_typed_from_the_current_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from evalset.cli.output import as_typed

    inside = tmp_path / "repo"
    inside.mkdir()
    monkeypatch.chdir(inside)
    assert as_typed(f"{inside}/snapshots/x.json: is broken") == "snapshots/x.json: is broken"
    assert as_typed(f"{tmp_path}/other.json: is broken") == f"{tmp_path}/other.json: is broken"
    assert as_typed(f"{inside}: is not a workspace") == f"{inside}: is not a workspace"


def _leaf_commands() -> list[list[str]]:
    from evalset.cli.app import command

    found: list[list[str]] = []

    def walk(group: Any, path: list[str]) -> None:
        for name, sub in sorted(getattr(group, "commands", {}).items()):
            if getattr(sub, "commands", None):
                walk(sub, [*path, name])
            else:
                found.append([*path, name])

    walk(command(), [])
    return found


VALUE_ERRORS = [
    (["score", "retrieval", "acme-support", "run.jsonl", "--k", "0"], "--k"),
    (["score", "retrieval", "acme-support", "run.jsonl", "--granularity", "page"],
     "--granularity"),
    (["gate", "a.json", "b.json", "--margin", "inf"], "--margin"),
    (["split", "acme-support", "--ratio", "2"], "--ratio"),
    (["no-such-command"], "No such command"),
    (["score", "answers", "acme-support", "run.jsonl"], "Missing option '--judge': name the "
     "judge: exact, command:PROGRAM, openai[:MODEL], or a judge configured under [judges.NAME]"),
    (["agreement", "labels.csv"], "Missing option '--judge': name the judge: exact"),
]  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [[*path, "--no-such-option"] for path in _leaf_commands()] + [a for a, _ in VALUE_ERRORS],
    ids=lambda args: " ".join(args),
)
def test_a_usage_error_under_json_is_one_json_document(cli, example: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A script that asked for JSON gets the usage error as JSON on standard output, as it
    gets evalset's own errors; the person reading the terminal gets the same sentence."""
    result = cli(example, *args, "--json")
    assert result.code == 2, (result.out, result.err)
    document = json.loads(result.out)
    assert set(document) == {"error", "exit_code"} and document["exit_code"] == 2
    error = document["error"]
    named = dict((tuple(a), n) for a, n in VALUE_ERRORS).get(tuple(args), "--no-such-option")
    assert named in error and error.endswith("--help`.") and "\n" not in error
    assert result.err == f"evalset: {error}\n"


@pytest.mark.parametrize(
    "args",
    [[*path, "--no-such-option"] for path in _leaf_commands()] + [a for a, _ in VALUE_ERRORS],
    ids=lambda args: " ".join(args),
)
def test_a_usage_error_is_one_sentence(cli, example: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A wrong option or value is bad input like any other: one sentence naming it and
    where the options are listed, exit 2, nothing on standard output."""
    result = cli(example, *args)
    assert result.code == 2 and result.out == ""
    named = dict((tuple(a), n) for a, n in VALUE_ERRORS).get(tuple(args), "--no-such-option")
    assert result.err.startswith("evalset: ") and result.err.endswith("--help`.\n")
    assert named in result.err and result.err.count("\n") == 1


NUMBER_OPTIONS = {
    "--ratio": (["split", "acme-support", "--dry-run"], "from 0 to 1", ["1.5", "-0.5"]),
    "--min-kappa": (
        ["agreement", str(ROOT / "examples" / "labels" / "acme-support.csv"), "--judge", "exact"],
        "from -1 to 1",
        ["1.5", "-2"],
    ),
    "--margin": (["gate", "a.json", "b.json"], "of 0 or more", ["-0.1"]),
}


@pytest.mark.parametrize(
    ("option", "value"),
    [(o, v) for o, (_, _, out) in NUMBER_OPTIONS.items() for v in ["nan", "inf", "-inf", *out]],
)
def test_a_number_option_takes_a_finite_number_in_its_range(  # type: ignore[no-untyped-def]
    cli, example: Path, option: str, value: str
) -> None:
    """NaN passed typer's own bounds, or was said to be above the upper one."""
    args, wanted, _ = NUMBER_OPTIONS[option]
    done = cli(example, *args, option, value)
    assert done.code == 2, done.out
    assert f"Invalid value for '{option}': give a finite number {wanted}, not " in done.err


INTERRUPTED = (
    "evalset: interrupted; no file was left half-written (run the command again to finish it).\n"
)


@pytest.mark.parametrize(
    "args",
    [["new", "acme-support"], ["stale", "acme-support", "--fix-moved"]],
    ids=["through typer", "a plain form"],
)
def test_ctrl_c_is_one_line_and_exit_130_and_changes_nothing(
    example: Path, args: list[str]
) -> None:
    import os
    import signal
    import time

    from conftest import GIT_ENV
    from evalset.sets.editor import edit_set

    target = example / "sets" / "acme-support.yaml"
    env = {**os.environ, **GIT_ENV}
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "evalset", "validate"], cwd=example, env=env)
    run_takes = time.monotonic() - start
    before = target.read_bytes()
    with edit_set(target):  # the command waits for this lock: Ctrl-C comes while it waits
        proc = subprocess.Popen(
            [sys.executable, "-m", "evalset", *args], cwd=example, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        time.sleep(2 * run_takes + 0.3)
        assert proc.poll() is None  # still there, twice as long as a run takes: it waits
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends Ctrl-C
        _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (130, INTERRUPTED)
    assert target.read_bytes() == before


class _ReaderGone(io.StringIO):
    """Standard output whose reader left once it had the help's last line: `evalset stale
    --help | head -40`, when rich has printed the help and click writes the line after it
    (a lone line break)."""

    def __init__(self, null: int) -> None:
        super().__init__()
        self.null = null

    def write(self, text: str) -> int:
        if text == "\n" and self.getvalue():
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
        return super().write(text)

    def fileno(self) -> int:  # what rich asks a console's file (not a terminal)
        return self.null


@pytest.mark.parametrize("args", [["--help"], ["stale", "--help"], ["score", "retrieval", "-h"]])
def test_help_into_a_pipe_closed_early_is_quiet_with_141(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """click ends the process with status 1 on a broken pipe, which reads as findings."""
    from evalset.cli import main

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["evalset", *args])
    with open(os.devnull, "w") as null:
        gone = _ReaderGone(null.fileno())
        monkeypatch.setattr(sys, "stdout", gone)
        with pytest.raises(SystemExit) as ended:
            main()
    assert ended.value.code == 141
    assert "Usage: evalset" in gone.getvalue()
    assert capsys.readouterr().err == ""
