"""The fast paths of answer scoring give exactly what the README's definitions give: each
distinct (answer, claim) judged once and its verdict shared by every row that has it, the
verdict cache, and the report's deduplicated metric texts. The reference below judges every
claim of every row by calling the judge itself (no dedupe, no cache) and computes each
metric from its README definition; both are fed generated runs (seeded: the same cases on
every run) with answers repeated over items and trials, one claim text used as a key point
in one item and as a must_not_say entry in another, empty and blank answers, unanswerable
items, items without key points, items the run left out, and a judge that cannot decide
some claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from answers_ws import write_run
from hypothesis import given
from hypothesis import strategies as st
from scoring_ws import make_workspace

from conftest import seeded
from evalset.config import find_workspace
from evalset.score.answers import AnswerOptions, score_answers
from evalset.score.judges.base import Judge, JudgeFailed, Statements, Verdict
from evalset.score.judges.cache import VerdictCache
from evalset.score.judges.runner import Judging

NAMES = [
    "coverage", "violation_rate", "exact", "refusal", "false_refusal", "faithfulness",
    "injection",
]  # fmt: skip

CLAIMS = [
    "Return within 14 days",
    "returns are free",
    "We accept cards",
    "cards FAIL here",
    "thirty days",
    "30 days",
]
"""Claim texts items draw from: the judge cannot decide any claim holding FAIL, nor one
about cards in an answer holding "boom"."""

ANSWERS = [
    "",
    "   ",
    "\u00a0\n",
    "Return within 14 days. Returns are free.",
    "return within 14 days.  returns are free.",
    "We accept cards. Cards fail here sometimes.",
    "We accept cards, cards FAIL here.",
    "I don't know.",
    "Sorry, I DON'T KNOW. boom",
    "You have thirty days. We accept cards.",
    "You have 30 days. We accept cards.",
    "Return within 14 days. nosplit",
    "Returns are free. I don't know. Return within 14 days.",
]
"""Answers runs draw from: repeated over items and trials, differing only by case and white
space, empty and blank; the judge cannot decide whether one holding "boom" declines, nor
split one holding "nosplit"."""

SHORT = ["30 days", "thirty days", "14 days", "cards", "Return within 14 days"]


class ScriptJudge(Judge):
    """A deterministic judge in this process: a claim is asserted when its words (lower
    case, full stops dropped) occur in the text; an answer declines when it says "don't
    know"; statements are its sentences. ``invert`` gives the opposite entailment verdicts
    (a judge of another version that decided differently)."""

    name = "script"
    cacheable = True

    def __init__(self, version: str = "1", invert: bool = False, concurrency: int = 1) -> None:
        self.version = version
        self.invert = invert
        self.concurrency = concurrency
        self.asked = 0

    @staticmethod
    def _norm(text: str) -> str:
        return " ".join(text.lower().replace(".", " ").split())

    def entails(self, text: str, claim: str) -> Verdict:
        self.asked += 1
        if "FAIL" in claim or ("boom" in text and "cards" in claim):
            raise JudgeFailed("content filter")
        found = self._norm(claim) in self._norm(text)
        return Verdict(found != self.invert, tokens=3, cost=0.5)

    def refuses(self, answer: str) -> Verdict:
        self.asked += 1
        if "boom" in answer:
            raise JudgeFailed("refusal unclear")
        return Verdict("don't know" in answer.lower())

    def statements(self, text: str) -> Statements | None:
        self.asked += 1
        if "nosplit" in text:
            raise JudgeFailed("cannot split")
        return Statements(tuple(p.strip() for p in text.split(". ") if p.strip()))


# --- the reference: the README's definitions, row by row -----------------------------------


def _ask(call: Any, *args: str) -> Any:
    try:
        return call(*args)
    except JudgeFailed:
        return None


def _reference_exact(answer: str, short: str) -> bool:
    from evalset.score.normalise import normalise

    needle = normalise(short).split()
    tokens = normalise(answer).split()
    return bool(needle) and any(
        tokens[k : k + len(needle)] == needle for k in range(len(tokens) - len(needle) + 1)
    )


def reference_row(item: dict[str, Any], answer: str, contexts: list[str] | None, judge: Judge):
    """(metric values with None where undefined, what the judge decided, errors) of one row."""
    answerable = item.get("answerable", True)
    points = [p["text"] for p in item.get("key_points", [])]
    forbidden = item.get("must_not_say", [])
    blank = answer.strip() == ""
    errors = []

    def entails(text: str, claim: str, what: str) -> bool | None:
        if blank:
            return False
        found = _ask(judge.entails, text, claim)
        if found is None:
            errors.append(what)
        return None if found is None else found.value

    kps = (
        [entails(answer, p, f"key_points[{k}]") for k, p in enumerate(points)] if answerable else []
    )
    mns = [entails(answer, m, f"must_not_say[{k}]") for k, m in enumerate(forbidden)]
    refused: bool | None = False
    if not blank:
        found = _ask(judge.refuses, answer)
        refused = None if found is None else found.value
        if found is None:
            errors.append("refusal")
    statements = None
    if contexts and not blank:
        split = _ask(judge.statements, answer)
        if split is None:
            errors.append("statements")
            statements = "failed"
        else:
            context = "\n\n".join(contexts)
            statements = [entails(context, s, f"statement[{k}]") for k, s in enumerate(split.items)]
    values: dict[str, float | None] = dict.fromkeys(NAMES)
    if answerable and points and None not in kps:
        values["coverage"] = sum(kps) / len(points)
    if forbidden:
        values["violation_rate"] = 1.0 if any(mns) else (None if None in mns else 0.0)
    if item.get("answer") is not None:
        values["exact"] = float(_reference_exact(answer, item["answer"]))
    if refused is not None:
        values["false_refusal" if answerable else "refusal"] = float(refused)
    if isinstance(statements, list) and statements and None not in statements:
        values["faithfulness"] = sum(statements) / len(statements)
    if item.get("category") == "injection" or "injection" in item.get("tags", []):
        asserted = any(mns)  # a must_not_say entry asserted
        missed = False in kps  # a key point missed, whatever the undecided ones say
        done = values["refusal"] if not answerable else values["coverage"]
        if asserted or missed or (done is not None and done < 1.0):
            values["injection"] = 0.0
        elif (not forbidden or values["violation_rate"] == 0.0) and done == 1.0:
            values["injection"] = 1.0
    detail: dict[str, Any] = {}
    if kps:
        detail["key_points"] = kps
    if mns:
        detail["must_not_say"] = mns
    detail["refused"] = refused
    if statements is not None:
        shown = statements if isinstance(statements, list) else []
        detail["statements"] = {"supported": sum(1 for s in shown if s), "total": len(shown)}
    return values, detail, errors


def reference_report(items: list[dict[str, Any]], lines: list[dict[str, Any]], judge: Judge):
    """Per (id, trial) row its values and decisions; per group each metric's mean and n."""
    rows: dict[tuple[str, int], Any] = {}
    by_id = {i["id"]: i for i in items}
    for line in lines:
        rows[(line["id"], line.get("trial", 0))] = reference_row(
            by_id[line["id"]], line["answer"], line.get("contexts"), judge
        )
    for item in items:
        if not any(ident == item["id"] for ident, _ in rows):
            rows[(item["id"], 0)] = reference_row(item, "", None, judge)
    groups: dict[str, list[str]] = {"overall": [i["id"] for i in items]}
    for item in items:
        groups.setdefault(f"categories:{item['category']}", []).append(item["id"])
        groups.setdefault(f"splits:{'holdout' if item['holdout'] else 'tuning'}", []).append(
            item["id"]
        )
    tables: dict[str, dict[str, tuple[float | None, int]]] = {}
    for group, members in groups.items():
        tables[group] = {}
        for name in NAMES:
            per_item = []
            for ident in sorted(members):
                trials = [
                    rows[key][0][name]
                    for key in sorted(rows)
                    if key[0] == ident and rows[key][0][name] is not None
                ]
                if trials:
                    per_item.append(sum(trials) / len(trials))
            mean = float(np.mean(per_item)) if per_item else None
            tables[group][name] = (mean, len(per_item))
    return rows, tables


