"""The fast paths that write reports give exactly what json.dumps gives: numbers, item rows,
answer rows, whole rendered reports and TREC mode's JSON, fed generated data with hostile
texts and every kind of number (seeded: the same cases on every run)."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from conftest import seeded
from evalset.score.report import number_texts, row_texts

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


@seeded(150)
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


@seeded(30)
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


@seeded(60)
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
