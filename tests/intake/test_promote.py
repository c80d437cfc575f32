"""`evalset promote` on the example workspace: redaction, dedupe, presets, safety."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, GIT_ENV, ROOT, write_files
from evalset.sets.model import Item
from evalset.sets.setfile import load_set

PROMOTE = FIXTURES / "promote"
EXPORT = PROMOTE / "production-failures.jsonl"
SET = Path("sets/acme-support.yaml")
PII = [
    "anna.schmidt@example.com",
    "4111 1111 1111 1111",
    "+44 7400 123456",
    "DE89 3704 0044 0532 0130 00",
    "203.0.113.42",
    "kofi.mensah7@acme.co.uk",
    "kofi@example.com",
    "5555 5555 5555 4444",
    "(201) 555-0123",
    "GB82 WEST 1234 5698 7654 32",
    "olga.petrova@example.fr",
    "+44 121 234 5678",
    "198.51.100.7",
]
"""Every personal value in the 50-record export."""


def promote_cmd(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalset", "promote", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
    )


def test_the_50_record_export_gives_exactly_the_expected_file(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(example, "promote", str(EXPORT), "--set", "acme-support", "--skip-invalid")
    assert result.code == 0, result.err
    text = (example / SET).read_text(encoding="utf-8")
    assert text == (PROMOTE / "expected-acme-support.yaml").read_text(encoding="utf-8")
    assert not [value for value in PII if value in text]
    assert not [value for value in PII if value in result.out + result.err]
    assert "added 45 draft item(s)" in result.out
    assert "line 6 (trace tr-9006): near duplicate of q-001's question" in result.out
    assert "line 19 (trace tr-9010): trace already promoted earlier in this file" in result.out
    assert "line 41 (trace tr-8812): trace already promoted as q-3f2a9c41" in result.out
    assert "line 46 (trace tr-9046): near duplicate of q-fc6fd66e's question" in result.out
    assert f"{EXPORT}:29: the record is not valid JSON" in result.out
    assert "redacted 15 value(s): CARD 2, EMAIL 6, IBAN 2, IP 2, PHONE 3" in result.out


def test_the_readme_example_prints_what_the_readme_shows(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The README's promote command, on a fresh copy of the example with its
    examples/failures.jsonl, prints every line the README shows, and its hint names the set
    as the other commands' hints do (not the set file's path)."""
    shutil.copytree(ROOT / "examples", example / "examples")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### `evalset promote`.*?```console\n(.*?)```", readme, re.S)
    assert block
    command, *shown = block[1].split("\n$ ")[0].splitlines()
    assert command == "$ evalset promote examples/failures.jsonl --set acme-support"
    result = cli(example, *command.split()[2:])
    assert result.code == 0, result.err
    printed = result.out.splitlines()
    assert [line for line in shown if line not in printed] == []
    assert printed[-1].endswith("then `evalset verify acme-support ID…`")
    assert "anna.schmidt@example.com" not in (example / SET).read_text(encoding="utf-8")


