"""`promote --skip-invalid` promotes the valid records; when there is none, it is refused
(exit 2) as the run is without the option: it would promote nothing and exit 0, as if a
file of another shape (a --preset or --map forgotten) had been promoted. Without the option,
a refusal offers it only when some record is valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SET = Path("sets/acme-support.yaml")
VALID = {"question": "Can I pay for one order with a gift card and a credit card?", "trace": "v-1"}
NOT_A_RECORD = {"inputs": {"question": "Where is my parcel?"}}
NO_TRACE = {"question": "Do you ship to Norway and to Iceland as well?"}
NONE_LEFT = (
    "Nothing was promoted: fix the records: none is valid, so leaving them out "
    "(--skip-invalid) would leave nothing.\n"
)

CASES = [
    # (name, records, options, exit status, ids added)
    ("none valid", [NOT_A_RECORD, NOT_A_RECORD], [], 2, None),
    ("none valid, a dry run", [NOT_A_RECORD], ["--dry-run"], 2, None),
    ("none valid, --json", [NOT_A_RECORD], ["--json"], 2, None),
    ("none with a trace for its id", [NO_TRACE], ["--id-from", "trace"], 2, None),
    ("none with a trace for its id, a dry run", [NO_TRACE], ["--id-from", "trace", "--dry-run"],
     2, None),
    ("one valid", [NOT_A_RECORD, VALID], ["--json"], 0, 1),
    ("one with a trace for its id", [NO_TRACE, VALID], ["--id-from", "trace", "--json"], 0, 1),
]  # fmt: skip


@pytest.mark.parametrize(("records", "options", "code", "added"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_skip_invalid_refuses_a_file_with_no_valid_record(  # type: ignore[no-untyped-def]
    cli,
    example: Path,
    records: list[dict[str, object]],
    options: list[str],
    code: int,
    added: int | None,
) -> None:
    (example / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    before = (example / SET).read_bytes()
    result = cli(example, "promote", "records.jsonl", "--set", "acme-support", "--skip-invalid",
                 *options)  # fmt: skip
    assert result.code == code, result.err
    if code == 2:
        assert result.err.startswith("evalset: records.jsonl:1: the record ")
        assert result.err.endswith(NONE_LEFT), result.err
        assert (example / SET).read_bytes() == before
    else:
        assert len(json.loads(result.out)["added"]) == added


BAD = {  # a record bad in each way promote finds
    "not JSON": '{"question": "Do you ship to Iceland?", ',
    "not an object": '["Do you ship to Iceland?"]',
    "an invalid field": '{"question": "Do you ship to Iceland?", "trace": true}',
    "no question": '{"trace": "tr-77"}',
}
OFFERED = (
    "Nothing was promoted: fix the records, or pass --skip-invalid to promote the valid ones.\n"
)


@pytest.mark.parametrize("dry", [[], ["--dry-run"]], ids=["write", "dry run"])
@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("valid", [0, 1], ids=["none valid", "one valid"])
def test_a_refusal_offers_skip_invalid_only_when_a_record_is_valid(  # type: ignore[no-untyped-def]
    cli, example: Path, bad: str, valid: int, dry: list[str]
) -> None:
    lines = [json.dumps(VALID)] * valid + [BAD[bad]]
    (example / "records.jsonl").write_text("\n".join(lines) + "\n")
    before = (example / SET).read_bytes()
    result = cli(example, "promote", "records.jsonl", "--set", "acme-support", *dry)
    assert result.code == 2
    assert result.err.startswith(f"evalset: records.jsonl:{valid + 1}"), result.err
    assert result.err.endswith(OFFERED if valid else NONE_LEFT), result.err
    assert (example / SET).read_bytes() == before
