"""Every command that writes a file, interrupted at any moment and run two at a time.

A table of the writing commands (``CASES``), each run as a real process (``python -m
evalset``) in a real git repository, in three hostile situations:

- **interrupted**: Ctrl-C (SIGINT to its process group, as a terminal sends it) while it
  works and as soon as its write's temporary file appears, and SIGKILL as soon as that file
  appears, once the writes have landed, and (release) while git commits. Afterwards every
  file a user or git sees is exactly as before or exactly as a completed run leaves it, the
  edit locks are free, and the command run again completes the work and leaves no
  temporary file behind. Ctrl-C prints one line, never a traceback, and exits 130.
- **a write cut short**: the process may write no file larger than 64 bytes (a full disk,
  a quota): the command refuses in one sentence with exit 2, and leaves every file whole.
- **two at once**: the same command twice at the same moment ends as two runs one after the
  other do (same files, same exit codes) while a reader sees only whole files; a crowd of
  different edits of one set loses none of them while commands read the set.

New writing commands join ``CASES``."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import GIT_ENV, ROOT, SET_HEADER, commit_all, git, make_git_repo, set_item

EVALSET = [sys.executable, "-m", "evalset"]
ENV = {**os.environ, **GIT_ENV}
SET = "sets/acme-support.yaml"
RUN = "examples/runs/acme-support-bm25.jsonl"
GIT_COMMITS, GIT_REFS = "<git commits>", "<git refs>"
"""Pseudo-files of the state: the repository's commits and merge driver, and its refs (a
release stopped between its commit and its tag has made one and not the other)."""
INTERRUPTED = (
    "evalset: interrupted; no file was left half-written (run the command again to finish it).\n"
)


# -- the table ------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    argv: list[str]
    template: str = "example"
    """The workspace it runs in: example (the repository's example workspace, with an age
    key, failures to promote and rows to import), release (a set ready for its first
    release) or empty (a git repository without a workspace)."""
    setup: Callable[[Path], None] | None = None
    """Prepares the workspace once (its result is copied for every run)."""
    same: Callable[[bytes], bytes] | None = None
    """Normalises what differs between two complete runs (a time, a random nonce)."""
    identity: bool = False
    """Runs with EVALSET_AGE_IDENTITY set to the workspace's key."""
    commits: bool = False
    """Commits with git (also killed while git commits)."""


def _records(tag: str, count: int, trace: bool) -> str:
    """``count`` JSON lines whose questions share no word with each other's or the set's."""
    lines = []
    for n in range(count):
        words = " ".join(f"{tag}{n}w{k}" for k in range(6))
        row: dict[str, object] = {"question": f"what about {words}?"}
        if trace:
            row["trace"] = f"{tag}-{n}"
        lines.append(json.dumps(row))
    return "\n".join(lines) + "\n"


def _sealed(ws: Path) -> None:
    _run(ws, "seal", "acme-support", "--recipient", (ws / "key.pub").read_text().strip())


def _corpus_changed(ws: Path) -> None:
    with (ws / "corpus" / "policies" / "returns.md").open("a") as f:
        f.write("\n## Returns in a hurry\n\nAsk the courier to take the parcel back.\n")


def _merge_sides(ws: Path) -> None:
    text = (ws / SET).read_text()
    cut = text.index("  - id: q-014")
    theirs = (
        "  - id: theirs-1\n    question: What do they ask about gift wrap?\n    status: draft\n"
    )
    (ws / "base.yaml").write_text(text[:cut])
    (ws / "ours.yaml").write_text(text)
    (ws / "theirs.yaml").write_text(text[:cut] + theirs)


def _scored(ws: Path) -> None:
    _run(ws, "score", "retrieval", "acme-support", RUN, "--allow-stale", "-o", "bm25.json")


AGE = re.compile(rb"-----BEGIN AGE ENCRYPTED FILE-----.*?-----END AGE ENCRYPTED FILE-----", re.S)
CREATED = re.compile(rb'"created": ?"[^"]*"')

