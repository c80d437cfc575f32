"""Releases of a set: tagging a checked version and listing the releases.

A release writes ``version`` and ``fingerprint`` into the set's header, commits that one
file, and creates the annotated tag ``evalset/NAME/vX.Y.Z`` whose message records the pin
(fingerprint, snapshot, counts). Tags are never moved or overwritten. A release stopped
after writing the header (before its commit or its tag) is completed by running
``evalset release`` again, and the whole release holds the set's edit lock.
"""

from __future__ import annotations

import json
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalset.config import Workspace, require_own
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SHORT, SnapshotStore
from evalset.errors import EvalsetError
from evalset.git import PIN_LINE, Git, GitError, Tag, Version, tag_name
from evalset.gitcmd import FETCH_HISTORY, GitUnusable
from evalset.sets.editor import SetEditor, edit_set
from evalset.sets.fingerprint import set_fingerprint
from evalset.sets.lock import SetLock, set_lock
from evalset.sets.setfile import SetFile, parse_set
from evalset.versions.diff import SetDiff, diff_sets
from evalset.versions.history import SetAt, SetHistory
from evalset.versions.pin import pin_of, recorded_format
from evalset.workspace import display_path

if TYPE_CHECKING:
    from evalset.sets.validate import Baseline


class ReleaseRefused(EvalsetError):
    """The set is not in a state that can be released; the message says what to do."""

    exit_code = 1


@dataclass
class ReleaseResult:
    set: str
    version: str
    tag: str
    commit: str
    fingerprint: str
    snapshot: str | None
    changes: SetDiff | None
    """What changed since the previous release (None for the first)."""
    completed: bool = False
    """True when this run only tagged a release whose commit an earlier run had made."""
    detached: bool = False
    remote: str | None = None
    """The remote a plain `git push` would send the branch to (None where none is chosen)."""


def _tag_message(pin: dict[str, Any], changes: SetDiff | None) -> str:
    counts = pin["items"]
    per_category = ", ".join(f"{c} {n}" for c, n in counts["categories"].items())
    lines = [
        f"evalset release {pin['set']} {pin['version']}",
        "",
        f"fingerprint: {pin['fingerprint']}",
        f"snapshot: {pin['snapshot'] or 'none'}",
        f"items: {counts['total']} active ({counts['holdout']} holdout); {per_category}",
        f"changes: {changes.summary() if changes else 'first release'}",
        PIN_LINE + json.dumps({k: v for k, v in pin.items() if k != "item_fingerprints"}),
    ]
    return "\n".join(lines) + "\n"


def _commit_message(name: str, version: str, changes: SetDiff | None, since: str | None) -> str:
    lines = [f"Release {name} {version}", ""]
    if changes is None:
        lines.append("First release of the set.")
    else:
        lines.append(f"Since {since}: {changes.summary()}.")
        for label, ids in (
            ("added", changes.added),
            ("removed", changes.removed),
            ("retired", changes.retired),
        ):
            if ids:
                lines.append(f"- {label}: {', '.join(ids)}")
        again = changes.reverified
        for item in changes.changed:
            if item.id not in again:
                fields = sorted({c.field.split("[")[0].split(".")[0] for c in item.changes})
                lines.append(f"- changed {item.id}: {', '.join(fields)}")
        if again:  # checked against a new snapshot, labels untouched: one line for them all
            lines.append(f"- re-verified: {', '.join(again)}")
        for move in changes.holdout_moves:
            lines.append(f"- MOVED {move.id} from {move.old} to {move.new}")
    return "\n".join(lines) + "\n"


def _relevant_snapshots(store: SnapshotStore, loaded: SetFile, newest: str | None) -> list[Path]:
    refs = {loaded.header.snapshot} if loaded.header and loaded.header.snapshot else set()
    refs.update(item.verified for item in loaded.items if item.verified)
    idents = {newest} if newest else set()
    for ref in refs:
        try:
            ident = store.resolve(ref)
        except EvalsetError:
            ident = None
        if ident:
            idents.add(ident)
    return [store.folder / f"{ident}.json" for ident in sorted(idents)]


