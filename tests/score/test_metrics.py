"""Set-mode retrieval metrics: hand-computed values per item and per category, the same
numbers as trec_eval (through pytrec_eval) where the two can be compared, and intervals."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scoring_ws import RUN, score_ws, write_run

from evalset.config import find_workspace
from evalset.score.intervals import intervals, paired_difference, resample_means, wilson
from evalset.score.metrics import retrieval_metrics, retrieval_values
from evalset.score.retrieval import Options, score_retrieval

__all__ = ["score_ws"]

L3 = 1 / math.log2(3)  # nDCG discount at rank 2
L4 = 1 / math.log2(4)  # at rank 3

# Per item, K = 1 and 3, section granularity, the run RUN (see scoring_ws.py):
#  a1: rank 2 is a subsection of the expected section; a2: found at 1, then repeated;
#  a3: nothing; m1: ranks 1 and 3 (rank 2 is the whole document, broader than a section);
#  m2: rank 1 is the parent of an expected section (broader: not credited), rank 2 credited.
EXPECTED_ITEMS = {
    "a1": {"hit@1": 0, "hit@3": 1, "mrr": 0.5, "recall@1": 0, "recall@3": 1,
           "precision@1": 0, "precision@3": 1 / 3, "ndcg@1": 0, "ndcg@3": L3, "map": 0.5},
    "a2": {"hit@1": 1, "hit@3": 1, "mrr": 1, "recall@1": 1, "recall@3": 1,
           "precision@1": 1, "precision@3": 1 / 3, "ndcg@1": 1, "ndcg@3": 1, "map": 1},
    "a3": dict.fromkeys(
        ["hit@1", "hit@3", "mrr", "recall@1", "recall@3", "precision@1", "precision@3",
         "ndcg@1", "ndcg@3", "map"], 0),
    "m1": {"hit@1": 1, "hit@3": 1, "mrr": 1, "recall@1": 0.5, "recall@3": 1,
           "precision@1": 1, "precision@3": 2 / 3, "ndcg@1": 1, "ndcg@3": (1 + L4) / (1 + L3),
           "map": (1 + 2 / 3) / 2},
    "m2": {"hit@1": 0, "hit@3": 1, "mrr": 0.5, "recall@1": 0, "recall@3": 0.5,
           "precision@1": 0, "precision@3": 1 / 3, "ndcg@1": 0, "ndcg@3": L3 / (1 + L3),
           "map": 0.25},
}  # fmt: skip
CATEGORIES = {"lookup": ["a1", "a2", "a3"], "multi": ["m1", "m2"]}
SPLITS = {"tuning": ["a1", "a2", "m1"], "holdout": ["a3", "m2"]}


def _score(repo: Path, run: list[dict[str, object]], **options: object) -> dict[str, object]:
    path = write_run(repo / "run.jsonl", run)
    ws = find_workspace(repo)
    report = score_retrieval(ws, repo / "sets" / "docs.yaml", path, Options(ks=(1, 3), **options))  # type: ignore[arg-type]
    data: dict[str, object] = json.loads(report.render())
    return data


def test_each_item_scores_as_computed_by_hand(score_ws: Path) -> None:
    data = _score(score_ws, RUN)
    rows = {row["id"]: row for row in data["items"]}  # type: ignore[attr-defined]
    assert set(rows) == set(EXPECTED_ITEMS)  # r1 unanswerable, d1 draft, x1 retired: not scored
    for ident, expected in EXPECTED_ITEMS.items():
        assert rows[ident]["metrics"] == pytest.approx(expected, abs=1e-12), ident
    assert rows["a1"]["first_rank"] == 2 and rows["a3"]["first_rank"] is None
    assert data["counts"]["unanswerable"] == 2  # type: ignore[index]
    assert data["counts"]["ignored_lines"] == {"draft": 1, "retired": 1, "unanswerable": 1}  # type: ignore[index]


def test_each_category_and_split_is_the_mean_of_its_items(score_ws: Path) -> None:
    data = _score(score_ws, RUN)
    for group, members in [*CATEGORIES.items(), *SPLITS.items()]:
        table = data["categories"].get(group) or data["splits"][group]  # type: ignore[attr-defined,index]
        for metric, entry in table.items():
            expected = sum(EXPECTED_ITEMS[i][metric] for i in members) / len(members)
            assert entry["value"] == pytest.approx(expected, abs=1e-12), (group, metric)
            assert entry["n"] == len(members)
            assert entry["low"] <= entry["value"] <= entry["high"]
    # hand-computed, spelled out: the lookup category
    lookup = data["categories"]["lookup"]  # type: ignore[index]
    assert lookup["hit@1"]["value"] == pytest.approx(1 / 3)
    assert lookup["hit@3"]["value"] == pytest.approx(2 / 3)
    assert lookup["mrr"]["value"] == pytest.approx(0.5)
    assert lookup["precision@3"]["value"] == pytest.approx(2 / 9)
    assert data["categories"]["refuse"]["mrr"] == {  # type: ignore[index]
        "value": None,
        "low": None,
        "high": None,
        "n": 0,
    }
    assert data["overall"]["map"]["value"] == pytest.approx((0.5 + 1 + 0 + 5 / 6 + 0.25) / 5)  # type: ignore[index]


def test_rates_get_wilson_intervals_over_items(score_ws: Path) -> None:
    data = _score(score_ws, RUN)
    hit = data["categories"]["lookup"]["hit@3"]  # type: ignore[index]
    assert (hit["low"], hit["high"]) == pytest.approx(wilson(2 / 3, 3))
    assert wilson(2 / 3, 3) == pytest.approx((0.2077, 0.9385), abs=1e-4)  # the textbook value


def test_document_granularity_counts_documents(score_ws: Path) -> None:
    data = _score(score_ws, RUN, granularity="document")
    rows = {row["id"]: row["metrics"] for row in data["items"]}  # type: ignore[attr-defined]
    # m1 expects guide.md and faq.md; it retrieved faq.md, guide.md, guide.md (a repeat)
    assert rows["m1"]["recall@1"] == 0.5 and rows["m1"]["recall@3"] == 1
    assert rows["m1"]["precision@3"] == pytest.approx(2 / 3) and rows["m1"]["map"] == 1
    # m2 expects only guide.md: its first entry counts now
    assert rows["m2"]["hit@1"] == 1 and rows["m2"]["precision@3"] == pytest.approx(1 / 3)
    assert data["definitions"]["map"]["granularity"] == "document"  # type: ignore[index]


def test_several_trials_count_each_item_once_and_report_the_spread(score_ws: Path) -> None:
    run = [
        {"id": "a1", "retrieved": ["guide.md#returns"], "trial": 0, "latency_ms": 100, "cost": 1},
        {"id": "a1", "retrieved": [], "trial": 1, "latency_ms": 300, "cost": 2},
        {"id": "a2", "retrieved": ["guide.md#shipping"], "trial": 0, "latency_ms": 200},
        {"id": "a2", "retrieved": ["guide.md#shipping"], "trial": 1},
        {"id": "r1", "retrieved": [], "latency_ms": 400},  # not scored, but it took its time
    ]
    data = _score(score_ws, run)
    lookup = data["categories"]["lookup"]["hit@1"]  # type: ignore[index]
    assert lookup["n"] == 3 and lookup["value"] == pytest.approx((0.5 + 1 + 0) / 3)
    spread = data["spread"]  # type: ignore[index]
    assert spread["trials"] == 2
    # per-trial means of hit@1 over the same five items, the three the run left out
    # retrieving nothing in each trial: trial 0 = 2/5, trial 1 = 1/5 (trial 1's mean over
    # its two lines alone, 1/2, was no mean over the set's items)
    assert spread["overall"]["hit@1"]["min"] == pytest.approx(0.2)
    assert spread["overall"]["hit@1"]["max"] == pytest.approx(0.4)
    # per item, only the items whose trials differed (a2 scored the same twice)
    per_item = {s["id"]: s for s in data["item_spread"]}  # type: ignore[attr-defined]
    assert set(per_item) == {"a1"} and per_item["a1"]["trials"] == 2
    assert per_item["a1"]["metrics"]["hit@1"] == pytest.approx(
        {"min": 0, "max": 1, "std": math.sqrt(0.5)}
    )
    assert set(per_item["a1"]["metrics"]) == set(data["definitions"])  # type: ignore[arg-type]
    assert data["latency"] == pytest.approx({"p50": 250, "p95": 385, "total": 1000, "n": 4})
    assert data["cost"] == pytest.approx({"p50": 1.5, "p95": 1.95, "total": 3, "n": 2})
    assert set(data["missing"]) == {"a3", "m1", "m2"}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("numbers", "trials", "spread"),
    [((0,), 1, False), ((3,), 1, False), ((1, 2), 2, True), ((0, 2, 5), 3, True)],
    ids=["one", "one-numbered-3", "numbered-1-and-2", "gaps"],
)
def test_trials_are_counted_by_the_numbers_the_run_gives(
    score_ws: Path, numbers: tuple[int, ...], trials: int, spread: bool
) -> None:
    """However a run numbers its trials, the report counts the ones it has, and a spread
    needs two of them; the items the run left out count in each trial's mean."""
    run = [{"id": "a1", "retrieved": ["guide.md#returns"], "trial": t} for t in numbers]
    run += [{"id": "a2", "retrieved": ["guide.md#shipping"], "trial": t} for t in numbers]
    data = _score(score_ws, run)
    assert data["run"]["trials"] == trials  # type: ignore[index]
    if not spread:
        assert data["spread"] is None and data["item_spread"] == []
        return
    found = data["spread"]  # type: ignore[index]
    assert found["trials"] == trials
    # every trial retrieved the same: the same mean in each, the left-out items included
    assert all(m == {"min": m["min"], "max": m["min"], "std": 0.0, "n": data["counts"]["scored"]}  # type: ignore[index]
               for m in found["overall"].values())  # fmt: skip
    assert data["item_spread"] == []


