"""Each judge through its protocol: exact, a command speaking JSON lines (and every way it
can break), the openai judge against a fake endpoint on the loopback, plug-ins through the
entry-point group, judges configured in the workspace, and the verdict cache."""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from answers_ws import ANSWERS, STUB, make_answers_ws, write_run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import write_files
from evalset.config import find_workspace
from evalset.score.answers import score_answers
from evalset.score.judges.base import JudgeBroken, JudgeFailed, Request, Statements, Verdict
from evalset.score.judges.cache import FILE, VerdictCache, request_key
from evalset.score.judges.command import CommandJudge
from evalset.score.judges.exact import ExactJudge
from evalset.score.judges.registry import load_judge
from evalset.score.judges.runner import Judging
from fake_openai import FakeServer


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    return make_answers_ws(tmp_path / "repo")


def test_exact_is_normalised_containment_of_whole_words() -> None:
    judge = ExactJudge()
    assert judge.entails("You can return it within Thirty days, with a photo.", "30 days").value
    assert judge.entails("Shipping costs €4.95 below €50", "4.950").value
    assert not judge.entails("within 300 days", "30 days").value
    assert not judge.entails("anything", "   ").value
    assert judge.refuses("Sorry — I don't know that.").value
    assert judge.refuses("I'm unable to answer questions about the weather.").value
    assert not judge.refuses("You have 14 days.").value
    assert not judge.can_split() and judge.statements("A. B.") is None


@pytest.mark.parametrize(
    ("words", "digits"),
    [
        ("thirty days", "30 days"),
        ("one hundred and twenty", "120"),
        ("twenty-five", "25"),
        ("the twentieth day", "the 20th day"),
        ("the fortieth", "the 40th"),
        ("ninetieth", "90th"),
        ("the twenty-first", "the 21st"),
        ("the fifteenth", "the 15th"),
        ("eleventh", "11th"),
        ("the fourth", "the 4th"),
        ("one hundredth", "100th"),
    ],
)
def test_number_words_and_ordinals_normalise_as_their_digits(words: str, digits: str) -> None:
    from evalset.score.normalise import normalise

    assert normalise(words) == normalise(digits)
    assert normalise(words.title()) == normalise(digits)


def _stub(root: Path, **env: str) -> CommandJudge:
    return CommandJudge([sys.executable, str(STUB)], root)


def test_the_command_judge_speaks_json_lines(qa: Path) -> None:
    judge = _stub(qa)
    try:
        assert judge.entails("Return within 14 days.", "return within 14 days") == Verdict(
            True, None, 0.001, 10
        )
        assert judge.refuses("I don't know.").value is True
        assert judge.statements("One. Two.") == Statements(("One", "Two."))
        assert judge.can_split()
    finally:
        judge.close()
    assert judge.name == f"command:{sys.executable} {STUB}"


def test_editing_the_judge_script_changes_its_version(tmp_path: Path) -> None:
    script = tmp_path / "judge.py"
    script.write_text("print(1)\n")
    before = CommandJudge([sys.executable, "judge.py"], tmp_path).version
    script.write_text("print(2)\n")
    assert CommandJudge([sys.executable, "judge.py"], tmp_path).version != before


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", "exited (status 3) without answering (request 1); its last error output: "
                  "'stub judge: out of credits'"),
        ("garbage", "printed 'Verdict: YES!!', which is not an answer to it (request 1)"),
        ("wrong-id", 'printed \'{"id": 101, "verdict": "yes", "tokens": 10, "cost": 0.001}\', '
                     "which is not an answer to it (request 1)"),
        ("no-verdict", 'answered {"id": 1, "verdikt": true} without a true/false "verdict" '
                       "(request 1)"),
    ],
)  # fmt: skip
def test_a_broken_command_stops_with_one_sentence(
    qa: Path, monkeypatch: pytest.MonkeyPatch, mode: str, message: str
) -> None:
    monkeypatch.setenv("STUB_MODE", mode)
    judge = _stub(qa)
    with pytest.raises(JudgeBroken) as caught:
        judge.entails("a", "a")
    assert f"judge command `{sys.executable} {STUB}` {message}" in str(caught.value)
    assert str(caught.value).endswith("as the README's judge protocol says.")
    assert judge._programs == []  # stopped, not left running


def test_a_command_that_hangs_is_stopped_at_its_timeout(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_MODE", "hang")
    judge = CommandJudge([sys.executable, str(STUB)], qa, timeout=0.5)
    with pytest.raises(JudgeBroken, match=r"gave no answer within 0\.5 s \(timeout\)"):
        judge.entails("a", "a")
    assert judge._programs == []


def test_a_command_that_does_not_exist(qa: Path) -> None:
    with pytest.raises(JudgeBroken, match="no such program 'no-such-judge'"):
        CommandJudge(["no-such-judge"], qa).entails("a", "a")


def test_an_error_answer_fails_that_request_only(qa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_MODE", "error:secret")
    judge = _stub(qa)
    try:
        with pytest.raises(JudgeFailed, match="content filter"):
            judge.entails("the secret", "secret")
        assert judge.entails("plain text", "plain").value is True
    finally:
        judge.close()


def _openai(qa: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch, **settings: Any) -> Any:
    monkeypatch.setenv("TEST_KEY", "sk-test")
    table = {"kind": "openai", "model": "fake-1", "base_url": server.url,
             "api_key_env": "TEST_KEY", **settings}  # fmt: skip
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in table.items())
    (qa / "evalset.toml").write_text(
        "[validate]\nmin_per_category = 0\n[judges.fake]\n" + lines, encoding="utf-8"
    )
    return load_judge("fake", find_workspace(qa))


def test_the_openai_judge_against_a_fake_endpoint(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch, price_input=1.0, price_output=2.0)
        assert judge.name == "openai:fake-1"
        verdict = judge.entails("Return within 14 days.", "return within 14 days")
        assert verdict == Verdict(True, "fake", (20 * 1.0 + 5 * 2.0) / 1e6, 25)
        assert judge.entails("Return within 14 days.", "returns are free").value is False
        assert judge.refuses("I don't know.").value is True
        assert judge.statements("One. Two.") == Statements(("One", "Two."), 3e-05, 25)
        assert server.requests == 4
        described = judge.describe()
        assert described["model"] == "fake-1" and described["base_url"] == server.url + "/"
        assert set(described["prompts"]) == {"entails", "refuses", "statements"}
        server.reply = "Perhaps."
        with pytest.raises(JudgeFailed, match="neither yes nor no"):
            judge.entails("a", "a")
        server.reply = "Yes, it does."
        assert judge.entails("a", "b").value is True
        judge.close()


# a reply without a JSON verdict, and what it says: True, False, or None (no verdict: the
# judge failed on that claim)
REPLIES = [
    ("yes", True), ("No", False), ("Yes.", True), ("no.", False), ("Yes!", True),
    ("  NO  ", False), ("Yes, it does.", True), ("No, it says 30 days.", False),
    ("No: the text gives 30 days.", False), ("No; it gives 30 days.", False),
    ("No - it gives 30 days.", False), ("No \u2014 it gives 30 days.", False),
    ("Yes\nThe text says so.", True), ("**Yes**", True), ("**No**.", False), ('"no"', False),
    ("Yes\r\n", True), ("No\r\nThe text says 14 days.", False), ("No\rIt says 14.", False),
    ("`yes`", True), ("`No`.", False), ("Yes (the text says so).", True), ("No\u2026", False),
    ("Yes -- it says so.", True), ("No (it says 14 days)", False),
    ('The verdict: {"verdict": "no", "reason": "r"}', False),
    ("No doubt: the text clearly states this.", None), ("No doubt, it does.", None),
    ("No problem, yes it does.", None), ("No question, it says so.", None),
    ("Yes and no.", None), ("No idea.", None), ("No?", None), ("Nope.", None),
    ("Yesterday it did.", None), ("No-one would say so.", None), ("Notably, yes.", None),
    ("yes it does", None),  # a word after it: which words keep it a verdict is not guessed
    ('No. {"verdict": "maybe"}', None),  # a verdict given that is neither
    ("Perhaps.", None), ("", None),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "verdict"), REPLIES)
