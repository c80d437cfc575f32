"""Redaction, measured on a labelled corpus of personal data and look-alikes.

tests/data/pii_corpus.jsonl holds one snippet per line, ``{"text", "pii": [values]}``: 200
with personal data (emails, internationalised ones too, with local parts and domains in
Latin, Cyrillic, Greek, Han, Devanagari and Thai script and in punycode;
libphonenumber's example numbers of 15 regions in international, E.164 and national
forms, and national forms after a phone word, after a clause about an order, glued to
`tel:`; card numbers and IBANs with real check digits, plain, grouped, cards written with
dots and IBANs in lower case; IPv4 and IPv6 addresses) and 202 look-alikes that support
questions carry and that are not personal: order and tracking numbers, dates, prices,
percentages, clause numbers, times, versions, SKUs, numbers that fail the Luhn or IBAN
check (dotted and lower-case ones too), addresses without a real domain, a lone '@'; and
the identifiers of shops (Amazon, eBay, Shopify, Zalando, bol.com, Etsy, IKEA, Apple,
invoice numbers with letter prefixes and digit groups), banks (sort codes and accounts,
mandates, creditor references, transactions) and carriers (UPS, FedEx, DHL, Royal Mail,
USPS, PostNL, DPD, GLS, Hermes, Colissimo, Correos, Poste Italiane, La Poste, Australia
Post), and short numbers after "order", "Bestellung", "commande"… that are valid pager
or service numbers of some region, in six languages.
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
    assert len(CORPUS) >= 400 and look_alikes >= 200
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


def test_a_config_pattern_inside_other_personal_data_takes_it_all() -> None:
    """Before, the pattern's find won and the address around it stayed in clear:
    `jane.roe+<CUSTOMER_1>@gmail.com`."""
    redactor = Redactor(patterns={"CUSTOMER": "CUST-[0-9]{6}", "ZIP": "[0-9]{5}"})
    for text, redacted in (("write to jane.roe+CUST-123456@gmail.com", "write to <CUSTOMER_1>"),
                           ("jane12345@example.com", "<ZIP_1>"),
                           ("CUST-123456 and jane@example.com",
                            "<CUSTOMER_1> and <EMAIL_1>")):  # fmt: skip
        assert redact(text, redactor) == redacted, text


def test_config_patterns_come_first() -> None:
    redactor = Redactor(patterns={"customer": r"\bCUST-\d{6}\b"})
    assert (
        redact("CUST-123456 wrote from a@b.example", redactor)
        == "<CUSTOMER_1> wrote from <EMAIL_1>"
    )


def test_national_numbers_need_context_to_be_phones() -> None:
    """A national number is a phone number after a phone word, with a leading 0, or written
    in the groups of its region; never glued to a prefix or right after an order word."""
    assert redact("order 16401 is late") == "order 16401 is late"  # a German pager number
    assert redact("Invoice INV-2024-551234") == "Invoice INV-2024-551234"
    assert redact("my order 0301234567 is late") == "my order 0301234567 is late"
    assert redact("I waited 16401 seconds") == "I waited 16401 seconds"
    assert redact("call me on 612 34 56 78") == "call me on <PHONE_1>"  # a phone word
    assert redact("my number is 0612345678") == "my number is <PHONE_1>"  # a leading 0
    assert redact("see (201) 555-0123") == "see <PHONE_1>"  # the US grouping
    assert redact("see 2015550123 there") == "see 2015550123 there"  # no context at all
    assert redact("order, 07400 123456 is my mobile") == "order, <PHONE_1> is my mobile"
    assert redact("about order 16401: +49 1512 3456789") == "about order 16401: <PHONE_1>"


def test_national_phone_forms_follow_the_regions() -> None:
    assert redact("call 030 901820") == "call <PHONE_1>"  # German national form
    assert redact("call 030 901820", Redactor(regions=("US",))) == "call 030 901820"


# Personal data in the places a pattern's edge met it: a word or digits right after it, a
# full stop or hyphen of a word before it, markdown around it, other separators.
# (text, what must not remain, the redacted text)
AT_THE_EDGES = {
    "iban-then-short-word": ("Refund to BE68 5390 0754 7034 ok", "5390",
                             "Refund to <IBAN_1> ok"),
    "compact-iban-then-word": ("My IBAN ES9121000418450200051332 is it", "9121",
                               "My IBAN <IBAN_1> is it"),
    "iban-then-asap": ("To PL61 1090 1014 0000 0712 1981 2874 asap", "1090",
                       "To <IBAN_1> asap"),
    "card-then-cvc": ("Card 4111 1111 1111 1111 123 was charged", "4111",
                      "Card <CARD_1> 123 was charged"),
    "card-then-expiry": ("5555 5555 5555 4444 05 27", "5555", "<CARD_1> 05 27"),
    "card-after-no.": ("Card no.4111111111111111", "4111", "Card no.<CARD_1>"),
    "card-after-a-hyphen": ("Visa-4111 1111 1111 1111", "4111", "Visa-<CARD_1>"),
    "card-two-spaces": ("4111  1111  1111  1111", "4111", "<CARD_1>"),
    "card-no-break-spaces": ("4111\u00a01111\u00a01111\u00a01111", "4111", "<CARD_1>"),
    "card-en-dashes": ("4111\u20131111\u20131111\u20131111", "4111", "<CARD_1>"),
    "email-in-italics": ("reach me at _anna.schmidt@example.com_", "anna",
                         "reach me at <EMAIL_1>_"),
    "email-then-underscore": ("anna.schmidt@example.com_ thanks", "anna", "<EMAIL_1>_ thanks"),
    "email-with-equals": ("john=doe@example.com", "john", "<EMAIL_1>"),
    "email-with-apostrophe": ("o'brien@example.ie", "brien", "<EMAIL_1>"),
    "email-in-bold": ("**anna@example.com**", "anna", "**<EMAIL_1>**"),
    "phone-00-unspaced": ("Call me back on 00442079460958", "2079460958",
                          "Call me back on <PHONE_1>"),
    "phones-in-a-list": ("tel 0612345678 or 0612345679", "061234567",
                         "tel <PHONE_1> or <PHONE_2>"),
    "phone-after-a-clause": ("I was late, 0612345678 is my number", "0612345678",
                             "I was late, <PHONE_1> is my number"),
    # local parts of every form RFC 5322 allows: quoted, with "/", or "*" and "~" inside
    "email-quoted-local-part": ('write to "jane roe"@example.org', "jane",
                                "write to <EMAIL_1>"),
    "email-with-a-slash": ("jane/roe@example.org", "jane", "<EMAIL_1>"),
    "email-with-a-tilde": ("jane~roe@example.net", "jane", "<EMAIL_1>"),
    "email-with-a-star": ("jane*roe@example.com", "jane", "<EMAIL_1>"),
    # a punycode top-level domain, and two addresses that differ only there
    "email-punycode-tld": ("ivan@shop.xn--p1ai or ivan@shop.xn--90ais", "p1ai",
                           "<EMAIL_1> or <EMAIL_2>"),
    # an IPv4 address inside an IPv6 one
    "ipv4-mapped-ipv6": ("router at ::ffff:192.0.2.1 and ::ffff:81.2.69.160", "192",
                         "router at <IP_1> and <IP_2>"),
}  # fmt: skip
NOT_PERSONAL = ["version 1.4111111111111111", "range 2024-4111111111111111",
                "order 0612345678", "My order numbers are 0612345678, 0612345679",
                "orders 0612345678 & 0612345679", "Order #: 0612345678",
                "Order-Nr. 0612345678", "Tracking-ID 0612345678", "Kundennr. 0612345678",
                "Referenz 0612345678"]  # fmt: skip
"""Order, parcel and customer numbers that are valid national phone numbers: support
staff need them (after an order word, however glued, and in a list after one)."""


def test_personal_data_at_the_edges_of_a_pattern_is_redacted() -> None:
    redactor = Redactor()
    for name, (text, secret, redacted) in AT_THE_EDGES.items():
        out = redact(text, redactor)
        assert secret not in out and out == redacted, (name, out)
    for text in NOT_PERSONAL:
        assert redact(text, redactor) == text


BREAKS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r", "blank line": "\n\n",
          "line separator": "\u2028", "next line": "\u0085"}  # fmt: skip
ON_THE_NEXT_LINE = {
    "phone after an order number": ("order 12345{br}020 7946 0958", "7946",
                                    "order 12345{br}<PHONE_1>"),
    "phone in brackets": ("invoice 55120{br}(020) 7946 0958", "7946",
                          "invoice 55120{br}<PHONE_1>"),
    "phone grouped otherwise": ("order 0612345678{br}06 12 34 56 79", "34 56",
                                "order 0612345678{br}<PHONE_1>"),
    "phone grouped as its region": ("ticket 5512{br}612 34 56 78", "34 56",
                                    "ticket 5512{br}<PHONE_1>"),
    # forty digits, then a word: a pattern over the line's last number backtracked for ages
    "after a long number": ("order " + "1" * 40 + " x 5{br}020 7946 0958", "7946",
                            "order " + "1" * 40 + " x 5{br}<PHONE_1>"),
}  # fmt: skip
"""A phone number on the line after an order number: the order's line ended its list."""
ORDERS_OVER_LINES = ["order 12345,{br}0612345679", "Order number:{br}0612345678",
                     "orders 0612345678 and{br}0612345679",
                     "My orders:{br}0612345678{br}0612345679",
                     "orders{br}06 12 34 56 78{br}06 12 34 56 79",
                     "Order #{br}0612345678"]  # fmt: skip
