"""Every number a retrieval report computes, recomputed by a deliberately plain reference
from the README's definitions (trec_eval's formulas, the matching rule of matching.py's
docstring, Python's ``math`` and ``statistics``, statsmodels' Wilson interval, the bootstrap
written out draw by draw): each row's metrics and first rank, the ``overall``,
``categories`` and ``splits`` tables, ``spread`` and ``item_spread`` over trials, and the
misses.

The workspaces are generated (seeded: the same cases on every run, none chosen to pass):
markdown documents whose headings nest up to four levels, some repeated (``notes``,
``notes-1``), some with text before the first heading; items expecting sections, their
subsections and whole documents, a source listed twice; runs retrieving expected sections,
their parents and subsections, whole documents, repeats, citations the snapshot lacks, and
chunks (a section's text, or text running across several sections, which stands for the
most specific section holding it, else the whole document); one to three trials numbered
from 0 or with gaps, items left out of some trials or of the run. Both granularities.

The reference's matching: an entry is credited with one expected source no earlier entry
was credited with, trying first the source it is, then the sections holding it, deepest
first, then its whole document; at document granularity the documents are compared. An
entry standing for a citation an earlier entry stood for, or for one the snapshot lacks,
is credited with nothing.

Numbers are compared as in test_answer_report_reference.py: a row's metrics and the tables'
values to 1e-12 (the report sums in numpy's order, the reference with ``math.fsum``), the
Wilson and bootstrap bounds to 1e-12, counts, lists and first ranks exactly.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from plain_stats import bootstrap
from statsmodels.stats.proportion import proportion_confint

from conftest import commit_all, make_git_repo, write_files
from evalset.config import find_workspace
from evalset.corpus.snapshot import take_snapshot
from evalset.score.intervals import RESAMPLES, SEED
from evalset.score.retrieval import Options, score_retrieval

WORDS = ["apple", "river", "stone", "cloud", "maple", "tiger", "violet", "copper", "lantern",
         "harbor", "orbit", "meadow", "quartz", "falcon", "ember", "willow", "canyon"]  # fmt: skip
CATEGORIES = ["c1", "c2", "c3"]
GROUP = {"categories": "category", "splits": "split"}
"""The bootstrap's group of a table (its seed): ``category:NAME``, ``split:NAME``."""
UNKNOWN = ["d0.md#no-such-section", "nowhere.md", "nowhere.md#intro"]
"""Citations the snapshot lacks (a section of a document it has, and a document it has not)."""


@dataclass
class Doc:
    """A generated markdown document: its sections in order, each with its parent."""

    name: str
    text: str = ""
    sections: list[tuple[str, str, str]] = field(default_factory=list)
    """(anchor, heading, own text) in document order."""
    parent: dict[str, str | None] = field(default_factory=dict)
    level: dict[str, int] = field(default_factory=dict)

    def holders(self, anchor: str) -> list[str]:
        """The sections holding ``anchor``, the deepest first."""
        found = []
        above = self.parent[anchor]
        while above is not None:
            found.append(above)
            above = self.parent[above]
        return found


def make_doc(rng: random.Random, d: int) -> Doc:
    doc = Doc(f"d{d}.md")
    lines = []
    if rng.random() < 0.3:
        lines.append(f"Before any heading: {' '.join(rng.sample(WORDS, 5))}.")
    stack: list[tuple[str, int]] = []
    used: dict[str, int] = {}
    level = 0
    for s in range(rng.randint(1, 9)):
        level = rng.randint(1, min(level + 1, 4)) if stack else rng.randint(1, 2)
        heading = "Notes" if rng.random() < 0.2 else f"Part {d}x{s}"
        slug = heading.lower().replace(" ", "-")
        repeat = used.get(slug, 0)
        used[slug] = repeat + 1
        anchor = f"{slug}-{repeat}" if repeat else slug
        while stack and stack[-1][1] >= level:
            stack.pop()
        doc.parent[anchor] = stack[-1][0] if stack else None
        doc.level[anchor] = level
        stack.append((anchor, level))
        own = f"Text of {d} {s}: {' '.join(rng.sample(WORDS, 6))} {rng.randint(0, 10**9)}."
        doc.sections.append((anchor, heading, own))
        lines += ["#" * level + " " + heading, own]
    doc.text = "\n\n".join(lines) + "\n"
    return doc


def chunk(rng: random.Random, doc: Doc) -> tuple[dict[str, str], str]:
    """A chunk of ``doc``: the text of one section or of several in a row (with the headings
    between them), and the citation the reference takes it for."""
    first = rng.randrange(len(doc.sections))
    last = rng.randrange(first, min(len(doc.sections), first + 4))
    part = doc.sections[first : last + 1]
    text = " ".join([part[0][2], *(f"{heading} {own}" for _, heading, own in part[1:])])
    anchors = [anchor for anchor, _, _ in part]
    for holder in [anchors[0], *doc.holders(anchors[0])]:
        if all(a == holder or holder in doc.holders(a) for a in anchors):
            return {"doc": doc.name, "text": text}, f"{doc.name}#{holder}"
    return {"doc": doc.name, "text": text}, doc.name  # across top-level sections


