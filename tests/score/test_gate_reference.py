"""Everything `evalset gate --json` says of two reports, recomputed from the two report files
alone by a deliberately plain reference (Python's ``math`` and ``fractions``, the paired
bootstrap written out draw by draw), and the exit status and regression lines of the
command line.

The pairs of reports are generated (seeded: the same cases on every run, none chosen to
pass) and scored by the real library in a real git workspace: a set, then a later version
of it with items added, removed, made drafts, reworded (their fingerprint changes), moved
to another category (so does it) or retagged (it does not, but an injection tag changes
which answer metrics an item has); categories declared in one version only, in another
order; runs scored for retrieval, for answers, or both, in one to three trials numbered
from 0, from 1 or with gaps, items left out of a run (scored as zero), unanswerable items,
answer metrics that only some items or trials have (contexts given on some lines, claims
the judge cannot decide); item rows in another order; margins including one exactly equal
to a drop; ``--metric`` subsets, names repeated, and names one report lacks.

The README's semantics, and the choices the reference states where it is silent:

- the metrics gated are those of ``--metric`` (first occurrence order), else every metric
  both reports define, in the baseline's order; a name one report lacks, no shared metric,
  or (without ``--allow-snapshot-change``) a gated metric defined differently: refused;
- an item's value of a metric is the mean over its trials that have the metric;
- an item counts for the gate in a report when it has a value of a gated metric there (an
  unanswerable item has no retrieval metric in any report, so gating retrieval metrics says
  nothing of it); of the items counting in either report: ``added`` when the baseline's pin
  lacks it, ``removed`` when the current's does, ``changed`` when their fingerprints differ,
  ``unscored`` when it counts in one report only, else compared;
- rows: each category (the current report's declared order, then the baseline's) with
  compared items, each gated metric that some item has in both reports (the mean over
  those items in each report), then the overall row of every compared item;
- a compared item's category is the same in both reports (its fingerprint covers it);
- the difference is the mean over items of current - baseline, with the 2.5th and 97.5th
  percentiles of a paired bootstrap (the value kept inside its interval): the metrics that
  every item of the row has in both reports share one drawing, seeded by the group
  ``gate:NAME`` (``gate:None`` for the overall row), any other is drawn alone with group
  ``gate:NAME:METRIC``;
- a regression is a category's drop (a rise, for a ``better: lower`` metric) of more than
  the margin; a drop within 1e-9 of the margin is equal to it (floating point cannot say
  more), and no generated drop lies between 1e-9 and 1e-6 of it; the overall row never is.
- the gate is ok when there is no regression, some item was compared, the current report
  has a value of each gated metric wherever the baseline has one on an item compared or
  ``unscored`` that has a row in the current report (``missing_values``, per metric in the
  gated order, ids sorted), and, without
  ``--metric``, the current report defines every metric the baseline does
  (``missing_metrics``, in the baseline's order).

Numbers are compared as in test_answer_report_reference.py: means exactly when every value
is a multiple of 2**-20, else to 1e-12; bootstrap bounds to 1e-12.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from answers_ws import RuleJudge, draw_labels, draw_trials, generated_set, write_run
from hypothesis import given
from hypothesis import strategies as st
from plain_stats import bootstrap, same_mean
from scoring_ws import make_workspace

from conftest import seeded
from evalset.config import find_workspace
from evalset.score.answers import AnswerOptions, score_answers
from evalset.score.gate import GateRefused, gate, load_checked
from evalset.score.judges.runner import Judging
from evalset.score.report import DIGEST_MARK, digest_of
from evalset.score.retrieval import Options, score_retrieval

CATEGORIES = ["zeta", "lookup", "injection", "alpha", "refuse"]

IDS = ["q-1", "q-10", "q-2", "Q3", "a.b", "a-b", "z9", "m", "k-07", "x.1", "b"]
"""Item ids whose order is not their order in the set file."""

QUESTIONS = [
    "How long do refunds take?", "When does the shop open?", "Which cards do you take?",
    "Is shipping free for large orders?", "Do I need a receipt to return shoes?",
    "What is the weather on Mars?", "Who won the cup final last year?",
    "Can I pay with a gift voucher online?", "Where do you deliver parcels abroad?",
    "How do I reset my account password?", "What happens to a damaged parcel?",
]  # fmt: skip
REWORDED = [
    "How many days until a refund arrives?", "At what hour do the doors open?",
    "Which payment cards are accepted?", "Do big orders ship without charge?",
    "Must I show a receipt when returning shoes?", "Is it raining on the red planet?",
    "Which team lifted the trophy last season?", "Are gift vouchers accepted on the site?",
    "To which countries are parcels sent?", "What if I forgot my login password?",
    "What do you do when a parcel arrives broken?",
]  # fmt: skip
"""One question per id and a rewording of it, none a near duplicate of another."""

SECTIONS = ["guide.md#returns", "guide.md#damaged-returns", "guide.md#shipping",
            "guide.md#payments", "faq.md#contact", "faq.md#hours"]  # fmt: skip
RETRIEVED = [*SECTIONS, "guide.md", "faq.md"]

CLAIMS = ["refunds take five days", "the shop opens at nine", "cards are accepted",
          "shipping is free", "the # fee is waived", "call us on weekdays"]  # fmt: skip
"""The judge cannot decide one holding "#", nor (in an answer holding "zz") one of an even
number of characters."""

SHORT = ["five days", "nine", "cards"]

ANSWERS = [
    "Refunds take five days. Shipping is free.",
    "refunds TAKE five days; the shop opens at nine",
    "Cards are accepted. Call us on weekdays.",
    "I cannot say. Shipping is free.",
    "Sorry, I don't know",
    "zz Cards are accepted. The shop opens at nine.",
    "zz? I cannot say",
    "The # fee is waived. nosplit",
    "",
]

MARGINS = ["0", "0.03", "0.1", "0.25", "0.5", "1"]


# --- generated pairs of reports ----------------------------------------------------------------


@dataclass
class Side:
    """One report: the set version it scores, the run, how it is scored."""

    declared: list[str]
    items: list[dict[str, Any]]
    kind: str
    """``retrieval``, ``answers`` or ``both`` (lines with an answer and a retrieved list)."""
    lines: list[dict[str, Any]]
    ks: tuple[int, ...] = (1, 3)
    granularity: str = "section"
    shuffled: bool = False
    """Whether the report's item rows are put in another order (and its digest redone)."""
    order: int = 0
    """The seed of that order."""


