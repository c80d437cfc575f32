"""Paths that are not plain regular files, for every file evalset writes or reads by a path
the user gives (README, "How files are read and written").

**Outputs** (``WRITERS``: scoring reports and pages, agreement results, exports; and set
files, which editors rewrite): a character device (a copy of /dev/null made with mknod
here, never the real one), a FIFO with a reader, /dev/stdout (a pipe, a file), /dev/stderr,
process substitution (/dev/fd/N), symlinks (to a file, dangling, to a device), a hard
link, a read-only file, a folder that does not exist, and ``-``. A device, a FIFO or an
open descriptor is written to directly, never replaced; a regular file is replaced
atomically; a refusal is one sentence naming the path, exit 2, nothing written.

**Inputs** (``READERS``: run files, TREC files, label files, import and promote sources,
reports): a FIFO, process substitution, /dev/stdin and ``-`` with the input piped, an empty
FIFO, /dev/null and a folder. Each input is read once, so a stream gives exactly what the
same bytes in a regular file give (the recorded path aside).

Streams need real processes: every FIFO has a process at its other end that the test
kills at the end, and every command runs under a timeout, so no case can hang."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLE_SET
from test_interrupted_writes import ENV, EVALSET, _example, _scored
from test_write_targets import LABELS, RUN, WRITERS

ROOT_USER = os.geteuid() == 0
TIMEOUT = 60


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace (its failures, rows to import, and a scored report bm25.json)."""
    repo = _example(tmp_path_factory.mktemp("special") / "ws")
    _scored(repo)
    return repo


def _argv(writer: str, target: str, tmp: Path) -> list[str]:
    """The writer's command with ``target`` as its last path; the report asked for beside a
    page goes to ``tmp``."""
    args = [str(tmp / "ok.json") if a == "ok.json" else a for a in WRITERS[writer]]
    return [*args, target]


def _run(ws: Path, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """The command in a process of its own (for what only a process has: its stdout)."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([*EVALSET, *argv], cwd=ws, env=ENV, timeout=TIMEOUT, **kwargs)


_EXPECTED: dict[str, bytes] = {}


def _expected(cli: Any, ws: Path, writer: str, tmp: Path) -> bytes:
    """What the writer writes to a regular file."""
    if writer not in _EXPECTED:  # in a folder of its own: the report beside it goes too
        folder = tmp / "expected"
        folder.mkdir()
        target = folder / "regular.out"
        done = cli(ws, *_argv(writer, str(target), folder))
        assert done.code == 0, done.err
        _EXPECTED[writer] = target.read_bytes()
        shutil.rmtree(folder)
    return _EXPECTED[writer]


@contextlib.contextmanager
def _process(argv: list[str], **kwargs: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A process at the other end of a FIFO or pipe, killed at the end whatever happens."""
    proc = subprocess.Popen(argv, **kwargs)
    try:
        yield proc
    finally:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


@contextlib.contextmanager
def _unblocking(fifo: Path) -> Iterator[None]:
    """While the command runs in this process: every second, a reader that opens ``fifo``
    again after its writer is gone (which would wait forever) gets an end of file instead,
    so a command that reads it twice reads nothing the second time rather than hanging."""
    done = threading.Event()

    def release() -> None:
        while not done.wait(1.0):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextlib.contextmanager
def _stdin(fd: int) -> Iterator[None]:
    """``fd`` as this process's standard input (descriptor 0 and ``sys.stdin``)."""
    saved, stdin = os.dup(0), sys.stdin
    os.dup2(fd, 0)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, closefd=False))
    try:
        yield
    finally:
        sys.stdin = stdin
        os.dup2(saved, 0)
        os.close(saved)


def _one_sentence(err: str | bytes, path: str) -> str:
    text = err.decode() if isinstance(err, bytes) else err
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evalset: {path}: "), text
    assert "internal error" not in lines[0] and "Traceback" not in lines[0]
    return lines[0]


def _mknod_null(path: Path) -> None:
    if not ROOT_USER:
        pytest.skip("mknod needs root")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))


# -- outputs --------------------------------------------------------------------------------

OUTPUTS = [
    "char device",
    "fifo with a reader",
    "/dev/stdout, a pipe",
    "/dev/stdout, a file",
    "/dev/stderr, a pipe",
    "/dev/fd/N",
    "symlink to a file",
    "dangling symlink",
    "symlink to a device",
    "hard link",
    "read-only file",
    "missing folder",
    "-",
]


