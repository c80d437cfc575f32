"""The first item added to a set of none (``items: []``, or ``items:`` alone) keeps the
comment on the ``items:`` line as written.

Before, the line was written again as ``items:``, its comment dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_edit_file_end import EDITS, ROW, appended

from evalset.sets.setfile import load_set

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\n"
LINES = {
    "an empty flow list, two spaces": ("items: []  # none yet", "items:  # none yet"),
    "an empty flow list, one space": ("items: [] # none yet", "items: # none yet"),
    "an empty flow list, a tab": ("items: []\t# none yet", "items:\t# none yet"),
    "no value": ("items:   # to come", "items:   # to come"),
    "no comment": ("items: []", "items:"),
}
ENDINGS = {"LF": "\n", "CRLF": "\r\n", "none": ""}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("layout", LINES)
def test_the_first_item_keeps_the_comment_of_the_items_line(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, ending: str, edit: str
) -> None:
    end = ENDINGS[ending]
    line, kept = LINES[layout]
    before = HEADER.replace("\n", end or "\n") + line + end
    after = appended(one_doc_repo, cli, before, edit)
    assert after.startswith(before.removesuffix(line + end) + kept + (end or "\n") + "  - id: ")
    assert after.endswith(end) and not after.endswith("\n" + end)
    assert [i.question for i in load_set(one_doc_repo / "sets" / "s.yaml").items] == [
        ROW["question"]
    ]
