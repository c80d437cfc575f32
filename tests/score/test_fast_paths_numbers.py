"""The fast paths of scoring's numbers give exactly what their plain references give:
credited ranks, retrieval metrics, the bootstrap and the spread over trials. Each reference
is written out here in the fewest obvious lines, and both are fed generated inputs, the
hostile and edge ones included (seeded: the same cases on every run). A strict xfail test
says what a fast path gets wrong where fixing it would change ordinary reports."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import seeded

# --- crediting entries (matching.credited_ranks_plain, credited_ranks, Matcher, outline) ------


@st.composite
def outlined_snapshots(draw: st.DrawFn) -> object:
    """A snapshot-like object of one to three documents whose sections nest (levels in
    heading order, some skipped), sometimes with two sections of the same heading and text
    (then no position is unambiguous and containment is tested on the texts)."""
    from types import SimpleNamespace

    documents = {}
    for d in range(draw(st.integers(1, 3))):
        levels = draw(st.lists(st.integers(1, 4), min_size=1, max_size=7))
        titles = [f"T{d}{k}" for k in range(len(levels))]
        bodies = [f"body {d} {k}" for k in range(len(levels))]
        if len(levels) > 1 and draw(st.booleans()):
            a, b = draw(st.permutations(range(len(levels))))[:2]
            titles[b], bodies[b] = titles[a], bodies[a]
        heads = [f"{t} {b}" for t, b in zip(titles, bodies, strict=True)]
        sections = {}
        for k, level in enumerate(levels):
            end = next((j for j in range(k + 1, len(levels)) if levels[j] <= level), len(levels))
            text = " ".join([bodies[k], *heads[k + 1 : end]])
            sections[f"s{k}"] = {"level": level, "title": titles[k], "text": text, "hash": "h"}
        documents[f"d{d}.md"] = {"hash": "h", "sections": sections, "text": " ".join(heads)}
    return SimpleNamespace(documents=documents, short="test")


def _citation_pool(snapshot: object) -> list[str]:
    documents = snapshot.documents  # type: ignore[attr-defined]
    found = [f"{doc}#{s}" for doc, entry in documents.items() for s in entry["sections"]]
    return [*found, *documents, "d0.md#ghost", "zz.md", "zz.md#s0"]


def _credit_by_definition(
    expected: list[str], entries: list[tuple[str, ...]], outlines: object, granularity: str
) -> list[int]:
    """The matching rule as the report states it: entries in rank order, each credited with
    the most specific expected source (the one it is, then the deepest section holding it,
    the whole document last; the first listed among equals) no earlier entry was credited
    with; an entry standing only for citations earlier entries stood for (a repeat) earns
    nothing. An expected source listed twice counts once (at document granularity, each
    expected document)."""
    from evalset.sets.citations import Citation

    sources = list(dict.fromkeys(Citation.parse(e) for e in expected))
    if granularity == "document":
        docs = list(dict.fromkeys(s.doc for s in sources))
    credited: set[int] = set()
    ranks: list[int] = []
    for rank, citations in enumerate(entries, 1):
        if set(citations) <= {c for earlier in entries[: rank - 1] for c in earlier}:
            continue  # a repeat
        candidates: list[int] = []
        for text in citations:
            doc, _, section = text.partition("#")
            if granularity == "document":
                candidates += [docs.index(doc)] if doc in docs else []
                continue
            view = outlines.view(doc) if section else None  # type: ignore[attr-defined]
            specific = []
            for i, s in enumerate(sources):
                if s.section is None or s.doc != doc or not section:
                    continue
                if s.section == section:
                    specific.append(((0, 0), i))
                elif view is not None and view.within(section, s.section):
                    specific.append(((1, -view.parts[s.section].level), i))
            candidates += [i for _, i in sorted(specific)]
            candidates += [i for i, s in enumerate(sources) if s.section is None and s.doc == doc]
        for i in candidates:
            if i not in credited:
                credited.add(i)
                ranks.append(rank)
                break
    return ranks


@seeded(150)
@given(outlined_snapshots(), st.data())
def test_entries_are_credited_as_the_matching_rule_says(
    snapshot: object, data: st.DataObject
) -> None:
    """Repeated entries, an entry inside several expected sections, expected whole
    documents, sections the snapshot lacks, empty lists, chunks standing for several
    sections or none: the plain path, the general one and the rule written out agree, at
    both granularities, with one matcher (and its remembered keys) over many items."""
    from evalset.corpus.outline import Outlines
    from evalset.score.matching import Matcher, credited_ranks, credited_ranks_plain
    from evalset.sets.citations import Citation

    outlines = Outlines(snapshot)  # type: ignore[arg-type]
    matchers = {g: Matcher(outlines, g) for g in ("section", "document")}  # type: ignore[arg-type]
    pool = st.sampled_from(_citation_pool(snapshot))
    for _ in range(4):
        expected = data.draw(st.lists(pool, max_size=5))
        plain = data.draw(st.lists(pool, max_size=20))
        chunks = data.draw(st.lists(st.lists(pool, max_size=3).map(tuple), max_size=12))
        targets = matchers["section"].targets([Citation.parse(e) for e in expected])
        wanted = _credit_by_definition(expected, [(e,) for e in plain], outlines, "section")
        assert credited_ranks_plain(targets, plain) == wanted
        assert credited_ranks(targets, [(e,) for e in plain], "section") == wanted
        wanted = _credit_by_definition(expected, chunks, outlines, "section")
        assert credited_ranks(targets, chunks, "section") == wanted
        targets = matchers["document"].targets([Citation.parse(e) for e in expected])
        wanted = _credit_by_definition(expected, chunks, outlines, "document")
        assert credited_ranks(targets, chunks, "document") == wanted


@seeded(200)
@given(outlined_snapshots())
def test_the_sections_inside_a_section_are_those_it_holds(snapshot: object) -> None:
    """``DocumentView.inside`` (every section's descendants found at once, by position) is
    ``within`` asked of each pair: deeper, and its heading and text inside the other's."""
    from evalset.corpus.outline import Outlines

    outlines = Outlines(snapshot)  # type: ignore[arg-type]
    for doc in snapshot.documents:  # type: ignore[attr-defined]
        view = outlines.view(doc)
        assert view is not None
        for outer in view.parts:
            inside = [p for p in view.parts if view.within(p, outer)]
            assert sorted(view.inside(outer)) == sorted(inside)


# --- retrieval metrics (metrics.retrieval_values) -------------------------------------------------

K_CHOICES = [1, 2, 3, 5, 8, 9, 10, 16, 20, 100]


def _by_definition(ranks: list[int], expected: int, ks: list[int]) -> dict[str, float]:
    """Every metric of one list from its credited ranks, as the report defines it, each sum
    taken in rank order (as trec_eval adds them); discounts by C's log2, as trec_eval's."""
    out: dict[str, float] = {"mrr": 1 / ranks[0] if ranks else 0.0}
    for k in ks:
        top = [r for r in ranks if r <= k]
        out[f"hit@{k}"] = 1.0 if top else 0.0
        out[f"recall@{k}"] = len(top) / expected
        out[f"precision@{k}"] = len(top) / k
        dcg = ideal = 0.0
        for r in top:
            dcg += 1 / math.log2(r + 1)
        for r in range(1, min(expected, k) + 1):
            ideal += 1 / math.log2(r + 1)
        out[f"ndcg@{k}"] = dcg / ideal
    total = 0.0
    for j, r in enumerate(ranks, 1):
        total += j / r
    out["map"] = total / expected
    return out


@st.composite
def ranked_lists(draw: st.DrawFn) -> tuple[list[list[int]], list[int], list[int]]:
    """Credited ranks of several lists (none, the first, deep ones), their expected counts
    (often more than K), and the cutoffs (often past every list's end)."""
    lists, counts = [], []
    for _ in range(draw(st.integers(0, 8))):
        ranks = sorted(draw(st.sets(st.integers(1, 40), max_size=12)))
        if draw(st.integers(0, 4)) == 0:
            ranks = list(range(1, len(ranks) + 1))  # a perfect ranking
        lists.append(ranks)
        counts.append(len(ranks) + draw(st.sampled_from([0, 0, 1, 3, 20])) or 1)
    ks = sorted(draw(st.sets(st.sampled_from(K_CHOICES), min_size=1, max_size=5)))
    return lists, counts, ks


def _values(lists: list[list[int]], counts: list[int], ks: list[int]) -> dict[str, np.ndarray]:
    from evalset.score.metrics import retrieval_metrics, retrieval_values

    values, first = retrieval_values(lists, np.array(counts, dtype=np.int64), retrieval_metrics(ks))
    assert first.tolist() == [r[0] if r else 0 for r in lists]
    return values


@seeded(200)
@given(ranked_lists())
def test_retrieval_values_are_each_metric_by_its_definition(
    case: tuple[list[list[int]], list[int], list[int]],
) -> None:
    """Every metric exactly as its definition computes it, with K past the list's end and
    more expected sources than K."""
    lists, counts, ks = case
    values = _values(lists, counts, ks)
    for i, (ranks, expected) in enumerate(zip(lists, counts, strict=True)):
        for name, wanted in _by_definition(ranks, expected, ks).items():
            assert float(values[name][i]) == wanted, (name, ranks, expected)


@seeded(40, shrink=False)
@given(ranked_lists())
def test_ndcg_and_map_are_summed_in_rank_order_as_trec_eval_sums_them(
    case: tuple[list[list[int]], list[int], list[int]],
) -> None:
    """A list's values do not depend on the other lists of the run, and a perfect ranking
    scores 1 exactly (pairwise sums grouped by the widest list gave 0.9999999999999998)."""
    lists, counts, ks = case
    perfect = [list(range(1, n + 1)) for n in range(1, 21)]
    values = _values(perfect, list(range(1, 21)), ks)
    assert all((values[f"ndcg@{k}"] == 1.0).all() for k in ks)  # no metric passes 1
    values = _values(lists, counts, ks)
    for i, (ranks, expected) in enumerate(zip(lists, counts, strict=True)):
        alone = _values([ranks], [expected], ks)  # the same list scored without the others
        for name, wanted in _by_definition(ranks, expected, ks).items():
            assert float(values[name][i]) == wanted == float(alone[name][0]), (name, ranks)


def test_deep_ranks_are_discounted_by_the_c_librarys_log2() -> None:
    """At ranks past 1,600 numpy's vectorised log2 and C's differ in the last bit (1,620 is
    the first); a cutoff that deep is discounted as trec_eval discounts it."""
    lists = [[1620], [3241], [7956], [1, 1620, 3241]]
    ks = [8000]
    values = _values(lists, [1, 1, 1, 3], ks)
    for i, ranks in enumerate(lists):
        for name, wanted in _by_definition(ranks, len(ranks), ks).items():
            assert float(values[name][i]) == wanted, (name, ranks)
    import pytrec_eval

    for i, ranks in enumerate(lists):  # trec_eval's own code agrees to the bit
        run = {"q": {f"d{r}": float(-r) for r in range(1, 8001)}}
        qrels = {"q": {f"d{r}": 1 for r in ranks}}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.8000"}).evaluate(run)
        assert float(values["ndcg@8000"][i]) == theirs["q"]["ndcg_cut_8000"], ranks


POOL = [f"d{d}.md#s{s}" for d in range(4) for s in range(6)]


@seeded(100)
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from(POOL), min_size=1, max_size=12, unique=True),
                  st.lists(st.sampled_from(POOL), max_size=24, unique=True)),
        min_size=1, max_size=10,
    ),
    st.sets(st.sampled_from(K_CHOICES), min_size=1, max_size=4),
)  # fmt: skip
def test_plain_distinct_citations_score_as_trec_eval_scores_them(
    cases: list[tuple[list[str], list[str]]], cutoffs: set[int]
) -> None:
    """Where the semantics coincide (plain distinct citations, no subsections, binary
    relevance): trec_eval's own code, through pytrec_eval. P, recall, success and
    recip_rank to the bit; ndcg_cut and map to a few units in the last place."""
    import pytrec_eval

    from evalset.score.matching import Targets, credited_ranks_plain

    ks = sorted(cutoffs)
    lists = [
        credited_ranks_plain(Targets(len(e), {c: (i,) for i, c in enumerate(e)}), r)
        for e, r in cases
    ]
    values = _values(lists, [len(e) for e, _ in cases], ks)
    qrels = {f"q{i}": dict.fromkeys(e, 1) for i, (e, _) in enumerate(cases)}
    run = {f"q{i}": {d: float(len(r) - k) for k, d in enumerate(r)}
           for i, (_, r) in enumerate(cases) if r}  # fmt: skip
    cut = ",".join(map(str, ks))
    measures = {f"P.{cut}", f"recall.{cut}", f"success.{cut}", f"ndcg_cut.{cut}", "recip_rank",
                "map"}  # fmt: skip
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = {"P": "precision", "recall": "recall", "success": "hit", "ndcg_cut": "ndcg"}
    for i in range(len(cases)):
        found = theirs.get(f"q{i}")  # a query with nothing retrieved scores 0 everywhere
        pairs = [(f"{ours}@{k}", f"{m}_{k}") for m, ours in names.items() for k in ks]
        for ours, measure in [*pairs, ("mrr", "recip_rank"), ("map", "map")]:
            wanted = found[measure] if found is not None else 0.0
            mine = float(values[ours][i])
            if ours.startswith(("ndcg", "map")):
                assert mine == pytest.approx(wanted, rel=4e-16, abs=0), (i, measure)
            else:
                assert mine == wanted, (i, measure)


