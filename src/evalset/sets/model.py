"""Pydantic models of the set file and of failure records. Each field's docstring is
published in the JSON Schema."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    WithJsonSchema,
)

from evalset.sets.citations import Citation

FORMAT_VERSION = 1
ID_PATTERN = r"^[A-Za-z0-9._-]+$"
MAX_TEXT = 20_000
"""Longest question, key point or answer accepted, in characters."""
PLACEHOLDER = "TODO: the question, as a user would ask it"
"""The question `evalset new` writes when none is given; a draft that still has it lacks a
question."""


def _exactly(*allowed: object) -> BeforeValidator:
    """Run before a ``Literal`` of numbers or true/false: in its lax mode pydantic takes
    ``true`` and ``1.0`` for 1, and 1 for ``true``, which the published schema refuses. A
    value equal to an allowed one but of another type is refused as the ``Literal`` refuses
    any other value; the rest is left to the ``Literal``."""
    from pydantic_core import PydanticCustomError

    def check(value: Any) -> Any:
        equal = [a for a in allowed if value == a]
        if equal and not any(type(value) is type(a) for a in equal):
            expected = " or ".join(repr(a) for a in allowed)
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": expected}
            )
        return value

    return BeforeValidator(check)


MAX_ID = 200
"""The longest id an item may have."""
Identifier = Annotated[str, StringConstraints(strict=True, pattern=ID_PATTERN, max_length=MAX_ID)]
Text = Annotated[
    str, StringConstraints(strict=True, strip_whitespace=False, min_length=1, max_length=MAX_TEXT)
]
SnapshotRef = Annotated[str, StringConstraints(strict=True, pattern=r"^[0-9a-f]{4,64}$")]
Status = Literal["active", "draft", "retired"]


def set_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a set, or None. A set's name is part of its release tags
    (``evalset/NAME/vX.Y.Z``), so besides letters, digits, '.', '_' and '-' it must be what
    git accepts as one part of a tag name (``git check-ref-format``)."""
    if not re.fullmatch(ID_PATTERN, name):
        return f"set name {name!r} may use only ASCII letters, digits, '.', '_' and '-'"
    if name.startswith("-"):  # read on a command line as an option: `evalset new -x`
        return f"set name {name!r} may not start with '-', which a command line reads as an option"
    if name.startswith(".") or name.endswith(".") or ".." in name or name.endswith(".lock"):
        return (
            f"set name {name!r} cannot be part of a git tag (evalset/NAME/vX.Y.Z): it may not "
            "start or end with '.', contain '..', or end with '.lock'"
        )
    if len(name.encode()) > MAX_SET_NAME:
        return (
            f"set name {name[:24]!r}… is {len(name.encode())} bytes long: a set's file is named "
            f"after it (NAME.yaml), and a file name holds at most 255; use at most "
            f"{MAX_SET_NAME}"
        )
    return None


MAX_SET_NAME = 255 - len(".yaml")
"""The longest set name, in UTF-8 bytes: its file, ``NAME.yaml``, must be a file name."""


def _set_name(value: str) -> str:
    problem = set_name_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


SetName = Annotated[Identifier, AfterValidator(_set_name)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)


def states_nothing(text: str) -> bool:
    """Whether ``text`` shows nothing: white space and invisible format characters only (a
    zero-width space, a word joiner, a byte-order mark, a direction mark: Unicode category
    Cf), which look like an empty text wherever it is shown."""
    if text.isascii():
        return not text.split()
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in text)


def _blank(text: str) -> str:
    """What a text that states nothing holds, naming its first invisible character."""
    hidden = next((c for c in text if not c.isspace()), None)
    if hidden is None:
        return "white space"
    name = unicodedata.name(hidden, "a format character")
    return f"white space and invisible characters (U+{ord(hidden):04X} {name})"


def _stated(label: str) -> str:
    """A label of white space only (a key point, a ``must_not_say`` entry, a short answer)
    states nothing: every answer contains it, so each tool checking it passed any answer
    (``icontains " "``), and a reference of it was an empty sentence. Invisible characters
    (``states_nothing``) are no more than white space."""
    if states_nothing(label):
        raise ValueError(
            f"holds only {_blank(label)}, which states nothing; write the text or remove it"
        )
    return label


Label = Annotated[Text, AfterValidator(_stated)]
"""A key point's text, a ``must_not_say`` entry or a short answer: text, not white space
only (as the question, ``_asked``)."""


class KeyPoint(_Model):
    """One fact a correct answer must state."""

    text: Label
    """The fact, in one sentence (not white space only)."""
    sources: list[Citation] = Field(default_factory=list)
    """Where the corpus states it: `doc` or `doc#section`."""


