"""Keys a file to import holds that no reader takes. Read as nothing, a misspelt label
(``answr``, a key point's ``source``) would be dropped without a word; each is refused in
one sentence naming the line and the key, with the key it most likely misspells, as the CSV
import names a column it does not read. Nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

QUESTION = "How long is the standard return window at Acme?"


def row(**fields: Any) -> str:
    return json.dumps({"question": QUESTION, **fields}) + "\n"


# (the row, the key as the message names it, the hint)
JSONL_KEYS = {
    "misspelt": (row(answr="14 days"), "'answr'", "did you mean 'answer'?"),
    "singular": (row(expected_source=["r.md"]), "'expected_source'",
                 "did you mean 'expected_sources'?"),
    "capitalised": (row(Answer="14 days"), "'Answer'", "did you mean 'answer'?"),
    "spaced": (row(**{"must_not_say ": ["7 days"]}), "'must_not_say '",
               "did you mean 'must_not_say'?"),
    "split": (row(splt="holdout"), "'splt'", "did you mean 'split'?"),
    "in-a-key-point": (row(key_points=[{"text": "14 days", "source": ["r.md"]}]),
                       "'source' in key_points[0]", "did you mean 'sources'?"),
    "in-the-origin": (row(origin={"kind": "manual", "notes": "from the old sheet"}),
                      "'notes' in origin", "did you mean 'note'?"),
    "another-tool's": (row(reviewer="ana"), "'reviewer'", "rename it, or remove the key"),
    "personal-data": (row(**{"jane@example.com": "x"}), "'<EMAIL_1>'",
                      "rename it, or remove the key"),
}  # fmt: skip


@pytest.mark.parametrize(("content", "key", "hint"), JSONL_KEYS.values(), ids=JSONL_KEYS.keys())
def test_a_jsonl_key_import_does_not_read_is_refused_with_a_did_you_mean(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, content: str, key: str, hint: str
) -> None:
    (corpus_repo / "rows.jsonl").write_text(row() + content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.jsonl:2: the row has the key {key}, which import does "
                        f"not read ({hint}); fix it (jsonl format) and import again (nothing "
                        "was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()
