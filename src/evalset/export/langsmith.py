"""LangSmith: dataset examples as JSONL, one ``{"inputs", "reference_outputs", "metadata",
"split"}`` object per line, as ``langsmith.schemas.ExampleCreate`` (what
``Client.create_examples`` takes) names them; the SDK sends ``reference_outputs`` to the API as
``outputs``. Key points keep their sources; metadata carries the id, category, split, tags,
the verified snapshot and the pin (with the set's categories)."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import RowError, json_lines
from evalset.export.view import View, split_of


def write(view: View) -> str:
    lines = []
    for item in view.items:
        outputs: dict[str, Any] = {
            "key_points": [
                {"text": p.text, "sources": [str(s) for s in p.sources]} for p in item.key_points
            ],
            "expected_sources": [str(c) for c in item.expected_sources],
            "must_not_say": item.must_not_say,
            "answerable": item.answerable,
        }
        if item.answer:
            outputs["answer"] = item.answer
        metadata = view.metadata(item)
        metadata["evalset"] = {**metadata["evalset"], "categories": view.categories}
        example = {
            "inputs": {"question": item.question},
            "reference_outputs": outputs,
            "metadata": metadata,
            "split": split_of(item),
        }
        lines.append(json.dumps(example, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def _key_points(points: Any) -> list[dict[str, Any]]:
    """Key points as this module writes them (objects with sources), or as plain texts."""
    found = []
    for point in points if isinstance(points, list) else []:
        if isinstance(point, str):
            found.append({"text": point})
        elif isinstance(point, dict) and isinstance(point.get("text"), str):
            sources = point.get("sources")
            found.append({"text": point["text"], **({"sources": sources} if sources else {})})
    return found


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Examples as item mappings: the question is ``inputs.question`` (or the only text
    input); reference outputs (``reference_outputs``, or ``outputs`` as the API and older
    SDKs name them) and metadata (``metadata.tags`` included) in the shape this module
    writes are taken over."""
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
        outputs = example.get("reference_outputs") or example.get("outputs") or {}
        metadata = example.get("metadata") or {}
        if not isinstance(outputs, dict) or not isinstance(metadata, dict):
            raise RowError(number, "has outputs or metadata that is not a JSON object")
        item: dict[str, Any] = {"question": question}
        if isinstance(metadata.get("evalset_id"), str):
            item["id"] = metadata["evalset_id"]
        if isinstance(metadata.get("category"), str):
            item["category"] = metadata["category"]
        split = example.get("split") or metadata.get("split")
        if isinstance(split, list):
            split = next((s for s in split if s in ("tuning", "holdout")), None)
        if split in ("tuning", "holdout"):
            item["holdout"] = split == "holdout"
        tags = metadata.get("tags")
        if isinstance(tags, list) and tags and all(isinstance(t, str) for t in tags):
            item["tags"] = tags
        if isinstance(metadata.get("verified"), str):
            item["verified"] = metadata["verified"]
        if isinstance(metadata.get("evalset"), dict):
            item["evalset"] = metadata["evalset"]
        points = _key_points(outputs.get("key_points"))
        if points:
            item["key_points"] = points
        elif isinstance(outputs.get("answer"), str):
            item["key_points"] = [{"text": outputs["answer"]}]
        for key in ("expected_sources", "must_not_say"):
            if isinstance(outputs.get(key), list) and outputs[key]:
                item[key] = outputs[key]
        if isinstance(outputs.get("answer"), str) and points:
            item["answer"] = outputs["answer"]
        if outputs.get("answerable") is False:
            item["answerable"] = False
        rows.append((number, item))
    return rows
