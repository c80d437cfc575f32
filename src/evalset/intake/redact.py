"""Redaction of personal data from free text, before anything reaches a set file.

Detected: email addresses, phone numbers (international and national forms, through
Google's libphonenumber port ``phonenumbers``, for the configured regions), payment card
numbers that pass the Luhn check and IBANs that pass their mod-97 check (both through
``python-stdnum``), IPv4 and IPv6 addresses (validated by ``ipaddress``), and the patterns
of the configuration. Each value becomes a typed, numbered placeholder that is stable within
one record (``<EMAIL_1>`` wherever the same address appears, ``<EMAIL_2>`` for another), so
a reviewer still sees which mentions are the same. The original values are returned to no
one: a ``Redaction`` holds only the redacted texts and the counts per type.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from evalset.config import PromoteConfig

DEFAULT_REGIONS = PromoteConfig.regions
"""Regions whose national phone formats are recognised unless the config says otherwise."""

_WORD = r"[^\W_]"
"""A letter or digit of any script (``\\w`` without the underscore)."""
_MARK = r"\u0300-\u036f\u0900-\u0dff\u0e30-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
"""Combining marks, which scripts such as Devanagari and Thai write inside words."""
_LABEL = rf"(?:{_WORD}|[{_MARK}])(?:(?:{_WORD}|[{_MARK}-])*(?:{_WORD}|[{_MARK}]))?"
_EMAIL = re.compile(
    rf"(?<![\w.+\-{_MARK}])[\w.%+\-{_MARK}]+@{_LABEL}(?:\.{_LABEL})*"
    rf"\.(?:[^\W\d_][{_MARK}]*){{2,}}(?![\w{_MARK}])"
)
"""An address whose parts may be in any script (RFC 6531 internationalised addresses):
the local part, the domain's labels and its top-level domain (letters, or an ``xn--``
label)."""
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,3})?\b")
_CARD = re.compile(
    r"(?<![\w.,/-])\d(?:[ -]?\d){12,18}(?![\w.,/-]?\d)"
    r"|(?<![\w.,/-])\d{4}(?:\.\d{4}){2}\.\d{1,7}(?![\w.,/-]?\d)"
)
"""Card numbers: digits grouped by spaces or hyphens, or in groups of four by dots."""
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)")
_IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%\w+)?(?![\w:])")


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    kind: str
    key: str
    """The value in a normal form, so the same value gets the same placeholder."""


def _emails(text: str) -> Iterator[_Found]:
    for m in _EMAIL.finditer(text):
        yield _Found(m.start(), m.end(), "EMAIL", m.group().lower())


def _ibans(text: str) -> Iterator[_Found]:
    from stdnum import iban

    for m in _IBAN.finditer(text):
        compact = re.sub(r"[ -]", "", m.group()).upper()
        try:
            iban.validate(compact, check_country=False)  # mod-97 and the BBAN structure
        except ValueError:
            continue
        yield _Found(m.start(), m.end(), "IBAN", compact)


def _cards(text: str) -> Iterator[_Found]:
    from stdnum import luhn

    for m in _CARD.finditer(text):
        digits = re.sub(r"[ .-]", "", m.group())
        if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn.is_valid(digits):
            yield _Found(m.start(), m.end(), "CARD", digits)


def _ips(text: str) -> Iterator[_Found]:
    for pattern in (_IPV4, _IPV6):
        for m in pattern.finditer(text):
            try:
                address = ipaddress.ip_address(m.group().split("%")[0])
            except ValueError:
                continue
            yield _Found(m.start(), m.end(), "IP", address.compressed)


def _phones(text: str, regions: Iterable[str]) -> Iterator[_Found]:
    import phonenumbers

    if not any(c.isdigit() for c in text):
        return
    for region in regions:
        for match in phonenumbers.PhoneNumberMatcher(text, region, phonenumbers.Leniency.VALID):
            raw = match.raw_string
            if raw.isdigit() and len(raw) > 12:
                continue  # a long bare digit run is a tracking or order number, not a phone
            key = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            yield _Found(match.start, match.end, "PHONE", key)


@dataclass
class Redactor:
    """Finds personal data; ``patterns`` maps a placeholder type (``CUSTOMER``) to a regex."""

    regions: tuple[str, ...] = DEFAULT_REGIONS
    patterns: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._custom = [(kind.upper(), re.compile(p)) for kind, p in self.patterns.items()]

    def find(self, text: str) -> list[_Found]:
        """Non-overlapping finds, in text order; on overlap the earlier detector wins
        (config patterns, email, IBAN, card, IP, phone), then the longer match."""
        found: list[_Found] = []
        for rank, detector in enumerate(self._detectors(text)):
            for f in detector:
                found.append(_Found(f.start, f.end, f"{rank:02d}{f.kind}", f.key))
        found.sort(key=lambda f: (f.kind[:2], -(f.end - f.start), f.start))
        kept: list[_Found] = []
        for f in found:
            if all(f.end <= k.start or f.start >= k.end for k in kept):
                kept.append(f)
        return sorted((_Found(f.start, f.end, f.kind[2:], f.key) for f in kept),
                      key=lambda f: f.start)  # fmt: skip

    def _detectors(self, text: str) -> list[Iterable[_Found]]:
        custom = [
            (_Found(m.start(), m.end(), kind, m.group()) for m in pattern.finditer(text))
            for kind, pattern in self._custom
        ]
        return [
            *custom,
            _emails(text),
            _ibans(text),
            _cards(text),
            _ips(text),
            _phones(text, self.regions),
        ]

    def record(self, texts: Mapping[str, str]) -> Redaction:
        """Redact the free-text fields of one record with one numbering."""
        result = Redaction()
        numbers: dict[tuple[str, str], int] = {}
        per_kind: Counter[str] = Counter()
        for name, text in texts.items():
            out, last = [], 0
            for f in self.find(text):
                slot = (f.kind, f.key)
                if slot not in numbers:
                    per_kind[f.kind] += 1
                    numbers[slot] = per_kind[f.kind]
                out.append(text[last : f.start])
                out.append(f"<{f.kind}_{numbers[slot]}>")
                result.counts[f.kind] += 1
                last = f.end
            out.append(text[last:])
            result.texts[name] = "".join(out)
        return result


@dataclass
class Redaction:
    texts: dict[str, str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    """Replacements per type (``{"EMAIL": 2}``)."""


def redact(text: str, redactor: Redactor | None = None) -> str:
    """One text, redacted on its own."""
    return (redactor or Redactor()).record({"text": text}).texts["text"]