def _refuse_unless_releasable(
    ws: Workspace,
    history: SetHistory,
    loaded: SetFile,
    exclude_drafts: bool,
    interrupted: bool,
    uncommitted: bool,
) -> str | None:
    """Check everything a release requires; returns the newest snapshot id. ``interrupted``:
    a release of this set was stopped; ``uncommitted``: before its commit, so the set file
    holds the header it wrote (not a change). A release stopped as git committed leaves the
    file as the commit has it and the index behind: not a change either (only then: an
    index a user changed is theirs, and a release commit would overwrite it)."""
    from evalset.sets.validate import check_set, holdout_baseline
    from evalset.staleness.stale import StaleChecker

    name, path = loaded.name, history.path
    if path.resolve().parent != ws.sets_dir.resolve():
        raise ReleaseRefused(
            f"{path}: cannot release {name} from outside the workspace's sets folder "
            f"({display_path(ws.sets_dir)}), where `check-pin`, `log` and `diff` find a set's "
            f"releases by its name; move it there (git mv), commit, and run the release again."
        )
    store = workspace_store(ws)
    newest = store.newest()
    choice = store.newest_choice()
    if newest is not None and choice is not None and choice.corpus_changed:
        raise ReleaseRefused(
            f"{path}: cannot release {name} while the corpus has changed since the newest "
            f"snapshot, {newest.short}: the release would name a snapshot that is not the "
            "corpus it ships with, and items citing what changed would not be found stale; "
            f"run `evalset snapshot`, review `evalset stale {name}`, commit, and release again."
        )
    if newest is not None and choice is not None and choice.corpus_missing:
        raise ReleaseRefused(
            f"{path}: cannot release {name} while the corpus folder "
            f"{display_path(ws.corpus_dir)} is not here: the release would name snapshot "
            f"{newest.short} without a corpus to tell whether it ships with it; bring the "
            "folder back (or set `corpus` in evalset.toml to where it is), commit, and release "
            "again."
        )
    paths = [path, *_relevant_snapshots(store, loaded, newest.id if newest else None)]
    outside = [p for p in paths if history.git.rel(p).startswith("../")]
    if outside:  # no commit can hold them, so no tag
        raise ReleaseRefused(
            f"{path}: cannot release {name} while {outside[0]} lies outside the git repository "
            f"({history.git.root}), which commits, tags and merges the set and its snapshots; "
            f"put the sets and snapshots folders inside it (`sets` and `snapshots` in "
            f"{ws.config_file.name}) and run the release again."
        )
    dirty = history.git.uncommitted_states([history.git.rel(p) for p in paths])
    if uncommitted or (interrupted and history.git.as_head(history.rel)):
        dirty = [(rel, kind) for rel, kind in dirty if rel != history.rel]
    ignored = [rel for rel, kind in dirty if kind == "ignored"]
    if ignored:  # never in any commit: every clone would lack what the set was verified on
        one = len(ignored) == 1
        raise ReleaseRefused(
            f"{path}: cannot release {name} while git ignores {', '.join(ignored)} (a "
            f".gitignore rule: `git check-ignore -v {ignored[0]}` names it), so no clone would "
            f"have {'it' if one else 'them'}; add {'it' if one else 'them'} anyway (git add -f "
            f"{' '.join(ignored)}) or change the rule, commit, and run the release again."
        )
    new = [rel for rel, kind in dirty if kind == "new"]
    if new:  # `git commit -a` leaves a new snapshot out: say so, not "uncommitted changes"
        one = len(new) == 1
        raise ReleaseRefused(
            f"{path}: cannot release {name} while {', '.join(new)} "
            f"{'is' if one else 'are'} not in git yet ({'a new file' if one else 'new files'}, "
            f"which `git commit -a` does not add); add and commit {'it' if one else 'them'} "
            f"(git add {' '.join(new)}, git commit) and run the release again."
        )
    if dirty:
        changed = [r for r, _ in dirty]
        raise ReleaseRefused(
            f"{path}: cannot release {name} while {', '.join(changed)} "
            f"{'has' if len(changed) == 1 else 'have'} uncommitted changes; commit them (git "
            "add, git commit) and run the release again."
        )
    baseline = holdout_baseline(path, loaded.name, loaded)
    # sealed_before=[]: a holdout item in plain text beside sealed ones would be published
    errors = check_set(
        loaded, ws.config.validate, store, baseline, True, sealed_before=[], by_file=True
    )
    if errors:
        raise ReleaseRefused(
            f"{path}: cannot release {name} with {len(errors)} validation error(s) (first: "
            f"{errors[0]}); fix them (`evalset validate {display_path(path)}`) and run the "
            "release again."
        )
    _refuse_a_holdout_unsealed_since(path, loaded, baseline)
    if loaded.sealed:
        from evalset.sets.sealed import key_to_open

        raise ReleaseRefused(
            f"{path}: cannot release {name} while {len(loaded.sealed)} sealed item(s) cannot "
            f"be checked; {key_to_open()} and run the release again."
        )
    if newest is not None:
        stale, unverified = StaleChecker(store, newest, ws.root).stale_items(loaded)
        if unverified:
            ids = ", ".join(unverified[:5]) + (", …" if len(unverified) > 5 else "")
            raise ReleaseRefused(
                f"{path}: cannot release {name} with {len(unverified)} item(s) verified against "
                f"no snapshot ({ids}); check them, then `evalset verify {name} ITEM…`."
            )
        if stale:
            ids = ", ".join(s.id for s in stale[:5]) + (", …" if len(stale) > 5 else "")
            raise ReleaseRefused(
                f"{path}: cannot release {name} with {len(stale)} stale item(s) ({ids}); "
                f"review them with `evalset stale {name}`, then `evalset verify {name} ITEM…`."
            )
    drafts = [item.id for item in loaded.items if item.status == "draft"]
    if drafts and not exclude_drafts:
        ids = ", ".join(drafts[:5]) + (", …" if len(drafts) > 5 else "")
        raise ReleaseRefused(
            f"{path}: cannot release {name} with {len(drafts)} draft item(s) ({ids}); make them "
            "active or retire them, or pass --exclude-drafts to release without them."
        )
    return newest.id[:SHORT] if newest else None


