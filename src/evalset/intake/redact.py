"""Redaction of personal data from free text, before anything reaches a set file.

Detected: email addresses (also spelled out, ``ann at shop dot org``, ``ann(at)shop.org``),
phone numbers (international and national forms, through Google's libphonenumber port
``phonenumbers``, for the configured regions), payment card numbers that pass the Luhn
check and IBANs that pass their mod-97 check (both through ``python-stdnum``), IPv4 and IPv6
addresses (validated by ``ipaddress``; four dotted numbers after ``section``, ``version``
and the like are kept), what a link carries that opens an account (the user before its
host, the value of ``token=``, ``sig=``, ``sid=`` and the like: ``SECRET``), and the patterns
of the configuration. Matching sees the text normalised (what a URL or an HTML page escapes
as the character it stands for, ``%40`` and ``&#64;`` as ``@``; NFKC, so full-width digits
are digits; any script's digits as ASCII ones; format characters such as a zero-width space
or a soft hyphen dropped; any space, a line break included, as a plain one), and the
placeholder replaces what the original text holds there. Each value becomes a typed,
numbered placeholder that is stable within one record (``<EMAIL_1>`` wherever the same
address appears, ``<EMAIL_2>`` for another), so a reviewer still sees which mentions are
the same. The original values are returned to no
one: a ``Redaction`` holds only the redacted texts and the counts per type.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalset.config import PromoteConfig

if TYPE_CHECKING:
    from phonenumbers import PhoneNumber

DEFAULT_REGIONS = PromoteConfig.regions
"""Regions whose national phone formats are recognised unless the config says otherwise."""

_WORD = r"[^\W_]"
"""A letter or digit of any script (``\\w`` without the underscore)."""
_MARK = r"\u0300-\u036f\u0900-\u0dff\u0e30-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
"""Combining marks, which scripts such as Devanagari and Thai write inside words."""
_LABEL = rf"(?:{_WORD}|[{_MARK}])(?:(?:{_WORD}|[{_MARK}-])*(?:{_WORD}|[{_MARK}]))?"
_LOCAL = rf"\w.%+\-!#$&'=?^{{|}}/{_MARK}"
"""What a local part starts with: letters and digits of any script, and RFC 5322's other
characters but for markdown's ``*``, `` ` `` and ``~`` (``**a@b.com**`` is bold), which it
may hold after its first (``jane*roe@…``, ``jane~roe@…``)."""
_ADDRESS = (
    rf"(?:[{_LOCAL}][{_LOCAL}*~`]*|\"[^\"\n@]{{1,64}}\")@{_LABEL}(?:\.{_LABEL})*"
    rf"\.(?:xn--[A-Za-z0-9-]*[A-Za-z0-9]|(?:[^\W\d_][{_MARK}]*){{2,}})(?![^\W_]|[{_MARK}])"
)
_EMAIL = re.compile(rf"(?<![{_LOCAL}]){_ADDRESS}")
"""An address whose parts may be in any script (RFC 6531 internationalised addresses):
the local part (or a quoted one, ``"jane roe"@…``), the domain's labels and its top-level
domain (letters, or an ``xn--`` label). It starts where a local part can (the look-behind
keeps a long word from being tried at each of its characters)."""
_NEXT_EMAIL = re.compile(_ADDRESS)
"""An address right where the one before it ends: ``a@b.com|c@d.com`` and
``?to=a@b.com&cc=c@d.com`` hold two, and the look-behind of ``_EMAIL`` (the ``m`` of
``.com`` before ``|c``) left the second as written."""
_AT = r"(?: ?[(\[{<]at[)\]}>] ?| at )"
_DOT = r"(?: ?[(\[{<]dot[)\]}>] ?| dot )"


def _spelled(at: str, last_dot: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w.+-])(?P<local>\w[\w.+-]*){at}(?P<domain>{_LABEL}(?:(?:{_DOT}|\.){_LABEL})*)"
        rf"{last_dot}(?P<tld>[^\W\d_]{{2,}})(?![^\W_])",
        re.IGNORECASE,
    )


_SPELLED = (_spelled(r"(?: ?[(\[{<]at[)\]}>] ?)", rf"(?:{_DOT}|\.)"), _spelled(_AT, _DOT))
"""An address spelled out so that a crawler does not take it, as people write theirs in a
chat or a form (``jane(at)example.com``, ``jane at example dot com``, ``jane [at] mail
[dot] example [dot] org``). An ``at`` in words needs a ``dot`` in words before the
top-level domain: ``shop at amazon.com`` is not an address."""
_BEFORE_LOCAL = "'`{|/?=&#"
"""Characters a local part may hold (RFC 5322) that, where an address starts, are what
stands before it rather than its first character (``'jane@…'``, ``{jane@…}``, ``=jane@…``)."""
_LABELLED = re.compile(r".*[=?&/|]")
"""What of a local part is a label or a query before the address (``email=``, ``?to=``):
left out of the address's key, so it gets the placeholder the bare address gets."""
_SPACED = r"(?: {1,2}| ?[-\u2010-\u2013] ?)"
"""What groups digits freely: one or two spaces (any space, as normalised), or a hyphen or a
dash, spaced or not (``5555 - 5555``)."""
_MARKED = r"(?: ?[._/] ?)"
"""What groups digits in fours: a dot, an underscore or a slash (freely placed, they would
take a decimal number or a dated reference, ``2024/0412345678``, for a card number)."""
_IBAN = re.compile(
    rf"\b[A-Za-z]{{2}}\d{{2}}(?:(?:{_SPACED}|{_MARKED})?[A-Za-z0-9]{{4}}){{2,7}}"
    rf"(?:(?:{_SPACED}|{_MARKED})?[A-Za-z0-9]{{1,3}})?(?![^\W_])"
)
"""IBANs, in groups of four by any of those."""
_CARD = re.compile(
    rf"(?<![\w,/])(?<!\d[.-])\d(?:{_SPACED}?\d){{12,}}(?![\w.,/-]?\d)"
    rf"|(?<![\w,/])(?<!\d[.-])\d{{4}}(?:{_MARKED}\d{{4}}){{2}}{_MARKED}\d{{1,7}}(?![\w.,/-]?\d)"
)
"""Runs of digits that may hold a card number: grouped by spaces or hyphens (and dashes),
or in groups of four by dots, underscores or slashes; after a word's full stop or hyphen
(``no.4111…``, ``Visa-4111…``) but not a number's (``1.4111…``, a range). A run is read
whole, then searched (``_cards``): a number before the card, spaced as its groups are
(``qty 2 4111 1111 1111 1111``), must not hide it; a hyphen before it makes a range or a
reference (``2024-4111…``)."""
_CARD_GROUPS = re.compile(
    r"\d{13,19}|\d{4}(?:\D+\d{4}){2,3}(?:\D+\d{1,3})?|\d{4}\D+\d{6}\D+\d{4,5}"
)
"""How a card number is written when it follows other digits in a run: unspaced, in fours
(the last group shorter on a 19-digit card), or 4-6-5 and 4-6-4 (American Express, Diners
Club). Its own start is taken only then, so a run of small numbers (sizes, quantities) is
not searched at every digit for one that passes the Luhn check by chance."""
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)")
_IPV6 = re.compile(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4})"
    r"(?:%\w+)?(?![\w:])"
)
"""An IPv6 address, one ending in an IPv4 one too (``::ffff:192.0.2.1``)."""


