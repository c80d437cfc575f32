"""Bringing rows from other tools into a set: evalset JSONL/CSV, Ragas and LangSmith.

Every row becomes an item with the origin it carries (evalset's own exports write it, so
a promoted trace is not promoted again after a round trip), else one saying it was
imported. A row that carries all the
labels an active item needs (category, key points and expected sources, or
``answerable: false``) keeps its status; any other, and every Ragas row (its reference is
prose, not key points), becomes a draft for review. A row whose id the set has is compared
with the set's item as the row's format shows it, so a set's own export imported back
finds every item there already. Ids come
from the row when it has a valid one, else from a hash of the question, so importing the
same rows twice adds nothing. All rows are checked before anything is written: one bad row
and nothing changes.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalset.corpus.manifest import Snapshot, SnapshotStore
from evalset.errors import EvalsetError
from evalset.export.rows import UNCITED, RowError, unread
from evalset.export.view import View
from evalset.fsio import TextError, create_new, make_folders, read_user_text
from evalset.holdout.seal import Arrivals, seal_arrivals, sealed_to
from evalset.intake.redact import redact
from evalset.sets.content import item_content
from evalset.sets.editor import edit_set
from evalset.sets.findings import field_path
from evalset.sets.lock import refuse_unplain, set_lock
from evalset.sets.messages import error_loc, field_message, fields_of
from evalset.sets.model import (
    ID_PATTERN,
    PLACEHOLDER,
    Item,
    SealedItem,
    item_citations,
    set_name_problem,
    side,
)
from evalset.sets.resolve import resolves_by_content, unresolved
from evalset.sets.setfile import SetFile, load_set
from evalset.sets.validate import row_errors
from evalset.sets.yamlio import NEVER_FOLD, writes_portably

READERS = {
    "jsonl": "evalset.export.jsonl",
    "csv": "evalset.export.csv",
    "ragas": "evalset.export.ragas",
    "langsmith": "evalset.export.langsmith",
}


class ImportRefused(EvalsetError):
    """A row of the file to import is unusable; nothing was written."""


def _sealed_as(stub: SealedItem, item: Item) -> bool:
    """Whether a sealed item's content is ``item``'s, by the fingerprint it shows (in the
    format it was computed with): a set's own export imported back without the key."""
    from evalset.sets.content import item_fingerprint

    return item_fingerprint(item, stub.sealed.fingerprint_format) == stub.sealed.fingerprint


def _normalised(question: str) -> str:
    """A question with case and spacing ignored: what ``question_id`` hashes."""
    return " ".join(question.lower().split())


def question_id(question: str) -> str:
    """``q-`` and 8 hex digits of a hash of the question (case and spacing ignored)."""
    return "q-" + hashlib.sha256(_normalised(question).encode()).hexdigest()[:8]


@dataclass
class ImportResult:
    added: list[str] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)
    """Of the added items, those that lack labels and came in as drafts."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Item id -> why it was not added: the set has it already with the same content, or
    its question is a near duplicate of one in the set or of an earlier row."""
    conflicts: dict[str, str] = field(default_factory=dict)
    """Item id -> how the row differs from the set's item of that id (not imported)."""
    unverified: list[str] = field(default_factory=list)
    """Added items whose ``verified`` snapshot is not in this workspace's snapshots, so they
    arrive unverified."""
    sealed: list[str] = field(default_factory=list)
    """Added holdout items sealed on arrival (the set's holdout is sealed)."""
    recipients: list[str] = field(default_factory=list)
    unchecked_sealed: int = 0
    """Sealed items the key did not open: the rows were not compared with them."""
    created: bool = False
    """Whether the import created the set file (or, with dry_run, would)."""
    uncited: list[str] = field(default_factory=list)
    """Added items whose rows gave reference contexts as text only (a Ragas test set): no
    section is cited for them."""
    crowded: list[tuple[int, list[int]]] = field(default_factory=list)
    """Groups of look-alike questions too many to compare one by one (``MAX_BUCKET``), each
    as its number of questions and the lines of the rows among them: those rows were not
    checked for near duplicates of one another or of the group's items."""

    def to_json(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "drafts": self.drafts,
            "skipped": self.skipped,
            "conflicts": self.conflicts,
            "unverified": self.unverified,
            "sealed": self.sealed,
            "unchecked_sealed": self.unchecked_sealed,
            "crowded": [{"questions": n, "lines": lines} for n, lines in self.crowded],
            "uncited_contexts": self.uncited,
        }


