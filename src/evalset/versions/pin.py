"""Pins: the short record a report carries to name the set version, content fingerprint and
corpus snapshot it ran on, and checking a report's pin against the release tags."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.config import Workspace, as_workspace, require_own
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SHORT
from evalset.errors import EvalsetError, NoSetsFolder
from evalset.fsio import as_path
from evalset.git import Tag, TagsMissing, Version, tag_name
from evalset.gitcmd import FETCH_TAGS, GitUnusable
from evalset.sets.content import FINGERPRINT_FORMAT, FORMATS, sha256_of
from evalset.sets.fingerprint import item_fingerprints, newest_format, set_fingerprint
from evalset.sets.setfile import SetFile, load_set
from evalset.version import __version__
from evalset.versions.history import WORKTREE, SetHistory
from evalset.workspace import display_path

ITEM_DIGITS = 16
"""Item fingerprints in a pin are the first 16 hex digits of the item's sha256."""


def counts(loaded: SetFile) -> dict[str, Any]:
    """Item counts of the released content: total, holdout, per declared category."""
    items = [item for item in loaded.entries if item.status == "active"]
    per_category = Counter(item.category for item in items)
    declared = list(loaded.header.categories) if loaded.header else []
    extra = sorted(c for c in per_category if c is not None and c not in declared)
    return {
        "total": len(items),
        "holdout": sum(bool(item.holdout) for item in items),
        "categories": {c: per_category[c] for c in declared + extra},
    }


def released_as(
    loaded: SetFile, released: SetFile | None = None, known: dict[int, str] | None = None
) -> bool:
    """Whether ``loaded`` still has the content of the release its header names: its
    fingerprint is the header's, in the current format or in format 1 (releases made by
    evalset 0.1); failing that, its content equals ``released`` (the set at the release's
    tag, when known), so that provenance added since a format-1 release (a trace appended
    by promote) is no change. ``known``: set fingerprints of ``loaded`` already computed,
    by format."""
    header = loaded.header
    assert header is not None
    if header.version is None or header.fingerprint is None:
        return False
    for fmt in sorted({newest_format(loaded), *FORMATS}, reverse=True):
        try:
            fingerprint = (known or {}).get(fmt) or set_fingerprint(loaded, fmt)
            if fingerprint == header.fingerprint:
                return True
        except EvalsetError:
            continue
    if released is None or released.header is None:
        return False
    fmt = min(newest_format(loaded), newest_format(released))
    return set_fingerprint(loaded, fmt) == set_fingerprint(released, fmt)


def pin_of(
    loaded: SetFile,
    snapshot: str | None,
    rev: str | None = None,
    items: bool = True,
    fmt: int | None = None,
    released: SetFile | None = None,
) -> dict[str, Any]:
    """The pin of a set's content: what a report carries to name what it ran on.

    ``version`` is the header's released version when the content is still the release's
    (``released_as``), ``X.Y.Z+modified`` when it is not, and None for a set never
    released. ``fingerprint_format`` says how the fingerprints were computed (``fmt``,
    default the newest the set allows)."""
    fmt = newest_format(loaded) if fmt is None else fmt
    per_item = item_fingerprints(loaded, fmt)
    fingerprint = set_fingerprint(loaded, fmt, per_item)
    assert loaded.header is not None
    version = loaded.header.version
    if version is not None and not released_as(loaded, released, {fmt: fingerprint}):
        version = f"{version}+modified"
    pin: dict[str, Any] = {
        "set": loaded.header.name,
        "version": version,
        "fingerprint": fingerprint,
        "fingerprint_format": fmt,
        "snapshot": snapshot,
        "items": counts(loaded),
        "items_digest": sha256_of(per_item),
        "tool": f"evalset {__version__}",
    }
    if rev is not None:
        pin["rev"] = rev
    if items:
        pin["item_fingerprints"] = {
            ident: fp.removeprefix("sha256:")[:ITEM_DIGITS] for ident, fp in per_item.items()
        }
    return pin


def recorded_format(pin: dict[str, Any]) -> int:
    """The fingerprint format a pin (or a tag's recorded pin) was made with: pins of evalset
    0.1 carry none and are format 1."""
    fmt = pin.get("fingerprint_format", 1)
    return fmt if fmt in FORMATS else FINGERPRINT_FORMAT


