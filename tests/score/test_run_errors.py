"""Bad run files: one sentence naming the file and line, exit 2, nothing written; with
--skip-invalid the bad lines are listed in the report and left out."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import zipfile
from pathlib import Path

import pytest
from scoring_ws import RUN, score_ws, write_run

from evalset.score.runfile import EXAMPLES

__all__ = ["score_ws"]

GOOD = '{"id": "a1", "retrieved": ["guide.md#returns"]}\n'
FIX = "; fix the line, or leave invalid lines out with --skip-invalid."
ONE = "; fix it: no other line can be scored."
"""The end of the refusal of a file whose one line is invalid: leaving it out leaves nothing."""
MANY = (
    "; fix them: no line can be scored, so leaving them out (--skip-invalid) would leave nothing."
)
NOT_JSON = (
    '; no line is JSON: a run file holds one JSON object per line, like {"id": "q-001", '
    '"retrieved": ["policies/returns.md#damaged-items"]}.'
)
LONG = "x" * 24 + "… (100,000 characters, longer than any item's id)"
JSON_DOCUMENT = (
    "the file is one JSON KIND written over several lines, where a run file holds one JSON "
    f"object per line (JSON Lines), like {EXAMPLES['retrieval']}: JQ."
)
LONE_CR = (
    "a carriage return alone ends a line before it, so the next line is read as part of this "
    "one; save the file with LF or CRLF line ends"
)
TRIAL = '"trial" must be a whole number from 0 to 2,147,483,647, not'

# name -> (run file content, expected message without "evalset: ")
CASES: dict[str, tuple[str | bytes, str]] = {
    "not-jsonl": (
        GOOD + "a1, guide.md#returns\n",
        "run.jsonl:2: is not JSON (column 1: Expecting value)" + FIX,
    ),
    "a-json-array": (
        '[{"id": "a1", "retrieved": []}]\n',
        'run.jsonl:1: is a JSON list, not an object; each line is one object like {"id": '
        '"q-001", "retrieved": ["doc.md#section"]}' + ONE,
    ),
    "two-objects-on-a-line": (
        GOOD.strip() + " " + GOOD,
        "run.jsonl:1: is not JSON (column 49: Extra data)" + NOT_JSON,
    ),
    # a record broken over two lines beside two records on one line: joined, they would
    # still make as many values as lines, each taken for the wrong line
    "a-record-over-two-lines": (
        '{"id": "a1", "retrieved": ["guide.md#returns"\n'
        '"guide.md#returns"]}\n'
        '{"id": "a1", "trial": 1, "retrieved": []}, {"id": "a1", "trial": 2, "retrieved": []}\n',
        "run.jsonl:1: is not JSON (column 46: Expecting ',' delimiter) (2 more invalid "
        "line(s))" + NOT_JSON,
    ),
    "white-space-around-lines": (
        "  " + GOOD.strip() + " \r\n\t \n" + '{"id": "a1", "trial": -1, "retrieved": []}\n',
        f"run.jsonl:3: item a1: {TRIAL} -1" + FIX,
    ),
    "crlf-lines": (
        GOOD.replace("\n", "\r\n") + '{"id": "a1", "trial": -1, "retrieved": []}\r\n',
        f"run.jsonl:2: item a1: {TRIAL} -1" + FIX,
    ),
    "no-break-space-after-a-line": (  # white space to Python, not to JSON
        GOOD.strip() + "\u00a0\n",
        "run.jsonl:1: is not JSON (column 48: Extra data)" + NOT_JSON,
    ),
    "unknown-item": (
        GOOD + '{"id": "a11", "retrieved": []}\n',
        "run.jsonl:2: item a11 is not in set docs (did you mean 'a1'?)"
        "; fix the line, or leave invalid lines out with --skip-invalid.",
    ),
    "duplicate-trial": (
        GOOD + '{"id": "a1", "trial": 0, "retrieved": []}\n',
        'run.jsonl:2: repeats item a1 trial 0 of line 1; number repeated runs with "trial"' + FIX,
    ),
    "misspelt-key": (
        '{"id": "a1", "retreived": ["guide.md#returns"]}\n',
        "run.jsonl:1: has an unknown key 'retreived' (did you mean 'retrieved'?)" + ONE,
    ),
    "no-retrieved": (
        '{"id": "a1", "answer": "14 days"}\n',
        'run.jsonl:1: item a1 has no "retrieved" list; give what the retriever returned, best '
        "first" + ONE,
    ),
    "bad-citation": (
        '{"id": "a1", "retrieved": ["/etc/passwd"]}\n',
        "run.jsonl:1: item a1: retrieved[0] is not a citation (citation '/etc/passwd' is not a "
        "path relative to the corpus root (no leading '/', no empty, '.' or '..' parts))" + ONE,
    ),
    "citation-after-a-space": (
        '{"id": "a1", "retrieved": ["guide.md#returns", " guide.md#returns"]}\n',
        "run.jsonl:1: item a1: retrieved[1] is not a citation (citation ' guide.md#returns' "
        "starts with white space: remove it)" + ONE,
    ),
    "bad-span": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": 9, "end": 3}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "start" 9 and "end" 3; they are character '
        "offsets with 0 <= start < end" + ONE,
    ),
    "span-from-below-0": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": -1, "end": 3}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "start" -1 and "end" 3; they are character '
        "offsets with 0 <= start < end" + ONE,
    ),
    "no-span-no-text": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md"}]}\n',
        'run.jsonl:1: item a1: retrieved[0] needs "text", or "start" and "end" as character '
        "offsets with 0 <= start < end" + ONE,
    ),
    # before, each said only 'needs "text", or "start" and "end" as character offsets with 0
    # <= start < end', which 1.0 and 10 are, to the eye
    "span-start-a-float": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": 1.0, "end": 10}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "start": 1.0, which is no whole number; '
        '"start" and "end" count characters, with 0 <= start < end' + ONE,
    ),
    "span-end-as-text": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": 1, "end": "10"}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "end": "10", which is no whole number; '
        '"start" and "end" count characters, with 0 <= start < end' + ONE,
    ),
    "span-start-true": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": true, "end": 3}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "start": true, which is no whole number; '
        '"start" and "end" count characters, with 0 <= start < end' + ONE,
    ),
    "span-without-end": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "start": 4}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "start" but no "end"; give both, as character '
        'offsets with 0 <= start < end, or the chunk\'s "text"' + ONE,
    ),
    "span-without-start": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md", "end": 4}]}\n',
        'run.jsonl:1: item a1: retrieved[0] has "end" but no "start"; give both, as character '
        'offsets with 0 <= start < end, or the chunk\'s "text"' + ONE,
    ),
    "chunk-of-a-section": (
        '{"id": "a1", "retrieved": [{"doc": "guide.md#returns", "text": "x"}]}\n',
        "run.jsonl:1: item a1: retrieved[0] names 'guide.md#returns' as \"doc\"; give the "
        'document alone (no "#section")' + ONE,
    ),
    # a JSON document written over several lines (json.dump with indent), not JSON Lines:
    # before, "fix them: no line can be scored", which said nothing of what to write instead
    "a-json-list-over-lines": (
        json.dumps([json.loads(GOOD), {"id": "a2", "retrieved": []}], indent=2) + "\n",
        "run.jsonl:1: is not JSON (column 2: Expecting value) (11 more invalid line(s)); "
        + JSON_DOCUMENT.replace("KIND", "list").replace(
            "JQ", "`jq -c '.[]' run.jsonl` writes its objects so"
        ),
    ),
    "a-json-object-over-lines": (
        json.dumps(json.loads(GOOD), indent=2) + "\n",
        "run.jsonl:1: is not JSON (column 2: Expecting property name enclosed in double quotes) "
        "(5 more invalid line(s)); "
        + JSON_DOCUMENT.replace("KIND", "object").replace("JQ", "`jq -c . run.jsonl` writes it so"),
    ),
    # before, "Extra data", which said neither what joined the lines nor how to part them
    "cr-line-ends": (
        GOOD.replace("\n", "\r") + '{"id": "a2", "retrieved": []}\r',
        f"run.jsonl:1: is not JSON (column 49: {LONE_CR})" + NOT_JSON,
    ),
    "a-line-ended-by-a-lone-cr": (
        GOOD + '{"id": "a2", "retrieved": []} \r{"id": "a3", "retrieved": []}\n',
        f"run.jsonl:2: is not JSON (column 32: {LONE_CR})" + FIX,
    ),
    # a CR LF line end after an unfinished object is no lone CR: JSON's reason is kept
    "an-unfinished-object-before-crlf": (
        GOOD + '{"id": "a1",\r\n',
        "run.jsonl:2: is not JSON (column 14: Expecting property name enclosed in double "
        "quotes)" + FIX,
    ),
    # the column of the key given a second time in one object: before, column 1 for an
    # escaped key, and the first other "id" of the line (of another object) for a nested one
    **{
        f"repeated-key-{name}": (
            line + "\n",
            f"run.jsonl:1: has the key {key!r} twice in one object (column {column}): JSON keeps "
            "only the last, silently; keep one of them" + ONE,
        )
        for name, line, key, column in (
            ("plain", '{"id": "a1", "retrieved": [], "id": "a2"}', "id", 31),
            ("escaped", '{"id": "a1", "retrieved": [], "\\u0069d": "a2"}', "id", 31),
            (
                "after-an-inner-object",
                '{"metadata": {"id": 1}, "id": "a1", "retrieved": [], "id": "a2"}',
                "id",
                54,
            ),
            (
                "in-a-chunk",
                '{"id": "a1", "retrieved": [{"doc": "guide.md", "text": "x", "te\\u0078t": "y"}]}',
                "text",
                61,
            ),
        )
    },
    # an id with white space is quoted: bare, "item  a1 is not in set docs (did you mean
    # 'a1'?)" showed no difference
    **{
        f"id-with-white-space-{name}": (
            f'{{"id": "{ident}", "retrieved": []}}\n',
            f"run.jsonl:1: item {shown} is not in set docs ({hint})" + ONE,
        )
        for name, ident, shown, hint in (
            ("before", " a1", "' a1'", "did you mean 'a1'?"),
            ("after", "a1 ", "'a1 '", "did you mean 'a1'?"),
            ("tab", "a\\t1", "'a\\t1'", "did you mean 'a1'?"),
            ("only", "   ", "'   '", "check the id"),
            (
                "no-break",
                "a\u00a01",
                "'a\\xa01'",
                "did you mean 'a1'? 'a\\xa01' has U+00A0 NO-BREAK SPACE, which 'a1' has not",
            ),
        )
    },
    # before, "not a object"
    **{
        f"{key}-{kind}": (
            f'{{"id": "a1", "{key}": {value}}}\n'
            if key == "retrieved"
            else f'{{"id": "a1", "retrieved": [], "{key}": {value}}}\n',
            f'run.jsonl:1: item a1: "{key}" must be {what}, not {kind}' + ONE,
        )
        for key, what in (("retrieved", "a list"), ("answer", "text"))
        for kind, value in (
            ("an object", '{"a": 1}'),
            ("a list", "[1]"),
            ("a number", "5"),
            ("a boolean", "true"),
            ("a text", '"x"'),
        )
        if not kind.endswith(what.split()[-1])
    },
    "negative-trial": (
        '{"id": "a1", "trial": -1, "retrieved": []}\n',
        f"run.jsonl:1: item a1: {TRIAL} -1" + ONE,
    ),
    "trial-beyond-32-bits": (  # an internal error before (numpy's int64 overflowed)
        '{"id": "a1", "trial": 100000000000000000000, "retrieved": []}\n',
        'run.jsonl:1: item a1: "trial" must be a whole number from 0 to 2,147,483,647, not '
        "100000000000000000000" + ONE,
    ),
    "costs-beyond-a-number": (  # each finite, their total Infinity in the report before
        '{"id": "a1", "retrieved": [], "cost": 1e308}\n'
        '{"id": "a2", "retrieved": [], "cost": 1.5e308}\n',
        'run.jsonl:2: item a2: "cost" 1.5e+308 takes the run\'s total beyond the largest '
        "number a report holds (check its unit)" + FIX,
    ),
    "latencies-beyond-a-number": (
        '{"id": "a1", "retrieved": [], "latency_ms": 1.7e308}\n'
        '{"id": "a2", "retrieved": [], "latency_ms": 1.7e308}\n'
        '{"id": "a3", "retrieved": [], "latency_ms": 1.7e308}\n',
        'run.jsonl:2: item a2: "latency_ms" 1.7e+308 takes the run\'s total beyond the '
        "largest number a report holds (check its unit) (1 more invalid line(s))" + FIX,
    ),
    "cost-beyond-a-float": (  # an internal error before (the int overflowed a float)
        '{"id": "a1", "retrieved": [], "cost": 1' + "0" * 400 + "}\n",
        'run.jsonl:1: item a1: "cost" must be a number from 0, not 100000000000000000000000… '
        "(a number too large)" + ONE,
    ),
    "latency-beyond-a-float": (
        '{"id": "a1", "retrieved": [], "latency_ms": -1' + "0" * 400 + "}\n",
        'run.jsonl:1: item a1: "latency_ms" must be a number from 0, not -10000000000000000000000… '
        "(a number too large)" + ONE,
    ),
    "latency-text": (
        '{"id": "a1", "retrieved": [], "latency_ms": "fast"}\n',
        'run.jsonl:1: item a1: "latency_ms" must be a number from 0, not "fast"' + ONE,
    ),
    # values as JSON writes them, not as Python does (True, 'fast', None)
    "trial-true": (
        '{"id": "a1", "trial": true, "retrieved": []}\n',
        f"run.jsonl:1: item a1: {TRIAL} true" + ONE,
    ),
    "trial-text": (
        '{"id": "a1", "trial": "1", "retrieved": []}\n',
        f'run.jsonl:1: item a1: {TRIAL} "1"' + ONE,
    ),
    "trial-null": (
        '{"id": "a1", "trial": null, "retrieved": []}\n',
        f"run.jsonl:1: item a1: {TRIAL} null" + ONE,
    ),
    "cost-false": (
        '{"id": "a1", "retrieved": [], "cost": false}\n',
        'run.jsonl:1: item a1: "cost" must be a number from 0, not false' + ONE,
    ),
    "empty": (
        "\n\n",
        'run.jsonl: holds no run line; write one JSON object per line, like {"id": "q-001", '
        '"retrieved": ["policies/returns.md#damaged-items"]}.',
    ),
    "not-utf8": (
        b'{"id": "a1", "retrieved": ["\xff"]}\n',
        "run.jsonl:1:29: is not valid UTF-8 (byte 0xff); save the file as UTF-8.",
    ),
    "utf-16": (
        '{"id": "a1", "retrieved": []}\n'.encode("utf-16"),
        "run.jsonl: is UTF-16 text, but a run file must be UTF-8; save it as UTF-8 (for example "
        "`iconv -f UTF-16 -t UTF-8`).",
    ),
    "nul-byte": (
        b'{"id": "a1", "retrieved": []}\n{"id": "a2"\x00}\n',
        "run.jsonl:2:12: contains a NUL byte, so it is not a text file; remove the byte or "
        "restore the file from git.",
    ),
    "deeply-nested": (
        GOOD + "[" * 100_000 + "]" * 100_000 + "\n",
        "run.jsonl:2: is not JSON that can be read (too deeply nested, or a number too long)" + FIX,
    ),
    # JSON can escape half of a surrogate pair, which no text holds: it could be neither
    # printed nor written in the report (an internal error, before)
    "lone-surrogate": (
        GOOD + '{"id": "a2", "retrieved": [], "answer": "\\ud83d!"}\n',
        'run.jsonl:2: holds a lone surrogate (a "\\ud800" to "\\udfff" escape without its '
        "pair), which is not text; escape a character beyond U+FFFF as its pair of "
        "surrogates, or write it as UTF-8" + FIX,
    ),
    # an id longer than any item's is clipped in every message that names it (before, a
    # 100,000-character id made a 100,000-character sentence)
    "unknown-item-of-100000-characters": (
        json.dumps({"id": "x" * 100_000, "retrieved": []}) + "\n",
        f"run.jsonl:1: item {LONG} is not in set docs (check the id)" + ONE,
    ),
    "unknown-item-as-long-as-an-id-may-be": (
        json.dumps({"id": "x" * 200, "retrieved": []}) + "\n",
        f"run.jsonl:1: item {'x' * 200} is not in set docs (check the id)" + ONE,
    ),
    "long-id-with-a-bad-trial": (
        json.dumps({"id": "x" * 100_000, "trial": -1, "retrieved": []}) + "\n",
        f"run.jsonl:1: item {LONG}: {TRIAL} -1" + ONE,
    ),
    "long-id-with-a-bad-retrieved": (
        json.dumps({"id": "x" * 100_000, "retrieved": "a.md"}) + "\n",
        f'run.jsonl:1: item {LONG}: "retrieved" must be a list, not a text' + ONE,
    ),
    "long-id-with-a-bad-citation": (
        json.dumps({"id": "x" * 100_000, "retrieved": ["#x"]}) + "\n",
        f"run.jsonl:1: item {LONG}: retrieved[0] is not a citation (citation '#x' has "
        "no document before '#')" + ONE,
    ),
    "long-id-repeated": (
        2 * (json.dumps({"id": "x" * 100_000, "retrieved": []}) + "\n"),
        f"run.jsonl:1: item {LONG} is not in set docs (check the id) (1 more invalid line(s))"
        + MANY,
    ),
    # a file no line of which is a run line: leaving lines out cannot help, and a file of
    # another shape is named as such (before, every one ended "or leave invalid lines out
    # with --skip-invalid")
    "a-trec-run": (
        "1 Q0 guide.md 1 1.5 bm25\n1 Q0 faq.md 2 1.0 bm25\n",
        "run.jsonl:1: is not JSON (column 3: Extra data) (1 more invalid line(s)); this looks "
        "like a TREC run (query, Q0, document, rank, score, tag): score it in TREC mode, "
        "`evalset score retrieval --qrels QRELS --run run.jsonl`.",
    ),
    "trec-qrels": (
        "1 0 guide.md 1\n",
        "run.jsonl:1: is not JSON (column 3: Extra data); this looks like TREC qrels (query, 0, "
        "document, relevance): give them with --qrels, and the run with --run.",
    ),
    "a-csv-file": (
        "id,retrieved\na1,guide.md#returns\n",
        "run.jsonl:1: is not JSON (column 1: Expecting value) (1 more invalid line(s))" + NOT_JSON,
    ),
    "every-line-of-another-tools-keys": (
        '{"question_id": "a1", "docs": ["guide.md#returns"]}\n'
        '{"question_id": "a2", "docs": ["guide.md#returns"]}\n',
        "run.jsonl:1: has an unknown key 'question_id' (did you mean 'id'?) (1 more invalid "
        "line(s))" + MANY,
    ),
    "retrieved-under-another-name": (
        GOOD + '{"id": "a2", "documents": ["guide.md#returns"]}\n',
        "run.jsonl:2: has an unknown key 'documents' (did you mean 'retrieved'?)" + FIX,
    ),
    "the-answer-under-another-name": (
        GOOD + '{"id": "a2", "retrieved": [], "response": "14 days"}\n',
        "run.jsonl:2: has an unknown key 'response' (did you mean 'answer'?)" + FIX,
    ),
    "contexts-as-ragas-names-them": (
        GOOD + '{"id": "a2", "retrieved": [], "retrieved_contexts": ["x"]}\n',
        "run.jsonl:2: has an unknown key 'retrieved_contexts' (did you mean 'contexts'?)" + FIX,
    ),
    "a-key-like-none": (
        GOOD + '{"id": "a2", "retrieved": [], "colour": "red"}\n',
        "run.jsonl:2: has an unknown key 'colour' (a line's keys are id, retrieved, trial, "
        'latency_ms, cost, answer, contexts; put extra data under "metadata")' + FIX,
    ),
    "several-bad-lines": (
        "x\n" + GOOD + "y\n",
        "run.jsonl:1: is not JSON (column 1: Expecting value) (1 more invalid line(s))" + FIX,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_run_file_is_one_located_sentence(name: str, score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    content, message = CASES[name]
    path = score_ws / "run.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json",
               "--html", "out.html")  # fmt: skip
    assert done.code == 2, done.out
    assert done.err == f"evalset: {message}\n"
    assert done.out == "" and not (score_ws / "out.json").exists()
    assert not (score_ws / "out.html").exists()
    as_json = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json")
    assert json.loads(as_json.out) == {"error": message, "exit_code": 2}


@pytest.mark.parametrize(
    "name", ["a-trec-run", "a-csv-file", "every-line-of-another-tools-keys", "misspelt-key"]
)
@pytest.mark.parametrize("command", [["retrieval"], ["answers", "--judge", "exact"]])
def test_skip_invalid_of_a_file_with_no_valid_line_says_the_same(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, name: str, command: list[str]
) -> None:
    """Leaving every line out leaves nothing to score: the refusal is the one without the
    flag. Before, it said only that the file "holds no valid run line", with no line and no
    word of what the file looks like."""
    content, message = CASES[name]
    if command[0] == "answers":  # the example line is one of an answer run
        message = message.replace(EXAMPLES["retrieval"], EXAMPLES["answers"])
    (score_ws / "run.jsonl").write_text(str(content), encoding="utf-8")
    done = cli(score_ws, "score", *command, "docs", "run.jsonl", "--skip-invalid")
    assert (done.code, done.err) == (2, f"evalset: {message}\n")


@pytest.mark.parametrize("content", ["\n\n", "a1, guide.md#returns\n"], ids=["empty", "csv"])
def test_an_answer_run_with_no_run_line_shows_a_line_of_an_answer_run(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, content: str
) -> None:
    """It showed a line of retrieval, which `score answers` then refused for its lack of an
    answer."""
    (score_ws / "run.jsonl").write_text(content, encoding="utf-8")
    done = cli(score_ws, "score", "answers", "docs", "run.jsonl", "--judge", "exact")
    assert done.code == 2
    assert f"like {EXAMPLES['answers']}." in done.err and '"retrieved"' not in done.err


@pytest.mark.parametrize("command", [["retrieval"], ["answers", "--judge", "exact"]])
@pytest.mark.parametrize(
    ("second", "order"),
    [
        ("docs", "docs run.jsonl"),
        ("sets/docs.yaml", "sets/docs.yaml run.jsonl"),
        ("other.jsonl", "SET RUN"),
        ("docs.yml", "docs.yml run.jsonl"),
    ],
)
def test_a_run_file_given_where_the_set_goes_is_named_as_such(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, command: list[str], second: str, order: str
) -> None:
    """The two arguments swapped: before, the run file was read as a set and refused as
    YAML whose syntax is wrong ("fix the syntax there"), though nothing was wrong with it."""
    (score_ws / "run.jsonl").write_text(GOOD)
    done = cli(score_ws, "score", *command, "run.jsonl", second, "-o", "out.json")
    assert (done.code, done.err) == (
        2,
        "evalset: run.jsonl: is a run file (JSON Lines), given where the set goes; give the "
        "set first (its name or its .yaml file), then the run file: `evalset score "
        f"{command[0]} {order}`.\n",
    )
    assert not (score_ws / "out.json").exists()


def test_skip_invalid_lists_the_bad_lines_and_scores_the_rest(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    lines = [json.dumps(line) for line in RUN]
    lines[1] = "not json"
    lines.append('{"id": "zz", "retrieved": []}')
    (score_ws / "run.jsonl").write_text("\n".join(lines) + "\n")
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--skip-invalid", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["invalid_lines"] == [
        {"line": 2, "problem": "is not JSON (column 1: Expecting value)"},
        {"line": 9, "problem": "item zz is not in set docs (check the id)"},
    ]
    assert report["counts"]["invalid_lines"] == 2
    assert report["missing"] == ["a2"]  # its line was the broken one
    text = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--skip-invalid")
    assert "note: 2 invalid run line(s) left out, at line 2, 9 (report: " in text.out
    # the people reading a pull-request comment do not have the report: the lines are named
    comment = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--skip-invalid",
                  "--format", "md").out  # fmt: skip
    assert "> 2 invalid run line(s) left out, at line 2, 9 (report: " in comment
    lines += ['{"id": "zy", "retrieved": []}', '{"id": "zx", "retrieved": []}']
    (score_ws / "run.jsonl").write_text("\n".join(lines) + "\n")
    text = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--skip-invalid")
    assert "note: 4 invalid run line(s) left out, at line 2, 9, 10, … (report: " in text.out


def test_a_long_id_is_clipped_in_the_reports_list_of_invalid_lines(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    line = json.dumps({"id": "x" * 100_000, "retrieved": []}) + "\n"
    (score_ws / "run.jsonl").write_text(GOOD + line + line)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--skip-invalid", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["invalid_lines"] == [
        {"line": 2, "problem": f"item {LONG} is not in set docs (check the id)"},
        {"line": 3, "problem": f'repeats item {LONG} trial 0 of line 2; number repeated runs '
                               'with "trial"'},
    ]  # fmt: skip


def test_the_refusal_counts_every_invalid_line_of_each_kind(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Lines the file gets wrong and lines of ids the set does not have are counted together:
    the refusal says how many more there are, as --skip-invalid lists them."""
    lines = [json.dumps({**line, "answer": "x"}) for line in RUN]
    lines[0] = '{"id": "zz", "retrieved": [], "answer": "x"}'
    lines[2] = '{"id": "a3", "retreived": [], "answer": "x"}'
    lines[3] = "not json"
    lines.append('{"id": "a1", "trial": 1, "retrieved": [], "answer": "x",}')
    (score_ws / "run.jsonl").write_text("\n".join(lines) + "\n")
    for command in (["retrieval"], ["answers", "--judge", "exact"]):
        done = cli(score_ws, "score", *command, "docs", "run.jsonl")
        assert done.code == 2
        assert done.err.startswith(
            "evalset: run.jsonl:1: item zz is not in set docs (check the id) (3 more invalid "
            "line(s)); fix the line"
        ), done.err
        skipped = cli(score_ws, "score", *command, "docs", "run.jsonl", "--skip-invalid",
                      "--json")  # fmt: skip
        assert skipped.code == 0, skipped.err
        assert [e["line"] for e in json.loads(skipped.out)["invalid_lines"]] == [1, 3, 4, 9]