_SECRET = re.compile(
    r"(?<=://)(?P<user>[^\s/?#@]+)(?=@)"
    r"|(?<=[?&;])(?:access_token|id_token|refresh_token|token|auth|authorization|api_?key|key"
    r"|password|passwd|pwd|pass|secret|client_secret|sig|signature|session|session_?id|sid"
    r"|otp)=(?P<value>[^\s&#;]*[^\s&#;.,:!?)\]'\"])",
    re.IGNORECASE,
)
"""What a link carries that opens an account: the user and password before a host
(``https://jane:pa55@shop.example``) and the value of a query parameter that holds a token,
a key, a password or a session (``?token=…``, ``&sig=…``)."""


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    kind: str
    key: str
    """The value in a normal form, so the same value gets the same placeholder."""


def _emails(text: str) -> Iterator[_Found]:
    pos = 0
    while (m := _EMAIL.search(text, pos)) is not None:
        while m is not None:
            yield _email(m)
            pos = m.end()
            m = _NEXT_EMAIL.match(text, pos)


def _spelled_emails(text: str) -> Iterator[_Found]:
    for pattern in _SPELLED:
        for m in pattern.finditer(text):
            domain = re.sub(_DOT, ".", m["domain"], flags=re.IGNORECASE)
            key = f"{m['local']}@{domain}.{m['tld']}".lower()
            yield _Found(m.start(), m.end(), "EMAIL", key)