def _random_case(rng: random.Random) -> tuple[list[list[str]], list[list[str]]]:
    pool = [f"doc{d}.md#s{s}" for d in range(8) for s in range(6)]
    expected, retrieved = [], []
    for _ in range(300):
        expected.append(rng.sample(pool, rng.randint(1, 4)))
        ranked = rng.sample(pool, rng.randint(0, 25))
        retrieved.append(ranked)
    return expected, retrieved


def test_set_mode_equals_trec_eval_on_plain_citations() -> None:
    """With plain, distinct citations and no subsections, set mode is trec_eval with binary
    relevance: hit = success, mrr = recip_rank, precision = P, recall, ndcg = ndcg_cut."""
    from evalset.score.matching import Targets, credited_ranks_plain

    rng = random.Random(19)
    expected, retrieved = _random_case(rng)
    ks = (1, 3, 5, 10)
    metrics = retrieval_metrics(ks)
    ranks = []
    for exp, ret in zip(expected, retrieved, strict=True):
        targets = Targets(len(exp), {c: (i,) for i, c in enumerate(exp)})
        ranks.append(credited_ranks_plain(targets, ret))
    values, _ = retrieval_values(ranks, np.array([len(e) for e in expected]), metrics)
    qrels = {f"q{i}": dict.fromkeys(e, 1) for i, e in enumerate(expected)}
    run = {
        f"q{i}": {doc: float(len(r) - k) for k, doc in enumerate(r)}
        for i, r in enumerate(retrieved)
        if r
    }
    names = {"success": "hit", "recip_rank": "mrr", "P": "precision", "recall": "recall",
             "ndcg_cut": "ndcg", "map": "map"}  # fmt: skip
    measures = {f"{m}.{','.join(map(str, ks))}" if m not in ("recip_rank", "map") else m
                for m in names}  # fmt: skip
    found = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    compared = 0
    for i in range(len(expected)):
        theirs = found.get(f"q{i}")
        for name, ours in names.items():
            for k in ks if name not in ("recip_rank", "map") else [None]:
                key = f"{name}_{k}" if k else name
                mine = values[f"{ours}@{k}" if k else ours][i]
                reference = theirs[key] if theirs is not None else 0.0  # no result: all 0
                assert mine == pytest.approx(reference, abs=1e-9), (i, key)
                compared += 1
    assert compared == 300 * 18