def test_an_openai_reply_is_a_verdict_only_when_it_says_a_bare_yes_or_no(
    qa: Path, monkeypatch: pytest.MonkeyPatch, reply: str, verdict: bool | None
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch)
        server.reply = reply
        try:
            if verdict is None:
                with pytest.raises(JudgeFailed, match="neither yes nor no"):
                    judge.entails("Damaged items can be returned within 30 days.", "30 days")
            else:
                assert judge.entails("a", "a").value is verdict
        finally:
            judge.close()


# a reply holding its JSON verdict among prose whose braces are no JSON, or two verdicts
JSON_AMONG_PROSE = [
    ('{"verdict": "no", "reason": "r"}\nNote: the claim {claim} is not stated.', False),
    ('```json\n{"verdict": "yes"}\n```\nI checked {text} against it.', True),
    ('Thinking {step 1}... then {"verdict": "yes", "reason": "r"}', True),
    ('I read {"text"} and decided: {"verdict": "no"}', False),
    ('{"verdict": "yes"} {"verdict": "true"}', True),  # the same verdict twice
    ('{"verdict": "yes"}\n{"verdict": "no"}', "both yes and no"),
    ('{"verdict": "no"} or {"verdict": true}', "both yes and no"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "verdict"), JSON_AMONG_PROSE)
def test_an_openai_reply_s_json_verdict_is_read_whatever_braces_surround_it(
    qa: Path, monkeypatch: pytest.MonkeyPatch, reply: str, verdict: bool | str
) -> None:
    """The object was taken from the first brace to the last: prose with a brace of its own
    after the verdict (a template echoed, ``{claim}``) made it no JSON, and the claim failed."""
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch)
        server.reply = reply
        try:
            if isinstance(verdict, str):
                with pytest.raises(JudgeFailed, match=verdict):
                    judge.entails("a", "a")
            else:
                assert judge.entails("a", "a").value is verdict
        finally:
            judge.close()


@pytest.mark.parametrize(
    ("reply", "statements"),
    [
        ('{"statements": ["A.", "B."]}\nThat is all of {text}.', ("A.", "B.")),
        ('Split {text}: ```{"statements": ["A."]}```', ("A.",)),
        ('{"statements": ["A."]}\n{"statements": ["A."]}', ("A.",)),  # the same list twice
    ],
)
def test_an_openai_reply_s_statements_are_read_whatever_braces_surround_them(
    qa: Path, monkeypatch: pytest.MonkeyPatch, reply: str, statements: tuple[str, ...]
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch)
        server.reply = reply
        try:
            assert judge.statements("A. B.").items == statements  # type: ignore[union-attr]
            server.reply = '{"statements": ["A."]} {"statements": ["B."]}'  # lists that differ
            with pytest.raises(JudgeFailed, match="not a list of statements"):
                judge.statements("A. C.")
        finally:
            judge.close()


def test_a_reply_that_is_no_verdict_is_listed_and_never_counted_as_no(
    qa: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:  # type: ignore[no-untyped-def]
    write_run(qa / "run.jsonl", [line for line in ANSWERS if line["id"] == "k1"])
    with FakeServer() as server:
        _openai(qa, server, monkeypatch).close()
        server.reply = "No doubt: the text clearly states this."
        done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "--json")
    assert done.code == 1, done.err
    report = json.loads(done.out)
    (row,) = [row for row in report["items"] if row["id"] == "k1"]
    assert "coverage" not in row["metrics"] and row["answer"]["key_points"] == [None, None]
    errors = {e["claim"]: e["error"] for e in row["answer"]["errors"]}
    assert errors["key_points[0]"] == (
        "the model replied 'No doubt: the text clearly states this.', neither yes nor no"
    )
    assert {e["claim"] for e in report["judge_errors"]} >= {"key_points[0]", "key_points[1]"}


COMPLETION = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}}]}


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b"Service busy, try later"),
        ("application/json", b"not json at all"),  # the reply is not JSON
        ("application/json", b"\x80abc"),  # nor UTF-8
        ("application/json", b'{"usage": {"total_tokens": ' + b"9" * 5000 + b"}}"),  # nor readable
        ("application/json", b"[" * 100_000 + b"]" * 100_000),  # too deep for the parser
        ("application/json", b"[1, 2]"),
        ("application/json", b"{}"),
        ("application/json", b'{"choices": []}'),
        ("application/json", b'{"choices": "yes"}'),
        ("application/json", b'{"choices": [{"message": {"content": null}}]}'),
        ("application/json", b'{"choices": [{"message": {"content": 1}}]}'),
        ("application/json", b'{"choices": [{"text": "yes"}]}'),
    ],
)
def test_an_openai_reply_without_a_message_fails_that_claim(
    qa: Path, monkeypatch: pytest.MonkeyPatch, content_type: str, body: bytes
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch, price_input=1.0, price_output=1.0)
        server.raw = (content_type, body)
        try:
            wanted = (
                "reply is not JSON"
                if body.startswith((b"not", b"Serv", b"\x80", b'{"usage', b"[["))
                else "holds no message"
            )
            with pytest.raises(JudgeFailed, match=wanted):
                judge.entails("a", "a")
        finally:
            judge.close()


@pytest.mark.parametrize(
    ("usage", "tokens", "cost"),
    [
        (None, None, None),
        ({"total_tokens": 7}, 7, 0.0),
        ({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, 7, 3e-06 + 8e-06),
        ({"prompt_tokens": "3", "completion_tokens": None, "total_tokens": True}, None, 0.0),
        ({}, None, 0.0),
        ({"prompt_tokens": 3.0, "completion_tokens": 4.0}, None, 3e-06 + 8e-06),
    ],
)
def test_an_openai_reply_s_usage_is_summed_as_given(
    qa: Path, monkeypatch: pytest.MonkeyPatch, usage: Any, tokens: Any, cost: Any
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch, price_input=1.0, price_output=2.0)
        reply = COMPLETION if usage is None else {**COMPLETION, "usage": usage}
        server.raw = ("application/json", json.dumps(reply).encode())
        try:
            verdict = judge.entails("a", "a")
        finally:
            judge.close()
        assert verdict.value is True and verdict.tokens == tokens
        assert verdict.cost == (pytest.approx(cost) if cost else cost)


@pytest.mark.parametrize("content_type", ["text/plain", "text/html", ""])
def test_a_completion_not_labelled_json_is_still_read(
    qa: Path, monkeypatch: pytest.MonkeyPatch, content_type: str
) -> None:
    """Some OpenAI-compatible proxies label their JSON as text."""
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch)
        server.raw = (content_type, json.dumps(COMPLETION).encode())
        try:
            assert judge.entails("a", "a").value is True
        finally:
            judge.close()


def test_an_answer_that_cannot_be_sent_fails_that_claim(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch)
        try:
            with pytest.raises(JudgeFailed, match="cannot be sent \\(a lone surrogate\\)"):
                judge.entails("bad \ud800 text", "a")
            assert server.requests == 0
        finally:
            judge.close()


