"""evalset's standard streams in every state a user's environment puts them in.

A table of commands in each of their output forms (``FORMS``; the writing commands of
``test_interrupted_writes.CASES``), each run as the real `evalset` console script with its
standard streams:

- **unable to encode the text**: PYTHONIOENCODING=ascii, latin-1, cp1252, and a C locale
  with UTF-8 mode off (a bare container, or a Windows console). Human text shows what the
  encoding lacks as an escape (``\\u2192``) and is otherwise what a UTF-8 terminal shows;
  ``--json`` is the same document (written with ``\\u`` escapes); exported rows, which are
  data, are refused in one sentence naming PYTHONIOENCODING=utf-8 and -o, and nothing of
  them is printed.
- **unable to take output**: standard output full (/dev/full), closed, or a pipe whose
  reader is gone; standard error closed too. One sentence on standard error (when it is
  open), exit status 2 (141, quietly, for a broken pipe), never a traceback, and every file
  a writing command touched is whole: a closed output refuses the command before it does
  anything, a full one loses only what it prints.
- **standard input** (``promote -``): closed, empty, bytes that are not UTF-8, UTF-8 under
  a locale that is not.
- **the terminal's variables** rich and click read (TERM, NO_COLOR, FORCE_COLOR, COLUMNS,
  LINES): no crash, and a table keeps every value whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import GIT_ENV, commit_all
from test_hostile_output import on_terminal
from test_interrupted_writes import (  # noqa: F401 (fixtures)
    CASES,
    Case,
    Prepared,
    _example,
    judge,
    prepared,
    reference,
    state,
    templates,
)

EXE = str(Path(sys.executable).with_name("evalset"))
RUN = "examples/runs/acme-support-bm25.jsonl"
MISSING = "sets/ünï-日本→.yaml"
"""A set file that is not there: its error sentence quotes a name no 8-bit encoding holds."""
FAILURES = "failures-utf.jsonl"
FAILURE_ROWS = [
    {"question": "Où est mon colis → 日本 ?", "trace": "t-utf-1"},
    {"question": "Can I pay 20 € with a card — or cash?", "trace": "t-utf-2"},
]

FORMS: list[tuple[str, list[str], str]] = [
    # (id, arguments, form)
    ("version", ["--version"], "text"),
    ("help", ["--help"], "help"),
    ("help-stale", ["stale", "--help"], "help"),
    ("status", ["status", "--coverage"], "text"),
    ("status-json", ["status", "--coverage", "--json"], "json"),
    ("stale", ["stale"], "text"),
    ("stale-json", ["stale", "--json"], "json"),
    ("stale-md", ["stale", "--format", "md"], "text"),
    ("validate", ["validate", "acme-support"], "text"),
    ("validate-json", ["validate", "acme-support", "--json"], "json"),
    ("error", ["validate", MISSING], "text"),
    ("error-json", ["validate", MISSING, "--json"], "json"),
    ("usage-error-json", ["stale", "--format", "→", "--json"], "json"),
    ("score-retrieval", ["score", "retrieval", "acme-support", RUN, "--allow-stale"], "text"),
    ("score-retrieval-json",
     ["score", "retrieval", "acme-support", RUN, "--allow-stale", "--json"], "json"),
    ("score-retrieval-md",
     ["score", "retrieval", "acme-support", RUN, "--allow-stale", "--format", "md"], "text"),
    ("score-answers",
     ["score", "answers", "acme-support", RUN, "--judge", "exact", "--allow-stale"], "text"),
    ("score-answers-json", ["score", "answers", "acme-support", RUN, "--judge", "exact",
                            "--allow-stale", "--json"], "json"),
    ("promote", ["promote", FAILURES, "--set", "acme-support", "--dry-run"], "text"),
    ("promote-json", ["promote", FAILURES, "--set", "acme-support", "--dry-run", "--json"],
     "json"),
    ("export", ["export", "acme-support", "--format", "ragas", "--allow-stale"], "data"),
    ("export-csv", ["export", "acme-support", "--format", "csv", "--allow-stale"], "data"),
    ("pin", ["pin", "acme-support"], "json"),
    ("log", ["log", "acme-support"], "text"),
    ("diff-json", ["diff", "acme-support", "--json"], "json"),
]  # fmt: skip
"""Every output form: human text (tables, lines, help, error sentences that quote the
user's text), markdown comments, JSON, and exported rows."""

ENCODINGS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
    "cp1252": {"PYTHONIOENCODING": "cp1252"},
    "C-locale": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
}
ENCODING_OF = {"ascii": "ascii", "latin-1": "latin-1", "cp1252": "cp1252", "C-locale": "ascii"}

