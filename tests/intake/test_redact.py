"""Redaction, measured on a labelled corpus of personal data and look-alikes.

tests/data/pii_corpus.jsonl holds one snippet per line, ``{"text", "pii": [values]}``: 190
with personal data (emails, internationalised ones too, with local parts and domains in
Latin, Cyrillic, Greek, Han, Devanagari and Thai script and in punycode;
libphonenumber's example numbers of 15 regions in international, E.164 and national
forms; card numbers and IBANs with real check digits, plain, grouped, cards written with
dots and IBANs in lower case; IPv4 and IPv6 addresses) and 127 look-alikes that support
questions carry and that are not personal: order and tracking numbers, dates, prices,
percentages, clause numbers, times, versions, SKUs, numbers that fail the Luhn or IBAN
check (dotted and lower-case ones too), addresses without a real domain, a lone '@'.
"""

from __future__ import annotations

import json

from conftest import ROOT
from evalset.intake.redact import Redactor, redact

CORPUS = [
    json.loads(line)
    for line in (ROOT / "tests" / "data" / "pii_corpus.jsonl").read_text().splitlines()
]


def test_corpus_recall_and_look_alikes() -> None:
    redactor = Redactor()
    found = missed = touched = 0
    for row in CORPUS:
        out = redact(row["text"], redactor)
        for value in row["pii"]:
            missed += value in out
            found += value not in out
        if not row["pii"]:
            touched += out != row["text"]
    look_alikes = sum(1 for row in CORPUS if not row["pii"])
    assert len(CORPUS) >= 300 and look_alikes >= 120
    print(f"recall {found}/{found + missed}; look-alikes redacted {touched}/{look_alikes}")
    assert missed == 0
    assert touched == 0


def test_placeholders_are_typed_numbered_and_stable_within_a_record() -> None:
    result = Redactor().record(
        {
            "question": "I am j.doe@example.org (or J.Doe@example.org), call +44 20 7946 0958",
            "answer": "We emailed j.doe@example.org and other@example.com from 203.0.113.7",
        }
    )
    assert result.texts == {
        "question": "I am <EMAIL_1> (or <EMAIL_1>), call <PHONE_1>",
        "answer": "We emailed <EMAIL_1> and <EMAIL_2> from <IP_1>",
    }
    assert dict(result.counts) == {"EMAIL": 4, "PHONE": 1, "IP": 1}
    assert "example.org" not in repr(result)  # the originals are kept nowhere


def test_cards_and_ibans_need_their_checksums() -> None:
    assert redact("card 4111 1111 1111 1111") == "card <CARD_1>"
    assert redact("card 4111 1111 1111 1112") == "card 4111 1111 1111 1112"
    assert redact("IBAN DE89 3704 0044 0532 0130 00") == "IBAN <IBAN_1>"
    assert redact("IBAN DE88 3704 0044 0532 0130 00") == "IBAN DE88 3704 0044 0532 0130 00"


def test_config_patterns_come_first() -> None:
    redactor = Redactor(patterns={"customer": r"\bCUST-\d{6}\b"})
    assert (
        redact("CUST-123456 wrote from a@b.example", redactor)
        == "<CUSTOMER_1> wrote from <EMAIL_1>"
    )


def test_national_phone_forms_follow_the_regions() -> None:
    assert redact("call 030 901820") == "call <PHONE_1>"  # German national form
    assert redact("call 030 901820", Redactor(regions=("US",))) == "call 030 901820"
