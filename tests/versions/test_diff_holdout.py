"""`evalset diff` shows what changed in a holdout item, not its labels.

A diff is posted as a pull-request comment (``--format md``) and printed in CI logs, which
the people tuning prompts read; with the key in CI, a sealed item's labels would reach them
in the clear. For an item held out on either side, a diff names each changed field with its
kind of change; the values it shows are bookkeeping only (split, status, tags, category).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import commit_all
from evalset.sets.editor import edit_set

EDITS = {
    # field: (the edit, as update_item takes it, the new value a diff must not show)
    "question": ({"question": "How many years is the legal guarantee, in total?"},
                 "How many years is the legal guarantee, in total?"),
    "key point": ({"key_points": [{"text": "A three-year guarantee covers every product",
                                   "sources": ["policies/warranty.md#legal-guarantee"]}]},
                  "A three-year guarantee covers every product"),
    "must_not_say": ({"must_not_say": ["the guarantee lasts five years"]},
                     "the guarantee lasts five years"),
    "answer": ({"answer": "three years"}, "three years"),
}  # fmt: skip
OLD = ("Every product has a two-year legal guarantee", "the guarantee lasts one year", "two years")
"""q-004's labels before the edit."""
FORMATS = {"text": (), "md": ("--format", "md"), "json": ("--json",)}


def _edited(example: Path, ident: str, update: dict[str, object]) -> None:
    with edit_set(example / "sets" / "acme-support.yaml") as editor:
        editor.update_item(ident, update)