BASE_ENV = {
    k: v
    for k, v in {**os.environ, **GIT_ENV}.items()
    if not k.startswith(("LC_", "PYTHONIO", "PYTHONUTF8", "PYTHONCOERCE"))
    and k not in ("LANG", "LANGUAGE", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")
}
BASE_ENV["LANG"] = "C.UTF-8"


@dataclass
class Ran:
    code: int
    out: bytes
    err: bytes

    @property
    def said(self) -> str:
        return self.err.decode("utf-8", "backslashreplace")


def launch(
    cwd: Path,
    args: list[str],
    env: dict[str, str] | None = None,
    stdout: str = "pipe",
    stderr: str = "pipe",
    stdin: str | bytes = "devnull",
) -> Ran:
    """Run `evalset ARGS` with its standard streams in the states named: pipe (read here),
    full (/dev/full), closed, epipe (a pipe whose reader is gone); stdin: devnull, closed,
    or bytes to read."""
    closing: list[int] = []
    opened: list[int] = []

    def stream(how: str, fd: int) -> int | None:
        if how == "pipe":
            return subprocess.PIPE
        if how == "closed":
            closing.append(fd)
            return subprocess.DEVNULL
        if how == "full":
            opened.append(os.open("/dev/full", os.O_WRONLY))
            return opened[-1]
        assert how == "epipe"
        read, write = os.pipe()
        os.close(read)
        opened.append(write)
        return write

    out, err = stream(stdout, 1), stream(stderr, 2)
    given: bytes | None = None
    if stdin == "closed":
        closing.append(0)
        inp: int | None = subprocess.DEVNULL
    elif isinstance(stdin, bytes):
        given, inp = stdin, subprocess.PIPE
    else:
        inp = subprocess.DEVNULL

    def close_them() -> None:
        for fd in closing:
            os.close(fd)

    try:
        proc = subprocess.Popen(
            [EXE, *args], cwd=cwd, env={**BASE_ENV, **(env or {})}, stdin=inp, stdout=out,
            stderr=err, preexec_fn=close_them if closing else None,
        )  # fmt: skip
    finally:
        for fd in opened:
            os.close(fd)
    got_out, got_err = proc.communicate(given, timeout=120)
    return Ran(proc.returncode, got_out or b"", got_err or b"")


def _workspace(root: Path) -> Path:
    repo = _example(root)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in FAILURE_ROWS)
    (repo / FAILURES).write_text(text, encoding="utf-8")
    commit_all(repo, "failures with non-ASCII questions")
    return repo


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace (its corpus and run hold "€", an en dash and "→"), shared by the
    commands that only read, in a folder whose name no 8-bit encoding holds (git names it
    in what evalset reads from it)."""
    return _workspace(tmp_path_factory.mktemp("streams") / "dépôt→")


_baselines: dict[str, Ran] = {}


def baseline(ws: Path, name: str, args: list[str]) -> Ran:
    """The form's output on a UTF-8 pipe."""
    if name not in _baselines:
        _baselines[name] = launch(ws, args, {"PYTHONIOENCODING": "utf-8"})
        assert _baselines[name].code in (0, 1, 2), _baselines[name].said
    return _baselines[name]


def _healthy(ran: Ran) -> None:
    assert b"Traceback" not in ran.err, ran.said
    assert b"internal error" not in ran.err, ran.said
    assert ran.code != 3


def _one_sentence(ran: Ran) -> str:
    lines = ran.said.splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalset: "), ran.said
    return lines[0]