def _complete(row: dict[str, Any]) -> bool:
    if not row.get("category"):
        return False
    if row.get("answerable") is False:
        return True
    return bool(row.get("key_points")) and bool(row.get("expected_sources"))


def new_set_text(name: str, source: Path, categories: dict[str, str | None]) -> str:
    """The header of a set created by an import: the categories the rows carry, with their
    meaning as the export recorded it, to be described where it did not (None). Dumped by
    the YAML library, the texts double-quoted: a file or category name is the user's, and
    written by hand into YAML (``results: v2.jsonl``, ``null``) it read back as other
    values, or not at all; double quotes escape what YAML 1.1 takes for line breaks
    (U+2028, U+0085), which plain and single-quoted text would not keep."""
    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString as Quoted

    described = categories or {"general": None}
    header = {
        "evalset": 1,
        "name": name,
        "description": Quoted(f"Imported from {source.name}; say what the system under test does"),
        "categories": {
            c: Quoted("imported; say what this kind of question is" if d is None else d)
            for c, d in described.items()
        },
        "items": [],
    }
    yaml = writes_portably(YAML(typ="rt", pure=True))  # a category named `yes`, `on`, `_1`
    yaml.width = NEVER_FOLD  # one line per value, as a person would write it
    out = io.StringIO()
    yaml.dump(header, out)
    return "# yaml-language-server: $schema=../schemas/evalset.schema.json\n" + out.getvalue()


def _pin_categories(pin: Any, where: str, categories: dict[str, str]) -> None:
    """Add the categories an export's pin declares (name -> meaning) to ``categories``,
    refusing a name no set can declare: the set the import creates would be invalid."""
    found = pin.get("categories") if isinstance(pin, dict) else None
    for name, meaning in found.items() if isinstance(found, dict) else []:
        if not re.fullmatch(ID_PATTERN, name) or len(name) > 200:
            shown = repr(name) if len(name) <= 60 else repr(name[:57]) + "..."
            raise ImportRefused(
                f'{where}: the pin ("evalset") declares the category {shown}, which is not '
                "a name a set can declare (letters, digits, '.', '_' and '-'); rename it, or "
                "leave the pin out (nothing was imported)."
            )
        if isinstance(meaning, str):
            categories.setdefault(name, meaning)


ROW_KEYS = ("split", "evalset")
"""The keys of a row that a reader takes before it becomes an item (JSONL's ``split`` and
pin): not item fields, but what a misspelt key may have meant."""


def _invalid(exc: ValidationError, fmt: str, held: bool = False) -> str:
    """What is wrong with a row the item model refused. A key no reader takes is named first,
    as the CSV import names a column it does not read, with a did-you-mean: it is most likely
    a misspelt label (``answr``, a key point's ``source``), which must not be dropped."""
    errors = exc.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = error_loc(first)
    if first["type"] == "extra_forbidden":
        *path, name = loc
        known = fields_of(loc, is_item=True) + (list(ROW_KEYS) if not path else [])
        # a key may itself be personal data (a record pasted in whole): shown redacted
        where = field_path(tuple(path))
        problem = unread("key", redact(str(name)), known, where)
        return f"the row {problem}; fix it ({fmt} format) and import again (nothing was imported)."
    where = redact(field_path(loc)) or "row"  # as `validate` names it: key_points[0].text
    return f"{where}: {field_message(first, held)}; fix the row, nothing was imported."


def _origin(row: dict[str, Any], today: dt.date) -> Any:
    """The origin of an imported item: the one the row carries, as evalset's own exports
    write it (its kind and traces kept, so a production item stays one and a trace is never
    promoted twice); else kind ``imported``, dated today. A carried origin of the wrong shape
    is left for validation to refuse with its line."""
    source = row.get("origin")
    if source is not None and not isinstance(source, dict):
        return source
    origin = dict(source or {})
    if "kind" not in origin:
        origin["kind"] = "imported"
        origin.setdefault("date", today.isoformat())
    return origin


def _named(row: dict[str, Any]) -> bool:
    """Whether a row has an id of its own (a valid one), which the item keeps."""
    ident = row.get("id")
    return isinstance(ident, str) and re.fullmatch(ID_PATTERN, ident) is not None


def _candidate(row: dict[str, Any], today: dt.date) -> Item:
    """The item a row becomes: its id (else one from its question), a draft unless it has
    every label an active item needs, and its origin."""
    if not _named(row):
        row["id"] = question_id(row["question"])
    if not _complete(row) and row.get("status") != "retired":  # one needs no labels to stay so
        row["status"] = "draft"
    row["origin"] = _origin(row, today)
    return Item.model_validate(row)