def test_a_missing_run_file_or_set(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli(score_ws, "score", "retrieval", "docs", "nope.jsonl")
    assert done.code == 2
    assert done.err == "evalset: nope.jsonl: no such file; give the path of the run file.\n"
    (score_ws / "run.jsonl").write_text(GOOD)
    unknown = cli(score_ws, "score", "retrieval", "dosc", "run.jsonl")
    assert unknown.code == 2  # paths as the user would type them, from where they are
    assert unknown.err.startswith("evalset: sets: has no set named 'dosc' (did you mean 'docs'?)")
    snapshot = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--snapshot", "abc123")
    assert snapshot.code == 2
    assert snapshot.err.startswith("evalset: snapshots: has no snapshot 'abc123' (snapshots: ")
    usage = cli(score_ws, "score", "retrieval", "docs")
    assert usage.code == 2 and "give the set and the run file" in usage.err
    k = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--k", "0,3")
    assert k.code == 2 and "give whole numbers from 1 to 100000, comma-separated" in k.err
    deep = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--k", "1,100000", "--json")
    assert deep.code == 0 and json.loads(deep.out)["overall"]["precision@100000"][
        "value"
    ] == pytest.approx(0.2e-5)


@pytest.mark.parametrize(
    "k", ["1_0", "+3", " 3", "3 ", "\u0663", "0x3", "3.0", "1,,3", "3,", "9" * 5000]
)
@pytest.mark.parametrize("mode", ["set", "trec"])
def test_a_cutoff_is_plain_digits(score_ws: Path, cli, k: str, mode: str) -> None:  # type: ignore[no-untyped-def]
    """Before, Python's int() read "1_0" as 10, "+3", " 3" and the Arabic-Indic digit
    three as 3, and scored at those cutoffs."""
    (score_ws / "run.jsonl").write_text(GOOD)
    (score_ws / "q").write_text("1 0 a 1\n")
    (score_ws / "r").write_text("1 Q0 a 1 1 x\n")
    if mode == "set":
        args = ["docs", "run.jsonl", "-o", "out.json"]
    else:
        args = ["--qrels", "q", "--run", "r"]
    done = cli(score_ws, "score", "retrieval", *args, "--k", k)
    assert done.code == 2
    assert "give whole numbers from 1 to 100000, comma-separated" in done.err
    assert "Traceback" not in done.err and not (score_ws / "out.json").exists()


@pytest.mark.parametrize("fork", [True, False])
def test_the_sets_problem_comes_before_the_runs(
    fork: bool, score_ws: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The set is checked aside while the run is read: an invalid set is still refused with
    its own sentence (exit 1) when the run is broken too, and a valid set lets the run's
    problem through (exit 2), with or without a helper process; none is left running."""
    from test_aside import children

    before = children()
    monkeypatch.setattr("evalset.aside.can_fork", lambda: fork)
    (score_ws / "run.jsonl").write_text("not json\n")
    bad = cli(score_ws, "score", "retrieval", "docs", "run.jsonl")
    assert bad.code == 2 and bad.err.startswith("evalset: run.jsonl:1: is not JSON")
    path = score_ws / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("category: lookup", "category: lokup", 1))
    refused = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    assert refused.code == 1, refused.err
    assert refused.err.startswith(
        "evalset: sets/docs.yaml: cannot score a run against an invalid set (1 error(s); "
    ), refused.err
    # a run file that cannot be opened is no line the set's problem could explain
    missing = cli(score_ws, "score", "retrieval", "docs", "nope.jsonl", "-o", "out.json")
    assert missing.code == 2 and missing.err.startswith("evalset: nope.jsonl: no such file")
    assert not (score_ws / "out.json").exists()
    assert children() == before


@pytest.mark.parametrize("how", ["missing", "folder"])
def test_a_run_that_cannot_be_opened_is_named_before_the_sets_problems(  # type: ignore[no-untyped-def]
    how: str, score_ws: Path, cli
) -> None:
    """A refused set (exit 1) must not hide that the run file is not there (exit 2)."""
    set_file = score_ws / "sets" / "docs.yaml"
    set_file.write_text(set_file.read_text().replace("id: a2", "id: a1"), encoding="utf-8")
    if how == "folder":
        (score_ws / "run.jsonl").mkdir()
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    reason = "no such file" if how == "missing" else "is a folder"
    assert done.code == 2, done.err
    assert done.err == f"evalset: run.jsonl: {reason}; give the path of the run file.\n"
    write_run(score_ws / "run.txt", RUN)  # a run that can be read: the set is refused
    refused = cli(score_ws, "score", "retrieval", "docs", "run.txt", "-o", "out.json")
    assert refused.code == 1 and "cannot score a run against an invalid set" in refused.err


# runs none of whose lines is of an active answerable item: scoring would count every item as
# retrieving nothing (all zeros, exit 0) and measure no retriever
NOTHING_TO_SCORE = {
    "unanswerable items only": (["r1", "r2"], "its lines are 2 of unanswerable items"),
    "a draft only": (["d1"], "its lines are 1 of draft items"),
    "a retired item only": (["x1"], "its lines are 1 of retired items"),
    "all three": (["r1", "d1", "x1", "r2"],
                  "its lines are 1 of draft items, 1 of retired items, 2 of unanswerable items"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(NOTHING_TO_SCORE))
def test_a_run_with_no_line_to_score_is_refused(score_ws: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    ids, why = NOTHING_TO_SCORE[case]
    write_run(score_ws / "run.jsonl", [{"id": i, "retrieved": ["guide.md"]} for i in ids])
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/r.json")
    assert done.code == 2, done.out
    assert done.err.strip() == (
        f"evalset: run.jsonl: answers no active answerable item of set docs ({why}); there is "
        "nothing to score: give the run of the set's questions."
    )
    assert not (score_ws / "reports" / "r.json").exists()
    # one line of an answerable item is enough: the others are left out, as before
    write_run(score_ws / "run.jsonl", [{"id": i, "retrieved": []} for i in [*ids, "a1"]])
    assert cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "r.json").code == 0


@pytest.mark.parametrize("case", ["a draft only", "a retired item only", "all three"])
def test_an_answers_run_with_no_line_to_score_is_refused(score_ws: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    """The same for answers, whose unanswerable items are scored (a refusal is right there).
    Before, such a run scored every item as answering nothing, exit 0, and a gate on the
    lower-is-better metrics took it for an improvement."""
    ids, _ = NOTHING_TO_SCORE[case]
    ids = [i for i in ids if not i.startswith("r")]
    write_run(score_ws / "run.jsonl", [{"id": i, "answer": "We accept cards."} for i in ids])
    args = ["score", "answers", "docs", "run.jsonl", "--judge", "exact", "-o", "reports/a.json"]
    done = cli(score_ws, *args)
    assert done.code == 2, done.out
    kinds = {"draft": "d1", "retired": "x1"}
    why = ", ".join(f"1 of {what} items" for what, ident in kinds.items() if ident in ids)
    assert done.err.strip() == (
        f"evalset: run.jsonl: answers no active item of set docs (its lines are {why}); there "
        "is nothing to score: give the run of the set's questions."
    )
    assert not (score_ws / "reports" / "a.json").exists()
    # one line of an active item, unanswerable included, is enough
    write_run(score_ws / "run.jsonl", [{"id": i, "answer": "I cannot say."} for i in [*ids, "r1"]])
    assert cli(score_ws, *args).code in (0, 1)


SET_UNREADABLE = {
    "not YAML": lambda text: text.replace("items:\n", "items:\n  - [\n", 1),
    "not a mapping": lambda text: "- just\n- a list\n",
    "a key twice": lambda text: text.replace("name: docs\n", "name: docs\nname: again\n", 1),
    "not text": lambda text: text.replace("items:", "items:\x00", 1),
}
RUN_BROKEN = {
    "not JSON": ["run.jsonl"],
    "missing": ["nope.jsonl"],
    "a folder": ["runs"],
    "an unknown snapshot": ["run.jsonl", "--snapshot", "0000000"],
}


@pytest.mark.parametrize("fork", [True, False])
@pytest.mark.parametrize("breakage", list(SET_UNREADABLE))
def test_a_set_that_cannot_be_read_is_said_before_any_problem_of_the_run(  # type: ignore[no-untyped-def]
    fork: bool, breakage: str, score_ws: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A set that cannot be read is refused with its own sentence, as when the run is fine,
    whatever is wrong with the run, with or without a helper; nothing is written."""
    from test_aside import children

    before = children()
    monkeypatch.setattr("evalset.aside.can_fork", lambda: fork)
    path = score_ws / "sets" / "docs.yaml"
    path.write_text(SET_UNREADABLE[breakage](path.read_text()), encoding="utf-8")
    write_run(score_ws / "run.jsonl", RUN)
    alone = cli(score_ws, "score", "retrieval", "sets/docs.yaml", "run.jsonl", "-o", "out.json")
    assert alone.code == 2 and alone.err.startswith("evalset: sets/docs.yaml"), alone.err
    (score_ws / "run.jsonl").write_text("not json\n")
    (score_ws / "runs").mkdir()
    for name, args in RUN_BROKEN.items():
        done = cli(score_ws, "score", "retrieval", "sets/docs.yaml", *args, "-o", "out.json")
        assert (done.code, done.err) == (alone.code, alone.err), name
    assert not (score_ws / "out.json").exists()
    assert children() == before


LARGEST = 1.7976931348623157e308
# latencies or costs each finite whose total, added line by line, stays the largest number
# (each further value is below half its last digit): numpy's pairwise sum added the small
# ones first, and the report's total was Infinity (no JSON), with numpy's overflow warning
NEAR_THE_LARGEST: dict[str, list[float | int]] = {
    "largest-first": [LARGEST, *[0.6e292] * 15],
    "largest-in-the-middle": [0.6e292, LARGEST, *[0.6e292] * 30],
    "whole-numbers": [17976931348623157 * 10**292, *[6 * 10**291] * 15],
}


@pytest.mark.parametrize("command", [["retrieval"], ["answers", "--judge", "exact"]])
@pytest.mark.parametrize("key", ["latency_ms", "cost"])
@pytest.mark.parametrize("name", list(NEAR_THE_LARGEST))
def test_a_total_kept_finite_is_reported_as_the_lines_add_up(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, name: str, key: str, command: list[str]
) -> None:
    values = NEAR_THE_LARGEST[name]
    lines = [
        {"id": "a1", "trial": t, "retrieved": [], "answer": "14 days", key: v}
        for t, v in enumerate(values)
    ]
    write_run(score_ws / "run.jsonl", lines)
    total = 0.0
    for value in values:
        total += value
    assert total == LARGEST
    done = cli(score_ws, "score", *command, "docs", "run.jsonl", "-o", "out.json")
    assert done.code == 0 and done.err == "", done.err
    report = json.loads(
        (score_ws / "out.json").read_text(encoding="utf-8"),
        parse_constant=lambda c: pytest.fail(f"{c} in the report"),
    )
    assert report[key.removesuffix("_ms")]["total"] == total
    assert report["counts"]["invalid_lines"] == 0


@pytest.mark.parametrize("command", [["retrieval"], ["answers", "--judge", "exact"]])
@pytest.mark.parametrize("value", ["-0.0", "-0", "-0e5", "0.0", "-0.0, -0.0, 0"])
@pytest.mark.parametrize("key", ["latency_ms", "cost"])
def test_a_negative_zero_is_reported_as_zero(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, key: str, value: str, command: list[str]
) -> None:
    """A cost of -0.0 is a number from 0, as the run file requires: before, the report's
    p50 and p95 were -0.0."""
    lines = [
        f'{{"id": "a1", "trial": {t}, "retrieved": [], "answer": "x", "{key}": {v}}}\n'
        for t, v in enumerate(value.split(", "))
    ]
    (score_ws / "run.jsonl").write_text("".join(lines), encoding="utf-8")
    done = cli(score_ws, "score", *command, "docs", "run.jsonl", "-o", "out.json")
    assert done.code == 0, done.err
    text = (score_ws / "out.json").read_text(encoding="utf-8")
    summary = json.loads(text)[key.removesuffix("_ms")]
    assert summary == {"p50": 0.0, "p95": 0.0, "total": 0.0, "n": len(lines)}
    assert all(math.copysign(1, summary[k]) == 1 for k in ("p50", "p95", "total"))


def _zipped(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("run.jsonl", data)
    return buffer.getvalue()


# each packer, what the refusal calls the file and how it says to unpack it
PACKED = {
    "gzip": (gzip.compress, "gzip-compressed", "gunzip -k FILE.gz"),
    "bzip2": (bz2.compress, "bzip2-compressed", "bunzip2 -k FILE.bz2"),
    "xz": (lzma.compress, "xz-compressed", "unxz -k FILE.xz"),
    "zstd": (lambda data: b"\x28\xb5\x2f\xfd\x20\x00" + data, "zstd-compressed", "unzstd FILE.zst"),
    "zip": (_zipped, "a zip archive", "unzip FILE.zip"),
}


@pytest.mark.parametrize("packer", list(PACKED))
def test_a_compressed_input_is_named_so(score_ws: Path, cli, packer: str) -> None:  # type: ignore[no-untyped-def]
    """A compressed run or TREC file was refused for a NUL byte ("remove the byte or
    restore the file from git") or a byte that is not UTF-8: neither says to unpack it."""
    pack, kind, unpack = PACKED[packer]
    (score_ws / "run.jsonl").write_bytes(pack(GOOD.encode()))
    (score_ws / "q").write_bytes(pack(b"1 0 a 1\n"))
    (score_ws / "r").write_text("1 Q0 a 1 1 x\n")
    runs = (
        ("run.jsonl", "a run file", ("score", "retrieval", "docs", "run.jsonl", "-o", "o.json")),
        ("q", "a TREC qrels file", ("score", "retrieval", "--qrels", "q", "--run", "r")),
    )
    for name, what, args in runs:
        done = cli(score_ws, *args)
        assert (done.code, done.out) == (2, "")
        assert done.err == (
            f"evalset: {name}: is {kind}, but {what} must be UTF-8 text; unpack it first (for "
            f"example `{unpack}`).\n"
        )
    assert not (score_ws / "o.json").exists()


def test_a_text_that_starts_as_bzip2_does_is_read(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (score_ws / "q").write_text("BZh9 0 a 1\n")
    (score_ws / "r").write_text("BZh9 Q0 a 1 1 x\n")
    done = cli(score_ws, "score", "retrieval", "--qrels", "q", "--run", "r", "--json")
    assert done.code == 0 and json.loads(done.out)["all"]["map"] == 1.0