def _secrets(text: str) -> Iterator[_Found]:
    for m in _SECRET.finditer(text):
        group = "user" if m["user"] is not None else "value"
        yield _Found(m.start(group), m.end(group), "SECRET", m[group])


def _email(m: re.Match[str]) -> _Found:
    start, written = m.start(), m.group()
    if not written.startswith('"'):
        bare = written.lstrip(_BEFORE_LOCAL)
        if not bare.startswith("@"):
            start, written = m.end() - len(bare), bare
    local, _, domain = written.rpartition("@")
    if not local.startswith('"'):
        local = _LABELLED.sub("", local) or local
    return _Found(start, m.end(), "EMAIL", f"{local}@{domain}".lower())


def _shorter(raw: str) -> Iterator[str]:
    """``raw`` and each of its beginnings that ends before a separator, longest first: a
    pattern that takes the word or digits after a value (an IBAN, then "ok"; a card number,
    then its CVC) fails its check, and the value is the shorter match."""
    yield raw
    for k in range(len(raw) - 1, 0, -1):
        if not raw[k].isalnum() and raw[k - 1].isalnum():
            yield raw[:k]


def _ibans(text: str) -> Iterator[_Found]:
    from stdnum import iban

    for m in _IBAN.finditer(text):
        for raw in _shorter(m.group()):
            compact = re.sub(r"[^A-Za-z0-9]", "", raw).upper()
            try:
                iban.validate(compact, check_country=False)  # mod-97 and the BBAN structure
            except ValueError:
                continue
            yield _Found(m.start(), m.start() + len(raw), "IBAN", compact)
            break


def _cards(text: str) -> Iterator[_Found]:
    from stdnum import luhn

    def card(raw: str) -> str | None:
        digits = re.sub(r"\D", "", raw)
        if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn.is_valid(digits):
            return digits
        return None

    for m in _CARD.finditer(text):
        run, at = m.group(), 0
        while at < len(run):
            found = None
            # the run from where it starts, then from each group after a space (right
            # after a hyphen it is a range or a reference, 2024-4111…, as the pattern says)
            spaced = [k for k in range(at + 1, len(run)) if run[k].isdigit() and run[k - 1] == " "]
            starts = [at, *spaced]
            for start in starts:
                for raw in _shorter(_window(run, start)):
                    if start > at and not _CARD_GROUPS.fullmatch(raw):
                        continue
                    digits = card(raw)
                    if digits is not None:
                        found = _Found(
                            m.start() + start, m.start() + start + len(raw), "CARD", digits
                        )
                        break
                if found is not None:
                    break
            if found is None:
                break
            yield found
            at = found.end - m.start()
            while at < len(run) and not run[at].isdigit():
                at += 1


def _window(run: str, start: int) -> str:
    """The part of ``run`` from ``start`` that a card number there could be: its first 19
    digits at most, cut where a group ends (a card does not end inside a longer number)."""
    digits, end = 0, start
    while end < len(run) and digits < 19:
        digits += run[end].isdigit()
        end += 1
    if end < len(run) and run[end].isdigit():
        while end > start and run[end - 1].isdigit():
            end -= 1
    return run[start:end].rstrip(" -\u2010\u2011\u2012\u2013._/")


