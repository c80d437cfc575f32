"""Ragas: an ``EvaluationDataset`` of single-turn samples as JSONL.

Fields are those of ``ragas.SingleTurnSample``: ``user_input`` (the question), ``reference``
(every key point as a sentence; the short answer only for an item without key points),
``reference_contexts`` (the cited sections' text, as the item was verified) and
``reference_context_ids`` (the citations). Ragas samples have no metadata field, and
``EvaluationDataset.from_jsonl`` ignores keys it does not know, so each line also carries
``evalset_id``, ``category``, ``split`` and ``answerable`` for joining per-item results, and
``verified``, the snapshot the item's labels and contexts are of (a file has no pin, which
names the stale items an export with ``--allow-stale`` holds)
(Ragas keeps the rows in file order; ``pandas.read_json(..., lines=True, dtype=False)`` keeps
the keys as they are: without ``dtype=False`` an id ``001`` is read as the number 1).
An unanswerable item's reference says that a correct response declines (``DECLINES``), and
its contexts are empty lists: answer metrics score it, context metrics have nothing to
recall.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalset.export.rows import (
    UNCITED,
    RowError,
    holdout_of,
    json_lines,
    listed,
    near_miss,
    shown,
    unread,
)
from evalset.export.view import DECLINES, View, reference_answer, split_of
from evalset.sets.model import MAX_TEXT, item_citations


def write(view: View) -> str:
    lines = []
    for item in view.items:
        citations = item_citations(item)
        row: dict[str, Any] = {"user_input": item.question}
        reference = reference_answer(item)
        if reference is not None:
            row["reference"] = reference
        texts = [view.context(item, c) for c in citations]
        row["reference_contexts"] = [t or "" for t in texts]
        row["reference_context_ids"] = [str(c) for c in citations]
        row["evalset_id"] = item.id
        row["category"] = item.category
        row["split"] = split_of(item)
        row["answerable"] = item.answerable
        row["verified"] = item.verified  # the snapshot its labels and contexts are of
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


READ = ("user_input", "reference", "reference_context_ids", "evalset_id", "category", "split",
        "answerable", "verified")  # fmt: skip
"""The keys of a sample import reads: Ragas's and those ``write`` adds."""
RAGAS = ("reference_contexts", "retrieved_contexts", "retrieved_context_ids", "response",
         "multi_responses", "rubrics", "persona_name", "query_style", "query_length",
         "synthesizer_name")  # fmt: skip
"""Ragas's own keys that import passes over (``SingleTurnSample``'s others, and the
``synthesizer_name`` of a generated test set): the answer under test and the text of the
contexts are no labels. ``reference_contexts`` is as like ``reference_context_ids`` as a
misspelling, so these are named rather than told apart by likeness."""


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Samples as draft items: the reference becomes one key point, the reference context ids
    become expected sources (the importer refuses ids the corpus's snapshot does not have,
    such as chunk ids); the keys this module adds (id, category, split in any case,
    answerable, verified) are taken over: the citations of a stale item's row are of the
    snapshot it was verified against, not of the newest. Every row is a draft to review,
    whatever it carries: a reference is the key points run together as prose (one key point
    where the item had several), and must_not_say and the short answer are not in it, so an
    item made of it as it is would be scored on labels nobody wrote."""
    rows = []
    for number, sample in json_lines(text):
        if not isinstance(sample, dict) or not isinstance(sample.get("user_input"), str):
            raise RowError(number, "has no user_input text")
        for key in sample:  # a misspelt label, read as nothing, would be dropped without a word
            if key not in READ and key not in RAGAS and near_miss(key, READ):
                raise RowError(number, unread("key", key, READ))
        item: dict[str, Any] = {"question": sample["user_input"], "status": "draft"}
        for key, target in (
            ("evalset_id", "id"),
            ("category", "category"),
            ("verified", "verified"),
        ):
            value = sample.get(key)
            if value is not None and not isinstance(value, str):
                raise RowError(number, f"has {key} {shown(value)}, not a text")
            if value is not None:
                item[target] = value
        reference = sample.get("reference")
        if reference is not None and not isinstance(reference, str):
            raise RowError(number, f"has reference {shown(reference)}, not a text; write the "
                           "reference answer as one text")  # fmt: skip
        holdout = holdout_of(sample.get("split"), number)
        if holdout is not None:
            item["holdout"] = holdout
        answerable = sample.get("answerable")
        if answerable is not None and not isinstance(answerable, bool):
            raise RowError(number, f"has answerable {shown(answerable)}; write true or false "
                           "(not in quotes), or leave it out")  # fmt: skip
        ids = listed(sample, "reference_context_ids", number)
        if answerable is False or reference == DECLINES:
            item["answerable"] = False
            rows.append((number, item))
            continue
        if ids:
            item["expected_sources"] = ids  # checked as the set's citations are: each a text
        elif _texts(sample.get("reference_contexts")):
            item[UNCITED] = True  # text with no document named: no section can be cited
        if reference is not None and reference.strip():
            item["key_points"] = [{"text": t, "sources": ids} for t in _pieces(reference)]
        rows.append((number, item))
    return rows


def _texts(contexts: object) -> bool:
    """Whether ``contexts`` holds some text (Ragas gives a list of texts)."""
    if isinstance(contexts, str):
        return bool(contexts.strip())
    return isinstance(contexts, list) and any(isinstance(c, str) and c.strip() for c in contexts)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _pieces(reference: str) -> list[str]:
    """A reference as key points: one, or, longer than an item's text may be (a set's many
    key points run together), its sentences packed in order into as few as fit, a sentence
    longer than that cut at spaces."""
    if len(reference) <= MAX_TEXT:
        return [reference]
    sentences: list[str] = []
    for sentence in _SENTENCE_END.split(reference):
        while len(sentence) > MAX_TEXT:
            cut = sentence.rfind(" ", 1, MAX_TEXT + 1)
            cut = cut if cut > 0 else MAX_TEXT
            sentences.append(sentence[:cut])
            sentence = sentence[cut:].lstrip(" ")
        sentences.append(sentence)
    pieces = [sentences[0]]
    for part in sentences[1:]:
        if len(pieces[-1]) + 1 + len(part) <= MAX_TEXT:
            pieces[-1] += " " + part
        else:
            pieces.append(part)
    return pieces