def test_one_invalid_record_and_nothing_is_written(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = (example / SET).read_bytes()
    result = cli(example, "promote", str(EXPORT), "--set", "acme-support")
    assert result.code == 2
    assert result.err == (
        f"evalset: {EXPORT}:29:99: the record is not valid JSON (Expecting property name "
        "enclosed in double quotes). Nothing was promoted: fix the records, or pass "
        "--skip-invalid to promote the valid ones.\n"
    )
    assert (example / SET).read_bytes() == before
    assert not list((example / "sets").glob(".*.tmp"))


def test_promoting_the_same_file_again_adds_nothing(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    args = ("promote", str(EXPORT), "--set", "acme-support", "--skip-invalid")
    assert cli(example, *args).code == 0
    once = (example / SET).read_bytes()
    again = cli(example, *args, "--json")
    assert again.code == 0
    report = json.loads(again.out)
    assert report["added"] == []
    assert len(report["skipped"]) == 49
    assert {s["reason"].split(" as ")[0] for s in report["skipped"]} == {"trace already promoted"}
    assert (example / SET).read_bytes() == once


def test_json_report_and_dry_run(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    before = (example / SET).read_bytes()
    result = cli(example, "promote", str(EXPORT), "--set", "acme-support", "--skip-invalid",
                 "--dry-run", "--json")  # fmt: skip
    assert result.code == 0
    report = json.loads(result.out)
    assert report["written"] is False
    assert len(report["added"]) == 45
    assert report["added"][0] == {
        "line": 1, "id": "q-80989283", "holdout": True, "redactions": {"EMAIL": 1}
    }  # fmt: skip
    assert report["invalid"] == [
        {"line": 29, "problem": "is not valid JSON (Expecting property name enclosed in double "
                                "quotes)"}
    ]  # fmt: skip
    assert report["traces_appended"] == {"q-001": ["tr-9006"]}
    assert report["redactions"] == {"CARD": 2, "EMAIL": 6, "IBAN": 2, "IP": 2, "PHONE": 3}
    assert (example / SET).read_bytes() == before
    # a dry run says what would be done, not what was
    text = cli(example, "promote", str(EXPORT), "--set", "acme-support", "--skip-invalid",
               "--dry-run").out  # fmt: skip
    assert "near duplicate of q-001's question; trace would be added to its origin.traces" in text
    assert (example / SET).read_bytes() == before


def promote_preset(example: Path, cli, fixture: str, preset: str) -> tuple[Any, dict[str, Item]]:  # type: ignore[no-untyped-def]
    """Promote a fixture export with a preset; the result and the set's items by trace."""
    source = PROMOTE / fixture
    result = cli(example, "promote", str(source), "--set", "acme-support", "--preset", preset)
    assert result.code == 0, result.err
    items = {
        i.origin.trace: i for i in load_set(example / SET).items if i.origin and i.origin.trace
    }
    return result, items


def test_langfuse_trace_export(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _, items = promote_preset(example, cli, "langfuse-traces.jsonl", "langfuse")
    first = items["7f3c2a10-5b1e-4c55-9f8e-1a2b3c4d5e60"]
    assert first.question == "Hi, I'm <EMAIL_1>, can I return opened headphones?"
    assert first.category == "direct-lookup" and first.status == "draft"
    assert first.origin is not None
    assert first.origin.date == dt.date(2026, 11, 29)
    assert first.origin.observed_answer == "Opened headphones can never be returned."
    assert first.origin.retrieved == ["policies/returns.md#items-that-cannot-be-returned"]
    assert first.origin.redactions == {"EMAIL": 1}
    plain = items["8a4d3b21-6c2f-4d66-8a9f-2b3c4d5e6f71"]  # input and output as bare strings
    assert plain.question == "Does Acme deliver to the Canary Islands?"
    assert plain.origin is not None and plain.origin.observed_answer == "Yes, in two days."
    chat = items["9b5e4c32-7d3a-4e77-9b0a-3c4d5e6f7a82"]  # input as chat messages
    assert chat.question == ("My card <CARD_1> was refused, which other payment methods can I use?")
    assert chat.origin is not None and chat.origin.note == "Missed PayPal and pay later."


def test_langsmith_run_export(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result, items = promote_preset(example, cli, "langsmith-runs.json", "langsmith")
    run = items["1c9e7f52-2a4b-4d8e-9f01-6a7b8c9d0e11"]
    assert run.question == "Can I get a price match after I already bought the item? Call <PHONE_1>"
    assert run.origin is not None
    assert run.origin.retrieved == ["policies/price-match.md#time-limit"]
    assert run.origin.date == dt.date(2026, 11, 29)
    assert run.category == "direct-lookup"
    chat = items["3e1a9b74-4c6d-4fa0-b123-8c9d0e1f2a33"]
    assert chat.question == "what's the fee for paying in instalments"
    assert chat.origin is not None and chat.origin.observed_answer == "There are no instalments."
    assert "line 48" in result.out  # JSON arrays are numbered by the line a record starts on


def test_map_reads_any_shape_by_dotted_paths(example: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    records = [
        {"req": {"q": "Where do I find the Acme Care terms for my kettle?"},
         "resp": ["x", "Nowhere."], "meta": {"run": 991, "at": 1764460800000}},
        {"req": {"query": "Can I return a cake stand that was a wedding gift?"}, "resp": [],
         "meta": {"run": 992, "at": "2026-12-01"}},
    ]  # fmt: skip
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(r) + "\n" for r in records)))
    mapping = "question=req.q|req.query,answer=resp.-1,trace=meta.run,date=meta.at"
    result = cli(example, "promote", "-", "--set", "acme-support", "--map", mapping,
                 "--id-from", "trace", "--json")  # fmt: skip
    assert result.code == 0, result.err
    assert [a["id"] for a in json.loads(result.out)["added"]] == ["991", "992"]
    items = {i.id: i for i in load_set(example / SET).items}
    assert items["991"].origin is not None
    assert items["991"].origin.observed_answer == "Nowhere."
    assert items["991"].origin.date == dt.date(2025, 11, 30)  # milliseconds since the epoch
    assert items["992"].question == "Can I return a cake stand that was a wedding gift?"
    assert items["992"].origin is not None and items["992"].origin.observed_answer is None


# a record's date as a trace export may write it, and the date kept (None: refused)
DATES: dict[str, dt.date | None] = {
    "1764460800": dt.date(2025, 11, 30),  # seconds since 1970
    "1764460800000": dt.date(2025, 11, 30),  # milliseconds
    '"1764460800"': dt.date(2025, 11, 30),  # digits in quotes, as pydantic reads them
    "1764460800.5": dt.date(2025, 11, 30), '"1764460800.5"': dt.date(2025, 11, 30),
    "1000000000": dt.date(2001, 9, 9),  # the first ten-digit timestamp
    "20261128": None, '"20261128"': None, "5": None, "-5": None, "999999999.5": None,
    "500000000000": None,  # milliseconds of 1985
    '"2025-11-30T23:59:59.5+02:00"': dt.date(2025, 11, 30),
    "1e20": None, "-1e20": None, "1e300": None, "99999999999999999999999": None,
    "Infinity": None, "NaN": None, '"2025-02-30"': None, "true": None,
}  # fmt: skip


@pytest.mark.parametrize("written", list(DATES))
def test_a_date_beyond_any_calendar_is_one_sentence(example: Path, cli, written: str) -> None:  # type: ignore[no-untyped-def]
    record = '{"question": "Can I return a kettle I used once?", "trace": "t-9", "date": %s}\n'
    (example / "dated.jsonl").write_text(record % written)
    done = cli(example, "promote", "dated.jsonl", "--set", "acme-support", "--id-from", "trace")
    kept = DATES[written]
    if kept is None:
        assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
        assert done.err.startswith("evalset: dated.jsonl:1: the record date: "), done.err
        assert "Value error" not in done.err and "Traceback" not in done.err
    else:
        assert done.code == 0, done.err
        items = {i.id: i for i in load_set(example / SET).items}
        assert items["t-9"].origin is not None and items["t-9"].origin.date == kept


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--map", "questoin=q"), "--map names the field 'questoin', which failure records do "
         "not have; did you mean question? the fields are question, trace, date, answer, "
         "retrieved, category, note."),
        (("--map", "answer=out"), "--map must say where the question is, for example "
         "--map question=inputs.query."),
        (("--map", "question"), "--map 'question' is not FIELD=PATH; write it like "
         "question=inputs.query,answer=outputs.output."),
        (("--preset", "langfuse2"), "'langfuse2' is not a preset; use one of langfuse, "
         "langsmith."),
        (("--id-from", "hash"), "--id-from 'hash': use question or trace."),
        (("--map", "question=a,question=b"), "--map names question twice ('question=a' and "
         "'question=b'); give each field once, with its paths as alternatives: "
         "question=a|b."),
        (("--map", "question=q,date=ts|at, date = t2"), "--map names date twice ('date=ts|at' "
         "and 'date=t2'); give each field once, with its paths as alternatives: date=ts|at|t2."),
        (("--preset", "langfuse", "--map", "answer=a,answer=b"), "--map names answer twice "
         "('answer=a' and 'answer=b'); give each field once, with its paths as alternatives: "
         "answer=a|b."),
    ],
)  # fmt: skip
def test_bad_options_are_one_sentence(example: Path, cli, args, message) -> None:  # type: ignore[no-untyped-def]
    result = cli(example, "promote", str(EXPORT), "--set", "acme-support", *args)
    assert (result.code, result.err) == (2, f"evalset: {message}\n")