_NUMBERED = re.compile(
    r"(?:\b(?:section|sections|sec|clause|chapter|article|art|paragraph|para|step|rule|"
    r"version|versions|release|v|ver|build|firmware|update|abschnitt|ziffer|kapitel|artikel|"
    r"absatz|paragraf|sección|seccion|artículo|articulo|capítulo|capitulo|sezione|articolo|"
    r"capitolo|versione|versión|hoofdstuk|versie|chapitre|paragraphe)\.?|§)"
    r" ?$",
    re.IGNORECASE,
)
"""Words after which four numbers joined by dots number a part of a document or a release,
in the languages of the phone words (``section 3.2.1.4``, ``version 10.2.0.1``,
``v1.2.3.4``, ``§ 4.1.2.3``): an IPv4 address is not taken there."""


def _ips(text: str) -> Iterator[_Found]:
    for pattern in (_IPV4, _IPV6):
        for m in pattern.finditer(text):
            written = m.group().split("%")[0]
            if pattern is _IPV4:
                if _NUMBERED.search(text[max(0, m.start() - 24) : m.start()]):
                    continue  # section 3.2.1.4, version 10.2.0.1: a number, not an address
                # 192.168.001.023: ``ipaddress`` refuses leading zeros, people write them
                written = ".".join(str(int(octet)) for octet in written.split("."))
            try:
                address = ipaddress.ip_address(written)
            except ValueError:
                continue
            yield _Found(m.start(), m.end(), "IP", address.compressed)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PHONE_CUES = _words(
    """call called calling ring phone phoned telephone tel tel. tél tél. tlf mobile mob mob.
    cell cellphone fax whatsapp signal sms text texted dial reach contact hotline helpline
    telefon telefonnummer rufnummer handy handynummer mobil mobilnummer anrufen téléphone
    telephone portable appeler joindre telefoon telefoonnummer mobiel gsm bellen bel
    teléfono telefono móvil movil celular llamar llámame cellulare chiamare chiamami"""
)
"""Words that say the number after them is a phone number (English, German, French, Dutch,
Spanish, Italian)."""
_IDENTIFIER_CUES = _words(
    """order orders ordered invoice inv bill receipt ref reference ticket case claim booking
    reservation confirmation tracking track shipment parcel package consignment waybill
    awb rma return account acct customer client member membership loyalty id sku item
    article serial sn s/n model part po voucher coupon transaction txn payment mandate
    contract policy subscription store till batch lot bestellung bestellnummer auftrag
    auftragsnummer rechnung rechnungsnummer kundennummer sendung sendungsnummer paket
    vorgang commande facture colis dossier référence referenz kundennr bestellnr
    auftragsnr rechnungsnr sendungsnr pedido factura envío envio ordine
    fattura spedizione pratica bestelling bestelnummer factuur zending pakket konto
    kontonummer blz compte cuenta conto rekening rekeningnummer iban bic swift sort"""
)
"""Words that say the number after them identifies an order, a payment or a parcel."""
_FILLERS = _words(
    """# no no. nr nr. n° nº num num. number numbers is was are be on at me my us our your
    the a an under via to of for in with : - = nummer ist mein meine meinen unter la le
    mon ma est au es mi el de al il è op naar mijn"""
)
"""Words between a cue and the number it is about ("call me on", "order number is")."""


def _context(before: str, raw: str = "") -> str | None:
    """What the words just before a number (``raw``) say it is: ``"phone"``,
    ``"identifier"``, or None. Filler words are passed over; the nearest other word decides,
    and a sentence or clause boundary (a comma, a full stop) ends the look-back, as does a
    list that ended on an earlier line (see ``_list_goes_on``)."""
    if re.search(r"(?:[^\W_]|[-/_#№])\Z", before):
        # Glued to a prefix: INV-2024-551234, A1234567, #73093067, 2024/000317.
        glued = before.split()[-1].lower().rstrip("-/_#№") if before.split() else ""
        return "phone" if glued in _PHONE_CUES else "identifier"
    tokens = list(re.finditer(r"\S+", before))[-8:]
    for k in range(len(tokens) - 1, -1, -1):
        token = tokens[k].group()
        word = token.lower().strip("\"'\u201c\u201d\u2018\u2019\u00ab\u00bb(")
        if word.rstrip(":") in _PHONE_CUES:
            return "phone"
        bare = word.rstrip(":#.")
        parts = re.split(r"[-/]", bare)  # Order-Nr., Tracking-ID, order/invoice
        if bare in _IDENTIFIER_CUES or any(part in _IDENTIFIER_CUES for part in parts):
            return "identifier"
        if not bare or bare in _FILLERS or word in _FILLERS or all(p in _FILLERS for p in parts):
            continue  # "#:", "no.", "nr"
        if _LISTED.fullmatch(word):
            after = tokens[k + 1].start() if k + 1 < len(tokens) else len(before)
            if not _list_goes_on(before, tokens[k].end(), after, raw):
                return None
            continue  # an earlier number of a list ("orders 0612…, 0612…"): the same cue
        return None  # another word, or a clause ending with it ("order," "late."): no cue
    return None


