"""Keys a file to import holds that no reader takes. Read as nothing, a misspelt label
(``answr``, a key point's ``source``) would be dropped without a word; each is refused in
one sentence naming the line and the key, with the key it most likely misspells, as the CSV
import names a column it does not read. Nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalset.sets.setfile import load_set

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


def example(labels: dict[str, Any] | None = None, key: str = "reference_outputs",
            metadata: dict[str, Any] | None = None, **fields: Any) -> str:  # fmt: skip
    found = {"inputs": {"question": QUESTION}, key: labels or {}, "metadata": metadata or {}}
    return json.dumps({**found, **fields}) + "\n"


POINT = {"text": "Most items can be returned within 14 days", "sources": ["r.md"]}

# LangSmith examples whose labels were dropped without a word, exit 0: (the example, the
# sentence). Every key of the reference outputs and of a key point is evalset's; metadata and
# the example hold LangSmith's and the user's own keys too, so there only a near miss of a
# key import reads is refused.
LANGSMITH_KEYS = {
    "must_not_say": (example({"key_points": [POINT], "must_not_sya": ["7 days"]}),
                     "has the key 'must_not_sya' in reference_outputs, which import does not "
                     "read (did you mean 'must_not_say'?)"),
    "answer": (example({"answr": "14 days"}, key="outputs"), "has the key 'answr' in outputs, "
               "which import does not read (did you mean 'answer'?)"),
    "capitalised": (example({"Expected_Sources": ["r.md"]}), "has the key 'Expected_Sources' in "
                    "reference_outputs, which import does not read (did you mean "
                    "'expected_sources'?)"),
    "another-tool's": (example({"ground_truth": "14 days"}), "has the key 'ground_truth' in "
                       "reference_outputs, which import does not read (rename it, or remove "
                       "the key)"),
    "key-point": (example({"key_points": [POINT, {"text": "Refunds take 5 days", "source": []}]}),
                  "has the key 'source' in reference_outputs.key_points[1], which import does "
                  "not read (did you mean 'sources'?)"),
    "category": (example(metadata={"evalset_id": "ls-2", "catgory": "direct-lookup"}),
                 "has the key 'catgory' in metadata, which import does not read (did you mean "
                 "'category'?)"),
    "tags": (example(metadata={"tag": ["returns"]}), "has the key 'tag' in metadata, which "
             "import does not read (did you mean 'tags'?)"),
    # another case, or a plural: before, passed over once a key that ran on past one was
    # taken for the user's own (a "Split": "holdout" arrived with no side)
    **{f"metadata {key}": (example(metadata={key: "holdout"}), f"has the key '{key}' in "
                           f"metadata, which import does not read (did you mean '{meant}'?)")
       for key, meant in (("Category", "category"), ("Split", "split"), ("Tags", "tags"),
                          ("origins", "origin"), ("evalset_ids", "evalset_id"))},
    # two letters swapped: a short key so misspelt was less alike than NEAR, and passed over
    # (a "spilt": "holdout" arrived with no side)
    **{f"swapped {key}": (example(metadata={key: "holdout"}), f"has the key '{key}' in "
                          f"metadata, which import does not read (did you mean '{meant}'?)")
       for key, meant in (("spilt", "split"), ("tgas", "tags"), ("orgiin", "origin"))},
    "swapped split": (example(spilt="holdout"), "has the key 'spilt', which import does not "
                      "read (did you mean 'split'?)"),
    "example": (example(reference_output={"answer": "14 days"}), "has the key "
                "'reference_output', which import does not read (did you mean "
                "'reference_outputs'?)"),
    "answer-and-output": (example({"answer": "14 days", "output": "7 days"}, key="outputs"),
                          "has both outputs.answer and outputs.output; keep one of them "
                          "(import reads output as the answer)"),
    "output-not-a-text": (example({"output": {"content": "14 days"}}, key="outputs"),
                          'has outputs.output {"content": "14 days"}, not a text'),
    "outputs-twice": (example({"answer": "14 days"}, outputs={"answer": "7 days"}),
                      "has both reference_outputs and outputs; keep one of them"),
}  # fmt: skip


@pytest.mark.parametrize(("content", "problem"), LANGSMITH_KEYS.values(),
                         ids=LANGSMITH_KEYS.keys())  # fmt: skip
def test_a_langsmith_key_import_does_not_read_is_refused_with_a_did_you_mean(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, content: str, problem: str
) -> None:
    good = json.dumps({"inputs": {"question": "Do you ship to Iceland?"}})
    (corpus_repo / "rows.jsonl").write_text(good + "\n" + content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "langsmith")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.jsonl:2: the row {problem}; fix it (langsmith format) "
                        "and import again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


# (the example, the labels of the item it becomes)
LANGSMITH_READ = {
    # LangSmith's default output key, as a dataset made from runs holds the reference answer
    "output": (example({"output": "Paris"}, key="outputs"),
               {"key_points": [{"text": "Paris", "sources": []}], "answer": None}),
    "output-unanswerable": (example({"output": "no", "answerable": False}),
                            {"key_points": [], "answer": "no", "answerable": False}),
    "output-with-key-points": (example({"key_points": [POINT], "output": "14 days"}),
                               {"key_points": [POINT], "answer": "14 days"}),
    # metadata and example keys of LangSmith's and the user's own are passed over
    "other-metadata": (example({"key_points": [POINT]}, metadata={
                           "ls_provider": "openai", "revision_id": "abc", "source": "support",
                           "categories": "returns", "category": "direct-lookup",
                           "original": "ticket 7", "tags_v2": ["x"]}),
                       {"key_points": [POINT], "category": "direct-lookup"}),
    "langsmith's-own": (example({"output": "Paris"}, key="outputs", id="6a1c", dataset_id="d-1",
                                created_at="2025-01-01T00:00:00", source_run_id=None,
                                attachments={}),
                        {"key_points": [{"text": "Paris", "sources": []}]}),
    "outputs-twice-alike": (example({"output": "Paris"}, outputs={"output": "Paris"}),
                            {"key_points": [{"text": "Paris", "sources": []}]}),
}  # fmt: skip


@pytest.mark.parametrize(("content", "labels"), LANGSMITH_READ.values(), ids=LANGSMITH_READ.keys())
def test_langsmith_keys_import_reads_or_passes_over(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, content: str, labels: dict[str, Any]
) -> None:
    (corpus_repo / "rows.jsonl").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "langsmith")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "s.yaml").items
    found = item.model_dump(mode="json")
    assert {key: found[key] for key in labels} == labels


def sample(**fields: Any) -> str:
    return json.dumps({"user_input": QUESTION, "reference": "14 days.", **fields}) + "\n"


# Ragas samples whose labels were dropped without a word, exit 0 (the reference, the side, the
# id or the citations lost): (the sample, the key, the key it misspells).
RAGAS_KEYS = {
    "reference": (sample(refernce="Within 14 days."), "refernce", "reference"),
    "citations": (sample(reference_context_id=["r.md"]), "reference_context_id",
                  "reference_context_ids"),
    "id": (sample(evalset_ids="q-7"), "evalset_ids", "evalset_id"),
    "split-swapped": (sample(spilt="holdout"), "spilt", "split"),
    "split-capitalised": (sample(Split="holdout"), "Split", "split"),
    "category": (sample(catgory="direct-lookup"), "catgory", "category"),
    "answerable": (sample(answerabel=False), "answerabel", "answerable"),
}  # fmt: skip


@pytest.mark.parametrize(("content", "key", "meant"), RAGAS_KEYS.values(), ids=RAGAS_KEYS.keys())
def test_a_ragas_key_a_letter_off_one_import_reads_is_refused(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, content: str, key: str, meant: str
) -> None:
    (corpus_repo / "rows.jsonl").write_text(sample() + content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "ragas")
    assert done.code == 2, done.out
    assert done.err == (f"evalset: rows.jsonl:2: the row has the key {key!r}, which import does "
                        f"not read (did you mean {meant!r}?); fix it (ragas format) and import "
                        "again (nothing was imported).\n")  # fmt: skip
    assert not (corpus_repo / "sets" / "s.yaml").exists()


def test_ragas_own_keys_and_the_users_are_passed_over(cli, corpus_repo: Path) -> None:  # type: ignore[no-untyped-def]
    """What Ragas writes (``EvaluationDataset.to_jsonl``, a generated ``Testset``, pandas'
    nulls) and a key of the user's own: ``reference_contexts`` is as like
    ``reference_context_ids`` as a misspelling, but is Ragas's."""
    content = sample(reference_contexts=["ctx"], retrieved_contexts=None, response="an answer",
                     retrieved_context_ids=None, multi_responses=None, rubrics=None,
                     persona_name="x", query_style="y", query_length="z",
                     synthesizer_name="single_hop", source="ticket 7", reviewer="ana")  # fmt: skip
    (corpus_repo / "rows.jsonl").write_text(content, "utf-8")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "s", "--format", "ragas")
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "s.yaml").items
    assert (item.question, [p.text for p in item.key_points]) == (QUESTION, ["14 days."])


