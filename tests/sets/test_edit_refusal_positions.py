"""An edit refused because its result would be invalid names the problem without a line
and column of that result, which is not written: before, `new --category direct-lookp`
cited `sets/acme-support.yaml:630:5: item q-047`, a line and an item the unchanged file did
not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalset.errors import EditRefused
from evalset.sets.editor import edit_set

SET = Path("sets/acme-support.yaml")
POSITION = re.compile(r"\.yaml:\d+")
NOT_DECLARED = "category 'direct-lookp' is not declared in the set's categories"

CASES = [
    # (name, options of `new`, what the refusal says)
    ("a category misspelt", ["--category", "direct-lookp"],
     f"(new item q-042: category: error: {NOT_DECLARED} (did you mean 'direct-lookup'?))"),
    ("a category of words", ["--category", "Direct lookup"],
     "(new item q-042: category: error: text ('Direct lookup') does not have the required "
     "form ^[A-Za-z0-9._-]+$ (use ASCII letters, digits, '.', '_' and '-' only, such as "
     "'Direct-lookup'))"),
]  # fmt: skip


@pytest.mark.parametrize(("options", "said"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_new_item_refused_is_named_as_new_without_a_position(  # type: ignore[no-untyped-def]
    cli, example: Path, options: list[str], said: str
) -> None:
    before = (example / SET).read_bytes()
    result = cli(example, "new", "acme-support", *options)
    assert result.code == 2
    assert said in result.err and not POSITION.search(result.err), result.err
    assert result.err.startswith(f"evalset: {SET}: the edit was refused because the result ")
    assert (example / SET).read_bytes() == before


def test_an_edited_item_refused_is_named_without_a_position(example: Path) -> None:
    path = example / SET
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-040", {"category": "direct-lookp"})
    said = str(caught.value)
    assert f"(item q-040: category: error: {NOT_DECLARED} (did you" in said, said
    assert not POSITION.search(said), said
    assert path.read_bytes() == before
