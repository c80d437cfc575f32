"""JSON Schemas generated from the models, so editors can validate set files as you type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalset.config import Config
from evalset.sets.model import EvalSet, FailureRecord

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def set_schema() -> dict[str, Any]:
    schema = EvalSet.model_json_schema(mode="validation")
    return {"$schema": SCHEMA_DIALECT, **schema}


def failure_schema() -> dict[str, Any]:
    schema = FailureRecord.model_json_schema(mode="validation")
    return {"$schema": SCHEMA_DIALECT, **schema}


def config_schema() -> dict[str, Any]:
    from annotated_types import Ge, Interval  # noqa: F401 - resolve the config's annotations
    from pydantic import TypeAdapter

    schema = TypeAdapter(Config).json_schema(mode="validation")
    return {"$schema": SCHEMA_DIALECT, **schema}


def rendered() -> dict[str, str]:
    """File name -> exact text of each published schema."""
    return {
        "evalset.schema.json": json.dumps(set_schema(), indent=2, sort_keys=True) + "\n",
        "config.schema.json": json.dumps(config_schema(), indent=2, sort_keys=True) + "\n",
        "failure.schema.json": json.dumps(failure_schema(), indent=2, sort_keys=True) + "\n",
    }


def write_schemas(folder: Path, overwrite: bool = True) -> list[Path]:
    """Write the schemas into ``folder``; return the files that were written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered().items():
        path = folder / name
        if path.exists() and (not overwrite or path.read_text("utf-8") == text):
            continue
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
