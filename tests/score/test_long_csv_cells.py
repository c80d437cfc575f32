"""A CSV cell longer than Python's csv reader takes by default (131,072 characters), through
every command that reads CSV: `agreement` and `score answers --labels` (label files) and
`import --format csv`. Most often it is a quote left open in a large file, which takes every
later line into one cell; the strict reader stopped at the limit, and the lenient one that
looks for the open quote then stopped at it too, an internal error (exit 3) in place of the
sentence naming the line. A cell that long is read now (a set's own CSV export may hold one),
and what it holds is checked as any cell's."""

from __future__ import annotations

from pathlib import Path

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

LIMIT = 131_072
LINES = "".join(f"k1,answer {n} of a long file,claim {n},yes\n" for n in range(6000))
UNCLOSED = ("has an unclosed quote starting at line {}, so every line after it would be one "
            'cell; close it, or write a quote that is part of the text twice ("")')  # fmt: skip

# (label file, line named, problem); the same rows are turned into an import file below
CASES = {
    "quote left open, then a large file": (
        'id,answer,claim,label\nk1,a,b,yes\nk1,"open,b,yes\n' + LINES, 3, UNCLOSED.format(3)),
    "quote left open in the header": ('id,"answer,claim,label\n' + LINES, 1, UNCLOSED.format(1)),
    "quote left open after a quoted cell over lines": (
        'id,answer,claim,label\nk1,a,b,yes\nk1,"two\nlines","open,yes\n' + LINES, 3,
        UNCLOSED.format(4)),
    "semicolons and a separator line": (
        'sep=;\nid;answer;claim;label\nk1;"open;b;yes\n' + LINES.replace(",", ";"), 3,
        UNCLOSED.format(3)),
}  # fmt: skip


# cells past csv's default limit, with the line of their row: read, as any cell
LONG = {
    "a quoted cell past the limit": (
        f'id,answer,claim,label\nk1,a,b,yes\nk1,"{"x" * (LIMIT + 1)}",b,yes\n', 3),
    "an unquoted cell past the limit": (
        f"id,answer,claim,label\nk1,{'x' * (LIMIT + 1)},b,yes\n", 2),
    "a quote doubled inside a cell past the limit": (
        f'id,answer,claim,label\nk1,"{"x" * LIMIT}""y",b,yes\n', 2),
}  # fmt: skip


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    return make_answers_ws(tmp_path / "repo")


@pytest.mark.parametrize(("text", "line", "problem"), CASES.values(), ids=CASES.keys())
def test_a_label_file_with_a_cell_past_the_limit_is_one_sentence(  # type: ignore[no-untyped-def]
    qa: Path, cli, text: str, line: int, problem: str
) -> None:
    (qa / "labels.csv").write_text(text, encoding="utf-8")
    expected = f"evalset: labels.csv:{line}: {problem}.\n"
    done = cli(qa, "agreement", "labels.csv", "--judge", "exact", "--set", "qa")
    assert (done.code, done.err) == (2, expected)
    run = write_run(qa / "run.jsonl", ANSWERS)
    scored = cli(qa, "score", "answers", "qa", str(run), "--judge", "exact", "--labels",
                 "labels.csv", "-o", "reports/r.json")  # fmt: skip
    assert (scored.code, scored.err) == (2, expected)
    assert not (qa / "reports" / "r.json").exists()


@pytest.mark.parametrize(("text", "line", "problem"), CASES.values(), ids=CASES.keys())
def test_an_import_file_with_a_cell_past_the_limit_is_one_sentence(  # type: ignore[no-untyped-def]
    qa: Path, cli, text: str, line: int, problem: str
) -> None:
    # the label file's columns, renamed to an import file's: the same cells, the same lines
    text = text.replace("id,answer,claim,label", "id,question,category,answerable", 1)
    text = text.replace("id;answer;claim;label", "id;question;category;answerable", 1)
    text = text.replace(",yes\n", ",true\n").replace(";yes\n", ";true\n")
    (qa / "old.csv").write_text(text, encoding="utf-8")
    before = sorted(p.name for p in (qa / "sets").iterdir())
    done = cli(qa, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: old.csv:{line}: the row {problem}; fix it (csv format) and "
                        "import again (nothing was imported).\n")  # fmt: skip
    assert sorted(p.name for p in (qa / "sets").iterdir()) == before


@pytest.mark.parametrize(("text", "line"), LONG.values(), ids=LONG.keys())
def test_a_cell_past_csv_s_default_limit_is_read_as_any_cell(  # type: ignore[no-untyped-def]
    qa: Path, cli, text: str, line: int
) -> None:
    """A label's long answer is a label like any other; an import's question that long is
    refused by the question's own limit, with its line."""
    (qa / "labels.csv").write_text(text, encoding="utf-8")
    done = cli(qa, "agreement", "labels.csv", "--judge", "exact", "--set", "qa")
    assert done.code == 0, done.err
    text = text.replace("id,answer,claim,label", "id,question,category,answerable", 1)
    (qa / "old.csv").write_text(text.replace(",yes\n", ",true\n"), encoding="utf-8")
    done = cli(qa, "import", "old.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2, done.out
    assert done.err.startswith(f"evalset: old.csv:{line}: question: is 131,07"), done.err
    assert "the limit is 20,000; shorten it; fix the row, nothing was imported." in done.err
