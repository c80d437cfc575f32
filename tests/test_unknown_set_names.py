"""A set name the workspace does not have is told with the fix: the set it is a typo of,
else the sets there are and how a new one is started."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT

COMMANDS = {
    "promote": ["promote", str(ROOT / "examples" / "failures.jsonl"), "--set", "{}"],
    "export": ["export", "{}", "--format", "jsonl"],
    "new": ["new", "{}"],
    "split": ["split", "{}"],
    "retire": ["retire", "{}", "q-001", "--reason", "gone"],
    "validate": ["validate", "{}"],
}
START = (
    "name one of them, or start the set by importing rows into it: `evalset import FILE "
    "--set {} --format jsonl`."
)
NAMES = [
    # (name, what the error says after "has no set named 'NAME'")
    ("nosuch", f" (known sets: acme-support); {START}"),
    ("acme-suport", " (did you mean 'acme-support'?)."),
]


@pytest.mark.parametrize(("name", "said"), NAMES, ids=[n for n, _ in NAMES])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_unknown_set_name_is_told_with_the_fix(  # type: ignore[no-untyped-def]
    cli, example: Path, command: str, name: str, said: str
) -> None:
    set_file = example / "sets" / "acme-support.yaml"
    before = set_file.read_bytes()
    result = cli(example, *(arg.format(name) for arg in COMMANDS[command]))
    assert result.code == 2
    assert result.err == f"evalset: sets: has no set named {name!r}{said.format(name)}\n"
    assert set_file.read_bytes() == before
    assert not (example / "sets" / f"{name}.yaml").exists()
