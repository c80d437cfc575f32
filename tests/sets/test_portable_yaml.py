"""Every text a command writes into a set file reads back as that text in every YAML reader:
ruamel.yaml (which edits), yaml-rs (which evalset reads with) and PyYAML (YAML 1.1, as
many other tools read).

Before, ruamel.yaml wrote plain what only a YAML 1.2 reader reads as text (``yes``, ``on``,
``n``: booleans in YAML 1.1; ``1:30``: 90), what yaml-rs reads as a number (``_1``,
``1e_3``, ``.NaN``, ``0X1F``), and, in a flow collection, ``[? x]`` (a mapping to every
reader), ``{question: What is it?}`` (PyYAML refuses the file) and ``[a -]`` (yaml-rs
refuses it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml as pyyaml
from ruamel.yaml import YAML

from conftest import commit_all, write_files
from evalset.sets.yamlio import parse_yaml

TEXTS = {
    "a YAML 1.1 true": "yes",
    "a YAML 1.1 true, on": "on",
    "a YAML 1.1 false, one letter": "n",
    "a YAML 1.1 number in base 60": "1:30",
    "a yaml-rs number, underscore first": "_1",
    "a yaml-rs number, underscore in the exponent": "1e_3",
    "a yaml-rs not-a-number, mixed case": ".NaN",
    "a yaml-rs hexadecimal number, upper case": "0X1F",
    "a question mark and a space first": "? x",
    "a question mark last": "What is it?",
    "a colon first": ":x",
    "a dash after a space last": "a -",
}

IDS = {k: v for k, v in TEXTS.items() if all(c.isalnum() or c in "._-" for c in v)}
"""The texts an id, a category or a set's name can be."""

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\n"
BLOCK = HEADER + (
    "items:\n"
    "  - id: q-001\n"
    "    question: What does the document say\n"
    "    category: direct-lookup\n"
    "    expected_sources: [d.md]\n"
    "    key_points:\n"
    "      - text: The document\n"
    "        sources: [d.md]\n"
)
FLOW = HEADER + (
    "items: [{id: q-001, question: What does the document say, category: direct-lookup, "
    "expected_sources: [d.md], key_points: [{text: The document, sources: [d.md]}]}]\n"
)
LAYOUTS = {"items as blocks": BLOCK, "items as a flow list": FLOW}


def _readings(text: str) -> list[Any]:
    """The file as ruamel.yaml, yaml-rs and PyYAML read it (as JSON, dates as text)."""
    found = [
        YAML(typ="rt", pure=True).load(text),
        parse_yaml(text, Path("s.yaml")),
        pyyaml.safe_load(text),
    ]
    return [json.loads(json.dumps(data, default=str)) for data in found]


def _read_alike(path: Path) -> dict[str, Any]:
    """The set file, which every reader must read as the same document."""
    ruamel, rs, py = _readings(path.read_text("utf-8"))
    assert ruamel == rs == py
    return dict(rs)


@pytest.fixture
def repo(one_doc_repo: Path) -> Path:
    return one_doc_repo


def _with_set(repo: Path, text: str) -> Path:
    write_files(repo, {"sets/s.yaml": text})
    commit_all(repo, "set")
    return repo / "sets" / "s.yaml"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", TEXTS)
def test_new_writes_the_question_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    repo: Path, cli, name: str, layout: str
) -> None:
    path = _with_set(repo, LAYOUTS[layout])
    question = f"Is it {TEXTS[name]}" if TEXTS[name][-1] == " " else TEXTS[name]
    done = cli(repo, "new", "s", "--question", question, "--category", "direct-lookup")
    assert done.code == 0, done.err
    assert _read_alike(path)["items"][-1]["question"] == question


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", TEXTS)
def test_promote_writes_the_record_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    repo: Path, cli, name: str, layout: str
) -> None:
    path = _with_set(repo, LAYOUTS[layout])
    value = TEXTS[name]
    record = {
        "question": f"Why did it say {value} there?",
        "trace": "tr-1",
        "answer": value,
        "note": value,
        "retrieved": [value, "d.md"],
    }
    write_files(repo, {"f.jsonl": json.dumps(record) + "\n"})
    done = cli(repo, "promote", "f.jsonl", "--set", "s")
    assert done.code == 0, done.err
    origin = _read_alike(path)["items"][-1]["origin"]
    assert (origin["observed_answer"], origin["note"]) == (value, value)
    assert origin["retrieved"] == [value, "d.md"]


