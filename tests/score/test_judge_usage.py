"""A judge's cost and tokens: an answer that gives them as no count stops the command judge
(as any malformed answer does), an endpoint's usage that is negative or costs more than a
number can hold fails that claim, and no total is summed past the largest number a report
holds: every report stays strict JSON, its totals finite and never negative."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

from fake_openai import FakeServer

# a judge whose every answer is a true verdict with the extras given as its argument (JSON)
EXTRAS_JUDGE = """\
import json, sys
extras = json.loads(sys.argv[1])
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"id": request["id"], "verdict": True, **extras}), flush=True)
"""


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "extras_judge.py").write_text(EXTRAS_JUDGE, encoding="utf-8")
    # no contexts: no statements to ask for, so that every request is a verdict
    write_run(
        repo / "run.jsonl", [{k: v for k, v in x.items() if k != "contexts"} for x in ANSWERS]
    )
    return repo


def _strict(text: str) -> Any:
    """JSON as the standard has it: no NaN, no Infinity."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _shown_errors(report: dict[str, Any]) -> list[str]:
    """The judge's errors a report quotes (a holdout item's say only that it failed)."""
    return [e["error"] for e in report["judge_errors"] if not e["error"].startswith("the judge")]


def _score(qa: Path, cli, extras: str) -> Any:  # type: ignore[no-untyped-def]
    judge = f"command:{sys.executable} extras_judge.py '{extras}'"
    return cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", judge, "-o", "r.json")


# extras no judge answer may give: a cost that is no number from 0, tokens that are no whole
# number from 0
MALFORMED = {
    '{"cost": -0.001}': 'a "cost" that is not a number from 0',
    '{"cost": -1e308}': 'a "cost" that is not a number from 0',
    '{"cost": "0.1"}': 'a "cost" that is not a number from 0',
    '{"cost": true}': 'a "cost" that is not a number from 0',
    '{"cost": [1]}': 'a "cost" that is not a number from 0',
    '{"tokens": -7}': '"tokens" that are not a whole number from 0',
    '{"tokens": -1e308}': '"tokens" that are not a whole number from 0',
    '{"tokens": 1.5}': '"tokens" that are not a whole number from 0',
    '{"tokens": "10"}': '"tokens" that are not a whole number from 0',
    '{"tokens": 1' + "0" * 400 + "}": '"tokens" that are not a whole number from 0',
}


@pytest.mark.parametrize("extras", list(MALFORMED))
def test_an_answer_whose_cost_or_tokens_are_no_count_stops_the_command_judge(  # type: ignore[no-untyped-def]
    qa: Path, cli, extras: str
) -> None:
    done = _score(qa, cli, extras)
    assert done.code == 2, done.out
    err = done.err.strip()
    assert err.startswith(f"evalset: judge command `{sys.executable} extras_judge.py ")
    assert f"with {MALFORMED[extras]} to about 1.8e308 (request " in err
    assert err.endswith("as the README's judge protocol says.") and len(err.splitlines()) == 1
    assert not (qa / "r.json").exists()


# extras each answer may give, whose sum over the answers passes the largest number a report
# holds: the answer that would take a total past it fails its claim
TOO_MUCH = ['{"cost": 1e308}', '{"cost": 1.7e308, "tokens": 1}', '{"tokens": 1e308}',
            '{"tokens": 1' + "0" * 308 + "}"]  # fmt: skip


@pytest.mark.parametrize("extras", TOO_MUCH)
def test_totals_never_pass_the_largest_number_a_report_holds(  # type: ignore[no-untyped-def]
    qa: Path, cli, extras: str
) -> None:
    done = _score(qa, cli, extras)
    assert done.code == 1, done.err
    report = _strict((qa / "r.json").read_text())
    usage = report["judge"]["usage"]
    assert 0 < usage["failed"] < usage["calls"]
    for key in ("tokens", "verdict_tokens", "cost", "verdict_cost"):
        assert usage[key] is None or 0 <= usage[key] <= sys.float_info.max, key
    errors = _shown_errors(report)
    assert errors and all("beyond the largest number a report holds" in e for e in errors)
    (line,) = [x for x in done.out.splitlines() if x.startswith("judge command:")]
    assert "inf" not in line and " -" not in line, line


def test_null_extras_are_none_and_whole_floats_are_counts(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert _score(qa, cli, '{"cost": null, "tokens": null}').code == 0
    usage = _strict((qa / "r.json").read_text())["judge"]["usage"]
    assert (usage["tokens"], usage["cost"]) == (0, None)
    (qa / ".evalset" / "verdicts.sqlite3").unlink()
    assert _score(qa, cli, '{"tokens": 96.0, "cost": 0}').code == 0
    usage = _strict((qa / "r.json").read_text())["judge"]["usage"]
    assert usage["tokens"] == 96 * usage["calls"] and usage["cost"] == 0.0


# an endpoint's usage that cannot be summed: a negative count, or counts whose cost at the
# judge's prices is beyond a float
BAD_USAGE = {
    "negative-total": ({"total_tokens": -35}, "a negative token count (total_tokens -35)"),
    "negative-prompt": ({"prompt_tokens": -3, "completion_tokens": 4, "total_tokens": 1},
                        "a negative token count (prompt_tokens -3)"),
    "negative-huge": ({"completion_tokens": -1e308}, "a negative token count"),
    "cost-beyond-a-float": ({"prompt_tokens": 1e308, "completion_tokens": 1e308},
                            "whose cost is beyond the largest number a report holds"),
}  # fmt: skip


def _openai_ws(qa: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch, price: float) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-test")
    (qa / "evalset.toml").write_text(
        "[validate]\nmin_per_category = 0\n[judges.fake]\n"
        f'kind = "openai"\nmodel = "fake-1"\nbase_url = "{server.url}"\n'
        f'api_key_env = "TEST_KEY"\nretries = 0\nprice_input = {price}\n'
        f"price_output = {price * 2}\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize("case", list(BAD_USAGE))
def test_an_endpoint_s_usage_that_cannot_be_summed_fails_each_claim(  # type: ignore[no-untyped-def]
    qa: Path, cli, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    usage, message = BAD_USAGE[case]
    reply = {"choices": [{"message": {"content": "yes"}}], "usage": usage}
    with FakeServer() as server:
        _openai_ws(qa, server, monkeypatch, 1.0)
        server.raw = ("application/json", json.dumps(reply).encode())
        done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "-o", "r.json")
    assert done.code == 1, done.err
    report = _strict((qa / "r.json").read_text())
    judged = report["judge"]["usage"]
    assert judged["failed"] == judged["calls"] > 0
    assert (judged["tokens"], judged["cost"]) == (0, None)
    errors = _shown_errors(report)
    assert errors and all(message in e for e in errors)


def test_an_endpoint_whose_tokens_sum_past_a_float_fails_the_claims_beyond(  # type: ignore[no-untyped-def]
    qa: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each call counts 10**308 tokens: the first is counted, the rest fail."""
    reply = {"choices": [{"message": {"content": "yes"}}], "usage": {"total_tokens": 10**308}}
    with FakeServer() as server:
        _openai_ws(qa, server, monkeypatch, 1.0)
        server.raw = ("application/json", json.dumps(reply).encode())
        done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "-o", "r.json")
    assert done.code == 1, done.err
    report = _strict((qa / "r.json").read_text())
    judged = report["judge"]["usage"]
    assert judged["failed"] == judged["calls"] - 1 and judged["tokens"] == 10**308