def test_the_openai_judge_retries_with_backoff(qa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as server:
        server.fail_first = 2  # two rate limits, then an answer
        judge = _openai(qa, server, monkeypatch, retries=3)
        assert judge.entails("a b", "a b").value is True
        assert server.requests == 3
        server.requests, server.fail_first, server.fail_status = 0, 10, 500
        with pytest.raises(JudgeFailed, match="status 500"):
            judge.entails("a", "a")
        assert server.requests == 4  # the first try and three retries
        judge.close()


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "refused the key (status 401); check TEST_KEY"),
        (404, "has no model 'fake-1' (status 404)"),
    ],
)
def test_an_openai_endpoint_that_refuses_the_judge_stops_it(
    qa: Path, monkeypatch: pytest.MonkeyPatch, status: int, message: str
) -> None:
    with FakeServer() as server:
        server.status = status
        judge = _openai(qa, server, monkeypatch, retries=0)
        with pytest.raises(JudgeBroken, match=re.escape(message)):
            judge.entails("a", "a")


def test_an_openai_endpoint_that_is_down(qa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as server:
        url = server.url
    judge = _openai(qa, type("S", (), {"url": url})(), monkeypatch, retries=0, timeout=2)
    with pytest.raises(JudgeBroken, match=r"cannot reach http://127\.0\.0\.1:"):
        judge.entails("a", "a")


def test_prompts_are_files_a_user_overrides(qa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(qa, {"prompts/refuses.txt": 'Did it decline?\n"""\n{text}\n"""\nyes/no'})
    with FakeServer() as server:
        shipped = _openai(qa, server, monkeypatch)
        own = _openai(qa, server, monkeypatch, prompts="prompts")
        assert own.prompts["refuses"].startswith("Did it decline?")
        assert own.prompts["entails"] == shipped.prompts["entails"]
        assert own.version != shipped.version  # its verdicts are cached apart
        assert own.refuses("I don't know").value is True
        server.reply = "no"
        assert own.refuses("x").value is False


SHIPPED_PROMPTS = Path(__file__).parents[2] / "src" / "evalset" / "score" / "judges" / "prompts"

# a prompt file as a user edits it (the shipped one, text replaced), and the sentence
# refusing it: {line} is the line of the entails prompt's {claim}
BAD_PROMPTS = [
    ("entails", ("{claim}", "{claims}"),
     "prompts/entails.txt:{line}: {claims} is no field of the entails prompt (did you mean "
     "{claim}?); its fields are {text} and {claim} (to send braces around a word as they are, "
     "put a space inside them: { claims })."),
    ("entails", ("{claim}", "{Claim}"),
     "prompts/entails.txt:{line}: {Claim} is no field of the entails prompt (did you mean "
     "{claim}?); its fields are {text} and {claim} (to send braces around a word as they are, "
     "put a space inside them: { Claim })."),
    ("entails", ("{claim}", "{question}"),
     "prompts/entails.txt:{line}: {question} is no field of the entails prompt; its fields are "
     "{text} and {claim} (to send braces around a word as they are, put a space inside them: "
     "{ question })."),
    ("entails", ("{claim}", "the claim"),
     "prompts/entails.txt: has no {claim}, so the model would never see the claim it checks; "
     "add {claim} where it belongs."),
    ("entails", ("{claim}", "{ claim }"),  # braces kept as written: no field there
     "prompts/entails.txt: has no {claim}, so the model would never see the claim it checks; "
     "add {claim} where it belongs."),
    ("entails", ("{text}", "{txt}"),
     "prompts/entails.txt:5: {txt} is no field of the entails prompt (did you mean {text}?); "
     "its fields are {text} and {claim} (to send braces around a word as they are, put a space "
     "inside them: { txt })."),
    ("entails", ("{text}", ""),
     "prompts/entails.txt: has no {text}, so the model would never see the text it judges; "
     "add {text} where it belongs."),
    ("refuses", ("{text}", "{text}\nClaim: {claim}"),
     "prompts/refuses.txt:6: {claim} is no field of the refuses prompt; its field is {text} (to "
     "send braces around a word as they are, put a space inside them: { claim })."),
    ("refuses", ("{text}", "the answer"),
     "prompts/refuses.txt: has no {text}, so the model would never see the text it judges; "
     "add {text} where it belongs."),
    ("statements", ("{text}", "{TEXT}"),
     "prompts/statements.txt:5: {TEXT} is no field of the statements prompt (did you mean "
     "{text}?); its field is {text} (to send braces around a word as they are, put a space "
     "inside them: { TEXT })."),
]  # fmt: skip


@pytest.mark.parametrize(("name", "edit", "message"), BAD_PROMPTS)
def test_a_prompt_file_the_model_could_not_judge_with_is_refused(
    qa: Path, monkeypatch: pytest.MonkeyPatch, name: str, edit: tuple[str, str], message: str
) -> None:
    shipped = (SHIPPED_PROMPTS / f"{name}.txt").read_text(encoding="utf-8")
    assert edit[0] in shipped
    write_files(qa, {f"prompts/{name}.txt": shipped.replace(edit[0], edit[1])})
    line = shipped[: shipped.index("{claim}")].count("\n") + 1 if name == "entails" else 0
    with FakeServer() as server, pytest.raises(JudgeBroken) as caught:
        _openai(qa, server, monkeypatch, prompts="prompts")
    assert str(caught.value) == f"{qa}/" + message.replace("{line}", str(line))


def test_a_refused_prompt_file_stops_scoring_before_anything_is_asked_or_written(
    qa: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:  # type: ignore[no-untyped-def]
    shipped = (SHIPPED_PROMPTS / "entails.txt").read_text(encoding="utf-8")
    write_files(qa, {"prompts/entails.txt": shipped.replace("{claim}", "{claims}")})
    write_run(qa / "run.jsonl", ANSWERS)
    with FakeServer() as server:
        _openai(qa, server, monkeypatch)  # the settings, before the prompts are named
        with (qa / "evalset.toml").open("a", encoding="utf-8") as config:
            config.write('prompts = "prompts"\n')
        done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "-o", "r.json")
        assert server.requests == 0
    assert done.code == 2
    line = shipped[: shipped.index("{claim}")].count("\n") + 1
    assert done.err == (
        f"evalset: prompts/entails.txt:{line}: {{claims}} is no field of the entails prompt "
        "(did you mean {claim}?); its fields are {text} and {claim} (to send braces around a "
        "word as they are, put a space inside them: { claims }).\n"
    )
    assert not (qa / "r.json").exists() and not (qa / ".evalset" / FILE).exists()


def test_braces_that_are_no_field_are_sent_as_written(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped prompts ask for JSON in braces; a word a user means literally is set
    apart by spaces inside its braces."""
    sent: list[str] = []
    prompt = 'Text: {text}\nClaim: {claim}\nNot { claims }, {}, {"a": 1} or {1}.\nyes/no'
    write_files(qa, {"prompts/entails.txt": prompt})
    with FakeServer() as server:
        server.answer = lambda messages: sent.append(messages[0]["content"]) or "yes"
        judge = _openai(qa, server, monkeypatch, prompts="prompts")
        try:
            assert judge.entails("T {claim}", "C {text}").value is True
        finally:
            judge.close()
    assert sent == [
        'Text: T {claim}\nClaim: C {text}\nNot { claims }, {}, {"a": 1} or {1}.\nyes/no'
    ]


def test_openai_requests_run_concurrently_up_to_the_limit(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer() as server:
        server.delay = 0.05
        judge = _openai(qa, server, monkeypatch, concurrency=4)
        judging = Judging(judge)
        requests = [Request("entails", f"text {k}", f"text {k}") for k in range(24)]
        results = judging.run(requests)
        assert all(isinstance(r, Verdict) and r.value for r in results.values())
        assert server.peak == 4 and server.requests == 24
        assert judging.usage.tokens == 24 * 25 and judging.usage.calls == 24
        judge.close()


def test_scoring_with_the_openai_judge_and_a_second_run_asks_nothing(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = write_run(qa / "run.jsonl", ANSWERS)
    with FakeServer() as server:
        judge = _openai(qa, server, monkeypatch, price_input=1.0, price_output=1.0)
        report, judging = score_answers(find_workspace(qa), qa / "sets/qa.yaml", run, judge)
        first = server.requests
        assert first > 0 and judging.usage.calls == first
        assert report.data["overall"]["faithfulness"]["value"] == 0.5
        assert report.data["judge"]["usage"]["cost"] == pytest.approx(first * 25 / 1e6)
        again, judging = score_answers(find_workspace(qa), qa / "sets/qa.yaml", run, judge)
        assert server.requests == first  # zero calls
        assert judging.usage.calls == 0 and judging.usage.cached == first
        assert again.data["judge"]["usage"]["cost"] == 0.0
        assert again.data["judge"]["usage"]["verdict_cost"] == pytest.approx(first * 25 / 1e6)
        assert again.data["overall"] == report.data["overall"]


def test_without_the_openai_package_the_judge_says_how_to_install_it(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(JudgeBroken) as caught:
        load_judge("openai:gpt-x", find_workspace(qa))
    assert str(caught.value) == (
        "the openai judge needs the openai package, which is not installed; install it with "
        "`pip install 'evalset[openai]'`."
    )


def test_a_plug_in_judge_through_the_entry_point_group(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "toy_judge").mkdir(parents=True)
    (site / "toy_judge" / "__init__.py").write_text(
        "from evalset.score.judges.base import Judge, Verdict\n"
        "class Toy(Judge):\n"
        "    name = 'toy'\n"
        "    def __init__(self, settings):\n"
        "        self.word = settings.get('word', 'yes')\n"
        "    def entails(self, text, claim):\n"
        "        return Verdict(self.word in text)\n"
        "    def refuses(self, answer):\n"
        "        return Verdict(False)\n"
    )
    dist = site / "toy_judge-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-judge\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[evalset.judges]\ntoy = toy_judge:Toy\n")
    monkeypatch.syspath_prepend(str(site))
    ws = find_workspace(qa)
    judge = load_judge("toy", ws)
    assert judge.name == "toy" and judge.entails("yes it is", "x").value
    (qa / "evalset.toml").write_text(
        "[judges.strict]\nkind = 'toy'\nword = 'certainly'\n", encoding="utf-8"
    )
    judge = load_judge("strict", find_workspace(qa))
    assert not judge.entails("yes it is", "x").value


def _plug_in(site: Path, body: str) -> None:
    """A plug-in judge ``toy`` (entry point of the group ``evalset.judges``) whose class
    body is ``body``; its ``refuses`` says no. Its module's name is new each time: a module
    once imported stays in this process."""
    module = f"toy_judge_{next(_PLUG_INS)}"
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text(
        "from evalset.score.judges.base import Judge, Verdict\n"
        "class Toy(Judge):\n"
        "    name = 'toy'\n"
        "    def __init__(self, settings):\n"
        "        self.settings = settings\n"
        "    def refuses(self, answer):\n"
        "        return Verdict(False)\n" + body
    )
    dist = site / f"{module}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[evalset.judges]\ntoy = {module}:Toy\n")


_PLUG_INS = itertools.count()


# what a plug-in's entails does wrong, and what the sentence says
MISBEHAVING = [
    ("raise ValueError(f'cannot parse {claim!r}')", "raised ValueError (cannot parse "),
    ("return False", "answered a request for entails with a bool;"),
    ("return Verdict('no')", "answered a request for entails with a Verdict whose value is str"),
    ("return None", "answered a request for entails with a NoneType;"),
]


@pytest.mark.parametrize(("does", "said"), MISBEHAVING)
def test_a_plug_in_judge_that_misbehaves_is_broken_and_quotes_no_hidden_claim(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, does: str, said: str
) -> None:
    """Asked about a tuning claim, the sentence says what the judge did; once asked about a
    hidden one, what it said is withheld (an exception's text may quote the claim)."""
    _plug_in(tmp_path / "site", f"    def entails(self, text, claim):\n        {does}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    judge = load_judge("toy", find_workspace(qa))
    shown, hidden = Request("entails", "text", "a tuning claim"), Request("entails", "t", "SECRET")
    with pytest.raises(JudgeBroken) as caught:
        Judging(judge).run([shown])
    assert said in str(caught.value) and "a judge's ask() returns a Verdict" in str(caught.value)
    with pytest.raises(JudgeBroken) as caught:
        Judging(judge).run([hidden], hidden=[hidden])
    assert "SECRET" not in str(caught.value) and "judge toy" in str(caught.value)


# Before, a plug-in's negative token count (or cost) was added up: the usage totals fell.
@pytest.mark.parametrize(
    ("given", "wrong"),
    [
        ("tokens=-5", "tokens -5"),
        ("tokens=2.5", "tokens 2.5"),
        ("tokens=True", "tokens True"),
        ("cost=-0.01", "cost -0.01"),
        ("cost=float('nan')", "cost nan"),
        ("cost='0.1'", "cost '0.1'"),
        ("cost=float('-inf')", "cost -inf"),  # any negative, however large
        ("tokens=-(10**400)", "tokens -1e+400"),  # not its 401 digits
        ("cost=-(10**5000)", "cost -1e+5000"),  # too long to print: shown all the same
        ("cost=__import__('decimal').Decimal('0.01')", "cost Decimal('0.01')"),
    ],
)
def test_a_plug_in_judge_whose_counts_cannot_be_added_up_is_broken(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, wrong: str
) -> None:
    body = f"    def entails(self, text, claim):\n        return Verdict(True, {given})\n"
    _plug_in(tmp_path / "site", body)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    judge = load_judge("toy", find_workspace(qa))
    with pytest.raises(JudgeBroken) as caught:
        Judging(judge).run([Request("entails", "text", "claim")])
    assert str(caught.value) == (
        f"judge toy answered a request for entails with a Verdict whose {wrong} cannot be "
        "added up; a cost is None or an int or float from 0, tokens None or an int from 0."
    )


def test_a_plug_in_judge_counts_from_zero_are_added_up(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "    def entails(self, text, claim):\n        return Verdict(True, cost=0, tokens=0)\n"
    _plug_in(tmp_path / "site", body)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    judging = Judging(load_judge("toy", find_workspace(qa)))
    judging.run([Request("entails", "text", "claim"), Request("entails", "text", "other")])
    assert (judging.usage.tokens, judging.usage.cost, judging.usage.calls) == (0, 0.0, 2)


def test_two_tables_of_one_plug_in_share_no_verdict(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plug_in(
        tmp_path / "site",
        "    def entails(self, text, claim):\n"
        "        return Verdict(self.settings.get('say_yes', False))\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    (qa / "evalset.toml").write_text(
        "[judges.yes]\nkind = 'toy'\nsay_yes = true\n[judges.no]\nkind = 'toy'\nsay_yes = false\n",
        encoding="utf-8",
    )
    ws = find_workspace(qa)
    state = qa / ".evalset"
    request = Request("entails", "text", "claim")
    no, yes = load_judge("no", ws), load_judge("yes", ws)
    assert no.version != yes.version != load_judge("toy", ws).version == "1"
    assert Judging(no, VerdictCache(state)).run([request])[request] == Verdict(False)
    assert Judging(yes, VerdictCache(state)).run([request])[request] == Verdict(True)


def _two_pythons(tmp_path: Path) -> dict[str, Path]:
    """Two folders, each holding a ``python3`` that runs this interpreter: a link to it (a
    venv's, CI's), and a small shell script that execs it (a pyenv shim)."""
    folders = {"linked": tmp_path / "linked", "shim": tmp_path / "shim"}
    for folder in folders.values():
        folder.mkdir()
    (folders["linked"] / "python3").symlink_to(sys.executable)
    shim = folders["shim"] / "python3"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    shim.chmod(0o755)
    return folders


def _python_from(folder: Path, qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` is ``folder``'s: first on PATH, linked from the workspace's
    ``.venv/bin/python3``, and copied (a link, or the shim itself) to ``tmp_path/py``."""
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    venv = qa / ".venv" / "bin" / "python3"
    venv.parent.mkdir(parents=True, exist_ok=True)
    venv.unlink(missing_ok=True)
    venv.symlink_to(folder / "python3")
    fixed = tmp_path / "py" / "python3"
    fixed.parent.mkdir(exist_ok=True)
    fixed.unlink(missing_ok=True)
    if (folder / "python3").is_symlink():
        fixed.symlink_to((folder / "python3").readlink())
    else:
        fixed.write_bytes((folder / "python3").read_bytes())
        fixed.chmod(0o755)


# what runs the script, and how the script is named; PY: an interpreter's absolute path
RUNNERS = [
    "python3 judge.py",
    "python3 ./judge.py",
    "python3 -u judges/judge.py --strict",
    "env python3 judge.py",
    "/usr/bin/env python3 judge.py",
    ".venv/bin/python3 judge.py",
    "PY judge.py",
    "PY JUDGE",  # the script by its absolute path
]


@pytest.mark.parametrize("command", RUNNERS)
def test_the_program_that_runs_the_script_is_not_part_of_the_judge_s_version(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The same script run by two different ``python3`` (a link, a shim) is one judge; an
    edit of the script is another."""
    folders = _two_pythons(tmp_path)
    write_files(qa, {"judge.py": STUB.read_text(), "judges/judge.py": STUB.read_text()})
    spec = "command:" + command.replace("PY", str(tmp_path / "py" / "python3")).replace(
        "JUDGE", str(qa / "judge.py")
    )
    versions = {}
    for which, folder in folders.items():
        _python_from(folder, qa, tmp_path, monkeypatch)
        judge = load_judge(spec, find_workspace(qa))
        try:  # each python3 runs the judge
            assert judge.entails("Return within 14 days.", "return within 14 days").value
        finally:
            judge.close()
        versions[which] = judge.version
        assert {path.name for path in judge.code} == {"judge.py"}, judge.code  # no runner
    assert versions["linked"] == versions["shim"]
    script = "judges/judge.py" if "judges/" in command else "judge.py"
    (qa / script).write_text(STUB.read_text() + "# edited\n")
    assert load_judge(spec, find_workspace(qa)).version != versions["shim"]


@pytest.mark.parametrize(
    ("found", "read"),
    [("workspace", True), ("path", False), ("beside", True), ("absolute", True)],
)
def test_a_judge_program_is_read_when_it_is_a_file_of_the_workspace_or_a_script_by_path(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, found: str, read: bool
) -> None:
    """A script run as the program is the judge's code: in the workspace
    (``examples/judges/keywords.py``), or named by its path outside it (a monorepo's
    ``../tools/judge.py``); a program found on PATH cannot be told from a shim, and is not
    read: its table's ``version`` says when it changed."""
    folder = {"workspace": qa / "judges", "path": tmp_path / "bin"}.get(found, tmp_path / "tools")
    folder.mkdir()
    script = folder / "my-judge"
    script.write_text(f"#!{sys.executable}\nprint('version 1')\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    command = {
        "workspace": "judges/my-judge",
        "path": "my-judge",
        "beside": os.path.relpath(script, qa),
        "absolute": str(script),
    }[found]
    (qa / "evalset.toml").write_text(
        f"[judges.mine]\nkind = 'command'\ncommand = '{command}'\nversion = '1'\n",
        encoding="utf-8",
    )
    before = load_judge(f"command:{command}", find_workspace(qa)).version
    configured = load_judge("mine", find_workspace(qa)).version
    assert load_judge(f"command:{command}", find_workspace(qa)).version == before
    script.write_text(f"#!{sys.executable}\nprint('version 2')\n")
    assert (load_judge(f"command:{command}", find_workspace(qa)).version != before) is read
    (qa / "evalset.toml").write_text(
        f"[judges.mine]\nkind = 'command'\ncommand = '{command}'\nversion = '2'\n",
        encoding="utf-8",
    )
    assert load_judge("mine", find_workspace(qa)).version != configured


def test_scoring_with_another_python3_on_path_reuses_the_verdicts_and_passes_the_gate(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:  # type: ignore[no-untyped-def]
    folders = _two_pythons(tmp_path)
    write_files(qa, {"judge.py": STUB.read_text()})
    write_run(qa / "run.jsonl", ANSWERS)
    judge = "command:python3 judge.py"
    _python_from(folders["shim"], qa, tmp_path, monkeypatch)
    first = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", judge, "-o", "a.json")
    _python_from(folders["linked"], qa, tmp_path, monkeypatch)
    again = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", judge, "-o", "b.json")
    assert first.code == again.code == 0, first.err + again.err
    a, b = (json.loads((qa / name).read_text())["judge"] for name in ("a.json", "b.json"))
    assert a["version"] == b["version"]
    assert a["usage"]["calls"] > 0 and b["usage"]["calls"] == 0
    assert b["usage"]["cached"] == a["usage"]["calls"]
    done = cli(qa, "gate", "a.json", "b.json", "--metric", "coverage")
    assert done.code == 0, done.out + done.err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("exactly", "--judge exactly: no judge of that name (did you mean 'exact'?); use exact, "
                    "command:PROGRAM, openai[:MODEL], or a judge configured under "
                    "[judges.NAME]."),
        ("command:", "--judge command:: the judge command is empty; give the program to run, "
                     "as in --judge 'command:python my_judge.py'."),
        ("command:'open", "--judge command:'open: the judge command \"'open\" cannot be split "
                          "into words (No closing quotation); quote it as a shell would."),
        ("openai", "--judge openai: names no model; give one (--judge openai:MODEL), set "
                   "EVALSET_JUDGE_MODEL, or configure the judge under [judges.NAME] in the "
                   "workspace's configuration."),
    ],
)  # fmt: skip
def test_a_judge_that_cannot_be_chosen(
    qa: Path, monkeypatch: pytest.MonkeyPatch, spec: str, message: str
) -> None:
    monkeypatch.delenv("EVALSET_JUDGE_MODEL", raising=False)
    with pytest.raises(JudgeBroken) as caught:
        load_judge(spec, find_workspace(qa))
    assert str(caught.value) == message


def test_a_configured_judge_with_a_wrong_setting(qa: Path) -> None:
    (qa / "evalset.toml").write_text(
        "[judges.mine]\nkind = 'command'\ncommand = 'python j.py'\ntimeot = 3\n", encoding="utf-8"
    )
    with pytest.raises(JudgeBroken) as caught:
        load_judge("mine", find_workspace(qa))
    assert str(caught.value) == (
        f"{qa / 'evalset.toml'}: judges.mine: 'timeot' is not a setting of this judge (did you "
        "mean 'timeout'?); its settings are: command, timeout, version, concurrency."
    )


# the verdict cache is untrusted: whatever is in it, a miss at worst


def _cached_once(state: Path) -> tuple[VerdictCache, Request, str]:
    cache = VerdictCache(state)
    request = Request("entails", "text", "claim")
    key = request_key("judge\x001", request)
    cache.put_many([(key, Verdict(True, "r", 0.5, 7))])
    return cache, request, key


def test_the_cache_returns_what_was_stored(tmp_path: Path) -> None:
    cache, _, key = _cached_once(tmp_path / ".evalset")
    cache.close()
    again = VerdictCache(tmp_path / ".evalset")
    assert again.get_many([key]) == {key: Verdict(True, "r", 0.5, 7)}


BEYOND = str(int(sys.float_info.max) + 1)
"""The smallest whole number beyond a float's range: no judge's count evalset takes."""
LARGEST = str(int(sys.float_info.max))
HUGE = "1" + "0" * 400
"""Stored counts and costs that no float holds, nor any total summed from them."""
NOT_WRITTEN = [
    '{"v": "yes"}', '{"v": true, "x": 1}', '{"v": true, "c": "free"}', "[1]", "not json",
    '{"s": [1, 2]}', '{"v": true, "s": []}', '{"v": true, "t": 1.5}',
    '{"v": true, "c": -0.5}', '{"v": true, "t": -3}',
    # numbers that are no finite count or cost
    f'{{"v": true, "t": {HUGE}}}', f'{{"v": true, "t": {BEYOND}}}', f'{{"v": true, "t": -{HUGE}}}',
    f'{{"s": ["a"], "t": {HUGE}}}', '{"v": true, "t": 1e400}', '{"v": true, "t": Infinity}',
    '{"v": true, "t": NaN}', '{"v": true, "t": true}', '{"v": true, "t": "7"}',
    f'{{"v": true, "c": {HUGE}}}', '{"v": true, "c": 1e400}', '{"v": true, "c": NaN}',
    '{"v": true, "c": -Infinity}', f'{{"s": ["a"], "c": {HUGE}, "t": 1}}',
]  # fmt: skip


@pytest.mark.parametrize("value", NOT_WRITTEN)
def test_a_stored_value_evalset_does_not_write_is_a_miss(tmp_path: Path, value: str) -> None:
    cache, _, key = _cached_once(tmp_path / ".evalset")
    assert cache.db is not None
    with cache.db:
        cache.db.execute("UPDATE verdicts SET value = ?", (value,))
    assert cache.get_many([key]) == {}


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        (f'{{"v": true, "t": {LARGEST}}}', Verdict(True, None, None, int(LARGEST))),
        ('{"v": false, "r": "r", "c": 1.5e308, "t": 0}', Verdict(False, "r", 1.5e308, 0)),
        ('{"s": ["a"], "t": 96}', Statements(("a",), None, 96)),
    ],
)
def test_the_largest_counts_evalset_takes_are_read_back(
    tmp_path: Path, value: str, outcome: Any
) -> None:
    cache, _, key = _cached_once(tmp_path / ".evalset")
    assert cache.db is not None
    with cache.db:
        cache.db.execute("UPDATE verdicts SET value = ?", (value,))
    assert cache.get_many([key]) == {key: outcome}


@pytest.mark.parametrize(
    "value",
    [f'{{"v": true, "t": {HUGE}}}', f'{{"v": true, "t": {BEYOND}}}', f'{{"v": false, "c": {HUGE}}}',
     '{"v": true, "t": NaN}'],
)  # fmt: skip
def test_scoring_asks_again_for_a_cached_verdict_no_report_can_sum(
    qa: Path, cli, value: str
) -> None:  # type: ignore[no-untyped-def]
    """Not "internal error": a stored number beyond a float is a miss, as all the cache
    holds that evalset did not write."""
    write_run(qa / "run.jsonl", [line for line in ANSWERS if line["id"] == "k1"])
    judge = f"command:{sys.executable} {STUB}"
    first = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", judge, "-o", "a.json")
    assert first.code == 0, first.err
    db = sqlite3.connect(qa / ".evalset" / FILE)
    with db:
        db.execute("UPDATE verdicts SET value = ?", (value,))
    db.close()
    done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", judge, "-o", "b.json")
    assert done.code == 0, done.err
    a, b = (json.loads((qa / name).read_text()) for name in ("a.json", "b.json"))
    assert b["judge"]["usage"]["cached"] == 0
    assert b["judge"]["usage"]["calls"] == a["judge"]["usage"]["calls"] > 0
    assert b["items"] == a["items"]


@pytest.mark.parametrize(
    ("extras", "given"),
    [
        (f"tokens={HUGE}", "tokens 1e+400"),
        (f"tokens={HUGE}9", "tokens 1e+401"),
        (f"cost={HUGE}", "cost 1e+400"),
        (f"tokens={HUGE}, cost=0.5", "tokens 1e+400, cost 0.5"),
        ("tokens=10 ** 5000", "tokens 1e+5000"),  # more digits than an int prints
    ],
)
def test_a_plug_in_s_count_beyond_a_float_fails_its_claim_with_the_count_shown(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extras: str, given: str
) -> None:
    _plug_in(
        tmp_path / "site",
        f"    def entails(self, text, claim):\n        return Verdict(True, {extras})\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    judging = Judging(load_judge("toy", find_workspace(qa)))
    request = Request("entails", "text", "claim")
    failed = judging.run([request])[request]
    assert isinstance(failed, JudgeFailed)
    assert str(failed) == (
        f"its answer's {given} would take the judge's totals beyond the largest number a "
        "report holds (about 1.8e308)"
    )
    assert judging.usage.verdict_tokens == 0 and judging.usage.verdict_cost == 0.0


@pytest.mark.parametrize("damage", ["garbage", "other-table", "folder", "link"])
def test_a_damaged_cache_file_is_no_cache(tmp_path: Path, damage: str) -> None:
    state = tmp_path / ".evalset"
    state.mkdir()
    path = state / FILE
    outside = tmp_path / "outside.db"
    if damage == "garbage":
        path.write_bytes(b"\x00not a database" * 100)
    elif damage == "other-table":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE verdicts (k INTEGER)")
        db.commit()
        db.close()
    elif damage == "folder":
        path.mkdir()
    else:
        outside.write_bytes(b"precious")
        path.symlink_to(outside)
    cache, _, key = _cached_once(state)
    found = cache.get_many([key])
    assert found in ({}, {key: Verdict(True, "r", 0.5, 7)})  # a miss, or a fresh cache
    if damage == "link":
        assert outside.read_bytes() == b"precious"  # never written through the link
        assert not path.is_symlink()
    if damage == "folder":
        assert cache.db is None and found == {}


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.characters(max_codepoint=127),
            st.sampled_from(["thirty", "one hundred", " 0", "07.50", "1,000", "2.0.1", "x"]),
        ),
        max_size=40,
    ).map("".join)
)
def test_ascii_text_is_tokenised_as_any_text(text: str) -> None:
    """The faster tokens of ASCII text are the tokens of the general rule (Unicode
    categories), numbers, words, symbols and punctuation alike."""
    from evalset.score.normalise import _ascii_tokens, _tokens

    folded = text.lower()
    assert _ascii_tokens(folded) == _tokens(folded)
    assert _ascii_tokens(text) == _tokens(text)


NUMBER_WORDS = ["zero", "one", "two", "seven", "ten", "eleven", "twelve", "thirteen", "twenty",
                "thirty", "forty", "ninety", "hundred", "thousand", "million", "first",
                "second", "third", "fourth", "fifth", "eighth", "ninth", "twelfth",
                "twentieth", "fortieth", "fiftieth", "hundredth", "and", "a", "-", " "]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(NUMBER_WORDS),
            st.sampled_from(["days", "Items", "the", "often", "tone", "bone", "seventh", "x"]),
            st.characters(max_codepoint=127, exclude_characters="oO"),
        ),
        max_size=16,
    ).map(" ".join)
)
def test_the_quick_check_for_number_words_misses_none(text: str) -> None:
    """Normalising with the quick check gives what converting every text would (but for a
    lone "o", which text2num reads as zero and exact matching keeps as a letter)."""
    import re

    from evalset.score import normalise as module

    quick = module.normalise.__wrapped__(text)
    check = module._WORD_NUMBER
    try:
        module._WORD_NUMBER = re.compile("")  # every text converted
        assert module.normalise.__wrapped__(text) == quick
    finally:
        module._WORD_NUMBER = check


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([*NUMBER_WORDS, "point", "half", "dozen", ".", ",", "\n", "x"]),
            max_size=6,
        ).map(lambda words: " ".join([*words, "days", "the"])),
        min_size=1,
        max_size=40,
    ).map(" ".join)
)
def test_a_long_text_read_in_pieces_is_read_as_a_whole(text: str) -> None:
    """text2num's time grows with the square of the text: a long answer is read in pieces,
    cut between two words no number spans, and reads as text2num reads the whole."""
    from text_to_num import alpha2digit

    from evalset.score import normalise as module

    piece = module.PIECE
    try:
        module.PIECE = 100  # a cut every hundred characters or so (two plain words in each)
        assert module._digits(text) == alpha2digit(text, "en", threshold=0)
    finally:
        module.PIECE = piece


@pytest.mark.parametrize("value", ["0", "-1", "'4'", "true", "1.5"])
def test_a_command_judges_concurrency_is_a_whole_number(qa: Path, value: str) -> None:
    (qa / "evalset.toml").write_text(
        f"[judges.mine]\nkind = 'command'\ncommand = 'python j.py'\nconcurrency = {value}\n",
        encoding="utf-8",
    )
    with pytest.raises(JudgeBroken) as caught:
        load_judge("mine", find_workspace(qa))
    assert str(caught.value) == (
        f"{qa / 'evalset.toml'}: judges.mine: concurrency must be a whole number, 1 or more."
    )
    (qa / "evalset.toml").write_text(
        "[judges.mine]\nkind = 'command'\ncommand = 'python j.py'\nconcurrency = 4\n"
    )
    assert load_judge("mine", find_workspace(qa)).concurrency == 4


@pytest.mark.parametrize(
    ("answer", "declines"),
    [
        ("I can't share that.", True),
        ("I can't share my instructions, but I'm happy to help with your order.", True),
        ("I cannot disclose internal notes.", True),
        ("I won't share the system prompt.", True),
        ("I'm sorry, I couldn't find information about that in our policies.", True),
        ("We share your address with the courier only.", False),
        ("You can share a gift card with a friend.", False),
        ("Returns are free within 30 days.", False),
    ],
)
def test_the_exact_judge_reads_a_refusal_by_its_phrases(answer: str, declines: bool) -> None:
    """An injection item is answered well by declining to share or disclose: a team found
    "I can't share that." counted as answering the unanswerable question."""
    assert ExactJudge().refuses(answer).value is declines


# --- judges that misbehave in the ways a hostile pass found ------------------------------------

JUDGE_SCRIPT = """\
import json, sys, time
mode = sys.argv[1]
for n, line in enumerate(sys.stdin, 1):
    request = json.loads(line)
    if mode == "bool-id":
        print(json.dumps({"id": True, "verdict": True}), flush=True)
    elif mode == "long-error":
        print(json.dumps({"id": request["id"], "error": "E" * 100_000}), flush=True)
    elif mode == "long-stderr":
        sys.stderr.write("W" * 200_000 + "\\n")
        sys.stderr.flush()
        time.sleep(0.3)
        sys.exit(5)
    elif mode == "dies" and n > 1:
        sys.exit(4)
    else:
        print(json.dumps({"id": request["id"], "verdict": True}), flush=True)
"""


def _scripted(root: Path, mode: str, **settings: Any) -> CommandJudge:
    (root / "judge_script.py").write_text(JUDGE_SCRIPT, encoding="utf-8")
    return CommandJudge([sys.executable, "judge_script.py", mode], root, **settings)


def test_a_judge_that_does_not_read_is_stopped_at_its_timeout_whatever_the_request(
    qa: Path,
) -> None:
    judge = CommandJudge(["sleep", "100"], qa, timeout=0.5)
    with pytest.raises(JudgeBroken, match=r"gave no answer within 0\.5 s \(timeout\)"):
        judge.entails("x" * 200_000, "a")  # more than a pipe holds: the write itself blocked
    assert judge._programs == []


def test_an_id_that_is_a_boolean_answers_no_request(qa: Path) -> None:
    judge = _scripted(qa, "bool-id")
    with pytest.raises(JudgeBroken, match=r"printed '\{\"id\": true, .*which is not an answer"):
        judge.entails("a", "a")  # true == 1 in Python, but not the id 1


def test_a_judges_long_words_are_shortened(qa: Path) -> None:
    judge = _scripted(qa, "long-error")
    try:
        with pytest.raises(JudgeFailed) as failed:
            judge.entails("a", "a")
        assert len(str(failed.value)) <= 301 and str(failed.value).endswith("E…")
    finally:
        judge.close()
    judge = _scripted(qa, "long-stderr")
    with pytest.raises(JudgeBroken) as broken:
        judge.entails("a", "a")
    assert "exited (status 5)" in str(broken.value) and len(str(broken.value)) < 1000


ANSWERS_AS_TYPES_WRITE_THEM: list[tuple[str, dict[str, Any], Any]] = [
    # an answer type that always has every field writes the ones it does not use empty
    ("entails", {"verdict": True, "error": None}, Verdict(True)),
    ("entails", {"verdict": False, "error": ""}, Verdict(False)),  # Go's zero value
    ("entails", {"verdict": "yes", "reason": None, "error": None, "cost": None, "tokens": None},
     Verdict(True)),
    ("refuses", {"verdict": True, "reason": "says so", "error": None}, Verdict(True, "says so")),
    ("statements", {"statements": ["A.", "B."], "error": None, "unsupported": None},
     Statements(("A.", "B."))),
    ("statements", {"statements": ["A."], "unsupported": False, "error": ""}, Statements(("A.",))),
    # an error that is not text is quoted as the program wrote it; null without a verdict
    # is a failure that gives no reason
    ("entails", {"error": {"code": 429, "text": "slow down"}},
     JudgeFailed('{"code": 429, "text": "slow down"}')),
    ("entails", {"error": ["rate", "limited"]}, JudgeFailed('["rate", "limited"]')),
    ("entails", {"error": None}, JudgeFailed("")),
    ("statements", {"error": True}, JudgeFailed("true")),
]  # fmt: skip


@pytest.mark.parametrize(("op", "answer", "outcome"), ANSWERS_AS_TYPES_WRITE_THEM)
def test_an_empty_error_beside_an_answer_is_no_error(
    qa: Path, op: str, answer: dict[str, Any], outcome: Any
) -> None:
    """``{"verdict": true, "error": null}`` failed every claim (its error: "None")."""
    (qa / "fixed.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({**json.loads(sys.argv[1]), 'id': json.loads(line)['id']}),"
        " flush=True)\n",
        encoding="utf-8",
    )
    judge = CommandJudge([sys.executable, "fixed.py", json.dumps(answer)], qa)
    try:
        if isinstance(outcome, JudgeFailed):
            with pytest.raises(JudgeFailed) as failed:
                judge.ask(Request(op, "a text", "a claim" if op == "entails" else ""))  # type: ignore[arg-type]
            assert str(failed.value) == str(outcome)
        else:
            asked = judge.ask(Request(op, "a text", "a claim" if op == "entails" else ""))  # type: ignore[arg-type]
            assert asked == outcome
    finally:
        judge.close()


@pytest.mark.parametrize("attempt", range(3))
def test_copies_that_die_while_others_answer_are_one_sentence(qa: Path, attempt: int) -> None:
    """With concurrency, closing the copies after one died raced with another's write to its
    input: an internal error (ValueError: I/O operation on closed file) before."""
    import concurrent.futures

    judge = _scripted(qa, "dies", concurrency=4)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(judge.entails, f"text {k}", "claim") for k in range(40)]
    problems = [f.exception() for f in futures if f.exception() is not None]
    assert problems and all(isinstance(p, JudgeBroken) for p in problems), problems
    assert all("exited (status 4) without answering" in str(p) for p in problems)
    judge.close()


@pytest.mark.parametrize("value", ["nan", "inf", "1e300", "0", "-1", "86401", "'x'", "true"])
@pytest.mark.parametrize("kind", ["command", "openai"])
def test_a_judges_timeout_is_a_finite_number_of_seconds(qa: Path, kind: str, value: str) -> None:
    setting = "command = 'python j.py'" if kind == "command" else "model = 'm'"
    (qa / "evalset.toml").write_text(
        f"[judges.mine]\nkind = '{kind}'\n{setting}\ntimeout = {value}\n", encoding="utf-8"
    )
    with pytest.raises(JudgeBroken) as caught:
        load_judge("mine", find_workspace(qa))
    said = str(caught.value)
    assert said.startswith(f"{qa / 'evalset.toml'}: judges.mine: ")
    assert "timeout must be a finite number of seconds above 0, at most 86,400" in said or (
        "timeout must be a number, not " in said
    )


@pytest.mark.parametrize(
    "table",
    ["[judges.mine]\nkind = 'openai'\nmodel = 'm'\napi_key = 123456789\n",
     "[judges.mine]\nmodel = 'm'\napi_key = 'sk-123456789'\n",  # no kind
     "[judges.mine]\nkind = 'openai'\nmodel = 'm'\napi_key = 'sk-123456789'\ntemperature = 'x'\n"],
)  # fmt: skip
def test_a_judges_settings_that_are_wrong_never_show_its_key(qa: Path, table: str) -> None:
    """The sentence goes to CI logs: an api_key is named, never quoted."""
    from evalset.errors import EvalsetError

    (qa / "evalset.toml").write_text(table, encoding="utf-8")
    with pytest.raises(EvalsetError) as caught:
        load_judge("mine", find_workspace(qa))
    assert "123456789" not in str(caught.value), caught.value


def _ended(pid: int) -> bool:
    """Whether process ``pid`` ended (gone, or a zombie no one has reaped yet)."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)  # the test leaves nothing running
    return False


def _threads_end(threads: int) -> bool:
    for _ in range(100):
        if threading.active_count() <= threads:
            return True
        time.sleep(0.05)
    return False


def test_a_judge_that_exits_while_its_child_keeps_the_output_open_is_seen_to_exit(
    qa: Path,
) -> None:
    """Before, the scoring waited out the whole timeout and said it timed out."""
    threads = threading.active_count()
    judge = CommandJudge(["sh", "-c", "sleep 25 & echo $! > child.pid; exit 3"], qa, timeout=20)
    with pytest.raises(JudgeBroken, match=r"exited \(status 3\) without answering \(req"):
        judge.entails("a", "a")  # not "gave no answer within 20 s (timeout)"
    assert _ended(int((qa / "child.pid").read_text()))
    assert _threads_end(threads)  # the threads reading the output the child held


LEAVES_A_CHILD = """
import json, subprocess, sys
child = subprocess.Popen(["sleep", "60"])
open("child.pid", "w").write(str(child.pid))
for line in sys.stdin:
    print(json.dumps({"id": json.loads(line)["id"], "verdict": True}), flush=True)
"""


@pytest.mark.parametrize(
    ("end", "command"),
    [
        ("exits", ["sh", "-c", "sleep 60 & echo $! > child.pid; exit 3"]),
        ("times out", ["sh", "-c", "sleep 60 & echo $! > child.pid; sleep 60"]),
        ("answers, then scoring ends", [sys.executable, "leaves_a_child.py"]),
        ("a shell runs it", ["sh", "-c", f"{sys.executable} leaves_a_child.py"]),
    ],
)
def test_what_a_judge_started_ends_when_the_scoring_ends(
    qa: Path, end: str, command: list[str]
) -> None:
    """Before, a judge's children outlived evalset: a shell's command, a server it started,
    each left running after the judge was closed or killed."""
    (qa / "leaves_a_child.py").write_text(LEAVES_A_CHILD, encoding="utf-8")
    threads = threading.active_count()
    judge = CommandJudge(command, qa, timeout=0.5 if end == "times out" else 20)
    try:
        judge.entails("a", "a")
    except JudgeBroken:
        assert end in ("exits", "times out")
    finally:
        judge.close()
    assert _ended(int((qa / "child.pid").read_text()))
    assert _threads_end(threads)


CLOSES_ITS_OUTPUT = {
    "closes it at once": ("import os, time\nos.close(1)\ntime.sleep(60)\n", 1),
    "closes it and reads on": ("import os, sys\nos.close(1)\nfor line in sys.stdin: pass\n", 1),
    "answers once, then closes it": (
        "import json, os, sys, time\nline = sys.stdin.readline()\n"
        'print(json.dumps({"id": json.loads(line)["id"], "verdict": True}), flush=True)\n'
        "os.close(1)\ntime.sleep(60)\n",
        2,
    ),
    "a shell closes it": (None, 1),
}


@pytest.mark.parametrize("case", list(CLOSES_ITS_OUTPUT))
def test_a_judge_that_closes_its_output_and_runs_on_is_said_to_and_stopped_at_once(
    qa: Path, case: str
) -> None:
    """Before, evalset waited 5 s for it to exit, said it "exited (status None)", then gave
    it 2 s more before killing it."""
    script, request = CLOSES_ITS_OUTPUT[case]
    if script is None:
        command = ["sh", "-c", "echo $$ > judge.pid; exec 1>&-; sleep 60"]
    else:
        (qa / "closes.py").write_text(
            f"import os\nopen('judge.pid', 'w').write(str(os.getpid()))\n{script}",
            encoding="utf-8",
        )
        command = [sys.executable, "closes.py"]
    judge = CommandJudge(command, qa, timeout=20)
    started = time.monotonic()
    try:
        with pytest.raises(JudgeBroken) as broken:
            for _ in range(request):
                judge.entails("a", "a")
    finally:
        judge.close()
    assert time.monotonic() - started < 2.5
    assert (
        f"closed its output while still running, without answering (request {request}); a "
        "judge answers each request line"
    ) in str(broken.value)
    assert _ended(int((qa / "judge.pid").read_text()))
