"""TREC mode: trec_eval's values (through pytrec_eval, trec_eval's own code) on trec_eval's
test data and on made fixtures, to 1e-9; its tie-break; its file format and bad input."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import pytrec_eval

from evalset.score.trec import CUTOFFS, TrecFileError, default_measures, score_trec

DATA = Path(__file__).parent / "data" / "trec_eval"
MEASURES = {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "recip_rank", "P", "recall", "ndcg_cut"}  # fmt: skip
CUT = {"P", "recall", "ndcg_cut"}
"""The measures computed at cutoffs."""


def _reference(
    qrels_path: Path, run_path: Path, cutoffs: Sequence[int] = CUTOFFS
) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """pytrec_eval over the same files, read as trec_eval reads them."""
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            q, _, d, rel = line.split()
            qrels.setdefault(q, {})[d] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for line in run_path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            q, _, d, _, score, *_ = line.split()
            run.setdefault(q, {})[d] = float(score)
    at = ",".join(map(str, cutoffs))
    measures = {m if m not in CUT else f"{m}.{at}" for m in MEASURES}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    overall = {
        m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_query.values()])
        for m in next(iter(per_query.values()))
    }
    return per_query, overall


def _assert_equal(qrels: Path, run: Path, cutoffs: Sequence[int] = CUTOFFS) -> int:
    mine = score_trec(qrels, run, cutoffs)
    per_query, overall = _reference(qrels, run, cutoffs)
    assert set(mine.per_query) == set(per_query)
    compared = 0
    for q, values in per_query.items():
        for m, v in values.items():
            if m == "num_q":
                continue
            assert mine.per_query[q][m] == v, (q, m)  # to the bit: trec_eval's arithmetic
            compared += 1
    for m, v in overall.items():
        # pytrec_eval averages with numpy's pairwise sum; trec_eval adds the queries one by
        # one in id order, as evalset does: the two agree but for the last bits
        assert mine.all[m] == pytest.approx(v, rel=1e-12, abs=1e-300), m
        if m not in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
            total = 0.0
            for q in sorted(per_query, key=str.encode):
                total += per_query[q][m]
            mean = total / len(per_query)
            assert mine.all[m] == (math.exp(mean) if m == "gm_map" else mean), m
    assert set(mine.all) == set(default_measures(cutoffs))
    return compared


def test_trec_eval_test_data_gives_trec_evals_values() -> None:
    compared = _assert_equal(DATA / "qrels-302.test", DATA / "results-302.test")
    assert compared == len(default_measures()) - 1
    result = score_trec(DATA / "qrels-302.test", DATA / "results-302.test")
    # four decimals, as trec_eval prints them
    assert {m: round(float(result.all[m]), 4) for m in ("map", "P_10", "recall_100")} == {
        "map": 0.4175,
        "P_10": 0.7,
        "recall_100": 0.5455,
    }
    assert result.all["num_rel"] == 77 and result.all["num_rel_ret"] == 50


def _fixture(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    """Graded, negative and missing judgements, ties, comments, queries in one file only."""
    rng = random.Random(seed)
    qrels = ["# judgements"]
    run = ["# a run", ""]
    for q in range(120):
        judged = rng.sample(range(80), rng.randint(0, 30))
        qrels += [f"q{q} 0 d{d} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}" for d in judged]
        docs = rng.sample(range(80), rng.randint(0, 60))
        scores = [1.0, 0.5, 0.25, round(rng.random(), 3)]
        run += [f"q{q}\tQ0\td{d}\t{k}\t{rng.choice(scores)}\trun extra" for k, d in enumerate(docs)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run))
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_made_fixtures_give_trec_evals_values(tmp_path: Path, seed: int) -> None:
    assert _assert_equal(*_fixture(tmp_path, seed)) > 1000


def test_rankings_of_very_different_lengths_give_trec_evals_values(tmp_path: Path) -> None:
    """Queries are scored in groups of like length (a matrix as wide as the longest ranking
    of all would need gigabytes for one long ranking among many short ones): one of 5,000
    documents, one judged 3,000 times but ranking three, and many of a few."""
    rng = random.Random(7)
    qrels, run = [], []
    for q in range(300):
        length = rng.choice([1, 1, 2, 3, 5, 9, 17, 40, 130])
        run += [f"q{q} Q0 d{d} {k} {rng.random():.4f} r" for k, d in enumerate(rng.sample(
            range(400), length))]  # fmt: skip
        qrels += [f"q{q} 0 d{d} {rng.choice([0, 1, 2])}" for d in rng.sample(range(400), 12)]
    run += [f"long Q0 d{d} {d} {1 - d / 10_000} r" for d in range(5_000)]
    qrels += [f"long 0 d{d} 1" for d in range(0, 5_000, 97)]
    run += [f"judged Q0 d{d} {d} {1 - d / 10} r" for d in (5, 70, 2_999)]
    qrels += [f"judged 0 d{d} {1 + d % 3}" for d in range(3_000)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    assert _assert_equal(tmp_path / "qrels", tmp_path / "run") > 300 * 30


Lines = tuple[list[str], list[str]]


def _graded(rng: random.Random) -> Lines:
    """Judgements from -2 to 37 (ndcg_cut's gain is the level), ties among the scores."""
    qrels, run = [], []
    for q in range(40):
        judged = rng.sample(range(60), rng.randint(1, 40))
        levels = [rng.choice([-2, -1, 0, 1, 1, 2, 3, 5, 10, 37]) for _ in judged]
        levels[0] = max(levels[0], 0)  # a query judged only below 0 trec_eval cannot score
        qrels += [f"q{q} 0 d{d} {level}" for d, level in zip(judged, levels, strict=True)]
        scores = [rng.choice([1.0, 0.5, rng.random()]) for _ in range(60)]
        run += [f"q{q} Q0 d{d} 0 {scores[d]} r" for d in rng.sample(range(60), rng.randint(1, 60))]
    return qrels, run


def _scores(rng: random.Random) -> Lines:
    """Scores in exponent form, negative, tiny and huge (beyond single precision: ties)."""
    forms = [
        lambda x: f"{x:e}", lambda x: f"{-x:.3E}", lambda x: f"{x * 1e30:.6e}", lambda x: "-0",
        lambda x: f"{x * 1e-40:e}", lambda x: f"{x * 1e39:e}", lambda x: f"{x:.2f}",
        lambda x: f"+{x!r}", lambda x: f"{int(x * 1e12)}",
    ]  # fmt: skip
    qrels, run = [], []
    for q in range(40):
        qrels += [f"q{q} 0 d{d} {rng.choice([0, 1, 2])}" for d in rng.sample(range(50), 20)]
        run += [f"q{q} Q0 d{d} 1 {rng.choice(forms)(rng.random())} r"
                for d in rng.sample(range(50), rng.randint(1, 50))]  # fmt: skip
    return qrels, run


def _names(rng: random.Random) -> Lines:
    """Document ids of punctuation, control bytes other than white space and other scripts,
    ordered by their bytes when their scores tie."""
    letters = "a\x01\x7f_-.:/~!@$%^&*()[]{}|;'\",<>?=+`\u00e9\u4e2d\U0001f600"
    names = sorted(
        {"".join(rng.choice(letters) for _ in range(rng.randint(1, 6))) for _ in range(80)}
    )
    qrels, run = [], []
    for q in range(30):
        qrels += [f"q{q} 0 {d} {rng.choice([0, 1, 2])}" for d in rng.sample(names, 25)]
        run += [f"q{q} Q0 {d} 1 {rng.choice([0.5, 0.25, 1])} r"
                for d in rng.sample(names, rng.randint(1, 60))]  # fmt: skip
    return qrels, run


def _lengths(rng: random.Random) -> Lines:
    """Rankings of one document up to past the last cutoff, and a query judging more
    documents than it retrieves."""
    qrels, run = [], []
    for q in range(30):
        length = rng.choice([1, 2, 4, 999, 1000, 1001, 1500])
        qrels += [f"q{q} 0 d{d} {rng.choice([0, 1, 1, 2])}" for d in rng.sample(range(2000), 60)]
        run += [f"q{q} Q0 d{d} {k} {1 - k / 4000} r" for k, d in enumerate(rng.sample(range(2000),
                length))]  # fmt: skip
    return qrels, run


def _overlap(rng: random.Random) -> Lines:
    """Queries in the run only, in the qrels only, and judged without a relevant document;
    ids that differ only in case or leading zeros."""
    ids = ["1", "01", "001", "Q1", "q1", "q-1", "10", "2"]
    qrels, run = [], []
    for q in ids:
        if rng.random() < 0.8:
            level = rng.choice([[0], [0, 1], [1, 2, 0]])
            qrels += [f"{q} 0 d{d} {rng.choice(level)}" for d in rng.sample(range(30), 10)]
        if rng.random() < 0.8:
            run += [f"{q} Q0 d{d} 1 {rng.random():.3f} r" for d in rng.sample(range(30), 12)]
    qrels.append("1 0 shared 1")  # one query in both files, whatever was drawn
    run.append("1 Q0 shared 1 0.5 r")
    return qrels, run


HOSTILE: dict[str, Callable[[random.Random], Lines]] = {
    "graded": _graded,
    "scores": _scores,
    "names": _names,
    "lengths": _lengths,
    "overlap": _overlap,
}


@pytest.mark.parametrize("cutoffs", [CUTOFFS, (1, 2, 3, 7, 1001, 5000)], ids=["default", "other"])
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("family", list(HOSTILE))
def test_hostile_files_give_trec_evals_values(
    tmp_path: Path, family: str, seed: int, cutoffs: Sequence[int]
) -> None:
    qrels, run = HOSTILE[family](random.Random(seed))
    (tmp_path / "q").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (tmp_path / "r").write_text("\n".join(run) + "\n", encoding="utf-8")
    assert _assert_equal(tmp_path / "q", tmp_path / "r", cutoffs) > 100


def test_ties_are_broken_by_document_id_in_reverse_order(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 x\n1 Q0 b 2 0.5 x\n1 Q0 c 3 0.5 x\n")
    # c, b, a: the relevant b is second
    assert score_trec(tmp_path / "q", tmp_path / "r").all["recip_rank"] == 0.5
    _assert_equal(tmp_path / "q", tmp_path / "r")


# scores that differ in double precision but not in trec_eval's single precision (a C float)
SINGLE = {
    "decimals": ("0.300000000001", "0.3"),
    "eight-digits": ("0.30000001", "0.3"),
    "beyond-2**24": ("16777217", "16777216"),
    "below-the-smallest": ("1e-46", "0"),
    "beyond-the-largest": ("2e39", "1e39"),
    "negative": ("-0.6999999999999", "-0.7"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(SINGLE))
def test_scores_are_compared_in_trec_evals_single_precision(tmp_path: Path, name: str) -> None:
    higher, lower = SINGLE[name]
    (tmp_path / "q").write_text("1 0 a 1\n")  # tied with b, a ranks after it (ids reversed)
    (tmp_path / "r").write_text(f"1 Q0 a 1 {higher} x\n1 Q0 b 2 {lower} x\n")
    assert score_trec(tmp_path / "q", tmp_path / "r").all["recip_rank"] == 0.5
    _assert_equal(tmp_path / "q", tmp_path / "r")
    (tmp_path / "r").write_text(f"1 Q0 a 1 {higher} x\n1 Q0 b 2 -1e30 x\n")
    assert score_trec(tmp_path / "q", tmp_path / "r").all["recip_rank"] == 1.0


def test_only_queries_in_both_files_are_scored(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 x\n3 Q0 a 1 1 x\n")
    result = score_trec(tmp_path / "q", tmp_path / "r")
    assert result.all["num_q"] == 1 and list(result.per_query) == ["1"]


def test_json_text_is_the_json_document(tmp_path: Path) -> None:
    result = score_trec(*_fixture(tmp_path, 4))
    assert json.loads(result.to_json_text()) == result.to_json()


CASES = {
    "qrels-columns": ("1 0 a\n", "1 Q0 a 1 1 x\n", "{q}:1: has 3 column(s); a qrels line has 4 "
                      "(query, iteration, document, relevance)."),
    "qrels-five-columns": ("1 0 a 1\n1 0 b 1 extra\n", "1 Q0 a 1 1 x\n",
                           "{q}:2: has 5 column(s); a qrels line has 4 (query, iteration, "
                           "document, relevance)."),
    "run-columns": ("1 0 a 1\n", "# run\n1 Q0 a 1 1 x\n1 Q0 b 1 0.5\n",
                    "{r}:3: has 5 column(s); a run line has 6 (query, iteration, document, "
                    "rank, score, run name)."),
    "score": ("1 0 a 1\n", "1 Q0 a 1 high x\n", "{r}:1: score 'high' is not a number; the fifth "
              "column of a run line is the score (higher is retrieved first)."),
    "score-underscore": ("1 0 a 1\n", "1 Q0 a 1 1_0 x\n", "{r}:1: score '1_0' is not a number; "
                         "the fifth column of a run line is the score (higher is retrieved "
                         "first)."),
    **{f"score-{name}": ("1 0 a 1\n", f"1 Q0 a 1 {text} x\n", f"{{r}}:1: score {text!r} is "
                         f"{what}; the fifth column of a run line is the score (higher is "
                         "retrieved first).")
       for name, text, what in (("inf", "inf", "not a finite number"),
                                ("minus-infinity", "-Infinity", "not a finite number"),
                                ("nan", "nan", "not a number"),
                                ("hex", "0x1p3", "not a number"))},
    # clipped: before, all 5,000 digits were quoted
    "score-5000-digits": ("1 0 a 1\n", f"1 Q0 a 1 {'9' * 5000} x\n", "{r}:1: score '"
                          f"{'9' * 23}… is not a finite number; the fifth column of a run "
                          "line is the score (higher is retrieved first)."),
    # trec_eval reads a lone CR as a space: before, the run's second line became ignored
    # columns of its first, and the run was scored on one document
    "run-cr-line-ends": ("1 0 a 1\n1 0 b 1\n", "1 Q0 a 1 2 x\r1 Q0 b 2 1 x\r", "{r}:1: ends a "
                         "line with a carriage return alone, which joins it to the next "
                         "(trec_eval reads it as a space); save the run file with LF or CRLF "
                         "line ends (for example `tr '\\r' '\\n'`)."),
    "qrels-cr-line-ends": ("1 0 a 1\r\n1 0 b 1\r1 0 c 1\r\n", "1 Q0 a 1 2 x\n", "{q}:2: ends a "
                           "line with a carriage return alone, which joins it to the next "
                           "(trec_eval reads it as a space); save the qrels file with LF or "
                           "CRLF line ends (for example `tr '\\r' '\\n'`)."),
    "relevance": ("1 0 a yes\n", "1 Q0 a 1 1 x\n", "{q}:1: relevance 'yes' is not a number; the "
                  "fourth column of a qrels line is the judgement (0 not relevant, 1 or more "
                  "relevant)."),
    "run-duplicate": ("1 0 a 1\n", "1 Q0 a 1 1 x\n1 Q0 a 2 0.5 x\n", "{r}:2: retrieves document "
                      "'a' for query '1' a second time; a run lists each document once per "
                      "query."),
    "qrels-duplicate": ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 x\n", "{q}:2: judges document 'a' for "
                        "query '1' a second time; keep one judgement."),
    "empty-run": ("1 0 a 1\n", "# nothing\n\n", "{r}: holds no result; a run line is "
                  "`qid Q0 docno rank score run`."),
    "not-utf8": ("1 0 a 1\n", b"1 Q0 \xff 1 1 x\n", "{r}:1:6: is not valid UTF-8 (byte 0xff); "
                 "save the file as UTF-8."),
    "utf-16": ("1 0 a 1\n".encode("utf-16"), "1 Q0 a 1 1 x\n", "{q}: is UTF-16 text, but a TREC "
               "qrels file must be UTF-8; save it as UTF-8 (for example `iconv -f UTF-16 -t "
               "UTF-8`)."),
    # trec_eval stops too ("No queries with both results and relevance info"); before,
    # every measure was printed as 0 with exit 0
    "no-shared-query": ("q1 0 d1 1\nq1 0 d2 1\n", "Q1 Q0 d1 1 2.0 run\nQ1 Q0 d2 2 1.0 run\n",
                        "{r}: shares no query with {q} (the run's first is 'Q1', the qrels' "
                        "'q1'), so there is nothing to score (trec_eval stops with \"No queries "
                        "with both results and relevance info\"); give the run and the qrels of "
                        "the same topics."),
    "no-shared-query-long-ids": ("q1 0 d1 1\n", f"{'Q' * 5000} Q0 d1 1 2.0 run\n",
                                 f"{{r}}: shares no query with {{q}} (the run's first is "
                                 f"'{'Q' * 23}…, the qrels' 'q1'), so there is nothing to "
                                 "score (trec_eval stops with \"No queries with both results "
                                 "and relevance info\"); give the run and the qrels of the "
                                 "same topics."),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_trec_files_are_one_located_sentence(name: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    qrels, run, message = CASES[name]
    (tmp_path / "evalset.toml").write_text("")
    if isinstance(qrels, bytes):
        (tmp_path / "q").write_bytes(qrels)
    else:
        (tmp_path / "q").write_text(qrels)
    if isinstance(run, bytes):
        (tmp_path / "r").write_bytes(run)
    else:
        (tmp_path / "r").write_text(run)
    with pytest.raises(TrecFileError) as caught:
        score_trec(tmp_path / "q", tmp_path / "r")
    assert str(caught.value) == message.format(q=tmp_path / "q", r=tmp_path / "r")
    done = cli(tmp_path, "score", "retrieval", "--qrels", "q", "--run", "r", "--json")
    assert done.code == 2
    assert done.err.strip() == "evalset: " + message.format(q="q", r="r")
    assert json.loads(done.out)["exit_code"] == 2
    assert "Traceback" not in done.out + done.err


CARRIAGE_RETURNS = {
    "crlf": "1 Q0 a 1 2 x\r\n1 Q0 b 2 1 x\r\n",
    "doubled-before-lf": "1 Q0 a 1 2 x\r\r\n1 Q0 b 2 1 x\r\r\n",
    "at-the-end": "1 Q0 a 1 2 x\n1 Q0 b 2 1 x\r",
    "before-a-space": "1 Q0 a 1 2 x\r \n1 Q0 b 2 1 x\n",
}


@pytest.mark.parametrize("name", list(CARRIAGE_RETURNS))
def test_a_carriage_return_that_joins_no_lines_is_white_space(tmp_path: Path, name: str) -> None:
    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 1\r\n")
    (tmp_path / "r").write_bytes(CARRIAGE_RETURNS[name].encode())
    assert score_trec(tmp_path / "q", tmp_path / "r").all["num_ret"] == 2
    _assert_equal(tmp_path / "q", tmp_path / "r")


def test_the_command_prints_trec_evals_names(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli(
        tmp_path, "score", "retrieval", "--qrels", str(DATA / "qrels-302.test"),
        "--run", str(DATA / "results-302.test"), "--json",
    )  # fmt: skip
    assert done.code == 0, done.err
    document = json.loads(done.out)
    required = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "recip_rank", "P_5", "P_10",
                "recall_5", "recall_10", "ndcg_cut_10"]  # fmt: skip
    assert all(m in document["all"] for m in required)
    assert list(document["per_query"]) == ["302"]
    assert all(m in document["per_query"]["302"] for m in required[1:])
    text = cli(
        tmp_path, "score", "retrieval", "--qrels", str(DATA / "qrels-302.test"),
        "--run", str(DATA / "results-302.test"), "--k", "5,10",
    )  # fmt: skip
    assert text.code == 0
    assert "map                   \tall\t0.4175" in text.out.splitlines()
    assert "P_15" not in text.out
    usage = cli(tmp_path, "score", "retrieval", "set", "--qrels", "q", "--run", "r")
    assert usage.code == 2 and "TREC mode takes --qrels QRELS --run RUN" in usage.err


def test_a_run_whose_queries_are_interleaved(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n2 0 c 2\n")
    (tmp_path / "r").write_text(
        "1 Q0 x 1 0.9 r\n2 Q0 c 1 0.8 r\n1 Q0 a 2 0.7 r\n2 Q0 b 2 0.9 r\n1 Q0 y 3 0.1 r\n"
    )
    result = score_trec(tmp_path / "q", tmp_path / "r")
    assert result.per_query["1"]["recip_rank"] == 0.5 and result.per_query["2"]["map"] == 1
    _assert_equal(tmp_path / "q", tmp_path / "r")


# a judgement as written, and the level trec_eval's atol() reads (glibc holds a number beyond
# a C long at its largest or smallest value)
ATOL = {
    "2": 2, "+2": 2, "-1": -1, "2.7": 2, "1e300": 1, "3E2": 3, ".5": 0, "-.5": 0,
    "99999999999999999999999": 2**63 - 1, "-99999999999999999999": -(2**63),
    "0_1": 0, "1_000": 1,  # atol() stops at "_"; Python reads it between digits
    ".5e1": 0, "+.3e1": 0, "-.9e1": 0, ".5E10": 0,  # and at the point, exponent or not
}  # fmt: skip


@pytest.mark.parametrize("text", list(ATOL))
def test_a_judgement_is_read_as_trec_evals_atol_reads_it(tmp_path: Path, text: str) -> None:
    (tmp_path / "q").write_text(f"1 0 a {text}\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n")
    level = ATOL[text]
    result = score_trec(tmp_path / "q", tmp_path / "r")
    assert result.all["num_rel"] == 1 + (level >= 1)
    assert result.all["recip_rank"] == (1.0 if level >= 1 else 0.5)
    # the same as the level written as an integer, which pytrec_eval reads (as a C int)
    (tmp_path / "plain").write_text(f"1 0 a {level}\n1 0 b 1\n")
    assert result.per_query == score_trec(tmp_path / "plain", tmp_path / "r").per_query
    if abs(level) < 2**31:
        _assert_equal(tmp_path / "plain", tmp_path / "r")


def test_an_underscore_is_read_as_c_reads_it_in_a_long_file(tmp_path: Path) -> None:
    filler = "".join(f"2 0 d{k} 1\n" for k in range(100))
    (tmp_path / "q").write_text(filler + "1 0 a 0_1\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n")
    assert score_trec(tmp_path / "q", tmp_path / "r").all["recip_rank"] == 0.5  # a: atol 0
    run = "".join(f"2 Q0 d{k} {k + 1} {100 - k} x\n" for k in range(100))
    (tmp_path / "r").write_text(run + "1 Q0 a 1 2 x\n1 Q0 b 2 1_0 x\n")
    with pytest.raises(TrecFileError, match=r":102: score '1_0' is not a number"):
        score_trec(tmp_path / "q", tmp_path / "r")


SET_MODE_ONLY = {
    "-o": ("-o", "out.json"),
    "--html": ("--html", "out.html"),
    "--format md": ("--format", "md"),
    "--granularity": ("--granularity", "document"),
    "--snapshot": ("--snapshot", "abc"),
    "--allow-stale": ("--allow-stale",),
    "--skip-invalid": ("--skip-invalid",),
}


@pytest.mark.parametrize("option", list(SET_MODE_ONLY))
def test_an_option_of_set_mode_is_refused_in_trec_mode(tmp_path: Path, cli, option: str) -> None:  # type: ignore[no-untyped-def]
    done = cli(
        tmp_path, "score", "retrieval", "--qrels", str(DATA / "qrels-302.test"),
        "--run", str(DATA / "results-302.test"), *SET_MODE_ONLY[option],
    )  # fmt: skip
    assert done.code == 2 and done.out == ""
    assert (
        "TREC mode prints trec_eval's measures (--json: as JSON; redirect it to keep it) and "
        f"takes no {option}" in " ".join(done.err.split())
    )
    assert list(tmp_path.iterdir()) == []  # nothing written, where before -o wrote nothing either
    missing = cli(tmp_path, "score", "retrieval", "--qrels", str(DATA / "qrels-302.test"))
    assert missing.code == 2 and "TREC mode needs --run RUN too" in missing.err
