"""Scoring a run's retrieval against a set: the labelled sections, were they retrieved, and
at which rank.

The set must be valid, and not stale against the snapshot the run retrieved from (the
newest, unless said otherwise), else scoring is refused; ``allow_stale`` scores anyway and
marks the stale items. Active answerable items are scored; ``answerable: false`` items are
left out and counted, drafts and retired items are never scored, and an item the run did
not answer is scored as retrieving nothing and listed. A run line whose id the set does not
have is an error (or, with ``skip_invalid``, listed and left out).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalset.aside import Beside, aside, here
from evalset.bulk import bulk
from evalset.config import Workspace, as_workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SHORT, Snapshot, SnapshotStore
from evalset.corpus.names import DocumentNames
from evalset.corpus.outline import Outlines
from evalset.errors import CannotOpen, EvalsetError
from evalset.fsio import as_path
from evalset.score.chunks import OVERLAP, Resolver
from evalset.score.intervals import (
    RESAMPLES,
    SEED,
    interval_settings,
    intervals,
    percentiles,
)
from evalset.score.matching import Matcher, Targets, credited_ranks, credited_ranks_plain
from evalset.score.metrics import (
    DEFAULT_K,
    Granularity,
    matching_rule,
    retrieval_metrics,
    retrieval_values,
)
from evalset.score.report import FORMAT, ItemRows, RenderedRows, Report, json_string, row_texts
from evalset.score.runfile import (
    Chunk,
    RunFile,
    RunLine,
    read_run,
    refuse_lines,
    refuse_nothing_to_score,
    retrieved_texts,
    unknown_item,
)
from evalset.sets.model import Item, labels_shown, side
from evalset.sets.setfile import SetFile, load_set
from evalset.sets.validate import check_set, holdout_baseline
from evalset.staleness.stale import ItemStatus, StaleChecker
from evalset.version import __version__
from evalset.versions.pin import pin_of
from evalset.workspace import display_path

SPLITS = ("tuning", "holdout")
SHOWN = 200
"""Longest chunk text kept in the report's list of unresolved chunks."""


class ScoreRefused(EvalsetError):
    """The set cannot be scored as it is (invalid, or stale against the run's snapshot)."""

    exit_code = 1


@dataclass(frozen=True)
class Options:
    """How to score a run's retrieval."""

    ks: tuple[int, ...] = DEFAULT_K
    """The cutoffs metrics are computed at (``recall@5``...)."""
    granularity: Granularity = "section"
    """``section`` (retrieving a subsection counts) or ``document``."""
    snapshot: str | None = None
    """The snapshot the run retrieved from (an id prefix); default: the newest."""
    allow_stale: bool = False
    """Score a set with stale items, marking them, instead of refusing it."""
    skip_invalid: bool = False
    """Leave out invalid run lines, listing them, instead of refusing the run."""
    resamples: int = RESAMPLES
    """Bootstrap resamples for each confidence interval."""
    seed: int = SEED
    """The seed of the bootstrap: the same run scores to the same intervals."""

    def __post_init__(self) -> None:
        ks = self.ks
        fine = (
            isinstance(ks, tuple | list)
            and bool(ks)
            and all(
                isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 100_000 for k in ks
            )
        )
        if not fine:  # (a cutoff of 0 has no ranks to count: it failed deep in the metrics)
            raise ValueError(
                f"ks must be cutoffs, whole numbers from 1 to 100000, such as (1, 5, 10), not "
                f"{ks!r}"
            )


@dataclass(slots=True)
class _Scored:
    """One line to score: the item, the trial and the citations of each entry."""

    item: Item
    trial: int
    line: RunLine | None
    ranks: Sequence[int] = ()
    cited: list[tuple[str, ...]] | None = None
    """What each entry stands for, as citations, for a line with chunks (None for a line of
    plain citations, which stand for themselves): a chunk's sections are checked against an
    uncertain outline as the same sections given as citations are, and listed in misses."""


def score_retrieval(
    ws: Workspace, set_path: Path, run_path: Path, options: Options | None = None
) -> Report:
    """Score a run file against a set (see the module docstring)."""
    as_workspace(ws, "score_retrieval")
    set_path = as_path(set_path, "score_retrieval")
    run_path = as_path(run_path, "score_retrieval", "the run file's path", "runs/run.jsonl")
    with bulk():  # a million objects (the run's entries, the set), none in a cycle
        return _score_files(ws, set_path, run_path, options or Options())


