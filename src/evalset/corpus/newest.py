"""Which snapshot is the newest: the corpus as it is now, else the latest commit.

"Newest" is what staleness compares against, what ``verify`` records and what a pin names,
so it must be a fact about the corpus, never about which command ran last, and it must
come out the same in a fresh clone (where no cache exists) as in the workspace that took
the snapshots. The rules, in order:

1. **The corpus as it is now**: the snapshot whose content id is the working tree's corpus
   (computed by the caller, through the stat cache; see ``evalset.corpus.current``).
2. **The latest commit**: else, of the manifests whose recorded ``commit`` is in the
   history of HEAD, the one whose commit comes first in ``git rev-list --topo-order HEAD``.
   At one commit, a snapshot of the working tree (``rev`` null: taken on top of that commit,
   with changes not committed yet) comes after the snapshot of the commit itself, and
   several working-tree ones in the order they were first recorded (``created``). A
   manifest of a working tree taken at a commit HEAD's history does not hold (on a branch
   merged by squash or rebase, which rewrite its commits) counts from the commit of that
   history that added its file: the squash commit brought it, so it is as new as that (a
   snapshot of a revision, ``snapshot --rev``, stays as old as its commit).
3. **The first recorded last**: else (no git, or no manifest taken at a commit of this
   history), by ``created``, then id.

A manifest is never rewritten for content it already records, so ``created``, ``commit``
and ``rev`` say when and where that content was first seen: taking a snapshot of an old
revision, or of a corpus put back as it was, changes no manifest and no ordering.

Manifests are untrusted input: their ``commit`` is only compared with what git prints,
never passed to git.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evalset import gitcmd

Rule = Literal["corpus", "commit", "created"]
CorpusState = Literal["matches", "changed", "absent", "unreadable", "unknown"]
"""What the working tree's corpus told: it is one of the snapshots; it is none of them (it
changed since); there is no corpus folder here; it could not be read; it was not looked at
(a store made without a workspace)."""

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class Current:
    """The working tree's corpus: its content id, or why it is not known."""

    state: CorpusState
    id: str | None = None
    note: str | None = None
    """For ``unreadable``: the reason; for ``absent``, when git or DVC keeps the corpus
    elsewhere: what follows "the corpus folder " (``evalset.corpus.tracked``)."""
    fix: str | None = None
    """For ``absent`` with a note: the command that brings the corpus here."""


NOT_LOOKED = Current("unknown")


@dataclass(frozen=True)
class Newest:
    """The newest snapshot and the rule that chose it."""

    id: str
    rule: Rule
    corpus: CorpusState
    """What the working tree's corpus told (see ``CorpusState``)."""
    commit: str | None = None
    """For the ``commit`` rule: the commit the snapshot was taken at."""
    note: str | None = None
    fix: str | None = None

    @property
    def short(self) -> str:
        return self.id[:12]

    @property
    def reason(self) -> str:
        """Why this snapshot, in a few words a report can print after its id."""
        if self.rule == "corpus":
            return "the corpus as it is now"
        if self.rule == "commit":
            why = f"taken at commit {(self.commit or '')[:10]}, the latest with a snapshot"
        else:
            why = "the one recorded last"
        if self.corpus == "changed":
            return f"{why}; the corpus has changed since: run `evalset snapshot`"
        if self.corpus == "absent" and self.note:
            return f"{why}; the corpus folder {self.note}: run {self.fix} to compare"
        if self.corpus == "absent":
            return f"{why}; no corpus folder here to compare"
        if self.corpus == "unreadable":
            return f"{why}; the corpus could not be read ({self.note})"
        return why

    @property
    def corpus_changed(self) -> bool:
        return self.corpus == "changed"

    @property
    def corpus_away(self) -> bool:
        """Whether the corpus is not (wholly) here to tell which snapshot it is: kept
        elsewhere and not brought in (``fix`` says how), or not readable."""
        return self.fix is not None or self.corpus == "unreadable"

    @property
    def corpus_missing(self) -> bool:
        """Whether there is no corpus folder here, and nothing (DVC, a submodule, a sparse
        checkout…) that keeps it elsewhere: deleted, or moved away."""
        return self.corpus == "absent" and self.fix is None

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.short,
            "rule": self.rule,
            "corpus": self.corpus,
            "commit": self.commit,
            "reason": self.reason,
        }


