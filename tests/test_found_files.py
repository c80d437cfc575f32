"""Names that evalset finds by itself, rather than by a path the user gives, and that are not
files: a named pipe (FIFO), a folder, a socket, a symlink to nothing, a symlink to a named
pipe and (run as root) a character device, in each place evalset lists or keeps files:

- ``snapshots/*.json``: every command that reads the snapshots refuses the name in one
  sentence (what it is, and to remove it), exit 2, and writes nothing; ``snapshot`` passes
  over it, as over a damaged manifest, unless it stands where the new manifest goes.
- ``sets/*.yaml``: the commands that go over every set refuse it, as an unreadable set.
- ``reports/accepted/SET.json``: ``gate`` and ``accept`` refuse it.
- the caches in ``.evalset/``: a named pipe there means "no cache", as anything else does.

Opening a named pipe waits for a writer that never comes, so every command runs in a
process of its own under a timeout: a command that waits fails its case rather than
hanging the suite."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import GIT_ENV, ROOT, commit_all, git, make_git_repo

TIMEOUT = 60
ENV = {**os.environ, **GIT_ENV}
RUN = "examples/runs/acme-support-bm25.jsonl"
NEWEST = "0e183dc93927eb7392a5cb9b22cf7e11dd2a041fa9b47adb62c9b9f8c9d69afb"
"""The id of the example corpus's snapshot as it is now (the one ``snapshot`` writes)."""


def _evalset(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "evalset", *args],
            cwd=ws,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`evalset {' '.join(args)}` still ran after {TIMEOUT} s: it waits")


def scored_template(factory: pytest.TempPathFactory, name: str) -> Path:
    """A git repository holding ``scored_example``, made once per module (``name``: its
    folder), for ``copied`` to give each test a copy of."""
    ws = make_git_repo(factory.mktemp(name) / "ws")
    scored_example(ws)
    return ws


def copied(template: Path, tmp_path: Path) -> Path:
    """A copy of ``template`` for one test, its symlinks kept as links."""
    return Path(shutil.copytree(template, tmp_path / "ws", symlinks=True))


def scored_example(ws: Path) -> None:
    """The example workspace in the git repository ``ws``, committed, with a report of the
    hybrid run (``cur.json``) and the bm25 run's report accepted (``base.json``)."""
    for folder in ("corpus", "sets", "snapshots", "examples"):
        shutil.copytree(ROOT / folder, ws / folder)
    (ws / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\nsnapshots = "snapshots"\n')
    (ws / ".gitignore").write_text("/.evalset/\n")
    commit_all(ws, "example")
    for run, report in (
        (RUN, "base.json"),
        ("examples/runs/acme-support-hybrid.jsonl", "cur.json"),
    ):
        done = _evalset(
            ws, "score", "retrieval", "acme-support", run, "--allow-stale", "-o", report
        )
        assert done.returncode == 0, done.stderr
    assert _evalset(ws, "accept", "base.json").returncode == 0
    commit_all(ws, "accepted")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace, committed, with its caches in ``.evalset/``, a report of the
    hybrid run (``cur.json``) and the bm25 run's report accepted (``base.json``)."""
    ws = make_git_repo(tmp_path_factory.mktemp("found") / "ws")
    scored_example(ws)
    assert _evalset(ws, "status").returncode == 0  # the caches
    assert (ws / ".evalset" / "manifests" / f"{NEWEST}.marshal").is_file()
    return ws


@pytest.fixture
def ws(template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(template, tmp_path / "ws", symlinks=True))


def _fifo(path: Path, ws: Path) -> tuple[str, bool]:
    os.mkfifo(path)
    return "a named pipe", False


def _folder(path: Path, ws: Path) -> tuple[str, bool]:
    path.mkdir()
    (path / "x.json").write_text("{}\n")  # a folder git would see
    return "a folder", False


def _socket(path: Path, ws: Path) -> tuple[str, bool]:
    # bound by a relative name: a socket's path may be no longer than about 100 bytes
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(path.name)
    finally:
        os.chdir(here)
    return "a socket", False


def _dangling(path: Path, ws: Path) -> tuple[str, bool]:
    path.symlink_to("gone.json")
    return "a symlink to gone.json, which does not exist", True


def _to_fifo(path: Path, ws: Path) -> tuple[str, bool]:
    os.mkfifo(ws / "pipe")
    to = os.path.relpath(ws / "pipe", path.parent)
    path.symlink_to(to)
    return f"a symlink to {to}, which is a named pipe", False


def _device(path: Path, ws: Path) -> tuple[str, bool]:
    if os.geteuid() != 0:
        pytest.skip("only root may make a device")
    null = os.stat("/dev/null").st_rdev  # a copy of it, never the real one
    os.mknod(path, stat.S_IFCHR | 0o666, null)
    return "a character device", False


KINDS: dict[str, Callable[[Path, Path], tuple[str, bool]]] = {
    "named pipe": _fifo,
    "folder": _folder,
    "socket": _socket,
    "dangling symlink": _dangling,
    "symlink to a named pipe": _to_fifo,
    "device": _device,
}


def _refusal(shown: str, kind: tuple[str, bool], what: str, fix: str) -> str:
    phrase, dangling = kind
    if dangling:
        return (
            f"evalset: {shown}: is {phrase}, so no {what} is there; {fix}, or restore the "
            "file it points to.\n"
        )
    return f"evalset: {shown}: is {phrase}, not a {what}; {fix}.\n"


def _state(ws: Path) -> str:
    """What git sees of the working tree (every file a command could have written)."""
    return git(ws, "status", "--porcelain", "--untracked-files=all")


def _refused(ws: Path, argv: list[str], expected: str) -> None:
    before = _state(ws)
    done = _evalset(ws, *argv)
    assert (done.returncode, done.stderr) == (2, expected)
    assert "Traceback" not in done.stdout
    assert _state(ws) == before  # nothing written, nothing half-written


# -- snapshots/ ---------------------------------------------------------------------------

SNAPSHOT_READERS = {
    "status": ["status"],
    "stale": ["stale"],
    "verify": ["verify", "acme-support", "q-025"],
    "pin": ["pin", "acme-support"],
    "validate": ["validate"],
    "score": ["score", "retrieval", "acme-support", RUN, "--allow-stale", "-o", "out.json"],
    "export": ["export", "acme-support", "--allow-stale", "--format", "jsonl", "-o", "out.jsonl"],
}


@pytest.mark.parametrize("command", SNAPSHOT_READERS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_name_in_snapshots_that_is_no_file_is_refused(ws: Path, kind: str, command: str) -> None:
    made = KINDS[kind](ws / "snapshots" / "zz.json", ws)
    expected = _refusal("snapshots/zz.json", made, "snapshot manifest", "remove it")
    _refused(ws, SNAPSHOT_READERS[command], expected)


@pytest.mark.parametrize("kind", ["named pipe", "symlink to a named pipe"])
def test_snapshot_passes_over_a_named_pipe(ws: Path, tmp_path: Path, kind: str) -> None:
    """As over a damaged manifest (which a folder, a socket or a device already was: they
    fail at once when read)."""
    pristine = Path(shutil.copytree(ws, tmp_path / "pristine", symlinks=True))
    expected = _evalset(pristine, "snapshot")
    assert expected.returncode == 0, expected.stderr
    entry = ws / "snapshots" / "zz.json"
    KINDS[kind](entry, ws)
    mode = entry.lstat().st_mode
    before = _state(ws)
    done = _evalset(ws, "snapshot")
    assert (done.returncode, done.stdout, done.stderr) == (0, expected.stdout, expected.stderr)
    assert _state(ws) == before
    assert entry.lstat().st_mode == mode  # left as it was


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "dangling symlink"])
def test_snapshot_refuses_a_name_that_is_no_file_where_its_manifest_goes(
    ws: Path, kind: str
) -> None:
    """Writing the manifest again there, as over a damaged one, would write into the named
    pipe (waiting for a reader) or the device rather than replace it. (A symlink to nothing
    is written through, as every file evalset writes is.)"""
    entry = ws / "snapshots" / f"{NEWEST}.json"
    entry.unlink()
    made = KINDS[kind](entry, ws)
    fix = "remove it, then take the snapshot again (its manifest goes there)"
    _refused(ws, ["snapshot"], _refusal(f"snapshots/{NEWEST}.json", made, "snapshot manifest", fix))