# a number too small for a trace's time, written where a date belongs -> the refusal
FLOOR = "the earliest taken is 1000000000 seconds, or that in milliseconds"
ANY_DATE = (
    "write the date as YYYY-MM-DD, or the time in seconds (10 digits) or milliseconds "
    "(13) since 1970"
)
EARLY = {
    "20261128": "20261128 is too small for a trace's timestamp (as seconds since 1970 it is "
                f'1970-08-23; {FLOOR}); write the date as "2026-11-28"',
    '"20261128"': "20261128 is too small for a trace's timestamp (as seconds since 1970 it is "
                  f'1970-08-23; {FLOOR}); write the date as "2026-11-28"',
    "5": "5 is too small for a trace's timestamp (as seconds since 1970 it is 1970-01-01; "
         f"{FLOOR}); {ANY_DATE}",
    "500000000000": "500000000000 is too small for a trace's timestamp (as milliseconds since "
                    f"1970 it is 1985-11-05; {FLOOR}); {ANY_DATE}",
    "999999999": "999999999 is too small for a trace's timestamp (as seconds since 1970 it is "
                 f"2001-09-09; {FLOOR}); {ANY_DATE}",
    "true": "true is not a date; write YYYY-MM-DD, or the time in seconds or milliseconds "
            "since 1970",
    "[2026, 11, 28]": "[2026, 11, 28] is not a date; write YYYY-MM-DD, or the time in seconds or "
                      "milliseconds since 1970",
}  # fmt: skip


@pytest.mark.parametrize("mapped", [False, True], ids=["record", "mapped"])
@pytest.mark.parametrize("written", list(EARLY))
def test_a_date_written_as_a_small_number_is_refused_with_the_date_it_would_be(  # type: ignore[no-untyped-def]
    example: Path, cli, written: str, mapped: bool
) -> None:
    field = "ts" if mapped else "date"
    record = '{"question": "Can I return a kettle I used once?", "trace": "t-9", "%s": %s}\n'
    (example / "dated.jsonl").write_text(record % (field, written))
    args = ("--map", "question=question,trace=trace,date=ts") if mapped else ()
    before = (example / SET).read_bytes()
    done = cli(example, "promote", "dated.jsonl", "--set", "acme-support", *args)
    assert (done.code, done.err) == (2, (
        f"evalset: dated.jsonl:1: the record date: {EARLY[written]}. Nothing was promoted: fix "
        "the records: none is valid, so leaving them out (--skip-invalid) would leave nothing.\n"
    ))  # fmt: skip
    assert (example / SET).read_bytes() == before


