"""Personal data written in forms the redaction once missed, in every field of a record, and
out of every output of `evalset promote`: the set file, the summary, `--json`, a dry run,
the `.evalset` folder, and the refusal of a record whose trace holds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write_files
from evalset.sets.setfile import load_set

SET = Path("sets/acme-support.yaml")

# A text a record holds -> (the personal values in it, the text as it is redacted, whether
# a trace holding it is refused). Before, each of these left a value as written.
LEAKS = {
    # the look-behind of the address pattern kept an address from starting right after
    # another one ended (the `m` of `.com` is a character a local part may hold)
    "addresses joined by |": (
        "a@b.com|c@d.com",
        ["a@b.com", "c@d.com"],
        "<EMAIL_1>|<EMAIL_2>",
        True,
    ),
    "addresses in a query": (
        "?to=ann@shop.example.org&cc=bo@mail.example.net",
        ["ann@", "bo@"],
        "?<EMAIL_1>&<EMAIL_2>",
        True,
    ),
    "addresses joined by /": (
        "ann@shop.org/bo@mail.net",
        ["ann@", "bo@"],
        "<EMAIL_1>/<EMAIL_2>",
        True,
    ),
    # the same address written after a label or in quotes got a placeholder of its own
    "an address quoted and bare": (
        "'ann@shop.org' or ann@shop.org",
        ["ann@"],
        "'<EMAIL_1>' or <EMAIL_1>",
        True,
    ),
    "an address after a label and bare": (
        "email=ann@shop.org, {ann@shop.org}, ann@shop.org",
        ["ann@"],
        "<EMAIL_1>, {<EMAIL_1>}, <EMAIL_1>",
        True,
    ),
    # a number before a card number, spaced as its groups are, took the card into a run
    # whose check failed, and the card was left as written
    "a card after a quantity": (
        "qty 2 4111 1111 1111 1111",
        ["4111 1111"],
        "qty 2 <CARD_1>",
        False,
    ),
    "a card after an order number": (
        "order 55120 5555 5555 5555 4444",
        ["5555 5555"],
        "order 55120 <CARD_1>",
        False,
    ),
    "an Amex card after a number": ("12 3782 822463 10005", ["822463"], "12 <CARD_1>", False),
    # escaped as a URL or an HTML page writes them, nothing was recognised
    "a percent-encoded address": (
        "mailto:ann%40shop.org and ann@shop.org",
        ["ann%40", "ann@"],
        "mailto:<EMAIL_1> and <EMAIL_1>",
        True,
    ),
    "a percent-encoded phone number": (
        "tel=%2B44%2020%207946%200958",
        ["7946"],
        "tel=<PHONE_1>",
        True,
    ),
    "an HTML-escaped address": (
        "ann&#64;shop.org, ann&#x40;shop.org, ann&commat;shop.org",
        ["ann&"],
        "<EMAIL_1>, <EMAIL_1>, <EMAIL_1>",
        True,
    ),
    "an HTML-escaped card number": (
        "4111&#32;1111&#32;1111&#32;1111",
        ["1111&"],
        "<CARD_1>",
        False,
    ),
    # an address spelled out, as people write theirs so that crawlers miss it
    "an address spelled out": (
        "ann at shop dot org, ann(at)shop(dot)org, Ann [at] shop.org and ann@shop.org",
        ["ann at", "ann(at)", "[at]", "ann@"],
        "<EMAIL_1>, <EMAIL_1>, <EMAIL_1> and <EMAIL_1>",
        True,
    ),
    # wrapped onto the next line, a number was two, neither of them personal data
    "a card wrapped onto the next line": (
        "4111 1111\n1111 1111",
        ["4111 1111", "1111\n1111"],
        "<CARD_1>",
        False,
    ),
    "an IBAN wrapped onto the next line": (
        "DE89 3704 0044\r\n0532 0130 00",
        ["3704", "0532"],
        "<IBAN_1>",
        False,
    ),
    "a phone number wrapped onto the next line": (
        "call +44 20\n7946 0958",
        ["7946", "0958"],
        "call <PHONE_1>",
        True,
    ),
    # a link's user and password, and a token in its query, which open the user's account
    "a link with a user and a password": (
        "https://ann:pa55word@shop.example/orders and ftp://ann@198.51.100.7/",
        ["ann:", "pa55word", "ann@", "198.51"],
        "https://<EMAIL_1>/orders and ftp://<SECRET_1>@<IP_1>/",
        True,
    ),
    "a link with a token": (
        "https://shop.example/reset?token=eyJhbGciOiJ9.e30.sig&lang=en;sid=9f8e7d",
        ["eyJhbG", "9f8e7d"],
        "https://shop.example/reset?token=<SECRET_1>&lang=en;sid=<SECRET_2>",
        True,
    ),
}  # fmt: skip

# Texts that hold nothing personal, escaped or next to personal data, and stay as written.
KEPT = [
    "50% off, 100%ff, 10%25, AT&amp;T &nosuch; 12/2027",
    "range 2024-4111111111111111, version 1.4111111111111111",
    "2 x 19.99, 3 items of 12, section 4.2, release 3.12",
    # four numbers joined by dots that number a section or a release, once taken for IPs
    "see section 3.2.1.4, version 10.2.0.1, v1.2.3.4, § 4.1.2.3 and Abschnitt 2.1.1.5",
    "I shop at amazon.com, met them at noon, the dot com era",
    "https://shop.example/help?page=2&q=returns&code=SUMMER20, the key=value pair",
    "orders:\n55120\n55121\n55122\nqty 2\n3\n4",
]


def _record(text: str, trace: str) -> dict[str, object]:
    return {
        "question": f"Where is my refund, {text}?",
        "answer": text,
        "note": text,
        "retrieved": [text],
        "trace": trace,
    }


def _everything(repo: Path) -> str:
    """Every file of the workspace but git's, as text."""
    return "".join(
        path.read_bytes().decode("utf-8", "replace")
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(repo).parts
        and path.name != "f.jsonl"
    )  # fmt: skip