CASES = [
    Case("new", ["new", "acme-support", "--question", "Can I pay with a voucher?"]),
    Case("retire", ["retire", "acme-support", "q-014", "--reason", "the policy was withdrawn"]),
    Case("verify", ["verify", "acme-support", "q-025"]),
    Case("split", ["split", "acme-support"]),
    Case(
        "split --move",
        ["split", "acme-support", "--move", "q-001", "--to", "holdout", "--force", "--reason", "r"],
    ),
    Case(
        "seal",
        ["seal", "acme-support", "--recipient", "@key.pub"],
        same=lambda data: AGE.sub(b"<sealed>", data),
    ),
    Case("unseal", ["unseal", "acme-support"], setup=_sealed, identity=True),
    Case("import", ["import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl"]),
    Case("import (new set)", ["import", "rows.jsonl", "--set", "brand-new", "--format", "jsonl"]),
    Case("promote", ["promote", "failures.jsonl", "--set", "acme-support"]),
    Case("stale --fix-moved", ["stale", "acme-support", "--fix-moved"]),
    Case(
        "snapshot",
        ["snapshot"],
        setup=_corpus_changed,
        same=lambda data: CREATED.sub(b'"created": ""', data),
    ),
    Case("release", ["release", "docs", "--bump", "minor"], template="release", commits=True),
    Case("accept", ["accept", "bm25.json"], setup=_scored),
    Case(
        "score retrieval -o --html",
        f"score retrieval acme-support {RUN} --allow-stale -o r/r.json --html r/r.html".split(),
    ),
    Case(
        "score answers -o --html",
        f"score answers acme-support {RUN} --judge exact --allow-stale -o r/a.json --html "
        "r/a.html".split(),
    ),
    Case(
        "agreement -o",
        ["agreement", "examples/labels/acme-support.csv", "--judge", "exact", "-o", "agree.json"],
    ),
    Case(
        "export -o",
        ["export", "acme-support", "--format", "ragas", "--allow-stale", "-o", "tuning.jsonl"],
    ),
    Case("schema --write", ["schema", "--write"]),
    Case("init", ["init", "--name", "support"], template="empty"),
    Case(
        "merge-driver",
        ["merge-driver", "base.yaml", "ours.yaml", "theirs.yaml", SET],
        setup=_merge_sides,
    ),
]
"""Every command that writes a file. The commands that only read (validate, status, stale
without --fix-moved, pin, check-pin, diff, log, gate, and those above without -o) read
while others write, below."""


# -- workspaces -----------------------------------------------------------------------------


def _run(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EVALSET, *args], cwd=ws, env=ENV, capture_output=True, text=True, timeout=120
    )


def _example(root: Path) -> Path:
    repo = make_git_repo(root)
    for folder in ("corpus", "sets", "snapshots", "examples"):
        shutil.copytree(ROOT / folder, repo / folder)
    config = 'sets = "sets"\ncorpus = "corpus"\nsnapshots = "snapshots"\n'
    (repo / "evalset.toml").write_text(config + "[split]\nratio = 0.2\n", "utf-8")
    from pyrage import x25519

    identity = x25519.Identity.generate()
    # the key beside the set, as a key holder's clone may have it, but kept out of git (a
    # key file git tracks is refused)
    (repo / ".git" / "info" / "exclude").write_text("/key.txt\n")
    (repo / "key.txt").write_text(f"# public key: {identity.to_public()}\n{identity}\n")
    (repo / "key.pub").write_text(f"{identity.to_public()}\n")
    (repo / "failures.jsonl").write_text(_records("f", 60, trace=True))
    (repo / "rows.jsonl").write_text(_records("i", 60, trace=False))
    commit_all(repo, "example")
    return repo


def _release(root: Path) -> Path:
    repo = make_git_repo(root)
    (repo / "evalset.toml").write_text("[validate]\nmin_per_category = 0\n", "utf-8")
    (repo / ".gitignore").write_text("/.evalset/\n")
    (repo / "corpus").mkdir()
    (repo / "corpus" / "policy.md").write_text("# Policy\n\n## Returns\n\nWithin 14 days.\n")
    items = "".join(set_item(f"q-{n}", "policy.md#returns") for n in range(1, 40))
    (repo / "sets").mkdir()
    (repo / "sets" / "docs.yaml").write_text(SET_HEADER + items)
    assert _run(repo, "snapshot").returncode == 0
    assert _run(repo, "verify", "docs", "--all").returncode == 0
    commit_all(repo, "a set and its corpus")
    return repo


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("templates")
    return {
        "example": _example(root / "example"),
        "release": _release(root / "release"),
        "empty": make_git_repo(root / "empty"),
    }