def _refuse_a_holdout_unsealed_since(
    path: Path, loaded: SetFile, baseline: Baseline | None
) -> None:
    """A set whose holdout was sealed at its last release and is in plain text now: the
    release would publish the holdout questions that one kept from the people tuning prompts
    (`validate` catches it before a commit; a commit made without it is caught here)."""
    if baseline is None or baseline.set is loaded or baseline.label == "HEAD":
        return
    then, label = baseline.set, baseline.label
    if not (then.sealed or then.opened):
        return  # a holdout never sealed at that release
    plain = [
        item.id
        for k, item in zip(loaded.item_index, loaded.items, strict=True)
        if item.holdout and item.status != "retired" and k not in loaded.opened
    ]
    if plain:
        ids = ", ".join(plain[:5]) + (", …" if len(plain) > 5 else "")
        stubs = [*then.sealed, *then.opened.values()]
        keys = " ".join(f"--recipient {key}" for key in stubs[-1].sealed.recipients)
        raise ReleaseRefused(
            f"{path}: cannot release {loaded.name} while {len(plain)} holdout item(s) are in "
            f"plain text ({ids}), though its holdout was sealed at {label}: the release would "
            f"publish them; seal them again (`evalset seal {loaded.name} {keys}`, the keys of "
            f"{label}), commit, and run the release again."
        )