def _score_files(ws: Workspace, set_path: Path, run_path: Path, options: Options) -> Report:
    loaded = load_set(set_path)
    # the newest snapshot as `stale` and `status` choose it: the corpus as it is now
    store = workspace_store(ws)
    # the set is validated, checked for staleness and pinned aside while the run is read and
    # scored; the set's problems are still the ones reported first
    checked = aside(lambda: checked_set(loaded, ws, store, set_path, options), keep=True)
    try:
        snap = _run_snapshot(store, options.snapshot)
        run = read_run(run_path, options.skip_invalid, defer=True)
        corpus = corpus_since(store, options.snapshot)
        return _score(loaded, run, snap, ws.root, checked.result, options, beside=checked.then,
                      corpus=corpus, not_here=lambda: corpus_not_here(store))  # fmt: skip
    except CannotOpen:
        raise  # nothing the set has wrong explains a file that cannot be opened
    except Exception:
        checked.result()  # raises the set's problem, when it has one
        raise
    finally:
        checked.cancel()


def checked_set(
    loaded: SetFile,
    ws: Workspace,
    store: SnapshotStore,
    set_path: Path,
    options: Options,
    spoils: str = "their labels may not match what the run retrieved from",
) -> tuple[dict[str, Any], list[ItemStatus]]:
    """The set's pin and stale items, once it is found valid and not stale against the run's
    snapshot (unless ``allow_stale``); else the refusal is raised, saying what stale items
    would ``spoil``."""
    _require_valid(loaded, ws, store, set_path)
    snap = _run_snapshot(store, options.snapshot)
    stale = _stale(loaded, store, snap, ws.root)
    if stale and not options.allow_stale:
        ids = ", ".join(s.id for s in stale[:5]) + (", …" if len(stale) > 5 else "")
        raise ScoreRefused(
            f"{set_path}: {len(stale)} item(s) are stale against snapshot "
            f"{snap.short if snap else '-'} ({ids}), so {spoils}; review them with "
            f"`evalset stale {loaded.name}` and re-verify them, or score anyway with "
            "--allow-stale, which marks them in the report."
        )
    newest = store.newest_id()
    return pin_of(loaded, newest[:SHORT] if newest else None), stale


def _require_valid(loaded: SetFile, ws: Workspace, store: SnapshotStore, path: Path) -> None:
    baseline = holdout_baseline(path, loaded.name, loaded)
    errors = check_set(loaded, ws.config.validate, store, baseline, errors_only=True)
    if errors or loaded.header is None:
        first = f"; first: {errors[0]}" if errors else ""
        raise ScoreRefused(
            f"{path}: cannot score a run against an invalid set ({len(errors)} error(s){first}); "
            f"fix them (`evalset validate {loaded.name}` lists them) and score again."
        )


def _run_snapshot(store: SnapshotStore, ref: str | None) -> Snapshot | None:
    if ref is None:
        return store.newest()
    found = store.get(ref)
    if found is None:
        known = ", ".join(i[:SHORT] for i in store.ids()) or "none"
        raise EvalsetError(
            f"{display_path(store.folder)}: has no snapshot {ref!r} (snapshots: {known}); give "
            "the id of the snapshot the run retrieved from."
        )
    return found


def corpus_since(store: SnapshotStore, ref: str | None) -> str | None:
    """What the working tree's corpus is to the run's snapshot when that is the newest (no
    ``--snapshot``), as `stale` tells it: ``matches``, ``changed`` (edited since, not
    snapshotted: the labels were checked against other text), ``absent``, ``unreadable`` or
    ``unknown``; None for a snapshot named by the user."""
    if ref is not None:
        return None
    choice = store.newest_choice()
    return choice.corpus if choice is not None else None


