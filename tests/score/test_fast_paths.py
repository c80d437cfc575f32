"""Every fast path of scoring gives exactly what its plain reference gives: the reference is
written out here, in the fewest obvious lines, and both are fed generated inputs, the
hostile and edge ones included (seeded: the same cases on every run)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalset.score.report import number_texts, row_texts


def seeded(examples: int) -> settings:
    """The same ``examples`` generated cases on every run, however long each takes."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- numbers as JSON writes them (report.number_texts, report.row_texts) ---------------------


EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 1e-7, 1e-5, 1e16, 1e17, 5e-324,
         2.2250738585072014e-308, 1.7976931348623157e308, math.nan, math.inf, -math.inf,
         1 / math.log2(3), math.nextafter(1 / 3, 1), math.nextafter(1 / 3, 0),
         math.nextafter(1.0, 0), math.nextafter(0.0, 1)]  # fmt: skip
NUMBERS = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True))


@seeded(300)
@given(st.lists(st.lists(NUMBERS, min_size=3, max_size=3), max_size=30))
def test_number_texts_are_json_dumps_of_each_number(rows: list[list[float]]) -> None:
    """Negative zero beside zero, NaN and infinities, subnormals, neighbours in the last bit:
    each number is written as ``json.dumps`` writes it, in any shape."""
    values = np.array(rows, dtype=np.float64).reshape(len(rows), 3)
    assert number_texts(values).tolist() == [[json.dumps(v) for v in row] for row in rows]
    cube = values.reshape(len(rows), 1, 3)
    assert number_texts(cube).ravel().tolist() == [json.dumps(v) for row in rows for v in row]
    flat = values.ravel()
    assert number_texts(flat).tolist() == [json.dumps(v) for v in flat.tolist()]
    columns = values.T.tolist()
    assert number_texts(values.T).tolist() == [[json.dumps(v) for v in col] for col in columns]


@seeded(300)
@given(
    st.lists(
        st.lists(st.sampled_from([0.0, -0.0, 1.0, 0.5, math.nan, 1e-7]), min_size=2, max_size=2),
        max_size=30,
    ),
    st.integers(0, 3),
)
def test_row_texts_are_json_dumps_of_each_row(rows: list[list[float]], width: int) -> None:
    """Rows that differ in one column only (or only in the sign of a zero) are formatted as
    themselves; a width of 0 repeats the template."""
    values = np.array([row[:width] + row[: max(0, width - 2)] for row in rows], dtype=np.float64)
    values = values.reshape(len(rows), width)
    names = [f"m{j}" for j in range(width)]
    template = "{" + ", ".join(f'"{n}": %s' for n in names) + "}"
    expected = [json.dumps(dict(zip(names, row, strict=True))) for row in values.tolist()]
    assert row_texts(values, template) == expected


# --- run files (runfile.read_run) -------------------------------------------------------------

GOOD_CITATIONS = ["a.md", "a.md#x", "b/c.md#y-z", "é.md#ü"]
BAD_CITATIONS = ["/abs.md", "a.md#", "a.md#x y", "a\\b.md", "#x", "a.md#x#y", "a/../b.md"]
CHUNKS = [{"doc": "a.md", "text": "some text"}, {"doc": "a.md", "start": 0, "end": 3}]
BAD_ENTRIES = [{"doc": ""}, {"doc": "a.md#x", "text": "t"}, {"doc": "a.md"}, {"doc": "a.md",
               "text": " "}, {}, ["a.md"], [], 1, 1.0, True, None]  # fmt: skip
ENTRIES = st.one_of(
    st.sampled_from(GOOD_CITATIONS),
    st.sampled_from(BAD_CITATIONS),
    st.sampled_from(CHUNKS),
    st.sampled_from(BAD_ENTRIES),
)
ABSENT = object()


