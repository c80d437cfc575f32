"""Text given on the command line that is not UTF-8: a byte such as ``\\xff`` reaches Python
as a lone surrogate (U+DCFF). Before, `retire --reason` with one ended in an internal error
(the write could not encode it) and `new --question` wrote a set file it then called "not
valid YAML", blaming the user's file. Each text option and argument of each command now
refuses it in one sentence naming the option, before anything is read or written; paths
and git revisions, where such a byte is legitimate, are left to the commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalset import edit_set
from evalset.errors import EditRefused
from evalset.sets.items import new_item, retire

BAD = "q-\udcff2"
"""What Python makes of the bytes ``q-\\xff2`` on a command line."""

SCORED = ("acme-support", "examples/runs/acme-support-bm25.jsonl", "--allow-stale")
# (command, the option or argument as the message names it) -> the command line; {} is
# where the text goes
TEXTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("stale", "--format"): ("stale", "--format", "{}"),
    ("verify", "ITEM"): ("verify", "acme-support", "q-001", "{}"),
    ("init", "--name"): ("init", "--name", "{}"),
    ("release", "--bump"): ("release", "acme-support", "--bump", "{}"),
    ("release", "--version"): ("release", "acme-support", "--version", "{}"),
    ("diff", "--format"): ("diff", "acme-support", "--format", "{}"),
    ("new", "--question"): ("new", "acme-support", "--question", "{}"),
    ("new", "--category"): ("new", "acme-support", "--category", "{}"),
    ("retire", "ITEM"): ("retire", "acme-support", "{}", "--reason", "a duplicate"),
    ("retire", "--reason"): ("retire", "acme-support", "q-001", "--reason", "dup of {}"),
    ("split", "--move"): ("split", "acme-support", "--move", "{}", "--to", "holdout"),
    ("split", "--to"): ("split", "acme-support", "--move", "q-001", "--to", "{}"),
    ("split", "--reason"): ("split", "acme-support", "--move", "q-001", "--reason", "{}"),
    ("seal", "--recipient"): ("seal", "acme-support", "-r", "{}"),
    ("export", "--format"): ("export", "acme-support", "--format", "{}"),
    ("export", "--split"): ("export", "acme-support", "--format", "jsonl", "--split", "{}"),
    ("import", "--format"): ("import", "rows.jsonl", "--set", "acme-support", "--format", "{}"),
    ("promote", "--map"): ("promote", "rows.jsonl", "--set", "acme-support", "--map", "{}"),
    ("promote", "--preset"): ("promote", "rows.jsonl", "--set", "acme-support", "--preset", "{}"),
    ("promote", "--id-from"): ("promote", "rows.jsonl", "--set", "acme-support", "--id-from",
                               "{}"),
    ("gate", "--metric"): ("gate", "a.json", "b.json", "--metric", "{}"),
    ("score retrieval", "--format"): ("score", "retrieval", *SCORED, "--format", "{}"),
    ("score retrieval", "--k"): ("score", "retrieval", *SCORED, "--k", "{}"),
    ("score retrieval", "--granularity"): ("score", "retrieval", *SCORED, "--granularity", "{}"),
    ("score retrieval", "--snapshot"): ("score", "retrieval", *SCORED, "--snapshot", "{}"),
    ("score answers", "--format"): ("score", "answers", *SCORED, "--judge", "exact",
                                    "--format", "{}"),
    ("score answers", "--snapshot"): ("score", "answers", *SCORED, "--judge", "exact",
                                      "--snapshot", "{}"),
}  # fmt: skip


def _text_parameters() -> set[tuple[str, str]]:
    """Every parameter of every command that takes text (``str``, one or several), as the
    message names it, but those ``NOT_TEXT`` leaves to the command."""
    from evalset.cli.app import command
    from evalset.cli.params import NOT_TEXT

    found: set[tuple[str, str]] = set()

    def walk(cmd: Any, path: list[str]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])
        for param in cmd.params:
            if param.type_descriptor.annotation not in (str, list[str]):
                continue
            if param.name in NOT_TEXT:
                continue
            shown = max(param.opts, key=len) if param.param_type_name == "option" else None
            found.add((" ".join(path), shown or param.metavar))

    walk(command(), [])
    return found


def test_the_table_holds_every_text_option_of_every_command() -> None:
    """A text option added later is in the table below, or it is a path or revision and
    named in NOT_TEXT."""
    assert _text_parameters() == set(TEXTS)


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}


@pytest.mark.parametrize(("command", "option"), list(TEXTS), ids=[" ".join(k) for k in TEXTS])
def test_text_that_is_not_utf8_is_refused_naming_its_option(  # type: ignore[no-untyped-def]
    cli, example: Path, command: str, option: str
) -> None:
    (example / "examples" / "runs").mkdir(parents=True)
    run = Path(__file__).resolve().parents[2] / "examples" / "runs" / "acme-support-bm25.jsonl"
    (example / "examples" / "runs" / run.name).write_bytes(run.read_bytes())
    (example / "rows.jsonl").write_text('{"question": "Is a gift returnable?"}\n')
    before = _files(example)
    args = [BAD if a == "{}" else a.replace("{}", BAD) for a in TEXTS[command, option]]
    result = cli(example, *args)
    assert (result.code, result.out, result.err) == (
        2,
        "",
        f"evalset: {option} holds a byte that is not UTF-8 text (\\xff); write it as UTF-8.\n",
    )
    assert _files(example) == before


def test_the_same_text_is_taken_when_it_is_utf8(cli, example: Path) -> None:  # type: ignore[no-untyped-def]
    """The check refuses the byte, not the character it would be in Latin-1."""
    done = cli(example, "retire", "acme-support", "q-001", "--reason", "dup of q-\u00ff2")
    assert done.code == 0, done.err
    assert "# retired" in (example / "sets" / "acme-support.yaml").read_text("utf-8")


def _update(path: Path, changes: dict[str, Any]) -> None:
    with edit_set(path) as editor:
        editor.update_item("q-001", changes)


API_TEXTS: dict[str, Callable[[Path], object]] = {
    "retire's reason": lambda path: retire(path, ["q-001"], f"dup of {BAD}"),
    "a new item's question": lambda path: new_item(path, f"What is {BAD} here?", None),
    "a field an editor sets": lambda path: _update(path, {"tags": [BAD]}),
}


@pytest.mark.parametrize("case", API_TEXTS)
def test_the_library_refuses_a_lone_surrogate_in_text_to_write(example: Path, case: str) -> None:
    """From Python, as from the command line: the edit is refused, the file unchanged."""
    path = example / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    with pytest.raises(EditRefused, match=r"holds U\+DCFF, a lone surrogate \(the byte \\xff\)"):
        API_TEXTS[case](path)
    assert path.read_bytes() == before