# A generated test set's reference contexts are text without their document: no section can
# be cited for them. (The sample, whether its draft is named as citing none.)
CONTEXTS = {
    "texts without ids": (sample(reference_contexts=["Returns within 14 days."]), True),
    "one text without ids": (sample(reference_contexts="Returns within 14 days."), True),
    "texts with empty ids": (sample(reference_contexts=["Returns."], reference_context_ids=[]),
                             True),
    "texts with ids": (sample(reference_contexts=["Returns."],
                              reference_context_ids=["returns.md"]), False),
    "no texts": (sample(reference_contexts=[]), False),
    "blank texts": (sample(reference_contexts=["", " "]), False),
    "null": (sample(reference_contexts=None), False),
    "unanswerable": (sample(reference_contexts=["Returns."], answerable=False), False),
}  # fmt: skip


@pytest.mark.parametrize("name", CONTEXTS)
def test_ragas_contexts_no_section_is_cited_for_are_named(
    cli, corpus_repo: Path, name: str
) -> None:  # type: ignore[no-untyped-def]
    content, named = CONTEXTS[name]
    (corpus_repo / "rows.jsonl").write_text(content, "utf-8")
    args = ["import", "rows.jsonl", "--set", "s", "--format", "ragas"]
    dry = cli(corpus_repo, *args, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    planned = json.loads(dry.out)
    done = cli(corpus_repo, *args)
    assert done.code == 0, done.err
    (item,) = load_set(corpus_repo / "sets" / "s.yaml").items
    assert planned["uncited_contexts"] == ([item.id] if named else [])
    said = f"cite no section for the reference contexts their rows give as text only ({item.id})"
    assert (said in done.out) == named, done.out
