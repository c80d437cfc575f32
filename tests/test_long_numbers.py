"""A number of more digits than Python turns into text or reads (4,300, its default limit)
in a set file, a run, a report, a file to promote or import, a qrels file or the
configuration. Before, each ended in an internal error (exit 3) from Python's ValueError:
a set file when a message named the value, a JSON file when it was read. Each reader now
says where the number is and what to do, in one sentence, with exit status 2."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

LIMIT = sys.get_int_max_str_digits()
LONG = "9" * (LIMIT + 700)
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RUN = "run.jsonl"
SET = "sets/acme-support.yaml"
QUESTION = "    question: How long do I have to return a damaged item?\n"

SET_SAYS = (
    "is a number too long to read (more than 4,300 digits); quote it if it is meant as text, "
    "or write a shorter number."
)
JSON_SAYS = (
    "is not JSON that can be read (a number too long, of more than 4,300 digits; write it in "
    "quotes, as text)"
)

# every command that reads the set file, as a user runs it
SET_READERS = {
    "validate": ("validate",),
    "validate FILE": ("validate", SET),
    "status": ("status",),
    "stale": ("stale",),
    "export": ("export", "acme-support", "--allow-stale", "--format", "jsonl"),
    "score retrieval": ("score", "retrieval", "acme-support", RUN, "--allow-stale"),
    "score answers": ("score", "answers", "acme-support", RUN, "--allow-stale", "--judge",
                      "exact"),
    "verify": ("verify", "acme-support", "q-002"),
    "new": ("new", "acme-support"),
    "retire": ("retire", "acme-support", "q-002", "--reason", "a duplicate"),
    "split": ("split", "acme-support"),
    "pin": ("pin", "acme-support"),
    "release": ("release", "acme-support", "--bump", "minor"),
}  # fmt: skip
# where in the set the number is: (the line's text, the column it starts at)
PLACES = {
    "a question": (f"    question: {LONG}\n", 15),
    "a negative one in a list": (f"    question: [returns, -{LONG}]\n", 25),
    "a hexadecimal one": (f"    question: 0x{'f' * LIMIT}\n", 15),
}


def _files(root: Path) -> dict[Path, bytes]:
    """The files of the workspace (not git's, nor evalset's caches and locks)."""
    return {
        p: p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not {".git", ".evalset"} & set(p.relative_to(root).parts)
    }


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("reader", SET_READERS)
def test_a_number_too_long_in_a_set_file_is_located(  # type: ignore[no-untyped-def]
    cli, example: Path, reader: str, place: str
) -> None:
    shutil.copy(EXAMPLES / "runs" / "acme-support-bm25.jsonl", example / RUN)
    path = example / SET
    text = path.read_text("utf-8")
    line, column = PLACES[place]
    assert text.count(QUESTION) == 1
    path.write_text(text.replace(QUESTION, line), "utf-8")
    at = text[: text.index(QUESTION)].count("\n") + 1 + line.count("\n", 0, column)
    before = _files(example)
    result = cli(example, *SET_READERS[reader])
    assert (result.code, result.out) == (2, ""), result.err[:300]
    assert result.err == f"evalset: {SET}:{at}:{column}: {SET_SAYS}\n"
    assert _files(example) == before


# every way YAML (as yaml-rs reads it) writes an integer too long: each is found where it starts
FORMS = {
    "digits parted by an underscore": f"{'1' * (LIMIT - 300)}_{'0' * 400}",
    "an underscore every hundred digits": "_".join(["1" + "0" * 99] * (LIMIT // 100 + 1)),
    "hexadecimal after an underscore": f"0x_{'f' * (LIMIT * 5 // 6)}",
    "hexadecimal parted by an underscore": f"0x{'f' * (LIMIT * 2 // 3)}_{'f' * 1000}",
    "upper-case hexadecimal": f"0X{'F' * (LIMIT * 5 // 6)}",
    "octal": f"0o{'7' * (LIMIT * 9 // 8)}",
    "upper-case octal": f"0O{'7' * (LIMIT * 9 // 8)}",
    "binary": f"0b{'1' * (LIMIT * 7 // 2)}",
    "signed hexadecimal": f"-0x{'f' * (LIMIT * 5 // 6)}",
}


@pytest.mark.parametrize("form", FORMS)
def test_a_number_too_long_is_located_however_it_is_written(  # type: ignore[no-untyped-def]
    cli, example: Path, form: str
) -> None:
    path = example / SET
    text = path.read_text("utf-8")
    path.write_text(text.replace(QUESTION, f"    question: {FORMS[form]}\n"), "utf-8")
    at = text[: text.index(QUESTION)].count("\n") + 1
    result = cli(example, "validate", SET)
    assert (result.code, result.out) == (2, ""), result.err[:300]
    assert result.err == f"evalset: {SET}:{at}:15: {SET_SAYS}\n"


@pytest.mark.parametrize(
    "number",
    [f"0x{'f' * (LIMIT * 5 // 6)}", f"0o{'7' * (LIMIT * 9 // 8)}", f"0b{'1' * (LIMIT * 7 // 2)}",
     f"0x{'f' * (LIMIT * 2 // 3)}_{'f' * 1000}", f"{'1' * LIMIT}_{'0' * 9}"],
    ids=["hexadecimal", "octal", "binary", "hexadecimal, an underscore", "decimal, an underscore"],
)  # fmt: skip
def test_a_number_too_long_in_the_configuration_is_located_in_any_base(  # type: ignore[no-untyped-def]
    cli, example: Path, number: str
) -> None:
    with (example / "evalset.toml").open("a", encoding="utf-8") as file:
        file.write(f"[validate]\nmin_per_category = {number}\n")
    result = cli(example, "validate")
    assert (result.code, result.out) == (2, ""), result.err[:300]
    assert result.err == (
        "evalset: evalset.toml:7:20: is a number too long to read (more than 4,300 digits); "
        "write a shorter number.\n"
    )


ROWS = {
    "promote JSONL": (("promote", "in.jsonl", "--set", "acme-support"),
                      '{"question": "Why?", "answer": NUMBER}\n',
                      "in.jsonl:1:32: the record " + JSON_SAYS),
    "promote a JSON array": (("promote", "in.json", "--set", "acme-support"),
                             '[{"question": "Why?",\n  "answer": NUMBER}]\n',
                             "in.json:2:13: " + JSON_SAYS),
    **{
        f"import --format {fmt}": (("import", "in.jsonl", "--set", "acme-support", "--format",
                                    fmt),
                                   '{"question": "Why?", "answer": NUMBER}\n',
                                   "in.jsonl:1:32: the row " + JSON_SAYS)
        for fmt in ("jsonl", "ragas", "langsmith")
    },
    "score retrieval, its run": (("score", "retrieval", "acme-support", "in.jsonl",
                                  "--allow-stale"),
                                 '{"id": "q-001", "retrieved": [], "trial": NUMBER}\n',
                                 "in.jsonl:1: is not JSON that can be read (column 43: a number "
                                 "too long, of more than 4,300 digits; write it in quotes, as "
                                 "text)"),
    "score answers, its run": (("score", "answers", "acme-support", "in.jsonl", "--allow-stale",
                                "--judge", "exact"),
                               '{"id": "q-001", "answer": NUMBER}\n',
                               "in.jsonl:1: is not JSON that can be read (column 27: a number "
                               "too long, of more than 4,300 digits; write it in quotes, as "
                               "text)"),
    "gate, a report": (("gate", "in.json"), '{"scores": NUMBER}', "in.json:1:12: " + JSON_SAYS),
    "accept, a report": (("accept", "in.json"), '{"scores": NUMBER}',
                         "in.json:1:12: " + JSON_SAYS),
    "check-pin, a report": (("check-pin", "in.json"), '{"scores": NUMBER}',
                            "in.json:1:12: " + JSON_SAYS),
    "the configuration": (("validate",), "[validate]\nmin_per_category = NUMBER\n",
                          "evalset.toml:7:20: is a number too long to read (more than 4,300 "
                          "digits); write a shorter number"),
}  # fmt: skip


@pytest.mark.parametrize("reader", ROWS)
def test_a_number_too_long_in_a_json_input_is_located(  # type: ignore[no-untyped-def]
    cli, example: Path, reader: str
) -> None:
    args, content, said = ROWS[reader]
    name = next((a for a in args if a.startswith("in.")), "evalset.toml")
    with (example / name).open("a", encoding="utf-8") as file:
        file.write(content.replace("NUMBER", LONG))
    before = _files(example)
    result = cli(example, *args)
    assert (result.code, result.out) == (2, ""), result.err[:300]
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evalset: {said}"), result.err[:300]
    assert _files(example) == before


def test_a_relevance_too_long_in_qrels_is_read_as_trec_eval_reads_it(tmp_path: Path) -> None:
    """trec_eval's atol() holds it at the largest C long; int() failed on it."""
    from evalset.score.trec import LONG as C_LONG
    from evalset.score.trec import read_qrels

    qrels = tmp_path / "qrels"
    qrels.write_text(f"q 0 a.md {LONG}\nq 0 b.md -{LONG}\nq 0 c.md 1\n")
    assert list(read_qrels(qrels).levels) == [C_LONG - 1, -C_LONG, 1]


def test_the_scan_for_long_runs_finds_what_a_regular_expression_finds() -> None:
    """The scan looks at every length-th character only (a regular expression went over a
    run of digits again from each of its positions: seconds for a file of long digit
    strings); it finds the same runs of what a number's text is made of."""
    import random
    import re

    from evalset.fsio import number_runs

    rng = random.Random(7)
    for _ in range(2000):
        length = rng.randint(1, 40)
        text = "".join(
            rng.choice("0123456789") if rng.random() < 0.7 else rng.choice("abxO_ -\ngz:")
            for _ in range(rng.randint(0, 400))
        )
        expected = [m.span() for m in re.finditer(f"[0-9a-fA-FoOxX_]{{{length},}}", text)]
        assert number_runs(text, length) == expected, (text, length)