def _as_format_shows(item: Item, fmt: str) -> Item:
    """The set's ``item`` as a row of ``fmt`` shows it: written by the format's exporter and
    read back as an import reads a row. A row is compared with this, not with the item, so
    that what a format cannot carry is not taken for a difference: a Ragas row holds the
    key points run together as one reference, and neither must_not_say nor the answer, so
    importing a set's own Ragas export into it finds every item there already."""
    module = import_module(READERS[fmt])
    pin = {"set": "", "version": None, "fingerprint": "", "fingerprint_format": 2,
           "snapshot": None}  # fmt: skip
    written = module.write(View("", "all", [item], pin, lambda _item, _citation: None))
    rows = module.read(written)
    if len(rows) != 1 or not isinstance(rows[0][1], dict):  # pragma: no cover - defensive
        return item
    row = rows[0][1]
    row.pop("evalset", None)
    return _candidate(row, dt.date.today())


def _refuse_twice(source: Path, candidates: list[tuple[int, Item]], unnamed: set[int]) -> None:
    """Refuse two rows of the file with one id (a row's own) and other content: which of them
    is meant cannot be told, as of a CSV header naming a column twice. The first was imported
    and the second reported as a conflict, exit 1, with advice to edit the set's item, which
    the set did not have. Rows alike are one row given twice (the second is skipped)."""
    first: dict[str, tuple[int, Item]] = {}
    for number, item in candidates:
        line, earlier = first.setdefault(item.id, (number, item))
        if line == number or number in unnamed:  # no id of its own: a near duplicate, skipped
            continue
        differs = _differences(item, earlier)
        if differs:
            raise ImportRefused(
                f"{source}:{number}: the row has the id {item.id} of line {line}, with other "
                f"content ({', '.join(differs)}); give one of them another id, or remove one "
                "(nothing was imported)."
            )


def _differences(row: Item, existing: Item) -> list[str]:
    """The content fields in which a row differs from the set's item of the same id."""
    a, b = item_content(row), item_content(existing)
    return [key for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)]


