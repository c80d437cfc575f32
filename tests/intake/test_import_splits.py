"""Which side of the holdout an imported row lands on. Every reader takes a split as the
CSV reader does, in any case, and refuses a split it does not know, or two fields of one
row that name different sides: read as nothing, a held-out row came in unassigned, and
`split` then most likely put it in tuning, where the people tuning prompts see it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalset.sets.setfile import load_set

QUESTION = "Is shipping to Iceland free over fifty euros?"


def jsonl(**fields: Any) -> str:
    return json.dumps({"id": "h-1", "question": QUESTION, **fields}) + "\n"


def ragas(**fields: Any) -> str:
    return json.dumps({"evalset_id": "h-1", "user_input": QUESTION, **fields}) + "\n"


def langsmith(top: Any = None, **metadata: Any) -> str:
    """An example whose ``split`` is ``top`` (none when None), with ``metadata``."""
    example: dict[str, Any] = {"inputs": {"question": QUESTION}, "metadata": {"evalset_id": "h-1",
                               **metadata}}  # fmt: skip
    if top is not None:
        example["split"] = top
    return json.dumps(example) + "\n"


def csv(split: str) -> str:
    return f"id,question,split\nh-1,{QUESTION},{split}\n"


ACCEPTED = [
    ("jsonl", jsonl(split="Holdout"), True),
    ("jsonl", jsonl(split="HOLDOUT"), True),
    ("jsonl", jsonl(split=" holdout "), True),
    ("jsonl", jsonl(split="Tuning"), False),
    ("jsonl", jsonl(split="holdout", holdout=True), True),
    ("jsonl", jsonl(split=None, holdout=True), True),
    ("jsonl", jsonl(split=""), None),
    ("ragas", ragas(split="Holdout"), True),
    ("ragas", ragas(split="TUNING"), False),
    ("ragas", ragas(split=None), None),
    ("langsmith", langsmith("Holdout"), True),
    ("langsmith", langsmith(["HOLDOUT"]), True),
    ("langsmith", langsmith(None, split="Holdout"), True),
    ("langsmith", langsmith("holdout", split="HOLDOUT"), True),
    ("langsmith", langsmith([]), None),
    # LangSmith's own field, as Client.list_examples returns it (`base` is its default split)
    ("langsmith", langsmith(None, dataset_split=["holdout"]), True),
    ("langsmith", langsmith(None, dataset_split=["base", "Holdout"]), True),
    ("langsmith", langsmith(None, dataset_split=["tuning"]), False),
    ("langsmith", langsmith(None, dataset_split="holdout"), True),
    ("langsmith", langsmith(None, dataset_split=["base"]), None),
    ("langsmith", langsmith(None, dataset_split=["base"], split="holdout"), True),
    ("langsmith", langsmith("holdout", dataset_split=["holdout"]), True),
    ("csv", csv("Holdout"), True),
]


@pytest.mark.parametrize(("fmt", "content", "holdout"), ACCEPTED)
def test_a_split_in_any_case_lands_on_its_side(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fmt: str, content: str, holdout: bool | None
) -> None:
    (corpus_repo / "rows.txt").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "rows.txt", "--set", "s", "--format", fmt)
    assert done.code == 0, done.err
    [item] = load_set(corpus_repo / "sets" / "s.yaml").items
    assert item.holdout is holdout


ACCEPTS = "write tuning or holdout (in any case), or leave it out"
REFUSED = [
    ("jsonl", jsonl(split="test"), f'has split "test"; {ACCEPTS}'),
    ("jsonl", jsonl(split="hold out"), f'has split "hold out"; {ACCEPTS}'),
    ("jsonl", jsonl(split=True), f"has split true; {ACCEPTS}"),
    ("jsonl", jsonl(split=["holdout"]), f'has split ["holdout"]; {ACCEPTS}'),
    ("jsonl", jsonl(split="holdout", holdout=False),
     "has split saying holdout but holdout saying tuning; keep one of them"),
    ("jsonl", jsonl(split="holdout", holdout=None),
     "has split saying holdout but holdout saying unassigned; keep one of them"),
    ("jsonl", jsonl(split="Tuning", holdout=True),
     "has split saying tuning but holdout saying holdout; keep one of them"),
    ("ragas", ragas(split="test"), f'has split "test"; {ACCEPTS}'),
    ("ragas", ragas(split=1), f"has split 1; {ACCEPTS}"),
    ("langsmith", langsmith("test"), f'has split "test"; {ACCEPTS}'),
    ("langsmith", langsmith(["base", "holdout"]), f'has split "base"; {ACCEPTS}'),
    ("langsmith", langsmith(None, split="dev"), f'has metadata.split "dev"; {ACCEPTS}'),
    ("langsmith", langsmith(["tuning", "Holdout"]),
     "has split naming both tuning and holdout; keep one of them"),
    ("langsmith", langsmith("tuning", split="holdout"),
     "has split saying tuning but metadata.split saying holdout; keep one of them"),
    ("langsmith", langsmith(None, dataset_split=["test"]),
     f'has metadata.dataset_split "test"; {ACCEPTS}'),
    ("langsmith", langsmith(None, dataset_split=["base", "train"]),
     f'has metadata.dataset_split "train"; {ACCEPTS}'),
    ("langsmith", langsmith(None, dataset_split=["tuning", "holdout"]),
     "has metadata.dataset_split naming both tuning and holdout; keep one of them"),
    ("langsmith", langsmith("tuning", dataset_split=["holdout"]),
     "has split saying tuning but metadata.dataset_split saying holdout; keep one of them"),
    ("langsmith", langsmith(None, split="holdout", dataset_split=["base", "tuning"]),
     "has metadata.split saying holdout but metadata.dataset_split saying tuning; keep one "
     "of them"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "content", "problem"), REFUSED)
def test_an_unknown_or_contradicting_split_is_refused_and_nothing_written(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, fmt: str, content: str, problem: str
) -> None:
    good = {"jsonl": jsonl(), "ragas": ragas(), "langsmith": langsmith()}[fmt]
    (corpus_repo / "rows.txt").write_text(good.replace("h-1", "h-0").replace("Iceland", "Malta")
                                          + content, "utf-8")  # fmt: skip
    done = cli(corpus_repo, "import", "rows.txt", "--set", "s", "--format", fmt)
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.txt:2: the row {problem}; fix it ({fmt} format) and "
                        "import again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()