class PinError(EvalsetError):
    """A report's pin cannot be read."""


def pin(ws: Workspace, path: Path, rev: str | None = None, items: bool = True) -> dict[str, Any]:
    """The pin of a set in the working tree, or at a revision or release version (``rev``;
    None or ``WORKTREE``, as `evalset diff` names it, for the working tree)."""
    path = require_own(ws, path, "pin")
    if rev is None or rev == WORKTREE:
        loaded = load_set(path)
        store = workspace_store(ws)
        newest = store.newest_id()
        if newest is not None:
            store.get(newest)  # a pin must not name a damaged manifest
        snapshot = newest[:SHORT] if newest else None
        found = pin_of(loaded, snapshot, items=items, released=_release_of(ws, path, loaded))
        return _versioned_by_tag(ws, path, loaded, found)
    history = SetHistory(ws, path)
    state = history.at(rev)
    assert state.commit is not None
    recorded = state.tag.pin if state.tag else None
    if recorded is not None:  # the release says which: no need to work it out from history
        snapshot = recorded.get("snapshot")
    else:
        snapshot = history.newest_snapshot(state.commit)
    return _versioned_by_tag(
        ws, path, state.loaded, pin_of(state.loaded, snapshot, rev=state.commit, items=items)
    )


def _versioned_by_tag(
    ws: Workspace, path: Path, loaded: SetFile, found: dict[str, Any]
) -> dict[str, Any]:
    """``found`` (the pin of the working copy) with the version its release tag vouches
    for: the header's ``version`` and ``fingerprint`` are text anyone may edit (or a bad
    merge may leave), so the content is compared with the fingerprint the tag recorded,
    as `status` does. A header naming a release no tag has is refused. Outside git, or in
    a clone made without its tags (CI's usual checkout), the header is all there is; the
    report's pin is checked where the tags are (`check-pin`)."""
    version = loaded.header.version if loaded.header else None
    if version is None:
        return found
    tags: list[Tag] = []
    try:
        history = SetHistory(ws, path)
        tags = history.git.tags(loaded.name)
        tag = history.release(version)
    except TagsMissing:
        if not tags:  # a clone without its tags
            return found
        tag = None  # it has this set's tags, just not this one
    except EvalsetError:  # not in git
        return found
    if tag is None:
        raise PinError(
            f"{path}: its header names release {version} of {loaded.name}, which has no tag "
            f"{tag_name(loaded.name, version)}; finish the release (`evalset release "
            f"{loaded.name}` again), or put back the header of the latest release."
        )
    if tag.pin is None:
        raise PinError(
            f"{path}: its header names release {version} of {loaded.name}, whose tag "
            f"{tag.name} was not made by `evalset release` (it records no pin), so it cannot "
            "vouch for the content; put back the tag `evalset release` made (`git fetch "
            f"--force origin tag {tag.name}` from the remote it was pushed to)."
        )
    known = {found["fingerprint_format"]: found["fingerprint"]}
    clean = tag_vouches(loaded, tag, lambda t: history.at_release(t).loaded, known)
    if not clean:
        same = _release_holding(history, found)
        if (
            same is not None
            and _newer(same.version, version)  # not a revert to an older release's content
            and history.git.holds(same.commit)
        ):
            raise PinError(  # not a release made elsewhere and never merged: this branch's
                f"{path}: its header names release {version} of {loaded.name}, but its content "
                f"is release {same.version}'s, whose commit this branch holds: the header was "
                f"edited by hand; put back the header release {same.version} wrote (`git "
                f"checkout {same.name} -- {display_path(path)}`, if nothing else changed since)."
            )
    return {**found, "version": version if clean else f"{version}+modified"}


