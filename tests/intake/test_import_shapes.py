"""Labels of the wrong shape in a file to import. Each of these was imported with the label
dropped or misread, exit 0: a LangSmith must_not_say given as one text vanished, an
``answerable: "false"`` in quotes left the item answerable, tags with a number in them were
all lost, a CSV header naming ``question`` twice took the second column. Each is refused in
one sentence naming the line, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalset.sets.setfile import load_set

QUESTION = "How long do I have to return a damaged kettle?"
GOOD_LINE = {"inputs": {"question": "Do you ship to Iceland?"}}


def example(outputs: dict[str, Any] | None = None, key: str = "outputs", **metadata: Any) -> str:
    found = {"inputs": {"question": QUESTION}, key: outputs or {}, "metadata": metadata}
    return json.dumps(found) + "\n"


CONTEXT = "Our warehouse ships to all EU countries within five working days."


def asked(**inputs: Any) -> str:
    return json.dumps({"inputs": inputs, "outputs": {"answer": "yes"}}) + "\n"


def sample(**fields: Any) -> str:
    return json.dumps({"user_input": QUESTION, "reference": "30 days", **fields}) + "\n"


REFUSED = [
    ("langsmith", example({"must_not_say": "14 days"}),
     'has outputs.must_not_say "14 days", not a list; write a JSON list such as ["a", "b"]'),
    ("langsmith", example({"expected_sources": "returns.md"}, key="reference_outputs"),
     'has reference_outputs.expected_sources "returns.md", not a list; write a JSON list such '
     'as ["a", "b"]'),
    ("langsmith", example({"key_points": "30 days"}),
     'has outputs.key_points "30 days", not a list; write a JSON list such as ["a", "b"]'),
    ("langsmith", example({"key_points": ["30 days", 30]}),
     'has outputs.key_points[1] 30; write a text, or an object such as {"text": "…", '
     '"sources": ["doc"]}'),
    ("langsmith", example({"key_points": [{"txt": "30 days"}]}),
     'has outputs.key_points[0] {"txt": "30 days"}; write a text, or an object such as '
     '{"text": "…", "sources": ["doc"]}'),
    ("langsmith", example({"answerable": "false"}),
     'has outputs.answerable "false"; write true or false (not in quotes), or leave it out'),
    ("langsmith", example({"answerable": "true"}),
     'has outputs.answerable "true"; write true or false (not in quotes), or leave it out'),
    ("langsmith", example({"answer": 30}), "has outputs.answer 30, not a text"),
    ("langsmith", example(tags="returns"),
     'has metadata.tags "returns", not a list; write a JSON list such as ["a", "b"]'),
    ("langsmith", example(category=7), "has metadata.category 7, not a text"),
    # a question of another shape: the other text input (a context, a chat history) was
    # taken for the question instead
    ("langsmith", asked(question={"text": "Do you ship to Norway?"}, context=CONTEXT),
     'has inputs.question {"text": "Do you ship to Norway?"}, not a text; write the question '
     "as one text"),
    ("langsmith", asked(question=None, chat_history=CONTEXT),
     "has inputs.question null, not a text; write the question as one text"),
    ("langsmith", asked(question=["Do you ship", "to Norway?"], context=CONTEXT),
     'has inputs.question ["Do you ship", "to Norway?"], not a text; write the question as one '
     "text"),
    ("langsmith", asked(question=7), "has inputs.question 7, not a text; write the question as "
     "one text"),
    ("langsmith", asked(query="Do you ship?", context=CONTEXT), "has no inputs.question text"),
    ("ragas", sample(answerable="false"),
     'has answerable "false"; write true or false (not in quotes), or leave it out'),
    ("ragas", sample(reference_context_ids="returns.md"),
     'has reference_context_ids "returns.md", not a list; write a JSON list such as ["a", "b"]'),
    ("ragas", sample(category=5), "has category 5, not a text"),
    ("ragas", sample(category=["direct-lookup"]), 'has category ["direct-lookup"], not a text'),
    ("ragas", sample(evalset_id=17), "has evalset_id 17, not a text"),
    ("ragas", sample(reference=["Open 9 to 5.", "Closed Sundays."]),
     'has reference ["Open 9 to 5.", "Closed Sundays."], not a text; write the reference '
     "answer as one text"),
    ("ragas", sample(reference=30), "has reference 30, not a text; write the reference answer "
     "as one text"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "row", "problem"), REFUSED)
def test_a_label_of_the_wrong_shape_is_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fmt: str, row: str, problem: str
) -> None:
    good = json.dumps(GOOD_LINE if fmt == "langsmith" else {"user_input": "Do you ship?"})
    (corpus_repo / "rows.jsonl").write_text(good + "\n" + row, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", fmt)
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.jsonl:2: the row {problem}; fix it ({fmt} format) and "
                        "import again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


@pytest.mark.parametrize(
    ("fmt", "row", "problem"),
    [
        ("langsmith", example(tags=["returns", 7]), "tags[1]: "),
        ("langsmith", example({"must_not_say": ["14 days", None]}), "must_not_say[1]: "),
        ("ragas", sample(reference_context_ids=["returns.md", 5]), "expected_sources[1]: "),
    ],
)
def test_a_list_with_an_entry_of_the_wrong_type_is_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fmt: str, row: str, problem: str
) -> None:
    good = json.dumps(GOOD_LINE if fmt == "langsmith" else {"user_input": "Do you ship?"})
    (corpus_repo / "rows.jsonl").write_text(good + "\n" + row, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", fmt)
    assert done.code == 2, done.out
    assert done.err.startswith(f"evalset: rows.jsonl:2: {problem}")
    assert len(done.err.splitlines()) == 1
    assert not (corpus_repo / "sets" / "s.yaml").exists()


@pytest.mark.parametrize("column", ["question", "category", "split", "key_points"])
def test_a_csv_header_naming_a_column_twice_is_refused(cli, corpus_repo: Path, column: str) -> None:  # type: ignore[no-untyped-def]
    header = ["question", "category", "split", "key_points", column]
    rows = f"{','.join(header)}\nWhat is the return window?,direct-lookup,tuning,[],x\n"
    (corpus_repo / "dup.csv").write_text(("sep=,\n" if column == "split" else "") + rows)
    done = cli(corpus_repo, "import", "dup.csv", "--set", "s", "--format", "csv")
    assert done.code == 2, done.out
    line = 2 if column == "split" else 1
    assert done.err == (f"evalset: dup.csv:{line}: the row (the header) names the column "
                        f"{column!r} twice; keep one; fix it (csv format) and import again "
                        "(nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


# CSV columns no import reads: a misspelt label column would drop the label without a word
# (the same typo in a JSONL row is refused). (header, the message's column and hint)
UNREAD_COLUMNS = {
    "trailing-space": ("question,must_not_say ", "'must_not_say '", "did you mean 'must_not_say'?"),
    "capitalised": ("question,Answer", "'Answer'", "did you mean 'answer'?"),
    "misspelt": ("question,key_point", "'key_point'", "did you mean 'key_points'?"),
    "another-tool's": ("question,reviewer", "'reviewer'", "rename it, or remove the column"),
}  # fmt: skip


@pytest.mark.parametrize(("header", "column", "hint"), UNREAD_COLUMNS.values(),
                         ids=UNREAD_COLUMNS.keys())  # fmt: skip
def test_a_csv_column_import_does_not_read_is_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, header: str, column: str, hint: str
) -> None:
    (corpus_repo / "rows.csv").write_text(f"{header}\nWhat is the return window?,x\n")
    done = cli(corpus_repo, "import", "rows.csv", "--set", "s", "--format", "csv")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.csv:1: the row (the header) has the column {column}, "
                        f"which import does not read ({hint}); fix it (csv format) and import "
                        "again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


def test_a_csv_column_with_no_name_may_only_be_empty(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    """A spreadsheet writes empty columns after the last one (`a,b,,`): read as nothing; a
    value in one is refused."""
    (corpus_repo / "rows.csv").write_text("question,,\nWhat is the return window?,,\n")
    done = cli(corpus_repo, "import", "rows.csv", "--set", "s", "--format", "csv", "--dry-run")
    assert done.code == 0, done.err
    (corpus_repo / "rows.csv").write_text("question,,\nWhat is the return window?,,x\n")
    done = cli(corpus_repo, "import", "rows.csv", "--set", "s", "--format", "csv")
    assert done.code == 2 and "rows.csv:2: the row has a value in a column with no name" in (
        done.err
    )


def test_a_langsmith_example_without_a_question_key_asks_its_only_text_input(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path
) -> None:
    (corpus_repo / "rows.jsonl").write_text(asked(query=QUESTION, top_k=3), "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "langsmith")
    assert done.code == 0, done.err
    assert [i.question for i in load_set(corpus_repo / "sets" / "s.yaml").items] == [QUESTION]


STATES_NOTHING = "holds only white space, which states nothing; write the text or remove it"
BLANK_LABELS = [
    ("jsonl", json.dumps({"question": QUESTION, "answer": " "}), "answer"),
    ("jsonl", json.dumps({"question": QUESTION, "key_points": [{"text": "\u3000"}]}),
     "key_points[0].text"),
    ("jsonl", json.dumps({"question": QUESTION, "must_not_say": ["x", "\u2028"]}),
     "must_not_say[1]"),
    ("csv", f'question,must_not_say\n{QUESTION},"[""\\t""]"', "must_not_say[0]"),
    ("csv", f"question,answer\n{QUESTION},\" \"", "answer"),
    ("csv", f'question,key_points\n{QUESTION},"[""\\n""]"', "key_points[0].text"),
    ("langsmith", example({"key_points": ["x", " "]}, key="reference_outputs"),
     "key_points[1].text"),
    ("langsmith", example({"key_points": ["x"], "must_not_say": ["\x85"]}), "must_not_say[0]"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "rows", "field"), BLANK_LABELS)
def test_a_label_of_white_space_only_is_refused(  # type: ignore[no-untyped-def]
    cli, example: Path, fmt: str, rows: str, field: str
) -> None:
    """Before, such a label came in (an item with it active), and every export checked
    answers against nothing: a Ragas reference ".", promptfoo's `icontains " "`."""
    (example / "rows.txt").write_text(rows.rstrip("\n") + "\n", "utf-8")
    path = example / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    done = cli(example, "import", "rows.txt", "--set", "acme-support", "--format", fmt)
    line = 2 if fmt == "csv" else 1
    assert (done.code, done.err) == (2, (
        f"evalset: rows.txt:{line}: {field}: {STATES_NOTHING}; fix the row, nothing was "
        "imported.\n"
    )), done.out  # fmt: skip
    assert path.read_bytes() == before