def corpus_not_here(store: SnapshotStore) -> str | None:
    """Why the working tree's corpus is not (wholly) here, with the fix, when it is kept
    elsewhere (not pulled, not checked out), is not here at all (deleted, moved away) or
    could not be read; else None."""
    choice = store.newest_choice()
    if choice is not None and choice.corpus_missing:
        return (
            "the corpus folder is not here; bring it back (or set `corpus` in evalset.toml "
            "to where it is), then score again"
        )
    if choice is None or not choice.corpus_away:
        return None
    if choice.fix is not None:
        return f"the corpus folder {choice.note}; run {choice.fix}, then score again"
    return f"the corpus could not be read ({choice.note})"


def _stale(
    loaded: SetFile, store: SnapshotStore, snap: Snapshot | None, root: Path
) -> list[ItemStatus]:
    if snap is None:
        return []
    stale, _ = StaleChecker(store, snap, root).stale_items(loaded)
    return stale


def _check_lines(
    run: RunFile, loaded: SetFile, scored_ids: set[str], skip_invalid: bool
) -> tuple[list[RunLine], Counter[str]]:
    """The lines of scored items; lines of other known items are counted by why they are not
    scored; lines of unknown items, and scored items' lines without a retrieved list, are
    errors (or, with ``skip_invalid``, listed)."""
    status: dict[str, str] = {item.id: item.status for item in loaded.items}
    status.update({stub.id: "sealed" for stub in loaded.sealed})
    unanswerable = {i.id for i in loaded.items if i.status == "active" and not i.answerable}
    kept: list[RunLine] = []
    ignored: Counter[str] = Counter()
    problems: list[tuple[int, str]] = []
    for line in run.lines:
        if line.id in scored_ids:
            if line.retrieved is None:
                problems.append(
                    (line.line, f'item {line.id} has no "retrieved" list; give what the '
                     "retriever returned, best first")
                )  # fmt: skip
            else:
                kept.append(line)
        elif line.id in unanswerable:
            ignored["unanswerable"] += 1
        elif line.id in status:
            ignored[status[line.id]] += 1
        else:
            problems.append((line.line, unknown_item(line.id, list(status), loaded.name)))
    refuse_lines(run, problems, skip_invalid)  # left out (--skip-invalid): they count nowhere
    if not kept:
        refuse_nothing_to_score(run, "active answerable", loaded.name, ignored)
    return kept, ignored


def _entry_citations(
    line: RunLine,
    resolver: Resolver,
    granularity: Granularity,
    unresolved: list[dict[str, Any]],
) -> list[tuple[str, ...]]:
    """What each retrieved entry stands for, as citations; chunks are resolved (at document
    granularity a chunk's document is all that counts, once it resolves: a chunk whose text
    its document does not hold is no part of it)."""
    assert line.retrieved is not None
    out: list[tuple[str, ...]] = []
    for rank, entry in enumerate(line.retrieved, 1):
        if isinstance(entry, str):
            out.append((entry,))
            continue
        found = resolver.resolve(entry)
        if not found.resolved:
            unresolved.append(_unresolved(line, rank, entry, found.how))
            out.append(())
        elif granularity == "document":
            out.append((entry.doc,))
        else:
            out.append(tuple(str(c) for c in found.citations))
    return out


def _refuse_unread(
    run: RunFile,
    unread: set[str],
    unresolved: list[dict[str, Any]],
    not_here: Callable[[], str | None],
) -> None:
    """Refuse a run whose chunks could not be resolved because their documents' text is in
    a corpus that is not here (a full clone would resolve them: the scores would differ,
    silently). Where the corpus is here, such chunks are listed as unresolved, as before."""
    why = not_here()
    if why is None:
        return
    chunks = [u for u in unresolved if u["chunk"]["doc"] in unread]
    first = chunks[0] if chunks else None
    where = f"{run.path}:{first['line']}" if first is not None else str(run.path)
    docs = sorted(unread)
    named = docs[0] + (f" and {len(docs) - 1} more document(s)" if len(docs) > 1 else "")
    raise TextUnreadable(
        f"{where}: {len(chunks)} chunk(s) of {named} cannot be resolved to sections, since "
        f"the documents' text is read from the corpus and {why}."
    )


class TextUnreadable(EvalsetError):
    """Entries that cannot be scored without their documents' text, which cannot be read
    here (chunks to resolve; sections that may lie inside an expected one)."""


