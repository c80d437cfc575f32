"""`evalset import` and `evalset promote` say so when more look-alike questions than
near-duplicate detection compares one by one (MAX_BUCKET) come in: a warning in human output,
`crowded` in --json, and the exit status of a run with warnings (0)."""

from __future__ import annotations

import json
import re
from itertools import product
from pathlib import Path

import pytest

from conftest import ROOT, git
from evalset.sets import neardup
from evalset.sets.setfile import load_set

SET = Path("sets/acme-support.yaml")


def _look_alikes(count: int) -> list[str]:
    """``count`` different questions that differ in one word only: a template filled in."""
    words = ("".join(letters) for letters in product("abcdefghijklmnopqrstuvwxyz", repeat=3))
    return [
        f"What is the warranty period for the {word} kettle sold in this shop?"
        for _, word in zip(range(count), words, strict=False)
    ]


def _warning(what: str, questions: int, lines: int) -> str:
    return (
        f"warning: {questions} questions share all but a word or two, {lines} of them {what} "
        "(lines 1, 2, 3, …): too many to compare one by one, so near duplicates among them "
        "were not looked for, nor skipped; reword them apart (`evalset validate` warns about "
        "the group too)\n"
    )


COUNT = neardup.MAX_BUCKET + 50


def test_promote_says_which_records_it_could_not_compare(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    records = example / "templated.jsonl"
    records.write_text(
        "".join(json.dumps({"question": q}) + "\n" for q in _look_alikes(COUNT)), "utf-8"
    )
    before = (example / SET).read_bytes()
    dry = cli(example, "promote", str(records), "--set", "acme-support", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    report = json.loads(dry.out)
    assert report["crowded"] == [{"questions": COUNT, "lines": list(range(1, COUNT + 1))}]
    assert len(report["added"]) == COUNT  # none was compared, so none was skipped
    assert (example / SET).read_bytes() == before
    done = cli(example, "promote", str(records), "--set", "acme-support")
    assert done.code == 0, done.err
    assert done.out.startswith(f"added {COUNT} draft item(s) to sets/acme-support.yaml\n")
    assert done.err == _warning("records", COUNT, COUNT)
    # validate, which compares the same way, now warns about the group in the set
    found = json.loads(cli(example, "validate", "acme-support", "--json").out)["findings"]
    assert [f for f in found if "too many to compare" in f["message"]]


def test_import_says_which_rows_it_could_not_compare(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # the set holds the first 30 look-alikes already, as drafts; the file brings the rest
    questions = _look_alikes(COUNT)
    held = "".join(
        f"  - id: k-{k:03d}\n    question: {q}\n    status: draft\n"
        for k, q in enumerate(questions[:30])
    )
    with (example / SET).open("a", encoding="utf-8") as f:
        f.write(held)
    git(example, "commit", "-qam", "thirty look-alikes")
    rows = example / "templated.jsonl"
    rows.write_text("".join(json.dumps({"question": q}) + "\n" for q in questions[30:]), "utf-8")
    args = ("import", str(rows), "--set", "acme-support", "--format", "jsonl")
    dry = cli(example, *args, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    report = json.loads(dry.out)
    assert report["crowded"] == [{"questions": COUNT, "lines": list(range(1, COUNT - 29))}]
    assert len(report["added"]) == COUNT - 30 and report["skipped"] == {}
    done = cli(example, *args)
    assert done.code == 0, done.err
    assert done.err == _warning("rows", COUNT, COUNT - 30)
    # as the README shows it
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(
        r"```console\n\$ (evalset import templated\.jsonl[^\n]*)\n(.*?)```", readme, re.S
    )
    assert block and block[1].split()[1:] == ["import", "templated.jsonl", *args[2:]]
    assert block[2].splitlines() == (done.out + done.err).splitlines()
    items = load_set(example / SET).entries
    assert sum(1 for item in items if "kettle" in getattr(item, "question", "")) == COUNT


@pytest.mark.parametrize(
    "command", [("promote",), ("import", "--format", "jsonl")], ids=["promote", "import"]
)
def test_a_crowded_group_of_the_set_s_items_alone_is_validate_s_to_report(  # type: ignore[no-untyped-def]
    example: Path, cli, command: tuple[str, ...]
) -> None:
    records = example / "templated.jsonl"
    records.write_text("".join(json.dumps({"question": q}) + "\n" for q in _look_alikes(COUNT)))
    assert cli(example, "promote", str(records), "--set", "acme-support").code == 0
    other = example / "other.jsonl"
    other.write_text(json.dumps({"question": "Can I pay for a kettle in three instalments?"}))
    again = cli(example, command[0], str(other), "--set", "acme-support", *command[1:], "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["crowded"] == [] and len(json.loads(again.out)["added"]) == 1
    assert "warning" not in again.err
