"""An id no item has gets the id meant when one is close: the same id in another form (case,
separators, leading zeros), or one a typo away. Ids share a prefix and differ in a number,
so a number merely like it is not offered: `q-999` is not `q-039`."""

from __future__ import annotations

from pathlib import Path

import pytest

# what the user typed: the id offered, or None for no "did you mean"
TYPED = {
    "q-999": None,
    "q-45": None,
    "q-1": "q-001",
    "Q-001": "q-001",
    "q_004": "q-004",
    "q-0400": "q-040",
    "q-0011": "q-011",
    "q-04": "q-004",
}

# command: (its arguments around the id, what it ends its refusal with)
COMMANDS = {
    "verify": (["verify", "acme-support"], []),
    "retire": (["retire", "acme-support"], ["--reason", "x"]),
    "split --move": (["split", "acme-support", "--move"], ["--to", "holdout", "--force",
                                                          "--reason", "x"]),
}  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("typed", "meant"), TYPED.items())
def test_an_unknown_id_is_offered_only_the_id_meant(  # type: ignore[no-untyped-def]
    example: Path, cli, command: str, typed: str, meant: str | None
) -> None:
    before, after = COMMANDS[command]
    path = example / "sets" / "acme-support.yaml"
    text = path.read_bytes()
    result = cli(example, *before, typed, *after)
    assert result.code == 2, result.out
    assert f"has no item {typed!r}" in result.err
    if meant is None:
        assert "did you mean" not in result.err
    else:
        assert f"(did you mean {meant!r}?)" in result.err
    assert path.read_bytes() == text
