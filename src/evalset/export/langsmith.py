"""LangSmith: dataset examples as JSONL, one ``{"inputs", "outputs", "metadata", "split"}``
object per line (the shape ``Client.create_examples`` takes)."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import RowError, json_lines
from evalset.export.view import View


def write(view: View) -> str:
    lines = []
    for item in view.items:
        outputs: dict[str, Any] = {
            "key_points": [p.text for p in item.key_points],
            "expected_sources": [str(c) for c in item.expected_sources],
            "must_not_say": item.must_not_say,
            "answerable": item.answerable,
        }
        if item.answer:
            outputs["answer"] = item.answer
        example = {
            "inputs": {"question": item.question},
            "outputs": outputs,
            "metadata": view.metadata(item),
            "split": "holdout" if item.holdout else "tuning",
        }
        lines.append(json.dumps(example, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Examples as item mappings: the question is ``inputs.question`` (or the only text
    input); outputs (``outputs``, or ``reference_outputs`` as newer SDKs name it) and
    metadata in the shape this module writes are taken over."""
    rows = []
    for number, example in json_lines(text):
        inputs = example.get("inputs") if isinstance(example, dict) else None
        if not isinstance(inputs, dict):
            raise RowError(number, "has no inputs object")
        question = inputs.get("question")
        texts = [v for v in inputs.values() if isinstance(v, str)]
        if not isinstance(question, str):
            if len(texts) != 1:
                raise RowError(number, "has no inputs.question text")
            question = texts[0]
        outputs = example.get("outputs") or example.get("reference_outputs") or {}
        metadata = example.get("metadata") or {}
        if not isinstance(outputs, dict) or not isinstance(metadata, dict):
            raise RowError(number, "has outputs or metadata that is not a JSON object")
        item: dict[str, Any] = {"question": question}
        if isinstance(metadata.get("evalset_id"), str):
            item["id"] = metadata["evalset_id"]
        if isinstance(metadata.get("category"), str):
            item["category"] = metadata["category"]
        split = example.get("split") or metadata.get("split")
        if split in ("tuning", "holdout"):
            item["holdout"] = split == "holdout"
        points = outputs.get("key_points")
        if isinstance(points, list) and points:
            item["key_points"] = [{"text": p} for p in points if isinstance(p, str)]
        elif isinstance(outputs.get("answer"), str):
            item["key_points"] = [{"text": outputs["answer"]}]
        for key in ("expected_sources", "must_not_say"):
            if isinstance(outputs.get(key), list) and outputs[key]:
                item[key] = outputs[key]
        if isinstance(outputs.get("answer"), str) and isinstance(points, list):
            item["answer"] = outputs["answer"]
        if outputs.get("answerable") is False:
            item["answerable"] = False
        rows.append((number, item))
    return rows