@st.composite
def run_objects(draw: st.DrawFn) -> object:
    """A run line's value: mostly objects with every key right or wrong in some way."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([3, [1], "text", None, True, 1.5, []]))
    obj: dict[str, object] = {}
    choices = {
        "id": ["q1", "q1", "q2", "q3", "", 7, None, ABSENT],
        "trial": [ABSENT, ABSENT, 0, 1, 2, -1, True, 1.0, "1"],
        "latency_ms": [ABSENT, ABSENT, 5, 0.5, -1, "fast", math.nan, math.inf],
        "cost": [ABSENT, ABSENT, 0.001, None, -0.5],
        "answer": [ABSENT, ABSENT, "an answer", "", 3, ["x"], "\U0001f600", "\ud800", "x\udc00"],
        "contexts": [ABSENT, ABSENT, ["a passage"], [], [1], "one"],
        "metadata": [ABSENT, ABSENT, {"any": [1, 2]}, {"\udfff": 1}],
        "retreived": [ABSENT, ABSENT, ABSENT, ABSENT, ABSENT, []],
    }
    for key, values in choices.items():
        value = draw(st.sampled_from(values))
        if value is not ABSENT:
            obj[key] = value
    shape = draw(st.integers(0, 9))
    if shape == 0:
        obj["retrieved"] = draw(st.sampled_from(["a.md", None, {"doc": "a.md"}]))
    elif shape < 9:
        pool = st.sampled_from(GOOD_CITATIONS) if shape < 5 else ENTRIES
        obj["retrieved"] = draw(st.lists(pool, max_size=6))
    return obj


BLANKS = ["", " ", "\t", "\r", "  \t ", "\x0c", "\xa0", "\u2028", "\x1c"]
BROKEN = ["{", "x", '{"id": "q1"} {"id": "q2"}', '{"id": "q1",}', "[" * 3000, "1" * 5000,
          '{"id": "q1", "retrieved": ["a.md"]', "\ufeff{}", "NaN"]  # fmt: skip


@st.composite
def run_texts(draw: st.DrawFn) -> str:
    """A run file: generated lines, with blank, broken and decorated ones among them."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(BLANKS)))
            continue
        if kind == 1:
            lines.append(draw(st.sampled_from(BROKEN)))
            continue
        obj = draw(run_objects())
        try:  # a lone surrogate can only be written as an escape
            text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
            text.encode()
        except UnicodeEncodeError:
            text = json.dumps(obj)
        before, after = draw(st.sampled_from([("", ""), ("", ""), ("  ", ""), ("", " \t"),
                                              ("", "\r"), (" ", " \r")]))  # fmt: skip
        lines.append(before + text + after)
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))
    return draw(st.sampled_from(["", "", "\ufeff"])) + text


LONE_SURROGATE = (
    'holds a lone surrogate (a "\\ud800" to "\\udfff" escape without its pair), which is not '
    "text; escape a character beyond U+FFFF as its pair of surrogates, or write it as UTF-8"
)


def _citation_problem(entry: str) -> str | None:
    from evalset.sets.citations import Citation

    try:
        Citation.parse(entry)
    except ValueError as exc:
        return f"is not a citation ({exc})"
    return None


