"""CSV rows as the file holds them: a quote left open, or one inside a quoted cell, is
refused where it is (the lenient reading took every later line into one cell, or dropped the
quote from the text, and imported what was left), and a row whose quoted cell spans lines
is named by the line it starts on, where a person looks for it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evalset.sets.setfile import load_set

HEADER = "id,category,question,answerable\n"
GOOD = "q-0,lookup,Is shipping free over fifty euros?,true\n"
UNCLOSED = ('has an unclosed quote starting at line {}, so every line after it would be one '
            'cell; close it, or write a quote that is part of the text twice ("")')  # fmt: skip
INSIDE = 'has a quote inside a quoted cell that does not end it; write a quote that is part ' \
         'of the text twice ("")'  # fmt: skip

REFUSED = [
    # the quote of the last column opens, and the rows after it were its text
    (HEADER + GOOD + 'q-1,lookup,"Can I return a damaged kettle,true\nq-2,lookup,Do you ship?,'
     "true\nq-3,lookup,How long do refunds take?,true\n", 3, UNCLOSED.format(3)),
    # a quote opened in the middle column: the row came out one cell short, named by its end
    (HEADER + GOOD + 'q-1,lookup,"Can I return it,true\nq-2,lookup,x,true\n', 3,
     UNCLOSED.format(3)),
    # the last line, without a line break at the end
    (HEADER + GOOD + 'q-1,lookup,Can I return it,"true', 3, UNCLOSED.format(3)),
    # a row whose first cell spans lines, and then a quote that never closes
    (HEADER + GOOD + 'q-1,lookup,"Can I\nreturn it?","true\n\nq-2,lookup,x,true\n', 3,
     UNCLOSED.format(4)),
    # CRLF line ends and Excel's separator line
    ("sep=;\r\n" + HEADER.replace(",", ";").replace("\n", "\r\n") + 'q-1;lookup;"Can I;true\r\n'
     "q-2;lookup;x;true\r\n", 3, UNCLOSED.format(3)),
    # a quote inside a quoted cell: the text lost it without a word
    (HEADER + GOOD + 'q-1,lookup,"Can I return a "damaged" kettle?",true\n', 3, INSIDE),
    (HEADER + GOOD + 'q-1,lookup,"Can I\nreturn a "damaged" kettle?",true\n', 4, INSIDE),
    # errors of a row that spans lines name the line it starts on
    (HEADER + GOOD + 'q-1,lookup,"Can I\nreturn\na kettle?",maybe\n', 3,
     "has answerable 'maybe'; write true or false, or leave it empty"),
    (HEADER + GOOD + '\nq-1,lookup,"Can I\nreturn\na kettle?"\n', 4,
     "has 3 field(s), the header 4; quote fields that hold a comma (the separator)"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "line", "problem"), REFUSED)
def test_a_quote_that_would_swallow_or_lose_text_is_refused_where_it_is(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, content: str, line: int, problem: str
) -> None:
    (corpus_repo / "old.csv").write_bytes(content.encode())
    done = cli(corpus_repo, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: old.csv:{line}: the row {problem}; fix it (csv format) and "
                        "import again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "legacy.yaml").exists()


def test_quotes_written_as_the_format_says_are_read_as_text(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    content = (HEADER + '\nq-1,lookup,"Can I return a ""damaged""\nkettle, or not?",true\n\n'
               'q-2,lookup,Is "free" shipping free?,true\n')  # fmt: skip
    (corpus_repo / "old.csv").write_text(content)
    done = cli(corpus_repo, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 0, done.err
    questions = [i.question for i in load_set(corpus_repo / "sets" / "legacy.yaml").items]
    assert questions == ['Can I return a "damaged"\nkettle, or not?', 'Is "free" shipping free?']


# A file whose question holds more of another separator than the header holds of its own:
# (the separator line, the separator, the question). With bare CR line ends (Excel's "CSV
# (Macintosh)") the separator was counted over the whole file, so the question's won.
SEPARATED = {
    "comma": ("", ",", "What; colour; are; the; vans; today?"),
    "semicolon": ("", ";", "What, colour, are, the, vans, today?"),
    "tab": ("", "\t", "What; colour; are; the; vans; today?"),
    "sep-line": ("sep=;", ";", "What, colour, are, the, vans, today?"),
}
LINE_ENDS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


@pytest.mark.parametrize("end", LINE_ENDS.values(), ids=LINE_ENDS.keys())
@pytest.mark.parametrize(("first", "sep", "question"), SEPARATED.values(), ids=SEPARATED.keys())
def test_the_separator_is_the_header_lines_whatever_the_line_end(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, first: str, sep: str, question: str, end: str
) -> None:
    lines = [sep.join(["id", "question", "category"]), sep.join(["m-1", f'"{question}"', "lookup"])]
    content = end.join([first, *lines] if first else lines) + end
    (corpus_repo / "old.csv").write_bytes(content.encode())
    done = cli(corpus_repo, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "legacy.yaml").items
    assert (item.id, item.question, item.category) == ("m-1", question, "lookup")


def _cell(values: list[str]) -> str:
    """A list column as the export writes it: a JSON array, quoted."""
    return '"' + json.dumps(values).replace('"', '""') + '"'


LONG = [f"Point {k}: " + "words " * 3300 for k in range(8)]  # ~20,000 characters each
# Cells longer than csv's default limit (131,072 characters), which a valid item's list
# columns reach: the file was refused as "not valid CSV (field larger than field limit)",
# naming no line, so a set's own CSV export of such an item could not be imported back.
# (the columns, the row's cells, what the item holds)
LONG_CELLS = {
    "key points": ("id,question,key_points", f"l-1,Which points?,{_cell(LONG)}",
                   {"key_points": LONG}),
    "must_not_say": ("id,question,answerable,must_not_say",
                     f"l-1,Which points?,false,{_cell(LONG)}", {"must_not_say": LONG}),
    "semicolons": ("sep=;\nid;question;key_points", f"l-1;Which points?;{_cell(LONG)}",
                   {"key_points": LONG}),
}  # fmt: skip


@pytest.mark.parametrize(("header", "cells", "held"), LONG_CELLS.values(), ids=LONG_CELLS.keys())
def test_a_cell_longer_than_csvs_default_limit_is_read_whole(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, header: str, cells: str, held: dict[str, list[str]]
) -> None:
    (corpus_repo / "old.csv").write_text(f"{header}\n{cells}\n", "utf-8")
    done = cli(corpus_repo, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "legacy.yaml").items
    found = {"key_points": [p.text for p in item.key_points], "must_not_say": item.must_not_say}
    assert {key: found[key] for key in held} == held
    assert csv.field_size_limit() == 131072  # put back: the limit is the whole process's


def test_a_question_longer_than_csvs_default_limit_is_named_by_its_line(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path
) -> None:
    content = f"id,question\nl-1,Do you ship?\nl-2,{'why ' * 50_000}\n"
    (corpus_repo / "old.csv").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2, done.out
    assert done.err == ("evalset: old.csv:3: question: is 200,000 characters long; the limit is "
                        "20,000; shorten it; fix the row, nothing was imported.\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "legacy.yaml").exists()