def test_intervals_are_seeded_and_cover_the_mean() -> None:
    rng = np.random.default_rng(3)
    values = rng.random((200, 3))
    first = intervals(values, ["mean", "mean", "rate"], "category:x")
    again = intervals(values, ["mean", "mean", "rate"], "category:x")
    assert first == again
    for iv, column in zip(first, values.T, strict=True):
        assert iv.low < iv.value < iv.high and iv.value == pytest.approx(column.mean())
        assert iv.n == 200
    assert intervals(np.zeros((0, 2)), ["mean", "rate"], "empty")[0].value is None
    same = paired_difference(values, values, "gate:x")[0]
    assert (same.value, same.low, same.high) == (0, 0, 0)


def _plain_resample_means(values: np.ndarray, group: str, resamples: int) -> list[list[float]]:
    """The bootstrap's definition with Python's whole numbers and fractions: the same draws
    (64 resamples at a time), each item counted, the fixed-point values summed exactly, the
    mean rounded once."""
    from fractions import Fraction

    from evalset.score.intervals import DRAWN_ROWS, _rng, fixed_point

    n, width = values.shape
    whole, shift = fixed_point(values, n)
    rng = _rng(0, group)
    kind = np.uint16 if n <= 1 << 16 else np.int64
    out = []
    for start in range(0, resamples, DRAWN_ROWS):
        rows = min(DRAWN_ROWS, resamples - start)
        for draws in rng.integers(0, n, size=(rows, n), dtype=kind).tolist():
            sums = [sum(int(whole[i, j]) for i in draws) for j in range(width)]
            out.append([float(Fraction(sums[j], n * 2 ** int(shift[j]))) for j in range(width)])
    return out