def tag_vouches(
    loaded: SetFile,
    tag: Tag,
    read_release: Callable[[Tag], SetFile | None] | None = None,
    known: dict[int, str] | None = None,
) -> bool:
    """Whether ``loaded`` holds the content ``tag`` released: its fingerprint, in the format
    the tag recorded, is the recorded one. A release made in format 1 (which counted
    provenance) whose fingerprint differs is read at its tag with ``read_release`` and
    compared in the current format, so that a trace appended since is no change.
    ``known``: fingerprints of ``loaded`` already computed, by format. A tag that records
    no pin (made by hand, or put back by hand without its message) vouches for nothing."""
    recorded = tag.pin
    if recorded is None:
        return False
    fmt = recorded_format(recorded)
    try:
        if recorded.get("fingerprint") == ((known or {}).get(fmt) or set_fingerprint(loaded, fmt)):
            return True
        if fmt >= FINGERPRINT_FORMAT or read_release is None:
            return False
        released = read_release(tag)
        if released is None:
            return False
        fmt = min(newest_format(loaded), newest_format(released))
        return set_fingerprint(loaded, fmt) == set_fingerprint(released, fmt)
    except EvalsetError:  # content that cannot be fingerprinted is no release's
        return False


def _release_of(ws: Workspace, path: Path, loaded: SetFile) -> SetFile | None:
    """The set as released under the version its header names, read at the release's tag
    only when its fingerprint alone cannot tell (a release made in an older format)."""
    if loaded.header is None or loaded.header.version is None or released_as(loaded):
        return None
    try:
        history = SetHistory(ws, path)
        tag = history.release(loaded.header.version)
        return history.at_release(tag).loaded if tag is not None else None
    except GitUnusable:  # without its tags, "modified" could not be told from "released"
        raise
    except EvalsetError:
        return None


@dataclass
class PinCheck:
    pin: dict[str, Any]
    tag: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "tag": self.tag, "problems": self.problems, "pin": self.pin}


_GIVE = "give a report written by `evalset score`, or a pin as `evalset pin` prints it."
"""The fix of a file check-pin cannot read as JSON: an edit cannot mend a report (its digest
would not match), so it is written anew."""


def read_pin(report: Path) -> dict[str, Any]:
    """The pin of a report: its top-level ``evalset`` object (or the whole file, when the file
    is a pin itself, as `evalset pin` prints it). A report evalset wrote is checked as `gate`
    reads it (its shape and digest): check-pin never vouches for an edited report."""
    return pin_in(report, _read_checked(report))


def _read_checked(report: Path) -> Any:
    """The parsed JSON of ``report``, a report evalset wrote checked as ``read_pin`` says."""
    from evalset.fsio import RepeatedKeyError, TextError, json_loads, not_json, read_user_text
    from evalset.versions.reportfile import check_report, empty_report, is_report, repeated_key

    try:
        text = read_user_text(report, "report")
        if not text.strip():  # as gate and accept say it
            raise PinError(empty_report(report))
        data = json_loads(text, unique_keys=True)
    except TextError as exc:
        raise PinError(str(exc)) from None
    except RepeatedKeyError as exc:  # as gate and accept say it
        raise PinError(repeated_key(report, text, exc)) from None
    except json.JSONDecodeError as exc:  # where, then what: as gate and accept say it
        raise PinError(f"{report}:{exc.lineno}:{exc.colno}: {not_json(exc)}; {_GIVE}") from None
    except (ValueError, RecursionError):  # numbers too long, nesting too deep
        raise PinError(
            f"{report}: is not JSON that can be read (too deeply nested, or a number too "
            f"long); {_GIVE}"
        ) from None
    if is_report(data):  # a report evalset wrote: its scores must be as written, as for gate
        check_report(report, text, data)
    return data


def pin_in(report: Path, data: Any) -> dict[str, Any]:
    """The pin of the parsed JSON ``data`` of ``report`` (see ``read_pin``, which checks a
    report's digest first)."""
    found = data.get("evalset") if isinstance(data, dict) else None
    if found is None and isinstance(data, dict) and "fingerprint" in data:
        found = data
    if not isinstance(found, dict):
        raise PinError(
            f'{report}: has no pin (no top-level "evalset" object); put the output of '
            '`evalset pin NAME` under "evalset" in the report.'
        )
    for key in ("set", "fingerprint"):
        if not isinstance(found.get(key), str):
            raise PinError(f'{report}: the pin has no "{key}" text; write the pin as printed.')
    return found