def _limit_writes() -> None:
    """(In the child) no file may grow past 64 bytes: writes fail with EFBIG, as on a full
    disk. Python ignores SIGXFSZ, so its writes fail instead of killing it; git is killed."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


@dataclass
class Prepared:
    """A case's workspace, made once, and its runs, each in a fresh copy."""

    case: Case
    template: Path
    scratch: Path
    count: Iterator[int] = field(default_factory=itertools.count)  # next() of it is atomic

    def fresh(self) -> Path:
        ws = self.scratch / f"run-{next(self.count)}"
        shutil.copytree(self.template, ws, symlinks=True)
        return ws

    def start(self, ws: Path, cut_short: bool = False) -> subprocess.Popen[str]:
        argv = [(ws / a[1:]).read_text().strip() if a[0] == "@" else a for a in self.case.argv]
        env = {**ENV, "EVALSET_AGE_IDENTITY": str(ws / "key.txt")} if self.case.identity else ENV
        return subprocess.Popen(
            [*EVALSET, *argv], cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True, preexec_fn=_limit_writes if cut_short else None,
        )  # fmt: skip

    def run(self, ws: Path) -> tuple[int, str]:
        proc = self.start(ws)
        _, err = proc.communicate(timeout=120)
        return proc.returncode, err


@pytest.fixture(scope="module")
def prepared(
    templates: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[Case], Prepared]:
    made: dict[str, Prepared] = {}

    def prepare(case: Case) -> Prepared:
        if case.name not in made:
            root = tmp_path_factory.mktemp("case")
            template = root / "template"
            shutil.copytree(templates[case.template], template, symlinks=True)
            if case.setup is not None:
                case.setup(template)
                commit_all(template, "setup")
            made[case.name] = Prepared(case, template, root)
        return made[case.name]

    return prepare


# -- states ---------------------------------------------------------------------------------

TEMP = re.compile(r"^\..+\.tmp$")
"""A temporary file's name (``atomic_write``: ``.NAME.PID.XXXXXXXX.tmp``)."""


def state(ws: Path) -> dict[str, bytes]:
    """Every file a user or git sees (not .git/, nor .evalset/, which git ignores), and the
    repository's commits, refs and merge driver."""
    files: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(ws):
        if folder == str(ws):
            dirs[:] = [d for d in dirs if d not in (".git", ".evalset")]
        for name in names:
            path = os.path.join(folder, name)
            files[os.path.relpath(path, ws)] = Path(path).read_bytes()
    refs = git(ws, "for-each-ref", "--format=%(refname)")
    commits = git(ws, "rev-list", "--count", "--all").strip() if refs else "0"
    driver = subprocess.run(
        ["git", "config", "--get", "merge.evalset.driver"], cwd=ws, capture_output=True, text=True
    ).stdout
    files[GIT_COMMITS] = f"{commits} commits; driver {driver}".encode()
    files[GIT_REFS] = " ".join(refs.split()).encode()
    return files


def _staged(ws: Path) -> str:
    if not (ws / ".git").exists():
        return ""
    return git(ws, "diff", "--cached", "--name-only", "--no-renames")


def _norm(case: Case, files: dict[str, bytes]) -> dict[str, bytes]:
    return {k: case.same(v) for k, v in files.items()} if case.same else files


def judge(
    case: Case, before: dict[str, bytes], after: dict[str, bytes], now: dict[str, bytes]
) -> str:
    """'old' (as before), 'new' (as a completed run leaves it) or 'between' (each file one or
    the other, not all of one); raises for a file that is neither, or a stray one."""
    before, after, now = _norm(case, before), _norm(case, after), _norm(case, now)
    if now == before:
        return "old"
    if now == after:
        return "new"
    for rel in sorted(set(before) | set(after) | set(now)):
        if now.get(rel) not in (before.get(rel), after.get(rel)):
            shown = (now.get(rel) or b"<missing>")[:300]
            raise AssertionError(f"{rel} is neither as before nor as a run leaves it: {shown!r}")
    return "between"