@pytest.mark.parametrize("n", [1, 7, 300])
def test_resampled_means_are_exact_sums_of_whole_draws(n: int) -> None:
    """Each resample's mean is its drawn items' values summed exactly (in fixed point) and
    divided once: the same numbers as whole-number arithmetic gives, so no BLAS, CPU or
    order of additions can change an interval's last digit. Values of every sign and size."""
    from evalset.score.intervals import resample_means

    rng = np.random.default_rng(n)
    values = np.column_stack([
        rng.random(n), -rng.random(n), rng.choice([0.0, 1 / 3, 0.5, 1.0], n),
        rng.random(n) * 1e-9, np.zeros(n), rng.normal(0, 40, n),
    ])  # fmt: skip
    resamples = 2 * 64 + 5  # blocks of 64 resamples, and a part of one
    found = resample_means(values, "x", resamples)
    assert found.tolist() == _plain_resample_means(values, "x", resamples)
    # the fixed point loses nothing a score can show
    assert np.abs(found.mean(axis=0) - values.mean(axis=0)).max() <= 0.5 * np.abs(values).max()


def test_intervals_are_the_same_whatever_the_blas_does() -> None:
    """Resampled sums are exact whatever the BLAS's threads and blocking: one thread or all
    give the same bits. (Sums in single precision, as before, differed in the last digits
    between machines.) The values below were computed once and pinned: a machine that
    computes another digit fails here."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(11)
    values = rng.random((2501, 5)) / 3
    one = resample_means(values, "category:x")  # the one thread scoring uses
    with threadpool_limits(limits=None):
        many = resample_means(values, "category:x", blas_threads=None)
    assert np.array_equal(one, many)
    found = intervals(values, ["mean"] * 5, "category:x")
    assert [(iv.low, iv.high) for iv in found[:2]] == PINNED


PINNED = [(0.16194208241986804, 0.1695545157552004), (0.16089384001109952, 0.1684771745628636)]


def test_the_bootstrap_spread_is_the_standard_error() -> None:
    """Resampled means spread as the standard error of a mean says (a bootstrap that
    resamples items, not something else)."""
    from evalset.score.intervals import resample_means

    rng = np.random.default_rng(7)
    few = rng.choice([0.0, 1 / 3, 0.5, 1.0], size=(3000, 2))
    found = resample_means(few, "x", 4000)
    assert found.mean(axis=0) == pytest.approx(few.mean(axis=0), abs=2e-3)
    expected = few.std(axis=0) / math.sqrt(len(few))  # the standard error of a mean
    assert found.std(axis=0) == pytest.approx(expected, rel=0.08)


def test_percentile_bounds_are_numpys_linear_percentiles() -> None:
    from evalset.score.intervals import percentile_bounds

    rng = np.random.default_rng(5)
    for rows in (1, 2, 999, 1000, 1001):
        data = rng.random((rows, 3))
        low, high = percentile_bounds(data)
        assert low == pytest.approx(np.percentile(data, 2.5, axis=0), abs=1e-15)
        assert high == pytest.approx(np.percentile(data, 97.5, axis=0), abs=1e-15)


def test_wilson_intervals_are_statsmodels_on_every_count() -> None:
    """Against an independent implementation, every count of successes for n up to 60."""
    from statsmodels.stats.proportion import proportion_confint

    for n in range(1, 61):
        for k in range(n + 1):
            low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
            assert wilson(k / n, n) == pytest.approx((low, high), rel=1e-12, abs=1e-15), (k, n)


def test_lists_of_very_different_depths_score_the_same_in_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past ``MATRIX_CELLS`` the lists are scored in groups of like depth (one list credited
    at rank 200,000 among 30,000 would otherwise need a matrix of gigabytes): every value is
    the one the single matrix gives, to the bit."""
    from evalset.score import metrics as module

    rng = random.Random(5)
    lists: list[list[int]] = []
    for _ in range(400):
        depth = rng.choice([1, 2, 3, 10, 20, 70, 300, 5_000])
        lists.append(sorted(rng.sample(range(1, depth + 1), rng.randint(0, min(depth, 6)))))
    expected = np.array([max(len(r), 1) + rng.choice([0, 0, 1, 4]) for r in lists])
    chosen = retrieval_metrics([1, 3, 5, 10, 100])
    whole, first = module._values(lists, expected, chosen)
    monkeypatch.setattr(module, "MATRIX_CELLS", 1_000)
    grouped, first_grouped = retrieval_values(lists, expected, chosen)
    assert np.array_equal(first, first_grouped)
    for name, column in whole.items():
        assert np.array_equal(column, grouped[name]), name
