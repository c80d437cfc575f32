"""Published JSON Schemas stay in step with the models, and document every field."""

from __future__ import annotations

import json

from conftest import EXAMPLE_SET, ROOT
from evalset.sets.model import EvalSet, FailureRecord, Item, KeyPoint, Origin, SetHeader
from evalset.sets.schema import rendered


def test_committed_schemas_are_current() -> None:
    for name, text in rendered().items():
        committed = (ROOT / "schemas" / name).read_text(encoding="utf-8")
        assert committed == text, f"schemas/{name} is out of date: run `evalset schema --write`"


def test_schema_write_leaves_the_repository_unchanged(cli) -> None:  # type: ignore[no-untyped-def]
    before = {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()}
    result = cli(ROOT, "schema", "--write")
    assert result.code == 0
    assert "schemas are up to date" in result.out
    assert {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()} == before


def test_every_field_has_a_description() -> None:
    for model in (EvalSet, SetHeader, Item, KeyPoint, Origin, FailureRecord):
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no docstring"


def test_the_example_names_its_schema_on_the_first_line() -> None:
    first = EXAMPLE_SET.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/evalset.schema.json"


def test_schema_rejects_what_the_models_reject() -> None:
    schema = json.loads(rendered()["evalset.schema.json"])
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Item"]["additionalProperties"] is False
    assert set(schema["required"]) == {"evalset", "name", "categories"}


def test_failure_schema_is_printed_and_strict(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "schema", "--failure")
    schema = json.loads(result.out)
    assert result.out == rendered()["failure.schema.json"]
    assert schema["required"] == ["question"]
    assert schema["additionalProperties"] is False