# -- encodings --------------------------------------------------------------------------------


SOME = ["help-stale", "stale", "stale-json", "stale-md", "error-json", "export"]
"""A form of each kind, for the states that run the same code as another (the test's time
is that of a subprocess per run: about 0.4 s)."""


def table(states: list[str], some: list[str]) -> list[object]:
    """Every form in ``states``, the forms of ``SOME`` in ``some`` too."""
    return [pytest.param(state, *form, id=f"{form[0]}-{state}")
            for form in FORMS for state in states + (some if form[0] in SOME else [])]  # fmt: skip


@pytest.mark.parametrize(
    ("encoding", "name", "args", "form"), table(["ascii", "C-locale"], ["latin-1", "cp1252"])
)
def test_an_encoding_without_the_characters_shows_escapes_or_refuses_data(
    ws: Path, name: str, args: list[str], form: str, encoding: str
) -> None:
    base = baseline(ws, name, args)
    ran = launch(ws, args, ENCODINGS[encoding])
    _healthy(ran)
    codec = ENCODING_OF[encoding]
    text, said = base.out.decode("utf-8"), base.err.decode("utf-8")
    # a non-ASCII argument reaches a C locale's program as escaped bytes: it names them so
    argv_escaped = encoding == "C-locale" and any(not a.isascii() for a in args)
    if form == "data" and not _encodes(text, codec):
        assert ran.code == 2, ran.said
        assert ran.out == b"", "exported rows were printed in part"
        sentence = _one_sentence(ran)
        assert "PYTHONIOENCODING=utf-8" in sentence and "-o" in sentence, sentence
        return
    assert ran.code == base.code, ran.said
    ran.out.decode(codec)  # every byte is the encoding's
    ran.err.decode(codec)
    if form == "json":
        assert json.loads(ran.out) == json.loads(base.out) or argv_escaped
        assert ran.out.isascii() or codec != "ascii"
    elif form == "help":  # rich draws its boxes in ASCII where the encoding lacks them
        assert _unboxed(ran.out) == _unboxed(text.encode(codec, "backslashreplace"))
    elif not argv_escaped:
        assert ran.out == text.encode(codec, "backslashreplace")
        assert ran.err == said.encode(codec, "backslashreplace")


def _unboxed(data: bytes) -> bytes:
    return re.sub(rb"[-+|\s]|\\u25[0-7][0-9a-f]", b"", data)


def _encodes(text: str, codec: str) -> bool:
    try:
        text.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


def test_the_table_shows_characters_an_ascii_terminal_lacks(ws: Path) -> None:
    """The workspace and run do hold what 8-bit encodings lack: the test above tests."""
    data = baseline(ws, "export", FORMS[20][1])
    assert not _encodes(data.out.decode(), "cp1252"), "the export holds no '→'"
    assert not _encodes(baseline(ws, "error", ["validate", MISSING]).err.decode(), "latin-1")


# -- output that cannot be written ------------------------------------------------------------

OUTPUT_STATES = {
    # state: (stdout, stderr)
    "stdout-full": ("full", "pipe"),
    "stdout-closed": ("closed", "pipe"),
    "stdout-broken-pipe": ("epipe", "pipe"),
    "stderr-closed-stdout-full": ("full", "closed"),
    "both-closed": ("closed", "closed"),
}
LOST = re.compile(r"^evalset: cannot write to standard output \(.+\); .+$")


def check_lost_output(ran: Ran, state_name: str, base: Ran | None = None) -> None:
    """What a command whose output cannot be written does, per state; ``base``: the
    command's run with an output that takes it."""
    _healthy(ran)
    stdout, stderr = OUTPUT_STATES[state_name]
    if base is not None and base.code == 2:
        # an error: its sentence says it (its --json document is what is lost)
        assert ran.code == 2, ran.said
        assert ran.err == (base.err if stderr == "pipe" else b""), ran.said
        return
    if stdout == "epipe":
        assert ran.code == 141, ran.said  # as a shell reports a program ended by SIGPIPE
        assert ran.err == b"", "a broken pipe is quiet"
        return
    assert ran.code == 2, ran.said
    if stderr == "pipe":
        sentence = _one_sentence(ran)
        assert LOST.match(sentence), sentence
        assert ("(it is closed)" in sentence) == (stdout == "closed"), sentence


