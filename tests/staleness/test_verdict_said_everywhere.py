"""What a verdict found is said by every form of `evalset stale`: text, `--json` and
`--format md`.

- A heading reworded together with its text under an anchor that did not change (an HTML
  ``id``, or a markdown anchor that ignores case) was told `changed` with the text's diff
  only: the heading's rewording, which changes what the text is about, was said nowhere.
- A heading repeated in a document (``### Exceptions`` under each product) renumbers the
  ones below it when one above is removed: ``exceptions`` then names what ``exceptions-1``
  held, and was told `changed` with a diff against that other text, as if its own had been
  rewritten so; a note now says whose text it is and that its own is nowhere. The note on
  the next one guessed a heading *added* above; it says added or removed.
- A subsection's heading reworded over the same text made its cited parent `changed`, told
  as the subsection removed and another added, each with the same text; it is one part,
  ``renamed``, with the heading's word diff.
- A section whose text went to several new places alike is `moved` to the first by name,
  a guess `--fix-moved` leaves to a person; `stale` showed the guess as the answer (the
  text and the comment said "moved -> A", `--json` said `"new": A`), and the comment left
  out the other places and a moved section's reworded heading.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, set_item, verified_items, write_files
from evalset.corpus.snapshot import take_snapshot

A = "# A\n\n## Fees\n\nCard fee is 2%.\n\n## Limits\n\nLimit is 500.\n"
B = "# B\n\nOther.\n"
MFA = '<h1>IT</h1>\n<h2 id="mfa">Multi-factor: {who}</h2>\n<p>MFA is required for {what}.</p>\n'
TIE_NOTE = (
    "its text went to b.md#charges and b.md#fees-again alike, none of which held it before: "
    "`--fix-moved` leaves it, cite the one meant by hand"
)
POLICY = (
    "# Policy\n\n## Returns\n\nParent text.\n\n### Damaged\n\nDamaged items 30 days.\n\n"
    "### Opened\n\nOpened items 14 days.\n"
)
DEVICES = (
    "# Devices\n\n## Laptops\n\n### Exceptions\n\nNo returns after 14 days.\n\n"
    "## Phones\n\n### Exceptions\n\nNo returns once unsealed.\n\n"
    "## Tablets\n\n### Exceptions\n\nNone.\n"
)
DEVICES_NOW = DEVICES.replace("## Laptops\n\n### Exceptions\n\nNo returns after 14 days.\n\n", "")
TOOK_NOTE = (
    "the text now under it is what d.md#exceptions-1 held when the item was verified, "
    "unchanged, and the text it was verified against is nowhere now: if a heading of the same "
    "name above it was removed, this section's own text was deleted"
)
KEPT_NOTE = (
    "the text it was verified against is now, unchanged, at d.md#exceptions, which did not "
    "hold it before: if a heading of the same name above it was added or removed, cite that "
    "section"
)
# name -> (corpus as verified, corpus now, citation,
#          (lines of the text output, JSON fields, lines of the comment)); "T:" marks what
# is shown only when the snapshots store text (outside git, a heading is all they hold),
# "H:" what is shown only when they do not
CASES = {
    "heading and text reworded, HTML id kept": (
        {"corpus/it.html": MFA.format(who="all staff", what="remote access")},
        {"corpus/it.html": MFA.format(who="contractors only", what="all access")},
        "it.html#mfa",
        (
            [
                "  changed    it.html#mfa",
                "      heading: Multi-factor: [-all staff-] {+contractors only+}",
                "T:      MFA is required for [-remote-] {+all+} access.",
            ],
            {
                "status": "changed",
                "heading": {
                    "was": "Multi-factor: all staff",
                    "now": "Multi-factor: contractors only",
                },
                "T:diff": "MFA is required for [-remote-] {+all+} access.",
            },
            [
                "| docs | `q` | `it.html#mfa` | changed |  |",
                "heading: Multi-factor: ~~all staff~~ **contractors only**",
                "T:MFA is required for ~~remote~~ **all** access.",
            ],
        ),
    ),
    "heading and text reworded, markdown anchor the same": (
        {"corpus/pay.md": "# Pay\n\n## Staff hired Before 2020\n\n0.30 EUR per km.\n"},
        {"corpus/pay.md": "# Pay\n\n## Staff hired before 2020\n\n0.35 EUR per km.\n"},
        "pay.md#staff-hired-before-2020",
        (
            [
                "  changed    pay.md#staff-hired-before-2020",
                "      heading: Staff hired [-Before-] {+before+} 2020",
                "T:      [-0.30-] {+0.35+} EUR per km.",
            ],
            {
                "status": "changed",
                "heading": {"was": "Staff hired Before 2020", "now": "Staff hired before 2020"},
            },
            ["heading: Staff hired ~~Before~~ **before** 2020", "T:~~0.30~~ **0.35** EUR per km."],
        ),
    ),
    "moved to two new places alike": (
        {"corpus/a.md": A, "corpus/b.md": B},
        {
            "corpus/a.md": "# A\n\n## Limits\n\nLimit is 500.\n",
            "corpus/b.md": B
            + "\n## Charges\n\nCard fee is 2%.\n\n## Fees again\n\nCard fee is 2%.\n",
        },
        "a.md#fees",
        (
            [
                "  moved      a.md#fees -> b.md#charges (also identical: b.md#fees-again)",
                "      heading: [-Fees-] {+Charges+}",
                f"      ({TIE_NOTE})",
            ],
            {
                "status": "moved",
                "new": "b.md#charges",
                "candidates": ["b.md#fees-again"],
                "tied": True,
                "note": TIE_NOTE,
            },
            [
                "| docs | `q` | `a.md#fees` | moved | b.md#charges (also identical: "
                "b.md#fees-again) |",
                "heading: ~~Fees~~ **Charges**",
                "(" + TIE_NOTE.replace("`", "\\`") + ")",
            ],
        ),
    ),
    "moved by a reworded heading, also copied to another document": (
        {"corpus/a.md": A, "corpus/b.md": B},
        {
            "corpus/a.md": A.replace("## Fees", "## Card fees"),
            "corpus/b.md": B + "\n## Charges\n\nCard fee is 2%.\n",
        },
        "a.md#fees",
        (
            [
                "  moved      a.md#fees -> a.md#card-fees (also identical: b.md#charges)",
                "      heading: [-Fees-] {+Card fees+}",
            ],
            {"status": "moved", "new": "a.md#card-fees", "candidates": ["b.md#charges"]},
            [
                "| docs | `q` | `a.md#fees` | moved | a.md#card-fees (also identical: "
                "b.md#charges) |",
                "heading: ~~Fees~~ **Card fees**",
            ],
        ),
    ),
    "a repeated heading removed above: the label now names the next one's text": (
        {"corpus/d.md": DEVICES},
        {"corpus/d.md": DEVICES_NOW},
        "d.md#exceptions",
        (
            [
                "  changed    d.md#exceptions",
                "T:      No returns [-after 14 days.-] {+once unsealed.+}",
                f"      ({TOOK_NOTE})",
            ],
            {"status": "changed", "candidates": [], "note": TOOK_NOTE},
            [
                "| docs | `q` | `d.md#exceptions` | changed |  |",
                "T:No returns ~~after 14 days.~~ **once unsealed.**",
                f"({TOOK_NOTE})",
            ],
        ),
    ),
    "a repeated heading removed above: the next one's text is under the label before": (
        {"corpus/d.md": DEVICES},
        {"corpus/d.md": DEVICES_NOW},
        "d.md#exceptions-1",
        (
            [
                "  changed    d.md#exceptions-1",
                "T:      [-No returns once unsealed.-] {+None.+}",
                f"      ({KEPT_NOTE})",
            ],
            {"status": "changed", "candidates": ["d.md#exceptions"], "note": KEPT_NOTE},
            [
                "| docs | `q` | `d.md#exceptions-1` | changed | d.md#exceptions |",
                f"({KEPT_NOTE})",
            ],
        ),
    ),
    "an empty section renamed (empty sections never count as moved)": (
        {"corpus/a.md": "# A\n\n## Fees\n\n## Limits\n\nLimit is 500.\n"},
        {"corpus/a.md": "# A\n\n## Charges\n\n## Limits\n\nLimit is 500.\n"},
        "a.md#fees",
        (
            [
                "  deleted    a.md#fees",
                "T:      was: (nothing: the section was empty under its heading)",
            ],
            {"status": "deleted", "T:old_text": ""},
            ["T:was: (nothing: the section was empty under its heading)"],
        ),
    ),
    "a subsection's heading reworded over the same text, its parent cited": (
        {"corpus/p.md": POLICY},
        {"corpus/p.md": POLICY.replace("### Damaged", "### Damaged goods")},
        "p.md#returns",
        (
            [
                "T:  changed    p.md#returns (in #damaged-goods)",
                "H:  changed    p.md#returns",
                "T:      #damaged -> #damaged-goods (renamed, its text the same): Damaged "
                "{+goods+}",
            ],
            {
                "status": "changed",
                "T:changed_in": [
                    {
                        "section": "p.md#damaged-goods",
                        "status": "renamed",
                        "old": "Damaged items 30 days.",
                        "new": "Damaged items 30 days.",
                        "diff": "Damaged items 30 days.",
                        "was": "p.md#damaged",
                        "heading": {"was": "Damaged", "now": "Damaged goods"},
                    }
                ],
            },
            [
                "T:| docs | `q` | `p.md#returns` | changed | in #damaged-goods |",
                "H:| docs | `q` | `p.md#returns` | changed |  |",
                "T:#damaged -> #damaged-goods (renamed, its text the same): Damaged **goods**",
            ],
        ),
    ),
}


def _shown(expected, store_text: bool):  # type: ignore[no-untyped-def]
    """``expected`` (lines, or JSON fields) without the "T:" ones when no text is stored, and
    without the "H:" ones when it is, their marks removed."""
    keep = [
        (x, x.removeprefix("T:").removeprefix("H:"))
        for x in expected
        if not x.startswith("T:" if not store_text else "H:")
    ]
    if isinstance(expected, dict):
        return {key: expected[x] for x, key in keep}
    return [line for _, line in keep]


def _stale_corpus(repo: Path, case: str, store_text: bool) -> None:
    before, after, citation, _ = CASES[case]
    write_files(repo, before)
    old = take_snapshot(
        repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=store_text
    )
    (repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + verified_items(set_item("q", citation), old.short)
    )
    for path in before:
        (repo / path).unlink()
    write_files(repo, after)
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=store_text)


@pytest.mark.parametrize("store_text", [True, False], ids=["text stored", "hashes only"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_form_of_stale_says_what_changed(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, store_text: bool
) -> None:
    lines, fields, md_lines = (_shown(part, store_text) for part in CASES[case][3])
    _stale_corpus(corpus_repo, case, store_text)
    text = cli(corpus_repo, "stale")
    assert text.code == 1, text.err
    shown = text.out.splitlines()
    start = shown.index(lines[0])
    assert shown[start : start + len(lines)] == lines
    as_json = cli(corpus_repo, "stale", "--json")
    assert as_json.code == 1, as_json.err
    (entry,) = json.loads(as_json.out)["items"][0]["citations"]
    assert {k: entry.get(k) for k in fields} == fields
    if "tied" not in fields:
        assert "tied" not in entry
    md = cli(corpus_repo, "stale", "--format", "md")
    assert md.code == 1, md.err
    for line in md_lines:
        assert line in md.out.splitlines(), line


def test_fix_moved_leaves_a_tie_and_says_so_in_each_form(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _stale_corpus(corpus_repo, "moved to two new places alike", True)
    before = (corpus_repo / "sets" / "docs.yaml").read_bytes()
    done = cli(corpus_repo, "stale", "--fix-moved", "--json")
    assert done.code == 1, done.err
    data = json.loads(done.out)
    assert data["not_fixed"] == {"q": {"a.md#fees": ["b.md#charges", "b.md#fees-again"]}}
    assert data["items"][0]["citations"][0]["tied"] is True
    assert (corpus_repo / "sets" / "docs.yaml").read_bytes() == before


# `stale --fix-moved` rewrites set files: each form says what it rewrote and what it left.
# Before, the comment (`--format md`) said neither: the set file changed under the reviewer.
FIXES = {
    "moved by a reworded heading, also copied to another document": (
        "fixed q: a.md#fees -> a.md#card-fees",
        {"fixed": {"q": {"a.md#fees": "a.md#card-fees"}}, "not_fixed": {}},
        "Rewritten in place by `--fix-moved` (1): `q`: `a.md#fees` → `a.md#card-fees`.",
    ),
    "moved to two new places alike": (
        "not fixed q: a.md#fees moved to b.md#charges and b.md#fees-again alike; cite the one "
        "meant by hand",
        {"fixed": {}, "not_fixed": {"q": {"a.md#fees": ["b.md#charges", "b.md#fees-again"]}}},
        "Not rewritten, moved to several places alike (cite the one meant by hand) (1): `q`: "
        "`a.md#fees` → `b.md#charges` or `b.md#fees-again`.",
    ),
}


@pytest.mark.parametrize("form", ["text", "json", "md"])
@pytest.mark.parametrize("case", list(FIXES))
def test_fix_moved_says_what_it_rewrote_in_every_form(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, form: str
) -> None:
    _stale_corpus(corpus_repo, case, True)
    line, fields, md_line = FIXES[case]
    args = {"text": [], "json": ["--json"], "md": ["--format", "md"]}[form]
    done = cli(corpus_repo, "stale", "--fix-moved", *args)
    assert done.code in (0, 1), done.err
    if form == "text":
        assert line in done.out.splitlines()
    elif form == "json":
        data = json.loads(done.out)
        assert {k: data[k] for k in fields} == fields
    else:
        assert md_line in done.out.splitlines()


# Item ids are unique within a set only. With two sets holding an item of the same id, each
# rewritten (or left tied), every form said only the last set's: the other set file changed
# unreported.
TWO_SETS = {
    "rewritten in both sets": (
        "# A\n\n## Charges\n\nCard fee is 2%.\n\n## Maximum\n\nLimit is 500.\n",
        ["fixed q: a.md#fees -> a.md#charges", "fixed q: a.md#limits -> a.md#maximum"],
        {"fixed": {"q": {"a.md#fees": "a.md#charges", "a.md#limits": "a.md#maximum"}}},
        ["`q`: `a.md#fees` → `a.md#charges`", "`q`: `a.md#limits` → `a.md#maximum`"],
    ),
    "tied in both sets": (
        "# A\n\n## C1\n\nCard fee is 2%.\n\n## C2\n\nCard fee is 2%.\n\n"
        "## M1\n\nLimit is 500.\n\n## M2\n\nLimit is 500.\n",
        ["not fixed q: a.md#fees moved to a.md#c1 and a.md#c2 alike; cite the one meant by hand",
         "not fixed q: a.md#limits moved to a.md#m1 and a.md#m2 alike; cite the one meant by "
         "hand"],
        {"not_fixed": {"q": {"a.md#fees": ["a.md#c1", "a.md#c2"],
                             "a.md#limits": ["a.md#m1", "a.md#m2"]}}},
        ["`q`: `a.md#fees` → `a.md#c1` or `a.md#c2`",
         "`q`: `a.md#limits` → `a.md#m1` or `a.md#m2`"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("form", ["text", "json", "md"])
@pytest.mark.parametrize("case", list(TWO_SETS))
def test_fix_moved_reports_items_of_one_id_in_two_sets(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, form: str
) -> None:
    after, lines, fields, md_parts = TWO_SETS[case]
    write_files(corpus_repo, {"corpus/a.md": A})
    old = take_snapshot(corpus_repo, "corpus", corpus_repo / "snapshots", corpus_repo / ".evalset")
    for name, citation in (("docs", "a.md#fees"), ("other", "a.md#limits")):
        header = SET_HEADER.replace("name: docs", f"name: {name}")
        items = verified_items(set_item("q", citation), old.short)
        (corpus_repo / "sets" / f"{name}.yaml").write_text(header + items)
    write_files(corpus_repo, {"corpus/a.md": after})
    take_snapshot(corpus_repo, "corpus", corpus_repo / "snapshots", corpus_repo / ".evalset")
    args = {"text": [], "json": ["--json"], "md": ["--format", "md"]}[form]
    done = cli(corpus_repo, "stale", "--fix-moved", *args)
    assert done.code in (0, 1), done.err
    if form == "text":
        assert all(line in done.out.splitlines() for line in lines), done.out
    elif form == "json":
        data = json.loads(done.out)
        assert {k: data[k] for k in fields} == fields
    else:
        assert all(part in done.out for part in md_parts), done.out
