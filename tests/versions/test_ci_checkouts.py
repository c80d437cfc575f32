"""evalset as CI runs it: every command that reads git or the corpus, in the checkouts CI and
hooks make, gives the verdict it gives in a full clone, or refuses (exit 2) in one sentence
that names what is missing and the fix. Never a traceback, never a different verdict.

Real repositories throughout: an origin built with evalset's own commands, and checkouts
made from it as GitHub Actions (`actions/checkout`: depth 1, no tags, a detached merge
commit for a pull request), GitLab CI (`GIT_DEPTH`, detached) and developers (`git
worktree`, pre-commit's hook environment) make them; a corpus kept elsewhere and not brought
into the checkout (DVC with a local remote, not pulled; a git submodule, not checked out;
Git LFS, not fetched); a workspace in a subfolder of its repository.

The table: each situation and command is compared with the same command in a full clone at
the same commit (``SAME``), or expected refused with a sentence holding one of the given
fragments (``Refused``), or to give the same exit status with a note saying what is missing
(``Note``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import GIT_ENV, ROOT, dvc, git

# ---------------------------------------------------------------------------------------
# Running evalset in-process, in a folder, with an environment


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` set, and the age key's variable unset unless given, for the time of a run."""
    saved = {key: os.environ.get(key) for key in (*values, "EVALSET_AGE_IDENTITY")}
    os.environ.pop("EVALSET_AGE_IDENTITY", None)
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def evalset(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """`evalset ARGS` in ``cwd`` as the command line runs it (exit status, output, errors),
    with git's identity and no global git configuration (as in a CI runner)."""
    from evalset.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    argv = sys.argv
    with _environment({**GIT_ENV, **(env or {})}):
        os.chdir(cwd)
        sys.argv = ["evalset", *args]
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.argv = argv
            os.chdir(here)
    return Run(code, out.getvalue(), err.getvalue())


def must(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    done = evalset(cwd, *args, env=env)
    assert done.code == 0, (args, done.out, done.err)
    return done


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


# ---------------------------------------------------------------------------------------
# The origin: a workspace with releases, a holdout flag flipped by hand after a release, a
# sealed set, a snapshot of an old revision recorded last, reports, and two pull requests.

POLICY = [
    "# Policy\n\n## Returns\n\nReturn within 30 days.\n\n## Refunds\n\nRefunds in 10 days.\n\n"
    "## Gift cards\n\nGift cards expire after three years.\n",
    "# Policy\n\n## Returns\n\nReturn within 14 days.\n\n## Refunds\n\nRefunds in 5 days.\n\n"
    "## Gift cards\n\nGift cards expire after three years.\n",
    "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n\n## Refunds\n\nRefunds in "
    "5 days.\n\n## Gift cards\n\nGift cards expire after three years.\n",
]
HEADER = "evalset: 1\nname: {name}\ncategories:\n  lookup: a fact\nitems:\n"
RETURNS, REFUNDS, GIFTS = "policy.md#returns", "policy.md#refunds", "policy.md#gift-cards"
CUSTOMER = "CUST-123456"


def item(ident: str, cite: str, holdout: bool = False, question: str | None = None) -> str:
    question = question or f"Question {ident} about the {cite.split('#')[1]} policy?"
    return (
        f"  - id: {ident}\n    question: {question}\n    category: lookup\n"
        f"    expected_sources: [{cite}]\n    key_points:\n"
        f"      - text: The fact {ident} asks about\n        sources: [{cite}]\n"
        f"    holdout: {'true' if holdout else 'false'}\n"
    )


def start_repo(repo: Path, ws: Path, config: str) -> None:
    """A new git repository ``repo`` with a workspace at ``ws`` (its top, or a folder below):
    its config and the policy's second version, nothing committed."""
    (ws / "corpus").mkdir(parents=True)
    (ws / "sets").mkdir()
    git(repo, "init", "-q", "-b", "main")
    (ws / "evalset.toml").write_text(config)
    (ws / "corpus/policy.md").write_text(POLICY[1])


DOCS = (
    HEADER.format(name="docs") + item("q-1", RETURNS) + item("q-2", REFUNDS)
    + item("q-3", GIFTS, holdout=True)
)  # fmt: skip
"""The set every origin holds: two tuning items and a holdout one."""
RUN = [
    {"id": "q-1", "retrieved": [RETURNS], "answer": "The fact q-1 asks about",
     "contexts": ["Return within 14 days of delivery."]},
    {"id": "q-2", "retrieved": [GIFTS, REFUNDS], "answer": "The fact q-2 asks about",
     "contexts": ["Refunds in 5 days."]},
    {"id": "q-3", "retrieved": [GIFTS], "answer": "I cannot say",
     "contexts": ["Gift cards expire after three years."]},
]  # fmt: skip
CONFIG = (
    "[validate]\nmin_per_category = 0\n[split]\nratio = 0.5\n"
    '[promote.patterns]\nCUSTOMER = "CUST-[0-9]{6}"\n'
)


@dataclass
class Origin:
    repo: Path
    sub: str
    """The workspace's folder below the repository's top ("" at the top)."""
    key: Path

    @property
    def url(self) -> str:
        return f"file://{self.repo}"


def build_origin(repo: Path, sub: str, key: Path) -> Origin:
    """The origin repository (see the module's docstring), built with evalset's commands."""
    from pyrage import x25519

    identity = x25519.Identity.generate()
    key.write_text(f"# public key: {identity.to_public()}\n{identity}\n")
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    ws = repo / sub if sub else repo
    (ws / "corpus").mkdir(parents=True)
    (ws / "sets").mkdir()
    (ws / "evalset.toml").write_text(CONFIG)
    (repo / ".gitignore").write_text(".evalset/\nreports/*\n!reports/accepted/\n")
    (ws / "corpus/policy.md").write_text(POLICY[0])
    oldest = commit(repo, "corpus v0")
    (ws / "corpus/policy.md").write_text(POLICY[1])
    commit(repo, "corpus v1")
    must(ws, "snapshot")
    (ws / "sets/docs.yaml").write_text(DOCS)
    (ws / "sets/flip.yaml").write_text(
        HEADER.format(name="flip") + item("f-1", RETURNS) + item("f-2", REFUNDS, holdout=True)
        + item("f-3", GIFTS, holdout=True)
    )  # fmt: skip
    must(ws, "verify", "docs", "--all")
    must(ws, "verify", "flip", "--all")
    commit(repo, "two sets and their snapshot")
    must(ws, "release", "docs", "--bump", "minor")
    must(ws, "release", "flip", "--bump", "minor")
    (ws / "corpus/policy.md").write_text(POLICY[2])
    commit(repo, "corpus v2")
    must(ws, "snapshot")
    commit(repo, "snapshot of corpus v2")
    must(ws, "verify", "docs", "q-1")
    must(ws, "verify", "flip", "f-1")
    commit(repo, "re-verified")
    must(ws, "release", "docs", "--bump", "minor")
    # recorded last, of the oldest corpus: only history says it is not the newest
    must(ws, "snapshot", "--rev", oldest)
    commit(repo, "a snapshot of corpus v0")
    flip = ws / "sets/flip.yaml"
    text = flip.read_text()
    at = text.index("  - id: f-2")
    flip.write_text(text[:at] + text[at:].replace("holdout: true", "holdout: false", 1))
    commit(repo, "f-2 to tuning by hand, unrecorded")
    (ws / "sets/vault.yaml").write_text(
        HEADER.format(name="vault") + item("v-1", RETURNS) + item("v-2", REFUNDS, holdout=True)
        + item("v-3", GIFTS, holdout=True)
    )  # fmt: skip
    must(ws, "verify", "vault", "--all")
    must(ws, "seal", "vault", "--recipient", str(identity.to_public()))
    (ws / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUN))
    (ws / "chunks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in SPANS))
    record = {"question": f"Customer {CUSTOMER}: can I return an opened item?", "trace": "t-1"}
    (ws / "failures.jsonl").write_text(json.dumps(record) + "\n")
    shutil.copy(ROOT / "examples" / "judges" / "keywords.py", ws / "keywords.py")
    (ws / "runs").mkdir()
    must(ws, "score", "retrieval", "docs", "run.jsonl", "-o", "runs/base.json")
    must(ws, "score", "retrieval", "docs", "run.jsonl", "-o", "runs/current.json")
    must(ws, "accept", "runs/base.json")
    (ws / "runs/pin.json").write_text(
        json.dumps({"evalset": json.loads(must(ws, "pin", "docs").out)})
    )
    commit(repo, "a sealed set, a run, reports")
    main = git(repo, "rev-parse", "HEAD").strip()
    # Pull requests, as GitHub presents them: refs/pull/N/merge, a merge into main.
    for number, change in ((1, "an item"), (2, "the corpus, without a snapshot")):
        git(repo, "checkout", "-q", "-b", f"pr{number}", f"{main}~1")
        if number == 1:
            docs = ws / "sets/docs.yaml"
            question = "Do vouchers bought in a sale run out sooner?"
            docs.write_text(docs.read_text() + item("q-9", GIFTS, question=question))
            must(ws, "verify", "docs", "q-9")
        else:
            (ws / "corpus/policy.md").write_text(POLICY[2].replace("three years", "two years"))
        commit(repo, f"pull request {number}: {change}")
        git(repo, "checkout", "-q", "--detach", main)
        git(repo, "merge", "-q", "--no-ff", "-m", f"Merge pr{number}", f"pr{number}")
        git(repo, "update-ref", f"refs/pull/{number}/merge", "HEAD")
        git(repo, "checkout", "-q", "main")
    return Origin(repo, sub, key)


# ---------------------------------------------------------------------------------------
# Checkouts, as CI and developers make them


def clone(origin: Origin, dest: Path, *args: str) -> Path:
    git(dest.parent, "clone", "-q", *args, origin.url, str(dest))
    return dest


def actions_checkout(origin: Origin, dest: Path, ref: str, tags: bool = False) -> Path:
    """What `actions/checkout` does by default (fetch-depth: 1, no tags; `fetch-tags: true`
    with ``tags``): init, one shallow fetch of the commit, a checkout of it (a pull
    request's merge commit, detached)."""
    dest.mkdir()
    git(dest, "init", "-q")
    git(dest, "remote", "add", "origin", origin.url)
    target = ref.replace("refs/heads/", "refs/remotes/origin/")
    git(dest, "fetch", "-q", "--tags" if tags else "--no-tags", "--depth=1", "origin",
        f"+{ref}:{target}")  # fmt: skip
    git(dest, "checkout", "-q", "--detach", target)
    return dest


def actions_full(origin: Origin, dest: Path, ref: str) -> Path:
    """`actions/checkout` with `fetch-depth: 0`: all history and tags, the commit detached."""
    clone(origin, dest)
    git(dest, "fetch", "-q", "--tags", "origin", f"+{ref}:refs/remotes/{ref[5:]}")
    git(dest, "checkout", "-q", "--detach", f"refs/remotes/{ref[5:]}")
    return dest


def gitlab(origin: Origin, dest: Path) -> Path:
    """GitLab CI with GIT_DEPTH: a shallow fetch that follows only the tags inside it, and a
    detached HEAD. The depth keeps docs' latest release tag and leaves out flip's."""
    depth = int(git(origin.repo, "rev-list", "--count", "evalset/docs/v0.2.0..main")) + 1
    clone(origin, dest, "--depth", str(depth))
    git(dest, "checkout", "-q", "--detach")
    return dest


def worktree(origin: Origin, dest: Path) -> Path:
    main = clone(origin, dest.with_name(dest.name + "-main"))
    git(main, "worktree", "add", "-q", "--detach", str(dest), "HEAD")
    return dest


def hook_env(checkout: Path) -> dict[str, str]:
    """What git exports to a pre-commit hook run in a linked worktree (`git commit`)."""
    gitdir = git(checkout, "rev-parse", "--absolute-git-dir").strip()
    return {"GIT_DIR": gitdir, "GIT_INDEX_FILE": f"{gitdir}/index"}


def index_env(checkout: Path) -> dict[str, str]:
    """What git exports to a pre-commit hook in the main checkout (`git commit -a`): the
    index being committed, written beside the index as its lock file."""
    lock = checkout / ".git" / "index.lock"
    shutil.copy(checkout / ".git" / "index", lock)
    return {"GIT_INDEX_FILE": str(lock)}


def another_owner(origin: Origin, dest: Path) -> Path:
    """A full clone that belongs to another user (as a container job sees a checkout made
    by the runner): git refuses it as of "dubious ownership"."""
    clone(origin, dest)
    for folder, _, files in os.walk(dest):
        for name in (folder, *(os.path.join(folder, f) for f in files)):
            os.chown(name, 12345, 12345)
    return dest


def sparse(origin: Origin, dest: Path) -> Path:
    """A developer's sparse checkout (cone mode) of everything but the corpus's folder."""
    clone(origin, dest, "--sparse")
    git(dest, "sparse-checkout", "set", "sets", "snapshots", "runs", "reports")
    return dest


@dataclass
class Situation:
    name: str
    make: Callable[[Origin, Path], Path]
    """Makes a fresh checkout at the given path, and returns it."""
    reference: str | None
    """The full checkout at the same commit this one is compared with (None: it is one)."""
    env: Callable[[Path], dict[str, str]] | None = None
    args: tuple[str, ...] = ()
    """Arguments before the command (``-C evals`` from the repository's top)."""
    at_top: bool = False
    """Run from the repository's top, not the workspace's folder."""


def _situations() -> list[Situation]:
    main = "refs/heads/main"
    return [
        Situation("full", lambda o, d: clone(o, d), None),
        Situation("no tags", lambda o, d: clone(o, d, "--no-tags"), "full"),
        Situation("actions", lambda o, d: actions_checkout(o, d, main), "full"),
        Situation("actions, tags", lambda o, d: actions_checkout(o, d, main, True), "full"),
        Situation("gitlab", gitlab, "full"),
        Situation("hook", lambda o, d: clone(o, d), "full", env=index_env),
        Situation("worktree", worktree, "full"),
        Situation("worktree hook", worktree, "full", env=hook_env),
        Situation("pr, full", lambda o, d: actions_full(o, d, "refs/pull/1/merge"), None),
        Situation("pr", lambda o, d: actions_checkout(o, d, "refs/pull/1/merge"), "pr, full"),
        Situation("pr corpus, full", lambda o, d: actions_full(o, d, "refs/pull/2/merge"), None),
        Situation("pr corpus", lambda o, d: actions_checkout(o, d, "refs/pull/2/merge"),
                  "pr corpus, full"),
        Situation("another owner", another_owner, "full"),
        Situation("sparse", sparse, "full"),
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------
# The commands, and what each situation may answer

KEY = "<key>"
"""Stands for the age key file's path in an environment."""


@dataclass(frozen=True)
class Command:
    steps: tuple[tuple[str, ...], ...]
    writes: bool = False
    key: bool = False


def cmd(*args: str, writes: bool = False) -> Command:
    return Command((args,), writes)


COMMANDS: dict[str, Command] = {
    "validate": cmd("validate"),
    "validate flip": cmd("validate", "sets/flip.yaml"),
    "status": cmd("status"),
    "stale": cmd("stale", "--json"),
    "snapshot": cmd("snapshot", writes=True),
    "snapshot --rev": cmd("snapshot", "--rev", "HEAD~3", writes=True),
    "verify": cmd("verify", "docs", "q-1", writes=True),
    "pin": cmd("pin", "docs"),
    "pin flip": cmd("pin", "flip"),
    "pin --rev": cmd("pin", "docs", "--rev", "0.1.0"),
    "check-pin": cmd("check-pin", "runs/pin.json"),
    "log": cmd("log", "docs"),
    "log flip": cmd("log", "flip"),
    "diff": cmd("diff", "docs"),
    "diff 0.1.0 0.2.0": cmd("diff", "docs", "0.1.0", "0.2.0"),
    "diff flip": cmd("diff", "flip"),
    "release": cmd("release", "docs", "--bump", "patch", writes=True),
    "release flip": cmd("release", "flip", "--bump", "patch", writes=True),
    "score retrieval": cmd("score", "retrieval", "docs", "run.jsonl"),
    "score spans": cmd("score", "retrieval", "docs", "chunks.jsonl"),
    "score answers": cmd(
        "score", "answers", "docs", "run.jsonl", "--judge", "command:python3 keywords.py"
    ),
    "gate, accepted": cmd("gate", "runs/current.json", "--metric", "hit@1"),
    "gate, two reports": cmd("gate", "runs/base.json", "runs/current.json", "--metric", "mrr"),
    "accept": cmd("accept", "runs/current.json", writes=True),
    "split": cmd("split", "docs", "--dry-run"),
    "seal, at HEAD": Command((("unseal", "vault"), ("seal", "vault")), writes=True, key=True),
    "validate, unsealed": Command(
        (("unseal", "vault"), ("validate", "sets/vault.yaml")), writes=True, key=True
    ),
    "promote": cmd("promote", "failures.jsonl", "--set", "docs", writes=True),
    # the published pre-commit hooks, as pre-commit calls them
    "hook validate": cmd("validate", "sets/docs.yaml", "sets/flip.yaml", "sets/vault.yaml"),
    "hook stale": cmd("stale"),
}


@dataclass(frozen=True)
class Refused:
    """Exit 2, one sentence on standard error holding one of ``fragments``."""

    fragments: tuple[str, ...]


@dataclass(frozen=True)
class Note:
    """The reference's exit status, with output holding ``fragment`` (what is missing)."""

    fragment: str


SAME = "same"
TAGS = Refused(("`git fetch --tags`",))
HISTORY = Refused(("`git fetch --unshallow --tags`",))
TAGS_OR_HISTORY = Refused(("`git fetch --tags`", "`git fetch --unshallow --tags`"))
OWNER = Refused(("safe.directory",))
EITHER_OWNER = "same, or refused for safe.directory"


def not_here(fix: str) -> dict[str, object]:
    """A corpus kept elsewhere (DVC, a git submodule, Git LFS, a sparse checkout) and not
    brought into the checkout: what compares with the corpus notes it; `snapshot` refuses to
    record it, `verify` to record which snapshot was checked (only the corpus tells), and
    scoring a run of spans to resolve them (the documents' text is in the corpus); every
    other command gives the full clone's verdict."""
    return {"status": Note(fix), "stale": Note(fix), "hook stale": Note(fix),
            "snapshot": Refused((fix,)), "verify": Refused((fix,)),
            "score spans": Refused((fix,))}  # fmt: skip


def not_here_shallow(fix: str) -> dict[str, object]:
    """The same in a shallow checkout (`actions/checkout`), where only the corpus tells the
    newest snapshot: what needs it refuses, naming the fix."""
    newest = ["status", "stale", "verify", "pin", "release", "score retrieval", "score spans",
              "hook stale"]  # fmt: skip
    return {**dict.fromkeys(newest, Refused((fix,))), "snapshot": Refused((fix,))}


NEEDS_TAGS = [
    # commands that read the releases of docs or flip, whose headers name a release
    "validate", "validate flip", "status", "pin flip", "pin --rev", "check-pin", "log",
    "log flip", "diff", "diff 0.1.0 0.2.0", "diff flip", "release", "release flip",
    "score retrieval", "score spans", "score answers", "gate, accepted", "gate, two reports",
    "accept", "hook validate",
]  # fmt: skip
FLIP = ["validate", "validate flip", "status", "pin flip", "log flip", "diff flip",
        "release flip", "hook validate"]  # fmt: skip
NEEDS_NEWEST = [
    "status", "stale", "verify", "pin", "pin flip", "release", "release flip",
    "score retrieval", "score spans", "score answers", "hook stale",
]  # fmt: skip

EXPECTED: dict[str, dict[str, object]] = {
    "full": {},
    "no tags": dict.fromkeys(NEEDS_TAGS, TAGS),
    "actions": {**dict.fromkeys(NEEDS_TAGS, TAGS), "snapshot --rev": HISTORY},
    "actions, tags": {
        "snapshot --rev": HISTORY,
        "log": Note("earliest release in this shallow clone"),
        "log flip": Note("earliest release in this shallow clone"),
    },
    "gitlab": {
        **dict.fromkeys(FLIP, TAGS),
        "pin --rev": Refused(("This shallow clone may lack the tag",)),
        "diff 0.1.0 0.2.0": Refused(("This shallow clone may lack the tag",)),
        "log": Note("earliest release in this shallow clone"),
    },
    "hook": {},
    "worktree": {},
    "worktree hook": {},
    "pr, full": {},
    # the pull request edits docs: its pin needs the release to tell "modified"
    "pr": {**dict.fromkeys(NEEDS_TAGS, TAGS), "pin": TAGS, "snapshot --rev": HISTORY},
    "pr corpus, full": {},
    "pr corpus": {
        **dict.fromkeys(NEEDS_TAGS, TAGS_OR_HISTORY),
        **dict.fromkeys(NEEDS_NEWEST, TAGS_OR_HISTORY),
        "snapshot": Note("what changed since is not listed"),
        "snapshot --rev": HISTORY,
    },
    "another owner": dict.fromkeys(COMMANDS, EITHER_OWNER),
    # (git holds the documents a sparse checkout leaves out: spans are read from there)
    "sparse": {**not_here("`git sparse-checkout add corpus`"), "score spans": SAME},
}


# ---------------------------------------------------------------------------------------
# Running the table


class Checkouts:
    """The checkouts of one origin, made once per module; commands that write run in a
    fresh checkout of their own."""

    def __init__(self, origin: Origin, root: Path, situations: list[Situation]) -> None:
        self.origin = origin
        self.root = root
        self.situations = {s.name: s for s in situations}
        self.made: dict[str, Path] = {}
        self.results: dict[tuple[str, str], Run] = {}
        self.count = 0

    def fresh(self, situation: Situation) -> Path:
        self.count += 1
        slug = re.sub(r"\W+", "-", situation.name)
        return situation.make(self.origin, self.root / f"{slug}-{self.count}")

    def checkout(self, situation: Situation, writes: bool) -> Path:
        if writes:
            return self.fresh(situation)
        if situation.name not in self.made:
            self.made[situation.name] = self.fresh(situation)
        return self.made[situation.name]

    def run(self, name: str, command: str) -> Run:
        if (name, command) in self.results:
            return self.results[(name, command)]
        situation, spec = self.situations[name], COMMANDS[command]
        top = self.checkout(situation, spec.writes)
        where = top if situation.at_top or not self.origin.sub else top / self.origin.sub
        env = situation.env(top) if situation.env else {}
        if spec.key:
            env["EVALSET_AGE_IDENTITY"] = str(self.origin.key)
        done = Run(0, "", "")
        for step in spec.steps:
            done = evalset(where, *situation.args, *step, env=env)
            text = done.out + done.err
            done = Run(done.code, normalised(text, top), "")
            if done.code != 0 and step is not spec.steps[-1]:
                break
        self.results[(name, command)] = done
        return done


def normalised(text: str, top: Path) -> str:
    """Output as compared between checkouts: paths inside the checkout written from its top,
    and how many files the stat cache spared (a cache, not a verdict) left out."""
    for form in {str(top.resolve()), str(top)}:
        text = text.replace(form, "<checkout>")
    return re.sub(r"\(\d+ file\(s\) read\)", "(… file(s) read)", text)


def verdict(expected: object, got: Run, reference: Run) -> str | None:
    """Why ``got`` is not what ``expected`` allows, or None."""
    if "Traceback" in got.out or got.code == 3:
        return f"internal error: {got.out[-400:]}"
    refused = _refusal(got)
    if expected == EITHER_OWNER:
        if got == reference or (refused and OWNER.fragments[0] in got.out):
            return None
        return f"neither the reference's verdict nor refused: {_difference(got, reference)}"
    if expected == SAME:
        return None if got == reference else _difference(got, reference)
    if isinstance(expected, Refused):
        if not refused:
            return f"not refused in one sentence: {_difference(got, reference)}"
        if not any(f in got.out for f in expected.fragments):
            return f"refused without naming {expected.fragments}: {got.out[:300]}"
        return None
    assert isinstance(expected, Note)
    if got.code != reference.code or expected.fragment not in got.out:
        return f"no note {expected.fragment!r}: {_difference(got, reference)}"
    return None


def _difference(got: Run, reference: Run) -> str:
    """The first line that differs, for a readable failure."""
    import difflib

    lines = difflib.unified_diff(reference.out.splitlines(), got.out.splitlines(), n=0)
    changed = [line for line in list(lines)[2:] if not line.startswith("@@")][:4]
    return f"exit {got.code} (reference {reference.code}); " + " | ".join(changed)


def _refusal(got: Run) -> bool:
    """Exit 2 with one sentence: ``evalset: …`` on one line (after the JSON error document
    under --json)."""
    lines = [line for line in got.out.splitlines() if line.startswith("evalset: ")]
    return got.code == 2 and len(lines) == 1 and lines[0].rstrip().endswith((".", ")"))


@pytest.fixture(scope="module")
def root_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("ci")
    origin = build_origin(base / "origin", "", base / "holdout.key")
    situations = _situations()
    if os.geteuid() != 0:  # only root can give a checkout to another user
        situations = [s for s in situations if s.name != "another owner"]
    return Checkouts(origin, base, situations)


def check_table(
    checkouts: Checkouts, name: str, expected: dict[str, object], commands: list[str] | None = None
) -> None:
    situation = checkouts.situations[name]
    problems = []
    for command in commands or COMMANDS:
        got = checkouts.run(name, command)
        if situation.reference is None:
            want = expected.get(command, SAME)
            assert want == SAME
            if "Traceback" in got.out or got.code == 3:
                problems.append(f"{command}: internal error {got.out}")
            continue
        reference = checkouts.run(situation.reference, command)
        why = verdict(expected.get(command, SAME), got, reference)
        if why is not None:
            problems.append(f"{command}: {why}")
    assert not problems, f"{name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_command_in_each_checkout(root_origin: Checkouts, name: str) -> None:
    if name not in root_origin.situations:
        pytest.skip("needs root, to give a checkout to another user")
    check_table(root_origin, name, EXPECTED[name])


def test_the_full_checkout_gives_the_verdicts_the_table_relies_on(root_origin: Checkouts) -> None:
    """The reference verdicts are the interesting ones: a holdout flag flipped by hand since
    flip's release is an error, docs is released and unchanged, the pins check."""
    flip = root_origin.run("full", "validate flip")
    assert flip.code == 1 and "moved from holdout to tuning since release 0.1.0" in flip.out
    assert root_origin.run("full", "check-pin").code == 0
    assert "release: 0.2.0" in root_origin.run("full", "status").out
    assert "nothing to release" in root_origin.run("full", "release").out
    seal = root_origin.run("full", "seal, at HEAD")
    assert seal.code == 0 and "(as the holdout at HEAD)" in seal.out
    unsealed = root_origin.run("full", "validate, unsealed")
    assert unsealed.code == 1 and "sealed at HEAD, and in plain text here" in unsealed.out
    stale = root_origin.run("pr corpus, full", "stale")
    assert stale.code == 0 and '"rule": "commit"' in stale.out


# ---------------------------------------------------------------------------------------
# A workspace in a subfolder of its repository (a monorepo)

SUB_EXPECTED: dict[str, dict[str, object]] = {
    "sub, full": {},
    "sub, from the top": {},
    "sub, actions": {**dict.fromkeys(NEEDS_TAGS, TAGS), "snapshot --rev": HISTORY},
    "sub, worktree hook": {},
}


def _sub_situations() -> list[Situation]:
    main = "refs/heads/main"
    return [
        Situation("sub, full", lambda o, d: clone(o, d), None),
        Situation("sub, from the top", lambda o, d: clone(o, d), "sub, full",
                  args=("-C", "evals"), at_top=True),
        Situation("sub, actions", lambda o, d: actions_checkout(o, d, main), "sub, full"),
        Situation("sub, worktree hook", worktree, "sub, full", env=hook_env),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def sub_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("ci-sub")
    origin = build_origin(base / "origin", "evals", base / "holdout.key")
    return Checkouts(origin, base, _sub_situations())


@pytest.mark.parametrize("name", list(SUB_EXPECTED))
def test_each_command_in_a_subfolder_workspace(sub_origin: Checkouts, name: str) -> None:
    check_table(sub_origin, name, SUB_EXPECTED[name])


# ---------------------------------------------------------------------------------------
# A corpus tracked by DVC, with a local remote, and checkouts that did not pull it

DVC_COMMANDS = [
    "validate", "status", "stale", "snapshot", "verify", "pin", "pin --rev", "release",
    "score retrieval", "score spans", "hook stale",
]  # fmt: skip


DVC_EXPECTED: dict[str, dict[str, object]] = {
    "dvc, pulled": {},
    "dvc, not pulled": not_here("`dvc pull`"),
    "dvc, pull failed": not_here("`dvc pull`"),
    "dvc, actions": not_here_shallow("`dvc pull`"),
    # the folder is here, but not all of it: the policy pulled, the FAQ not (the spans are
    # of the policy, which is here to resolve them)
    "dvc, pulled in part": {**not_here("`dvc pull`"), "score spans": SAME},
    # DVC's cache linked into the workspace: the documents are symlinks into it
    "dvc, symlink cache": {},
    "dvc, symlink cache emptied": not_here("`dvc pull`"),
    # a document added on its own (`dvc add corpus/policy.md`), beside one kept in git
    "dvc file, pulled": {},
    "dvc file, not pulled": not_here("`dvc pull`"),
}


SPANS = [
    {"id": q, "retrieved": [{"doc": "policy.md", "start": POLICY[2].index(text),
                             "end": POLICY[2].index(text) + len(text)}]}
    for q, text in (("q-1", "Return within 14 days"), ("q-2", "Refunds in 5 days"))
]  # fmt: skip
"""A run whose chunks are spans of the policy's source: resolving them reads the document."""


def release_two_corpora(repo: Path, put: Callable[[int], None]) -> None:
    """The history every origin whose corpus is kept elsewhere shares: corpus v1 (``put``
    writes and records a version), a set verified against its snapshot and released; corpus
    v2, its snapshot, q-1 re-verified, released again."""
    put(1)
    commit(repo, "corpus v1")
    must(repo, "snapshot")
    (repo / "sets/docs.yaml").write_text(DOCS)
    must(repo, "verify", "docs", "--all")
    (repo / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUN))
    (repo / "chunks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in SPANS))
    commit(repo, "a set and its snapshot")
    must(repo, "release", "docs", "--bump", "minor")
    put(2)
    commit(repo, "corpus v2")
    must(repo, "snapshot")
    must(repo, "verify", "docs", "q-1")
    commit(repo, "snapshot of corpus v2; q-1 re-verified")
    must(repo, "release", "docs", "--bump", "minor")


def start_workspace(repo: Path) -> None:
    """A new repository at ``repo`` with evalset's config and an empty sets folder."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "evalset.toml").write_text(CONFIG)
    (repo / ".gitignore").write_text(".evalset/\nreports/*\n!reports/accepted/\n")
    (repo / "sets").mkdir()


def build_dvc_origin(repo: Path, remote: Path) -> Origin:
    """A workspace whose corpus is added to DVC (`dvc add`) and pushed to a local remote;
    released twice, the second time against a new version of the corpus."""
    remote.mkdir(parents=True)
    start_workspace(repo)
    dvc(repo, "init", "-q")
    dvc(repo, "remote", "add", "-d", "store", str(remote))
    (repo / "corpus").mkdir()

    def put(version: int) -> None:
        (repo / "corpus/policy.md").write_text(POLICY[version])
        (repo / "corpus/notes").mkdir(exist_ok=True)
        (repo / "corpus/notes/faq.md").write_text(FAQ)
        dvc(repo, "add", "-q", "corpus")
        if version == 2:
            dvc(repo, "push", "-q")

    release_two_corpora(repo, put)
    return Origin(repo, "", repo / "no.key")


FAQ = "# FAQ\n\n## Delivery\n\nParcels arrive in three days.\n"
"""A document no item cites, beside the policy."""


def build_dvc_file_origin(repo: Path, remote: Path) -> Origin:
    """A workspace whose policy is added to DVC on its own (`dvc add corpus/policy.md`),
    while the FAQ beside it is kept in git."""
    remote.mkdir(parents=True)
    start_workspace(repo)
    dvc(repo, "init", "-q")
    dvc(repo, "remote", "add", "-d", "store", str(remote))
    (repo / "corpus").mkdir()
    (repo / "corpus/faq.md").write_text(FAQ)

    def put(version: int) -> None:
        (repo / "corpus/policy.md").write_text(POLICY[version])
        dvc(repo, "add", "-q", "corpus/policy.md")
        if version == 2:
            dvc(repo, "push", "-q")

    release_two_corpora(repo, put)
    return Origin(repo, "", repo / "no.key")


def symlink_cache(origin: Origin, dest: Path, emptied: bool = False) -> Path:
    """A clone whose DVC cache is linked into the workspace (``cache.type symlink``) and
    pulled; ``emptied``: its cache removed since (`dvc gc`, a cache on a disk not mounted),
    so the documents are links to nothing."""
    clone(origin, dest)
    dvc(dest, "config", "--local", "cache.type", "symlink")
    dvc(dest, "pull", "-q")
    assert (dest / "corpus/policy.md").is_symlink()
    if emptied:
        shutil.rmtree(dest / ".dvc/cache")
    return dest


def pulled(origin: Origin, dest: Path) -> Path:
    clone(origin, dest)
    dvc(dest, "pull", "-q")
    return dest


def pulled_in_part(origin: Origin, dest: Path) -> Path:
    """A clone where one document of the DVC-tracked folder was pulled (a granular pull)."""
    clone(origin, dest)
    dvc(dest, "pull", "-q", "corpus/policy.md")
    assert not (dest / "corpus/notes/faq.md").exists()
    return dest


def pull_failed(origin: Origin, dest: Path) -> Path:
    """A clone whose `dvc pull` failed: the corpus folder is there, and empty."""
    clone(origin, dest)
    (dest / "corpus").mkdir()
    return dest


@pytest.fixture(scope="module")
def dvc_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("ci-dvc")
    origin = build_dvc_origin(base / "origin", base / "remote")
    main = "refs/heads/main"
    return Checkouts(
        origin,
        base,
        [
            Situation("dvc, pulled", pulled, None),
            Situation("dvc, not pulled", lambda o, d: clone(o, d), "dvc, pulled"),
            Situation("dvc, pull failed", pull_failed, "dvc, pulled"),
            Situation(
                "dvc, actions", lambda o, d: actions_checkout(o, d, main, True), "dvc, pulled"
            ),
            Situation("dvc, pulled in part", pulled_in_part, "dvc, pulled"),
            Situation("dvc, symlink cache", symlink_cache, "dvc, pulled"),
            Situation(
                "dvc, symlink cache emptied",
                lambda o, d: symlink_cache(o, d, emptied=True),
                "dvc, pulled",
            ),
        ],
    )


@pytest.fixture(scope="module")
def dvc_file_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("ci-dvc-file")
    origin = build_dvc_file_origin(base / "origin", base / "remote")
    return Checkouts(
        origin,
        base,
        [
            Situation("dvc file, pulled", pulled, None),
            Situation("dvc file, not pulled", lambda o, d: clone(o, d), "dvc file, pulled"),
        ],
    )


@pytest.mark.parametrize("name", [n for n in DVC_EXPECTED if not n.startswith("dvc file")])
def test_each_command_with_a_dvc_corpus_not_pulled(dvc_origin: Checkouts, name: str) -> None:
    check_table(dvc_origin, name, DVC_EXPECTED[name], DVC_COMMANDS)


@pytest.mark.parametrize("name", [n for n in DVC_EXPECTED if n.startswith("dvc file")])
def test_each_command_with_a_dvc_document_not_pulled(dvc_file_origin: Checkouts, name: str) -> None:
    check_table(dvc_file_origin, name, DVC_EXPECTED[name], DVC_COMMANDS)


# ---------------------------------------------------------------------------------------
# A corpus that is a git submodule (the policies' own repository), and checkouts that did
# not check it out (`git clone` and `actions/checkout` do not, unless asked)

FILE_SUBMODULES = ("-c", "protocol.file.allow=always")
"""git fetches submodules over file:// only when told (these origins are local)."""
SUBMODULE_EXPECTED: dict[str, dict[str, object]] = {
    "submodule, recursive": {},
    "submodule, not checked out": not_here("`git submodule update --init`"),
    "submodule, actions": not_here_shallow("`git submodule update --init`"),
}


def build_submodule_origin(repo: Path, policies: Path) -> Origin:
    """A workspace whose corpus folder is a submodule: the policies' repository, moved on
    to a new version between the two releases."""
    policies.mkdir(parents=True)
    git(policies, "init", "-q", "-b", "main")
    (policies / "policy.md").write_text(POLICY[1])
    commit(policies, "policy v1")
    start_workspace(repo)
    git(repo, *FILE_SUBMODULES, "submodule", "add", "-q", f"file://{policies}", "corpus")

    def put(version: int) -> None:
        if version == 2:
            (policies / "policy.md").write_text(POLICY[2])
            commit(policies, "policy v2")
            git(repo / "corpus", "pull", "-q", "origin", "main")

    release_two_corpora(repo, put)
    return Origin(repo, "", repo / "no.key")


def recursive_clone(origin: Origin, dest: Path) -> Path:
    git(dest.parent, *FILE_SUBMODULES, "clone", "-q", "--recurse-submodules", origin.url,
        str(dest))  # fmt: skip
    return dest


@pytest.fixture(scope="module")
def submodule_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("ci-submodule")
    origin = build_submodule_origin(base / "origin", base / "policies")
    recursive = ("submodule, recursive",)
    return Checkouts(
        origin,
        base,
        [
            Situation(recursive[0], recursive_clone, None),
            Situation("submodule, not checked out", lambda o, d: clone(o, d), *recursive),
            Situation("submodule, actions",
                      lambda o, d: actions_checkout(o, d, "refs/heads/main", True), *recursive),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("name", list(SUBMODULE_EXPECTED))
def test_each_command_with_a_submodule_corpus_not_checked_out(
    submodule_origin: Checkouts, name: str
) -> None:
    check_table(submodule_origin, name, SUBMODULE_EXPECTED[name], DVC_COMMANDS)


# ---------------------------------------------------------------------------------------
# A corpus in Git LFS (the real git-lfs), and checkouts that did not fetch its content: a
# pointer file where each document should be

LFS_EXPECTED: dict[str, dict[str, object]] = {
    "lfs, pulled": {},
    "lfs, not pulled": not_here("`git lfs pull`"),
    "lfs, actions": not_here_shallow("`git lfs pull`"),
}


def build_lfs_origin(repo: Path) -> Origin:
    start_workspace(repo)
    git(repo, "lfs", "install", "--local")
    git(repo, "lfs", "track", "corpus/*.md")
    (repo / "corpus").mkdir()

    def put(version: int) -> None:
        (repo / "corpus/policy.md").write_text(POLICY[version])

    release_two_corpora(repo, put)
    assert "oid sha256:" in git(repo, "show", "HEAD:corpus/policy.md")
    return Origin(repo, "", repo / "no.key")


def lfs_pulled(origin: Origin, dest: Path) -> Path:
    clone(origin, dest)  # (no git-lfs in the test's git configuration: pointers)
    git(dest, "lfs", "install", "--local")
    git(dest, "lfs", "pull")
    return dest


@pytest.fixture(scope="module")
def lfs_origin(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    if shutil.which("git-lfs") is None:
        if os.environ.get("CI"):
            pytest.fail("git-lfs is missing: .ci/run installs Debian's git-lfs package")
        pytest.skip("git-lfs is missing (apt-get install git-lfs)")
    base = tmp_path_factory.mktemp("ci-lfs")
    origin = build_lfs_origin(base / "origin")
    return Checkouts(
        origin,
        base,
        [
            Situation("lfs, pulled", lfs_pulled, None),
            Situation("lfs, not pulled", lambda o, d: clone(o, d), "lfs, pulled"),
            Situation("lfs, actions",
                      lambda o, d: actions_checkout(o, d, "refs/heads/main", True), "lfs, pulled"),
        ],
    )  # fmt: skip


@pytest.mark.parametrize("name", list(LFS_EXPECTED))
def test_each_command_with_an_lfs_corpus_not_pulled(lfs_origin: Checkouts, name: str) -> None:
    check_table(lfs_origin, name, LFS_EXPECTED[name], DVC_COMMANDS)


# ---------------------------------------------------------------------------------------
# One by one: what the tables cannot show


def test_from_the_top_a_set_path_reads_its_own_workspace(sub_origin: Checkouts) -> None:
    """A set named by its path from the repository's top (as pre-commit passes files) is
    read with its workspace's configuration, not the defaults: the split ratio, and the
    promote patterns that redact what the team declared personal."""
    top = sub_origin.fresh(sub_origin.situations["sub, full"])
    split = must(top, "split", "evals/sets/docs.yaml", "--dry-run")
    assert "(target 50%)" in split.out  # [split] ratio = 0.5 of evals/evalset.toml
    must(top, "promote", "evals/failures.jsonl", "--set", "evals/sets/docs.yaml")
    text = (top / "evals/sets/docs.yaml").read_text()
    assert CUSTOMER not in text and "<CUSTOMER_1>" in text
    flip = evalset(top, "validate", "evals/sets/flip.yaml")
    assert flip.code == 1 and "moved from holdout to tuning since release 0.1.0" in flip.out
    pinned = json.loads(must(top, "pin", "evals/sets/docs.yaml").out)
    assert pinned["version"] == "0.2.0"
    assert must(top, "stale", "evals/sets/docs.yaml").out.startswith("0 stale item(s)")


def test_from_the_top_without_a_path_the_error_names_the_workspace(sub_origin: Checkouts) -> None:
    top = sub_origin.checkout(sub_origin.situations["sub, full"], writes=False)
    done = evalset(top, "status")
    assert done.code == 2
    assert done.err.strip().endswith(
        "but the repository has one in evals/: run evalset there, or give its folder, as in "
        "`evalset -C evals status`."
    )
    missing = evalset(top, "-C", "nowhere", "status")
    assert (missing.code, missing.err.strip()) == (
        2,
        "evalset: -C nowhere: cannot run there (No such file or directory); give the folder "
        "of the workspace, as in `evalset -C evals stale`.",
    )
    assert evalset(top, "-C", "evals", "status", "--json").code == 0  # the typer path too


def test_a_revision_snapshot_and_old_text_in_a_subfolder_workspace(tmp_path: Path) -> None:
    """git names a commit's files from the repository's top, DVC's filesystem too: a
    workspace in a subfolder takes snapshots of revisions, and `stale` reads the old text
    of a changed section from git when the snapshots store none."""
    repo = tmp_path / "repo"
    ws = repo / "evals"
    start_repo(repo, ws, "store_text = false\n[validate]\nmin_per_category = 0\n")
    first = commit(repo, "corpus v1")
    old = json.loads(must(ws, "snapshot", "--json").out)["snapshot"]  # taken at commit first
    (ws / "sets/docs.yaml").write_text(
        HEADER.format(name="docs") + item("q-1", RETURNS) + f"    verified: {old}\n"
    )
    (ws / "corpus/policy.md").write_text(POLICY[2])
    commit(repo, "corpus v2")
    must(ws, "snapshot")
    stale = evalset(ws, "stale")
    assert stale.code == 1
    assert "      Return within 14 [-days.-] {+days of delivery.+}\n" in stale.out, stale.out
    again = must(ws, "snapshot", "--rev", first)
    assert again.out.startswith(f"snapshot {old}: 1 document, 4 sections (1 file(s) read); ")
    commit(repo, "the snapshots, and the set")
    # A shallow clone lacks the commit the old text is at: same verdict, and it says why
    # there is no diff (not that the corpus had uncommitted changes then).
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    cut = evalset(shallow / "evals", "stale")
    assert cut.code == 1
    assert (
        f"(no text to compare: the snapshots do not store text, and commit {first[:10]}, where "
        f"snapshot {old} was taken, is not in this shallow clone (fetch the whole history: "
        "`git fetch --unshallow --tags`"
    ) in cut.out


def test_a_hook_in_a_worktree_checks_the_workspace_below_the_top(sub_origin: Checkouts) -> None:
    """A real `git commit` in a linked worktree, whose pre-commit hook (run from the top, as
    pre-commit runs hooks, with the GIT_DIR and GIT_INDEX_FILE git exports to it) runs the
    published hooks on a workspace in a subfolder: flip's unrecorded holdout move fails the
    commit."""
    import subprocess

    checkout = worktree(sub_origin.origin, sub_origin.root / "hooked")
    program = Path(sys.executable).with_name("evalset")
    hook_file = Path(git(checkout, "rev-parse", "--git-path", "hooks").strip())
    hook_file = (hook_file if hook_file.is_absolute() else checkout / hook_file) / "pre-commit"
    hook_file.parent.mkdir(parents=True, exist_ok=True)
    hook_file.write_text(
        f"#!/bin/sh\n{program} validate evals/sets/flip.yaml && {program} -C evals stale\n"
    )
    hook_file.chmod(0o755)
    docs = checkout / "evals/sets/docs.yaml"
    docs.write_text(docs.read_text() + "# a comment\n")
    head = git(checkout, "rev-parse", "HEAD")
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", "commit", "-qam", "a comment"], cwd=checkout, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode != 0, done
    assert "moved from holdout to tuning since release 0.1.0" in done.stdout + done.stderr
    assert git(checkout, "rev-parse", "HEAD") == head


def test_verify_from_header_where_the_history_ends(tmp_path: Path) -> None:
    """`verify --from-header` reads which items the set held when its header's snapshot was
    recorded; where a shallow clone's history ends first, it cannot tell and says so."""
    repo = tmp_path / "repo"
    start_repo(repo, repo, "[validate]\nmin_per_category = 0\n")
    commit(repo, "corpus")
    snap = json.loads(must(repo, "snapshot", "--json").out)["snapshot"]
    path = repo / "sets/docs.yaml"
    header = HEADER.format(name="docs").replace("items:\n", f"snapshot: {snap}\nitems:\n")
    path.write_text(header + item("a", RETURNS))
    commit(repo, "adopted")
    path.write_text(path.read_text() + item("b", REFUNDS))
    commit(repo, "an item written later")
    full = tmp_path / "full"
    git(tmp_path, "clone", "-q", f"file://{repo}", str(full))
    assert "left unverified (added after it was recorded): b" in (
        must(full, "verify", "docs", "--from-header").out
    )
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    before = (shallow / "sets/docs.yaml").read_text()
    done = evalset(shallow, "verify", "docs", "--from-header")
    assert done.code == 2
    assert "this shallow clone's history ends while the header still names snapshot" in done.err
    assert "`git fetch --unshallow --tags`" in done.err
    assert (shallow / "sets/docs.yaml").read_text() == before


def test_a_dvc_corpus_not_pulled_is_named_as_such(dvc_origin: Checkouts) -> None:
    for name in ("dvc, not pulled", "dvc, pull failed"):
        checkout = dvc_origin.fresh(dvc_origin.situations[name])
        state = "missing" if name == "dvc, not pulled" else "empty"
        done = evalset(checkout, "snapshot")
        assert (done.code, done.err.strip()) == (
            2,
            f"evalset: corpus: the corpus folder is tracked by DVC in corpus.dvc and {state} "
            "here (not pulled); run `dvc pull`, then take the snapshot.",
        )
        assert not list((checkout / "snapshots").glob("*.json.*"))  # nothing half-written
        stale = json.loads(must(checkout, "stale", "--json").out)
        assert stale["newest"]["corpus"] == "absent" and stale["newest"]["rule"] == "commit"
        assert (
            f"corpus.dvc and {state} here (not pulled): run `dvc pull`"
            in (stale["newest"]["reason"])
        )


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a checkout to another user")
def test_a_checkout_git_refuses_is_never_read_as_outside_git(root_origin: Checkouts) -> None:
    checkout = root_origin.checkout(root_origin.situations["another owner"], writes=False)
    done = evalset(checkout, "validate", "sets/flip.yaml")
    assert done.code == 2
    assert done.err.strip() == (
        f"evalset: {checkout.resolve()}: git refuses to read this repository, which another "
        'user owns ("detected dubious ownership"), so its history, tags and committed files '
        "cannot be compared with; mark it safe: `git config --global --add safe.directory "
        f"{checkout.resolve()}` (in a container job, after the checkout)."
    )