def _unresolved(line: RunLine, rank: int, chunk: Chunk, how: str) -> dict[str, Any]:
    shown = chunk.to_json()
    if chunk.text is not None and len(chunk.text) > SHOWN:
        shown["text"] = chunk.text[:SHOWN] + "…"
    return {
        "line": line.line,
        "id": line.id,
        "trial": line.trial,
        "rank": rank,
        "chunk": shown,
        "reason": how.removeprefix("unresolved: "),
    }


def _credit(
    scored: _Scored,
    targets: Targets,
    resolver: Resolver,
    granularity: Granularity,
    deepest: int,
    unresolved: list[dict[str, Any]],
    unknown: frozenset[str],
) -> None:
    """The credited ranks of one line, and what its first entries stand for. A citation in
    ``unknown`` (no such document or section in the snapshot) is credited with nothing."""
    line = scored.line
    if line is None or not line.retrieved:
        return
    if line.plain and granularity == "section":
        entries: list[str] = line.retrieved  # type: ignore[assignment]
        if unknown and not unknown.isdisjoint(entries):
            entries = [e if e not in unknown else "" for e in entries]  # "": matches nothing
        scored.ranks = credited_ranks_plain(targets, entries)
        return
    cited = _entry_citations(line, resolver, granularity, unresolved)
    known = [tuple(c for c in cs if c not in unknown) for cs in cited] if unknown else cited
    scored.ranks = credited_ranks(targets, known, granularity)
    scored.cited = cited


def _refuse_unknown_outline(
    run: RunFile, scored: list[_Scored], matcher: Matcher, not_here: Callable[[], str | None]
) -> None:
    """Refuse a run that retrieved a section deeper than one an item expects in the same
    document when which sections lie inside the expected one cannot be told (the snapshot
    stores no text, and the document as it saw it cannot be read): it is a hit if it lies
    inside, a miss if not, and either guess would score silently what a checkout with the
    text scores otherwise."""
    outlines = matcher.outlines
    for s in scored:
        line = s.line
        uncertain = [c for c in s.item.expected_sources if c in matcher.outline_unknown]
        if line is None or not line.retrieved or not uncertain:
            continue
        # a chunk stands for the sections it was resolved to, placed by the same outline:
        # it is refused where they would be
        cited: Sequence[Sequence[str]] = s.cited or [line.retrieved]  # type: ignore[list-item]
        for entry in (c for entries in cited for c in entries):
            doc, _, section = entry.partition("#")
            for source in uncertain:
                assert source.section is not None
                unsure, why = matcher.outline_unknown[source]
                if (
                    doc == source.doc
                    and section not in ("", source.section)
                    and outlines.level(doc, section) > outlines.level(doc, source.section)
                    and (unsure is None or section in unsure)
                ):
                    if unsure is None:  # why the text is not here, then the fix
                        fix = not_here() or (
                            "score where the corpus that snapshot was taken of is checked out"
                        )
                        why = f"{why}; {fix}"
                    raise TextUnreadable(
                        f"{run.path}:{line.line}: whether {entry} lies inside {source}, which "
                        f"item {s.item.id} expects, cannot be told: {why}."
                    )


Checks = Callable[[], tuple[dict[str, Any], list[ItemStatus]]]
"""The set's pin and stale items, once the set was checked (see ``_checked``)."""