def first_in_history(repo: Path, commits: set[str], head: str = "HEAD") -> str | None:
    """Of ``commits``, the one ``git rev-list --topo-order HEAD`` lists first (the latest in
    history; descendants come before their ancestors), or None when none is in the history
    of ``head`` (or there is no git). The listing is read only up to the first hit."""
    return next(iter(history_positions(repo, commits, head, first=True)), None)


def history_positions(
    repo: Path, commits: set[str], head: str = "HEAD", first: bool = False
) -> dict[str, int]:
    """Where each of ``commits`` stands in ``git rev-list --topo-order HEAD`` (0: the latest),
    for those in the history of ``head``; none without git. Read up to the last one found
    (``first``: the first). A repository git refuses (another user owns it) is told."""
    if not commits:
        return {}
    try:
        proc = gitcmd.stream(repo, "rev-list", "--topo-order", head, "--")
    except OSError:
        return {}
    found: dict[str, int] = {}
    assert proc.stdout is not None and proc.stderr is not None
    with proc:
        for k, line in enumerate(proc.stdout):
            if line.strip() in commits:
                found[line.strip()] = k
                if first or len(found) == len(commits):
                    break
        if found:
            proc.kill()
        else:
            gitcmd.refused(repo, proc.stderr.read())
    return found


def ordered(
    abouts: Mapping[str, Mapping[str, Any]], repo: Path | None = None, head: str = "HEAD"
) -> list[str]:
    """Every manifest of ``abouts``, oldest first, by rules 2 and 3: those taken at a commit
    in the history of ``head`` by that history (at one commit, its own snapshot before those
    of its working tree, in the order first recorded), after all the others, which go by
    ``created``. The last is the one ``choose`` picks when the corpus is not looked at: a
    snapshot of an old revision recorded today is as old as its commit."""

    def created(ident: str) -> str:
        value = abouts[ident].get("created")
        return value if isinstance(value, str) else ""

    commits = {
        c for a in abouts.values() if isinstance(c := a.get("commit"), str) and _COMMIT.match(c)
    }
    position = history_positions(repo, commits, head) if repo is not None else {}

    # (a snapshot of a revision, `snapshot --rev`, is as old as its commit wherever it is
    # recorded: only one of a working tree was brought by the merge of its branch)
    missing = {
        i for i, a in abouts.items() if a.get("commit") not in position and a.get("rev") is None
    }
    added: dict[str, int] = {}
    if repo is not None and missing and position:  # brought by a commit of this history
        brought = _brought_by(repo, head, missing)
        where = history_positions(repo, set(brought.values()), head)
        added = {i: where[c] for i, c in brought.items() if c in where}

    def age(ident: str) -> tuple[bool, int, bool, str, str]:
        commit = abouts[ident].get("commit")
        if isinstance(commit, str) and commit in position:
            return True, -position[commit], abouts[ident].get("rev") is None, created(ident), ident
        if ident in added:
            return True, -added[ident], True, created(ident), ident
        return False, 0, False, created(ident), ident

    return sorted(abouts, key=age)


def _brought_by(
    folder: Path, head: str, idents: set[str], since: str | None = None
) -> dict[str, str]:
    """For manifests of the snapshots ``folder`` among ``idents``, the commit of the history
    of ``head`` (after ``since``, when given) that added its file, the latest such first."""
    span = f"{since}..{head}" if since else head
    try:
        done = gitcmd.run(
            folder, "log", "--diff-filter=A", "--format=%x00%H", "--name-only", "--relative",
            span, "--", ".",
        )  # fmt: skip
    except OSError:
        return {}
    if done.returncode != 0:
        return {}
    found: dict[str, str] = {}
    for record in done.stdout.split("\0")[1:]:
        commit, _, names = record.partition("\n")
        for name in names.split():
            ident = name.removesuffix(".json")
            if ident in idents and ident not in found:
                found[ident] = commit.strip()
    return found