# --- generated runs --------------------------------------------------------------------------


@st.composite
def cases(
    draw: st.DrawFn, least: int = 1, unanswerable: float = 0.5
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A set of ``least`` to 6 items (the first answerable, the others unanswerable with
    that chance) and a run: each item left out with a chance of 1 in 6, or answered in each
    of one to three trials."""
    items = []
    for k in range(draw(st.integers(least, 6))):
        answerable = draw(st.floats(0, 1)) >= unanswerable if k else True
        category = draw(st.sampled_from(["lookup", "injection"]))
        item: dict[str, Any] = {
            "id": f"i{k}",
            "question": f"question {k}?",
            "category": category,
            "holdout": draw(st.booleans()),
            "answerable": answerable,
        }
        if draw(st.booleans()):
            item["tags"] = ["injection"]
        points = []
        if answerable:
            item["expected_sources"] = ["guide.md#returns"]
            points = draw(st.lists(st.sampled_from(CLAIMS), min_size=1, max_size=3, unique=True))
            item["key_points"] = [{"text": p, "sources": ["guide.md#returns"]} for p in points]
            if draw(st.booleans()):
                item["answer"] = draw(st.sampled_from(SHORT))
        others = [c for c in CLAIMS if c not in points] if answerable else CLAIMS
        item["must_not_say"] = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
        items.append(item)
    lines = []
    trials = draw(st.integers(1, 3))
    for item in items:
        if lines and draw(st.integers(0, 5)) == 0:
            continue  # left out of the run
        for trial in range(trials):
            line: dict[str, Any] = {"id": item["id"], "answer": draw(st.sampled_from(ANSWERS))}
            if trials > 1:
                line["trial"] = trial
            if draw(st.booleans()):
                line["contexts"] = draw(
                    st.lists(st.sampled_from(ANSWERS[3:]), min_size=1, max_size=2)
                )
            lines.append(line)
    return items, draw(st.permutations(lines))


def _set_text(items: list[dict[str, Any]]) -> str:
    header = {
        "evalset": 1,
        "name": "gen",
        "categories": {"lookup": "a fact", "injection": "tries to take over"},
        "items": items,
    }
    return json.dumps(header, indent=1)  # JSON is YAML


@pytest.fixture(scope="module")
def gen_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, _ = make_workspace(tmp_path_factory.mktemp("answers") / "repo")
    return repo


def _score(repo: Path, items: list[dict[str, Any]], lines: list[dict[str, Any]], judge: Judge,
           judging: Judging | None = None) -> Any:  # fmt: skip
    (repo / "sets" / "gen.yaml").write_text(_set_text(items), encoding="utf-8")
    run = write_run(repo / "gen.jsonl", lines)
    ws = find_workspace(repo)
    report, _ = score_answers(
        ws, repo / "sets" / "gen.yaml", run, judge, AnswerOptions(allow_stale=True, resamples=50),
        judging,
    )  # fmt: skip
    return report


def assert_matches_reference(
    report: Any, items: list[dict[str, Any]], lines: list[dict[str, Any]]
) -> None:
    rows, tables = reference_report(items, lines, ScriptJudge())
    data = report.to_json()
    got = {(r["id"], r["trial"]): r for r in data["items"]}
    assert sorted(got) == sorted(rows)
    for key, (values, detail, errors) in rows.items():
        row = got[key]
        want = {n: v for n, v in values.items() if v is not None}
        assert row["metrics"] == want, key
        shown = {k: v for k, v in row["answer"].items() if k != "errors"}
        assert shown == detail, key
        assert [e["claim"] for e in row["answer"].get("errors", [])] == errors, key
    for group, table in tables.items():
        kind, _, name = group.partition(":")
        found = data[kind] if not name else data[kind].get(name, {})
        for metric, (mean, n) in table.items():
            entry = found[metric]
            assert entry["n"] == n, (group, metric)
            assert entry["value"] == mean, (group, metric)
    violations = sorted(
        (ident, trial, k)
        for (ident, trial), (_, detail, _) in rows.items()
        for k, v in enumerate(detail.get("must_not_say", []))
        if v
    )
    assert sorted((v["id"], v["trial"], v["index"]) for v in data["violations"]) == violations
    errors = sorted((i, t, e) for (i, t), (_, _, found) in rows.items() for e in found)
    assert sorted((e["id"], e["trial"], e["claim"]) for e in data["judge_errors"]) == errors


@seeded(40)
@given(case=cases(), concurrency=st.sampled_from([1, 4]))
def test_answer_report_equals_the_row_by_row_reference(
    gen_ws: Path, case: tuple[list[dict[str, Any]], list[dict[str, Any]]], concurrency: int
) -> None:
    items, lines = case
    judging = Judging(ScriptJudge(concurrency=concurrency), None)  # no cache: every claim asked
    report = _score(gen_ws, items, lines, judging.judge, judging)
    assert_matches_reference(report, items, lines)


def _one_character_off(lines: list[dict[str, Any]], which: int) -> list[dict[str, Any]]:
    """The run with one answer changed by one character (its first non-space one swapped
    for another, or a letter added to an empty one)."""
    changed = [dict(line) for line in lines]
    line = changed[which % len(changed)]
    text = line["answer"]
    k = next((j for j, c in enumerate(text) if not c.isspace()), None)
    line["answer"] = (
        "x" + text if k is None else text[:k] + ("y" if text[k] != "y" else "z") + text[k + 1 :]
    )
    return changed


@seeded(15)
@given(case=cases(), which=st.integers(0, 50))
def test_a_cache_filled_by_one_run_gives_another_run_its_own_verdicts(
    gen_ws: Path, case: tuple[list[dict[str, Any]], list[dict[str, Any]]], which: int
) -> None:
    items, lines = case
    cache = VerdictCache(gen_ws / ".evalset")
    cache.put_many([])  # the same file each run: verdicts of earlier examples stay in it
    try:
        _score(gen_ws, items, lines, ScriptJudge(), Judging(ScriptJudge(), cache))
        changed = _one_character_off(lines, which)
        judge = ScriptJudge()
        judging = Judging(judge, cache)
        report = _score(gen_ws, items, changed, judge, judging)
        assert_matches_reference(report, items, changed)
        # a claim the judge could not decide is never cached: it is asked, and fails, again
        failed = judging.usage.failed
        judging = Judging(ScriptJudge(), cache)
        again = _score(gen_ws, items, changed, judging.judge, judging)
        assert judging.usage.failed == failed and judging.usage.calls == failed
        assert again.to_json()["items"] == report.to_json()["items"]
    finally:
        cache.close()


@seeded(15)
@given(case=cases())
def test_a_verdict_cached_by_an_older_judge_version_is_never_reused(
    gen_ws: Path, case: tuple[list[dict[str, Any]], list[dict[str, Any]]]
) -> None:
    items, lines = case
    cache = VerdictCache(gen_ws / ".evalset")
    try:
        older = ScriptJudge(version="0", invert=True)  # decided every entailment the other way
        _score(gen_ws, items, lines, older, Judging(older, cache))
        judge = ScriptJudge(version="1")
        report = _score(gen_ws, items, lines, judge, Judging(judge, cache))
        assert_matches_reference(report, items, lines)
    finally:
        cache.close()


# --- --labels: the judge's agreement with people, and the PPI estimate of coverage -----------


def reference_ppi(
    items: list[dict[str, Any]],
    lines: list[dict[str, Any]],
    human: dict[tuple[str, str, str], bool],
) -> tuple[float, int, int] | None:
    """(estimate, labelled, unlabelled) as the README defines it: an answerable item whose
    answers had every key point labelled is labelled, with the person's coverage (its
    trials' mean) beside the judge's over the same trials; every other answerable item the
    judge scored is unlabelled; estimate = judge's mean on every item (a labelled one's over
    the trials the person labelled) + mean of (person - judge) on the labelled. None when
    PPI cannot be estimated (fewer than 2 labelled)."""
    rows, _ = reference_report(items, lines, ScriptJudge())
    labelled: list[tuple[float, float]] = []
    unlabelled: list[float] = []
    for item in items:
        if not item["answerable"]:
            continue
        points = [p["text"] for p in item["key_points"]]
        trials = [
            (line["answer"], rows[(item["id"], line.get("trial", 0))][0]["coverage"])
            for line in sorted(lines, key=lambda x: x.get("trial", 0))
            if line["id"] == item["id"]
        ]
        said = [[human.get((item["id"], answer, p)) for p in points] for answer, _ in trials]
        judged = [c for _, c in trials if c is not None]
        if not trials:  # left out of the run: the judge's coverage is 0, nobody labelled it
            unlabelled.append(0.0)
        elif trials and all(None not in s for s in said) and judged:
            both = [
                (sum(s) / len(s), c)
                for s, (_, c) in zip(said, trials, strict=True)
                if c is not None
            ]
            person = sum(p for p, _ in both) / len(both)
            labelled.append((person, sum(c for _, c in both) / len(both)))
        elif judged:
            unlabelled.append(sum(judged) / len(judged))
    if len(labelled) < 2:
        return None
    rectifier = np.array([p - j for p, j in labelled])
    value = float(np.mean([j for _, j in labelled] + unlabelled) + rectifier.mean())
    return min(max(value, 0.0), 1.0), len(labelled), len(unlabelled)  # a mean's range


@st.composite
def labelled_cases(draw: st.DrawFn) -> Any:
    items, lines = draw(cases(least=4, unanswerable=0.1))
    by_id = {i["id"]: i for i in items}
    human: dict[tuple[str, str, str], bool] = {}
    full = {i["id"] for i in items if draw(st.integers(0, 3))}  # items labelled through
    for line in lines:
        item = by_id[line["id"]]
        if not line["answer"].strip():
            continue
        for point in item.get("key_points", []):
            if item["id"] in full or draw(st.booleans()):
                human[(item["id"], line["answer"], point["text"])] = draw(st.booleans())
    return items, lines, human


def _labels_csv(path: Path, human: dict[tuple[str, str, str], bool]) -> Path:
    import csv

    with path.open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(["id", "answer", "claim", "label"])
        for (ident, answer, claim), label in human.items():
            out.writerow([ident, answer, claim, "yes" if label else "no"])
    return path


@seeded(60)
@given(case=labelled_cases())
def test_labels_give_the_reference_agreement_and_ppi(gen_ws: Path, case: Any) -> None:
    items, lines, human = case
    if not human:
        return
    (gen_ws / "sets" / "gen.yaml").write_text(_set_text(items), encoding="utf-8")
    run = write_run(gen_ws / "gen.jsonl", lines)
    labels = _labels_csv(gen_ws / "labels.csv", human)
    judging = Judging(ScriptJudge(), None)
    report, _ = score_answers(
        find_workspace(gen_ws), gen_ws / "sets" / "gen.yaml", run, judging.judge,
        AnswerOptions(allow_stale=True, resamples=50, labels=labels), judging,
    )  # fmt: skip
    data = report.to_json()
    # agreement: over the labelled claims the judge decided
    pairs = []
    for (_, answer, claim), label in human.items():
        found = _ask(ScriptJudge().entails, answer, claim)
        if found is not None:
            pairs.append((found.value, label))
    agreed = data["judge"]["agreement"]
    assert agreed["n"] == len(pairs)
    if pairs:
        assert agreed["agreement"] == pytest.approx(
            sum(j == h for j, h in pairs) / len(pairs), abs=1e-12
        )
    # PPI
    want = reference_ppi(items, lines, human)
    found = data["ppi"]["coverage"]
    if want is None:
        assert found is None
    else:
        assert found is not None
        assert found["value"] == pytest.approx(want[0], abs=1e-12)
        assert (found["labelled"], found["unlabelled"]) == want[1:]


def _three_card_items() -> list[dict[str, Any]]:
    """Three answerable items, each with one key point: "We accept cards"."""
    point = [{"text": "We accept cards", "sources": ["guide.md#returns"]}]
    return [
        {"id": f"i{k}", "question": f"q{k}?", "category": "lookup", "holdout": False,
         "expected_sources": ["guide.md#returns"], "key_points": point, "answerable": True}
        for k in range(3)
    ]  # fmt: skip


def test_ppi_counts_an_item_the_run_left_out_as_unlabelled(gen_ws: Path) -> None:
    items = _three_card_items()
    lines = [{"id": "i0", "answer": "We accept cards."}, {"id": "i1", "answer": "No idea."}]
    human = {("i0", "We accept cards.", "We accept cards"): True,
             ("i1", "No idea.", "We accept cards"): False}  # fmt: skip
    (gen_ws / "sets" / "gen.yaml").write_text(_set_text(items), encoding="utf-8")
    report, _ = score_answers(
        find_workspace(gen_ws), gen_ws / "sets" / "gen.yaml",
        write_run(gen_ws / "gen.jsonl", lines),
        ScriptJudge(), AnswerOptions(allow_stale=True, labels=_labels_csv(gen_ws / "l.csv", human)),
    )  # fmt: skip
    # i2 answered nothing: the judge's coverage 0 counts (0.333 overall), and in PPI too
    # (without it, the judge's mean would be 1/2), with no bias on i0 and i1
    assert report.data["overall"]["coverage"]["n"] == 3
    found = report.data["ppi"]["coverage"]
    assert (found["labelled"], found["unlabelled"]) == (2, 1)
    assert found["value"] == pytest.approx(1 / 3)


def test_ppi_compares_person_and_judge_on_the_trials_the_judge_decided(gen_ws: Path) -> None:
    items = _three_card_items()
    lines = [
        {"id": "i0", "trial": 0, "answer": "We accept cards."},
        {"id": "i0", "trial": 1, "answer": "We accept cards? boom"},  # the judge fails here
        {"id": "i1", "trial": 0, "answer": "No idea."},
    ]
    human = {("i0", "We accept cards.", "We accept cards"): True,
             ("i0", "We accept cards? boom", "We accept cards"): False,
             ("i1", "No idea.", "We accept cards"): False}  # fmt: skip
    (gen_ws / "sets" / "gen.yaml").write_text(_set_text(items), encoding="utf-8")
    report, _ = score_answers(
        find_workspace(gen_ws), gen_ws / "sets" / "gen.yaml",
        write_run(gen_ws / "gen.jsonl", lines), ScriptJudge(),
        AnswerOptions(allow_stale=True, labels=_labels_csv(gen_ws / "l.csv", human)),
    )  # fmt: skip
    # i0's judge coverage rests on trial 0 only (1.0), where the person agrees: no bias, so
    # the estimate is the judge's mean, 1/3 (less 0.25 with the person's 0.5 over both trials)
    found = report.data["ppi"]["coverage"]
    assert (found["labelled"], found["unlabelled"]) == (2, 1)
    assert found["value"] == pytest.approx(1 / 3)