def _next_version(history: SetHistory, bump: str | None, version: str | None) -> Version:
    if history.git.shallow:  # GitLab's GIT_DEPTH fetches only the tags among its commits
        raise GitUnusable(
            f"{history.path}: this clone is shallow, so it may lack release tags of "
            f"{history.name} made on commits it did not fetch, and which version comes next "
            f"cannot be told here (it may be released already); {FETCH_HISTORY}."
        )
    latest = history.latest()
    current = Version.parse(latest.version) if latest else None
    if version is not None:
        wanted = Version.parse(version)
        if wanted is None:
            raise EvalsetError(f"{version!r} is not a version; give X.Y.Z, e.g. 1.2.0.")
        if history.release(str(wanted)) is not None:
            raise ReleaseRefused(
                f"{history.path}: {history.name} {wanted} is released already (tag "
                f"{tag_name(history.name, str(wanted))}); tags are never moved, so choose a "
                "new version."
            )
        if current is not None and wanted <= current:
            raise ReleaseRefused(
                f"{history.path}: {wanted} is not after the latest release {current}; "
                f"choose a higher version or use --bump."
            )
        return wanted
    if bump not in ("major", "minor", "patch"):
        raise EvalsetError("say which version to release: --bump major|minor|patch or --version.")
    return (current or Version(0, 0, 0)).bump(bump)


def release(
    ws: Workspace,
    path: Path,
    bump: str | None = None,
    version: str | None = None,
    exclude_drafts: bool = False,
) -> ReleaseResult:
    """Release a set: check it, record version and fingerprint, commit, tag. All of it
    holds the set's edit lock, so that two releases at once (or a release and an edit)
    run one after the other."""
    if bump is not None and version is not None:
        raise EvalsetError(
            f"{path}: give either bump ({bump!r}) or version ({version!r}), not both: a "
            "release has one version."
        )
    if bump not in (None, "major", "minor", "patch"):
        raise EvalsetError(f"{path}: bump must be major, minor or patch, not {bump!r}.")
    path = require_own(ws, path, "release")
    with set_lock(path) as held:
        return _release(ws, path, bump, version, exclude_drafts, held)


