"""A name given with a character that looks like another (a non-breaking hyphen pasted from a
word processor, a Cyrillic letter, a zero-width space) is refused with the name it looks
like and what tells the two apart: before, "did you mean 'q-016'?" showed both alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT

LOOKS = [
    # (how the name was written, what the refusal says tells it from the one meant)
    ("{a}\u2011{b}", "U+2011 NON-BREAKING HYPHEN where {meant!r} has '-'"),
    ("{a}\u2010{b}", "U+2010 HYPHEN where {meant!r} has '-'"),
    ("{a}\u200b-{b}", "U+200B ZERO WIDTH SPACE, which {meant!r} has not"),
    ("{a}\u2013{b}", "U+2013 EN DASH where {meant!r} has '-'"),
    ("{a}-{b}\u00a0", "U+00A0 NO-BREAK SPACE, which {meant!r} has not"),
    ("{a}-{b}x", None),  # an ASCII difference shows: the name meant is enough
]
NAMES = {"item id": ("q", "016"), "set name": ("acme", "support")}


def _command(kind: str, written: str, repo: Path) -> list[str]:
    if kind == "set name":
        return ["validate", written]
    (repo / "run.jsonl").write_text(f'{{"id": "{written}", "retrieved": []}}\n', "utf-8")
    return ["score", "retrieval", "acme-support", "run.jsonl", "--allow-stale"]


@pytest.mark.parametrize(("form", "told"), LOOKS)
@pytest.mark.parametrize("kind", list(NAMES))
def test_a_look_alike_name_is_told_from_the_one_meant(  # type: ignore[no-untyped-def]
    example: Path, cli, kind: str, form: str, told: str | None
) -> None:
    a, b = NAMES[kind]
    written, meant = form.format(a=a, b=b), f"{a}-{b}"
    done = cli(example, *_command(kind, written, example))
    assert done.code == 2
    assert len(done.err.splitlines()) == 1, done.err
    said = f"did you mean {meant!r}?"
    if told is None:
        assert said in done.err and " has U+" not in done.err, done.err
        return
    shown = (
        repr(written).encode("ascii", "backslashreplace").decode()
        if "\u200b" in written
        else repr(written)
    )
    assert f"{said} {shown} has {told.format(meant=meant)}" in done.err, done.err


def test_labels_with_a_look_alike_id_are_told_from_the_one_meant(  # type: ignore[no-untyped-def]
    example: Path, cli
) -> None:
    labels = ROOT / "examples" / "labels" / "acme-support.csv"
    lines = labels.read_text("utf-8").splitlines()
    (example / "labels.csv").write_text(
        "\n".join([lines[0], lines[1].replace("q-", "q\u2011", 1)]) + "\n"
    )
    done = cli(example, "agreement", "labels.csv", "--judge", "exact")
    assert done.code == 2
    assert "U+2011 NON-BREAKING HYPHEN where 'q-0" in done.err, done.err