@dataclass
class Pair:
    base: Side
    cur: Side


def _item(draw: st.DrawFn, ident: str, category: str) -> dict[str, Any]:
    k = IDS.index(ident)
    item: dict[str, Any] = {"id": ident, "question": QUESTIONS[k], "category": category}
    answerable = draw(st.integers(0, 3)) > 0
    sources = (
        draw(st.lists(st.sampled_from(SECTIONS), min_size=1, max_size=2, unique=True))
        if answerable
        else []
    )
    return draw_labels(draw, item, sources, CLAIMS, SHORT, most_points=3, most_forbidden=2)


def _next_version(
    draw: st.DrawFn, declared: list[str], items: list[dict[str, Any]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """A later version of a set: categories dropped, added and reordered; items removed,
    made drafts, reworded, moved to another category, retagged or left as they were; new
    items."""
    now = [c for c in declared if draw(st.integers(0, 5))]
    now += [c for c in CATEGORIES if c not in declared and not draw(st.integers(0, 4))]
    now = list(draw(st.permutations(now or declared[:1])))
    out = []
    for item in items:
        new = json.loads(json.dumps(item))
        action = draw(st.sampled_from(["same"] * 12 + ["remove", "draft", "reword", "move",
                                                      "retag"]))  # fmt: skip
        if action == "remove":
            continue
        if action == "draft":
            new["status"] = "draft"
        elif action == "reword":
            new["question"] = REWORDED[IDS.index(item["id"])]
        elif action == "retag":
            new["tags"] = [] if new.get("tags") else ["injection"]
        if action == "move" or new["category"] not in now:
            moved = [c for c in now if c != item["category"]]
            new["category"] = draw(st.sampled_from(moved)) if moved else now[0]
        out.append(new)
    unused = [i for i in IDS if i not in {x["id"] for x in items}]
    for ident in draw(st.lists(st.sampled_from(unused), max_size=2, unique=True)):
        out.append(_item(draw, ident, draw(st.sampled_from(now))))
    return now, list(draw(st.permutations(out)))


def _run(draw: st.DrawFn, items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    trials = draw_trials(draw, 3)
    lines = []
    for item in items:
        if item.get("status") == "draft" and draw(st.booleans()):
            continue
        if draw(st.integers(0, 6)) == 0:
            continue  # left out of the run: scored as zero
        for trial in [t for t in trials if draw(st.integers(0, 5))] or trials[:1]:
            line: dict[str, Any] = {"id": item["id"]}
            if trial or draw(st.booleans()):
                line["trial"] = trial
            if kind != "answers":
                line["retrieved"] = draw(st.lists(st.sampled_from(RETRIEVED), max_size=3))
            if kind != "retrieval":
                line["answer"] = draw(st.sampled_from(ANSWERS))
                if draw(st.integers(0, 2)) == 0:
                    line["contexts"] = [draw(st.sampled_from(ANSWERS[:4]))]
            lines.append(line)
    if not lines:  # a run with no line is refused
        first = next(i for i in items if i.get("status") != "draft")
        lines.append({"id": first["id"], "retrieved": [], "answer": ""})
    return list(draw(st.permutations(lines)))


KINDS = [("retrieval", "retrieval"), ("answers", "answers"), ("both", "both"),
         ("retrieval", "both"), ("both", "retrieval"), ("answers", "both"),
         ("both", "answers"), ("retrieval", "answers")]  # fmt: skip
"""Report kinds of the two runs: the last pair shares no metric, and is refused."""


@st.composite
def pairs(draw: st.DrawFn) -> Pair:
    declared = list(draw(st.permutations(CATEGORIES)))[: draw(st.integers(1, 4))]
    ids = draw(st.lists(st.sampled_from(IDS), min_size=2, max_size=8, unique=True))
    items = [_item(draw, i, draw(st.sampled_from(declared))) for i in ids]
    items[0].pop("answerable", None)  # one answerable item at least, so retrieval scores
    if "expected_sources" not in items[0]:
        items[0]["expected_sources"] = [SECTIONS[0]]
        items[0]["key_points"] = [{"text": CLAIMS[0], "sources": [SECTIONS[0]]}]
        forbidden = [x for x in items[0].pop("must_not_say", []) if x != CLAIMS[0]]
        if forbidden:
            items[0]["must_not_say"] = forbidden
    now, later = _next_version(draw, declared, items)
    if not any(i.get("status") != "draft" and "expected_sources" in i for i in later):
        later.append(json.loads(json.dumps(items[0])) | {"category": now[0]})
    b_kind, c_kind = draw(st.sampled_from(KINDS[:-1] * 3 + KINDS[-1:]))
    ks = draw(st.sampled_from([(1, 3), (1, 3), (2,), (1, 2, 5)]))
    c_ks = ks if draw(st.integers(0, 4)) else draw(st.sampled_from([(1, 3), (3, 4)]))
    granularity = "document" if draw(st.integers(0, 9)) == 0 else "section"
    base = Side(declared, items, b_kind, _run(draw, items, b_kind), ks, granularity)
    cur = Side(now, later, c_kind, _run(draw, later, c_kind), c_ks)
    for side in (base, cur):
        side.shuffled = draw(st.integers(0, 3)) == 0
        side.order = draw(st.integers(0, 2**16))
    return Pair(base, cur)


def shuffle_rows(text: str, seed: int) -> str:
    """The report with its item rows in another order (shuffled with ``seed``), and its
    digest made again."""
    lines = text.split("\n")
    start = lines.index('  "items": [')
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("  ]"))
    rows = [line.rstrip(",") for line in lines[start + 1 : end]]
    random.Random(seed).shuffle(rows)
    lines[start + 1 : end] = [row + "," for row in rows[:-1]] + rows[-1:]
    body = "\n".join(lines)
    body = body[: body.rindex(DIGEST_MARK)]
    return f'{body}{DIGEST_MARK}{digest_of(body)}"\n}}\n'


def write_report(repo: Path, snapshot: str, side: Side, name: str) -> Path:
    """Score one side with the library (its kind decides which scorer) into ``NAME.json``."""
    (repo / "sets" / "gen.yaml").write_text(
        generated_set(side.items, side.declared, snapshot), encoding="utf-8"
    )
    run = write_run(repo / f"{name}.jsonl", side.lines)
    ws = find_workspace(repo)
    set_path = repo / "sets" / "gen.yaml"
    granularity: Any = side.granularity
    if side.kind == "retrieval":
        options = Options(ks=side.ks, granularity=granularity, resamples=1)
        report = score_retrieval(ws, set_path, run, options)
    else:
        judge = RuleJudge()
        answer_options = AnswerOptions(ks=side.ks, granularity=granularity, resamples=1)
        report, _ = score_answers(ws, set_path, run, judge, answer_options, Judging(judge, None))
    text = report.render()
    if side.shuffled:
        text = shuffle_rows(text, side.order)
    path = repo / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def gen_ws(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return make_workspace(tmp_path_factory.mktemp("gate-reference") / "repo")


def make_reports(repo: Path, snapshot: str, pair: Pair) -> tuple[Path, Path]:
    return (
        write_report(repo, snapshot, pair.base, "base"),
        write_report(repo, snapshot, pair.cur, "cur"),
    )


# --- the reference -----------------------------------------------------------------------------


class Refused(Exception):
    """The gate must refuse the pair (exit 2); the message names what it must say."""


def chosen_metrics(b: dict[str, Any], c: dict[str, Any], wanted: list[str]) -> list[str]:
    b_defs, c_defs = b["definitions"], c["definitions"]
    if wanted:
        for m in wanted:
            for name, defs in (("base.json", b_defs), ("cur.json", c_defs)):
                if m not in defs:
                    raise Refused(f"{name}: has no metric {m!r}")
        chosen = []
        for m in wanted:
            if m not in chosen:
                chosen.append(m)
    else:
        chosen = [m for m in b_defs if m in c_defs]
        if not chosen:
            raise Refused("cur.json: shares no metric with the baseline")
    return chosen


def item_values(report: dict[str, Any], metrics: list[str]) -> dict[str, dict[str, Any]]:
    """Per item: its category, and per metric the mean over its trials that have it (their
    values added in the rows' order)."""
    found: dict[str, dict[str, Any]] = {}
    for row in report["items"]:
        entry = found.setdefault(row["id"], {"category": row["category"], "values": {}})
        assert entry["category"] == row["category"]  # one category per item
        for m in metrics:
            if m in row["metrics"]:
                entry["values"].setdefault(m, []).append(row["metrics"][m])
    for entry in found.values():
        entry["values"] = {m: sum(v) / len(v) for m, v in entry["values"].items()}
    return found


@dataclass
class Row:
    """One expected comparison, with the values it is computed from."""

    category: str | None
    metric: str
    base: list[float]
    cur: list[float]
    group: str
    better: str
    drop: Fraction
    """The drop (a rise, for ``better: lower``) of the means, exactly, from the items'
    values as floats."""
    regression: bool


def expected(
    b: dict[str, Any], c: dict[str, Any], margin: str, wanted: list[str], allow: bool
) -> dict[str, Any]:
    """What the gate must find (raises Refused when it must refuse)."""
    chosen = chosen_metrics(b, c, wanted)
    if not allow:
        for m in chosen:
            if b["definitions"][m] != c["definitions"][m]:
                raise Refused(f"cur.json: defines {m} differently from the baseline")
    bv, cv = item_values(b, chosen), item_values(c, chosen)
    b_fp = b["evalset"]["item_fingerprints"]
    c_fp = c["evalset"]["item_fingerprints"]
    left: dict[str, list[str]] = {"added": [], "removed": [], "changed": [], "unscored": []}
    compared = []
    counting = {i for i, e in bv.items() if e["values"]} | {i for i, e in cv.items() if e["values"]}
    for ident in sorted(counting):
        if ident not in b_fp:
            left["added"].append(ident)
        elif ident not in c_fp:
            left["removed"].append(ident)
        elif b_fp[ident] != c_fp[ident]:
            left["changed"].append(ident)
        elif not (bv.get(ident, {}).get("values") and cv.get(ident, {}).get("values")):
            left["unscored"].append(ident)
        else:
            assert bv[ident]["category"] == cv[ident]["category"], ident
            compared.append(ident)
    order = list(c["categories"]) + [x for x in b["categories"] if x not in c["categories"]]
    groups: list[tuple[str | None, list[str]]] = [
        (name, [i for i in compared if cv[i]["category"] == name]) for name in order
    ]
    groups = [(name, members) for name, members in groups if members]
    if compared:
        groups.append((None, compared))
    limit = Fraction(margin)
    rows = []
    for name, members in groups:
        for m in chosen:
            known = [i for i in members if m in bv[i]["values"] and m in cv[i]["values"]]
            if not known:
                continue
            base = [bv[i]["values"][m] for i in known]
            cur = [cv[i]["values"][m] for i in known]
            better = c["definitions"][m].get("better", "higher")
            exact = (sum(map(Fraction, cur)) - sum(map(Fraction, base))) / len(known)
            drop = exact if better == "lower" else -exact
            if name is not None:
                assert not (Fraction(1, 10**9) < abs(drop - limit) < Fraction(1, 10**6))
            regression = name is not None and drop - limit > Fraction(1, 10**9)
            group = f"gate:{name}" if known == members else f"gate:{name}:{m}"
            rows.append(Row(name, m, base, cur, group, better, drop, regression))
    missing_metrics = [] if wanted else [m for m in b["definitions"] if m not in chosen]
    missing_values: dict[str, list[str]] = {}
    for m in chosen:
        ids = [
            i
            for i in sorted(compared + left["unscored"])
            if m in bv.get(i, {}).get("values", {})
            and i in cv  # no row: left out, as a sealed item scored without the key is
            and m not in cv[i].get("values", {})
        ]
        if ids:
            missing_values[m] = ids
    ok = not any(r.regression for r in rows) and bool(compared)
    ok = ok and not missing_metrics and not missing_values
    return {"compared": compared, "left_out": left, "rows": rows, "chosen": chosen,
            "missing_metrics": missing_metrics, "missing_values": missing_values,
            "ok": ok}  # fmt: skip


def check_result(
    found: dict[str, Any], want: dict[str, Any], margin: str, resamples: int, seed: int
) -> None:
    """The gate's --json document against the reference, key by key."""
    rows: list[Row] = want["rows"]
    regressions = [r for r in rows if r.regression]
    assert list(found) == ["ok", "compared_items", "left_out_items", "regressions", "left_out",
                           "missing_metrics", "missing_values", "problems", "margin",
                           "comparisons", "overall"]  # fmt: skip
    assert found["ok"] is want["ok"]
    assert found["missing_metrics"] == want["missing_metrics"]
    assert found["missing_values"] == want["missing_values"]
    problems = [bool(want["missing_metrics"]), bool(want["missing_values"]), not want["compared"]]
    assert len(found["problems"]) == sum(problems)
    assert (not regressions and not found["problems"]) is want["ok"]
    counts = (found["left_out"], want["left_out"], want["compared"])
    assert found["compared_items"] == len(want["compared"]), counts
    assert found["left_out"] == want["left_out"], counts
    assert found["left_out_items"] == sum(len(v) for v in want["left_out"].values())
    assert found["margin"] == float(margin)
    shown = found["comparisons"] + found["overall"]
    assert [(x["category"], x["metric"]) for x in shown] == [(r.category, r.metric) for r in rows]
    assert len(found["overall"]) == sum(1 for r in rows if r.category is None)
    for x, r in zip(shown, rows, strict=True):
        where = (r.category, r.metric)
        assert x["n"] == len(r.base), where
        assert same_mean(x["baseline"], r.base), (where, x, r.base)
        assert same_mean(x["current"], r.cur), (where, x, r.cur)
        differences = [c - b for b, c in zip(r.base, r.cur, strict=True)]
        assert same_mean(x["difference"], differences), (where, x)
        low, high = bootstrap(differences, r.group, resamples, seed)
        value = x["difference"]
        low, high = min(low, value), max(high, value)
        assert math.isclose(x["low"], low, abs_tol=1e-12), (where, x, low)
        assert math.isclose(x["high"], high, abs_tol=1e-12), (where, x, high)
        assert x["regression"] is r.regression, (where, x, r.drop, margin)
        assert x.get("better", "higher") == r.better
        assert set(x) == {"category", "metric", "baseline", "current", "difference", "low",
                          "high", "n", "regression"} | ({"better"} if r.better != "higher"
                                                       else set())  # fmt: skip
    assert found["regressions"] == [
        {"category": x["category"], "metric": x["metric"], "baseline": x["baseline"],
         "current": x["current"]}
        for x in found["comparisons"] if x["regression"]
    ]  # fmt: skip


def drops(b: dict[str, Any], c: dict[str, Any], wanted: list[str]) -> list[str]:
    """Margins equal to a category's drop (as the shortest decimal of its float)."""
    try:
        rows = expected(b, c, "0", wanted, True)["rows"]
    except Refused:
        return []
    return sorted({repr(float(r.drop)) for r in rows if r.category is not None and r.drop > 0})


def options(data: st.DataObject, b: dict[str, Any], c: dict[str, Any]) -> tuple[str, list[str]]:
    """A margin and the --metric names: none, a few shared ones (repeated at times), or a
    name one report lacks."""
    shared = [m for m in b["definitions"] if m in c["definitions"]]
    alone = [m for m in [*b["definitions"], *c["definitions"]] if m not in shared]
    wanted: list[str] = []
    how = data.draw(st.sampled_from(["all", "all", "some", "some", "some", "alone"]))
    if how == "some" and shared:
        wanted = data.draw(st.lists(st.sampled_from(shared), min_size=1, max_size=4))
    elif how == "alone" and alone:
        wanted = [data.draw(st.sampled_from(alone))]
    equal = drops(b, c, wanted)
    margin = data.draw(st.sampled_from(MARGINS + equal * 3))
    return margin, wanted


# --- the tests ---------------------------------------------------------------------------------


@seeded(70)
@given(pair=pairs(), data=st.data())
def test_the_gate_finds_what_the_reference_finds(
    gen_ws: tuple[Path, str], pair: Pair, data: st.DataObject
) -> None:
    """The library's gate on pairs of generated reports, three settings each (margin,
    metrics, resamples, seed, allowing other definitions or not)."""
    repo, snapshot = gen_ws
    base_path, cur_path = make_reports(repo, snapshot, pair)
    ws = find_workspace(repo)
    b, c = load_checked(ws, base_path), load_checked(ws, cur_path)
    for _ in range(3):
        margin, wanted = options(data, b, c)
        resamples = data.draw(st.sampled_from([1, 2, 63, 64, 65, 200]))
        seed = data.draw(st.sampled_from([0, 1, 12345]))
        allow = data.draw(st.booleans())
        try:
            want = expected(b, c, margin, wanted, allow)
        except Refused as refused:
            with pytest.raises(GateRefused) as raised:
                gate(b, c, base_path, cur_path, float(margin), wanted, allow, resamples, seed)
            assert str(refused) in str(raised.value)
            continue
        result = gate(b, c, base_path, cur_path, float(margin), wanted, allow, resamples, seed)
        check_result(result.to_json(), want, margin, resamples, seed)


def margin_text(margin: str) -> str:
    """The margin as the terminal shows it: as ``:g`` writes it, or every digit it has where
    that rounds it (1/6 is not shown as 0.166667, which a drop of 0.1666667 is beyond)."""
    value = float(margin)
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def decimals(found: dict[str, Any]) -> int:
    """How many decimals the terminal shows: three, or as many as it takes for each
    regression's difference to read beyond the margin."""
    drops = [abs(x["difference"]) for x in found["comparisons"] if x["regression"]]
    return next((p for p in range(3, 16) if all(round(d, p) > found["margin"] for d in drops)), 16)


def regression_lines(found: dict[str, Any], margin: str) -> list[str]:
    """The lines naming each regression, from the --json document's numbers."""
    out = []
    p = decimals(found)
    for x in found["comparisons"]:
        if x["regression"]:
            way = "rise" if x.get("better") == "lower" else "drop"
            out.append(
                f"REGRESSION {x['category']} {x['metric']}: {x['baseline']:.{p}f} -> "
                f"{x['current']:.{p}f} (difference {x['difference']:+.{p}f} "
                f"[{x['low']:+.{p}f}, {x['high']:+.{p}f}]), a {way} beyond the margin "
                f"{margin_text(margin)}"
            )
    return out


def table_rows(found: dict[str, Any]) -> list[list[str]]:
    """The table's rows, cells as the terminal shows them, from the --json document."""
    rows = []
    p = decimals(found)
    for x in found["comparisons"] + found["overall"]:
        category = "(all compared)" if x["category"] is None else x["category"]
        difference = f"{x['difference']:+.{p}f} [{x['low']:+.{p}f}, {x['high']:+.{p}f}]"
        cells = [category, x["metric"], f"{x['baseline']:.{p}f}", f"{x['current']:.{p}f}"]
        rows.append([*cells, difference] + (["REGRESSION"] if x["regression"] else []))
    return rows


@seeded(15)
@given(pair=pairs(), data=st.data())
def test_the_command_line_says_what_the_reference_finds(
    gen_ws: tuple[Path, str], pair: Pair, data: st.DataObject, cli: Any
) -> None:
    """`evalset gate --json` (1,000 resamples, seed 0) is the reference's; the terminal text
    names the same regressions, counts and verdict; the exit status is 1 on a regression, 2
    on a refusal, else 0."""
    repo, snapshot = gen_ws
    base_path, cur_path = make_reports(repo, snapshot, pair)
    ws = find_workspace(repo)
    b, c = load_checked(ws, base_path), load_checked(ws, cur_path)
    margin, wanted = options(data, b, c)
    if not wanted:  # the reference's bootstrap is slow: a few metrics
        shared = [m for m in b["definitions"] if m in c["definitions"]]
        wanted = shared[:: max(1, len(shared) // 3)]
    args = ["gate", "base.json", "cur.json", "--margin", margin]
    if wanted and data.draw(st.booleans()):
        args += ["--metric", ",".join(wanted)]
    else:
        for m in wanted:
            args += ["--metric", m]
    allow = data.draw(st.booleans())
    if allow:
        args.append("--allow-snapshot-change")
    as_json = cli(repo, *args, "--json")
    text = cli(repo, *args)
    try:
        want = expected(b, c, margin, wanted, allow)
    except Refused as refused:
        assert (as_json.code, text.code) == (2, 2)
        error = json.loads(as_json.out)
        assert error["exit_code"] == 2 and error["error"].startswith(str(refused))
        assert text.out == "" and text.err.startswith(f"evalset: {refused}")
        assert len(text.err.strip().splitlines()) == 1
        return
    found = json.loads(as_json.out)
    check_result(found, want, margin, 1000, 0)
    status = 0 if found["ok"] else 1
    assert (as_json.code, text.code) == (status, status), text.err
    lines = text.out.splitlines()
    left = found["left_out"]
    unscored = f", {len(left['unscored'])} scored in one report only" if left["unscored"] else ""
    assert lines[0] == (
        f"gate: cur.json against base.json: {found['compared_items']} item(s) compared, "
        f"{found['left_out_items']} left out ({len(left['added'])} added, "
        f"{len(left['removed'])} removed, {len(left['changed'])} changed{unscored})"
    )
    assert [line for line in lines if line.startswith("REGRESSION ")] == regression_lines(
        found, margin
    )
    if found["ok"]:
        verdict = [f"ok: no category dropped by more than {margin_text(margin)}"]
    else:
        verdict = [f"failed: {problem}" for problem in found["problems"]]
        if found["regressions"]:
            verdict.append(
                f"failed: {len(found['regressions'])} regression(s) beyond the margin "
                f"{margin_text(margin)}"
            )
    at = lines.index(next(line for line in lines if line.startswith("category  ")))
    table = [re.split(r"\s{2,}", line.strip()) for line in lines[at + 1 : -len(verdict)]]
    assert table == table_rows(found)
    assert lines[-len(verdict) :] == verdict