def _temps(ws: Path, before: dict[str, bytes], now: dict[str, bytes]) -> list[str]:
    """Temporary files a killed write left: where a user or git sees them, and in the
    workspace's scratch folder, which the next run must empty."""
    seen = [rel for rel in now if rel not in before and TEMP.match(os.path.basename(rel))]
    scratch = ws / ".evalset" / "tmp"
    return seen + [f".evalset/tmp/{n}" for n in (os.listdir(scratch) if scratch.is_dir() else [])]


def _locks_free(ws: Path) -> None:
    """No edit lock is held once the command has ended, whatever ended it."""
    from filelock import FileLock

    for path in (ws / ".evalset" / "locks").glob("*.lock"):
        lock = FileLock(str(path))
        lock.acquire(timeout=2)
        lock.release()


# -- a reference run ------------------------------------------------------------------------


def _tree(ws: Path) -> dict[str, tuple[int, int, int]]:
    """What each visible file is (inode, size, modification time): a write shows in it."""
    keys = {}
    for folder, dirs, names in os.walk(ws):
        if folder == str(ws):
            dirs[:] = [d for d in dirs if d not in (".git", ".evalset")]
        for name in names:
            if not TEMP.match(name):
                with contextlib.suppress(FileNotFoundError):  # it was being replaced
                    s = os.stat(os.path.join(folder, name))
                    keys[os.path.join(folder, name)] = (s.st_ino, s.st_size, s.st_mtime_ns)
    return keys


@dataclass
class Reference:
    before: dict[str, bytes]
    after: dict[str, bytes]
    """After one complete run."""
    twice: dict[str, bytes]
    """After two complete runs, one after the other."""
    codes: tuple[int, int]
    """The exit codes of those two runs."""
    changed: list[str]
    """The files a run changes (without the git pseudo-files)."""
    first_write: float
    """Seconds from the start to the first write that lands."""
    duration: float
    staged: str
    """What git's index holds that HEAD does not, after one complete run (a git killed as
    it commits can leave the index behind HEAD: the file then looks changed)."""


def _until(proc: subprocess.Popen[str], ready: Callable[[], bool], start: float) -> float:
    """Wait until ``ready()`` or the process has ended; the seconds since ``start``."""
    while proc.poll() is None and not ready():
        time.sleep(0.0002)
    return time.monotonic() - start


_references: dict[Path, Reference] = {}
"""By the workspace a case runs in: a module that imports the fixtures makes its own."""


def reference(prep: Prepared) -> Reference:
    """Two complete runs one after the other, the first watched for when its write lands."""
    case = prep.case
    if prep.template not in _references:
        ws = prep.fresh()
        before, tree = state(ws), _tree(ws)
        start = time.monotonic()
        proc = prep.start(ws)
        first_write = _until(proc, lambda: _tree(ws) != tree, start)
        _, err = proc.communicate(timeout=120)
        duration = time.monotonic() - start
        assert proc.returncode in (0, 1), f"{case.name}: exit {proc.returncode}: {err}"
        after, staged = state(ws), _staged(ws)
        second, _ = prep.run(ws)
        changed = [r for r in after if r[0] != "<" and before.get(r) != after[r]]
        assert changed, f"{case.name}: the command wrote nothing"
        _references[prep.template] = Reference(
            before,
            after,
            state(ws),
            (proc.returncode, second),
            changed,
            first_write,
            duration,
            staged,
        )
    return _references[prep.template]


# -- interrupted ----------------------------------------------------------------------------


class Moment:
    """When to send the signal: seconds after the start, or a named event."""

    TEMP = "a temporary file appears"
    WRITTEN = "the writes have landed"
    GIT = "git commits"