# where --map points a text field, and what it finds there -> the refusal
NOT_TEXT = [
    ("answer=resp", {"resp": {"text": "No."}}, "answer at resp is a JSON object"),
    ("answer=resp", {"resp": ["No."]}, "answer at resp is a list"),
    ("answer=resp", {"resp": 0}, "answer at resp is a number"),
    ("note=meta.ok", {"meta": {"ok": False}}, "note at meta.ok is true or false"),
    ("answer=resp|out", {"resp": {"text": "No."}}, "answer at resp is a JSON object"),
    ("answer=out|resp", {"resp": [], "out": 7}, "answer at out is a number"),
]


@pytest.mark.parametrize(("spec", "found", "problem"), NOT_TEXT)
def test_a_mapped_text_that_is_not_text_is_refused_not_dropped(  # type: ignore[no-untyped-def]
    example: Path, cli, spec: str, found: dict[str, Any], problem: str
) -> None:
    record = {"q": "Can I return a kettle I used once?", **found}
    write_files(example, {"f.jsonl": json.dumps(record) + "\n"})
    before = (example / SET).read_bytes()
    done = cli(
        example, "promote", "f.jsonl", "--set", "acme-support", "--map", f"question=q,{spec}"
    )
    field = spec.split("=")[0]
    assert (done.code, done.err) == (2, (
        f"evalset: f.jsonl:1: the record {problem}, not text; point --map {field}=PATH at the "
        "text it holds. Nothing was promoted: fix the records: none is valid, so leaving them "
        "out (--skip-invalid) would leave nothing.\n"
    ))  # fmt: skip
    assert (example / SET).read_bytes() == before
    # text at a later alternative is read, as a preset reads output.answer before output
    fallback = {**record, "text": "No."}
    write_files(example, {"f.jsonl": json.dumps(fallback) + "\n"})
    done = cli(example, "promote", "f.jsonl", "--set", "acme-support", "--map",
               f"question=q,{spec}|text")  # fmt: skip
    assert done.code == 0, done.err
    origin = load_set(example / SET).items[-1].origin
    assert origin is not None and "No." in (origin.observed_answer, origin.note)