class Origin(_Model):
    """Where the item came from."""

    kind: Literal["production", "manual", "synthetic", "imported"] = "manual"
    """production: a real user's question; manual: written by a person; synthetic: generated;
    imported: brought from another tool."""
    trace: Annotated[str, StringConstraints(strict=True, min_length=1)] | None = None
    """Id of the production trace the item was promoted from."""
    traces: list[Annotated[str, StringConstraints(strict=True, min_length=1)]] = Field(
        default_factory=list
    )
    """Further traces that asked the same question after the item existed."""
    date: dt.date | None = None
    """When the question was asked or written (YYYY-MM-DD)."""
    observed_answer: Text | None = None
    """The wrong answer the system gave, kept for the reviewer."""
    retrieved: list[str] = Field(default_factory=list)
    """What the system retrieved for the failing answer (citations or document ids)."""
    note: Text | None = None
    """Free-form note from whoever reported or wrote the item."""
    redactions: dict[
        Annotated[str, StringConstraints(strict=True, pattern=r"^[A-Z][A-Z0-9_]*$")],
        Annotated[int, Field(strict=True, ge=1)],
    ] = Field(default_factory=dict)
    """Personal data `evalset promote` replaced by placeholders, per type (`EMAIL: 2`); the
    original values are kept nowhere."""


class HoldoutMove(_Model):
    """A move between tuning and holdout that a person forced and recorded."""

    to: Literal["tuning", "holdout"]
    """The side the item was moved to."""
    date: dt.date
    """When it was moved (YYYY-MM-DD)."""
    reason: Text | None = None
    """Why it was moved."""


def _asked(question: str) -> str:
    """A question of white space only (``"   "``, ``"\\n"``, or invisible characters: see
    ``states_nothing``) asks nothing, as an empty one does; its draft would get the id of
    the empty question, shared by every other."""
    if states_nothing(question):
        raise ValueError(f"holds only {_blank(question)}; give the question the user asked")
    return question


_WHEN = {
    "anyOf": [
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time"},
        {"type": "string", "pattern": "^[0-9]{1,20}(\\.[0-9]+)?$"},
        {"type": "number", "minimum": 0},
    ]
}
"""What a failure record's ``date`` may be (``_day``), as its JSON Schema says it."""


def _trace_digits(value: Any) -> Any:
    """A trace id given as a whole number (a home-grown log's id) as its digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class Item(_Model):
    """One question with its labels (a row of the eval set)."""

    id: Identifier
    """Unique within the set: letters, digits, '.', '_' and '-'."""
    question: Annotated[Text, AfterValidator(_asked)]
    """The question as a user would ask it (not white space only)."""
    category: Identifier | None = None
    """One of the set's declared categories. Drafts may leave it out."""
    answerable: StrictBool = True
    """False when the corpus cannot answer and the system must decline; such items carry no
    key points or expected sources."""
    expected_sources: list[Citation] = Field(default_factory=list)
    """The sections a good retriever should return for this question."""
    key_points: list[KeyPoint] = Field(default_factory=list)
    """The facts a correct answer must contain, each with the citations that state it."""
    must_not_say: list[Label] = Field(default_factory=list)
    """Statements a correct answer must not make (known wrong answers; not white space only)."""
    answer: Label | None = None
    """Optional short extractive answer, for exact-match scoring (not white space only)."""
    holdout: StrictBool | None = None
    """True: held out from prompt tuning. Unset: not assigned yet (`evalset split` assigns it)."""
    holdout_moves: list[HoldoutMove] = Field(default_factory=list)
    """Moves between tuning and holdout, recorded by `evalset split --move ... --force`; a
    flip of `holdout` without one is a validation error."""
    status: Status = "active"
    """active: scored; draft: under review, may be incomplete, never exported or released;
    retired: kept for history only."""
    verified: SnapshotRef | None = None
    """Id (or unique prefix) of the corpus snapshot a person last checked this item against
    (`evalset verify` writes it). Without it the item is unverified: staleness cannot be
    judged for it."""
    origin: Origin | None = None
    """Where the item came from."""
    tags: list[Annotated[str, StringConstraints(strict=True, min_length=1)]] = Field(
        default_factory=list
    )
    """Free labels for filtering."""


def item_citations(item: Item) -> list[Citation]:
    """Every citation of an item: expected sources, then key-point sources not among them,
    without repeats."""
    seen: dict[Citation, None] = dict.fromkeys(item.expected_sources)
    for point in item.key_points:
        seen.update(dict.fromkeys(point.sources))
    return list(seen)


def side(holdout: bool | None) -> str:
    """holdout, tuning or unassigned."""
    return {True: "holdout", False: "tuning", None: "unassigned"}[holdout]