"""A list that goes on over a line break (a comma or a conjunction ends the line, or each
line holds one number written alike), and a label on the line before its number."""


def test_a_line_break_ends_a_list_of_order_numbers_but_not_a_label() -> None:
    redactor = Redactor()
    for br_name, br in BREAKS.items():
        for name, (text, secret, redacted) in ON_THE_NEXT_LINE.items():
            out = redact(text.format(br=br), redactor)
            assert secret not in out and out == redacted.format(br=br), (br_name, name, out)
        for text in ORDERS_OVER_LINES:
            assert redact(text.format(br=br), redactor) == text.format(br=br), (br_name, text)


def test_a_pattern_that_matches_an_empty_string_hides_only_what_it_finds() -> None:
    """The config refuses such a pattern; a Redactor made in code passes over its empty
    matches rather than put a placeholder between every two characters."""
    found = Redactor(patterns={"ORDER": "[0-9]*"}).record({"q": "Where is order 55120?"})
    assert found.texts["q"] == "Where is order <ORDER_1>?"
    assert dict(found.counts) == {"ORDER": 1}


FW = {c: c + 0xFEE0 for c in range(0x21, 0x7F)} | {0x20: 0x3000}
"""ASCII to full width, as an East Asian input method types it."""
CARD, IBAN = "4111 1111 1111 1111", "FR76 3000 6000 0112 3456 7890 189"
SPACES = "\u00a0\u2007\u202f\u2009\u2002\u3000\t"
"""No-break, figure, narrow no-break, thin, en and ideographic spaces, and a tab."""
ZWSP = "\u200b"
SPELLED = {
    "card, full width": (CARD.translate(FW), "CARD"),
    "iban, full width": (IBAN.translate(FW), "IBAN"),
    **{f"card, space U+{ord(s):04X}": (CARD.replace(" ", s), "CARD") for s in SPACES},
    **{f"iban, space U+{ord(s):04X}": (IBAN.replace(" ", s), "IBAN") for s in SPACES},
    **{
        f"card, separator {sep!r}": (CARD.replace(" ", sep), "CARD")
        for sep in ("-", " - ", "_", "/", ".", "\u2013", " \u2013 ", "  ")
    },
    **{
        f"iban, separator {sep!r}": (IBAN.replace(" ", sep), "IBAN")
        for sep in ("-", " - ", "_", "/", ".", "")
    },
    "card, Arabic-Indic digits": ("\u0664\u0661\u0661\u0661 1111 1111 1111", "CARD"),
    "card, a zero-width space inside": (CARD.replace(" ", ZWSP, 1), "CARD"),
    "email, a zero-width space": (f"jane.roe{ZWSP}@example.com", "EMAIL"),
    "email, a soft hyphen in the domain": ("jane.roe@exam\u00adple.com", "EMAIL"),
    "email, a word joiner": ("jane\u2060.roe@example.com", "EMAIL"),
    "email, full width": ("jane.roe@example.com".translate(FW), "EMAIL"),
    "phone, no-break spaces": ("+44\u00a020\u00a07946\u00a00958", "PHONE"),
    "ipv4, leading zeros": ("192.168.001.023", "IP"),
    "ipv4, full width": ("192.168.1.23".translate(FW), "IP"),
}
"""Personal data as people and their software write it. Before, each of these but the
full-width phone was written to the set as it is: matching saw only ASCII digits, plain
spaces and a few separators."""