@pytest.mark.parametrize("name", IDS)
def test_import_writes_ids_and_labels_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    repo: Path, cli, name: str
) -> None:
    value = TEXTS[name]
    row = {
        "id": value,
        "question": "What does the manual say about it?",
        "category": value,
        "expected_sources": ["d.md"],
        "key_points": [{"text": f"The manual says {value}", "sources": ["d.md"]}],
        "must_not_say": [value],
        "answer": value,
        "tags": [value],
    }
    write_files(repo, {"rows.jsonl": json.dumps(row) + "\n"})
    set_name = value if value[0] != "." else f"s{value}"  # a git tag's part starts with no dot
    done = cli(repo, "import", "rows.jsonl", "--set", set_name, "--format", "jsonl", "--create")
    assert done.code == 0, done.err
    found = _read_alike(repo / "sets" / f"{set_name}.yaml")
    assert found["name"] == set_name and list(found["categories"]) == [value]
    item = found["items"][0]
    assert [item["id"], item["category"], item["answer"]] == [value] * 3
    assert [*item["must_not_say"], *item["tags"]] == [value] * 2


@pytest.mark.parametrize("name", TEXTS)
def test_a_move_records_its_reason_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    repo: Path, cli, name: str
) -> None:
    path = _with_set(repo, FLOW.replace("key_points:", "holdout: false, key_points:"))
    reason = TEXTS[name]
    done = cli(
        repo, "split", "s", "--move", "q-001", "--to", "holdout", "--force", "--reason", reason
    )
    assert done.code == 0, done.err
    moves = _read_alike(path)["items"][0]["holdout_moves"]
    assert moves[-1]["reason"] == reason


MOVED_TO = {
    "a question mark": "faq/what?.md",
    "a colon first": ":notes.md",
    "a question mark and a space": "is it free? yes.md",
}

CITING = {
    "in flow lists": "    expected_sources: [old.md#returns, d.md]\n"
    "    key_points:\n      - text: The document\n        sources: [old.md#returns]\n",
    "in block lists": "    expected_sources:\n      - old.md#returns\n      - d.md\n"
    "    key_points:\n      - text: The document\n        sources:\n          - old.md#returns\n",
}


@pytest.mark.parametrize("citing", CITING)
@pytest.mark.parametrize("name", MOVED_TO)
def test_fix_moved_writes_the_new_citation_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    repo: Path, cli, name: str, citing: str
) -> None:
    section = "# Old\n\n## Returns\n\nItems can be returned within 30 days.\n"
    write_files(repo, {"corpus/old.md": section})
    assert cli(repo, "snapshot").code == 0
    item = "  - id: q-001\n    question: What does the document say\n    category: direct-lookup\n"
    path = _with_set(repo, BLOCK.split("  - id:")[0] + item + CITING[citing])
    assert cli(repo, "verify", "s", "q-001").code == 0
    (repo / "corpus" / "old.md").unlink()
    write_files(repo, {f"corpus/{MOVED_TO[name]}": section})
    assert cli(repo, "snapshot").code == 0
    done = cli(repo, "stale", "--fix-moved")
    assert done.code == 0, done.err
    item = _read_alike(path)["items"][0]
    cited = f"{MOVED_TO[name]}#returns"
    assert item["expected_sources"] == [cited, "d.md"]
    assert item["key_points"][0]["sources"] == [cited]


@pytest.mark.parametrize("name", IDS)
def test_init_writes_the_set_name_and_folders_every_reader_reads_alike(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, name: str
) -> None:
    value = TEXTS[name]
    set_name = value if value[0] != "." else f"s{value}"
    done = cli(git_repo, "init", "--name", set_name, "--corpus", value)
    assert done.code == 0, done.err
    assert _read_alike(git_repo / "sets" / f"{set_name}.yaml")["name"] == set_name
    stages = _read_alike(git_repo / "dvc.yaml")["stages"]
    assert any(value in stage.get("deps", []) for stage in stages.values())