def _differing_items(reported: Any, released: SetFile, fmt: int) -> list[str] | None:
    """Ids whose content differs between the report's item fingerprints and a release;
    None for a pin without them (`evalset pin --no-item-fingerprints`)."""
    if reported is _ABSENT:
        return None
    if not isinstance(reported, dict):  # written by no evalset: every item is in doubt
        reported = {}
    ours = pin_of(released, None, fmt=fmt)["item_fingerprints"]
    ids = sorted(set(reported) | set(ours))
    return [i for i in ids if reported.get(i) != ours.get(i)]


_ABSENT = object()
"""A pin key that is not there (not one that holds null)."""


def _newer(version: str, than: str) -> bool:
    a, b = Version.parse(version), Version.parse(than)
    return a is not None and b is not None and a > b


def released_set_file(ws: Workspace, name: str) -> Path | None:
    """Where the set file of a set deleted since its releases was (its releases are still
    in git's tags, which is what `check-pin`, `log` and `diff` read); None when git has no
    release of that name."""
    from evalset.git import Git

    try:
        tags = Git.find(ws.root).tags(name)
    except EvalsetError:
        return None
    return ws.sets_dir / f"{name}.yaml" if tags else None


def set_named(ws: Workspace, report: Path, name: str) -> Path:
    """The set file a pin names: a report is untrusted input, so its ``set`` is only ever a
    set name looked up in the workspace's sets folder, never a path."""
    from evalset.sets.model import set_name_problem
    from evalset.workspace import set_file_named

    if set_name_problem(name) is not None:
        raise PinError(
            f"{report}: the pin's \"set\" is not a set name (letters, digits, '.', '_' "
            "and '-'); write the pin as `evalset pin NAME` prints it."
        )
    try:
        found = set_file_named(ws, name)
    except NoSetsFolder:  # the last set deleted, and git with it dropped the empty folder
        found = None
    found = found or released_set_file(ws, name)
    if found is not None:
        return found
    raise PinError(
        f"{report}: names the set {name!r}, which the sets folder {ws.sets_dir}/ does not "
        "hold; check the "
        "report, or run check-pin in the workspace the report was made in."
    )


def _release_holding(history: SetHistory, found: dict[str, Any]) -> Tag | None:
    """The latest release whose tag records the content fingerprint of pin ``found``."""
    fmt = found.get("fingerprint_format", 1)
    for tag in reversed(history.git.tags(history.name)):
        recorded = tag.pin
        if (
            recorded is not None
            and recorded_format(recorded) == fmt
            and recorded.get("fingerprint") == found.get("fingerprint")
        ):
            return tag
    return None