# --- the bootstrap (intervals.resample_means) ---------------------------------------------------


def _plain_bootstrap(values: np.ndarray, group: str, resamples: int, block: int) -> np.ndarray:
    """The bootstrap by its definition: the same seeded draws (``block`` resamples per call
    of the generator), each resample's rows picked out and averaged in floating point."""
    from evalset.score.intervals import SEED, _rng

    n = len(values)
    rng = _rng(SEED, group)
    kind = np.uint16 if n <= 1 << 16 else np.int64
    draws = np.concatenate(
        [rng.integers(0, n, size=(min(block, resamples - s), n), dtype=kind)
         for s in range(0, resamples, block)]
    )  # fmt: skip
    means: np.ndarray = values[draws.astype(np.int64)].mean(axis=1)
    return means


COLUMN_KINDS = ["unit", "negative", "scores", "tiny", "zeros", "large", "one-value"]


@st.composite
def bootstrap_cases(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n = draw(st.sampled_from([1, 2, 3, 7, 64, 65, 299, 1000]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = []
    for kind in draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=1, max_size=4)):
        columns.append({
            "unit": rng.random(n), "negative": rng.random(n) - 0.5,
            "scores": rng.choice([0.0, 1 / 3, 0.5, 2 / 3, 1.0], n), "tiny": rng.random(n) * 1e-12,
            "zeros": np.zeros(n), "large": rng.normal(0, 1e6, n), "one-value": np.full(n, 0.1),
        }[kind])  # fmt: skip
    return np.column_stack(columns), draw(st.sampled_from([1, 2, 63, 64, 65, 130, 200]))


@seeded(60)
@given(bootstrap_cases())
def test_resampled_means_are_the_plain_bootstraps_means(case: tuple[np.ndarray, int]) -> None:
    """Fixed point, whole-number draws counted per item and one matrix product per block of
    64 resamples: the means of the same resamples averaged plainly, to ~1e-12 of the
    column's largest value (the fixed point's unit)."""
    from evalset.score.intervals import DRAWN_ROWS, resample_means

    values, resamples = case
    found = resample_means(values, "category:x", resamples)
    plain = _plain_bootstrap(values, "category:x", resamples, DRAWN_ROWS)
    n = len(values)
    unit = np.abs(values).max(axis=0) * (n + 2) * 2.0**-52  # the fixed point's unit, and more
    assert (np.abs(found - plain) <= unit + 1e-300).all()
    assert (np.abs(found - plain) <= 1e-12 * np.abs(values).max(axis=0) + 1e-300).all()


@pytest.mark.xfail(
    strict=True,
    reason="numpy draws 16-bit integers two from each 32-bit word and drops a half word left "
    "at the end of a call: the resamples (and intervals) of up to 65,536 items depend on "
    "DRAWN_ROWS; making them independent of it changes every report's intervals",
)
@seeded(20, shrink=False)
@given(bootstrap_cases())
def test_resampled_means_do_not_depend_on_how_the_draws_are_split(
    case: tuple[np.ndarray, int],
) -> None:
    """The resamples drawn in one go, or 64 or 1 at a time, are the same resamples."""
    values, resamples = case
    resamples = max(resamples, 130)
    one_go = _plain_bootstrap(values, "category:x", resamples, resamples)
    for block in (1, 64):
        assert (_plain_bootstrap(values, "category:x", resamples, block) == one_go).all()


# --- spread over trials (retrieval._spread, answer_report._spread) -----------------------------

TRIAL_SCORES = [0.0, 0.25, 1 / 3, 0.5, 2 / 3, 1.0, 1 / math.log2(3), 0.3868528072345416]


@st.composite
def trial_tables(draw: st.DrawFn) -> tuple[list[str], list[int], np.ndarray]:
    """Rows sorted by item, one to five trials each, metric values that repeat or vary
    (NaN where an answer metric is not defined)."""
    ids, trials, values = [], [], []
    width = draw(st.integers(1, 4))
    for k in range(draw(st.integers(1, 8))):
        for t in range(draw(st.integers(1, 5))):
            ids.append(f"q{k}")
            trials.append(t)
            values.append(draw(st.lists(st.sampled_from([*TRIAL_SCORES, math.nan]),
                                        min_size=width, max_size=width)))  # fmt: skip
    if max(trials) == 0:
        trials[-1] = 1
    return ids, trials, np.array(values, dtype=np.float64)


def _spread_by_definition(
    ids: list[str], values: np.ndarray, names: list[str], every: bool
) -> list[dict[str, object]]:
    """Per item whose trials differ, each metric's min, max and sample standard deviation
    over the trials that have it (numpy's std); ``every``: all metrics are listed once one
    varies (retrieval), else only those that vary (answers)."""
    out = []
    for ident in dict.fromkeys(ids):
        rows = values[[k for k, i in enumerate(ids) if i == ident]]
        metrics = {}
        for j, name in enumerate(names):
            column = rows[:, j][~np.isnan(rows[:, j])]
            if len(column) > 1 and (every or column.max() > column.min()):
                spread = float(np.std(column, ddof=1))
                metrics[name] = {"min": column.min(), "max": column.max(), "std": spread}
        if metrics and any(m["max"] > m["min"] for m in metrics.values()):  # type: ignore[operator]
            out.append({"id": ident, "trials": len(rows), "metrics": metrics})
    return out


def _spread_rows(table: tuple[list[str], list[int], np.ndarray], retrieval: bool) -> list[str]:
    from evalset.score import answer_report
    from evalset.score import retrieval as scoring
    from evalset.score.report import ItemRows

    ids, trials, values = table
    item_ids = list(dict.fromkeys(ids))
    row_item = np.array([item_ids.index(i) for i in ids], dtype=np.int64)
    if retrieval:
        names = [f"m{j}" for j in range(values.shape[1])]
        rows = ItemRows(ids, trials, [None] * len(ids), ["tuning"] * len(ids), [0] * len(ids),
                        names, values)  # fmt: skip
        return scoring._spread(rows, row_item, item_ids)[1].lines
    return answer_report._spread(values, np.array(trials), row_item, item_ids)[1].lines


def _close(found: object, wanted: object) -> bool:
    """The same JSON, numbers to 1e-12 of their size."""
    if isinstance(wanted, dict):
        return (
            isinstance(found, dict)
            and found.keys() == wanted.keys()
            and all(_close(found[k], wanted[k]) for k in wanted)
        )
    if isinstance(wanted, float):
        return isinstance(found, float) and math.isclose(found, wanted, rel_tol=1e-12)
    return found == wanted


@seeded(150)
@given(trial_tables())
def test_item_spread_rows_are_each_items_spread(
    table: tuple[list[str], list[int], np.ndarray],
) -> None:
    """The per-item spread, computed for all items at once from sums and sums of squares,
    gives the rows json.dumps gives of each item's min, max and standard deviation (the
    deviation to 1e-12: see the next test)."""
    from evalset.score.answer_metrics import NAMES

    ids, trials, values = table
    plain = np.nan_to_num(values, nan=0.5)  # retrieval values are always defined
    names = [f"m{j}" for j in range(values.shape[1])]
    answers = np.column_stack([values[:, j % values.shape[1]] for j in range(len(NAMES))])
    for found, wanted in (
        (_spread_rows((ids, trials, plain), True), _spread_by_definition(ids, plain, names, True)),
        (_spread_rows((ids, trials, answers), False),
         _spread_by_definition(ids, answers, NAMES, False)),
    ):  # fmt: skip
        assert len(found) == len(wanted)
        for line, row in zip(found, wanted, strict=True):
            assert _close(json.loads(line), row), (line, row)
            exact = {**row, "metrics": {m: {**v, "std": json.loads(line)["metrics"][m]["std"]}  # type: ignore[attr-defined]
                                        for m, v in row["metrics"].items()}}  # type: ignore[attr-defined]  # fmt: skip
            assert line == json.dumps(exact)  # all but the deviation: to the byte


def test_item_spread_deviations_are_right_to_the_last_digits() -> None:
    """Every item of two, three or four trials of the usual scores: each deviation written
    is the exactly rounded one (statistics.stdev, in fractions) to a few units in the last
    place, as numpy's std is."""
    import itertools
    import statistics

    ids: list[str] = []
    trials: list[int] = []
    rows: list[list[float]] = []
    for n in (2, 3, 4):
        for k, combo in enumerate(itertools.combinations_with_replacement(TRIAL_SCORES, n)):
            ids += [f"n{n}-{k:04d}"] * n
            trials += list(range(n))
            rows += [[v] for v in combo]
    values = np.array(rows)
    found = {row["id"]: row for row in map(json.loads, _spread_rows((ids, trials, values), True))}
    assert found
    for ident, row in found.items():
        column = [r[0] for i, r in zip(ids, rows, strict=True) if i == ident]
        exact = statistics.stdev(column)
        assert float(np.std(column, ddof=1)) == pytest.approx(exact, rel=1e-15, abs=0)
        assert row["metrics"]["m0"]["std"] == pytest.approx(exact, rel=1e-15, abs=0), column


def test_a_metric_an_item_scored_the_same_in_every_trial_has_no_spread() -> None:
    """0.2 three times has a mean of 0.20000000000000004 in floating point: deviations from
    it are not zero, but the spread of equal scores is."""
    ids, trials = ["a"] * 3 + ["b"] * 4, [0, 1, 2, 0, 1, 2, 3]
    values = np.array([[0.2, 0.0], [0.2, 1.0], [0.2, 0.5], [1 / 3, 0.0], [1 / 3, 1.0],
                       [1 / 3, 0.25], [1 / 3, 1.0]])  # fmt: skip
    found = [json.loads(line) for line in _spread_rows((ids, trials, values), True)]
    assert [row["metrics"]["m0"] for row in found] == [
        {"min": 0.2, "max": 0.2, "std": 0.0},
        {"min": 1 / 3, "max": 1 / 3, "std": 0.0},
    ]