def _score(
    loaded: SetFile,
    run: RunFile,
    snap: Snapshot | None,
    root: Path,
    checks: Checks,
    options: Options,
    prerender: bool = True,
    beside: Beside = here,
    corpus: str | None = None,
    not_here: Callable[[], str | None] = lambda: None,
) -> Report:
    """Score the run; ``checks`` is asked for the set's pin and stale items only once the
    scores are computed and (``prerender``) the item rows written (the set is checked
    meanwhile). The intervals are computed by ``beside`` (the helper that checked the set)
    while this process writes the rest."""
    metrics = retrieval_metrics(options.ks, options.granularity)
    deepest = max(options.ks)
    items = [i for i in loaded.items if i.status == "active" and i.answerable]
    by_id = {item.id: item for item in items}
    lines, ignored = _check_lines(run, loaded, set(by_id), options.skip_invalid)
    outlines = Outlines(snap, root)
    matcher = Matcher(outlines, options.granularity)
    resolver = Resolver(outlines)
    targets: dict[str, Targets] = {}
    unresolved: list[dict[str, Any]] = []
    answered = {line.id for line in lines}
    scored = [_Scored(by_id[line.id], line.trial, line) for line in lines]
    missing = [item.id for item in items if item.id not in answered]
    scored += [_Scored(by_id[ident], 0, None) for ident in missing]
    scored.sort(key=_row_order)  # (id, trial) pairs are unique: runs come mostly in order
    every = run.citations if not run.invalid and len(lines) == len(run.lines) else None
    unknown = unknown_citations(lines, snap, every)
    never = frozenset(unknown)  # they score as misses, never as what they may have meant
    for s in scored:
        t = targets.get(s.item.id)
        if t is None:
            t = targets[s.item.id] = matcher.targets(s.item.expected_sources)
        _credit(s, t, resolver, options.granularity, deepest, unresolved, never)
    if resolver.unread:
        _refuse_unread(run, resolver.unread, unresolved, not_here)
    if matcher.outline_unknown:
        _refuse_unknown_outline(run, scored, matcher, not_here)
    expected = np.array([targets[s.item.id].count for s in scored], dtype=np.int64)
    values, first = retrieval_values([s.ranks for s in scored], expected, metrics)
    names = [m.name for m in metrics]
    matrix = np.column_stack([values[n] for n in names]) if scored else np.zeros((0, len(names)))
    rows = ItemRows(
        [s.item.id for s in scored],
        [s.trial for s in scored],
        [s.item.category for s in scored],
        [side(s.item.holdout) for s in scored],
        first.tolist(),
        names,
        matrix,
        [],  # no item is stale, unless the set's checks say otherwise (below)
        [s.line is None for s in scored],
    )
    item_ids = list(dict.fromkeys(rows.ids))
    index = {ident: k for k, ident in enumerate(item_ids)}
    row_item = np.array([index[i] for i in rows.ids], dtype=np.int64)
    per_item = _item_means(matrix, row_item, len(item_ids))
    kinds = [m.kind for m in metrics]
    item_of = [by_id[i] for i in item_ids]

    declared = list(loaded.header.categories) if loaded.header else []
    groups = report_groups(item_of, declared)
    tables = beside(group_tables, per_item, groups, names, kinds, options.resamples, options.seed)
    data: dict[str, Any] = {
        "evalset": None,  # the pin, once the set is checked (below)
        "report": {"format": FORMAT, "kind": "retrieval"},
        "tool": f"evalset {__version__}",
        "run": {
            "path": str(run.path),
            "sha256": run.sha256,
            "lines": len(run.lines),
            "trials": run.trials,  # the trial numbers its lines carry, whatever they are
        },
        "snapshot": snap.short if snap else None,
        "corpus": corpus,
        "settings": _settings(options),
        "definitions": {m.name: m.to_json() for m in metrics},
        "counts": {
            "active": sum(1 for i in loaded.items if i.status == "active") + len(loaded.sealed),
            "scored": len(item_ids),
            "trials": len({line.trial for line in lines}),  # of the scored lines
            "unanswerable": sum(
                1 for i in loaded.items if i.status == "active" and not i.answerable
            ),
            "missing": len(missing),
            "stale": 0,
            "sealed": len(loaded.sealed),
            "ignored_lines": dict(sorted(ignored.items())),
            "invalid_lines": len(run.invalid),
            "unresolved_chunks": len(unresolved),
            "unknown_citations": len(unknown),
        },
        "overall": None,  # the intervals, from ``tables`` (below)
        "categories": None,
        "splits": None,
    }
    spread, item_spread = _spread(rows, row_item, item_ids)
    data["spread"] = spread
    data["latency"] = _summary([line.latency_ms for line in run.lines])  # the whole run's
    data["cost"] = _summary([line.cost for line in run.lines])
    data["misses"] = _misses(scored, values[f"hit@{deepest}"], declared, deepest)
    data["stale"] = []
    data["missing"] = missing
    data["unresolved"] = unresolved
    data["unknown_citations"] = unknown
    data["unknown_meant"] = meant_citations(unknown, snap)
    data["invalid_lines"] = [{"line": n, "problem": p} for n, p in run.invalid]
    data["item_spread"] = item_spread
    if prerender:
        rows.rendered = rows.lines()  # while the set may still be being checked
    place_tables(data, tables.result())
    pin, stale = checks()
    data["evalset"] = pin
    if stale:
        _mark_stale(data, rows, stale)
    return Report(data, rows)