def _interrupt(prep: Prepared, ref: Reference, sig: signal.Signals, when: float | str) -> str:
    """Run the command in a fresh workspace, send ``sig`` to its process group at ``when``,
    check what it left, and run it again unless it was done. Returns the outcome."""
    case = prep.case
    ws = prep.fresh()
    paths = [ws / rel for rel in ref.changed]
    first = {p: p.stat().st_mtime_ns if p.exists() else None for p in paths}

    def written() -> bool:
        return all((p.stat().st_mtime_ns if p.exists() else None) != first[p] for p in paths)

    def temp() -> bool:
        folders = {p.parent for p in paths} | {ws / ".evalset" / "tmp"}
        return any(TEMP.match(n) for f in folders if f.is_dir() for n in os.listdir(f))

    start = time.monotonic()
    proc = prep.start(ws)
    if isinstance(when, float):
        # Counted from when Python catches Ctrl-C: before that (on a busy machine, a good
        # part of a second), Ctrl-C ends a program as it ends any, silently, before any of
        # its code has run or written anything (see README, "A command killed").
        _until(proc, lambda: _catches_ctrl_c(proc.pid), start)
        time.sleep(max(when, 0.0))
    else:
        index_lock = ws / ".git" / "index.lock"  # (also taken by git status, which refreshes it)
        ready = {Moment.TEMP: temp, Moment.WRITTEN: written}.get(when)
        _until(proc, ready or (lambda: written() and index_lock.exists()), start)
    with contextlib.suppress(ProcessLookupError):  # it had ended
        os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=120)
    now = state(ws)
    temps = _temps(ws, ref.before, now)
    outcome = judge(case, ref.before, ref.after, {k: v for k, v in now.items() if k not in temps})
    if sig == signal.SIGINT:
        _check_ctrl_c(proc.returncode, err, outcome)
    _locks_free(ws)
    git_lock = any((ws / ".git" / lock).exists() for lock in ("index.lock", "config.lock"))
    if outcome == "between" or temps or git_lock:
        _again(prep, ref, ws)  # (a run from "old" is a first run, tested as such)
    shutil.rmtree(ws)
    return outcome + (" + temporary file" if temps else "") + (" + git's lock" if git_lock else "")


def _catches_ctrl_c(pid: int) -> bool:
    """Whether the process has a handler for SIGINT (Linux: ``SigCgt`` in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # (it has ended)
    caught = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) & 1 << (signal.SIGINT - 1))


def _check_ctrl_c(code: int, err: str, outcome: str) -> None:
    """Exit status 130, one line. (A shell shows 130 as well for a process that ended by
    SIGINT, -2 here: CPython ends so after a KeyboardInterrupt raised inside exec() of a
    string, even one that was caught, as while a dataclass is being made.)"""
    if outcome == "new" and code in (0, 1, -signal.SIGINT):  # it was done when Ctrl-C came
        return
    assert code in (130, -signal.SIGINT), f"Ctrl-C gave exit status {code}: {err}"
    assert err == INTERRUPTED, f"Ctrl-C printed {err!r}"


def _again(prep: Prepared, ref: Reference, ws: Path) -> None:
    """The command run again completes the work and removes what the interrupted run left.
    git's own locks, left by a git killed while it committed or wrote its config, need the
    user: one sentence says so."""
    locks = (("index.lock", "git's index is locked"), ("config.lock", "its config is locked"))
    for lock, said in locks:
        if (ws / ".git" / lock).exists():
            code, err = prep.run(ws)
            assert code == 2 and said in err and len(err.splitlines()) == 1, err
            (ws / ".git" / lock).unlink()
    code, err = prep.run(ws)
    assert code == ref.codes[0], f"run again: exit {code}: {err}"
    now = state(ws)
    assert not _temps(ws, ref.before, now), f"run again: left {_temps(ws, ref.before, now)}"
    assert judge(prep.case, ref.before, ref.after, now) == "new", "run again: not done"
    assert _staged(ws) == ref.staged, f"run again: git's index holds {_staged(ws)!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_command_interrupted_at_any_moment_leaves_old_or_new_files_and_completes_again(
    case: Case, prepared: Callable[[Case], Prepared]
) -> None:
    prep = prepared(case)
    ref = reference(prep)
    w = ref.first_write
    runs: list[tuple[signal.Signals, float | str]] = [
        (signal.SIGINT, 0.5 * w),  # Ctrl-C while it works
        (signal.SIGINT, Moment.TEMP),  # Ctrl-C while the write's temporary file is written
        (signal.SIGKILL, Moment.TEMP),  # while the write's temporary file is written
        (signal.SIGKILL, Moment.WRITTEN),  # after the write, before the process ends
    ]
    if case.commits:
        runs.append((signal.SIGKILL, Moment.GIT))

    def interrupted(sig: signal.Signals, when: float | str) -> tuple[str, str | None]:
        at = f"{sig.name} at {when if isinstance(when, str) else f'{when:.3f} s'}"
        try:
            return f"{at}: {_interrupt(prep, ref, sig, when)}", None
        except AssertionError as exc:  # each moment is tried: the report names all that fail
            return f"{at}: failed", f"{at}: {str(exc).splitlines()[0]}"

    # Two at a time, each in its own workspace: the moments that matter are events, which
    # a busy machine delays but does not move.
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda run: interrupted(*run), runs))
    outcomes = [outcome for outcome, _ in done]
    problems = [problem for _, problem in done if problem]
    print(f"\n{case.name}: first write at {w:.3f} s of {ref.duration:.3f} s")
    print("\n".join(f"  {o}" for o in outcomes))
    assert not problems, "\n".join(problems)
    states = [o.split(": ", 1)[1].split(" + ")[0] for o in outcomes]  # (without what was left)
    assert "old" in states, "no interruption landed before the write"
    assert {"new", "between"} & set(states), "none landed after it"


DROPPED_CTRL_C = """
import os, signal, sys
import evalset.cli, evalset.fsio