def import_rows(
    source: Path,
    target: Path,
    fmt: str,
    dry_run: bool = False,
    create: bool = False,
    snapshots: SnapshotStore | None = None,
) -> ImportResult:
    """Append the rows of ``source`` to the set file ``target`` (``create``: a new set file
    named after it, declaring the categories the rows use, unless one exists by the time
    the rows are added: another import of the same name, run at once, is then imported
    into, as by a run after it). A row whose id the set has is
    skipped when its content is the same and reported as a conflict when it is not; a row
    whose question is a near duplicate of an item's (or an earlier row's) is skipped, as
    promote does. ``snapshots``: the workspace's, to keep only ``verified`` snapshots that
    exist there."""
    if fmt not in READERS:
        raise ImportRefused(f"{fmt!r} cannot be imported; use one of {', '.join(READERS)}.")
    try:
        text = read_user_text(source, f"{fmt} file")
    except TextError as exc:
        raise ImportRefused(str(exc)) from None
    try:
        rows = import_module(READERS[fmt]).read(text)
    except RowError as exc:
        where = f"{source}:{exc.line}" + (f":{exc.column}" if exc.column else "")
        raise ImportRefused(
            f"{where}: the row {exc.problem}; fix it ({fmt} format) and import again "
            "(nothing was imported)."
        ) from None
    except csv.Error as exc:
        raise ImportRefused(f"{source}: is not valid CSV ({exc}); nothing was imported.") from None
    candidates: list[tuple[int, Item]] = []
    unnamed: set[int] = set()  # the lines of rows with no id of their own
    uncited: set[int] = set()  # the lines of rows whose contexts no section is cited for
    categories: dict[str, str] = {}
    today = dt.date.today()
    for number, row in rows:
        if not isinstance(row, dict) or row.get("question") is None:
            raise ImportRefused(f"{source}:{number}: the row has no question; fix or remove it.")
        # there, but no text: a question named missing, an id replaced by a hash unsaid
        for key in ("question", "id"):
            if row.get(key) is not None and not isinstance(row[key], str):
                wrong = {"type": "string_type", "loc": (key,), "input": row[key]}
                secret = row.get("holdout") not in (False, None)  # its labels unquoted
                raise ImportRefused(
                    f"{source}:{number}: {key}: {field_message(wrong, secret)}; fix the row, "
                    "nothing was imported."
                )
        _pin_categories(row.pop("evalset", None), f"{source}:{number}", categories)
        if row.pop(UNCITED, False):
            uncited.add(number)
        if not _named(row):
            unnamed.add(number)
        hidden = row.get("holdout") not in (False, None)  # its labels are not quoted
        try:
            item = _candidate(row, today)
        except ValidationError as exc:
            raise ImportRefused(f"{source}:{number}: {_invalid(exc, fmt, hidden)}") from None
        candidates.append((number, item))
    _refuse_twice(source, candidates, unnamed)
    if create:
        problem = set_name_problem(target.stem)
        if problem is not None:
            raise ImportRefused(f"{target}: {problem}; choose another name with --set.")
    refuse_unplain(target)
    if dry_run:
        loaded = None if create and not target.exists() else load_set(target)
        result, items = _plan(candidates, unnamed, loaded, snapshots, fmt)
        result.uncited = _from_lines(candidates, result.added, uncited)
        _refuse_invalid(source, candidates, items, loaded)
        _refuse_unresolved(source, candidates, items, snapshots)
        _refuse_side_leaks(source, candidates, items, loaded)
        _refuse_sealed_copies(source, candidates, items, loaded, target)
        if items and loaded is not None:
            _note_sealing(result, seal_arrivals(loaded, items))
        result.created = loaded is None
        return result
    if create:
        make_folders(target)
    # Decided under the set's lock, against the file as it is then: two imports at once end
    # as two one after the other (the second skips the rows the first added), and an import
    # that would create the set finds one that another run created meanwhile.
    with set_lock(target) as held:
        loaded = None if create and not target.exists() else load_set(target)
        result, items = _plan(candidates, unnamed, loaded, snapshots, fmt)
        result.uncited = _from_lines(candidates, result.added, uncited)
        _refuse_invalid(source, candidates, items, loaded)
        _refuse_unresolved(source, candidates, items, snapshots)
        _refuse_side_leaks(source, candidates, items, loaded)
        _refuse_sealed_copies(source, candidates, items, loaded, target)
        result.created = loaded is None
        header = None
        if loaded is None:
            used = list(dict.fromkeys(i.category for i in items if i.category))
            declared = {c: categories.get(c) for c in [*categories, *used]}
            header = new_set_text(target.stem, source, declared)
        if items:
            with edit_set(target, held=held, create=header) as editor:
                arrivals = seal_arrivals(editor.current, items, editor.text_of_new)
                _note_sealing(result, arrivals)
                editor.append_items(arrivals.entries)
        elif header is not None:
            create_new(target, header)
    return result


def _plan(
    candidates: list[tuple[int, Item]],
    unnamed: set[int],
    loaded: SetFile | None,
    snapshots: SnapshotStore | None,
    fmt: str,
) -> tuple[ImportResult, list[Item]]:
    """Which rows the set (None: a set to create) takes, and the result that says so."""
    entries = loaded.entries if loaded is not None else []
    existing = {entry.id: entry for entry in entries}
    result = ImportResult()
    refused = loaded.not_valid if loaded is not None else _nothing_refused
    items = _decide(candidates, unnamed, existing, result, fmt, refused)
    for item in items:
        if item.verified and snapshots is not None and not _known(snapshots, item.verified):
            result.unverified.append(item.id)
    if result.unverified:
        keep = set(result.unverified)
        items = [i.model_copy(update={"verified": None}) if i.id in keep else i for i in items]
    result.added = [item.id for item in items]
    result.drafts = [item.id for item in items if item.status == "draft"]
    return result, items


def _from_lines(candidates: list[tuple[int, Item]], added: list[str], lines: set[int]) -> list[str]:
    """The added items whose rows are on ``lines``."""
    line_of = _row_lines(candidates)
    return [ident for ident in added if line_of.get(ident) in lines]


def _nothing_refused(ident: str) -> str | None:
    """A set to create holds no item, refused or not."""
    return None


def _row_lines(candidates: list[tuple[int, Item]]) -> dict[str, int]:
    """The line of the row each item to add comes from (the first row of an id is the one
    added)."""
    lines: dict[str, int] = {}
    for number, candidate in candidates:
        lines.setdefault(candidate.id, number)
    return lines