def _release(
    ws: Workspace,
    path: Path,
    bump: str | None,
    version: str | None,
    exclude_drafts: bool,
    held: SetLock,
) -> ReleaseResult:
    history = SetHistory(ws, path)
    git = history.git
    loaded = history.current
    fingerprint = set_fingerprint(loaded)
    header = loaded.header
    latest = history.latest()
    if latest is not None and latest.pin is None:
        raise ReleaseRefused(
            f"{path}: the latest release tag of {loaded.name}, {latest.name}, was not made by "
            "`evalset release` (it records no pin), so a release cannot build on it; if it "
            f"was made by mistake, delete it (`git tag -d {latest.name}`) and release again."
        )
    # A release stopped after writing the header (before its commit, or before its tag) is
    # completed by running it again: the header names a version not released yet, and the
    # record the release kept in .git says it was on its way (a clone without the tags
    # fetched looks the same otherwise).
    pending = git.pending_release(loaded.name)
    interrupted = (
        header is not None
        and header.version is not None
        and header.fingerprint == fingerprint
        and history.release(header.version) is None
        and pending is not None
        and pending.get("version") == header.version
        and pending.get("fingerprint") == fingerprint
        and (latest is None or Version.parse(header.version) > Version.parse(latest.version))  # type: ignore[operator]
    )
    uncommitted = interrupted and _written_not_committed(history, loaded, fingerprint)
    snapshot = _refuse_unless_releasable(
        ws, history, loaded, exclude_drafts, interrupted, uncommitted
    )
    assert header is not None
    ours = history.ours()  # this branch's last release: what its notes count changes from
    previous = history.at_release(ours) if ours else None
    changes = (
        diff_sets(released_content(previous.loaded), released_content(loaded), previous.label,
                  "release")
        if previous
        else None
    )  # fmt: skip
    if changes is not None and ours is not None:
        changes.snapshots = ((ours.pin or {}).get("snapshot"), snapshot)
    if interrupted:
        assert header.version is not None
        new_version = header.version
    else:
        # this branch's last release, then the highest (made on a detached HEAD, say, and
        # not merged since: the same content released again would be a second version)
        for made in dict.fromkeys(t for t in (ours, latest) if t is not None):
            state = previous if made is ours else history.at_release(made)
            if (
                state is None
                or not _same_content(state.loaded, fingerprint)
                or (made.pin or {}).get("snapshot") != snapshot
            ):
                continue
            named = f"release {header.version}" if header.version else "no release"
            missing = (
                f"; but this branch lacks its release commit, so its set file names {named}: "
                f"merge it (`git merge {made.name}`)"
                if header.version != made.version
                else ""
            )
            raise ReleaseRefused(
                f"{path}: {loaded.name} has not changed since release {state.label} (same "
                f"content, same snapshot {snapshot}); there is nothing to release{missing}."
            )
        new_version = str(_next_version(history, bump, version))
    pin = pin_of(loaded, snapshot)
    pin["version"] = new_version
    tag = tag_name(loaded.name, new_version)
    _check_tag_name(git, path, tag)
    if interrupted and not uncommitted:
        assert pending is not None
        commit = pending.get("commit") or git.last_commit_of(history.rel)
        assert isinstance(commit, str)
        try:
            git.index_as_head(history.rel)
        except GitError as exc:
            locked = _git_locked(str(exc))
            raise EvalsetError(
                f"{path}: cannot finish the release {locked}"
                if locked
                else f"{path}: cannot finish the release ({exc}); fix the cause and run it again."
            ) from None
    else:
        record = {"version": new_version, "fingerprint": fingerprint}
        git.record_release(loaded.name, record)
        commit = _commit_release(
            git, history, loaded, new_version, fingerprint, changes, previous, held, uncommitted
        )
        git.record_release(loaded.name, {**record, "commit": commit})
    _create_tag(git, tag, commit, _tag_message(pin, changes))
    git.record_release(loaded.name, None)
    detached = git.run("rev-parse", "--abbrev-ref", "HEAD").strip() == "HEAD"
    return ReleaseResult(
        loaded.name,
        new_version,
        tag,
        commit,
        fingerprint,
        snapshot,
        changes,
        interrupted,
        detached,
        git.push_remote(),
    )


def released_content(loaded: SetFile) -> SetFile:
    """``loaded`` without its drafts, which are never part of a release: the notes of a
    release made with --exclude-drafts list no draft as added (nor a draft made active
    since as anything but added)."""
    import dataclasses

    kept = [(item, k) for item, k in zip(loaded.items, loaded.item_index, strict=True)
            if item.status != "draft"]  # fmt: skip
    stubs = [(stub, k) for stub, k in zip(loaded.sealed, loaded.sealed_index, strict=True)
             if stub.status != "draft"]  # fmt: skip
    return dataclasses.replace(
        loaded,
        items=[item for item, _ in kept],
        item_index=[k for _, k in kept],
        sealed=[stub for stub, _ in stubs],
        sealed_index=[k for _, k in stubs],
    )


def _same_content(previous: SetFile, fingerprint: str) -> bool:
    try:
        return set_fingerprint(previous) == fingerprint
    except EvalsetError:
        return False


def _written_not_committed(history: SetHistory, loaded: SetFile, fingerprint: str) -> bool:
    """Whether the set file differs from its last commit by exactly the version and
    fingerprint a release writes: a release stopped before its commit."""
    header = loaded.header
    if header is None or header.version is None:
        return False
    try:
        committed = history.git.show("HEAD", history.rel)
        if committed is None:
            return False
        committed = committed.removeprefix("\ufeff")
        editor = SetEditor(parse_set(committed, history.path))
    except EvalsetError:
        return False
    editor.set_header("version", header.version)
    editor.set_header("fingerprint", fingerprint)
    return committed != loaded.text == editor.render()


