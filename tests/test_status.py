"""`evalset status`: its counts, checked against what `evalset validate` and the set say."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, write_files

SMALL = SET_HEADER.replace("name: docs", "name: small")
ITEMS = set_item("q-001", "a.md#refunds") + set_item("q-002", "a.md")


def _renamed(text: str) -> str:
    return text.replace("name: small", "name: support")


def _undeclared(text: str) -> str:
    return text.replace("category: direct-lookup", "category: direct-lookp", 1)


def _dangling(text: str) -> str:
    return text.replace("a.md#refunds", "a.md#no-such-section")


# Sets with different findings; each row: the files of the sets folder, and whether a
# snapshot of the corpus is taken first (citations are resolved, items may be verified).
CASES = {
    "clean-unverified": ({"sets/small.yaml": SMALL + ITEMS}, False),
    "clean-unverified-snapshot": ({"sets/small.yaml": SMALL + ITEMS}, True),
    "name-not-the-files": ({"sets/small.yaml": _renamed(SMALL + ITEMS)}, False),
    "name-not-the-files-snapshot": ({"sets/small.yaml": _renamed(SMALL + ITEMS)}, True),
    "twin-files": (
        {"sets/small.yaml": SMALL + ITEMS, "sets/small.yml": SMALL + ITEMS},
        False,
    ),
    "undeclared-category": ({"sets/small.yaml": _undeclared(SMALL + ITEMS)}, True),
    "dangling-citation": ({"sets/small.yaml": _dangling(SMALL + ITEMS)}, True),
    "two-sets": (
        {"sets/small.yaml": SMALL + ITEMS, "sets/docs.yaml": _dangling(SET_HEADER + ITEMS)},
        True,
    ),
}


@pytest.mark.parametrize(("files", "snapshot"), CASES.values(), ids=CASES.keys())
def test_status_counts_what_validate_counts(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, files: dict[str, str], snapshot: bool
) -> None:
    (corpus_repo / "evalset.toml").write_text("[validate]\nmin_per_category = 5\n", "utf-8")
    write_files(corpus_repo, {"corpus/a.md": "# Refunds\n\nWithin 30 days.\n", **files})
    commit_all(corpus_repo, "sets")
    if snapshot:
        assert cli(corpus_repo, "snapshot").code == 0
    checked = cli(corpus_repo, "validate", "--json")
    assert checked.code in (0, 1), checked.err
    report = json.loads(checked.out)
    per_file = {
        severity: Counter(f["file"] for f in report["findings"] if f["severity"] == severity)
        for severity in ("error", "warning")
    }
    shown = cli(corpus_repo, "status", "--json")
    assert shown.code == 0, shown.err
    sets = json.loads(shown.out)["sets"]
    assert sorted(s["path"] for s in sets) == sorted(report["files"])
    for s in sets:
        assert (s["errors"], s["warnings"]) == (
            per_file["error"][s["path"]],
            per_file["warning"][s["path"]],
        ), s["path"]
    assert sum(s["errors"] for s in sets) == report["errors"]
    assert sum(s["warnings"] for s in sets) == report["warnings"]
    human = cli(corpus_repo, "status").out
    for s in sets:
        assert f"{s['errors']} error(s), {s['warnings']} warning(s)" in human


def _item(ident: str, holdout: str | None, status: str = "active") -> str:
    extra = f"    holdout: {holdout}\n" if holdout is not None else ""
    return set_item(ident, "a.md") + extra + f"    status: {status}\n"


# Each row: the items (holdout flag, status), and the split counts `status --json` gives.
SPLITS = {
    "tuning-and-unassigned": (
        [("false", "active"), (None, "active")],
        {"active": 2, "tuning": 1, "holdout": 0, "unassigned": 1},
    ),
    "all-three": (
        [("false", "active"), ("true", "active"), (None, "active"), (None, "active")],
        {"active": 4, "tuning": 1, "holdout": 1, "unassigned": 2},
    ),
    "unassigned-only": (
        [(None, "active")],
        {"active": 1, "tuning": 0, "holdout": 0, "unassigned": 1},
    ),
    "drafts-and-retired-not-counted": (
        [("false", "active"), (None, "draft"), ("true", "retired"), ("false", "retired")],
        {"active": 1, "tuning": 1, "holdout": 0, "unassigned": 0},
    ),
}


@pytest.mark.parametrize(("items", "expected"), SPLITS.values(), ids=SPLITS.keys())
def test_status_json_counts_each_split_apart(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, items: list[tuple[str | None, str]], expected: dict[str, int]
) -> None:
    body = "".join(_item(f"q-{k:03}", h, s) for k, (h, s) in enumerate(items, 1))
    write_files(corpus_repo, {"corpus/a.md": "# A\n\ntext\n", "sets/small.yaml": SMALL + body})
    commit_all(corpus_repo, "set")
    (entry,) = json.loads(cli(corpus_repo, "status", "--json").out)["sets"]
    counts = entry["items"]
    assert {k: counts[k] for k in expected} == expected
    assert counts["tuning"] + counts["holdout"] + counts["unassigned"] == counts["active"]
    table = entry["categories"]["direct-lookup"]  # what the human table shows
    assert {k: table[k] for k in ("tuning", "holdout", "unassigned")} == {
        k: expected[k] for k in ("tuning", "holdout", "unassigned")
    }


# Items that fail the schema, each way, with their holdout flag and status: they count by
# what of them reads, and are listed as not compared (neither stale nor fresh).
BROKEN = {
    "an unknown field": "    reviewd: true\n",
    "a question that is a list": "    question: [a, b]\n",
    "a category the pattern refuses": "    category: ünï\n",
    "a status that is no status": "    status: live\n",
}


@pytest.mark.parametrize("holdout", ["true", "false", None])
@pytest.mark.parametrize("status", ["active", "draft", "retired"])
@pytest.mark.parametrize("broken", BROKEN)
def test_an_item_that_fails_the_schema_is_counted_and_named_not_dropped(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, broken: str, holdout: str | None, status: str
) -> None:
    """Before, an item with one schema error vanished from every count, the stale count
    included, while `evalset stale` refused to judge it."""
    bad = _item("q-002", holdout, status).replace("    status:", BROKEN[broken] + "    status:")
    if broken == "a status that is no status":  # what reads of it: an active item
        bad, status = bad.replace(f"    status: {status}\n", ""), "active"
    elif broken != "an unknown field":  # the field given twice: the bad value replaces it
        field = BROKEN[broken].split(":")[0]
        bad = re.sub(rf"(?m)^{field}: .*\n", "", bad, count=1)
    body = _item("q-001", "false") + bad
    write_files(corpus_repo, {"corpus/a.md": "# A\n\ntext\n", "sets/small.yaml": SMALL + body})
    commit_all(corpus_repo, "set")
    assert cli(corpus_repo, "snapshot").code == 0
    (entry,) = json.loads(cli(corpus_repo, "status", "--json").out)["sets"]
    counts = entry["items"]
    assert entry["invalid_items"] == ["q-002"] and entry["errors"] >= 1
    expected = Counter({"active": 1, "tuning": 1})  # q-001
    expected[{"draft": "draft", "retired": "retired"}.get(status, "active")] += 1
    if status == "active":
        expected[{"true": "holdout", "false": "tuning", None: "unassigned"}[holdout]] += 1
    kinds = ("active", "tuning", "holdout", "unassigned", "draft", "retired")
    assert {k: counts[k] for k in kinds} == {k: expected[k] for k in kinds}
    rows = entry["categories"].values()
    assert sum(r[s] for r in rows for s in ("tuning", "holdout", "unassigned")) == counts["active"]
    human = cli(corpus_repo, "status").out
    assert "failing the schema, not compared: 1 (q-002)" in human, human


@pytest.mark.parametrize(
    "named", [("small", "sets/small.yaml"), ("sets/small.yaml", "sets/../sets/small.yaml"),
              ("small", "ABSOLUTE")],
)  # fmt: skip
def test_a_set_named_twice_is_one_set(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, named: tuple[str, str]
) -> None:
    write_files(corpus_repo, {"corpus/a.md": "# A\n\ntext\n", "sets/small.yaml": SMALL + _item(
        "q-001", "false")})  # fmt: skip
    given = [str(corpus_repo / "sets/small.yaml") if n == "ABSOLUTE" else n for n in named]
    sets = json.loads(cli(corpus_repo, "status", *given, "--json").out)["sets"]
    assert [s["name"] for s in sets] == ["small"]


def test_drafts_are_listed_oldest_first_with_a_date_in_the_future_said_so(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path
) -> None:
    import datetime as dt

    today = dt.date.today()
    dated = {"q-past": today - dt.timedelta(days=10), "q-today": today}
    dated["q-future"] = today + dt.timedelta(days=400)
    items = "".join(
        f"  - id: {ident}\n    question: Question {ident}?\n    status: draft\n"
        + (f"    origin: {{kind: manual, date: {date.isoformat()}}}\n" if date else "")
        for ident, date in [("q-undated", None), *dated.items()]
    )
    write_files(corpus_repo, {"sets/small.yaml": SMALL + items})
    result = cli(corpus_repo, "status")
    assert result.code == 0, result.err
    listed = [line.split(";")[0] for line in result.out.splitlines() if line.startswith("    q-")]
    assert listed == [
        "    q-past  10 day(s) old",
        "    q-today  0 day(s) old",
        "    q-future  dated 400 day(s) in the future",
        "    q-undated  undated",
    ]
    drafts = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["drafts"]
    assert [(d["id"], d["age_days"]) for d in drafts] == [
        ("q-past", 10),
        ("q-today", 0),
        ("q-future", -400),
        ("q-undated", None),
    ]
