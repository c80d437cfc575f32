"""A gate that cannot vouch for the current run does not say ok: a run whose judge failed on
its claims (so the current report has no value where the baseline has one), a gate that
compared nothing, a current report without metrics the baseline has; and reports whose
answer metrics different judges decided are refused unless --allow-judge-change."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from answers_ws import ANSWERS, STUB, make_answers_ws, write_run

from fake_openai import FakeServer

STUB_JUDGE = f"command:{sys.executable} {STUB}"


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    return make_answers_ws(tmp_path / "repo")


def _configure(qa: Path, judges: dict[str, dict[str, Any]]) -> None:
    """Judges under [judges.NAME] in the workspace's evalset.toml."""
    text = "[validate]\nmin_per_category = 0\n"
    for name, table in judges.items():
        text += f"[judges.{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in table.items())
    (qa / "evalset.toml").write_text(text, encoding="utf-8")


def _openai(url: str, model: str = "fake-1") -> dict[str, Any]:
    return {"kind": "openai", "model": model, "base_url": url, "api_key_env": "TEST_KEY",
            "retries": 0}  # fmt: skip


def _score(qa: Path, cli, judge: str, out: str, run: str = "run.jsonl") -> Any:  # type: ignore[no-untyped-def]
    return cli(qa, "score", "answers", "qa", run, "--judge", judge, "-o", out)


# how a judge fails on every claim: the command answering an error to each request, an
# OpenAI-compatible endpoint answering each call with a server error or a rate limit
DEAD = ["command-error", "openai-503", "openai-500", "openai-429"]


@pytest.mark.parametrize("dead", DEAD)
def test_a_run_whose_judge_failed_on_every_claim_fails_the_gate(  # type: ignore[no-untyped-def]
    qa: Path, cli, monkeypatch: pytest.MonkeyPatch, dead: str
) -> None:
    write_run(qa / "run.jsonl", ANSWERS)
    monkeypatch.setenv("TEST_KEY", "sk-test")
    with FakeServer() as server:
        judge = STUB_JUDGE
        if dead == "command-error":
            monkeypatch.setenv("STUB_MODE", "error:")  # every request gets an error answer
        else:
            _configure(qa, {"fake": _openai(server.url)})
            judge, server.status = "fake", int(dead.split("-")[1])
        # the dead run first: the good run's verdicts, cached, would answer its questions
        failed = _score(qa, cli, judge, "dead.json")
        assert failed.code == 1, failed.err
        assert "claim(s) the judge could not decide" in failed.out
        monkeypatch.delenv("STUB_MODE", raising=False)
        server.status = None
        assert _score(qa, cli, judge, "good.json").code == 0
    done = cli(qa, "gate", "good.json", "dead.json")
    assert done.code == 1, done.out + done.err
    lines = done.out.splitlines()
    assert lines[-1].startswith(
        "failed: the current report has no value where the baseline has one: coverage, "
        "false_refusal for 4 item(s) (j1, k1, k2, k3); violation_rate for 4 item(s) (j1, k1, "
        "k3, r1); refusal for 2 item(s) (r1, r2)"
    )
    assert lines[-1].endswith("or leave the metric out with --metric")
    assert not any(line.startswith("ok") for line in lines)
    result = json.loads(cli(qa, "gate", "good.json", "dead.json", "--json").out)
    assert result["ok"] is False and result["regressions"] == []
    # the exact metric needs no judge: k1 and k2 are compared on it, and nothing else is
    assert result["compared_items"] == 2
    assert {c["metric"] for c in result["overall"]} == {"exact"}
    judged = ["coverage", "violation_rate", "refusal", "false_refusal", "faithfulness",
              "injection"]  # fmt: skip
    assert list(result["missing_values"]) == judged
    # on exact alone, the gate can vouch for the run
    assert cli(qa, "gate", "good.json", "dead.json", "--metric", "exact").code == 0
    # on the metrics the judge decides, nothing was compared at all
    nothing = cli(qa, "gate", "good.json", "dead.json", "--metric", "coverage")
    assert nothing.code == 1
    assert "failed: nothing was compared: no item has a value of the gated metrics" in nothing.out