@pytest.mark.parametrize(
    ("state_name", "name", "args", "form"),
    table(["stdout-full", "stdout-broken-pipe"],
          ["stdout-closed", "stderr-closed-stdout-full", "both-closed"]),
)  # fmt: skip
def test_output_that_cannot_be_written_is_one_sentence_and_exit_2(
    ws: Path, name: str, args: list[str], form: str, state_name: str
) -> None:
    stdout, stderr = OUTPUT_STATES[state_name]
    if baseline(ws, name, args).out == b"":
        pytest.skip("prints nothing on standard output")
    ran = launch(ws, args, stdout=stdout, stderr=stderr)
    check_lost_output(ran, state_name, baseline(ws, name, args))


@pytest.mark.parametrize(("name", "args", "form"), FORMS, ids=[f[0] for f in FORMS])
def test_a_closed_stderr_changes_nothing_else(
    ws: Path, name: str, args: list[str], form: str
) -> None:
    base = baseline(ws, name, args)
    ran = launch(ws, args, {"PYTHONIOENCODING": "utf-8"}, stderr="closed")
    assert (ran.code, ran.out) == (base.code, base.out)


QUIET = {"merge-driver"}
"""Writing commands that print nothing on standard output (git runs the merge driver)."""


NAMED = {"verify", "import", "promote", "release", "accept", "score retrieval -o --html"}
"""The writing commands run with their output closed and a broken pipe too (the same code
as a full output: ``OutputLost``)."""


@pytest.mark.parametrize(
    ("state_name", "case"),
    [pytest.param(state, case, id=f"{case.name}-{state}") for case in CASES
     for state in ["stdout-full"] + (["stdout-closed", "stdout-broken-pipe"]
                                     if case.name in NAMED | QUIET else [])],
)  # fmt: skip
def test_a_writing_command_whose_output_is_lost_leaves_its_files_whole(
    prepared: Callable[[Case], Prepared],  # noqa: F811 (the fixture imported above)
    case: Case,
    state_name: str,
) -> None:
    """Every command prints after its files are written: output that cannot be written
    loses only what it prints, and every file is as a complete run leaves it."""
    prep = prepared(case)
    ref = reference(prep)
    ws = prep.fresh()
    argv = [(ws / a[1:]).read_text().strip() if a[0] == "@" else a for a in case.argv]
    env = {"EVALSET_AGE_IDENTITY": str(ws / "key.txt")} if case.identity else {}
    stdout, stderr = OUTPUT_STATES[state_name]
    ran = launch(ws, argv, env, stdout=stdout, stderr=stderr)
    if case.name in QUIET:
        assert (ran.code, ran.err) == (ref.codes[0], b""), ran.said
    else:
        check_lost_output(ran, state_name)
    assert judge(case, ref.before, ref.after, state(ws)) == "new"


# -- standard input ---------------------------------------------------------------------------

PROMOTE = ["promote", "-", "--set", "acme-support"]
TYPED = "Où est → 日本 ?"


@pytest.mark.parametrize(
    ("stdin", "env", "expect"),
    [
        ("closed", {}, "standard input is closed"),
        ("devnull", {}, None),
        (b"\xff\xfe\x00garbage\n", {}, "UTF-16"),
        (b"\xe9t\xe9\n", {}, "not valid UTF-8"),
        (json.dumps({"question": TYPED}).encode() + b"\n", ENCODINGS["C-locale"], None),
        (json.dumps({"question": TYPED}).encode() + b"\n", ENCODINGS["ascii"], None),
    ],
    ids=["closed", "empty", "utf16", "latin1", "utf8-in-C-locale", "utf8-with-ascii-io"],
)  # fmt: skip
def test_promote_reads_standard_input_in_every_state(
    ws: Path, tmp_path: Path, stdin: str | bytes, env: dict[str, str], expect: str | None
) -> None:
    copy = tmp_path / "ws"
    shutil.copytree(ws, copy, symlinks=True)
    ran = launch(copy, PROMOTE, env, stdin=stdin)
    _healthy(ran)
    written = (copy / "sets" / "acme-support.yaml").read_text(encoding="utf-8")
    if expect is not None:
        assert ran.code == 2, ran.said
        assert expect in _one_sentence(ran)
    elif stdin == "devnull":
        assert ran.code == 0, ran.said  # no records: none added
    else:
        assert ran.code == 0, ran.said
        assert TYPED in written, "the records were not read as UTF-8"
        return
    assert written == (ws / "sets" / "acme-support.yaml").read_text(encoding="utf-8")