def _plain_run(text: str) -> tuple[list[tuple[object, ...]], list[tuple[int, str]]]:
    """The run file's rules without a fast path: each line is ``json.loads`` of itself, its
    problems are looked for in order (its entries one after the other, each citation parsed
    where it stands) and a line refused for a problem of its own takes no (id, trial) away
    from a later line."""
    from evalset.score.runfile import Chunk, _entry_problem, _problem

    lines: list[tuple[object, ...]] = []
    invalid: list[tuple[int, str]] = []
    first: dict[tuple[str, int], int] = {}
    for n, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            invalid.append((n, f"is not JSON (column {exc.colno}: {exc.msg})"))
            continue
        except (ValueError, RecursionError):
            invalid.append((n, "is not JSON that can be read (too deeply nested, or a number "
                            "too long)"))  # fmt: skip
            continue
        try:
            json.dumps(obj, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            invalid.append((n, LONE_SURROGATE))
            continue
        problem = _problem(obj, plain=True)  # everything but the retrieved entries
        retrieved = obj.get("retrieved") if problem is None else None
        for k, entry in enumerate(retrieved or []):
            wrong = _citation_problem(entry) if isinstance(entry, str) else _entry_problem(entry)
            if wrong:
                problem = f"item {obj['id']}: retrieved[{k}] {wrong}"
                break
        if problem is None:
            key = (obj["id"], obj.get("trial", 0))
            if key in first:
                problem = (
                    f"repeats item {key[0]} trial {key[1]} of line {first[key]}; number "
                    'repeated runs with "trial"'
                )
            else:
                first[key] = n
        if problem is not None:
            invalid.append((n, problem))
            continue
        plain = all(isinstance(e, str) for e in retrieved or [])
        entries = None if retrieved is None else [
            e if isinstance(e, str)
            else Chunk(e["doc"], text=e["text"]) if e.get("text") is not None
            else Chunk(e["doc"], start=e["start"], end=e["end"])
            for e in retrieved
        ]  # fmt: skip
        lines.append((n, obj["id"], obj.get("trial", 0), entries, obj.get("latency_ms"),
                      obj.get("cost"), obj.get("answer"), plain, obj.get("contexts")))  # fmt: skip
    return lines, sorted(invalid)


@seeded(400)
@given(run_texts())
def test_run_files_are_read_as_each_line_read_on_its_own(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    """Blank and white-space lines, CR LF, a byte-order mark, spaces around a line, values
    that are no object, chunks among citations, entries that cannot be hashed, repeated
    (id, trial) beside refused lines, lone surrogates: ``read_run`` keeps and refuses what
    the plain rules keep and refuse, with the same sentence."""
    from evalset.score.runfile import RunFileError, read_run

    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    path.write_bytes(text.encode("utf-8"))
    lines, invalid = _plain_run(text)
    if not lines and not invalid:
        with pytest.raises(RunFileError, match="holds no run line"):
            read_run(path, skip_invalid=True, defer=True)
        return
    run = read_run(path, skip_invalid=True, defer=True)
    found = [
        (r.line, r.id, r.trial, r.retrieved, r.latency_ms, r.cost, r.answer, r.plain, r.contexts)
        for r in run.lines
    ]
    assert found == lines
    assert run.invalid == invalid


def test_a_line_refused_for_its_citation_takes_no_trial_from_the_next(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Citations are checked once per distinct text, after the other checks: a line refused
    for one still left its (id, trial) taken, so the next line of the same item and trial
    was refused as a repeat; and a chunk's problem was named before a bad citation ahead of
    it."""
    from evalset.score.runfile import read_run

    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"id": "q1", "retrieved": ["a.md#x y"]}\n'
        '{"id": "q1", "retrieved": ["a.md"]}\n'
        '{"id": "q2", "retrieved": ["a.md#", {"doc": ""}]}\n',
        encoding="utf-8",
    )
    run = read_run(path, skip_invalid=True, defer=True)
    assert [(line.line, line.id, line.retrieved) for line in run.lines] == [(2, "q1", ["a.md"])]
    assert run.invalid == [
        (1, "item q1: retrieved[0] is not a citation (citation 'a.md#x y' has white space in "
            "its section id)"),
        (3, "item q2: retrieved[0] is not a citation (citation 'a.md#' ends with '#': name a "
            "section or drop the '#')"),
    ]  # fmt: skip


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
@seeded(20)
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


@seeded(300)
@given(ranked_lists())
def test_retrieval_values_are_each_metric_by_its_definition(
    case: tuple[list[list[int]], list[int], list[int]],
) -> None:
    """hit, recall, precision and mrr exactly; nDCG and MAP to a few units in the last place
    (see the next test), with K past the list's end and more expected sources than K."""
    lists, counts, ks = case
    values = _values(lists, counts, ks)
    for i, (ranks, expected) in enumerate(zip(lists, counts, strict=True)):
        for name, wanted in _by_definition(ranks, expected, ks).items():
            found = float(values[name][i])
            if name.startswith(("ndcg", "map")):
                assert found == pytest.approx(wanted, rel=4e-16, abs=0), (name, ranks, expected)
            else:
                assert found == wanted, (name, ranks, expected)


@pytest.mark.xfail(
    strict=True,
    reason="nDCG and MAP are summed by numpy's pairwise sum, which groups the terms by the "
    "width of the widest list: a perfect ranking of 8+ sources scores 0.9999999999999998 "
    "(1.0000000000000002 at ndcg@20), and a list's last digit depends on the other lists. "
    "Summing in rank order (cumsum) fixes it and equals trec_eval to the bit, but changes "
    "the last digit of some ordinary reports' ndcg@10 and map",
)
@seeded(100)
@given(ranked_lists())
def test_ndcg_and_map_are_summed_in_rank_order_as_trec_eval_sums_them(
    case: tuple[list[list[int]], list[int], list[int]],
) -> None:
    lists, counts, ks = case
    perfect = [list(range(1, n + 1)) for n in range(1, 21)]
    values = _values(perfect, list(range(1, 21)), ks)
    assert all((values[f"ndcg@{k}"] == 1.0).all() for k in ks)  # no metric passes 1
    values = _values(lists, counts, ks)
    for i, (ranks, expected) in enumerate(zip(lists, counts, strict=True)):
        alone = _values([ranks], [expected], ks)  # the same list scored without the others
        for name, wanted in _by_definition(ranks, expected, ks).items():
            assert float(values[name][i]) == wanted == float(alone[name][0]), (name, ranks)


POOL = [f"d{d}.md#s{s}" for d in range(4) for s in range(6)]


@seeded(150)
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
    with. At document granularity expected documents count once each."""
    from evalset.sets.citations import Citation

    sources = [Citation.parse(e) for e in expected]
    if granularity == "document":
        docs = list(dict.fromkeys(s.doc for s in sources))
    credited: set[int] = set()
    ranks: list[int] = []
    for rank, citations in enumerate(entries, 1):
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


@seeded(300)
@given(outlined_snapshots(), st.data())
def test_entries_are_credited_as_the_matching_rule_says(
    snapshot: object, data: st.DataObject
) -> None:
    """Repeated entries, an entry inside several expected sections, expected whole
    documents, sections the snapshot lacks, empty lists, chunks standing for several
    sections or none: the plain path, the general one and the rule written out agree, at
    both granularities, with one matcher (and its remembered keys) over many items."""
    from evalset.score.matching import Matcher, credited_ranks, credited_ranks_plain
    from evalset.score.outline import Outlines
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


@seeded(300)
@given(outlined_snapshots())
def test_the_sections_inside_a_section_are_those_it_holds(snapshot: object) -> None:
    """``DocumentView.inside`` (every section's descendants found at once, by position) is
    ``within`` asked of each pair: deeper, and its heading and text inside the other's."""
    from evalset.score.outline import Outlines

    outlines = Outlines(snapshot)  # type: ignore[arg-type]
    for doc in snapshot.documents:  # type: ignore[attr-defined]
        view = outlines.view(doc)
        assert view is not None
        for outer in view.parts:
            inside = [p for p in view.parts if view.within(p, outer)]
            assert sorted(view.inside(outer)) == sorted(inside)


# --- the report as written (report.ItemRows, RenderedRows, Report.render, json_string) --------

# every character class JSON treats apart: quotes, backslashes, controls, non-ASCII, the
# line separators JSON leaves as they are, and lone surrogates (json.loads makes them)
HOSTILE = st.lists(
    st.one_of(
        st.sampled_from(['"', "\\", "/", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "é", "€",
                         "\u2028", "\u2029", "\x85", "\ufeff", "\U0001f600", "\ud800", "\udfff",
                         "%s", "%", "}", "{", '", "x": "']),
        st.characters(codec=None, exclude_categories=()),
    ),
    max_size=8,
).map("".join)  # fmt: skip
WRITABLE = HOSTILE.map(lambda t: t.encode("utf-8", "replace").decode("utf-8"))
"""Hostile texts without lone surrogates, which no report holds: run files refuse them, and
a set file's YAML parser cannot make one."""
METRIC_NAMES = ["hit@1", "mrr", "recall@5", "ndcg@10", "map", "coverage", "violation_rate"]
SPLITS = ["tuning", "holdout", "unassigned"]  # what side() gives: written without escaping


@seeded(300)
@given(HOSTILE)
def test_json_string_is_json_dumps_of_a_string(text: str) -> None:
    from evalset.score.report import json_string

    assert json_string(text) == json.dumps(text, ensure_ascii=False)
    assert json.loads(json_string(text)) == text


@st.composite
def item_rows(draw: st.DrawFn, texts: st.SearchStrategy[str] = HOSTILE) -> object:
    from evalset.score.report import ItemRows

    n = draw(st.integers(0, 12))
    metrics = draw(st.lists(st.sampled_from(METRIC_NAMES), max_size=4, unique=True))
    values = np.array(
        draw(st.lists(st.lists(NUMBERS, min_size=len(metrics), max_size=len(metrics)),
                      min_size=n, max_size=n)), dtype=np.float64,
    ).reshape(n, len(metrics))  # fmt: skip
    flags = st.lists(st.booleans(), min_size=n, max_size=n)
    return ItemRows(
        draw(st.lists(texts, min_size=n, max_size=n)),
        draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
        draw(st.lists(st.one_of(st.none(), texts), min_size=n, max_size=n)),
        draw(st.lists(st.sampled_from(SPLITS), min_size=n, max_size=n)),
        draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)),
        metrics,
        values,
        draw(st.one_of(st.just([]), flags)),
        draw(st.one_of(st.just([]), flags)),
    )


def _plain_row(rows: object, k: int) -> dict[str, object]:
    """One item row as the README describes it."""
    r = rows  # an ItemRows
    row = {"id": r.ids[k], "trial": r.trials[k], "category": r.categories[k],  # type: ignore[attr-defined]
           "split": r.splits[k], "first_rank": r.first_ranks[k] or None,  # type: ignore[attr-defined]
           "metrics": dict(zip(r.metrics, r.values[k].tolist(), strict=True))}  # type: ignore[attr-defined]  # fmt: skip
    if r.stale and r.stale[k]:  # type: ignore[attr-defined]
        row["stale"] = True
    if r.missing and r.missing[k]:  # type: ignore[attr-defined]
        row["missing"] = True
    return row


@seeded(300)
@given(item_rows())
def test_item_rows_are_json_dumps_of_each_row(rows: object) -> None:
    """Ids and categories with quotes, backslashes, control characters, non-ASCII and lone
    surrogates; every kind of number; rows that repeat: each line is ``json.dumps`` of the
    row, byte for byte."""
    lines = rows.lines()  # type: ignore[attr-defined]
    assert lines == [json.dumps(_plain_row(rows, k), ensure_ascii=False) for k in range(len(lines))]
    assert len(lines) == len(rows.ids)  # type: ignore[attr-defined]


def _plain_render(document: dict[str, object]) -> str:
    """A report's text from its data, by json.dumps alone: indented JSON, each element of
    the long lists on a line of its own, then the digest of what comes before it."""
    import hashlib

    from evalset.score.report import ANSWER_LISTS, LISTS

    parts = []
    for key, value in document.items():
        if key in LISTS or key in ANSWER_LISTS:
            rows = [json.dumps(v, ensure_ascii=False) for v in value]  # type: ignore[attr-defined]
            text = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        parts.append(f"  {json.dumps(key)}: {text}")
    body = "{\n" + ",\n".join(parts)
    digest = "sha256:" + hashlib.sha256(body.encode()).hexdigest()
    return f'{body},\n  "digest": "{digest}"\n}}\n'


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), NUMBERS, WRITABLE),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(WRITABLE, inner, max_size=3)),
    max_leaves=8,
)  # fmt: skip