def unknown_citations(
    lines: Sequence[RunLine], snap: Snapshot | None, texts: set[str] | None = None
) -> list[str]:
    """The distinct citations the lines retrieved that name no document, or no section of
    its document, in ``snap``: a run whose retriever indexed another version of the corpus
    (they score as misses, never as what they may have meant). ``texts``: those citations,
    when already known (``RunFile.citations``, when the lines are all of the file's)."""
    if snap is None:
        return []
    if texts is None:
        texts = retrieved_texts(lines)
    by_doc: dict[str, list[str]] = {}
    for text in texts:
        by_doc.setdefault(text.partition("#")[0], []).append(text)
    unknown = []
    documents = snap.documents
    for doc, cited in by_doc.items():  # each document's entry read once
        entry = documents.get(doc)
        sections = entry["sections"] if entry is not None else {}
        unknown += [
            t for t in cited if entry is None or ("#" in t and t.partition("#")[2] not in sections)
        ]
    return sorted(unknown)


def meant_citations(unknown: Sequence[str], snap: Snapshot | None) -> dict[str, str]:
    """For unknown citations that name a document and section of ``snap`` written otherwise,
    the citation meant: a document given with folders before its path in the corpus
    (``corpus/policies/returns.md``, a path from the repository's root), or in other letter
    case, and a section anchor in other letter case. They still score as misses (a guess
    is never taken for what the run retrieved); the note names the fix."""
    if snap is None or not unknown:
        return {}
    documents = snap.documents
    names = DocumentNames(documents)
    found = {}
    for text in unknown:
        doc, hash_, section = text.partition("#")
        known = names.meant(doc)
        if known is None:
            continue
        if hash_:
            sections = documents[known]["sections"]
            if section not in sections:
                same = [s for s in sections if s.casefold() == section.casefold()]
                if len(same) != 1:
                    continue
                section = same[0]
            found[text] = f"{known}#{section}"
        else:
            found[text] = known
    return found


