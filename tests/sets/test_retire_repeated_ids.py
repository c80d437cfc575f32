"""An id named twice on `evalset retire`'s command line (a paste, a shell glob) is retired
once: one note on its status line, named once in what the command says."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SET_HEADER, set_item

ITEMS = set_item("q-1", "d.md") + set_item("q-2", "d.md") + "    status: retired\n"

# ids named -> (what the command says, the status lines the file then holds)
CASES = {
    "one id twice": (
        ["q-1", "q-1"],
        "retired q-1 in sets/docs.yaml\n",
        ["    status: retired  # retired {d}: gone\n", "    status: retired\n"],
    ),
    "an id twice around another": (
        ["q-1", "q-2", "q-1"],
        "retired q-1 in sets/docs.yaml\nalready retired: q-2\n",
        ["    status: retired  # retired {d}: gone\n", "    status: retired\n"],
    ),
    "a retired id twice": (
        ["q-2", "q-2"],
        "already retired: q-2\n",
        ["    status: retired\n"],
    ),
}


@pytest.mark.parametrize(("ids", "said", "lines"), CASES.values(), ids=CASES.keys())
def test_an_id_named_twice_is_retired_once(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, ids: list[str], said: str, lines: list[str]
) -> None:
    import datetime as dt

    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + ITEMS)
    result = cli(corpus_repo, "retire", "docs", *ids, "--reason", "gone")
    assert result.code == 0, result.err
    assert result.out == said
    today = dt.date.today().isoformat()
    text = path.read_text()
    assert [line + "\n" for line in text.splitlines() if "status:" in line] == [
        line.format(d=today) for line in lines
    ]