@seeded(100)
@given(item_rows(WRITABLE), st.data())
def test_a_rendered_report_is_json_dumps_of_its_data(rows: object, data: st.DataObject) -> None:
    """The report's text (rows formatted a line at a time, lists as RenderedRows or as
    dictionaries) is the plain rendering of ``to_json()``, and parses back to it."""
    from evalset.score.report import RenderedRows, Report

    document: dict[str, object] = {}
    for key in ["evalset", "report", "settings", "overall", "misses", "stale", "invalid_lines",
                "answer_misses", "item_spread", "judge_errors"]:  # fmt: skip
        value = data.draw(st.lists(st.dictionaries(WRITABLE, JSON_VALUES, max_size=3), max_size=3))
        if key in ("item_spread", "answer_misses") and data.draw(st.booleans()):
            value = RenderedRows([json.dumps(v, ensure_ascii=False) for v in value])
        elif key in ("evalset", "report", "settings", "overall"):
            value = data.draw(JSON_VALUES)
        document[key] = value
    report = Report(document, rows)  # type: ignore[arg-type]
    text = report.render()
    plain = report.to_json()
    assert text == _plain_render(plain)
    parsed = json.loads(text)
    parsed.pop("digest")
    assert json.dumps(parsed, ensure_ascii=False) == json.dumps(plain, ensure_ascii=False)