def test_invalid_records_are_named_without_their_values(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(example, {"bad.jsonl": "\n".join([
        json.dumps({"question": "Is my address 12 Elm St on file? mail me at ed@example.com"}),
        json.dumps({"question": "Refund to ed@example.com please", "category": "ed@example.com"}),
        json.dumps({"question": "What about returns?", "category": "direct-lokup"}),
        json.dumps({"question": "", "trace": "tr-1"}),
        json.dumps(["not", "an", "object"]),
    ]) + "\n"})  # fmt: skip
    result = cli(example, "promote", "bad.jsonl", "--set", "acme-support", "--skip-invalid",
                 "--json")  # fmt: skip
    assert result.code == 0
    report = json.loads(result.out)
    assert len(report["added"]) == 1
    assert report["invalid"] == [
        {"line": 2, "problem": "category: text ('<EMAIL_1>') does not have the required form "
                               "^[A-Za-z0-9._-]+$; use ASCII letters, digits, '.', '_' and '-' "
                               "only"},
        {"line": 3, "problem": "category: 'direct-lokup' is not declared in the set; did you mean "
                               "direct-lookup? declare it in the set's categories or correct "
                               "the record"},
        {"line": 4, "problem": "question: must not be empty; write the question"},
        {"line": 5, "problem": "is not a JSON object"},
    ]  # fmt: skip
    assert "ed@example.com" not in result.out + result.err
    assert "ed@example.com" not in (example / SET).read_text(encoding="utf-8")


def test_configured_patterns_and_regions(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    config = (example / "evalset.toml").read_text(encoding="utf-8")
    config += '[promote]\nregions = ["GB"]\n[promote.patterns]\nCUSTOMER = "CUST-[0-9]{6}"\n'
    write_files(example, {
        "evalset.toml": config,
        "f.jsonl": json.dumps({"question": "I am CUST-123456, call 020 7946 0018 or "
                               "(201) 555-0123; CUST-123456 again"}) + "\n",
    })  # fmt: skip
    assert cli(example, "promote", "f.jsonl", "--set", "acme-support").code == 0
    draft = load_set(example / SET).items[-1]
    # GB national form is recognised; the US national form is not, with only GB configured.
    assert (
        draft.question == "I am <CUSTOMER_1>, call <PHONE_1> or (201) 555-0123; <CUSTOMER_1> again"
    )
    assert draft.origin is not None and draft.origin.redactions == {"CUSTOMER": 2, "PHONE": 1}


# Patterns that backtrack without end on some text, and a record of that text in each field
# promote searches: (pattern, text that makes it backtrack).
BACKTRACKING = {
    "alternation": ("(a|aa)+$", "a" * 60 + "b"),
    "same-twice": ("(x|x)+y", "x" * 60),
    "optional-tail": ("(aa|aab?)+c", "aa" * 30),
}
SEARCHED = ["question", "answer", "note", "retrieved"]


@pytest.mark.parametrize("field", SEARCHED)
@pytest.mark.parametrize(("pattern", "text"), BACKTRACKING.values(), ids=BACKTRACKING.keys())
def test_a_configured_pattern_that_backtracks_is_named_not_waited_for(  # type: ignore[no-untyped-def]
    example: Path, cli, pattern: str, text: str, field: str
) -> None:
    config = (example / "evalset.toml").read_text(encoding="utf-8")
    config += f"[promote.patterns]\nSLOW = {json.dumps(pattern)}\n"
    hostile = {"question": "Is this redacted?", field: [text] if field == "retrieved" else text}
    if field == "question":
        hostile["question"] = f"Is {text} redacted?"
    good = {"question": "Can I pay for a gift card with a voucher?", "trace": "t-2"}
    records = json.dumps(hostile) + "\n" + json.dumps(good) + "\n"
    write_files(example, {"evalset.toml": config, "f.jsonl": records})
    before = (example / SET).read_bytes()
    problem = (
        "took the [promote.patterns] pattern SLOW over 1 s to search, as a pattern "
        "that backtracks can (`(a|aa)+$`: a repetition whose parts match the same text in "
        "many ways); rewrite the pattern so that a text matches it one way only"
    )
    refused = cli(example, "promote", "f.jsonl", "--set", "acme-support")
    assert refused.code == 2
    assert refused.err.startswith(f"evalset: f.jsonl:1: the record {problem}. Nothing was promoted")
    assert text not in refused.out + refused.err
    assert (example / SET).read_bytes() == before
    skipped = cli(example, "promote", "f.jsonl", "--set", "acme-support", "--skip-invalid",
                  "--json")  # fmt: skip
    assert skipped.code == 0, skipped.err
    report = json.loads(skipped.out)
    assert report["invalid"] == [{"line": 1, "problem": problem}]
    assert len(report["added"]) == 1


def test_drafts_are_listed_by_status_with_age_and_by_validate_with_what_they_lack(
    example: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    write_files(example, {"f.jsonl": json.dumps(
        {"question": "Do you gift-wrap orders sent to a hospital?", "trace": "tr-77",
         "date": "2026-11-20", "category": "direct-lookup"}) + "\n"})  # fmt: skip
    assert cli(example, "promote", "f.jsonl", "--set", "acme-support").code == 0
    status = cli(example, "status", "--json")
    drafts = {d["id"]: d for d in json.loads(status.out)["sets"][0]["drafts"]}
    age = (dt.date.today() - dt.date(2026, 11, 20)).days
    promoted = next(
        i for i in load_set(example / SET).items if i.origin and i.origin.trace == "tr-77"
    )
    assert drafts[promoted.id] == {
        "id": promoted.id, "age_days": age, "lacks": ["key points", "expected sources"],
        "errors": 0,
    }  # fmt: skip
    text = cli(example, "status").out
    assert f"    {promoted.id}  {age} day(s) old; lacks key points, expected sources" in text
    validate = cli(example, "validate", "acme-support")
    assert (
        f"item {promoted.id}: warning: draft still lacks key points and expected sources before "
        "it can be made active (add them, set `status: active`, and record the check with "
        "`evalset verify`)"
    ) in validate.out


def _records(worker: int, count: int) -> str:
    """``count`` records whose questions share no word with any other record's."""
    lines = []
    for n in range(count):
        words = " ".join(f"w{worker}x{n}y{k}" for k in range(6))
        lines.append(json.dumps({"question": f"what about {words}?", "trace": f"t{worker}-{n}"}))
    return "\n".join(lines) + "\n"


def test_concurrent_promotes_never_lose_a_row(example: Path) -> None:
    for worker in range(4):
        write_files(example, {f"w{worker}.jsonl": _records(worker, 50)})
    before = len(load_set(example / SET).entries)
    env = {**os.environ, **GIT_ENV}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "evalset", "promote", f"w{w}.jsonl", "--set", "acme-support"],
            cwd=example, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for w in range(4)
    ]  # fmt: skip
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "added 50 draft item(s)" in out
    entries = load_set(example / SET).entries
    ids = [e.id for e in entries]
    assert len(entries) == before + 200
    assert len(set(ids)) == len(ids)


def test_a_kill_at_any_moment_leaves_the_old_file_or_the_new(example: Path) -> None:
    write_files(example, {"many.jsonl": _records(9, 400)})
    target = example / SET
    old = target.read_bytes()
    durations = []
    for _ in range(2):  # the slower of two runs, so a busy machine does not shrink the sweep
        target.write_bytes(old)
        start = time.monotonic()
        done = promote_cmd(example, "many.jsonl", "--set", "acme-support")
        durations.append(time.monotonic() - start)
        assert done.returncode == 0, done.stderr
    duration = max(durations)
    new = target.read_bytes()
    outcomes = []
    kills = 20
    for k in range(kills):
        target.write_bytes(old)
        proc = subprocess.Popen(
            [sys.executable, "-m", "evalset", "promote", "many.jsonl", "--set", "acme-support"],
            cwd=example, env={**os.environ, **GIT_ENV},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        # From early start-up to well past a normal run's end, so the sweep brackets the write
        # even when this run is slower than the measured ones.
        time.sleep(duration * (0.3 + 1.7 * k / (kills - 1)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = target.read_bytes()
        assert now in (old, new), f"kill {k}: the set file is neither the old nor the new one"
        outcomes.append(now == new)
    assert load_set(target).schema_findings == []
    assert promote_cmd(example, "many.jsonl", "--set", "acme-support").returncode == 0
    assert not list((example / "sets").glob(".*.tmp"))  # a killed writer's temporary is gone
    assert False in outcomes  # some kills landed before the write
    assert outcomes[-1]  # and the last, at twice a run's length, after it


def test_a_missing_file_or_set_is_one_sentence(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    missing = cli(example, "promote", "nope.jsonl", "--set", "acme-support")
    assert (missing.code, missing.err) == (
        2,
        "evalset: nope.jsonl: no such file; check the path.\n",
    )
    unknown = cli(example, "promote", str(EXPORT), "--set", "acme-suport")
    assert unknown.code == 2
    assert "did you mean 'acme-support'?" in unknown.err


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        ({"question": "Where is it?", "anna.schmidt@example.com": 1}, "<EMAIL_1> is not a"),
        ({"question": "Where is it?", "category": "DE89370400440532013000"}, "'<IBAN_1>'"),
        ({"question": "Where is it?", "category": "4111111111111111"}, "'<CARD_1>'"),
    ],
    ids=["email-as-key", "iban-as-category", "card-as-category"],
)
def test_personal_data_in_a_refused_record_stays_out_of_the_message(  # type: ignore[no-untyped-def]
    example: Path, cli, record: dict[str, Any], shown: str
) -> None:
    failures = example / "failures.jsonl"
    failures.write_text(json.dumps(record) + "\n")
    result = cli(example, "promote", "failures.jsonl", "--set", "acme-support")
    assert result.code == 2
    assert shown in result.err
    for value in ("anna.schmidt", "DE8937", "4111111111111111"):
        assert value not in result.err + result.out


# JSON writes these unescaped inside a string (ensure_ascii=False); str.splitlines cuts at them
NOT_LINE_BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


def test_a_jsonl_record_is_not_cut_at_a_character_json_leaves_unescaped() -> None:
    """Each record of a JSONL file is one line between CR LF, CR or LF: a question holding
    U+2028 or a form feed, as a Python exporter writes it, is one record (it was cut in two
    and refused as not JSON)."""
    from evalset.intake.promote import read_records

    records = [{"question": f"return a kettle{c}after 20 days?", "trace": f"t{k}"}
               for k, c in enumerate(NOT_LINE_BREAKS)]  # fmt: skip
    for newline in ("\n", "\r\n", "\r"):
        text = newline.join(json.dumps(r, ensure_ascii=False) for r in records) + newline
        assert read_records(text, "f.jsonl") == (list(enumerate(records, 1)), [])


# a question that asks nothing, as a record or a mapped field gives it -> the refusal
EMPTY = "question: must not be empty; write the question"
BLANK = "question: holds only white space; give the question the user asked"
BLANK_QUESTIONS = [("", EMPTY), (" ", BLANK), ("   ", BLANK), ("\n", BLANK), ("\t\r\n", BLANK),
                   ("\u00a0", BLANK), ("\u3000\u2028", BLANK), ("\x85", BLANK)]  # fmt: skip


@pytest.mark.parametrize("mapped", [False, True], ids=["record", "mapped"])
@pytest.mark.parametrize(("question", "problem"), BLANK_QUESTIONS)
def test_a_blank_question_is_refused_as_an_empty_one_is(  # type: ignore[no-untyped-def]
    example: Path, cli, question: str, problem: str, mapped: bool
) -> None:
    record = {"q": question} if mapped else {"question": question, "trace": "tr-1"}
    lines = [json.dumps({"question": "Can I return a kettle I used once?"}), json.dumps(record)]
    write_files(example, {"blank.jsonl": "\n".join(lines) + "\n"})
    before = (example / SET).read_bytes()
    args = ("--map", "question=q|question") if mapped else ()
    result = cli(example, "promote", "blank.jsonl", "--set", "acme-support", *args)
    assert (result.code, result.err) == (2, (
        f"evalset: blank.jsonl:2: the record {problem}. Nothing was promoted: fix the records, "
        "or pass --skip-invalid to promote the valid ones.\n"
    ))  # fmt: skip
    assert (example / SET).read_bytes() == before
    skipped = cli(example, "promote", "blank.jsonl", "--set", "acme-support", *args,
                  "--skip-invalid", "--json")  # fmt: skip
    assert [a["line"] for a in json.loads(skipped.out)["added"]] == [1]
    assert "q-e3b0c442" not in (example / SET).read_text(encoding="utf-8")


# Files whose personal data an error message would quote (the record's text as the file
# holds it, the options): none of it may be shown, whatever the message is about.
QUOTED_IN_ERRORS = {
    "a key given twice": ('{"question": "where is it", "anna.schmidt@example.com": 1, '
                          '"anna.schmidt@example.com": 2}\n', []),
    "a key given twice in an array": ('[{"question": "where is it", "+44 20 7946 0958": 1, '
                                      '"+44 20 7946 0958": 2}]\n', []),
    "a date that is an object": ('{"q": "where is it", "ts": {"user": "anna.schmidt@example.com",'
                                 ' "card": "4111 1111 1111 1111"}}\n',
                                 ["--map", "question=q,date=ts"]),
    "a date that is a card number": ('{"question": "where is it", "date": 4111111111111111}\n',
                                     []),
}  # fmt: skip


@pytest.mark.parametrize("case", QUOTED_IN_ERRORS)
@pytest.mark.parametrize("extra", [[], ["--json"], ["--skip-invalid", "--json"]])
def test_personal_data_is_out_of_every_error_message(  # type: ignore[no-untyped-def]
    example: Path, cli, case: str, extra: list[str]
) -> None:
    """Before, the JSON reader's message quoted a key given twice, and a date's validator
    quoted its value whole (an email address, a card number)."""
    text, options = QUOTED_IN_ERRORS[case]
    (example / "f.jsonl").write_text(text)
    result = cli(example, "promote", "f.jsonl", "--set", "acme-support", *options, *extra)
    assert result.code in (0, 2), result.err
    for value in ("anna.schmidt", "7946", "4111"):
        assert value not in result.err + result.out, (case, result.err + result.out)


# A JSON array is read as strictly as JSON: what follows it, and a missing or trailing
# comma, are refused (the records after a first "]" were dropped without a word).
ARRAYS = {
    "two arrays joined": ('[{"question": "a?"}]\n[{"question": "b?"}]\n',
                          "f.json:2:1: is not valid JSON (Extra data after the array)"),
    "a record after it": ('[{"question": "a?"}]\n{"question": "b?"}\n',
                          "f.json:2:1: is not valid JSON (Extra data after the array)"),
    "no comma": ('[{"question": "a?"} {"question": "b?"}]\n',
                 "f.json:1:21: is not valid JSON (Expecting ',' delimiter)"),
    "a trailing comma": ('[{"question": "a?"},]\n',
                         "f.json:1:21: is not valid JSON (Expecting value)"),
    "not closed": ('[{"question": "a?"},\n', "f.json: the JSON array is not closed"),
}  # fmt: skip


@pytest.mark.parametrize("case", ARRAYS)
def test_a_json_array_is_read_as_strictly_as_json(example: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    text, message = ARRAYS[case]
    (example / "f.json").write_text(text)
    before = (example / "sets" / "acme-support.yaml").read_bytes()
    result = cli(example, "promote", "f.json", "--set", "acme-support")
    assert result.code == 2 and result.err.startswith(f"evalset: {message}"), result.err
    assert (example / "sets" / "acme-support.yaml").read_bytes() == before


# dates outside the forms the README names: refused, never written as a year past 2286
# or as the day of a timestamp that is no time
BAD_DATES = {
    "11 digits": (17642880000, "is not a time: seconds (10 digits) or milliseconds (13 digits)"),
    "14 digits": ("17642880000000", "is not a time: seconds (10 digits)"),
    "a date and no time": ("2026-11-28T99:99 not a time", "is not a timestamp"),
}


@pytest.mark.parametrize("case", BAD_DATES)
def test_a_date_of_no_documented_form_is_refused(example: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    value, message = BAD_DATES[case]
    (example / "f.jsonl").write_text(json.dumps({"question": "where is it?", "date": value}) + "\n")
    result = cli(example, "promote", "f.jsonl", "--set", "acme-support")
    assert result.code == 2 and message in result.err, result.err


def test_dry_run_refuses_what_the_run_refuses(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, with --id-from trace, the dry run said it would add the valid records where
    the run refused them all."""
    records = [{"question": "Where is my parcel, please?", "trace": "tr 1/with space"},
               {"question": "Can I pay by invoice here?", "trace": "tr-2"}]  # fmt: skip
    (example / "f.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    args = ["promote", "f.jsonl", "--set", "acme-support", "--id-from", "trace"]
    real, dry = cli(example, *args), cli(example, *args, "--dry-run")
    assert real.code == dry.code == 2 and real.err == dry.err, (real.err, dry.err)


# What a trace export holds, and what promote reads of it.
PRESET_SHAPES = {
    # a LangChain Document: its own id, the document it is from in metadata.source
    "langsmith document": ("langsmith", {
        "trace_id": "tr-1", "inputs": {"question": "Can I return a kettle?"},
        "outputs": {"answer": "Yes", "source_documents": [
            {"id": "7f3c9a2e-1b4d", "page_content": "…", "type": "Document",
             "metadata": {"source": "policies/returns.md#damaged-items"}}]}},
        ("retrieved", ["policies/returns.md#damaged-items"])),
    # the last message's content as a list of parts (OpenAI's shape)
    "langfuse content parts": ("langfuse", {
        "id": "tr-2", "input": {"messages": [{"role": "user", "content": [
            {"type": "text", "text": "Can I return a kettle?"}]}]}, "output": "Yes"},
        ("question", "Can I return a kettle?")),
    "langsmith content parts": ("langsmith", {
        "trace_id": "tr-3", "inputs": {"messages": [{"role": "user", "content": [
            {"type": "text", "text": "Can I return a kettle?"}]}]}},
        ("question", "Can I return a kettle?")),
}  # fmt: skip


@pytest.mark.parametrize("case", PRESET_SHAPES)
def test_presets_read_what_trace_exports_hold(example: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    preset, record, (field, value) = PRESET_SHAPES[case]
    (example / "f.jsonl").write_text(json.dumps(record) + "\n")
    result = cli(example, "promote", "f.jsonl", "--set", "acme-support", "--preset", preset,
                 "--json")  # fmt: skip
    assert result.code == 0, result.err
    (added,) = json.loads(result.out)["added"]
    ident = added["id"]
    from evalset.sets.setfile import load_set

    item = next(i for i in load_set(example / "sets" / "acme-support.yaml").items if i.id == ident)
    found = item.question if field == "question" else item.origin.retrieved  # type: ignore[union-attr]
    assert found == value


PERSONAL_TRACES = {
    "jane.roe@example.com": "EMAIL",
    "jane.roe@example.com/+44 20 7946 0958": "EMAIL, PHONE",
    "session-+44 20 7946 0958": "PHONE",
    "client 203.0.113.7": "IP",
}
KEPT_TRACES = [
    "tr-4111111111111111",  # a numeric id that passes the Luhn check by chance
    "1234567890123456789",  # a snowflake id
    "0b0e6f55-6d0c-4c1e-9a7e-1d2f3a4b5c6d",  # a UUID, as Langfuse and LangSmith write them
    "4bf92f3577b34da6a3ce929d0e0e4736",  # an OpenTelemetry trace id
]


def test_a_trace_holding_personal_data_is_refused_and_written_nowhere(  # type: ignore[no-untyped-def]
    example: Path, cli
) -> None:
    """Before, `--map trace=session` with sessions keyed by an email address wrote the
    address to the set (`origin.trace`, `origin.traces`) and the summary. Redacted, a trace
    finds nothing and no longer tells two apart, so such a record is refused."""
    records = [{"q": f"Question number {n} about returns, {t}?", "session": t}
               for n, t in enumerate([*PERSONAL_TRACES, *KEPT_TRACES])]  # fmt: skip
    write_files(example, {"f.jsonl": "".join(json.dumps(r) + "\n" for r in records)})
    before = (example / SET).read_bytes()
    args = ("promote", "f.jsonl", "--set", "acme-support", "--map", "question=q,trace=session")
    refused = cli(example, *args)
    assert refused.code == 2
    assert (example / SET).read_bytes() == before
    done = cli(example, *args, "--skip-invalid", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["invalid"] == [
        {"line": n, "problem": f"trace holds personal data ({kinds}), which the set's "
         "origin.trace would keep as it is; map the trace to an id that holds none (`--map "
         "trace=PATH`, such as the tracing tool's trace id), or leave it out of the map"}
        for n, kinds in enumerate(PERSONAL_TRACES.values(), 1)
    ]  # fmt: skip
    assert len(report["added"]) == len(KEPT_TRACES)
    text = (example / SET).read_text(encoding="utf-8")
    for trace in PERSONAL_TRACES:
        assert trace not in text + refused.out + refused.err + done.out + done.err
    for trace in KEPT_TRACES:
        assert f"trace: {trace}" in text or f"trace: '{trace}'" in text, trace


# a record promoted with --id-from trace whose trace is an item's id: (that item, whether
# it came from this trace) -> promote's exit status
TRACE_IDS = {
    "an item written by hand": ("q-001", False),
    "a draft promoted from this trace": ("tr-42", True),
}


@pytest.mark.parametrize("case", TRACE_IDS)
def test_a_trace_that_is_another_items_id_is_refused(example: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    """Before, the record was skipped as that item ("q-001 exists already"), its question
    and answer dropped, and its trace added to the origin of an item about something else.
    The refusal names the file and the line, as every refusal of a record does (it once
    said "the record of line 1", naming no file)."""
    ident, same = TRACE_IDS[case]
    if same:  # promoted once already: promoting it again adds nothing, as before
        first = {"question": "Can I pay with Klarna later?", "trace": ident}
        (example / "first.jsonl").write_text(json.dumps(first) + "\n")
        args = ["promote", "first.jsonl", "--set", "acme-support", "--id-from", "trace"]
        assert cli(example, *args).code == 0
    record = {"question": "Can I pay with Klarna later, please?", "trace": ident}
    (example / "r.jsonl").write_text(json.dumps(record) + "\n")
    before = (example / SET).read_bytes()
    done = cli(example, "promote", "r.jsonl", "--set", "acme-support", "--id-from", "trace")
    if same:
        assert done.code == 0 and (example / SET).read_bytes() == before
        return
    assert done.code == 2
    assert done.err.startswith(
        f"evalset: r.jsonl:1: the record takes the id {ident!r} from its trace (--id-from trace), "
        f"and item {ident!r} is another, made from no such trace"
    )
    assert (example / SET).read_bytes() == before
