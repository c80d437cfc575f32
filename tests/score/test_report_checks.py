"""Every command that reads a report checks it alike: `check-pin`, `gate` and `accept` refuse,
in one sentence and with exit status 2, a report edited after `evalset score` wrote it and
one whose digest was made to match but whose content is not of a report's shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import RUN, score_ws, write_run

from evalset.score.report import DIGEST_MARK, digest_of

__all__ = ["score_ws"]


@pytest.fixture
def released(score_ws: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """The scoring workspace with release 0.1.0 and a report of RUN on it,
    reports/base.json."""
    assert cli(score_ws, "release", "docs", "--bump", "minor", "--exclude-drafts").code == 0
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/base.json")
    assert done.code == 0, done.err
    assert cli(score_ws, "check-pin", "reports/base.json").code == 0
    return score_ws


def _readers(report: str) -> dict[str, list[str]]:
    return {
        "check-pin": ["check-pin", report],
        "check-pin --json": ["check-pin", report, "--json"],
        "gate": ["gate", "reports/base.json", report],
        "accept": ["accept", report],
    }


EDITED = "was changed after `evalset score` wrote it (its content no longer matches its digest)"

# edits made after the report was written, its digest left as it was
EDITS = {
    "a score": ('"hit@1": 0.0', '"hit@1": 1.0', EDITED),
    "an overall value": ('"value": 0.', '"value": 0.9', EDITED),
    "an item's category": ('"category": "multi"', '"category": "lookup"', EDITED),
    "the run's path": ('"path": "run.jsonl"', '"path": "other.jsonl"', EDITED),
    "the digest": ('"digest": "sha256:', '"digest": "sha256:0', EDITED),
    # a key given again after the digest replaces the digested one as the report is read
    "items given again after the digest": ('"\n}\n', '",\n  "items": []\n}\n', EDITED),
    "the snapshot given again": ('"\n}\n', '",\n  "snapshot": "000000000000"\n}\n', EDITED),
    "a digest given again": ('"\n}\n', f'",\n  "digest": "sha256:{"0" * 64}"\n}}\n', EDITED),
    "no digest": (
        DIGEST_MARK,
        ',\n  "digested": "',
        'is not an evalset report (it has no "digest" text)',
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_report_edited_after_it_was_written_is_refused_by_every_reader(  # type: ignore[no-untyped-def]
    released: Path, cli, edit: str
) -> None:
    old, new, problem = EDITS[edit]
    text = (released / "reports" / "base.json").read_text()
    assert old in text
    (released / "reports" / "edited.json").write_text(text.replace(old, new, 1))
    for reader, args in _readers("reports/edited.json").items():
        done = cli(released, *args)
        assert done.code == 2, (reader, done.out, done.err)
        message = f"reports/edited.json: {problem}"
        if reader.endswith("--json"):
            assert message in json.loads(done.out)["error"]
        else:
            assert done.err.startswith(f"evalset: {message}"), (reader, done.err)
            assert len(done.err.strip().splitlines()) == 1 and done.out == ""
    assert not (released / "reports" / "accepted").exists()


def test_check_pin_still_takes_a_pin_and_another_tool_s_report(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A pin alone, and another tool's report carrying a pin, have no digest to check."""
    pin = json.loads(cli(released, "pin", "docs").out)
    (released / "pin.json").write_text(json.dumps(pin))
    (released / "theirs.json").write_text(json.dumps({"evalset": pin, "faithfulness": 0.87}))
    rows = {"evalset": pin, "items": [{"question": "Whose rows?", "score": 1}]}  # its own rows
    (released / "their-rows.json").write_text(json.dumps(rows))
    crlf = released / "crlf.json"  # a checkout that rewrote line endings keeps the digest
    crlf.write_bytes((released / "reports" / "base.json").read_bytes().replace(b"\n", b"\r\n"))
    for name in ("pin.json", "theirs.json", "their-rows.json", "crlf.json"):
        done = cli(released, "check-pin", name)
        assert done.code == 0, (name, done.err)
        assert done.out.startswith("pin ok: docs 0.1.0")