def _commit_release(
    git: Git,
    history: SetHistory,
    loaded: SetFile,
    version: str,
    fingerprint: str,
    changes: SetDiff | None,
    previous: SetAt | None,
    held: SetLock,
    written: bool = False,
) -> str:
    """Write version and fingerprint into the header (``written``: a stopped release wrote
    them) and commit that file alone; if the commit fails, the file is put back as it was."""
    import git as gitpython

    path = history.path
    original = loaded.text
    if not written:
        with edit_set(path, held=held) as editor:
            editor.set_header("version", version)
            editor.set_header("fingerprint", fingerprint)
    message = _commit_message(loaded.name, version, changes, previous.label if previous else None)
    repo = gitpython.Repo(git.root)
    try:
        # `git commit -- PATH` commits that file only, whatever else is staged.
        repo.git.commit("-q", "-m", message, "--", history.rel)
    except gitpython.GitCommandError as exc:
        from evalset.fsio import atomic_write

        if not written:
            atomic_write(path, ("\ufeff" if loaded.bom else "") + original)
            git.record_release(loaded.name, None)
        if exc.status == -signal.SIGINT:  # Ctrl-C reached git too: the file is put back
            raise KeyboardInterrupt from None
        raise EvalsetError(_commit_failed(path, exc)) from None
    return repo.head.commit.hexsha


def _commit_failed(path: Path, exc: Any) -> str:
    """One sentence for a release commit git refused."""
    detail = " ".join(f"{exc.stderr or ''} {exc.stdout or ''}".split())
    detail = re.sub(r"\b(stderr|stdout): ", "", detail).replace("'", "").strip() or str(exc)
    locked = _git_locked(detail)
    if locked:
        return f"{path}: the release commit failed {locked}"
    pending = re.search(r"partial commit during an? (merge|cherry-pick|revert)\b", detail)
    if pending:  # git commits one file alone only outside them
        what = pending.group(1)
        return (
            f"{path}: the release commit failed because a git {what} is in progress; the file "
            f"is unchanged. Finish it (`git commit`) or abort it (`git {what} --abort`), then "
            "run the release again."
        )
    return (
        f"{path}: the release commit failed ({detail}); the file is unchanged. Fix the cause "
        "(e.g. set user.name and user.email) and run the release again."
    )


def _git_locked(detail: str) -> str | None:
    """When git's error ``detail`` is a lock file left in its folder, the end of the sentence
    that says so: "because ... run the release again." A git killed while it wrote its
    index, HEAD, a branch or a tag leaves one, and only the user can tell whether another
    git is still running."""
    found = re.search(r"Unable to create '?(\S+?\.lock)'?:", detail)
    if found is None:
        return None
    lock = found.group(1)
    held = "git's index is locked" if lock.endswith("index.lock") else "a git lock is held"
    return (
        f"because {held} ({lock} exists): another git command is running, or one was stopped "
        "before it finished; when none is running, delete that file and run the release again."
    )


def _check_tag_name(git: Git, path: Path, tag: str) -> None:
    """Refuse, before anything is committed, a release whose tag git would not create."""
    import subprocess

    done = subprocess.run(
        ["git", "check-ref-format", f"refs/tags/{tag}"], cwd=git.root, capture_output=True
    )
    if done.returncode != 0:
        raise ReleaseRefused(
            f"{path}: git cannot name a tag {tag!r}; rename the set (its `name:`) so that it "
            "does not start or end with '.', contain '..' or end with '.lock', then release."
        )


def _create_tag(git: Git, tag: str, commit: str, message: str) -> None:
    import git as gitpython

    repo = gitpython.Repo(git.root)
    if tag in [t.name for t in repo.tags]:
        raise ReleaseRefused(f"{git.root}: tag {tag} exists already; tags are never moved.")
    try:
        repo.create_tag(tag, ref=commit, message=message)
    except gitpython.GitCommandError as exc:
        detail = " ".join((exc.stderr or "").split()).removeprefix("stderr: ").strip("'")
        locked = _git_locked(detail)
        if locked:
            raise EvalsetError(
                f"{git.root}: the release commit {commit[:12]} was made, but not its tag {tag}, "
                f"{locked}"
            ) from None
        raise EvalsetError(
            f"{git.root}: the release commit {commit[:12]} was made, but git could not create "
            f"its tag {tag} ({detail or exc}); fix the cause (for a signed tag, a signing key "
            "or `git config tag.gpgSign false`) and run the same release command again: it "
            "finishes the release."
        ) from None