_LISTED = re.compile(r"[#\d][\d()+-]*[,;]?|&|and|und|et|y|e|en|or|oder|ou|o|of")
"""A token between numbers of one list: a number with its comma, or a conjunction."""
_LINE_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_NUMBER_PART = re.compile(r"[#\d(][\d()+.-]*")
"""A word of a number as written (``(020)``, ``7946``, ``#55120``, ``06-12``)."""


def _list_goes_on(before: str, end: int, after: int, raw: str) -> bool:
    """Whether the list token of ``before`` ending at ``end`` (the next token, or the
    number, starts at ``after``) is in the same list as the number ``raw``. On one line it
    is; over a line break only when the line ends with a comma or a conjunction, or when
    each line holds one number of the list, written alike (the same digits in the same
    groups): ``order 12345`` on one line says nothing of ``020 7946 0958`` on the next."""
    if not _LINE_BREAK.search(before, end, after):
        return True
    line = _LINE_BREAK.split(before[:end])[-1]
    if not line[-1].isdigit() and not line.endswith(")"):
        return True  # "…, 0612345678," or "… and": the list says it goes on
    ending = []  # the words of the number the line ends with (read word by word: a
    for word in reversed(line.split()):  # pattern over the whole run backtracks for ages)
        if not _NUMBER_PART.fullmatch(word):
            break
        ending.append(word)
    shape = re.findall(r"\d+", " ".join(ending))
    return [len(g) for g in shape] == [len(g) for g in re.findall(r"\d+", raw)]


def _grouped_as_phone(raw: str, number: PhoneNumber) -> bool:
    """Whether ``raw`` is written in groups, exactly the groups of the number's national
    format (``(202) 555-0123``, ``612 34 56 78``): identifiers are grouped otherwise."""
    import phonenumbers

    if not re.search(r"[\s().-]", raw):
        return False
    national = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
    return re.findall(r"\d+", raw) == re.findall(r"\d+", national)


def _is_phone(text: str, start: int, raw: str, number: PhoneNumber) -> bool:
    """Whether a number libphonenumber finds valid is a phone number here. An
    international form (``+``, or ``00``) is. A national one needs context, since order,
    invoice and parcel numbers are often valid national numbers of some region: not glued
    to a prefix or written after an identifier word (order, invoice, tracking…), and either
    a phone word before it (call, tel, mobile…), a leading ``0`` (the trunk prefix of most
    of the regions), or the grouping of the region's phone numbers."""
    if raw.startswith(("+", "00", "(+")):
        return True
    said = _context(text[:start], raw)
    if said is not None:
        return said == "phone"
    return raw.lstrip("(").startswith("0") or _grouped_as_phone(raw, number)


def _phones(text: str, regions: Iterable[str], lined: str | None = None) -> Iterator[_Found]:
    """Phone numbers in ``text``; ``lined`` is ``text`` with its line breaks (which
    ``_normalised`` makes spaces) where they were. Numbers are looked for in both: a number
    wrapped onto the next line is found in ``text``, one on the line after another number
    in ``lined`` (in ``text`` the two run together into no valid number). The words before
    a number are read in ``lined``: a line can end a list."""
    import phonenumbers

    if not any(c.isdigit() for c in text):
        return
    lined = lined or text
    seen: set[tuple[int, int]] = set()
    for region in regions:
        for where in dict.fromkeys((text, lined)):
            for match in phonenumbers.PhoneNumberMatcher(
                where, region, phonenumbers.Leniency.VALID
            ):
                raw = match.raw_string
                if raw.isdigit() and len(raw) > 12 and not raw.startswith("00"):
                    continue  # a long bare digit run is a tracking or order number
                if (match.start, match.end) in seen:
                    continue
                if not _is_phone(lined, match.start, raw, match.number):
                    continue
                seen.add((match.start, match.end))
                key = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
                yield _Found(match.start, match.end, "PHONE", key)


