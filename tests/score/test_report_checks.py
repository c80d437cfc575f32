"""Every command that reads a report checks it alike: `check-pin`, `gate` and `accept` refuse,
in one sentence and with exit status 2, a report edited after `evalset score` wrote it and
one whose digest was made to match but whose content is not of a report's shape."""

from __future__ import annotations

import json
from pathlib import Path

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
    crlf = released / "crlf.json"  # a checkout that rewrote line endings keeps the digest
    crlf.write_bytes((released / "reports" / "base.json").read_bytes().replace(b"\n", b"\r\n"))
    for name in ("pin.json", "theirs.json", "crlf.json"):
        done = cli(released, "check-pin", name)
        assert done.code == 0, (name, done.err)
        assert done.out.startswith("pin ok: docs 0.1.0")


def redigested(text: str) -> str:
    """The report's text with its digest made again, as a tool forging it would."""
    body = text[: text.rindex(DIGEST_MARK)]
    return f'{body}{DIGEST_MARK}{digest_of(body)}"\n}}\n'
