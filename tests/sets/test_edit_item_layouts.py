"""An edit of an item writes it in its own layout, not the first item's: in a file whose
items are not all laid out alike (``-   id:`` with keys six columns in, then ``- id:``),
the edited item keeps every line it had and gains only the line the edit adds.

Before, every edit wrote the item in the first item's layout: its fields no longer lined
up with what they were, so the whole item was written again, each line moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit_all, write_files

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
QUESTIONS = ["How long do I have to return a damaged item", "Do you ship parcels to Iceland"]


def item(n: int, dash: str, keys: int) -> str:
    """Item ``n`` with ``dash`` before its first key and its keys ``keys`` columns in."""
    pad = " " * keys
    return (
        f"  -{dash}id: q-00{n}\n{pad}question: {QUESTIONS[n - 1]}\n{pad}category: direct-lookup\n"
        f"{pad}expected_sources: [d.md]\n{pad}key_points:\n"
        f"{pad}  -{dash}text: The document part {n}\n{pad}  {' ' * len(dash)} sources: [d.md]\n"
    )


LAYOUTS = {
    "wide first, usual second": (("   ", 6), (" ", 4)),
    "usual first, wide second": ((" ", 4), ("   ", 6)),
    "usual first, a dash and two spaces second": ((" ", 4), ("  ", 5)),
}
ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
EDITS = {
    "retire": (("retire", "s", "q-00{n}", "--reason", "gone"), "status: retired"),
    "verify": (("verify", "s", "q-00{n}"), "verified: "),
    "split --move": (("split", "s", "--move", "q-00{n}", "--to", "holdout"), "holdout: true"),
}


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [1, 2])
def test_an_edit_writes_an_item_in_its_own_layout(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, edit: str, ending: str, n: int
) -> None:
    items = "".join(item(k, *shape) for k, shape in enumerate(LAYOUTS[layout], 1))
    before = (HEADER + items).replace("\n", ENDINGS[ending])
    write_files(one_doc_repo, {"sets/s.yaml": before.encode()})
    commit_all(one_doc_repo, "set")
    args, added = EDITS[edit]
    done = cli(one_doc_repo, *(arg.format(n=n) for arg in args))
    assert done.code == 0, done.err
    after = (one_doc_repo / "sets" / "s.yaml").read_bytes().decode()
    lines = after.splitlines(keepends=True)
    gained = [line for line in lines if line not in before.splitlines(keepends=True)]
    assert len(lines) == len(before.splitlines()) + 1 and len(gained) == 1, after
    assert added in gained[0] and gained[0].endswith(ENDINGS[ending])
    kept = iter(lines)
    assert all(line in kept for line in before.splitlines(keepends=True)), after
    assert cli(one_doc_repo, "validate", "s").code == 0