PATTERN_TIME = 1.0
"""Seconds a pattern of the configuration may take over one text of a record."""


class PatternTooSlow(Exception):
    """A pattern of the configuration ran past ``PATTERN_TIME`` on a record's text."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.problem = (
            f"took the [promote.patterns] pattern {kind} over {PATTERN_TIME:g} s to search, as "
            "a pattern that backtracks can (`(a|aa)+$`: a repetition whose parts match the "
            "same text in many ways); rewrite the pattern so that a text matches it one way only"
        )


def _custom(kind: str, pattern: Any, text: str) -> Iterator[_Found]:
    try:
        for m in pattern.finditer(text, timeout=PATTERN_TIME):
            if m.end() > m.start():  # an empty match hides nothing (the config refuses them)
                yield _Found(m.start(), m.end(), kind, m.group())
    except TimeoutError:
        raise PatternTooSlow(kind) from None


_ESCAPED = re.compile(
    r"(?:%[0-9A-Fa-f]{2})+|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)
"""Characters written as a URL or an HTML page escapes them: ``jane%40example.com`` in a
link's query, ``jane&#64;example.com`` in a page's text."""


def _unescaped(text: str) -> Iterator[tuple[str, int, int]]:
    """Each character of ``text`` as what it stands for, with the span of ``text`` that
    writes it: a percent-encoded UTF-8 sequence or an HTML character reference is the
    character it escapes (what is not a character, ``%ff`` or ``&nosuch;``, stays as
    written)."""
    import html

    at = 0
    for m in _ESCAPED.finditer(text):
        yield from ((text[k], k, k + 1) for k in range(at, m.start()))
        at = m.end()
        written = m.group()
        if written.startswith("&"):
            char = html.unescape(written)
            if char == written:
                yield from ((text[k], k, k + 1) for k in range(m.start(), m.end()))
            else:
                yield from ((c, m.start(), m.end()) for c in char)
            continue
        raw = bytes.fromhex(written.replace("%", ""))
        j = 0
        while j < len(raw):
            lead = raw[j]
            size = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4
            here = m.start() + 3 * j
            try:
                yield raw[j : j + size].decode("utf-8"), here, here + 3 * size
                j += size
            except UnicodeDecodeError:
                yield from ((text[k], k, k + 1) for k in range(here, here + 3))
                j += 1
    yield from ((text[k], k, k + 1) for k in range(at, len(text)))


def _normalised(text: str) -> tuple[str, list[int], list[int]]:
    """What matching sees of ``text``, and for each of its characters the span of ``text``
    it comes from (its start, and its end). Escapes are read as the characters they stand
    for (``_unescaped``: ``%40`` and ``&#64;`` are ``@``); each character is put in NFKC
    (full-width digits and letters, as an East Asian input method types them, become ASCII;
    no-break and other spaces become a space); a decimal digit of any script becomes its
    ASCII digit; a format character (a zero-width space or joiner, a soft hyphen, a byte
    order mark) is dropped, as copying text from a web page or a chat leaves them inside
    addresses and numbers; and any other space (a tab, a line break: a number or an IBAN
    wrapped onto the next line is still one) becomes a space."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for char, start, end in _unescaped(text):
        if unicodedata.category(char) == "Cf":
            continue
        digit = unicodedata.decimal(char, None)
        if digit is not None:
            mapped = str(digit)
        else:
            mapped = unicodedata.normalize("NFKC", char)
            if mapped.isspace():
                mapped = " "
        out.append(mapped)
        starts.extend([start] * len(mapped))
        ends.extend([end] * len(mapped))
    return "".join(out), starts, ends


@dataclass
class Redactor:
    """Finds personal data; ``patterns`` maps a placeholder type (``CUSTOMER``) to a regex."""

    regions: tuple[str, ...] = DEFAULT_REGIONS
    """The regions whose national phone formats are recognised (two-letter codes)."""
    patterns: Mapping[str, str] = field(default_factory=dict)
    """More personal data: placeholder type -> regular expression (config
    ``[promote.patterns]``)."""

    def __post_init__(self) -> None:
        import regex

        self._custom = [(kind.upper(), regex.compile(p)) for kind, p in self.patterns.items()]

    def find(self, text: str) -> list[_Found]:
        """Non-overlapping finds, in text order, as spans of ``text``; they are searched for
        in ``text`` normalised (``_normalised``), and their keys are normalised values.
        Finds that overlap are one, spanning them all (a pattern of the config inside an
        email address, an IPv4 address inside an IPv6 one: no part of either is left), of
        the kind the earlier detector says (config patterns, email, a spelled-out email,
        secret, IBAN, card, IP, phone; then the longer match)."""
        seen, starts, ends = _normalised(text)
        lined = "".join(
            "\n" if c == " " and _LINE_BREAK.match(text, starts[i]) else c
            for i, c in enumerate(seen)
        )
        spans = []
        for f in self._find(seen, lined):
            # from the first character of the find to the last, and what the original text
            # holds between them (a format character inside the value goes with it)
            start, end = starts[f.start], ends[f.end - 1]
            spans.append(_Found(start, end, f.kind, f.key))
        return spans

    def _find(self, text: str, lined: str) -> list[_Found]:
        found: list[_Found] = []
        for rank, detector in enumerate(self._detectors(text, lined)):
            for f in detector:
                found.append(_Found(f.start, f.end, f"{rank:02d}{f.kind}", f.key))
        found.sort(key=lambda f: (f.start, -f.end))
        groups: list[list[_Found]] = []
        end = -1
        for f in found:
            if groups and f.start < end:
                groups[-1].append(f)
            else:
                groups.append([f])
            end = max(end, f.end) if groups[-1][0] is not f else f.end
        out = []
        for group in groups:
            best = min(group, key=lambda f: (f.kind[:2], -(f.end - f.start), f.start))
            start, stop = min(f.start for f in group), max(f.end for f in group)
            key = best.key if (start, stop) == (best.start, best.end) else text[start:stop].lower()
            out.append(_Found(start, stop, best.kind[2:], key))
        return out

    def _detectors(self, text: str, lined: str) -> list[Iterable[_Found]]:
        custom = [_custom(kind, pattern, text) for kind, pattern in self._custom]
        return [
            *custom,
            _emails(text),
            _spelled_emails(text),
            _secrets(text),
            _ibans(text),
            _cards(text),
            _ips(text),
            _phones(text, self.regions, lined),
        ]

    def record(self, texts: Mapping[str, str]) -> Redaction:
        """Redact the free-text fields of one record with one numbering."""
        if not isinstance(texts, Mapping):
            raise TypeError(
                "record() takes the record's free-text fields as a mapping of names to text, "
                f"such as {{'question': '…'}}, not {type(texts).__name__} {texts!r:.60}"
            )
        for name, text in texts.items():
            if not isinstance(text, str):  # (it failed inside a regular expression)
                raise TypeError(
                    f"record() redacts text: field {name!r} is {type(text).__name__} "
                    f"{text!r:.60}; give its text, or leave it out"
                )
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
    """One record's free-text fields with their personal data replaced (``Redactor.record``)."""

    texts: dict[str, str] = field(default_factory=dict)
    """Each field's text, redacted: ``<EMAIL_1>`` for the first address, everywhere it is."""
    counts: Counter[str] = field(default_factory=Counter)
    """Replacements per type (``{"EMAIL": 2}``)."""


def redact(text: str, redactor: Redactor | None = None) -> str:
    """One text, redacted on its own."""
    return (redactor or Redactor()).record({"text": text}).texts["text"]