@pytest.mark.parametrize("kind", OUTPUTS)
@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_an_output_that_is_not_a_plain_file(  # type: ignore[no-untyped-def]
    cli, ws: Path, tmp_path: Path, writer: str, kind: str
) -> None:
    expected = _expected(cli, ws, writer, tmp_path)
    target = tmp_path / "target"
    if kind == "char device":
        _mknod_null(target)
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 0, done.err
        assert stat.S_ISCHR(target.lstat().st_mode), "the device was replaced"
    elif kind == "fifo with a reader":
        os.mkfifo(target)
        with _process(["cat", str(target)], stdout=subprocess.PIPE) as reader:
            done = cli(ws, *_argv(writer, str(target), tmp_path))
            got, _ = reader.communicate(timeout=10)
        assert done.code == 0, done.err
        assert stat.S_ISFIFO(target.lstat().st_mode), "the FIFO was replaced"
        assert got == expected
    elif kind == "/dev/stdout, a pipe":
        run = _run(ws, _argv(writer, "/dev/stdout", tmp_path))
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(expected), run.stdout[:300]
    elif kind == "/dev/stdout, a file":  # the file stdout was opened on, not a new one
        with (tmp_path / "stdout.txt").open("wb") as out:
            inode = os.fstat(out.fileno()).st_ino
            run = _run(ws, _argv(writer, "/dev/stdout", tmp_path), stdout=out)
        assert run.returncode == 0, run.stderr
        assert (tmp_path / "stdout.txt").stat().st_ino == inode
        assert (tmp_path / "stdout.txt").read_bytes().startswith(expected)
    elif kind == "/dev/stderr, a pipe":
        run = _run(ws, _argv(writer, "/dev/stderr", tmp_path))
        assert run.returncode == 0, run.stderr[-300:]
        assert expected in run.stderr
    elif kind == "/dev/fd/N":  # what `-o >(cat > x)` passes
        with _process(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
            assert cat.stdin is not None
            done = cli(ws, *_argv(writer, f"/dev/fd/{cat.stdin.fileno()}", tmp_path))
            got, _ = cat.communicate(timeout=10)
        assert done.code == 0, done.err
        assert got == expected
    elif kind in ("symlink to a file", "dangling symlink"):
        pointed = tmp_path / "pointed.json"
        if kind == "symlink to a file":
            pointed.write_text("old\n")
        target.symlink_to(pointed)
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 0, done.err
        assert target.is_symlink() and pointed.read_bytes() == expected
    elif kind == "symlink to a device":
        _mknod_null(tmp_path / "null")
        target.symlink_to(tmp_path / "null")
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 0, done.err
        assert target.is_symlink() and stat.S_ISCHR((tmp_path / "null").lstat().st_mode)
    elif kind == "hard link":  # a report is a new file: the other name keeps the old one
        target.write_text("old\n")
        os.link(target, tmp_path / "other")
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 0, done.err
        assert target.read_bytes() == expected
        assert (tmp_path / "other").read_text() == "old\n"
    elif kind == "read-only file":  # chmod 444 is kept, even by root, as rm asks first
        target.write_text("old\n")
        target.chmod(0o444)
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 2, done.err
        assert "read-only" in _one_sentence(done.err, str(target))
        assert target.read_text() == "old\n" and stat.S_IMODE(target.stat().st_mode) == 0o444
        assert not (tmp_path / "ok.json").exists()  # the report asked for beside it neither
    elif kind == "missing folder":
        target = tmp_path / "new" / "deeper" / "out"
        done = cli(ws, *_argv(writer, str(target), tmp_path))
        assert done.code == 0, done.err
        assert target.read_bytes() == expected
    elif kind == "-":
        done = cli(ws, *_argv(writer, "-", tmp_path))
        assert done.code == 2, done.err
        assert "standard output" in _one_sentence(done.err, "-")
        assert not (ws / "-").exists() and not (tmp_path / "ok.json").exists()
    else:  # pragma: no cover
        raise AssertionError(kind)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


SET_EDITS = {
    "new": ["new", "{}", "--question", "Can I pay with a voucher?"],
    "import": ["import", "rows.jsonl", "--set", "{}", "--format", "jsonl"],
}


@pytest.mark.parametrize("kind", ["symlink", "hard link", "read-only"])
@pytest.mark.parametrize("edit", SET_EDITS)
def test_a_set_file_that_is_a_link_or_read_only(  # type: ignore[no-untyped-def]
    cli, ws: Path, tmp_path: Path, edit: str, kind: str
) -> None:
    """A set file edited in place: a symlink is written through; a hard link is replaced
    atomically, so the other name keeps the old content (as git checkout leaves it); a
    read-only set is refused."""
    repo = tmp_path / "repo"
    shutil.copytree(ws, repo, symlinks=True)
    real = repo / "sets" / EXAMPLE_SET.name
    before = real.read_bytes()
    if kind == "symlink":
        path = repo / "elsewhere.yaml"
        path.symlink_to(real)
    elif kind == "hard link":
        path = repo / "linked.yaml"
        os.link(real, path)
    else:
        path = real
        real.chmod(0o444)
    given = str(path.relative_to(repo))
    done = cli(repo, *(a.format(given) for a in SET_EDITS[edit]))
    if kind == "read-only":
        assert done.code == 2, done.err
        assert "read-only" in _one_sentence(done.err, given)
        assert real.read_bytes() == before
        return
    assert done.code == 0, done.err
    assert path.read_bytes() != before
    if kind == "symlink":
        assert path.is_symlink() and real.read_bytes() == path.read_bytes()
    else:
        assert real.read_bytes() == before and path.stat().st_nlink == 1


EDITS_OF_A_SET = {
    "retire": ["retire", "{}", "q-014", "--reason", "the policy was withdrawn"],
    "verify": ["verify", "{}", "q-025"],
    "split --move": ["split", "{}", "--move", "q-001", "--to", "holdout", "--force"],
    "promote": ["promote", "failures.jsonl", "--set", "{}"],
    "new": ["new", "{}", "--question", "Can I pay with a voucher?"],
}
"""Commands that edit a set, its set given as the path {}."""

ALL_EDITS_OF_A_SET = {
    **EDITS_OF_A_SET,
    "verify --all": ["verify", "{}", "--all"],
    "split": ["split", "{}"],
    "stale --fix-moved": ["stale", "{}", "--fix-moved"],
    "seal": ["seal", "{}", "--recipient",
             "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"],
    "unseal": ["unseal", "{}"],
    "release": ["release", "{}", "--bump", "minor"],
    "import": ["import", "examples/imports/ragas-testset.jsonl", "--set", "{}", "--format",
               "ragas"],
}  # fmt: skip
"""Every command that edits a set (the example set's state refuses some of these once the
path is accepted: release from a file outside `sets/`, verify --all of stale items)."""

UNPLAIN_SETS = ["/dev/stdin, a pipe", "process substitution", "fifo", "char device", "folder"]


@pytest.mark.parametrize("kind", UNPLAIN_SETS)
@pytest.mark.parametrize("edit", ALL_EDITS_OF_A_SET)
def test_a_set_path_that_is_no_regular_file_is_refused_at_once(  # type: ignore[no-untyped-def]
    ws: Path, tmp_path: Path, edit: str, kind: str
) -> None:
    """An edit replaces the set file, which a pipe, a FIFO, a device or a folder is not: one
    sentence naming it and the fix, at once (no wait for a lock that cannot be made), and
    nothing written."""
    text = (ws / "sets" / EXAMPLE_SET.name).read_bytes()
    before = sorted(p.name for p in ws.iterdir())
    stdin: Any = subprocess.DEVNULL
    pass_fds: tuple[int, ...] = ()
    if kind == "/dev/stdin, a pipe":
        given, stdin = "/dev/stdin", subprocess.PIPE
    elif kind == "process substitution":
        read, write = os.pipe()
        os.write(write, text)
        os.close(write)
        given, pass_fds = f"/dev/fd/{read}", (read,)
    elif kind == "fifo":
        given = str(tmp_path / "set.yaml")
        os.mkfifo(given)
    elif kind == "char device":
        given = str(tmp_path / "null.yaml")
        _mknod_null(Path(given))
    else:
        given = str(tmp_path)
    argv = [a.format(given) for a in ALL_EDITS_OF_A_SET[edit]]
    proc = subprocess.Popen(
        [*EVALSET, *argv],
        cwd=ws,
        env=ENV,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=pass_fds,
    )
    try:
        if proc.stdin is not None:
            proc.stdin.write(text)
            proc.stdin.close()
            proc.stdin = None
        _out, err = proc.communicate(timeout=20)  # a lock waited for would take 60 s
    finally:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        for fd in pass_fds:
            os.close(fd)
    assert proc.returncode == 2, err
    sentence = _one_sentence(err, given)
    if kind == "folder":
        assert sentence.endswith("is a folder, not a set file; name a .yaml file in it.")
    else:
        what = "a device" if kind == "char device" else "a pipe"
        assert f"is {what}, not a set file that can be edited in place; name the set file" in (
            sentence
        )
    assert (ws / "sets" / EXAMPLE_SET.name).read_bytes() == text
    assert sorted(p.name for p in ws.iterdir()) == before


@pytest.mark.parametrize("how", ["/dev/stdin", "/dev/fd/N"])
@pytest.mark.parametrize("edit", EDITS_OF_A_SET)
def test_a_set_file_reached_through_standard_input_is_edited(  # type: ignore[no-untyped-def]
    ws: Path, tmp_path: Path, edit: str, how: str
) -> None:
    """``evalset new /dev/stdin < sets/x.yaml``: the path is a link to a regular file, which
    is edited in place, as through any link."""
    repo = tmp_path / "repo"
    shutil.copytree(ws, repo, symlinks=True)
    real = repo / "sets" / EXAMPLE_SET.name
    before = real.read_bytes()
    with real.open("rb") as opened:
        given = "/dev/stdin" if how == "/dev/stdin" else f"/dev/fd/{opened.fileno()}"
        argv = [a.format(given) for a in EDITS_OF_A_SET[edit]]
        done = _run(repo, argv, stdin=opened, pass_fds=(opened.fileno(),))
    assert done.returncode == 0, done.stderr
    assert real.read_bytes() != before


def test_a_lock_that_cannot_be_made_is_said_at_once(ws: Path, tmp_path: Path) -> None:
    """A set file whose lock file cannot be made (a folder stands in its place): one true
    sentence at once, not "another command is editing it" after the lock's 60 s."""
    repo = tmp_path / "repo"
    shutil.copytree(ws, repo, symlinks=True)
    argv = [*EVALSET, "new", "acme-support", "--question", "Q?"]
    assert subprocess.run(argv, cwd=repo, env=ENV, capture_output=True).returncode == 0
    (lock,) = (repo / ".evalset" / "locks").glob("acme-support.yaml.*.lock")
    lock.unlink()
    lock.mkdir()
    before = (repo / "sets" / EXAMPLE_SET.name).read_bytes()
    done = subprocess.run(argv, cwd=repo, env=ENV, capture_output=True, timeout=20)
    assert done.returncode == 2, done.stderr
    shown = lock.relative_to(repo)
    assert done.stderr.decode() == (
        f"evalset: {shown}: the edit lock of sets/{EXAMPLE_SET.name} cannot be made there "
        "(Is a directory); remove that folder (evalset makes the file there).\n"
    )
    assert (repo / "sets" / EXAMPLE_SET.name).read_bytes() == before


# -- inputs ---------------------------------------------------------------------------------

QRELS = "".join(f"q{n} 0 doc{d} {int(d <= n)}\n" for n in range(1, 6) for d in range(1, 6))
TREC_RUN = "".join(
    f"q{n} Q0 doc{d} {d} {10 - d}.5 r\n" for n in range(1, 6) for d in (5, 3, 1, 2, 4)
)
EXAMPLES = Path(RUN).parent.parent

READERS: dict[str, tuple[list[str], str]] = {
    # the command (its input as {}), and the input: a file of the workspace or the examples
    "score retrieval RUN": (
        ["score", "retrieval", "acme-support", "{}", "--allow-stale", "--json"],
        RUN,
    ),
    "score answers RUN": (
        ["score", "answers", "acme-support", "{}", "--judge", "exact", "--allow-stale", "--json"],
        RUN,
    ),
    "score answers --labels": (
        [
            "score",
            "answers",
            "acme-support",
            RUN,
            "--judge",
            "exact",
            "--allow-stale",
            "--labels",
            "{}",
            "--json",
        ],
        LABELS,
    ),
    "agreement LABELS": (["agreement", "{}", "--judge", "exact", "--json"], LABELS),
    "score --qrels": (
        ["score", "retrieval", "--qrels", "{}", "--run", "trec.run", "--json"],
        "qrels.txt",
    ),
    "score --run (TREC)": (
        ["score", "retrieval", "--qrels", "qrels.txt", "--run", "{}", "--json"],
        "trec.run",
    ),
    "import jsonl": (
        ["import", "{}", "--set", "acme-support", "--format", "jsonl", "--dry-run", "--json"],
        "rows.jsonl",
    ),
    "import csv": (
        ["import", "{}", "--set", "legacy", "--format", "csv", "--dry-run", "--json"],
        str(EXAMPLES / "imports" / "old-set.csv"),
    ),
    "import ragas": (
        ["import", "{}", "--set", "acme-support", "--format", "ragas", "--dry-run", "--json"],
        str(EXAMPLES / "imports" / "ragas-testset.jsonl"),
    ),
    "promote": (
        ["promote", "{}", "--set", "acme-support", "--dry-run", "--json"],
        "failures.jsonl",
    ),
    "gate CURRENT": (["gate", "bm25.json", "{}", "--json"], "bm25.json"),
    "gate BASELINE": (["gate", "{}", "bm25.json", "--json"], "bm25.json"),
    "accept": (["accept", "{}", "--json"], "bm25.json"),
    "check-pin": (["check-pin", "{}", "--json"], "bm25.json"),
}
STREAMS = ["fifo", "/dev/fd/N", "/dev/stdin", "-"]
EMPTY = ["empty fifo", "/dev/null"]


DIGEST = re.compile(r'"digest": "sha256:[0-9a-f]{64}"')
"""A report's digest, over its bytes: the recorded path is among them."""


def _normal(out: str, path: str) -> str:
    """Output with the input's path as given replaced by one name (also as JSON shows it),
    and a report's digest, which covers that path, left out."""
    if path == "-":  # as a JSON value only (promote calls it <stdin>)
        for shown in ('"-"', '"<stdin>"'):
            out = out.replace(shown, '"<input>"')
    for shown in {path, json.dumps(path)[1:-1]} - {"-"}:
        out = out.replace(shown, "<input>")
    return DIGEST.sub('"digest": "<digest>"', out)


def _read_as(  # type: ignore[no-untyped-def]
    cli, ws: Path, tmp: Path, reader: str, source: bytes, kind: str
) -> tuple[Any, str]:
    """Run the reader in this process with ``source`` given as ``kind``, with a process at
    the other end of the stream; returns the run and the path given."""
    argv = READERS[reader][0]
    if kind in ("fifo", "empty fifo"):
        fifo = tmp / "input.fifo"
        os.mkfifo(fifo)
        (tmp / "source").write_bytes(source)
        feed = ["sh", "-c", f'cat "{tmp / "source"}" > "{fifo}"']
        with _process(feed), _unblocking(fifo):
            return cli(ws, *(a.format(fifo) for a in argv)), str(fifo)
    with _process(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        feeding = threading.Thread(target=lambda: (cat.stdin.write(source), cat.stdin.close()))
        feeding.start()
        try:
            fd = cat.stdout.fileno()
            if kind == "/dev/fd/N":  # what `<(cat file)` passes
                return cli(ws, *(a.format(f"/dev/fd/{fd}") for a in argv)), f"/dev/fd/{fd}"
            with _stdin(fd):
                return cli(ws, *(a.format(kind) for a in argv)), kind
        finally:
            feeding.join()


def _prepared(ws: Path, reader: str) -> bytes:
    for name, text in (("qrels.txt", QRELS), ("trec.run", TREC_RUN)):
        if not (ws / name).exists():
            (ws / name).write_text(text)
    with contextlib.suppress(FileNotFoundError):  # accept's result: replaced or not
        (ws / "reports" / "accepted" / "acme-support.json").unlink()
    return (ws / READERS[reader][1]).read_bytes()


_AS_FILE: dict[tuple[str, bool], tuple[int, str, str]] = {}


def _as_file(cli: Any, ws: Path, tmp: Path, reader: str, empty: bool) -> tuple[int, str, str]:
    """The reader's exit code, stdout and stderr on its input (or an empty file) in a
    regular file, its path as ``<input>``."""
    if (reader, empty) not in _AS_FILE:
        source = _prepared(ws, reader)
        regular = tmp / "regular"
        regular.write_bytes(b"" if empty else source)
        done = cli(ws, *(a.format(regular) for a in READERS[reader][0]))
        _AS_FILE[reader, empty] = (
            done.code,
            _normal(done.out, str(regular)),
            _normal(done.err, str(regular)),
        )
        regular.unlink()
    return _AS_FILE[reader, empty]


@pytest.mark.parametrize("kind", STREAMS)
@pytest.mark.parametrize("reader", READERS, ids=list(READERS))
def test_an_input_stream_reads_as_the_same_bytes_in_a_file(  # type: ignore[no-untyped-def]
    cli, ws: Path, tmp_path: Path, reader: str, kind: str
) -> None:
    code, out, _ = _as_file(cli, ws, tmp_path, reader, empty=False)
    source = _prepared(ws, reader)
    done, given = _read_as(cli, ws, tmp_path, reader, source, kind)
    assert (done.code, _normal(done.out, given)) == (code, out), done.err
    if reader == "accept":
        accepted = ws / "reports" / "accepted" / "acme-support.json"
        assert accepted.read_bytes() == source


@pytest.mark.parametrize("kind", EMPTY)
@pytest.mark.parametrize("reader", READERS, ids=list(READERS))
def test_an_empty_stream_reads_as_an_empty_file(  # type: ignore[no-untyped-def]
    cli, ws: Path, tmp_path: Path, reader: str, kind: str
) -> None:
    want = _as_file(cli, ws, tmp_path, reader, empty=True)
    _prepared(ws, reader)
    if kind == "/dev/null":
        _mknod_null(tmp_path / "null")
        given = str(tmp_path / "null")
        done = cli(ws, *(a.format(given) for a in READERS[reader][0]))
    else:
        done, given = _read_as(cli, ws, tmp_path, reader, b"", kind)
    assert (done.code, _normal(done.out, given), _normal(done.err, given)) == want


@pytest.mark.parametrize("reader", READERS, ids=list(READERS))
def test_an_input_that_is_a_folder_is_one_sentence(cli, ws: Path, reader: str) -> None:  # type: ignore[no-untyped-def]
    _prepared(ws, reader)
    done = cli(ws, *(a.format("sets") for a in READERS[reader][0]))
    assert done.code == 2, done.err
    assert "folder" in _one_sentence(done.err, "sets")


def test_a_set_file_of_another_user_keeps_its_owner(cli, ws: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Run as root (a CI container), an edit replaces a user's set file with one that user
    still owns, as an edit in place would leave it."""
    if not ROOT_USER:
        pytest.skip("only root may give a file to another user")
    repo = tmp_path / "repo"
    shutil.copytree(ws, repo, symlinks=True)
    real = repo / "sets" / EXAMPLE_SET.name
    os.chown(real, 4321, 4322)
    done = cli(repo, *[a.format("acme-support") for a in SET_EDITS["new"]])
    assert done.code == 0, done.err
    assert (real.stat().st_uid, real.stat().st_gid) == (4321, 4322)


# Standard input named for two inputs of one command: the first takes all of it. (the
# command with {} for the second input, the file piped in, a file for {} given once).
# Before, the second read nothing and was blamed for it ("-:1:1: is not valid JSON").
TWICE = {
    "gate - -": (["gate", "-", "{}"], "bm25.json", "bm25.json"),
    "gate /dev/stdin -": (["gate", "/dev/stdin", "{}"], "bm25.json", "bm25.json"),
    "trec --qrels - --run -": (
        ["score", "retrieval", "--qrels", "-", "--run", "{}"],
        "qrels.txt",
        "trec.run",
    ),
}


@pytest.mark.parametrize("case", TWICE)
def test_standard_input_named_twice_is_one_sentence(ws: Path, case: str) -> None:
    args, piped, other = TWICE[case]
    _prepared(ws, "score --qrels")
    source = (ws / piped).read_bytes()
    for second in ("-", other):  # twice, then once beside a file
        argv = [a.replace("{}", second) for a in args]
        done = subprocess.run([*EVALSET, *argv], cwd=ws, env=ENV, input=source,
                              capture_output=True, timeout=TIMEOUT)  # fmt: skip
        err = done.stderr.decode()
        if second == other:
            assert done.returncode in (0, 1) and not err, err
            continue
        assert done.returncode == 2 and err.count("\n") == 1, err
        assert re.match(
            r"evalset: (-|/dev/stdin): cannot be read \(its input was read "
            r"already, for another of the command's inputs",
            err,
        ), err