def _refuse_invalid(
    source: Path, candidates: list[tuple[int, Item]], items: list[Item], loaded: SetFile | None
) -> None:
    """Refuse the import when an item to add breaks a rule `validate` holds items to (a
    category the set does not declare, key points on an unanswerable item, a must_not_say
    that is also a key point): the row is named, in the dry run as in the run. A set the
    import creates declares the categories its rows use."""
    categories = loaded.header.categories if loaded is not None and loaded.header else None
    lines = _row_lines(candidates)
    for item in items:
        for at, problem, fix in row_errors(item, categories):
            where = f"{field_path(at)}: " if at else ""
            hint = f" ({fix})" if fix else ""
            raise ImportRefused(
                f"{source}:{lines[item.id]}: {where}{problem}{hint}; fix the row, nothing was "
                "imported."
            )


def _refuse_unresolved(
    source: Path, candidates: list[tuple[int, Item]], items: list[Item], store: SnapshotStore | None
) -> None:
    """Refuse the import when an item to add cites what its snapshot lacks (the one it was
    verified against, else the newest, as `validate` checks it): written, it would make the
    set invalid, and every later export, seal and release of it refused. A Ragas file's
    ``reference_context_ids`` are often ids of chunks, which no snapshot has."""
    if store is None:
        return
    lines = _row_lines(candidates)
    newest: list[Snapshot | None] = []
    for item in items:
        if item.status == "retired":
            continue
        if not newest:  # looked up once, and only when needed: it may walk the corpus
            newest.append(store.newest())
        snap = store.get(item.verified) if item.verified else newest[0]
        if snap is None:
            continue
        for citation in item_citations(item):
            why = unresolved(citation, snap)
            if why is None or (newest[0] and resolves_by_content(citation, snap, newest[0], store)):
                continue
            raise ImportRefused(
                f"{source}:{lines[item.id]}: {why}; cite a document or section it has, or leave "
                "the citation out (nothing was imported)."
            )


def _refuse_side_leaks(
    source: Path, candidates: list[tuple[int, Item]], items: list[Item], loaded: SetFile | None
) -> None:
    """Refuse the import when a row with a side asks what an item of the other side that
    the set no longer uses asked: a retired one, or a holdout item of its last release
    deleted since (a near duplicate of an item in use is skipped instead). Their sides
    still hold, as `split` and `validate` judge them: no one tuning prompts has seen such a
    holdout question, and a tuning one has been seen."""
    from evalset.sets.neardup import near_duplicates_of
    from evalset.sets.validate import released_holdout_of

    sided = [item for item in items if item.holdout is not None and item.status != "retired"]
    if loaded is None or not sided:
        return
    used = [
        item
        for item in loaded.items
        if item.status == "retired" and item.holdout is not None and item.question != PLACEHOLDER
    ]
    used += released_holdout_of(loaded)
    questions = [item.question for item in used] + [item.question for item in sided]
    lines = _row_lines(candidates)
    leaks = [
        (lines[sided[b - len(used)].id], used[a])
        for a, b in near_duplicates_of(questions, range(len(used)))
        if a < len(used) <= b and used[a].holdout is not sided[b - len(used)].holdout
    ]
    if not leaks:
        return
    line, old = min(leaks, key=lambda leak: leak[0])
    why = (
        "a holdout item the set no longer uses (retired, or deleted since its last release), "
        "whose question no one tuning prompts has seen: in tuning the row would leak it"
        if old.holdout
        else "a retired tuning item, whose question the people tuning prompts have seen: in "
        "the holdout the row would measure nothing"
    )
    raise ImportRefused(
        f"{source}:{line}: the row is for {side(not old.holdout)}, but its question is a near "
        f"duplicate of that of item {old.id!r}, {why}; give the row the split "
        f"{side(old.holdout)}, or none for `evalset split` to choose, and import again "
        "(nothing was imported)."
    )


def _refuse_sealed_copies(
    source: Path,
    candidates: list[tuple[int, Item]],
    items: list[Item],
    loaded: SetFile | None,
    target: Path,
) -> None:
    """Refuse the import when a row copies an item that another set file beside ``target``
    holds sealed (its content, by the fingerprint the sealed item shows; with the key, its
    question) and ``target`` would hold it in plain text: an export of a sealed holdout,
    imported back into a set that is not sealed, would write that holdout in the clear for
    a commit to put into git history. A holdout row arriving in a set whose holdout is
    sealed is sealed on arrival, and goes in."""
    from evalset.sets.copies import SealedBeside, copies_of_sealed

    if not items or not target.parent.is_dir():
        return
    sealed = SealedBeside().others(target)
    sealing = loaded is not None and bool(sealed_to(loaded)[0])
    lines = _row_lines(candidates)
    for n, other, by_content in copies_of_sealed(items, sealed):
        item = items[n]
        if sealing and item.holdout:
            continue
        what = (
            f"the row is item {other.id!r} of {other.set}, which is sealed there (the same "
            "content, by the fingerprint it shows)"
            if by_content
            else f"the row's question is a near duplicate of that of item {other.id!r} of "
            f"{other.set}, which is sealed there"
        )
        raise ImportRefused(
            f"{source}:{lines[item.id]}: {what}: {target} would hold it in plain text, for a "
            "commit to write the sealed holdout into git history; leave the row out, or "
            "import it into a set whose holdout is sealed (nothing was imported)."
        )