def _merged_since(
    folder: Path, head: str, latest: str, abouts: Mapping[str, Mapping[str, Any]]
) -> tuple[str, str] | None:
    """A manifest added to the snapshots ``folder`` after commit ``latest`` and taken at a
    commit the history of ``head`` does not hold (a branch merged by squash or rebase): the
    one added last, with the commit that added it; None when there is none (the usual case:
    the manifests added since are ``latest``'s own). Git is asked once, and again only for
    such a manifest."""
    if not folder.is_dir() or (folder / ".git").exists():
        return None  # a store's folder, not the top of a repository (newest at a commit)
    newer = _brought_by(folder, head, set(abouts), latest)
    for ident, brought in newer.items():
        commit = abouts[ident].get("commit")
        if commit == latest or abouts[ident].get("rev") is not None:
            continue  # its own snapshot; or one of a revision, as old as that revision
        if isinstance(commit, str) and _COMMIT.match(commit):
            done = gitcmd.run(folder, "merge-base", "--is-ancestor", commit, head)
            if done.returncode == 0:
                continue  # in this history, older than ``latest``: not this case
        return ident, brought
    return None


class HistoryMissing(gitcmd.GitUnusable):
    """Which snapshot is the newest depends on history this shallow clone lacks (or, for
    ``ParallelSnapshots``, on which of two lines of history, which it does not tell)."""


class ParallelSnapshots(HistoryMissing):
    """The corpus matches none of the snapshots, and the latest of them were added on lines
    of history merged since: each holds its own line's changes, and none the other's."""


def _parallel(
    repo: Path, head: str, best: str, abouts: Mapping[str, Mapping[str, Any]], current: Current
) -> ParallelSnapshots | None:
    """The refusal when ``best``, the snapshot of a working tree the history rule chose, was
    added to the history of ``head`` beside another such snapshot rather than after it:
    neither commit that added them holds the other (two branches, each with a snapshot of
    its own, merged). Their commits and ``created`` still order them, but the corpus of the
    merge is neither: comparing with either would call the other line's changes stale, in
    reverse. None in the usual history, where the latest snapshots were added one after the
    other (git is asked twice, only when the corpus matches no snapshot)."""
    trees = {i for i, a in abouts.items() if a.get("rev") is None}
    if best not in trees or len(trees) < 2 or (current.state == "unknown" and head != "HEAD"):
        return None  # (a past commit's corpus, not looked at: chosen as it always was)
    brought = _brought_by(repo, head, trees)
    if best not in brought or len(set(brought.values())) < 2:
        return None
    done = gitcmd.run(repo, "merge-base", "--independent", *sorted(set(brought.values())))
    tips = done.stdout.split() if done.returncode == 0 else []
    if len(tips) < 2:
        return None
    latest = sorted((i for i, c in brought.items() if c in tips), key=lambda i: brought[i])
    shown = ", ".join(f"{i[:12]} (added in {brought[i][:10]})" for i in latest[:4])
    more = f" and {len(latest) - 4} more" if len(latest) > 4 else ""
    if current.state == "changed":
        why, fix = "the corpus matches none of the snapshots", "record the corpus as it is now"
    elif current.state == "absent" and current.note:
        why, fix = f"the corpus folder {current.note}", f"run {current.fix}, then record it"
    elif current.state == "absent":
        why, fix = "the corpus is not here to match", "bring the corpus here, then record it"
    elif current.state == "unreadable":
        why, fix = f"the corpus could not be read ({current.note})", "record it once it can be"
    else:  # a store made without its workspace's corpus
        why, fix = "the corpus is not looked at here", "record the corpus"
    return ParallelSnapshots(
        f"{repo}: {why}, and the latest snapshots were added on lines of history merged "
        f"since ({shown}{more}): each has the changes of its own line and none of the "
        f"other's, so none of them is the newest; {fix} with `evalset snapshot`, and commit "
        "that."
    )