class Finaliser:
    def __del__(self):  # Python drops what a signal handler raises in here
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(200_000):
            pass

where = sys.argv.pop(1)
if where == "as it starts":
    main = evalset.cli.main
    def started(end_early=False):
        Finaliser()
        main(end_early)
    evalset.cli.main = started
else:
    stage = evalset.fsio._stage
    def staged(*args):
        made = stage(*args)
        Finaliser()
        return made
    evalset.fsio._stage = staged
evalset.cli.command()
"""
"""The `evalset` program (``command``), with a Ctrl-C that arrives in a finaliser, where
Python prints the KeyboardInterrupt its handler raises as "Exception ignored" and drops it,
as it does in the import system's callback when a module finishes importing: as the
command starts, or once its write's temporary file is written."""

EDITS = ["new", "retire", "verify", "split --move", "promote"]


@pytest.mark.parametrize("where", ["as it starts", "as its temporary file is written"])
@pytest.mark.parametrize("case", [c for c in CASES if c.name in EDITS], ids=EDITS)
def test_a_ctrl_c_python_would_drop_still_stops_the_command(
    case: Case, where: str, prepared: Callable[[Case], Prepared]
) -> None:
    """Never exit status 0 and the file written after a Ctrl-C: one line, 130, nothing
    changed."""
    ws = prepared(case).fresh()
    before = state(ws)
    done = subprocess.run(
        [sys.executable, "-c", DROPPED_CTRL_C, where, *case.argv],
        cwd=ws,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (130, INTERRUPTED)
    assert state(ws) == before
    _locks_free(ws)


# -- a write cut short ----------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_write_cut_short_is_one_sentence_and_leaves_every_file_whole(
    case: Case, prepared: Callable[[Case], Prepared]
) -> None:
    prep = prepared(case)
    ref = reference(prep)
    ws = prep.fresh()
    proc = prep.start(ws, cut_short=True)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, f"exit {proc.returncode}: {err}"
    assert err.startswith("evalset: ") and len(err.splitlines()) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    now = state(ws)
    temps = _temps(ws, ref.before, now)
    outcome = judge(case, ref.before, ref.after, {k: v for k, v in now.items() if k not in temps})
    if outcome == "between" or temps:
        _again(prep, ref, ws)


# -- two at once ----------------------------------------------------------------------------


