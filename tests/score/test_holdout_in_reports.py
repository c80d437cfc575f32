"""A holdout item's labels never appear in a report, in any of its forms: the people tuning
prompts and retrievers read reports in CI logs and pull-request comments. Nor do the labels
of an item in no split yet, which `evalset split` may put in the holdout. What the run
retrieved and answered is the system's output, not a label, and is shown; what the item
expects (its sources, key points, short answer, and the text its stale citations had) is
not.

Each output of both scorers (the JSON report, the terminal, the markdown comment, the HTML
page) is searched for labels of a holdout item that nothing else in the set or the run
holds, while a tuning item's labels, its miss listed the same way, are shown; and so is
what a judge said when it failed on a holdout item's claim."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

from conftest import commit_all
from evalset.corpus.snapshot import take_snapshot
from evalset.sets.model import hidden_judge_error
from fake_openai import FakeServer

HIDDEN_ITEMS = """\
  - id: h1
    question: When does the shop open?
    category: lookup
    expected_sources: [faq.md#hours]
    key_points:
      - text: Open from nine to five Monday to Saturday
        sources: [faq.md#hours]
    answer: nine to five
    holdout: true
    verified: {snapshot}
  - id: u1
    question: How do I reach you?
    category: lookup
    expected_sources: [faq.md#contact]
    key_points:
      - text: Call on weekdays or write to support
        sources: [faq.md#contact]
    verified: {snapshot}
"""
LABELS = (
    "faq.md#hours", "Open from nine to five", "nine to five",  # h1, held out
    "faq.md#contact", "Call on weekdays", "Call us on weekdays",  # u1, in no split yet
)  # fmt: skip
"""Labels of a holdout item and of an item not yet in a split (`split` may hold it out):
cited by no other item, said by no answer of the run; "nine to five" and "Call us on
weekdays" are also in the text their sections had, which a stale citation would show."""
TUNING_MISS = "guide.md#damaged-returns"
"""A label of a tuning item the run misses too: a miss still says what it expected."""
TUNING_STALE = "guide.md#shipping"
"""A stale citation of a tuning item: the report's stale list still shows it."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_answers_ws(tmp_path / "repo")
    set_file = root / "sets" / "qa.yaml"
    text = set_file.read_text()
    snapshot = text.split("verified: ", 1)[1].split()[0]
    # k2 (tuning here) misses its section; h1 and u1 miss theirs
    text = text.replace("answer: 30 days\n    holdout: true", "answer: 30 days\n    holdout: false")
    set_file.write_text(text + HIDDEN_ITEMS.format(snapshot=snapshot))
    commit_all(root, "a holdout item, an item in no split")
    # the sections of h1, u1 and k3 (tuning) change: all three are stale
    faq, guide = root / "corpus" / "faq.md", root / "corpus" / "guide.md"
    faq.write_text(
        faq.read_text()
        .replace("from nine to five", "from ten to six")
        .replace("Call us on weekdays or", "Phone any day, or")
    )
    guide.write_text(guide.read_text().replace("4.95", "5.95"))
    take_snapshot(root, "corpus", root / "snapshots", root / ".evalset")
    commit_all(root, "new hours, contact and shipping cost")
    lines = [{**line, "retrieved": ["guide.md#returns"]} for line in ANSWERS]
    lines += [
        {"id": "h1", "answer": "We open early.", "retrieved": ["guide.md#returns"]},
        {"id": "u1", "answer": "By post.", "retrieved": ["guide.md#returns"]},
    ]
    write_run(root / "run.jsonl", lines)
    return root


OUTPUTS = {
    "json": ["--json"],
    "terminal": [],
    "markdown": ["--format", "md"],
}


@pytest.mark.parametrize("scorer", ["retrieval", "answers"])
@pytest.mark.parametrize("form", ["json", "terminal", "markdown", "html", "report file"])
def test_no_output_shows_a_holdout_items_labels(repo: Path, cli, scorer: str, form: str) -> None:  # type: ignore[no-untyped-def]
    command = ["score", scorer, "qa", "run.jsonl", "-o", "report.json", "--html", "page.html",
               "--allow-stale"]  # fmt: skip
    if scorer == "answers":
        command += ["--judge", "exact"]
    done = cli(repo, *command, *OUTPUTS.get(form, []))
    assert done.code == 0, done.err
    shown = {
        "report file": (repo / "report.json").read_text(),
        "html": (repo / "page.html").read_text(),
    }.get(form, done.out)
    assert "h1" in shown and "u1" in shown  # their misses are listed
    for label in LABELS:
        assert label not in shown, (form, label)
    # the retrieval misses (the answers terminal and comment list the answer misses only)
    if scorer == "retrieval" or form in ("json", "report file", "html"):
        assert TUNING_MISS in shown  # a tuning item's miss says what it expected
        if form in ("terminal", "markdown", "html"):
            assert "(a holdout item: not shown)" in shown  # h1
            assert "(in no split yet: not shown)" in shown  # u1: `split` may yet hold it out
    if form in ("json", "report file"):
        stale = {entry["id"]: entry for entry in json.loads(shown)["stale"]}
        assert set(stale) == {"h1", "u1", "k3"}
        assert stale["h1"]["citations"] is None and stale["h1"]["statuses"] == ["changed"]
        assert TUNING_STALE in json.dumps(stale["k3"])  # a tuning item's stale citation


def _unsure(messages: list[dict[str, Any]]) -> str:
    """A model that quotes what it was asked about instead of answering yes or no."""
    asked = messages[-1]["content"].split('"""\n')[-2].rstrip("\n")
    return f"Unsure: {asked}"


def test_a_judges_failure_on_a_holdout_item_is_not_quoted(repo: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A judge's reply is shown when it can be read as no verdict, and models quote the claim
    they were asked about: on a holdout item, that reply would carry its labels."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    with FakeServer() as model:
        model.answer = _unsure
        config = repo / "evalset.toml"
        config.write_text(
            config.read_text() + f'[judges.fake]\nkind = "openai"\nmodel = "fake-1"\n'
            f'base_url = "{model.url}"\napi_key_env = "TEST_KEY"\nretries = 0\n'
        )
        done = cli(repo, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "-o",
                   "report.json", "--html", "page.html", "--json", "--allow-stale")  # fmt: skip
    assert done.code == 1, done.err  # claims the judge could not decide
    report = json.loads(done.out)
    errors = {(e["id"], e["claim"]): e["error"] for e in report["judge_errors"]}
    assert errors[("h1", "key_points[0]")] == hidden_judge_error(True)
    assert errors[("u1", "key_points[0]")] == hidden_judge_error(None)
    assert "holdout item" in hidden_judge_error(True) and "no split yet" in hidden_judge_error(None)
    assert "Return within 14 days of delivery" in errors[("k1", "key_points[0]")]  # tuning
    for shown in (done.out, (repo / "report.json").read_text(), (repo / "page.html").read_text()):
        for label in LABELS:
            assert label not in shown, label


BREAKING_JUDGE = """\
import json, sys
mode, trigger = sys.argv[1], open("trigger.txt").read()
for line in sys.stdin:
    asked = json.loads(line)
    claim, ident = asked.get("claim", ""), asked["id"]
    if asked["op"] == "statements":
        print(json.dumps({"id": ident, "unsupported": True}), flush=True)
    elif trigger not in claim:
        print(json.dumps({"id": ident, "verdict": False}), flush=True)
    elif mode == "error-output":  # a traceback that quotes the request, say
        sys.exit("cannot judge " + claim)
    elif mode == "echo":
        print(json.dumps(asked), flush=True)
    elif mode == "wrong-id":
        print(json.dumps({"id": ident + 1000, "verdict": True, "reason": claim}), flush=True)
    elif mode == "verdict-text":
        print(json.dumps({"id": ident, "verdict": claim}), flush=True)
    elif mode == "cost-text":
        print(json.dumps({"id": ident, "verdict": True, "cost": claim}), flush=True)
    elif mode == "not-json":
        print("Judging: " + claim, flush=True)
"""
BREAKS = ["error-output", "echo", "wrong-id", "verdict-text", "cost-text", "not-json"]
"""How a judge program breaks on a claim: each way quotes the claim in what it printed."""
HOLDOUT_CLAIM = "Open from nine to five"
"""h1's key point, as a judge is asked about it (h1 is held out)."""
JUDGED = {
    "score answers": ["score", "answers", "qa", "run.jsonl", "--allow-stale"],
    "stale": ["stale", "qa"],
    "agreement": ["agreement", "labels.csv", "--set", "qa"],
}
HIDDEN_CLAIMS = [
    *((name, command, HOLDOUT_CLAIM) for name, command in JUDGED.items()),
    # u1's key point (it is in no split yet, and `split` may yet hold it out): the scorers
    # and agreement ask about it, `stale` does not
    ("score answers, no split", JUDGED["score answers"], "Call on weekdays"),
    ("agreement, no split", JUDGED["agreement"], "Call on weekdays"),
]


def _breaking_judge(repo: Path, mode: str, trigger: str) -> list[str]:
    (repo / "judge.py").write_text(BREAKING_JUDGE)
    _write_labels(repo)
    (repo / "trigger.txt").write_text(trigger)  # not on the command line, which is quoted
    return ["--judge", f"command:{sys.executable} judge.py {mode}"]


def _write_labels(repo: Path) -> None:
    """People's labels for `agreement`: one claim of a tuning item, one of h1 (held out),
    one of u1 (in no split yet)."""
    labels = [
        "id,answer,claim,label",
        "k1,Send it back within 14 days.,Return within 14 days of delivery,yes",
        "h1,We open early.,Open from nine to five Monday to Saturday,no",
        "u1,By post.,Call on weekdays or write to support,yes",
    ]
    (repo / "labels.csv").write_text("\n".join(labels) + "\n")


@pytest.mark.parametrize("mode", BREAKS)
@pytest.mark.parametrize(("command", "claim"), [c[1:] for c in HIDDEN_CLAIMS],
                         ids=[c[0] for c in HIDDEN_CLAIMS])  # fmt: skip
def test_a_judge_that_breaks_on_a_hidden_claim_is_named_without_what_it_printed(  # type: ignore[no-untyped-def]
    repo: Path, cli, command: list[str], mode: str, claim: str
) -> None:
    judge = _breaking_judge(repo, mode, claim)
    for form in ([], ["--json"]):
        done = cli(repo, *command, *judge, *form)
        assert done.code == 2, (done.out, done.err)
        said = done.err if not form else json.loads(done.out)["error"]
        assert "what it printed is not shown, since it had been asked about holdout" in said
        for label in (*LABELS, claim):
            assert label not in done.out + done.err, (label, said)
    assert not (repo / "report.json").exists()


@pytest.mark.parametrize("command", JUDGED.values(), ids=JUDGED.keys())
@pytest.mark.parametrize("mode", BREAKS)
def test_a_judge_that_breaks_on_a_tuning_claim_is_quoted_as_it_broke(  # type: ignore[no-untyped-def]
    repo: Path, cli, command: list[str], mode: str
) -> None:
    """A tuning item's claims are asked first: a judge broken from its first request (the
    usual bug) is shown as it broke, which is what its author needs to fix it."""
    claim = "Return within 14 days" if command[0] != "stale" else "Shipping costs 4.95"
    done = cli(repo, *command, *_breaking_judge(repo, mode, claim))
    assert done.code == 2, (done.out, done.err)
    assert "not shown" not in done.err
    assert claim in done.err or (mode == "echo" and '"op": "entails"' in done.err)  # cut short


QUOTING_JUDGE = """\
import json, sys
for line in sys.stdin:
    asked = json.loads(line)
    if asked["op"] == "statements":
        print(json.dumps({"id": asked["id"], "unsupported": True}), flush=True)
    else:
        reason = "judged: " + asked.get("claim", asked["text"])
        print(json.dumps({"id": asked["id"], "verdict": False, "reason": reason}), flush=True)
"""


@pytest.mark.parametrize("command", JUDGED.values(), ids=JUDGED.keys())
def test_the_verdict_cache_keeps_no_reason_of_a_hidden_claim(  # type: ignore[no-untyped-def]
    repo: Path, cli, command: list[str]
) -> None:
    """Verdicts are cached in a file that stays in the clear (a sealed holdout's included),
    and a judge's reason may quote the claim: a hidden item's verdict is kept without it."""
    _write_labels(repo)
    (repo / "judge.py").write_text(QUOTING_JUDGE)
    judge = ["--judge", f"command:{sys.executable} judge.py"]
    done = cli(repo, *command, *judge)
    assert done.code in (0, 1), done.err
    cache = (repo / ".evalset" / "verdicts.sqlite3").read_bytes()
    assert HOLDOUT_CLAIM.encode() not in cache
    if command[0] != "stale":  # u1's claim (in no split yet): only stale does not ask it
        assert b"Call on weekdays" not in cache
    tuning = b"Return within 14 days" if command[0] != "stale" else b"Shipping costs 4.95"
    assert b"judged: " + tuning in cache  # a tuning item's reason is kept
    again = cli(repo, *command, *judge, "--json")  # from the cache
    assert again.code == done.code, again.err