def _history_missing(repo: Path, current: Current, head: str) -> HistoryMissing | None:
    """The refusal when the history rule found no snapshot's commit in the history of
    ``head`` because the clone is shallow there: a complete clone might find one, and
    would choose by it rather than by ``created``."""
    if not gitcmd.is_shallow(repo):
        return None
    done = gitcmd.run(repo, "rev-parse", "--verify", "-q", f"{head}^{{commit}}")
    if done.returncode == 0 and gitcmd.history_complete(repo, done.stdout.strip()):
        return None
    if current.state == "unknown":  # a revision's corpus, or a store without a workspace
        return HistoryMissing(
            f"{repo}: which snapshot is the newest at {head} is told by the commits the "
            f"snapshots were taken at, which this shallow clone lacks; {gitcmd.FETCH_HISTORY}."
        )
    if current.state == "absent" and current.note:
        why, other = f"its folder {current.note}", f", or bring the corpus here ({current.fix})"
    elif current.state == "absent":
        why, other = "it is not here", ""
    elif current.state == "changed":
        why, other = "it changed since", ", or record it (`evalset snapshot`) and commit that"
    else:
        why, other = f"it could not be read: {current.note}", ""
    return HistoryMissing(
        f"{repo}: the corpus matches none of the snapshots ({why}), and which of them is the "
        "newest is told by the commits they were taken at, which this shallow clone lacks; "
        f"{gitcmd.FETCH_HISTORY}{other}."
    )


def choose(
    abouts: Mapping[str, Mapping[str, Any]],
    current: Current = NOT_LOOKED,
    repo: Path | None = None,
    head: str = "HEAD",
) -> Newest | None:
    """The newest of the manifests whose headers are ``abouts`` (id -> header), by the rules
    of this module; ``repo`` is a folder in the git repository (None: no history rule)."""
    if not abouts:
        return None
    corpus = current.state
    if current.state == "matches" and current.id is not None and current.id in abouts:
        return Newest(current.id, "corpus", "matches")
    if current.state == "matches":  # matched a snapshot of another store
        corpus = "changed"

    def created(ident: str) -> str:
        value = abouts[ident].get("created")
        return value if isinstance(value, str) else ""

    if repo is not None:
        commits = {
            c for a in abouts.values() if isinstance(c := a.get("commit"), str) and _COMMIT.match(c)
        }
        latest = first_in_history(repo, commits, head)
        if latest is None and commits:
            missing = _history_missing(repo, current, head)
            if missing is not None:
                raise missing
        if latest is not None:
            at = [ident for ident, a in abouts.items() if a.get("commit") == latest]
            # The commit's own snapshot first, then those of its working tree.
            best = max(at, key=lambda i: (abouts[i].get("rev") is None, created(i), i))
            # a working tree's snapshot recorded after it, at another commit, may have come
            # with a squash merge; none (the usual case) asks git nothing more
            later = {
                i: a
                for i, a in abouts.items()
                if a.get("rev") is None and a.get("commit") != latest and created(i) > created(best)
            }
            merged = _merged_since(repo, head, latest, later) if later else None
            if merged is not None:
                return Newest(merged[0], "commit", corpus, merged[1], current.note, current.fix)
            parallel = _parallel(repo, head, best, abouts, current)
            if parallel is not None:
                raise parallel
            return Newest(best, "commit", corpus, latest, current.note, current.fix)
    best = max(abouts, key=lambda i: (created(i), i))
    return Newest(best, "created", corpus, None, current.note, current.fix)