# --- answer reports' rows (answer_report.AnswerRows, _metric_texts) ---------------------------

IDS = st.text("AZaz09._-", min_size=1, max_size=6)  # what the set's validation lets through
ANSWER_VALUES = st.one_of(st.just(math.nan), st.sampled_from(EDGES), st.floats())


@st.composite
def answer_rows(draw: st.DrawFn) -> object:
    """Answer rows: metrics a row may lack (NaN), every kind of number, judges' details
    with hostile texts, and sometimes the retrieval metrics of the same rows ahead."""
    from evalset.score.answer_metrics import NAMES
    from evalset.score.answer_report import AnswerRows

    n = draw(st.integers(0, 10))
    width = draw(st.sampled_from([0, 1, 3, len(NAMES)]))
    values = draw(st.lists(st.lists(ANSWER_VALUES, min_size=width, max_size=width),
                           min_size=n, max_size=n))  # fmt: skip
    ids = draw(st.lists(IDS, min_size=n, max_size=n))
    trials = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    details = draw(st.lists(st.dictionaries(WRITABLE, JSON_VALUES, max_size=3), min_size=n,
                            max_size=n))  # fmt: skip
    rows = AnswerRows(
        ids,
        trials,
        draw(st.lists(st.one_of(st.none(), WRITABLE), min_size=n, max_size=n)),
        draw(st.lists(st.sampled_from(SPLITS), min_size=n, max_size=n)),
        list(NAMES[:width]),
        np.array(values, dtype=np.float64).reshape(n, width),
        details,
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
    )
    if draw(st.booleans()):
        for ident, trial in zip(ids, trials, strict=True):
            scores = draw(st.lists(st.floats(0, 1), min_size=2, max_size=2))
            first = draw(st.integers(0, 9))
            rows.retrieval[(ident, trial)] = (
                first,
                dict(zip(["hit@1", "mrr"], scores, strict=True)),
            )
    return rows