@dataclass
class Case:
    repo: Path
    docs: dict[str, Doc]
    items: dict[str, tuple[str, bool, list[str]]]
    """id: (category, holdout, expected sources)."""
    lines: list[dict[str, Any]]
    meant: dict[tuple[str, int], list[str]]
    """(id, trial): the citation each retrieved entry stands for, to the reference."""
    ks: tuple[int, ...]


def make_case(root: Path, seed: int) -> Case:
    rng = random.Random(seed)
    repo = make_git_repo(root)
    docs = {doc.name: doc for doc in (make_doc(rng, d) for d in range(rng.randint(2, 4)))}
    write_files(
        repo,
        {
            "evalset.toml": "[validate]\nmin_per_category = 0\n",
            ".gitignore": "/.evalset/\n",
            **{f"corpus/{name}": doc.text for name, doc in docs.items()},
        },
    )
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    known = [c for doc in docs.values() for c in [doc.name, *(f"{doc.name}#{a}" for a, _, _ in
             doc.sections)]]  # fmt: skip
    items: dict[str, tuple[str, bool, list[str]]] = {}
    text = ["evalset: 1\nname: docs\ncategories:\n"]
    text += [f"  {c}: category {c}\n" for c in CATEGORIES] + ["items:\n"]
    for i in range(rng.randint(8, 16)):
        doc = rng.choice(list(docs.values()))
        own = [doc.name, *(f"{doc.name}#{a}" for a, _, _ in doc.sections)]
        expected = [
            rng.choice(own if rng.random() < 0.7 else known) for _ in range(rng.randint(1, 4))
        ]
        ident, category, holdout = f"q{i:02d}", rng.choice(CATEGORIES), rng.random() < 0.4
        items[ident] = (category, holdout, expected)
        question = " ".join(rng.sample(WORDS, 7))
        text.append(
            f"  - id: {ident}\n    question: {json.dumps(question + f' {i}?')}\n"
            f"    category: {category}\n    expected_sources: [{', '.join(expected)}]\n"
            f"    key_points:\n      - text: The fact {ident} asks about\n"
            f"        sources: [{expected[0]}]\n"
            f"    holdout: {'true' if holdout else 'false'}\n    verified: '{snapshot}'\n"
        )
    write_files(repo, {"sets/docs.yaml": "".join(text)})
    commit_all(repo, "generated workspace")
    trials = rng.choice([[0], [0, 1], [0, 1, 2], [2, 5]])
    lines, meant = [], {}
    for ident, (_, _, expected) in items.items():
        if rng.random() < 0.1:
            continue  # left out of the run: scored as retrieving nothing
        for trial in trials:
            if len(trials) > 1 and rng.random() < 0.2:
                continue
            pool = known + UNKNOWN + expected * 3
            retrieved: list[Any] = []
            cited = []
            for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 15, 30])):
                if rng.random() < 0.2:
                    entry, citation = chunk(rng, rng.choice(list(docs.values())))
                else:
                    entry = citation = rng.choice(pool)
                retrieved.append(entry)
                cited.append(citation)
            lines.append({"id": ident, "retrieved": retrieved, "trial": trial})
            meant[(ident, trial)] = cited
    (repo / "run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return Case(repo, docs, items, lines, meant, tuple(sorted(rng.sample([1, 2, 3, 5, 10, 20], 3))))


def credited(
    case: Case, expected: list[str], entries: list[str], granularity: str
) -> tuple[list[int], int]:
    """The ranks of the credited entries, and the number of expected sources."""
    if granularity == "document":
        sources = list(dict.fromkeys(c.partition("#")[0] for c in expected))
    else:
        sources = list(dict.fromkeys(expected))
    known = {c for doc in case.docs.values() for c in [doc.name, *(f"{doc.name}#{a}" for a, _, _
             in doc.sections)]}  # fmt: skip
    taken: set[int] = set()
    ranks, seen = [], set()
    for rank, entry in enumerate(entries, 1):
        if entry in seen or entry not in known:
            seen.add(entry)
            continue
        seen.add(entry)
        doc, _, anchor = entry.partition("#")
        order = []
        for i, source in enumerate(sources):
            s_doc, _, s_anchor = source.partition("#")
            if s_doc != doc:
                continue
            if granularity == "document" or not s_anchor:
                order.append((3, 0, i))  # the whole document: last
            elif s_anchor == anchor:
                order.append((0, 0, i))
            elif anchor and s_anchor in case.docs[doc].holders(anchor):
                order.append((1, -case.docs[doc].level[s_anchor], i))
        for *_, i in sorted(order):
            if i not in taken:
                taken.add(i)
                ranks.append(rank)
                break
    return ranks, len(sources)


def metrics(ranks: list[int], n: int, ks: tuple[int, ...]) -> dict[str, float]:
    """trec_eval's formulas with binary gain."""
    found = {}
    for k in ks:
        hits = sum(1 for r in ranks if r <= k)
        found[f"hit@{k}"] = 1.0 if hits else 0.0
        found[f"recall@{k}"] = hits / n
        found[f"precision@{k}"] = hits / k
        dcg = math.fsum(1 / math.log2(r + 1) for r in ranks if r <= k)
        found[f"ndcg@{k}"] = dcg / math.fsum(1 / math.log2(r + 1) for r in range(1, min(n, k) + 1))
    found["mrr"] = 1 / ranks[0] if ranks else 0.0
    found["map"] = math.fsum((j + 1) / r for j, r in enumerate(ranks)) / n
    return found


def close(found: float, expected: float) -> bool:
    return math.isclose(found, expected, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("seed", "granularity"),
    [(1, "section"), (2, "section"), (3, "section"), (4, "section"), (5, "section"),
     (6, "document"), (7, "document"), (8, "document")],
)  # fmt: skip
def test_a_retrieval_report_is_what_the_reference_computes(
    tmp_path: Path, seed: int, granularity: str
) -> None:
    case = make_case(tmp_path / "repo", seed)
    report = score_retrieval(
        find_workspace(case.repo),
        case.repo / "sets" / "docs.yaml",
        case.repo / "run.jsonl",
        Options(ks=case.ks, granularity=granularity),  # type: ignore[arg-type]
    )
    data = json.loads(report.render())
    assert data["counts"]["unresolved_chunks"] == 0

    rows: dict[tuple[str, int], dict[str, float]] = {}
    for (ident, trial), cited in case.meant.items():
        rows[(ident, trial)] = metrics(
            *credited(case, case.items[ident][2], cited, granularity), case.ks
        )
    left_out = [i for i in case.items if not any(key[0] == i for key in rows)]
    for ident in left_out:
        rows[(ident, 0)] = metrics(*credited(case, case.items[ident][2], [], granularity), case.ks)
    found = {(row["id"], row["trial"]): row for row in data["items"]}
    assert sorted(found) == sorted(rows)
    for key, expected in rows.items():
        row = found[key]
        assert row["metrics"].keys() == expected.keys()
        for name, value in expected.items():
            assert close(row["metrics"][name], value), (key, name, row["metrics"][name], value)
        first = None if not expected["mrr"] else round(1 / expected["mrr"])
        assert row["first_rank"] == first, key
    assert data["missing"] == left_out

    # an item counts once, with the mean of its trials; a table is the mean over its items
    per_item: dict[str, list[dict[str, float]]] = {}
    for (ident, _), values in sorted(rows.items()):
        per_item.setdefault(ident, []).append(values)
    means = {
        i: {m: math.fsum(v[m] for v in vs) / len(vs) for m in vs[0]} for i, vs in per_item.items()
    }
    groups = {("overall", None): sorted(means)}
    for ident in sorted(means):
        category, holdout, _ = case.items[ident]
        groups.setdefault(("categories", category), []).append(ident)
        groups.setdefault(("splits", "holdout" if holdout else "tuning"), []).append(ident)
    for (table, name), members in groups.items():
        entries = data[table] if name is None else data[table][name]
        for metric, entry in entries.items():
            values = [means[i][metric] for i in members]
            value = math.fsum(values) / len(values)
            assert entry["n"] == len(members)
            assert close(entry["value"], value), (table, name, metric)
            if metric.startswith("hit@"):
                low, high = proportion_confint(math.fsum(values), len(values), method="wilson")
            else:
                group = "overall" if name is None else f"{GROUP[table]}:{name}"
                low, high = bootstrap(values, group, RESAMPLES, SEED)
            assert close(entry["low"], min(low, entry["value"])), (table, name, metric)
            assert close(entry["high"], max(high, entry["value"])), (table, name, metric)

    # spread: per-trial means over the items the run gave every trial, a left-out item in
    # every trial; none when no item has every trial
    trials = sorted({trial for _, trial in case.meant})
    given = {i: {t for j, t in rows if j == i} for i, _ in rows if i not in left_out}
    every = sorted(i for i, ts in given.items() if ts == set(trials))
    if len(trials) < 2 or not every:
        assert data["spread"] is None
        if len(trials) < 2:
            assert data["item_spread"] == []
    else:
        assert data["spread"]["trials"] == len(trials)
        for metric, entry in data["spread"]["overall"].items():
            per_trial = []
            for t in trials:
                values = [rows[(i, t)][metric] for i in every]
                values += [rows[(i, 0)][metric] for i in left_out]
                per_trial.append(math.fsum(values) / len(values))
            assert entry["n"] == len(every) + len(left_out)
            assert close(entry["min"], min(per_trial)) and close(entry["max"], max(per_trial))
            assert close(entry["std"], statistics.stdev(per_trial)), metric
        varied = {
            i: vs for i, vs in per_item.items()
            if any(len({v[m] for v in vs}) > 1 for m in vs[0])
        }  # fmt: skip
        spread = {entry["id"]: entry for entry in data["item_spread"]}
        assert sorted(spread) == sorted(varied)
        for ident, vs in varied.items():
            assert spread[ident]["trials"] == len(vs)
            for metric, entry in spread[ident]["metrics"].items():
                column = [v[metric] for v in vs]
                std = statistics.stdev(column) if max(column) > min(column) else 0.0
                assert close(entry["min"], min(column)) and close(entry["max"], max(column))
                assert close(entry["std"], std), (ident, metric)

    # misses: the items with no credited entry in the first K (the largest cutoff) in some
    # trial, in the declared order of categories, then by id
    deepest = f"hit@{max(case.ks)}"
    missed = {i: sum(1 for v in vs if not v[deepest]) for i, vs in per_item.items()}
    expected_misses = sorted(
        (i for i, count in missed.items() if count),
        key=lambda i: (CATEGORIES.index(case.items[i][0]), i),
    )
    assert [m["id"] for m in data["misses"]] == expected_misses
    assert [m["missed"] for m in data["misses"]] == [missed[i] for i in expected_misses]


NESTED = """\
# Top

Top's own text.

## A

A's own text.

### B

B's own text.

#### C

C's own text.

### D

D's own text.

## E

E's own text.
"""
"""top > a > (b > c), d; top > e."""

MOST_SPECIFIC = {
    # name: (expected sources, retrieved, ranks of the credited entries)
    "the deeper of two holders first": (["#a", "#b"], ["#c", "#d"], [1, 2]),
    "a section before its parents": (["#top", "#a"], ["#b", "#e"], [1, 2]),
    "a section before the whole document": (["", "#a"], ["#b", "#e"], [1, 2]),
    "each source itself": (["#b", "#a"], ["#b", "#a"], [1, 2]),
    "a repeat, then a holder": (["#a", "#b"], ["#b", "#b", "#c"], [1, 3]),
    "a parent is not inside": (["#a"], ["#top", "#a"], [2]),
    "a section the snapshot lacks": ([""], ["#nope", "#e"], [2]),
    "the whole document for its parts": ([""], ["", "#c"], [1]),
}
"""Entries matching several expected sources are credited with the most specific one that
is still free, so that a later entry holding only the other is credited too."""


@pytest.fixture(scope="module")
def nested_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    repo = make_git_repo(tmp_path_factory.mktemp("nested") / "repo")
    write_files(repo, {"evalset.toml": "[validate]\nmin_per_category = 0\n",
                       ".gitignore": "/.evalset/\n", "corpus/n.md": NESTED})  # fmt: skip
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    text = ["evalset: 1\nname: docs\ncategories:\n  c1: one\nitems:\n"]
    lines = []
    for k, (expected, retrieved, _) in enumerate(MOST_SPECIFIC.values()):
        sources = ", ".join(f"n.md{c}" for c in expected)
        text.append(
            f"  - id: q{k}\n    question: Question {WORDS[k]} number {k}?\n    category: c1\n"
            f"    expected_sources: [{sources}]\n    key_points:\n"
            f"      - text: Fact {k}\n        sources: [n.md{expected[0]}]\n"
            f"    holdout: false\n    verified: '{snapshot}'\n"
        )
        lines.append({"id": f"q{k}", "retrieved": [f"n.md{c}" for c in retrieved]})
    write_files(repo, {"sets/docs.yaml": "".join(text)})
    commit_all(repo, "nested sections")
    (repo / "run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = score_retrieval(find_workspace(repo), repo / "sets" / "docs.yaml",
                             repo / "run.jsonl", Options(ks=(1, 3, 10)))  # fmt: skip
    return {row["id"]: row["metrics"] for row in json.loads(report.render())["items"]}


@pytest.mark.parametrize("name", list(MOST_SPECIFIC))
def test_an_entry_is_credited_with_the_most_specific_free_source(
    nested_report: dict[str, Any], name: str
) -> None:
    k = list(MOST_SPECIFIC).index(name)
    expected, _, ranks = MOST_SPECIFIC[name]
    found = nested_report[f"q{k}"]
    want = metrics(ranks, len(expected), (1, 3, 10))
    assert all(close(found[m], v) for m, v in want.items()), (found, want)