def _note_sealing(result: ImportResult, arrivals: Arrivals) -> None:
    result.sealed, result.recipients = arrivals.sealed, arrivals.recipients
    result.unchecked_sealed = arrivals.unchecked


def _known(store: SnapshotStore, ref: str) -> bool:
    try:
        return store.get(ref) is not None
    except EvalsetError:
        return False


def _decide(
    candidates: list[tuple[int, Item]],
    unnamed: set[int],
    existing: dict[str, Item | SealedItem],
    result: ImportResult,
    fmt: str,
    refused: Callable[[str], str | None],
) -> list[Item]:
    """Which rows are added: not a row whose id the set has (skipped when it is the same
    item as the format shows it, a conflict when its content differs, or when the set's
    item is one the schema refuses, which ``refused`` says why of), nor one whose
    question is a near duplicate of an item's or of an earlier row's (the rule `validate`
    and `promote` use). A row of ``unnamed`` (line numbers of rows with no id of their own)
    whose question is, in any case and spacing, that of the item of its id is such a near
    duplicate, not a conflict, whatever else it holds: its id is the hash of that question,
    and it has none to rename."""
    from evalset.sets.neardup import near_duplicate_pairs

    live = [e for e in existing.values() if isinstance(e, Item) and e.status != "retired"]
    questions = [e.question for e in live] + [item.question for _, item in candidates]
    partners: dict[int, list[int]] = {}
    crowded: list[list[int]] = []
    for a, b in near_duplicate_pairs(questions, crowded):
        partners.setdefault(b, []).append(a)
    result.crowded = [
        (len(group), [candidates[k - len(live)][0] for k in group if k >= len(live)])
        for group in crowded
        if group[-1] >= len(live)  # a group of the set's items alone is validate's to report
    ]
    owner = {k: entry.id for k, entry in enumerate(live)}
    added: list[Item] = []
    by_id: dict[str, Item] = {}  # the rows added so far, by id (a scan of them per row: n²)
    for n, (number, item) in enumerate(candidates):
        k = len(live) + n
        same = existing.get(item.id)
        if same is not None or item.id in by_id:
            earlier = same if same is not None else by_id[item.id]
            where = "the set" if same is not None else "an earlier row"
            if isinstance(earlier, SealedItem) and _sealed_as(earlier, item):
                result.skipped[item.id] = (
                    f"{where} has this item already (sealed, the same content by its fingerprint)"
                )
            elif isinstance(earlier, SealedItem):
                result.conflicts[item.id] = (
                    f"line {number}: the set has {item.id} sealed, so its content cannot be "
                    "compared without the key; set EVALSET_AGE_IDENTITY, or rename the row"
                )
            elif not (
                differs := _differences(
                    item, _as_format_shows(earlier, fmt) if same is not None else earlier
                )
            ):
                result.skipped[item.id] = f"{where} has this item already"
            elif number in unnamed and _normalised(earlier.question) == _normalised(item.question):
                # the question asked again (another case or spacing, other labels), no id
                result.skipped[item.id] = f"line {number}: near duplicate of {item.id}'s question"
            else:
                result.conflicts[item.id] = (
                    f"line {number}: {where} has {item.id} with other content "
                    f"({', '.join(differs)}); rename one of them or edit the set's item"
                )
            continue
        invalid = refused(item.id)
        if invalid is not None:  # its content cannot be compared: the item must be fixed
            result.conflicts[item.id] = f"line {number}: {invalid}, then import again"
            continue
        match = next((owner[a] for a in partners.get(k, []) if a in owner), None)
        if match is not None:
            result.skipped[item.id] = f"line {number}: near duplicate of {match}'s question"
            continue
        owner[k] = item.id
        added.append(item)
        by_id[item.id] = item
    return added
