"""Sealing and unsealing every holdout item of a set file (`evalset seal`, `evalset unseal`),
and sealing the holdout items that arrive in a sealed set (`promote`, `import`).

The sealed form itself, and opening it with the key, are part of the set-file format
(``evalset.sets.sealed``); these commands rewrite a whole set, round-trip, locked and
atomically.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from evalset.errors import EvalsetError
from evalset.sets.editor import edit_set
from evalset.sets.model import Item
from evalset.sets.sealed import (
    SealError,
    bare_recipient,
    recipient,
    same_item,
    seal,
    sealed_message,
)
from evalset.sets.setfile import SetFile


@dataclass
class Sealing:
    """What `evalset seal` did."""

    sealed: list[str]
    """Ids of the holdout items sealed."""
    recipients: list[str]
    """Who they were sealed to."""
    recipients_from: str
    """Where the recipients came from: ``given``, ``set`` (the set's sealed items) or
    ``HEAD`` (the items sealed in the set's committed version)."""


def seal_set(path: Path, recipients: Sequence[str] | None = None) -> Sealing:
    """Seal every holdout item of a set file not sealed yet (round-trip, locked, atomic).
    Items sealed already stay as they are.

    Without ``recipients``, the items are sealed to those the set's holdout is sealed to:
    of its sealed items, or, when it holds none (after ``unseal_set``), of the items sealed
    in its committed version (git's HEAD); those most such items share, as for items
    arriving in the set (``recipients_of``). With neither, SealError asks for recipients. An
    SSH key given is recorded without its comment (``user@host``, an address), which would
    go into git history with every item.

    A set with validation errors is refused, naming them: an item that fails the schema (or
    shares its id with another) could not be sealed, and would stay readable. The result is
    checked before it replaces the file: no holdout item may be left in plain text, and no
    text of a sealed item may remain readable anywhere in the file (in a comment, say)."""
    from evalset.sets.validate import check_in_place

    given = list(dict.fromkeys(bare_recipient(r) for r in recipients or ()))
    for key in given:  # every key checked before anything is written
        recipient(key)
    sealed: list[str] = []
    with edit_set(path) as editor:
        current = editor.current
        keys, source = _recipients(current, given)
        errors = check_in_place(current, errors_only=True)
        if errors:
            raise SealError(
                f"{path}: cannot seal {current.name} with {len(errors)} validation error(s) "
                f"(first: {errors[0]}); fix them (`evalset validate {current.name}`) and seal "
                "again. Nothing was sealed."
            )
        secrets: list[str] = []
        questions: list[str] = []
        plain = [(k, item) for k, item in zip(current.item_index, current.items, strict=True)
                 if item.holdout and k not in current.opened]  # fmt: skip
        if given and not plain:
            _refuse_rekeying(path, current, given)
        before = _committed_seals(path, current) if plain else {}
        for k, item in plain:
            text = editor.source_of(k)
            kept = before.get(item.id)
            if kept is not None and kept.unchanged(keys, item, text):
                editor.replace_at(k, kept.form)  # as committed: no new ciphertext to merge
            else:
                editor.replace_at(k, seal(item, keys, text))
            sealed.append(item.id)
            secrets.extend(_texts_of(item))
            questions.append(item.question)
        _refuse_leaks(path, editor.render(), secrets, questions)
    return Sealing(sealed, keys, source)


def _refuse_rekeying(path: Path, current: SetFile, given: list[str]) -> None:
    """Keys given for a holdout sealed whole to others: seal leaves sealed items as they
    are, so nothing would be sealed to them, which the one who gave them must be told."""
    stubs = [*current.sealed, *current.opened.values()]
    other = [
        stub.id for stub in stubs if set(map(bare_recipient, stub.sealed.recipients)) != set(given)
    ]
    if not other:
        return
    ids = ", ".join(other[:5]) + (", …" if len(other) > 5 else "")
    raise SealError(
        f"{path}: every holdout item is sealed already, and {len(other)} of them ({ids}) to "
        "other keys than those given; seal never seals an item again, so to seal them to "
        f"these keys, unseal with the key (`evalset unseal {current.name}`) and seal again "
        "with --recipient (nothing was changed)."
    )


@dataclass(frozen=True)
class _Committed:
    """An item as the committed version of a set holds it sealed, opened with the key."""

    recipients: list[str]
    item: Item
    text: str | None
    """The text it was sealed with."""
    form: dict[str, Any]
    """Its sealed form, as committed."""

    def unchanged(self, recipients: list[str], item: Item, text: str | None) -> bool:
        return self.recipients == recipients and same_item(self.item, item) and self.text == text


def _committed_seals(path: Path, current: SetFile) -> dict[str, _Committed]:
    """The items the committed version of the set (git's HEAD) holds sealed and the key
    opens, by id. An item sealed again unchanged (after `unseal`, say, another one edited)
    is written as committed, rather than as new ciphertext that would make each branch's
    seal of it differ, and every merge of two key holders' edits a conflict. Empty without
    the key, outside git, or for a HEAD that does not read."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    from evalset.git import Git
    from evalset.gitcmd import GitUnusable
    from evalset.sets.sealed import identities
    from evalset.sets.setfile import parse_set_text, set_text_at

    try:
        if not identities():
            return {}
        git = Git.find(path.resolve().parent)
        text = set_text_at(git, "HEAD", path, current.name)
        if text is None or text.removeprefix("\ufeff") == current.text:
            return {}
        head = parse_set_text(text.removeprefix("\ufeff"), path, "HEAD")
    except (GitUnusable, EvalsetError):
        return {}
    found = {}
    for k, stub in head.opened.items():
        entry = head.raw_items[k]
        if isinstance(entry, dict) and isinstance(entry.get("sealed"), dict):
            armored = entry["sealed"].get("age")
            if isinstance(armored, str):  # written as `seal` writes it: a literal block
                form = {**entry, "sealed": {**entry["sealed"], "age": LiteralScalarString(armored)}}
                item = head.items[head.item_index.index(k)]
                found[stub.id] = _Committed(stub.sealed.recipients, item,
                                            head.sealed_text.get(k), form)  # fmt: skip
    return found


def _recipients(current: SetFile, given: list[str]) -> tuple[list[str], str]:
    """The recipients to seal to, and where they came from (see ``Sealing``)."""
    if given:
        return given, "given"
    keys, source = sealed_to(current)
    if keys:
        _refuse_locking_out(current, keys)
        return keys, source
    raise SealError(
        f"{current.path}: no recipient given, and {current.name} holds no sealed item, nor "
        "did it at its last commit (HEAD), to take them from; pass --recipient with an age "
        "public key. Nothing was sealed."
    )


def _refuse_locking_out(current: SetFile, keys: list[str]) -> None:
    """Refuse to seal, with the key at hand, to keys taken from the set that the key is not
    among: the recipients an item shows are written as text (a hand edit, or a branch, may
    have put other ones there), and sealing to them would lock the key holder out of
    everything sealed now, and give it to whoever holds those keys."""
    from evalset.sets.sealed import identities, identity_path

    found = identities()
    publics = [str(i.to_public()) for i in found or [] if hasattr(i, "to_public")]
    if not publics or len(publics) != len(found or []) or set(publics) & set(keys):
        return  # no key, or one whose public key cannot be told (an SSH key): not judged
    shown = ", ".join(k[:16] + "…" for k in keys)
    raise SealError(
        f"{current.path}: the holdout is sealed to {shown}, and the key in {identity_path()} "
        f"({publics[0][:16]}…) is not among them, so sealing to them would lock you out of "
        "what you seal; check who changed the recipients (`git log -p`), and pass --recipient "
        "with the keys meant. Nothing was sealed."
    )


def sealed_to(current: SetFile) -> tuple[list[str], str]:
    """The recipients the set's holdout is sealed to, and where they come from: its own
    sealed items (``set``), else those sealed at its last commit (``HEAD``: unsealed since,
    for an edit), else none (``""``: a holdout that is not sealed)."""
    from evalset.sets.sealed import holdout_recipients

    return holdout_recipients(current.sealed_forms, current.path)


@dataclass
class Arrivals:
    """Items about to be appended to a set, with its holdout ones sealed when the set's
    holdout is sealed."""

    entries: list[Mapping[str, Any]]
    sealed: list[str] = field(default_factory=list)
    """Ids of the arriving holdout items that were sealed."""
    recipients: list[str] = field(default_factory=list)
    """Who they were sealed to (empty when the set has no sealed item)."""
    unchecked: int = 0
    """Sealed items of the set the key did not open, so that the arrivals could not be
    compared with them (duplicates, traces)."""


def recipients_of(current: SetFile) -> list[str]:
    """The recipients a holdout item arriving in the set is sealed to: those most of its
    sealed items are sealed to (``shared_recipients``), or none when nothing in it is
    sealed."""
    from evalset.sets.sealed import forms_recipients

    return forms_recipients(current.sealed_forms)


def seal_arrivals(
    current: SetFile,
    items: Sequence[Item | Mapping[str, Any]],
    text_of: Callable[[Mapping[str, Any]], str] | None = None,
) -> Arrivals:
    """``items`` as they are appended to ``current``: in a set whose holdout is sealed (it
    has a sealed item, or had at its last commit and is unsealed for an edit), each holdout
    item is sealed to the set's recipients on arrival, so that no holdout text is ever
    written in the clear there. Sealing needs only the public keys, so this works without
    the key. ``text_of`` (the editor's ``text_of_new``) gives the text a plain arrival would
    be written as; an item is sealed with it, so that ``unseal`` writes it that way."""
    holding = any((e.holdout if isinstance(e, Item) else e.get("holdout")) is True for e in items)
    keys = sealed_to(current)[0] if holding else recipients_of(current)
    arrivals = Arrivals([], recipients=keys, unchecked=len(current.sealed))
    for entry in items:
        plain: Mapping[str, Any]
        if isinstance(entry, Item):
            item, plain = entry, entry.model_dump(mode="json", exclude_defaults=True)
        else:
            item, plain = Item.model_validate(dict(entry)), entry
        if keys and item.holdout:
            arrivals.entries.append(seal(item, keys, text_of(plain) if text_of else None))
            arrivals.sealed.append(item.id)
        else:
            arrivals.entries.append(plain)
    return arrivals


MIN_SECRET = 12
"""Texts shorter than this ("30 days", "Yes") may stand in a file by coincidence."""


def _texts_of(item: Any) -> list[str]:
    """The free texts of an item that sealing hides."""
    texts = [item.question, *item.must_not_say, *(p.text for p in item.key_points)]
    if item.answer:
        texts.append(item.answer)
    if item.origin is not None:
        texts.extend(t for t in (item.origin.note, item.origin.observed_answer) if t)
    return [t for t in texts if len(t.strip()) >= MIN_SECRET]


def _refuse_leaks(path: Path, text: str, secrets: list[str], questions: list[str]) -> None:
    """Refuse a sealed file in which a holdout item stays plain, or a sealed item's text can
    still be read: anywhere but inside a plain item's own question, for its question (a
    tuning item quoting it in a note or an answer leaks it as a comment does; how alike two
    questions are is validate's near-duplicate rule); outside the texts the plain items hold
    themselves, for its other texts (a key point two items share). Texts are compared by
    their words: case, spacing and punctuation aside (a comment quoting a question without
    its ``?``)."""
    from evalset.sets.setfile import parse_set
    from evalset.sets.yamlio import line_col

    after = parse_set(text, path, only=())
    plain = [e for e in after.raw_items if isinstance(e, dict) and "sealed" not in e]
    for entry in plain:
        if entry.get("holdout") is True:
            raise SealError(
                f"{path}: holdout item {entry.get('id')!r} would stay readable after sealing; "
                "nothing was sealed. Fix the item (`evalset validate`) and seal again."
            )
    find = _word_search(text)
    visible = " \n " + " \n ".join(_loose(s) for s in _strings(plain)) + " \n "
    asked = {_loose(q) for q in questions}
    # where the plain items' own questions stand: a holdout question whose words one of
    # them holds (the first words of a longer question) is validate's to judge, as near
    # duplicates; anywhere else, it leaks
    asking = sorted(
        span
        for entry in plain
        if isinstance(entry.get("question"), str)
        for span in find(entry["question"])
    )
    longest = max((end - start for start, end in asking), default=0)
    for secret in secrets:
        spans = find(secret)
        loose = _loose(secret)
        if loose in asked:
            spans = [s for s in spans if not _within(s, asking, longest)]
        elif spans and (loose in visible if _UNSPACED.search(loose) else f" {loose} " in visible):
            continue  # a text a plain item holds itself
        if not spans:
            continue
        line, _ = line_col(text, spans[0][0])
        raise SealError(
            f"{path}:{line}: the text of a holdout item would stay readable there after "
            "sealing (a comment, or a plain item's text?); remove it and seal again. Nothing "
            "was sealed."
        )
    _refuse_quoted_questions(path, plain, asked)  # (as the values read: escapes undone)


def _refuse_quoted_questions(path: Path, plain: list[dict[str, Any]], asked: set[str]) -> None:
    """Refuse a plain item that holds a holdout question in a text other than its own
    question, as its value reads (``_refuse_leaks`` looks at the file's text, which YAML's
    escapes, ``"Rew\\x61rds"``, or a line break folded away can hide a question from)."""
    for entry in plain:
        told = " \n ".join(
            _loose(s) for key, value in entry.items() if key != "question" for s in _strings(value)
        )
        told = f" {told} "
        for question in asked:
            if len(question) >= MIN_SECRET and (
                question in told if _UNSPACED.search(question) else f" {question} " in told
            ):
                raise SealError(
                    f"{path}: plain item {entry.get('id')!r} holds the question of a holdout "
                    "item in one of its texts (written with escapes?), which would stay "
                    "readable after sealing; remove it and seal again. Nothing was sealed."
                )


def _within(span: tuple[int, int], spans: list[tuple[int, int]], longest: int) -> bool:
    """Whether ``span`` lies inside one of ``spans`` (sorted, none longer than ``longest``)."""
    k = bisect.bisect_right(spans, (span[0], span[1] + longest))
    while k > 0 and spans[k - 1][0] >= span[1] - longest:
        k -= 1
        if spans[k][0] <= span[0] and span[1] <= spans[k][1]:
            return True
    return False


_WORD = regex.compile(r"\w+(?:[/#.]\w+)*")
"""A word as the leak check reads a text: letters and digits (with their combining marks,
which carry the vowels of Hindi or Tamil: ``re``'s ``\\w`` left them out, and a plain
question with other vowels, the same consonants, was taken for a holdout one), and the
marks that join them into a path or an anchor (``p/r.md#damaged``: a citation
``p/r.md#damaged-items`` quotes no question ``Damaged items?``; a tag ``damaged-items``
does)."""
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)
"""Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, Japanese kana,
Chinese characters): a text in one is looked for within the words around it."""


def _word_search(text: str) -> Callable[[str], list[tuple[int, int]]]:
    """A search of ``text`` for a secret's words, one after another with anything but words
    between them (case aside): where each match starts and ends, in order. Each secret is
    looked for where its rarest word stands (a file of thousands of items holds thousands
    of secrets: a regular expression for each, over the whole file, took minutes)."""
    found = list(_WORD.finditer(text))
    words = [m[0].casefold() for m in found]
    places: dict[str, list[int]] = {}
    for i, word in enumerate(words):
        places.setdefault(word, []).append(i)

    def search(secret: str) -> list[tuple[int, int]]:
        wanted = _WORD.findall(secret.casefold())
        if not wanted:
            return []
        if _UNSPACED.search(secret):  # no word breaks to look it up by: searched as text
            pattern = r"\W*".join(map(regex.escape, wanted))
            return [m.span() for m in regex.finditer(pattern, text, regex.IGNORECASE)]
        j = min(range(len(wanted)), key=lambda k: len(places.get(wanted[k], ())))
        n = len(wanted)
        return [
            (found[i - j].start(), found[i - j + n - 1].end())
            for i in places.get(wanted[j], ())
            if i >= j and words[i - j : i - j + n] == wanted
        ]

    return search


def _loose(text: str) -> str:
    """``text`` as the leak check compares it: its words, case folded."""
    return " ".join(_WORD.findall(text.casefold()))


def _strings(value: Any) -> list[str]:
    """Every text in plain data."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _flow_short_lists(value: Any) -> Any:
    """Short lists of single words (citations, tags) in flow style, as set files usually
    write them; lists of sentences stay in block style."""
    from ruamel.yaml.comments import CommentedSeq

    if isinstance(value, dict):
        return {k: _flow_short_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        words = value and all(isinstance(v, str) and not any(c.isspace() for c in v) for v in value)
        if words and (len(value) == 1 or len(", ".join(value)) <= 40):
            seq = CommentedSeq(value)
            seq.fa.set_flow_style()
            return seq
        return [_flow_short_lists(v) for v in value]
    return value


def unseal_set(path: Path) -> list[str]:
    """Turn every sealed item back into a plain item; needs the key. Returns their ids.

    Each item gets back the text it was sealed with (comments, key order, quoting, list
    styles, line breaks), byte for byte, edits made with the key since included. An item
    sealed by evalset 0.1, which sealed the content alone, is written from its content."""
    from evalset.sets.sealed import item_of_text, same_item

    unsealed: list[str] = []
    with edit_set(path) as editor:
        current = editor.current
        if current.sealed:
            raise SealError(f"{path}: {sealed_message(len(current.sealed))}; nothing was unsealed.")
        broken = current.schema_error()
        if broken is not None:  # a sealed item among them would stay sealed without a word
            raise SealError(f"{broken}; fix it first: nothing was unsealed.")
        spans = current.index.spans
        indent = spans.indent if spans is not None else None
        for k in sorted(current.opened):
            item = current.items[current.item_index.index(k)]
            text = current.sealed_text.get(k)
            back = item_of_text(text, indent) if text is not None else None
            if text is not None and back is not None and same_item(back, item):
                editor.restore_at(k, text)
            else:
                editor.replace_at(k, _flow_short_lists(current.plain(k)))
            unsealed.append(item.id)
    return unsealed