HIDDEN = "(a holdout item: not shown)"
"""What output shows in place of a holdout item's label."""


def hidden_judge_error(holdout: bool | None) -> str:
    """What output shows in place of a judge's failure on a claim of an item whose labels
    are not shown: a model's reply may quote the claim."""
    which = "a holdout item" if holdout else "an item in no split yet"
    return f"the judge failed (what it said is not shown for {which})"


def labels_shown(holdout: bool | None) -> bool:
    """Whether reports may show an item's labels: only a tuning item's. A holdout item's
    would reach the people tuning prompts, and so would an unassigned item's, which `split`
    may yet put in the holdout."""
    return holdout is False


EARLIEST_TIMESTAMP = 1e9
"""2001-09-09 in seconds since 1970, the first ten-digit timestamp (and, times 1000, the
first thirteen-digit one in milliseconds). A smaller number is no trace's time: most likely
a date written as digits (``20261128``), which read as seconds would be a day in 1970."""


def _day(value: Any) -> Any:
    """A date from an ISO date, an ISO timestamp (``2026-11-30T14:02:11Z``, ``2026-11-30
    14:02:11.96``) or seconds/milliseconds since the epoch, as trace exports write them
    (digits in quotes too, as pydantic would read them)."""
    if isinstance(value, str) and len(value) > 10 and re.match(r"\d{4}-\d{2}-\d{2}[T ]", value):
        try:  # the time read too: a date followed by anything is no timestamp
            dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{value!r} is not a timestamp; write YYYY-MM-DD, an ISO timestamp "
                "(2026-11-30T14:02:11Z), or the time in seconds or milliseconds since 1970"
            ) from None
        return value[:10]
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,20}", value):
        value = int(value)
    elif isinstance(value, str) and re.fullmatch(r"[0-9]{1,20}\.[0-9]+", value):
        value = float(value)  # in quotes or not, as the README says
    if isinstance(value, bool) or not isinstance(value, (str, int, float, dt.date)):
        raise ValueError(
            f"{not_a_date(value)}; write YYYY-MM-DD, or the time in seconds or milliseconds "
            "since 1970"
        )
    if isinstance(value, str) and _day_problem(value) is not None:
        raise ValueError(
            f"{not_a_date(value)}; write YYYY-MM-DD, an ISO timestamp (2026-11-30T14:02:11Z), "
            "or the time in seconds or milliseconds since 1970"
        )
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            day = dt.datetime.fromtimestamp(seconds, dt.UTC).date()
        except (OverflowError, OSError, ValueError):  # beyond the years a date can hold
            raise ValueError(
                f"{value!r} is not a time: seconds or milliseconds since 1970 are expected"
            ) from None
        if not EARLIEST_TIMESTAMP <= value <= 1e11 and value < EARLIEST_TIMESTAMP * 1000:
            raise ValueError(_early(value, day))
        if len(str(int(value))) not in (10, 13):  # 11 or 14 digits: a year past 2286
            raise ValueError(
                f"{value!r} is not a time: seconds (10 digits) or milliseconds (13 digits) "
                "since 1970 are expected"
            )
        return day
    return value


def not_a_date(value: Any) -> str:
    """Why ``value`` is not a date: a date in the right form names the part out of range
    (``month must be in 1..12``), a date with a time of day is said to be one."""
    if isinstance(value, dt.datetime):
        return f"{value.isoformat(sep=' ')} is a date and time, not a date"
    shown = json.dumps(value) if isinstance(value, (bool, list, dict)) else repr(value)
    if isinstance(value, str) and re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]", value):
        return f"{shown} is a date and time, not a date"
    out_of_range = _day_problem(value) if isinstance(value, str) else None
    return f"{shown} is not a date" + (f": {out_of_range}" if out_of_range else "")


def _day_problem(text: str) -> str | None:
    """None when ``text`` is a day of the calendar written as YYYY-MM-DD; else what is
    wrong with the day ("month must be in 1..12"), or "" when it is not in that form."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return ""
    try:
        dt.date.fromisoformat(text)
    except ValueError as exc:
        return str(exc)
    return None


def _early(value: float, day: dt.date) -> str:
    """Why a number too small for a trace's time is refused, and the date it may mean."""
    unit = "milliseconds" if value > 1e11 else "seconds"
    digits = str(value)
    fix = "as YYYY-MM-DD, or the time in seconds (10 digits) or milliseconds (13) since 1970"
    if re.fullmatch(r"[0-9]{8}", digits):
        with contextlib.suppress(ValueError):
            fix = f'as "{dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:])).isoformat()}"'
    return (
        f"{value!r} is too small for a trace's timestamp (as {unit} since 1970 it is {day}; "
        f"the earliest taken is {EARLIEST_TIMESTAMP:.0f} seconds, or that in milliseconds); "
        f"write the date {fix}"
    )