@seeded(150)
@given(answer_rows())
def test_answer_rows_are_json_dumps_of_each_row(rows: object) -> None:
    """Each row's defined metrics (distinct rows written once, a decision's text reused by
    its repr) are ``json.dumps`` of the row, byte for byte."""
    r = rows
    expected = []
    for k, ident in enumerate(r.ids):  # type: ignore[attr-defined]
        row: dict[str, object] = {"id": ident, "trial": r.trials[k], "category": r.categories[k],  # type: ignore[attr-defined]
                                  "split": r.splits[k]}  # type: ignore[attr-defined]  # fmt: skip
        metrics: dict[str, float] = {}
        if r.retrieval:  # type: ignore[attr-defined]
            first, ahead = r.retrieval[(ident, r.trials[k])]  # type: ignore[attr-defined]
            row["first_rank"] = first or None
            metrics.update(ahead)
        values = r.values[k].tolist()  # type: ignore[attr-defined]
        metrics.update({m: v for m, v in zip(r.metrics, values, strict=True) if not math.isnan(v)})  # type: ignore[attr-defined]
        row["metrics"] = metrics
        row["answer"] = r.details[k]  # type: ignore[attr-defined]
        if r.stale[k]:  # type: ignore[attr-defined]
            row["stale"] = True
        if r.missing[k]:  # type: ignore[attr-defined]
            row["missing"] = True
        expected.append(json.dumps(row, ensure_ascii=False))
    assert r.lines() == expected  # type: ignore[attr-defined]


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