def test_a_gate_of_a_new_version_whose_items_all_changed_compared_nothing(  # type: ignore[no-untyped-def]
    qa: Path, cli
) -> None:
    """Every item reworded since the baseline: nothing is compared, and the gate says so
    instead of passing."""
    from conftest import commit_all

    write_run(qa / "run.jsonl", ANSWERS)
    assert _score(qa, cli, "exact", "base.json").code == 0
    path = qa / "sets" / "qa.yaml"
    path.write_text(path.read_text().replace("    question: ", "    question: Please, "))
    commit_all(qa, "every question reworded")
    assert _score(qa, cli, "exact", "cur.json").code == 0
    done = cli(qa, "gate", "base.json", "cur.json")
    assert done.code == 1
    assert "0 item(s) compared, 6 left out (0 added, 0 removed, 6 changed)" in done.out
    assert done.out.splitlines()[-1].startswith("failed: nothing was compared")
    assert json.loads(cli(qa, "gate", "base.json", "cur.json", "--json").out)["ok"] is False


# pairs of judges that decide differently: another judge, another program (its arguments),
# another model, another endpoint
OTHER_JUDGES = {
    "exact-then-command": ("exact", STUB_JUDGE),
    "command-arguments": (STUB_JUDGE, f"{STUB_JUDGE} --strict"),
    "openai-model": ("one", "other-model"),
    "openai-endpoint": ("one", "other-endpoint"),
}


@pytest.mark.parametrize("pair", list(OTHER_JUDGES))
def test_reports_of_different_judges_are_refused_unless_allowed(  # type: ignore[no-untyped-def]
    qa: Path, cli, monkeypatch: pytest.MonkeyPatch, pair: str
) -> None:
    retrieved = {"k1": ["guide.md#returns"], "k2": ["guide.md#damaged-returns"]}
    write_run(qa / "run.jsonl", [{**x, "retrieved": retrieved.get(x["id"], [])} for x in ANSWERS])
    monkeypatch.setenv("TEST_KEY", "sk-test")
    first, second = OTHER_JUDGES[pair]
    with FakeServer() as server, FakeServer() as elsewhere:
        _configure(qa, {"one": _openai(server.url), "other-model": _openai(server.url, "fake-2"),
                        "other-endpoint": _openai(elsewhere.url)})  # fmt: skip
        assert _score(qa, cli, first, "base.json").code == 0
        assert _score(qa, cli, second, "cur.json").code == 0
    b, c = (json.loads((qa / name).read_text())["judge"] for name in ("base.json", "cur.json"))
    refused = cli(qa, "gate", "base.json", "cur.json")
    assert refused.code == 2 and refused.out == ""
    assert refused.err.strip() == (
        f"evalset: cur.json: was judged by {c['name']} (version {c['version']}), the baseline "
        f"base.json by {b['name']} (version {b['version']}), so their coverage is not "
        "comparable; score both runs with one judge, or compare anyway with "
        "--allow-judge-change."
    )
    assert cli(qa, "gate", "base.json", "cur.json", "--json").code == 2
    allowed = cli(qa, "gate", "base.json", "cur.json", "--allow-judge-change")
    assert allowed.code in (0, 1)
    assert f"note: judge changed: {b['name']} (version {b['version']}) -> {c['name']}" in (
        allowed.out
    )
    # metrics no judge decides are compared whatever the judges
    for metrics in ("exact", "hit@1,mrr"):
        assert cli(qa, "gate", "base.json", "cur.json", "--metric", metrics).code == 0


RETRIEVED = {"k1": ["guide.md#returns"], "k2": ["guide.md#damaged-returns"], "k3": [],
             "j1": ["guide.md#payments"], "r1": [], "r2": []}  # fmt: skip

# runs that retrieved on some lines only: (ids whose lines lose "retrieved", extra lines)
PARTLY_RETRIEVED = {
    "one-line": (["k2"], []),
    "several-lines": (["k1", "k3", "j1"], []),
    "all-but-one": (["k1", "k2", "k3"], []),
    "one-trial-of-an-item": ([], [{**ANSWERS[0], "trial": 1}]),
}