def _seal_and_commit(  # type: ignore[no-untyped-def]
    cli, example: Path, recipient: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example's holdout sealed to ``recipient``, without a key at hand, and committed."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", "acme-support", "-r", recipient).code == 0
    commit_all(example, "sealed")


@pytest.mark.parametrize("form", FORMATS)
@pytest.mark.parametrize("edit", EDITS)
def test_a_holdout_items_labels_are_not_shown(  # type: ignore[no-untyped-def]
    cli, example: Path, edit: str, form: str
) -> None:
    update, new = EDITS[edit]
    _edited(example, "q-004", {**update, "tags": ["warranty", "retagged"]})  # q-004: holdout
    done = cli(example, "diff", "acme-support", "HEAD", *FORMATS[form])
    assert done.code == 0, done.err
    assert "q-004" in done.out and "retagged" in done.out  # bookkeeping is shown
    for label in (new, *OLD):
        assert label not in done.out, label
    if form == "json":
        (item,) = json.loads(done.out)["changed"]
        hidden = [c for c in item["changes"] if c.get("hidden")]
        assert hidden and all(c["old"] is None and c["new"] is None for c in hidden)
    else:
        assert "(a holdout item: not shown)" in done.out


def test_a_tuning_item_and_a_move_into_the_holdout(cli, example: Path) -> None:  # type: ignore[no-untyped-def]
    """A tuning item's changes are shown in full; once an item moves into the holdout, what
    changed with the move is not."""
    _edited(example, "q-001", {"question": "How long may I send back a damaged item?"})
    done = cli(example, "diff", "acme-support", "HEAD")
    assert "'How long may I send back a damaged item?'" in done.out
    assert cli(example, "split", "acme-support", "--move", "q-001", "--to", "holdout", "--force",
               "--reason", "seen in a macro").code == 0  # fmt: skip
    done = cli(example, "diff", "acme-support", "HEAD")
    assert "How long may I send back" not in done.out
    assert "question: changed (a holdout item: not shown)" in done.out
    assert "holdout: false -> true" in done.out and "HOLDOUT MOVE: q-001" in done.out


def test_a_sealed_items_change_with_and_without_the_key(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    keyfile, recipient = key
    _seal_and_commit(cli, example, recipient, monkeypatch)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(example, "unseal", "acme-support").code == 0
    _edited(example, "q-004", EDITS["key point"][0])
    assert cli(example, "seal", "acme-support", "-r", recipient).code == 0
    for held in (str(keyfile), None):  # CI with the key, a tuner without
        if held is None:
            monkeypatch.delenv("EVALSET_AGE_IDENTITY")
        for form in FORMATS.values():
            done = cli(example, "diff", "acme-support", "HEAD", *form)
            assert done.code == 0 and "q-004" in done.out, done.err
            for label in (EDITS["key point"][1], *OLD):
                assert label not in done.out, (held, form, label)
        text = cli(example, "diff", "acme-support", "HEAD").out
        shown = "key_points[0]: added" if held else "sealed content: changed"
        assert f"{shown} (a holdout item: not shown)" in text, text


def test_added_items_are_listed_in_file_order_with_or_without_the_key(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed item compared by fingerprint was listed after the plain ones, so the same
    diff read differently for the key holder and for a tuner."""
    from evalset.holdout.seal import seal_arrivals
    from evalset.sets.model import Item

    keyfile, recipient = key
    _seal_and_commit(cli, example, recipient, monkeypatch)
    arriving = [
        Item(id="q-900", question="Held out and sealed on arrival?", status="draft", holdout=True),
        Item(id="q-901", question="A tuning draft after it?", status="draft", holdout=False),
    ]
    with edit_set(example / "sets" / "acme-support.yaml") as editor:
        arrivals = seal_arrivals(editor.current, arriving)
        editor.append_items(arrivals.entries)
    assert arrivals.sealed == ["q-900"]
    for held in (None, str(keyfile)):
        if held is not None:
            monkeypatch.setenv("EVALSET_AGE_IDENTITY", held)
        done = cli(example, "diff", "acme-support", "HEAD", "--json")
        assert json.loads(done.out)["added"] == ["q-900", "q-901"], (held, done.out)


# what happens to a sealed item (the set's holdout is sealed and committed first), and what
# any diff of it says, with the key or without: its side and status are in the clear
SEALED_MOVES = {
    "a tuning item moved into the holdout": (
        ["split", "acme-support", "--move", "q-001", "--to", "holdout", "--force", "--reason",
         "seen in a macro"],
        {"holdout_moves": [{"id": "q-001", "from": "tuning", "to": "holdout"}], "retired": []},
    ),
    "a holdout item moved to tuning (the leak)": (
        ["split", "acme-support", "--move", "q-004", "--to", "tuning", "--force", "--reason",
         "published"],
        {"holdout_moves": [{"id": "q-004", "from": "holdout", "to": "tuning"}], "retired": []},
    ),
    "a holdout item retired": (
        ["retire", "acme-support", "q-004", "--reason", "policy withdrawn"],
        {"holdout_moves": [], "retired": ["q-004"]},
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", SEALED_MOVES)
def test_a_sealed_items_move_or_retirement_is_told_with_or_without_the_key(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """A move out of the holdout is the leak a reviewer without the key most needs to see:
    it was shown as a sealed item's content changed, and nothing more."""
    keyfile, recipient = key
    command, told = SEALED_MOVES[what]
    _seal_and_commit(cli, example, recipient, monkeypatch)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    done = cli(example, *command)
    assert done.code == 0, done.err
    for held in (str(keyfile), None):
        if held is None:
            monkeypatch.delenv("EVALSET_AGE_IDENTITY")
        found = json.loads(cli(example, "diff", "acme-support", "HEAD", "--json").out)
        assert {k: found[k] for k in told} == told, (held, found)
        text = cli(example, "diff", "acme-support", "HEAD").out
        if told["holdout_moves"]:
            assert "HOLDOUT MOVE" in text, (held, text)


def _reverify(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli(example, "verify", "acme-support", "q-004").code == 0


def _move(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli(example, *SEALED_MOVES["a tuning item moved into the holdout"][0])
    assert done.code == 0, done.err


def _by_hand(field: str, value: str):  # type: ignore[no-untyped-def]
    """An edit of what sealed q-004 shows, its ciphertext left as it is."""

    def edit(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
        path = example / "sets" / "acme-support.yaml"
        text = path.read_text()
        at = text.index("  - id: q-004\n")
        end = text.index("    sealed:\n", at)
        shown = re.sub(rf"(?m)^    {field}: .*$", f"    {field}: {value}", text[at:end])
        assert shown != text[at:end]
        path.write_text(text[:at] + shown + text[end:])

    return edit


SHOWN = ("category", "holdout", "status", "verified")
"""What a sealed item shows beside its ciphertext (besides its id)."""

# what is done to the committed sealed holdout, and what a diff against HEAD says of it
# without the key: per item, the fields it names (their values are bookkeeping, shown)
SHOWN_CHANGES = {
    "q-004 re-verified with the key": (
        _reverify, {"changed": {"q-004": ["verified"]}, "not_compared": []},
    ),
    "q-001 moved into the holdout": (
        _move, {"changed": {"q-001": ["holdout", "sealed content"]}, "not_compared": []},
    ),
    "q-004's category edited by hand": (
        _by_hand("category", "paraphrased"), {"changed": {}, "not_compared": ["q-004"]},
    ),
    "q-004's verified edited by hand": (
        _by_hand("verified", "0e183dc93927"), {"changed": {}, "not_compared": ["q-004"]},
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", SHOWN_CHANGES)
def test_what_a_sealed_item_shows_is_diffed_as_with_the_key(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """Without the key, a diff compared a sealed item by fingerprint and its side and status
    alone: a re-verification read "no change" (with the key: "1 re-verified"), a move into
    the holdout did not say `holdout: false -> true`, and a category or verified snapshot
    edited by hand, its sealed content not, read "no change"."""
    keyfile, recipient = key
    act, told = SHOWN_CHANGES[what]
    _seal_and_commit(cli, example, recipient, monkeypatch)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    act(example, cli)
    with_key = cli(example, "diff", "acme-support", "HEAD", "--json")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    done = cli(example, "diff", "acme-support", "HEAD", "--json")
    assert done.code == 0, done.err
    found = json.loads(done.out)
    fields = {c["id"]: [f["field"] for f in c["changes"]] for c in found["changed"]}
    assert {"changed": fields, "not_compared": found["not_compared"]} == told
    if with_key.code == 0:  # (a hand edit the content does not follow: refused with it)
        opened = json.loads(with_key.out)
        assert opened["not_compared"] == found["not_compared"]
        plain = {c["id"]: [f for f in c["changes"] if f["field"] != "sealed content"]
                 for c in found["changed"]}  # fmt: skip
        for change in opened["changed"]:  # the same bookkeeping, the same values
            shown = [f for f in change["changes"] if f["field"] in SHOWN]
            assert shown == plain[change["id"]], (shown, plain)
    text = cli(example, "diff", "acme-support", "HEAD").out
    if "re-verified" in what:
        assert "1 re-verified" in text, text