class FailureRecord(_Model):
    """One wrong production answer to promote into a draft item (a line of the JSONL file
    given to `evalset promote`; other shapes are mapped with `--map` or `--preset`)."""

    model_config = ConfigDict(title="evalset failure record")

    question: Annotated[
        str,
        StringConstraints(strict=True, min_length=1, max_length=MAX_TEXT),
        AfterValidator(_asked),
    ]
    """What the user asked (not white space only)."""
    trace: (
        Annotated[
            str,
            StringConstraints(strict=True, min_length=1),
            BeforeValidator(_trace_digits),
            WithJsonSchema({"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}),
        ]
        | None
    ) = None
    """Id of the production trace, so the same failure is never promoted twice: text, or a
    whole number (kept as its digits). Kept as it is, so one that holds personal data (an
    email address, a phone number) is refused."""
    date: Annotated[dt.date, BeforeValidator(_day), WithJsonSchema(_WHEN)] | None = None
    """When it was asked: a date, or a timestamp of which the date is kept (ISO, or seconds
    or milliseconds since 1970)."""
    answer: Text | None = None
    """What the system answered (kept as `origin.observed_answer`)."""
    retrieved: list[Annotated[str, StringConstraints(strict=True, min_length=1)]] = Field(
        default_factory=list
    )
    """What the system retrieved: citations (`doc#section`) or document ids."""
    category: Identifier | None = None
    """The set category the question belongs to, when the reporter knows it."""
    note: Text | None = None
    """What was wrong, in the reporter's words."""


Fingerprint = Annotated[str, StringConstraints(strict=True, pattern=r"^sha256:[0-9a-f]{64}$")]


class Sealed(_Model):
    """The encrypted content of a sealed holdout item."""

    fingerprint: Fingerprint
    """The item's fingerprint, so pins and releases stay the same without the key."""
    fingerprint_format: Annotated[Literal[1, 2], _exactly(1, 2)] = 1
    """The fingerprint format it was computed with: 2 leaves provenance out; 1 (written
    without this field by evalset 0.1) did not."""
    recipients: list[Annotated[str, StringConstraints(strict=True, min_length=1)]] = Field(
        min_length=1
    )
    """The age public keys it is encrypted to (an edit made with the key re-seals to them)."""
    age: Annotated[str, StringConstraints(strict=True, pattern=r"^-----BEGIN AGE ENCRYPTED")]
    """The whole item as JSON, encrypted with age (ASCII armor)."""


class SealedItem(_Model):
    """A holdout item whose content is sealed by `evalset seal`: only what counts need is
    visible. `evalset unseal` (with the key) turns it back into a plain item."""

    id: Identifier
    """The item's id."""
    category: Identifier | None = None
    """The item's category."""
    holdout: Annotated[Literal[True], _exactly(True)]
    """Only holdout items are sealed."""
    status: Status = "active"
    """The item's status."""
    verified: SnapshotRef | None = None
    """The snapshot the item was verified against, shown so that its staleness is known
    without the key while that snapshot is the newest (it reveals neither the question nor
    its citations). Items sealed by evalset 0.1 do not show it."""
    sealed: Sealed
    """The encrypted content."""


class SetHeader(_Model):
    """Everything in a set file except its items."""

    evalset: Annotated[Literal[1], _exactly(1)]
    """File-format version; this version of evalset reads 1."""
    name: SetName
    """The set's name, used on the command line and in release tags (so git must accept it
    in a tag name: it may not start or end with '.', contain '..' or end with '.lock')."""
    description: Text | None = None
    """What the system under test does, in a sentence."""
    snapshot: SnapshotRef | None = None
    """Obsolete: earlier versions counted it as the snapshot of every item without its own
    `verified`, including items written after it was recorded. Each item now records its
    own; `evalset verify NAME --from-header` moves this onto the items that were in the set
    when it was recorded."""
    categories: dict[Identifier, Annotated[str, StringConstraints(strict=True)]] = Field(
        min_length=1
    )
    """The kinds of question this set must cover: name -> what it means."""
    version: Annotated[str, StringConstraints(strict=True, pattern=r"^\d+\.\d+\.\d+$")] | None = (
        None
    )
    """Released version (X.Y.Z), written by `evalset release`."""
    fingerprint: Fingerprint | None = None
    """Content fingerprint of the released version, written by `evalset release`."""


class EvalSet(SetHeader):
    """An eval-set file: a header and a list of items."""

    model_config = ConfigDict(title="evalset set file")

    items: list[Item | SealedItem] = Field(default_factory=list)
    """The questions with their labels; sealed holdout items carry their content encrypted."""
