"""Ragas: an ``EvaluationDataset`` of single-turn samples as JSONL.

Fields are those of ``ragas.SingleTurnSample``: ``user_input`` (the question), ``reference``
(the short answer, else the key points), ``reference_contexts`` (the cited sections' text
from the newest snapshot) and ``reference_context_ids`` (the citations). Ragas samples have
no metadata field; the citations identify what each sample is about.
"""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import RowError, json_lines
from evalset.export.view import View, reference_answer
from evalset.sets.model import item_citations


def write(view: View) -> str:
    lines = []
    for item in view.items:
        citations = item_citations(item)
        row: dict[str, Any] = {"user_input": item.question}
        reference = reference_answer(item)
        if reference is not None:
            row["reference"] = reference
        if citations:
            texts = [view.text_of(c) for c in citations]
            row["reference_contexts"] = [t or "" for t in texts]
            row["reference_context_ids"] = [str(c) for c in citations]
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Samples as item mappings: the reference becomes one key point (to be reviewed), the
    reference context ids that are citations become expected sources."""
    rows = []
    for number, sample in json_lines(text):
        if not isinstance(sample, dict) or not isinstance(sample.get("user_input"), str):
            raise RowError(number, "has no user_input text")
        item: dict[str, Any] = {"question": sample["user_input"]}
        ids = [str(c) for c in sample.get("reference_context_ids") or []]
        if ids:
            item["expected_sources"] = ids
        if isinstance(sample.get("reference"), str) and sample["reference"].strip():
            item["key_points"] = [{"text": sample["reference"], "sources": ids}]
        rows.append((number, item))
    return rows