def check_pin(ws: Workspace, report: Path, read: dict[str, Any] | None = None) -> PinCheck:
    """Check a report's pin against the release tags of the workspace's repository. The
    tag's content is fingerprinted in the format its tag recorded, and compared with the
    report in the format the report's pin names (format 1 for pins of evalset 0.1).
    ``read``: the report, read and checked already (``read_report``), so that it is not
    read a second time (a stream gives its bytes once, and a file evalset found by itself
    may have become a named pipe meanwhile)."""
    as_workspace(ws, "check_pin")
    report = as_path(report, "check_pin", "the report's path", "reports/run.json")
    data = _read_checked(report) if read is None else read
    found = pin_in(report, data)
    check = PinCheck(found)
    name, version = found["set"], found.get("version")
    history = SetHistory(ws, set_named(ws, report, name))
    if version is not None and not isinstance(version, str):
        check.problems.append(f'the pin\'s version {version!r} is not text ("X.Y.Z")')
        return check
    if version is None:
        same = _release_holding(history, found)
        if same is not None and history.git.holds(same.commit):  # run before its release
            check.problems.append(
                f"report was run on the content of release {same.version} of {name} before "
                f"it was released, so its pin names no release (version: null); score the "
                f"run again on release {same.version} (its tag), and its pin will name it"
            )
            return check
        if same is not None:  # released where the run's branch never merged the release
            check.problems.append(
                f"report was run on the content of release {same.version} of {name}, but "
                f"its set file names no release (version: null): the branch lacks the release "
                f"commit; merge it (`git merge {same.name}`) and score the run again"
            )
            return check
        check.problems.append(
            f"report was run on an unreleased working copy of {name} (version: null); only "
            f"released versions can be checked: release the set (`evalset release {name}`) "
            "and score the run again"
        )
        return check
    base, plus, suffix = version.partition("+")
    parsed = Version.parse(base)
    # as evalset writes it: no "v", no padding, and "+modified" the one suffix
    if parsed is None or str(parsed) != base or (plus and suffix != "modified"):
        check.problems.append(f"report names version {version!r}, which is not X.Y.Z")
        return check
    tag = history.release(base)
    if tag is None:
        if history.git.shallow:  # the tag may be one this clone did not fetch: cannot tell
            raise GitUnusable(
                f"{report}: names release {base} of {name}, but this shallow clone has no tag "
                f"{tag_name(name, base)}, so the pin cannot be checked here; {FETCH_TAGS}."
            )
        check.problems.append(history.missing_release(base).split(": ", 1)[1].rstrip("."))
        return check
    check.tag = tag.name
    recorded = tag.pin if tag.annotated else None
    released = history.at_tag(tag).loaded  # a tag moved to another release's commit: below
    if recorded is None:
        check.problems.append(
            f"tag {tag.name} was not made by `evalset release` (it records no pin); it "
            "cannot vouch for the content"
        )
    else:
        tagged = set_fingerprint(released, recorded_format(recorded))
        named = released.header.version if released.header else None
        if named != base:  # `evalset release` commits the header naming what it tags
            check.problems.append(
                f"tag {tag.name} was created or moved by hand: it points at a commit whose set "
                + (
                    f"names release {named}"
                    if named
                    else "names no release (or it is the release of a set of the same name in "
                    "another workspace of this repository)"
                )
            )
        elif recorded.get("fingerprint") != tagged:
            check.problems.append(
                f"tag {tag.name} was created or moved by hand: its content has fingerprint "
                f"{tagged}, but its message records {recorded.get('fingerprint')}"
            )
    fmt = found.get("fingerprint_format", 1)
    if type(fmt) is not int or fmt not in FORMATS:
        check.problems.append(
            f"the pin's fingerprint_format {fmt!r} is none evalset writes "
            f"({', '.join(map(str, FORMATS))})"
        )
        return check
    actual = set_fingerprint(released, fmt)
    differing = _differing_items(found.get("item_fingerprints", _ABSENT), released, fmt)
    detail = f": {len(differing)} item(s) differ from the release" if differing else ""
    if differing:
        detail += f" ({', '.join(differing[:5])}{', …' if len(differing) > 5 else ''})"
    same = _release_holding(history, found) if suffix else None
    later = None
    if same is not None and (same.version == base or history.git.holds(same.commit)):
        that = Version.parse(same.version)
        if that is not None and that > parsed:
            later = same  # this content was released since, on this branch
        same = None  # this branch has that release (its content reverted to since): not unmerged
    if later is not None:
        check.problems.append(
            f"report was run on {version}, content released since as {later.version} (the "
            f"same fingerprint), so its pin names no release; score the run again on release "
            f"{later.version} (its tag), and its pin will name it"
        )
    elif same is not None:  # released where the branch never merged
        check.problems.append(
            f"report was run on {version}, the content of release {same.version}: the branch "
            f"lacks that release's commit, so its set file names release {base}; merge it "
            f"(`git merge {same.name}`) and score the run again"
        )
    elif suffix:
        check.problems.append(
            f"report was run on {version}{detail or ', not on the release'}; score the run "
            f"again on release {base} (its tag), or release this content and score it again"
        )
    elif found["fingerprint"] != actual:
        check.problems.append(
            f"report's fingerprint {found['fingerprint']} does not match release {base} "
            f"({actual}, fingerprint format {fmt}){detail}"
        )
    elif differing:
        check.problems.append(
            f"report's item fingerprints do not match release {base}{detail}, though its set "
            "fingerprint does: the report was altered"
        )
    if recorded is not None and not _same_snapshot(ws, found.get("snapshot"), recorded):
        check.problems.append(
            f"report names corpus snapshot {found.get('snapshot')}, but release {base} was "
            f"made against {recorded.get('snapshot')}; release the set against this corpus "
            f"(`evalset release {name} --bump patch`) and score the run again on that "
            f"release, or score it again in a checkout of release {base} (its tag)"
        )
    from evalset.versions.reportfile import is_report

    if not check.problems:
        ours = pin_of(released, None, fmt=fmt)
        ours["categories"] = dict(released.header.categories) if released.header else {}
        check.problems += _altered_fields(found, ours, base, is_report(data))
    if not check.problems and is_report(data):  # (another tool's report: its own rows)
        check.problems += _altered_rows(data["items"], released, base)
    return check