@pytest.mark.xfail(
    strict=True,
    reason="the per-item standard deviation is sqrt((sum of squares - sum**2 / n) / (n - 1)), "
    "which loses digits to cancellation: for most items that vary it is off in the last two "
    "or three of the 17 digits written (up to 4e-13 relative); computing it from the "
    "deviations from each item's mean changes ordinary reports' item_spread",
)
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


# --- TREC mode's JSON (trec.TrecResult.to_json_text) -------------------------------------------

QUERY_IDS = st.text(st.sampled_from('q1"\\é€/{}%'), min_size=1, max_size=4).filter(
    lambda q: not q.startswith("#")
)


@seeded(100)
@given(
    st.lists(
        st.tuples(QUERY_IDS, st.lists(st.tuples(st.integers(0, 9), st.integers(-1, 3)), max_size=6),
                  st.lists(st.tuples(st.integers(0, 9), st.sampled_from([1.0, 0.5, 0.25, 2.0])),
                           max_size=12)),
        max_size=6,
        unique_by=lambda query: query[0],
    ),
    st.sets(st.sampled_from([1, 2, 5, 10, 1000]), min_size=1, max_size=3),
)  # fmt: skip
def test_trec_json_text_is_json_dumps_of_each_query(
    tmp_path_factory,  # type: ignore[no-untyped-def]
    queries: list[tuple[str, list[tuple[int, int]], list[tuple[int, float]]]],
    cutoffs: set[int],
) -> None:
    """Every distinct value formatted once, counts as integers, query ids with quotes,
    backslashes and non-ASCII: each query's line is json.dumps of its measures, and the
    whole text is the JSON of ``to_json()``."""
    from evalset.score.trec import TrecFileError, score_trec

    folder = tmp_path_factory.mktemp("trec")
    qrels = [f"{q} 0 d{d} {rel}" for q, judged, _ in queries for d, rel in dict(judged).items()]
    run = [f"{q} Q0 d{d} 0 {score} x" for q, _, ranked in queries
           for d, score in dict(ranked).items()]  # fmt: skip
    (folder / "qrels").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "run").write_text("\n".join(run) + "\n", encoding="utf-8")
    try:
        result = score_trec(folder / "qrels", folder / "run", sorted(cutoffs))
    except TrecFileError:
        return  # an empty file, or a query judged twice: refused, as trec_eval refuses it
    text = result.to_json_text()
    head = json.dumps({"all": result.all}, indent=2)[:-2]
    rows = [f"    {json.dumps(q, ensure_ascii=False)}: {json.dumps(values)}"
            for q, values in result.per_query.items()]  # fmt: skip
    body = ",\n".join(rows)
    assert text == (f'{head},\n  "per_query": {{\n{body}\n  }}\n}}' if rows
                    else f'{head},\n  "per_query": {{}}\n}}')  # fmt: skip
    assert json.dumps(json.loads(text)) == json.dumps(result.to_json())