def group_tables(
    per_item: NDArray[np.float64],
    groups: dict[str, list[int]],
    names: list[str],
    kinds: list[str],
    resamples: int,
    seed: int,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Per group (``overall``, ``category:NAME``, ``split:NAME``: the rows of ``per_item``
    it holds), each metric's value and interval as the report writes them."""
    found = {}
    for group, members in groups.items():
        rows = per_item[np.asarray(members, dtype=np.int64)]
        found[group] = {
            name: iv.to_json()
            for name, iv in zip(names, intervals(rows, kinds, group, resamples, seed), strict=True)
        }
    return found


def report_groups(item_of: Sequence[Item], declared: list[str]) -> dict[str, list[int]]:
    """The groups a report has a table for, each with the positions of its items in
    ``item_of``: ``overall``, ``category:NAME`` (the declared categories first) and
    ``split:NAME`` (``unassigned`` only when some item has no split)."""
    groups: dict[str, list[int]] = {"overall": list(range(len(item_of)))}
    used = [c for c in dict.fromkeys(i.category for i in item_of) if c not in declared]
    for c in declared + [c for c in used if c is not None]:
        groups[f"category:{c}"] = [k for k, i in enumerate(item_of) if i.category == c]
    sides = [side(i.holdout) for i in item_of]
    for name in [*SPLITS, *(["unassigned"] if "unassigned" in sides else [])]:
        groups[f"split:{name}"] = [k for k, s in enumerate(sides) if s == name]
    return groups


def place_tables(data: dict[str, Any], found: dict[str, dict[str, Any]]) -> None:
    """Put the tables of ``report_groups``'s groups under ``overall``, ``categories`` and
    ``splits``."""
    data["overall"] = found["overall"]
    for key, prefix in (("categories", "category:"), ("splits", "split:")):
        data[key] = {g.removeprefix(prefix): t for g, t in found.items() if g.startswith(prefix)}


def stale_list(data: dict[str, Any], stale: list[ItemStatus]) -> set[str]:
    """Record stale items (scored with ``allow_stale``) in a report's counts and ``stale``
    list; returns their ids."""
    data["counts"]["stale"] = len(stale)
    data["stale"] = [_stale_entry(s) for s in stale]
    return {s.id for s in stale}


def _stale_entry(status: ItemStatus) -> dict[str, Any]:
    """A stale item as a report lists it: its stale citations with their texts, or, for an
    item whose labels a report does not show, only their statuses (a citation, and the
    section text it had, are labels)."""
    cited = [c for c in status.citations if c.status != "ok"]
    entry: dict[str, Any] = {"id": status.id, "verified": status.verified}
    if labels_shown(status.holdout):
        return entry | {"citations": [c.to_json() for c in cited]}
    return entry | {"citations": None, "statuses": [c.status for c in cited]}


def _mark_stale(data: dict[str, Any], rows: ItemRows, stale: list[ItemStatus]) -> None:
    """Mark the stale items (scored with ``allow_stale``) in the report and its rows."""
    ids = stale_list(data, stale)
    for k, miss in enumerate(data["misses"]):
        if miss["id"] in ids:  # "stale" goes before "missing", as a miss lists them
            missing = miss.pop("missing", None)
            data["misses"][k] = miss | {"stale": True} | ({"missing": True} if missing else {})
    rows.stale = [ident in ids for ident in rows.ids]
    rows.rendered = None


def _settings(options: Options) -> dict[str, Any]:
    return {
        "k": list(options.ks),
        "granularity": options.granularity,
        "matching": matching_rule(options.granularity),
        "intervals": interval_settings(
            options.resamples,
            options.seed,
            "an item scored in several trials counts once, with its mean",
        ),
        "chunks": {
            "overlap": OVERLAP,
            "rule": "the most specific section holding the chunk's text, else those "
            f"holding the largest share, at least {OVERLAP:.0%}, of its word trigrams",
        },
    }


def _item_means(
    matrix: NDArray[np.float64], row_item: NDArray[np.int64], n: int
) -> NDArray[np.float64]:
    """Per item, the mean of its rows (trials)."""
    sums = np.zeros((n, matrix.shape[1]))
    np.add.at(sums, row_item, matrix)
    counts = np.bincount(row_item, minlength=n).astype(np.float64)
    means: NDArray[np.float64] = sums / np.maximum(counts, 1)[:, None]
    return means


def _spread(
    rows: ItemRows, row_item: NDArray[np.int64], item_ids: list[str]
) -> tuple[dict[str, Any] | None, RenderedRows]:
    """With several trials (two trial numbers or more among the run's lines, whatever they
    are): per metric, min/max/std of the per-trial means over the items the run gave every
    trial (``n``; an item given only some would compare other items from trial to trial),
    an item the run left out counting, as retrieving nothing, in every trial; None when no
    item has every trial. And per item whose trials did not all score the same, each
    metric's min/max/std over its trials (an item left out scored the same in every trial)."""
    trials = np.asarray(rows.trials, dtype=np.int64)
    left = np.asarray(rows.missing, dtype=bool) if rows.missing else np.zeros(len(trials), bool)
    numbers = np.unique(trials[~left]).tolist()  # a left-out item's one row is in no trial
    if len(numbers) < 2:
        return None, RenderedRows([])
    values = rows.values
    counts = np.bincount(row_item, minlength=len(item_ids))
    every = ~left & (counts[row_item] == len(numbers))  # (an item's trials are distinct)
    overall = None
    if every.any():
        per_trial = np.array(
            [values[((trials == t) & every) | left].mean(axis=0) for t in numbers],
            dtype=np.float64,
        )
        size = int(every.sum()) // len(numbers) + int(left.sum())
        overall = {name: _min_max_std(per_trial[:, j], size) for j, name in enumerate(rows.metrics)}
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    lows = np.minimum.reduceat(values, starts, axis=0)
    highs = np.maximum.reduceat(values, starts, axis=0)
    varied = np.flatnonzero((highs > lows).any(axis=1))
    lows, highs = lows[varied], highs[varied]
    # deviations from each item's own mean, squared and summed (two passes: the sum of
    # squares less the squared sum lost the last digits to cancellation)
    means = np.add.reduceat(values, starts, axis=0) / np.maximum(counts, 1)[:, None]
    deviations = values - means[row_item]
    squares = np.add.reduceat(deviations * deviations, starts, axis=0)[varied]
    n = counts[varied][:, None].astype(np.float64)
    # equal scores have no spread, though their mean may be off in its last bit
    std = np.where(highs > lows, np.sqrt(squares / (n - 1)), 0.0)
    metric = ", ".join(
        f'{json.dumps(m)}: {{"min": %s, "max": %s, "std": %s}}' for m in rows.metrics
    )
    # per item: min, max, std of each metric (an explicit width: no item may have varied)
    flat = np.stack([lows, highs, std], axis=2).reshape(len(varied), 3 * len(rows.metrics))
    lines = [
        f'{{"id": {json_string(item_ids[k])}, "trials": {counts[k]}, "metrics": {{{row}}}}}'
        for k, row in zip(varied.tolist(), row_texts(flat, metric), strict=True)
    ]
    spread = {"trials": len(numbers), "overall": overall} if overall is not None else None
    return spread, RenderedRows(lines)


def _min_max_std(values: NDArray[np.float64], n: int) -> dict[str, float | int]:
    """min, max and sample standard deviation of two trial means or more, each over the same
    ``n`` items."""
    low, high = float(values.min()), float(values.max())
    # equal means have no spread, though their mean may be off in its last bit
    std = float(values.std(ddof=1)) if high > low else 0.0
    return {"min": low, "max": high, "std": std, "n": n}


def _summary(values: list[float | None]) -> dict[str, float | int] | None:
    given = [v for v in values if v is not None]
    return percentiles(given) if given else None


def _row_order(scored: _Scored) -> tuple[str, int]:
    return scored.item.id, scored.trial


UNRESOLVED = "(unresolved chunk)"
"""What a miss lists for a chunk that did not resolve."""


def _shown(scored: _Scored, deepest: int) -> list[str | list[str]]:
    """What the first ``deepest`` entries of a line stand for, one per rank: a citation, or
    the list of the citations a chunk standing for several sections stands for (joined in
    one text, they would read as several entries, and every later rank would be miscounted)."""
    if scored.cited is not None:
        return [
            c[0] if len(c) == 1 else list(c) if c else UNRESOLVED for c in scored.cited[:deepest]
        ]
    line = scored.line
    return list(line.retrieved[:deepest]) if line is not None and line.retrieved else []  # type: ignore[arg-type]


def _misses(
    scored: list[_Scored],
    hit: NDArray[np.float64],
    declared: list[str],
    deepest: int,
) -> list[dict[str, Any]]:
    """Items that missed every expected source in the first K entries (K the deepest
    cutoff) in some trial: category order, then id; the first missed trial is shown, and
    what was expected unless the item is held out."""
    found: dict[str, dict[str, Any]] = {}
    trials: Counter[str] = Counter(s.item.id for s in scored)
    for s, value in zip(scored, hit.tolist(), strict=True):
        if value:
            continue
        entry = found.get(s.item.id)
        if entry is None:
            found[s.item.id] = {
                "id": s.item.id,
                "category": s.item.category,
                "split": side(s.item.holdout),
                "missed": 1,
                "trials": trials[s.item.id],
                "trial": s.trial,
                # what the run retrieved is not a label: shown for every item
                "expected": [str(c) for c in s.item.expected_sources]
                if labels_shown(s.item.holdout)
                else None,
                "retrieved": _shown(s, deepest),
                **({"missing": True} if s.line is None else {}),
            }
        else:
            entry["missed"] += 1
    order = {c: k for k, c in enumerate(declared)}
    return sorted(found.values(), key=lambda m: (order.get(m["category"], len(order)), m["id"]))


# Answer scoring (evalset.score.answers) checks, pins and, when the run retrieved too, scores
# retrieval exactly as above, on the set and run it has already read.
require_valid = _require_valid
run_snapshot = _run_snapshot
stale_items = _stale


def score_loaded(
    loaded: SetFile,
    run: RunFile,
    snap: Snapshot | None,
    root: Path,
    pin: dict[str, Any],
    stale: list[ItemStatus],
    options: Options,
    not_here: Callable[[], str | None] = lambda: None,
) -> Report:
    """Score a run on a set already checked (answer scoring's retrieval part)."""
    return _score(
        loaded, run, snap, root, lambda: (pin, stale), options, prerender=False, not_here=not_here
    )