def test_promote_from_a_terminal_reads_what_is_typed(ws: Path) -> None:
    """stdin a terminal: the records typed, then end of input (Ctrl-D)."""
    code, out = on_terminal(ws, *PROMOTE, "--dry-run", "--json",
                            typed=b'{"question": "Typed here?"}\n\x04')  # fmt: skip
    assert code == 0, out
    assert '"added": [' in out


# -- the terminal's variables -----------------------------------------------------------------

TERMINAL_ENV = {
    "TERM=dumb": {"TERM": "dumb"},
    "NO_COLOR": {"NO_COLOR": "1"},
    "FORCE_COLOR": {"FORCE_COLOR": "1"},
    "COLUMNS=1": {"COLUMNS": "1"},
    "COLUMNS=20": {"COLUMNS": "20"},
    "COLUMNS=0": {"COLUMNS": "0"},
    "COLUMNS=abc": {"COLUMNS": "abc", "LINES": "abc"},
    "LINES=0": {"LINES": "0"},
}


@pytest.mark.parametrize("env", list(TERMINAL_ENV))
@pytest.mark.parametrize("where", ["pipe", "terminal"])
def test_the_terminal_variables_crash_nothing_and_hide_no_value(
    ws: Path, env: str, where: str
) -> None:
    args = ["status", "--coverage"]
    base = baseline(ws, "status", args)
    if where == "pipe":
        ran = launch(ws, args, TERMINAL_ENV[env])
        _healthy(ran)
        assert (ran.code, ran.out) == (base.code, base.out)
        help_ran = launch(ws, ["stale", "--help"], TERMINAL_ENV[env])
        _healthy(help_ran)
        assert help_ran.code == 0 and b"Example: evalset" in help_ran.out.replace(b"\n", b" ")
        return
    code, out = on_terminal(ws, *args, env=TERMINAL_ENV[env])
    assert code == base.code, out
    assert "Traceback" not in out and "internal error" not in out
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    shown = re.sub(r"[\s\u2500-\u257f]", "", shown)
    for line in base.out.decode().splitlines()[1:]:  # each value of each row, whole
        for cell in line.split("  "):
            cell = re.sub(r"\s", "", cell)
            assert not cell or cell in shown, f"{cell!r} is not shown whole at {env}"
    assert "…" not in out, f"rich cut a value at {env}"


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
@pytest.mark.parametrize("form", [[], ["--json"]], ids=["text", "json"])
def test_a_reader_gone_in_the_middle_of_a_large_output_is_a_broken_pipe(
    tmp_path: Path, form: list[str], unbuffered: bool
) -> None:
    """A document larger than the pipe holds, whose reader left after 100 bytes: with
    Python's output unbuffered (as container images set it), the one write of a --json
    document was cut short at 64 KiB without an error, and the command ended with 0."""
    drafts = "".join(
        f"  - id: big-{i:05d}\n    question: Is draft question {i} answered at last?\n"
        "    status: draft\n"
        for i in range(3000)
    )
    big = tmp_path / "big.yaml"
    big.write_text(f"evalset: 1\nname: big\ncategories:\n  lookup: one\nitems:\n{drafts}")
    env = {k: v for k, v in BASE_ENV.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(
        [EXE, "validate", str(big), *form], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()  # the reader goes away
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (141, b"")