def redigested(text: str) -> str:
    """The report's text with its digest made again, as a tool forging it would."""
    body = text[: text.rindex(DIGEST_MARK)]
    return f'{body}{DIGEST_MARK}{digest_of(body)}"\n}}\n'


def _set(report: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        report = report[key]
    report[path[-1]] = value


def _drop(report: dict[str, Any], path: tuple[Any, ...]) -> None:
    for key in path[:-1]:
        report = report[key]
    del report[path[-1]]


MISSING = object()
"""In MALFORMED: the key removed."""
REPEAT = object()
"""In MALFORMED: the first row, again (a gate would average both in)."""

# what the readers of a report use, each given a value of another kind (its digest made to
# match): the shape check names it, rather than a reader failing on it (a category that is a
# list crashed the gate with "unhashable type")
MALFORMED: dict[str, tuple[tuple[Any, ...], Any, str]] = {
    "category a list": (("items", 0, "category"), ["lookup"],
                        "items[0].category is a list, not text"),
    "category an object": (("items", 0, "category"), {"name": "lookup"},
                           "items[0].category is an object, not text"),
    "category a number": (("items", 0, "category"), 7,
                          "items[0].category is a number, not text"),
    # every item evalset scores has a category: a gate compared this one in none, and only
    # in the overall row, which never fails
    "category null": (("items", 0, "category"), None,
                      "items[0].category is null (item 'a1'): every item evalset scores has "
                      "a category"),
    "category null, a later row": (("items", 3, "category"), None,
                                   "items[3].category is null (item 'm1'): every item "
                                   "evalset scores has a category"),
    "no category": (("items", 0, "category"), MISSING, 'items[0] has no "category"'),
    "split a list": (("items", 0, "split"), ["tuning"], "items[0].split is a list, not text"),
    "trial text": (("items", 0, "trial"), "0", "items[0].trial is text, not whole number"),
    "trial a fraction": (("items", 0, "trial"), 0.5,
                         "items[0].trial is a number, not whole number"),
    "trial a boolean": (("items", 0, "trial"), False,
                        "items[0].trial is a boolean, not whole number"),
    "trial negative": (("items", 0, "trial"), -1,
                       "items[0].trial is -1, not a whole number from 0"),
    "id a number": (("items", 0, "id"), 1, "items[0].id is a number, not text"),
    "first rank text": (("items", 0, "first_rank"), "1",
                        "items[0].first_rank is text, not whole number or null"),
    "row a list": (("items", 0), [], "items[0] is not an item row with metrics from 0 to 1"),
    "a row repeated": (("items", 1), REPEAT, "items[1] repeats item "),
    "a row repeated, other metrics": (("items", 2), {"metrics": {"mrr": 1.0}},
                                      "items[2] repeats item "),
    # the gate compares an item in the category of its first row: another trial's was
    # passed over without a word (evalset writes an item's category in each of its rows)
    "two categories of an item": (("items", 1), {"metrics": {}, "trial": 1, "category": "multi"},
                                  "items[1] gives item 'a1' category 'multi', but items[0] "
                                  "'lookup': an item has one category in every trial"),
    "kind a list": (("report", "kind"), ["retrieval"], "report.kind is a list, not text"),
    "format a boolean": (("report", "format"), True, "its report format True is none evalset"),
    "snapshot an object": (("snapshot",), {"id": "x"}, "snapshot is an object, not text or null"),
    "version a number": (("evalset", "version"), 1.0,
                         "evalset.version is a number, not text or null"),
    # a version evalset never writes: the gate read it as no release, and checked no pin
    **{f"version {v}": (("evalset", "version"), v, f"evalset.version {v!r} is none evalset "
                        'writes ("X.Y.Z", "X.Y.Z+modified" or null)')
       for v in ("0.1.0-rc1", "0.1.0+x", "v0.1.0", "0.1.0 ", "0.1.0+modified+modified")},
    "set a list": (("evalset", "set"), ["docs"], "evalset.set is a list, not text"),
    "no fingerprint": (("evalset", "fingerprint"), MISSING, 'evalset has no "fingerprint"'),
    "fingerprint format text": (("evalset", "fingerprint_format"), "2",
                                "evalset.fingerprint_format is text, not whole number"),
    "item fingerprints a list": (("evalset", "item_fingerprints"), ["a1"],
                                 "evalset.item_fingerprints is not an object of texts"),
    "an item fingerprint a list": (("evalset", "item_fingerprints", "a1"), ["x"],
                                   "evalset.item_fingerprints is not an object of texts"),
    "better a list": (("definitions", "hit@1", "better"), ["lower"],
                      "metric 'hit@1': better is neither \"higher\" nor \"lower\""),
    "family a number": (("definitions", "hit@1", "family"), 1,
                        "definitions.hit@1.family is a number, not text"),
    "judge a list": (("judge",), ["exact"], "judge is a list, not an object"),
    "judge name a number": (("judge",), {"name": 1, "version": "3"},
                            "judge.name is a number, not text"),
    "judge version a list": (("judge",), {"name": "exact", "version": ["3"]},
                             "judge.version is a list, not text or null"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_report_of_the_wrong_shape_is_refused_by_every_reader(  # type: ignore[no-untyped-def]
    released: Path, cli, case: str
) -> None:
    path, value, problem = MALFORMED[case]
    report = json.loads((released / "reports" / "base.json").read_text())
    report["items"][0]["category"] = "lookup"  # a row with every key, as the first
    if value is MISSING:
        _drop(report, path)
    elif value is REPEAT:
        _set(report, path, dict(report["items"][0]))
    elif isinstance(value, dict) and "metrics" in value and path[0] == "items":
        _set(report, path, {**report["items"][0], **value})
    else:
        _set(report, path, value)
    report.pop("digest")
    text = json.dumps(report, indent=2, ensure_ascii=False)
    (released / "reports" / "odd.json").write_text(
        redigested(text[: text.rindex("\n}")] + DIGEST_MARK + '"\n}\n')
    )
    for reader, args in _readers("reports/odd.json").items():
        done = cli(released, *args)
        assert done.code == 2, (reader, done.out, done.err)
        message = f"reports/odd.json: is not an evalset report ({problem}"
        said = json.loads(done.out)["error"] if reader.endswith("--json") else done.err
        assert message in said, (reader, said)
        assert "internal error" not in said and "Traceback" not in said
    assert not (released / "reports" / "accepted").exists()


# a row of the report (item a1's, a tuning item of category lookup) changed, its digest made
# to match: what it then says, and what every reader says of it
ROWS = {
    "an item the set never held": ({"id": "zz9"}, "scores item 'zz9', which release 0.1.0 "
                                                  "holds no active item of"),
    "a draft": ({"id": "d1"}, "scores item 'd1', which release 0.1.0 holds no active item of"),
    "a retired item": ({"id": "x1"}, "scores item 'x1', which release 0.1.0 holds no active "
                                     "item of"),
    "another category": ({"category": "multi"}, "gives item 'a1' category 'multi', but "
                                                "release 0.1.0 has it in 'lookup'"),
    "the other split": ({"split": "holdout"}, "gives item 'a1' split 'holdout', but release "
                                              "0.1.0 has it in 'tuning'"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(ROWS))
def test_a_row_that_says_other_than_the_release_is_refused_by_every_reader(  # type: ignore[no-untyped-def]
    released: Path, cli, case: str
) -> None:
    """Only the pin was checked against the release: a row moved to another category (where
    the gate then compared its score), to the other split, or made a row of an item the
    release does not hold, passed check-pin, gate and accept once its digest was made
    again."""
    change, problem = ROWS[case]
    report = json.loads((released / "reports" / "base.json").read_text())
    (k,) = [k for k, row in enumerate(report["items"]) if row["id"] == "a1"]
    assert (report["items"][k]["category"], report["items"][k]["split"]) == ("lookup", "tuning")
    report["items"][k].update(change)
    report.pop("digest")
    text = json.dumps(report, indent=2, ensure_ascii=False)
    (released / "reports" / "rows.json").write_text(
        redigested(text[: text.rindex("\n}")] + DIGEST_MARK + '"\n}\n')
    )
    said = f"report's items[{k}] {problem}: the report was altered"
    readers = {**_readers("reports/rows.json"), "gate, as the baseline": ["gate",
               "reports/rows.json", "reports/base.json"]}  # fmt: skip
    for reader, args in readers.items():
        done = cli(released, *args)
        if reader.startswith("check-pin"):  # a pin that fails the check: a finding
            assert done.code == 1, (reader, done.out, done.err)
            found = json.loads(done.out)["problems"] if "--json" in args else [done.err]
            assert said in found[0], (reader, found)
        else:
            assert done.code == 2, (reader, done.out, done.err)
            assert done.err.startswith("evalset: reports/rows.json: its pin fails `evalset "
                                       f"check-pin` ({said})"), (reader, done.err)  # fmt: skip
        assert "Traceback" not in done.err and len(done.err.strip().splitlines()) <= 1
    assert not (released / "reports" / "accepted").exists()


@pytest.mark.parametrize("version", ["01.1.0", "0.01.0", "0.1.00"])
def test_a_release_written_another_way_is_checked_by_every_reader(  # type: ignore[no-untyped-def]
    released: Path, cli, version: str
) -> None:
    """`01.1.0` names release 1.1.0 a second way: the gate read it as no release and compared
    the report without checking its pin."""
    report = json.loads((released / "reports" / "base.json").read_text())
    report["evalset"]["version"] = version
    report.pop("digest")
    text = json.dumps(report, indent=2, ensure_ascii=False)
    (released / "reports" / "other.json").write_text(
        redigested(text[: text.rindex("\n}")] + DIGEST_MARK + '"\n}\n')
    )
    said = f"report names version {version!r}, which is not X.Y.Z"
    for reader, args in _readers("reports/other.json").items():
        done = cli(released, *args)
        if reader.startswith("check-pin"):
            assert done.code == 1, (reader, done.out, done.err)
        else:
            assert done.code == 2 and f"its pin fails `evalset check-pin` ({said})" in done.err
        assert said in (done.out if "--json" in args else done.err), (reader, done.out)
    assert not (released / "reports" / "accepted").exists()


@pytest.mark.parametrize(
    "dropped", [("items",), ("items_digest",), ("items", "items_digest")], ids=" and ".join
)
def test_a_pin_without_what_every_report_s_pin_holds_is_refused_by_every_reader(  # type: ignore[no-untyped-def]
    released: Path, cli, dropped: tuple[str, ...]
) -> None:
    """Only the keys a pin held were compared with the release: a report whose pin lost its
    item counts and items digest, its digest made again, passed check-pin, gate and accept
    (and so could score other items than the release holds, unnoticed by the counts)."""
    report = json.loads((released / "reports" / "base.json").read_text())
    for key in dropped:
        report["evalset"].pop(key)
    report.pop("digest")
    text = json.dumps(report, indent=2, ensure_ascii=False)
    (released / "reports" / "short.json").write_text(
        redigested(text[: text.rindex("\n}")] + DIGEST_MARK + '"\n}\n')
    )
    said = (
        f"the pin lacks {' and '.join(dropped)}, which `evalset pin` writes into every "
        "report: the report was altered"
    )
    for reader, args in _readers("reports/short.json").items():
        done = cli(released, *args)
        if reader.startswith("check-pin"):
            assert done.code == 1, (reader, done.out, done.err)
            found = json.loads(done.out)["problems"] if "--json" in args else [done.err]
            assert said in found[0], (reader, found)
        else:
            assert done.code == 2, (reader, done.out, done.err)
            assert f"its pin fails `evalset check-pin` ({said})" in done.err, (reader, done.err)
        assert "Traceback" not in done.err
    assert not (released / "reports" / "accepted").exists()
