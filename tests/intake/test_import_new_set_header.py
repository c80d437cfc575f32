"""The header an import writes when it creates a set. The file name and the pin's category
names and meanings are the user's text: written into YAML by string formatting, `null`
became no name at all and `results: v2.jsonl` made the new file unreadable, with an error
pointing into a set file that was never written. Dumped by the YAML library, every one reads
back as it was; a name no set can declare is refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalset.sets.setfile import load_set

QUESTION = "Is shipping free over fifty euros?"

NAMES = ["results: v2.jsonl", "data #1.jsonl", "two\nlines.jsonl", "- x.jsonl", "q'\"b.jsonl",
         "para\u2028sep.jsonl", "next\x85line.jsonl", "über {a}, [b] & *c.jsonl"]  # fmt: skip
CATEGORIES = {"null": "", "True": "yes", "1": "a: b", "1e3": "# not a comment", ".nan": "- x",
              "-": "line\u2028break", "...": "'quoted'", "on": "\"double\"", "0x10": "tab\there",
              "a.b_c-d": "\\ back"}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_a_new_set_header_reads_back_as_written(cli, corpus_repo: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    row = {"question": QUESTION, "category": "null", "evalset": {"categories": CATEGORIES}}
    (corpus_repo / name).write_text(json.dumps(row) + "\n", "utf-8")
    done = cli(corpus_repo, "import", f"./{name}", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    loaded = load_set(corpus_repo / "sets" / "s.yaml")
    assert loaded.header is not None and not loaded.schema_findings
    # the meanings as the pin has them, an empty one too (it was given a placeholder)
    assert loaded.header.categories == CATEGORIES
    assert loaded.header.description == (
        f"Imported from {name}; say what the system under test does"
    )
    report = json.loads(cli(corpus_repo, "validate", "s", "--json").out)
    assert report["errors"] == 0, report["findings"]


@pytest.mark.parametrize(
    ("category", "shown"),
    [("über", "'über'"), ("", "''"), ("a #b", "'a #b'"), ("x y", "'x y'"), ("a/b", "'a/b'"),
     ("x" * 201, repr("x" * 57) + "...")],
)  # fmt: skip
def test_a_category_name_no_set_can_declare_is_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, category: str, shown: str
) -> None:
    good = {"question": "Do you ship to Iceland?"}
    row = {"question": QUESTION, "evalset": {"categories": {"general": "g", category: "m"}}}
    (corpus_repo / "rows.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n")
    for args in ([], ["--dry-run"]):
        done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl", *args)
        assert done.code == 2, done.out
        assert done.err == (
            f'evalset: rows.jsonl:2: the pin ("evalset") declares the category {shown}, which is '
            "not a name a set can declare (letters, digits, '.', '_' and '-'); rename it, or "
            "leave the pin out (nothing was imported).\n"
        )
        assert not (corpus_repo / "sets" / "s.yaml").exists()


# --set NAME for a set not in the workspace: a name close to an existing set's is taken for a
# typo (refused, nothing written, unless --create); any other name creates the set.
SET_NAMES = {
    "a typo of an existing set": ("acme-suport", ["--format", "jsonl"], 2),
    "a typo, with --dry-run": ("acme-suport", ["--format", "jsonl", "--dry-run"], 2),
    "a typo, with --create": ("acme-suport", ["--format", "jsonl", "--create"], 0),
    "another name": ("legacy", ["--format", "jsonl"], 0),
    "the existing set's name": ("acme-support", ["--format", "jsonl"], 0),
}


@pytest.mark.parametrize(("name", "args", "code"), SET_NAMES.values(), ids=SET_NAMES.keys())
def test_a_set_name_like_an_existing_one_is_refused_unless_create(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, name: str, args: list[str], code: int
) -> None:
    first = {"question": "Do you ship to Iceland?", "category": "general"}
    (corpus_repo / "first.jsonl").write_text(json.dumps(first) + "\n", "utf-8")
    made = cli(corpus_repo, "import", "first.jsonl", "--set", "acme-support", "--format", "jsonl")
    assert made.code == 0, made.err
    (corpus_repo / "rows.jsonl").write_text(json.dumps({"question": QUESTION}) + "\n", "utf-8")
    before = sorted(p.name for p in (corpus_repo / "sets").iterdir())
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", name, *args)
    assert done.code == code, done.err
    after = sorted(p.name for p in (corpus_repo / "sets").iterdir())
    if code == 2:
        assert done.err == (
            "evalset: sets: has no set named 'acme-suport' (did you mean 'acme-support'?); give "
            "the set's name, or pass --create to start a new set named 'acme-suport'.\n"
        )
        assert after == before
    elif "--dry-run" not in args:
        assert f"{name}.yaml" in after


def test_a_category_no_pin_describes_is_declared_to_be_described(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    (corpus_repo / "rows.csv").write_text(f"question,category\n{QUESTION},shipping\n", "utf-8")
    done = cli(corpus_repo, "import", "rows.csv", "--set", "s", "--format", "csv")
    assert done.code == 0, done.err
    loaded = load_set(corpus_repo / "sets" / "s.yaml")
    assert loaded.header is not None
    assert loaded.header.categories == {"shipping": "imported; say what this kind of question is"}


@pytest.mark.parametrize("char", ["\t", "\r", "\x01", "\x85", "\u2028", "\ufeff"],
                         ids=["tab", "CR", "SOH", "NEL", "LS", "BOM"])  # fmt: skip
def test_a_long_meaning_with_an_escape_where_a_line_would_fold_reads_back(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, char: str
) -> None:
    """Meanings of 4,000 to 10,000 characters with an escaped character at each place
    around the 4096th column, after words and after a run without spaces. Before, the header
    was written folded at 4096 columns, and a fold right after the escape read back as a
    space."""
    meanings = {}
    for at in range(4060, 4100):
        run = "w" * at if at % 4 == 0 else ("word " * at)[:at]
        meanings[f"c{at}"] = f"{run}{char}more{' words' * 1000}"[: at + 20 + (at % 7) * 1000]
    row = {"question": QUESTION, "category": "c4060", "evalset": {"categories": meanings}}
    (corpus_repo / "rows.jsonl").write_text(json.dumps(row) + "\n", "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    loaded = load_set(corpus_repo / "sets" / "s.yaml")
    assert loaded.header is not None and loaded.header.categories == meanings