@pytest.mark.parametrize("key", ["output", "answer"])
def test_a_langsmith_reference_of_white_space_only_is_no_reference(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: str
) -> None:
    """A run that returned nothing (``"output": ""``) gives no reference answer: the example
    comes in as a draft to fill in. Read as a key point, it was refused naming
    ``key_points[0].text``, a field the row does not have."""
    row = {"inputs": {"question": QUESTION}, "outputs": {key: " "},
           "metadata": {"category": "out-of-scope"}}  # fmt: skip
    (corpus_repo / "rows.jsonl").write_text(json.dumps(row) + "\n", "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "langsmith")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "s.yaml").items
    assert (item.status, item.key_points, item.answer) == ("draft", [], None)


# A JSONL question that is there but is not a text was "the row has no question": a sentence
# that sends the reader looking for a missing key. (the question, the sentence's problem)
JSONL_QUESTIONS = {
    "number": (12345, "expected text, got a number (12345); quote it if it is meant as text"),
    "NaN": (float("nan"), "expected text, got a number (nan); quote it if it is meant as text"),
    "list": (["Do you", "ship?"], "expected text, got a list; write it as one text"),
    "object": ({"text": "Do you ship?"},
               "expected text, got a mapping; write the text itself in its place"),
    "holdout": (True, "expected text, got true/false (a holdout item: not shown); quote it if "
                "it is meant as text"),
}  # fmt: skip


# A JSONL id that is not a text was replaced by a hash of the question, exit 0, while the
# README says such an id is refused in every format (as Ragas's and LangSmith's are).
JSONL_IDS = {
    "number": (17, "expected text, got a number (17); quote it if it is meant as text"),
    "NaN": (float("nan"), "expected text, got a number (nan); quote it if it is meant as text"),
    "true": (True, "expected text, got true/false (true); quote it if it is meant as text"),
    "list": (["q-1"], "expected text, got a list; write it as one text"),
}  # fmt: skip


@pytest.mark.parametrize(("key", "value", "problem"),
                         [("question", *case) for case in JSONL_QUESTIONS.values()]
                         + [("id", *case) for case in JSONL_IDS.values()],
                         ids=[f"question {k}" for k in JSONL_QUESTIONS]
                         + [f"id {k}" for k in JSONL_IDS])  # fmt: skip
def test_a_jsonl_question_or_id_that_is_not_a_text_is_named_so(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: str, value: Any, problem: str
) -> None:
    row = {"question": "Do you ship to Malta?", key: value}
    if value is True and key == "question":
        row["holdout"] = True
    content = json.dumps({"question": "Do you ship?"}) + "\n" + json.dumps(row) + "\n"
    (corpus_repo / "rows.jsonl").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.jsonl:2: {key}: {problem}; fix the row, nothing was "
                        "imported.\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


ROW = {"id": "d-1", "question": "Do you ship to Malta?", "category": "lookup"}
# Two rows of one id and other content: the first was imported, the second reported as a
# conflict (exit 1) with advice to edit "the set's item", which the set did not have.
# (the file's format, its text, the second row's line, the fields that differ)
TWICE = {
    "jsonl": ("jsonl", json.dumps(ROW) + "\n" + json.dumps({**ROW, "category": "other"}) + "\n",
              2, "category"),
    "jsonl-apart": ("jsonl", json.dumps(ROW) + "\n" + json.dumps({"question": "Is it free?"})
                    + "\n\n" + json.dumps({**ROW, "question": "Do you ship to Gozo?"}) + "\n",
                    4, "question"),
    "csv": ("csv", "id,question,category\nd-1,Do you ship to Malta?,lookup\n"
            "d-1,Do you ship to Malta?,other\n", 3, "category"),
    "langsmith": ("langsmith", "".join(
        json.dumps({"inputs": {"question": q}, "metadata": {"evalset_id": "d-1"}}) + "\n"
        for q in ("Do you ship to Malta?", "Do you ship to Gozo?")), 2, "question"),
}  # fmt: skip


@pytest.mark.parametrize(("fmt", "content", "line", "differs"), TWICE.values(), ids=TWICE.keys())
def test_two_rows_of_one_id_and_other_content_are_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fmt: str, content: str, line: int, differs: str
) -> None:
    (corpus_repo / "rows.txt").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "rows.txt", "--set", "s", "--format", fmt)
    assert done.code == 2, done.out
    first = 2 if fmt == "csv" else 1
    assert done.err == (f"evalset: rows.txt:{line}: the row has the id d-1 of line {first}, with "
                        f"other content ({differs}); give one of them another id, or remove one "
                        "(nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


def test_two_rows_alike_are_one_row_given_twice(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    (corpus_repo / "rows.jsonl").write_text((json.dumps(ROW) + "\n") * 2, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    assert [i.id for i in load_set(corpus_repo / "sets" / "s.yaml").items] == ["d-1"]


# A retired row without every label an active item needs came in as a draft: an item its
# owner retired was listed among the drafts waiting for review, to be completed and scored.
# (the row's other fields, the status it keeps)
STATUSES = {
    "retired, no labels": ({"status": "retired"}, "retired"),
    "retired, no category": ({"status": "retired", "answerable": False}, "retired"),
    "retired, held out": ({"status": "retired", "holdout": True}, "retired"),
    "retired, complete": ({"status": "retired", "category": "lookup", "answerable": False},
                          "retired"),
    "active, no labels": ({"status": "active"}, "draft"),
    "no status, no labels": ({}, "draft"),
}  # fmt: skip


@pytest.mark.parametrize(("fields", "status"), STATUSES.values(), ids=STATUSES.keys())
def test_a_retired_row_stays_retired(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fields: dict[str, Any], status: str
) -> None:
    row = {"id": "r-1", "question": "Do you still sell kettles?", **fields}
    (corpus_repo / "rows.jsonl").write_text(json.dumps(row) + "\n", "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "s.yaml").items
    assert item.status == status