def _altered_rows(rows: list[Any], released: SetFile, base: str) -> list[str]:
    """The first row of a report (its ``items``, as `evalset score` writes them) that says
    other than the release its pin names: an item the release does not hold among its active
    items, or in another category or split. The gate compares each item in the category its
    row gives, so a row moved to another category would move the item's score there."""
    from evalset.sets.model import side

    held = {i.id: (i.category, side(i.holdout)) for i in released.items if i.status == "active"}
    held.update(
        {s.id: (s.category, side(s.holdout)) for s in released.sealed if s.status == "active"}
    )
    for k, row in enumerate(rows):
        if not isinstance(row, dict):
            continue  # (not a report evalset wrote: refused as such before)
        ident = row.get("id")
        if ident not in held:
            return [
                f"report's items[{k}] scores item {ident!r}, which release {base} holds no "
                "active item of: the report was altered"
            ]
        category, split = held[ident]
        for key, value in (("category", category), ("split", split)):
            if key in row and row[key] != value:
                return [
                    f"report's items[{k}] gives item {ident!r} {key} {row[key]!r}, but release "
                    f"{base} has it in {value!r}: the report was altered"
                ]
    return []


PIN_KEYS = frozenset(
    {"set", "version", "fingerprint", "fingerprint_format", "snapshot", "items",
     "items_digest", "tool", "rev", "item_fingerprints", "categories", "stale"}
)  # fmt: skip
"""What `evalset pin` writes, and what exports add to the pin they carry: the set's
``categories`` (JSONL, LangSmith) and the ``stale`` items (with --allow-stale)."""


REPORT_PIN_KEYS = ("items", "items_digest")
"""What the pin of every report evalset wrote holds, whatever its version: a pin another
tool carries may be shorter."""


def _altered_fields(
    found: dict[str, Any], ours: dict[str, Any], base: str, report: bool
) -> list[str]:
    """The fields of a pin whose fingerprint matched that say other than the release: its
    counts, items digest and (an export's) categories (``tool``, the version of evalset
    that made the report, ``rev`` and ``stale`` are not the release's to say), keys evalset
    never writes into a pin, and (``report``: evalset's own report) keys it always writes.
    Without them, a report edited to score other items would pass, its digest recomputed
    (the rows are checked against the release, not how many there are)."""
    lacking = [key for key in REPORT_PIN_KEYS if key not in found] if report else []
    if lacking:
        return [
            f"the pin lacks {' and '.join(lacking)}, which `evalset pin` writes into every "
            "report: the report was altered"
        ]
    problems = [
        f"report's {what} {found[key]!r} differ from release {base} ({ours[key]!r}): the "
        "report was altered"
        for key, what in (
            ("items", "item counts"),
            ("items_digest", "items digest"),
            ("categories", "categories"),
        )
        if key in found and not _same_json(found[key], ours[key])
    ]
    extra = sorted(str(k) for k in found if k not in PIN_KEYS)
    if extra:
        problems.append(
            f"the pin holds {', '.join(extra)}, which `evalset pin` never writes: the report "
            "was altered"
        )
    return problems


def _same_json(a: Any, b: Any) -> bool:
    """Whether two values read from JSON are the same JSON: ``true`` is no 1, ``4.0`` no 4
    (Python's ``==`` holds both equal)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _same_snapshot(ws: Workspace, reported: Any, recorded: dict[str, Any]) -> bool:
    """Whether the report names the snapshot the release was made against: the same id, or
    a longer spelling of it (the full id) that the workspace's snapshots resolve to it."""
    wanted = recorded.get("snapshot")
    if reported == wanted:
        return True
    if not isinstance(reported, str) or not isinstance(wanted, str) or len(reported) <= len(wanted):
        return False
    store = workspace_store(ws)
    try:
        ours, theirs = store.resolve(reported), store.resolve(wanted)
    except EvalsetError:
        return False
    return ours is not None and ours == theirs