@pytest.mark.parametrize("case", list(PARTLY_RETRIEVED))
def test_a_run_that_retrieved_on_some_lines_says_retrieval_was_not_scored(  # type: ignore[no-untyped-def]
    qa: Path, cli, case: str
) -> None:
    both = [{**x, "retrieved": RETRIEVED[x["id"]]} for x in ANSWERS]
    write_run(qa / "both.jsonl", both)
    assert _score(qa, cli, "exact", "base.json", "both.jsonl").code == 0
    dropped, extra = PARTLY_RETRIEVED[case]
    lines = [{k: v for k, v in x.items() if k != "retrieved" or x["id"] not in dropped}
             for x in both] + extra  # fmt: skip
    write_run(qa / "part.jsonl", lines)
    done = _score(qa, cli, "exact", "cur.json", "part.jsonl")
    assert done.code == 0, done.err
    lacking = [
        {"line": n, "id": x["id"]}
        for n, x in enumerate(lines, 1)
        if "retrieved" not in x and x["id"] not in ("r1", "r2")
    ]
    report = json.loads((qa / "cur.json").read_text())
    assert report["report"]["kind"] == "answers"
    assert report["retrieval_not_scored"] == lacking
    shown = ", ".join(f"line {x['line']} {x['id']}" for x in lacking)
    assert (
        f"note: retrieval not scored: {len(lacking)} line(s) of answerable items have no "
        f'"retrieved" while others have one ({shown}); give each line what was retrieved'
    ) in done.out
    gated = cli(qa, "gate", "base.json", "cur.json")
    assert gated.code == 1
    assert gated.out.splitlines()[-1].startswith(
        "failed: the current report (kind answers; the baseline's: retrieval+answers) has no "
        "hit@1, hit@3, hit@5, hit@10, mrr, … (13 more), which the baseline has"
    )
    result = json.loads(cli(qa, "gate", "base.json", "cur.json", "--json").out)
    assert result["ok"] is False and result["missing_metrics"][:2] == ["hit@1", "hit@3"]
    # the answer metrics alone, named, are compared as before
    assert cli(qa, "gate", "base.json", "cur.json", "--metric", "coverage,exact").code == 0


def test_lines_of_unanswerable_items_need_no_retrieved_list(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Unanswerable items have no retrieval metric: their lines without "retrieved" keep
    nothing from being scored, and are not listed; nor is anything in a run that does not
    retrieve at all."""
    lines = [{**x, "retrieved": RETRIEVED[x["id"]]} if x["id"][0] != "r" else x for x in ANSWERS]
    write_run(qa / "run.jsonl", lines)
    done = _score(qa, cli, "exact", "r.json")
    assert done.code == 0 and "retrieval not scored" not in done.out
    report = json.loads((qa / "r.json").read_text())
    assert report["report"]["kind"] == "retrieval+answers"
    assert report["retrieval_not_scored"] == []
    write_run(qa / "run.jsonl", ANSWERS)
    done = _score(qa, cli, "exact", "a.json")
    assert done.code == 0 and "retrieval not scored" not in done.out
    assert json.loads((qa / "a.json").read_text())["retrieval_not_scored"] == []


def test_a_run_scored_without_the_key_passes_against_one_scored_with_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The accepted run was scored where the holdout key is (CI), this one where it is not
    (a tuner's machine): the sealed items have no row here, and are left out as before,
    not taken for values the current report lacks."""
    import shutil

    from conftest import ROOT, commit_all, make_git_repo

    repo = make_git_repo(tmp_path / "repo")
    for folder in ("corpus", "snapshots", "sets", "examples"):
        shutil.copytree(ROOT / folder, repo / folder)
    (repo / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\n')
    assert cli(repo, "seal", "acme-support", "--recipient", key[1]).code == 0
    commit_all(repo, "sealed")
    run = "examples/runs/acme-support-bm25.jsonl"
    score = ["score", "retrieval", "acme-support", run, "--allow-stale", "-o"]
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(repo, *score, "with-key.json").code == 0
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert cli(repo, *score, "without-key.json").code == 0
    done = cli(repo, "gate", "with-key.json", "without-key.json", "--json")
    assert done.code == 0, done.out
    found = json.loads(done.out)
    assert found["ok"] and found["missing_values"] == {} and found["problems"] == []
    assert len(found["left_out"]["unscored"]) > 0  # the sealed items, left out and counted