def test_personal_data_is_found_however_it_is_spelled() -> None:
    redactor = Redactor()
    for name, (value, kind) in SPELLED.items():
        result = redactor.record({"q": f"see {value} today"})
        assert result.texts["q"] == f"see <{kind}_1> today", name
        assert dict(result.counts) == {kind: 1}, name


MY_MAIL = "my mail".translate(FW)


def test_a_value_spelled_two_ways_is_one_placeholder_and_the_rest_is_kept() -> None:
    result = Redactor().record(
        {
            "q": f"{MY_MAIL} jane.roe@example.com, jane.roe{ZWSP}@example.com",
            "a": f"4111_1111_1111_1111 and {CARD.translate(FW)}",
        }
    )
    assert result.texts == {
        "q": f"{MY_MAIL} <EMAIL_1>, <EMAIL_1>",
        "a": "<CARD_1> and <CARD_1>",
    }


NOT_PERSONAL_SPELLED = [
    "PO 2024/0412345678 approved",  # a dated reference, Luhn-valid
    "pi is 3.14159265358979 or so",  # a decimal
    "version 1.02.003 ships",  # three parts: no address
    "order " + "4111 1111 1111 1112".translate(FW),  # full width, fails the Luhn check
    "IBAN FR76 3000 6000 0112 3456 7890 188",  # fails mod 97
    "IBAN FR76\u00a03000\u00a06000\u00a00112\u00a03456\u00a07890\u00a0188",
    "IBAN FR76_3000_6000_0112_3456_7890_188",
]


def test_normalised_look_alikes_are_kept() -> None:
    redactor = Redactor()
    for text in NOT_PERSONAL_SPELLED:
        assert redact(text, redactor) == text
