"""CSV files as spreadsheets save them: separated by a semicolon (Excel in most European
locales, where the comma is the decimal mark), by a tab, with Excel's first line ``sep=;``
naming the separator, with a byte-order mark and CRLF line ends. Each reader of CSV (`evalset
import --format csv` and the label files of `evalset agreement`) reads every one of them as
it reads the comma-separated file, and names the lines of the file as they are."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from answers_ws import make_answers_ws
from test_agreement import LABELS

from conftest import ROOT

OLD_SET = (ROOT / "examples" / "imports" / "old-set.csv").read_text("utf-8")


def saved_as(text: str, dialect: str) -> bytes:
    """The comma-separated ``text`` as a spreadsheet saves it in ``dialect``."""
    rows = list(csv.reader(io.StringIO(text)))
    separator = "," if dialect.startswith("comma") else "\t" if dialect == "tab" else ";"
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator="\r\n").writerows(rows)
    saved = out.getvalue()
    if dialect == "excel sep line":
        saved = "sep=;\r\n" + saved
    if dialect == "comma, sep line":
        saved = "sep=,\r\n" + saved
    data = saved.encode("utf-8")
    return b"\xef\xbb\xbf" + data if dialect == "semicolon, BOM" else data


DIALECTS = ["comma", "semicolon", "semicolon, BOM", "tab", "excel sep line", "comma, sep line"]


def _imported(repo: Path, cli, data: bytes) -> str:  # type: ignore[no-untyped-def]
    (repo / "old-set.csv").write_bytes(data)
    done = cli(repo, "import", "old-set.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 0, done.err
    text = (repo / "sets" / "legacy.yaml").read_text("utf-8")
    (repo / "sets" / "legacy.yaml").unlink()
    return text


@pytest.mark.parametrize("dialect", DIALECTS[1:])
def test_import_reads_a_spreadsheet_csv_as_the_comma_file(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    dialect: str,
) -> None:
    commas = _imported(corpus_repo, cli, OLD_SET.encode())
    assert "Gift cards are valid for three years" in commas
    assert _imported(corpus_repo, cli, saved_as(OLD_SET, dialect)) == commas


@pytest.mark.parametrize("dialect", DIALECTS)
def test_agreement_reads_a_spreadsheet_label_file_as_the_comma_file(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    dialect: str,
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "labels.csv").write_bytes(saved_as(LABELS, dialect))
    done = cli(repo, "agreement", "labels.csv", "--judge", "exact", "--set", "qa", "--json")
    assert done.code == 0, done.err
    found = json.loads(done.out)
    assert found["labels"]["rows"] == 7
    shift = 1 if "sep line" in dialect else 0  # the lines of the file, sep line counted
    assert [d["line"] for d in found["disagreements"]] == [3 + shift, 8 + shift]


@pytest.mark.parametrize(
    ("dialect", "where", "problem"),
    [
        ("semicolon", "labels.csv:2:", "quote fields that hold a semicolon (the separator)."),
        ("tab", "labels.csv:2:", "quote fields that hold a tab (the separator)."),
        ("excel sep line", "labels.csv:3:", "quote fields that hold a semicolon (the separator)."),
    ],
)
def test_a_short_row_names_its_line_and_the_separator(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    dialect: str,
    where: str,
    problem: str,
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "labels.csv").write_bytes(saved_as("id,answer,claim,label\nk1,a,b\n", dialect))
    done = cli(repo, "agreement", "labels.csv", "--judge", "exact", "--set", "qa")
    assert done.code == 2
    assert done.err.startswith(f"evalset: {where} has 3 field(s), the header 4; {problem}")


def test_an_import_error_names_the_line_of_the_file(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    data = saved_as(OLD_SET, "excel sep line").decode()
    broken = data.replace('[""Gift cards', "[Gift cards", 1).encode()
    (corpus_repo / "old-set.csv").write_bytes(broken)
    done = cli(corpus_repo, "import", "old-set.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2
    assert done.err.startswith(
        "evalset: old-set.csv:3: the row has a column 'key_points' that is not a JSON array"
    )


HEADER = "id,question,category,answerable,key_points,key_point_sources,split"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ('q-1,Question?,lookup,true,"[""a""]"', "has 5 field(s), the header 7; quote fields "
         "that hold a comma (the separator)"),
        ('q-1,Question?,lookup,true,"[""a""]","[[]]",tuning,extra', "has 8 field(s), the "
         "header 7; quote fields that hold a comma (the separator)"),
        ('q-1,Question?,lookup,maybe,"[""a""]","[[]]",tuning', "has answerable 'maybe'; write "
         "true or false, or leave it empty"),
        ('q-1,Question?,lookup,true,"[""a""]","[[]]",test', "has split 'test'; write tuning or "
         "holdout, or leave it empty"),
        ('q-1,Question?,lookup,true,"[""a"", ""b""]","[[]]",', "has 2 key point(s) but 1 "
         "list(s) of key_point_sources; give one list per key point ([] for none)"),
    ],
)  # fmt: skip
def test_a_row_that_would_shift_or_drop_values_is_refused(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    row: str,
    problem: str,
) -> None:
    """Each of these was imported before: a short row's cells shifted into the wrong
    columns, an extra cell was dropped, ``maybe`` or ``test`` read as nothing, a key point
    without its list of sources was lost."""
    (corpus_repo / "rows.csv").write_text(f"{HEADER}\nq-0,Fine?,lookup,,,,\n{row}\n")
    done = cli(corpus_repo, "import", "rows.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 2
    assert done.err == (f"evalset: rows.csv:3: the row {problem}; fix it (csv format) and "
                        "import again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "legacy.yaml").exists()


def test_a_spreadsheet_s_true_and_false_are_read_in_any_case(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Excel saves true and false as TRUE and FALSE."""
    rows = f"{HEADER}\nq-1,Kept?,lookup,FALSE,,,HOLDOUT\nq-2,Also?,lookup,TRUE,,,Tuning\n"
    (corpus_repo / "rows.csv").write_text(rows)
    done = cli(corpus_repo, "import", "rows.csv", "--set", "legacy", "--format", "csv")
    assert done.code == 0, done.err
    text = (corpus_repo / "sets" / "legacy.yaml").read_text()
    first, second = text.split("- id: q-1")[1].split("- id: q-2")
    assert "answerable: false" in first and "holdout: true" in first
    assert "answerable" not in second and "holdout: false" in second