# ---------------------------------------------------------------------------------------
# Log


@dataclass
class LogEntry:
    version: str
    date: str
    tag: str
    commit: str
    fingerprint: str
    """As its tag records it (in the fingerprint format of its time)."""
    snapshot: str | None
    items: dict[str, Any]
    summary: str
    """What changed since the previous release, in one line."""
    fingerprint_format: int = 1
    since: str | None = None
    """The release it was compared with: the latest one its commit descends from."""

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "date": self.date,
            "tag": self.tag,
            "commit": self.commit,
            "fingerprint": self.fingerprint,
            "fingerprint_format": self.fingerprint_format,
            "snapshot": self.snapshot,
            "items": self.items,
            "summary": self.summary,
            "since": self.since,
        }


def release_log(ws: Workspace, path: Path) -> list[LogEntry]:
    """Every release of a set, oldest first, each compared with the release before it in its
    own history: the highest earlier version whose commit it descends from (releases made
    on two branches are in version order, but one did not come from the other)."""
    history = SetHistory(ws, path)
    entries: list[LogEntry] = []
    released: list[tuple[Tag, SetAt]] = []  # the releases so far, oldest first
    for tag in history.releases:
        if tag.pin is None:  # a tag evalset/NAME/vX.Y.Z made by hand, anywhere: no release
            try:
                state = history.at_tag(tag)
            except EvalsetError:  # on a commit without the set: nothing of it to count
                continue
        else:
            state = history.at_release(tag)
        recorded = tag.pin or {}
        snapshot = recorded.get("snapshot")
        previous = _released_before(history.git, released, tag) if tag.pin else None
        summary = "first release" if not released else "first release on its branch"
        if tag.pin is None:  # a tag evalset/NAME/vX.Y.Z made by hand: no release
            summary = (
                f"not a release: a tag made by hand (it records no pin; `git tag -d {tag.name}` "
                "deletes it)"
            )
        elif previous is None and not history.git.history_complete(tag.commit):
            # Older releases may exist where this clone's history ends.
            summary = (
                "earliest release in this shallow clone (older history is missing: "
                "git fetch --unshallow --tags)"
            )
        elif previous is not None:
            # what the release notes said: drafts are never part of a release
            before, at = previous
            changes = diff_sets(
                released_content(at.loaded),
                released_content(state.loaded),
                at.label,
                tag.version,
            )
            changes.snapshots = ((before.pin or {}).get("snapshot"), snapshot)
            summary = changes.summary()
            if before is not released[-1][0]:
                summary += f" (since {before.version}, the release it came from)"
        fmt = recorded_format(recorded)
        pinned = pin_of(state.loaded, snapshot, items=False, fmt=fmt)
        entries.append(
            LogEntry(
                tag.version,
                tag.date,
                tag.name,
                tag.commit,
                recorded.get("fingerprint") or pinned["fingerprint"],
                snapshot,
                pinned["items"],
                summary,
                fmt,
                previous[0].version if previous else None,
            )
        )
        if tag.pin is not None:
            released.append((tag, state))
    return entries


def _released_before(
    git: Git, released: list[tuple[Tag, SetAt]], tag: Tag
) -> tuple[Tag, SetAt] | None:
    """The latest of ``released`` that ``tag``'s commit descends from (most often the one
    just before it, so one question to git). Where the history ends in a shallow clone
    (tags fetched at depth 1, say), git cannot tell: the one listed before it, then."""
    for before in reversed(released):
        if git.holds(before[0].commit, tag.commit):
            return before
    if released and not git.history_complete(tag.commit):
        return released[-1]
    return None