def _read_whole(
    ws: Path, allowed: dict[str, set[bytes | None]], stop: threading.Event
) -> list[str]:
    """Read the files again and again while they are written; what was not a whole file."""
    torn = []
    while not stop.is_set():
        for rel, whole in allowed.items():
            try:
                data: bytes | None = (ws / rel).read_bytes()
            except FileNotFoundError:
                data = None
            if data not in whole:
                torn.append(f"{rel}: {(data or b'')[:100]!r}")
        time.sleep(0.001)
    return torn


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_same_command_twice_at_once_ends_as_two_runs_one_after_the_other(
    case: Case, prepared: Callable[[Case], Prepared]
) -> None:
    prep = prepared(case)
    ref = reference(prep)
    ws = prep.fresh()
    states = (ref.before, ref.after, ref.twice)
    allowed = {rel: {s.get(rel) for s in states} for rel in ref.changed if case.same is None}
    stop, torn = threading.Event(), []
    reader = threading.Thread(target=lambda: torn.extend(_read_whole(ws, allowed, stop)))
    reader.start()
    procs = [prep.start(ws), prep.start(ws)]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    stop.set()
    reader.join()
    assert sorted(p.returncode for p in procs) == sorted(ref.codes), errs
    assert _norm(case, state(ws)) == _norm(case, ref.twice), errs
    assert not torn, f"a reader saw a torn file: {torn[:3]}"


CROWD = ["new", "retire", "verify", "split --move", "promote", "import", "stale --fix-moved"]
"""Cases that edit different items of one set."""


def _items(text: bytes | str, where: Path) -> dict[str, object]:
    from evalset.sets.setfile import parse_set

    loaded = parse_set(text.decode() if isinstance(text, bytes) else text, where)
    assert not loaded.schema_findings, loaded.schema_findings
    return {entry["id"]: entry for entry in loaded.raw["items"]}


def test_different_edits_of_one_set_at_once_lose_none_and_readers_see_whole_files(
    prepared: Callable[[Case], Prepared], templates: dict[str, Path], tmp_path: Path
) -> None:
    cases = [next(c for c in CASES if c.name == name) for name in CROWD]
    base = _items((templates["example"] / SET).read_bytes(), Path(SET))
    expected, owner = dict(base), dict[str, str]()
    for case in cases:  # what each does alone, from the same start
        for ident, entry in _items(reference(prepared(case)).after[SET], Path(SET)).items():
            if base.get(ident) != entry:
                assert ident not in owner, f"{case.name} and {owner[ident]} both change {ident}"
                owner[ident], expected[ident] = case.name, entry
    ws = tmp_path / "crowd"
    shutil.copytree(templates["example"], ws)
    stop, reads, torn = threading.Event(), [0], []

    def read() -> None:  # a reader in this process: every read is a whole set file
        while not stop.is_set():
            text = (ws / SET).read_bytes()
            try:
                _items(text, ws / SET)
            except AssertionError:
                torn.append(text)
            reads[0] += 1

    reader = threading.Thread(target=read)
    reader.start()
    procs = [prepared(case).start(ws) for case in cases]
    readers = []  # commands that read the set while the others write it
    while any(p.poll() is None for p in procs):
        readers.append(_run(ws, "validate", "acme-support"))
        readers.append(_run(ws, "score", "retrieval", "acme-support", RUN, "--allow-stale"))
    errs = [p.communicate(timeout=120)[1] for p in procs]
    stop.set()
    reader.join()
    assert [p.returncode for p in procs] == [reference(prepared(c)).codes[0] for c in cases], errs
    assert _items((ws / SET).read_bytes(), ws / SET) == expected
    assert not torn and reads[0] > 10
    for done in readers:
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    print(f"\n{len(CROWD)} edits at once; {reads[0]} reads here, {len(readers)} reading commands")


# -- locks ----------------------------------------------------------------------------------


def test_the_lock_of_a_killed_command_is_free_at_once(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(templates["example"], ws)
    holder = (
        "import os, signal, sys\n"
        "from evalset.sets.editor import edit_set\n"
        "with edit_set(sys.argv[1]):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", holder, SET], cwd=ws, timeout=60)
    assert done.returncode == -signal.SIGKILL
    start = time.monotonic()
    assert _run(ws, "new", "acme-support").returncode == 0
    assert time.monotonic() - start < 30  # not the 60 s a held lock is waited for