# -- sets/ --------------------------------------------------------------------------------

EVERY_SET = {
    "status": ["status"],
    "validate": ["validate"],
    "stale": ["stale"],
    "agreement": [
        "agreement", "examples/labels/acme-support.csv", "--judge",
        "command:examples/judges/keywords.py",
    ],
}  # fmt: skip


@pytest.mark.parametrize("command", EVERY_SET)
@pytest.mark.parametrize("kind", KINDS)
def test_a_set_name_that_is_no_file_is_refused_by_a_command_over_every_set(
    ws: Path, kind: str, command: str
) -> None:
    """Passed over, it would let `validate` pass having checked none of the set a symlink
    names, and `agreement` take the other set for the only one."""
    made = KINDS[kind](ws / "sets" / "zz.yaml", ws)
    fix = "remove it, or move it out of sets"
    _refused(ws, EVERY_SET[command], _refusal("sets/zz.yaml", made, "set file", fix))


# -- reports/accepted/ --------------------------------------------------------------------

ACCEPTED = "reports/accepted/acme-support.json"


@pytest.mark.parametrize("kind", KINDS)
def test_gate_refuses_an_accepted_run_that_is_no_file(ws: Path, kind: str) -> None:
    (ws / ACCEPTED).unlink()
    made = KINDS[kind](ws / ACCEPTED, ws)
    fix = "remove it, then accept a run with `evalset accept REPORT.json`"
    _refused(ws, ["gate", "cur.json"], _refusal(ACCEPTED, made, "report", fix))


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "dangling symlink"])
def test_accept_refuses_an_accepted_run_that_is_no_file(ws: Path, kind: str) -> None:
    """As a path the user names, a named pipe or a device there would be written into (the
    named pipe waiting for a reader). A symlink to nothing is written through."""
    (ws / ACCEPTED).unlink()
    made = KINDS[kind](ws / ACCEPTED, ws)
    fix = "remove it, then accept the report again"
    _refused(ws, ["accept", "base.json"], _refusal(ACCEPTED, made, "report", fix))


# -- .evalset/ ----------------------------------------------------------------------------

CACHES = [
    "snapshot-listing.marshal",
    "snapshot-index.marshal",
    f"manifests/{NEWEST}.marshal",
]


@pytest.mark.parametrize("command", ["status", "snapshot"])
@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("kind", ["named pipe", "symlink to a named pipe"])
def test_a_cache_that_is_a_named_pipe_means_no_cache(
    ws: Path, tmp_path: Path, kind: str, cache: str, command: str
) -> None:
    pristine = Path(shutil.copytree(ws, tmp_path / "pristine", symlinks=True))
    (pristine / ".evalset" / cache).unlink()
    expected = _evalset(pristine, command)
    path = ws / ".evalset" / cache
    path.unlink()
    KINDS[kind](path, ws)
    done = _evalset(ws, command)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected.stdout, expected.stderr)