@pytest.mark.parametrize("case", LEAKS)
def test_personal_data_in_every_form_reaches_no_output(example: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    text, secrets, redacted, _ = LEAKS[case]
    write_files(example, {"f.jsonl": json.dumps(_record(text, "tr-1")) + "\n"})
    args = ("promote", "f.jsonl", "--set", "acme-support")
    outputs = [cli(example, *args, "--dry-run"), cli(example, *args, "--dry-run", "--json")]
    outputs += [cli(example, *args, "--json"), cli(example, *args)]  # written, then again
    assert [o.code for o in outputs] == [0, 0, 0, 0], [o.err for o in outputs]
    draft = load_set(example / SET).items[-1]
    assert draft.question == f"Where is my refund, {redacted}?"
    assert draft.origin is not None
    assert draft.origin.observed_answer == draft.origin.note == redacted
    assert draft.origin.retrieved == [redacted]
    shown = "".join(o.out + o.err for o in outputs) + _everything(example)
    for secret in secrets:
        assert secret not in shown, (case, secret)


@pytest.mark.parametrize("case", [c for c, row in LEAKS.items() if row[3]])
def test_a_trace_holding_personal_data_in_any_form_is_refused(
    example: Path, cli, case: str
) -> None:  # type: ignore[no-untyped-def]
    text, secrets, _, _ = LEAKS[case]
    write_files(example, {"f.jsonl": json.dumps(_record("no data", f"s-{text}")) + "\n"})
    before = (example / SET).read_bytes()
    for extra in ([], ["--json"], ["--dry-run"]):
        result = cli(example, "promote", "f.jsonl", "--set", "acme-support", *extra)
        assert result.code == 2, result.out
        assert result.err.startswith("evalset: f.jsonl:1: the record trace holds personal data")
        for secret in secrets:
            assert secret not in result.out + result.err, (case, secret)
    assert (example / SET).read_bytes() == before


@pytest.mark.parametrize("text", KEPT)
def test_what_is_not_personal_is_kept_as_written(example: Path, cli, text: str) -> None:  # type: ignore[no-untyped-def]
    write_files(example, {"f.jsonl": json.dumps(_record(text, "tr-1")) + "\n"})
    assert cli(example, "promote", "f.jsonl", "--set", "acme-support").code == 0
    draft = load_set(example / SET).items[-1]
    assert draft.question == f"Where is my refund, {text}?"
    assert draft.origin is not None and not draft.origin.redactions
