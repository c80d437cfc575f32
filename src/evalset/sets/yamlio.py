"""Reading YAML text fast and safely, with a located one-sentence error for every failure.

yaml-rs (Rust) parses a 10 MB set in about a third of a second; ruamel.yaml, which we
use for round-trip edits, needs tens of seconds for the same file. So every command reads
with yaml-rs, and ruamel.yaml only ever sees the few small regions an edit or an error
message needs (see ``locate.py``).
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import Any, TypeVar

import yaml_rs

from evalset.errors import SetFileError
from evalset.fsio import (
    conflict_line,
    long_integers,
    long_number_place,
    memory_left,
    number_runs,
)

MAX_ALIAS_EVENTS = 100_000
"""Aliases may replay at most this many parse events: a 'billion laughs' file fails fast."""

_POSITION = re.compile(r"line (\d+), column (\d+)")
_DOC_MARKER = re.compile(r"^(---|\.\.\.)(\s|$)", re.MULTILINE)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def read_text(path: Path, what: str = "set file", keep_bom: bool = False) -> str:
    """Read a text file as UTF-8, refusing folders, binary content and bad encodings (UTF-16
    is named as such). The byte-order mark is dropped unless ``keep_bom``."""
    from evalset.fsio import TextError, decode_text

    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise SetFileError(f"{path}: is a folder, not a {what}; name a .yaml file in it.") from None
    except FileNotFoundError:
        raise SetFileError(f"{path}: no such file; check the path or the set name.") from None
    except OSError as exc:
        raise SetFileError(f"{path}: cannot be read ({exc.strerror}).") from None
    check_memory(len(data), path)
    try:
        text = decode_text(data, path, what)
    except TextError as exc:
        raise SetFileError(str(exc)) from None
    return text if keep_bom else text.removeprefix("\ufeff")


READ_FACTOR = 12
"""Reading a set takes about ten times its size in memory (the parser's tree, then Python's
objects); the margin covers the rest."""


def check_memory(
    size: int, path: object, what: str = "set file", factor: int = READ_FACTOR
) -> None:
    """Refuse, in one sentence, a file too large to read within the process's memory limit:
    the native parsers abort the process (no error to catch) when an allocation fails."""
    if size < 1 << 20:
        return
    left = memory_left()
    if left is not None and size * factor > left:
        raise SetFileError(
            f"{path}: is {size / 1e6:,.1f} MB, too large to read within this process's memory "
            f"limit ({left / 1e6:,.0f} MB left; ulimit -v); raise the limit, or split the "
            f"{what}."
        )


_LEADING_TAB = re.compile(r"^[ ]*\t", re.MULTILINE)


def _syntax_message(path: Path, detail: str, text: str) -> str:
    reason = detail.strip().splitlines()[-1].strip() if detail.strip() else "syntax error"
    where = _POSITION.search(detail)
    loc = f"{path}:{where.group(1)}:{where.group(2)}" if where else str(path)
    tab = _LEADING_TAB.search(text) if "tab" in reason else None
    if tab:
        # Point at the tab itself; the parser reports where it noticed the problem.
        line, col = line_col(text, tab.end() - 1)
        loc = f"{path}:{line}:{col}"
    if "tab" in reason:
        return f"{loc}: is indented with a tab; YAML indents with spaces only, so replace the tab."
    if where and "followed by a valid YAML whitespace" in reason:
        row = re.split(r"\r\n|\r|\n", text)[int(where.group(1)) - 1]
        after = int(where.group(2))
        if row[after - 2 : after - 1] == "\t":  # the tab aligns a value after its key
            return (
                f"{path}:{where.group(1)}:{after - 1}: has a tab right after a key's `:`, where "
                "YAML readers (evalset's among them) take only a space; write a space for the "
                "tab."
            )
    if "quoted scalar" in reason or "quote" in reason:
        return f"{loc}: not valid YAML ({reason}); is a quote left unclosed?"
    if "recursion limit" in reason:  # the fast reader's own bound, of flow collections
        return (
            f"{loc}: nests flow collections ([...] or {{...}}) more than {FLOW_DEPTH} levels "
            "deep, which no set needs and the reader does not take; write them shallower."
        )
    return f"{loc}: not valid YAML ({reason}); fix the syntax there."


MAX_DEPTH = 1000
FLOW_DEPTH = 255
"""How deep yaml-rs reads flow collections (``[[...]]``) nested in one another."""
"""How deeply a YAML file may nest collections. A set nests about six levels deep; the native
parser overflows its stack (and the process dies) somewhere past ten thousand."""
_DEEP_PREFIX = re.compile(rf"^[ \t\-?:]{{{MAX_DEPTH // 2}}}", re.MULTILINE)
_TAG = re.compile(r"invalid tag: '([^']*)'|invalid value .* for '([^']*)' tag", re.I | re.S)


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests block collections more than MAX_DEPTH levels deep.

    A block collection nested in another starts on a new line indented further, or after
    an indicator (``- ``, ``? ``, ``: ``) of its parent on the same line, so a node that
    starts at column c is at most 2c + 2 levels deep: only a line whose leading run of
    spaces and indicators is MAX_DEPTH/2 long can be too deep (a fast scan). Flow
    collections are limited by the parser itself. Such rare lines are checked exactly, with
    ruamel.yaml's event stream (pure Python, no recursion)."""
    if _DEEP_PREFIX.search(text) is None:
        return False
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    try:
        for event in YAML(typ="rt", pure=True).parse(text):
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return True
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return False  # not valid YAML: the real parser says where
    return False


_STACK = 256 << 20
"""Stack of the thread that parses: room for the nesting aliases can build (they replay at
most MAX_ALIAS_EVENTS events) on top of MAX_DEPTH levels. Only what is used is allocated."""


def _in_big_stack(call: Any) -> Any:
    """``call()`` in a thread with a large stack (the native parser recurses once per level
    of nesting); in this thread when no such thread can be started."""
    import threading

    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # re-raised in the caller's thread
            outcome.append((False, exc))

    try:
        previous = threading.stack_size(_STACK)
    except (ValueError, RuntimeError):
        return call()
    try:
        worker = threading.Thread(target=run, name="evalset-yaml")
        worker.start()
    except RuntimeError:
        return call()
    finally:
        threading.stack_size(previous)
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def conflict_message(path: Path, line: int) -> str:
    return (
        f"{path}:{line}:1: holds an unresolved merge conflict (git's conflict markers); "
        "resolve it: keep the right lines between `<<<<<<<` and `>>>>>>>`, delete the "
        "markers, then `git add` the file."
    )


def _loads(text: str) -> Any:
    return yaml_rs.loads(
        text,
        parse_datetime=False,
        duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error,
        alias_limits=yaml_rs.AliasLimits(max_total_replayed_events=MAX_ALIAS_EVENTS),
    )


class _Prefetch:
    """A file read and parsed in a thread of its own (see ``prefetch``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.found: tuple[str, Any] | None = None
        self.thread: Any = None

    def run(self) -> None:
        try:
            text = read_text(self.path)
            if not _too_deep(text):
                self.found = (text, _loads(text))
        except Exception:  # said by parse_yaml, which parses the text again
            self.found = None


_prefetched: list[_Prefetch] = []


def prefetch(path: Path) -> None:
    """Start reading and parsing the YAML file at ``path`` in a thread while this one goes on
    (a command importing what it needs, say: yaml-rs parses without holding the interpreter,
    so on two cores the two overlap). ``parse_yaml`` of the same text then takes that result
    instead of parsing again; a file changed meanwhile, or one that does not parse, is
    parsed (and its problem said) as usual. At most one file is prefetched at a time.

    Only a regular file is prefetched (a pipe or a FIFO can be read once: by the reader),
    and only without a memory limit (``ulimit -v``), under which the parse's large stack
    and the imports running beside it could together pass the limit."""
    import os
    import stat
    import threading

    _take(None)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or memory_left() is not None:
            return
    except OSError:
        return
    job = _Prefetch(path)
    try:
        previous = threading.stack_size(_STACK)
    except (ValueError, RuntimeError):
        return
    try:
        job.thread = threading.Thread(target=job.run, name="evalset-prefetch", daemon=True)
        job.thread.start()
    except RuntimeError:
        return
    finally:
        threading.stack_size(previous)
    _prefetched.append(job)


def _take(text: str | None) -> Any:
    """The prefetched value of ``text`` (the prefetch is waited for, and forgotten), or
    ``_MISSING``."""
    found: Any = _MISSING
    while _prefetched:
        job = _prefetched.pop()
        job.thread.join()
        if text is not None and job.found is not None and job.found[0] == text:
            found = job.found[1]
    return found


_MISSING = object()


def forget_prefetch() -> None:
    """Wait for a prefetch and drop it: the file was refused before its text was parsed
    (not UTF-8, say), so ``parse_yaml`` will not take it, and no thread is left behind."""
    if _prefetched:
        _take(None)


def parse_yaml(text: str, path: Path) -> Any:
    """Parse one YAML document with yaml-rs (YAML 1.2 core schema, dates left as text);
    a document that tags a node (``!!int``, ``!custom``) is refused (``_refuse_tags``)."""
    found = _take(text) if _prefetched else _MISSING
    if found is _MISSING:
        found = _parse(text, path)
    _refuse_tags(text, path)
    _refuse_long_numbers(text, path, found)
    return found


def _refuse_long_numbers(text: str, path: Path, data: Any) -> None:
    """Refuse, at its place, an integer of more digits than Python turns into text
    (``sys.get_int_max_str_digits``): yaml-rs reads one, but every message that names the
    value (``expected text, got a number (…)``) failed on it. A file with no run of
    characters that long that a number is made of (``number_runs``) costs one look at every
    few thousandth character; one with such a number, a parse per run until the number's is
    found."""
    limit = sys.get_int_max_str_digits()
    if not limit or not number_runs(text, limit * 4 // 5):
        return
    count = long_integers(data, limit)
    if not count:
        return

    def parse(probe: str) -> Any:
        return _in_big_stack(lambda: _loads(probe))

    at = long_number_place(text, limit, count, parse, (yaml_rs.YAMLDecodeError,))
    where = str(path) if at is None else "{}:{}:{}".format(path, *line_col(text, at))
    raise SetFileError(
        f"{where}: is a number too long to read (more than {limit:,} digits); quote it if it "
        "is meant as text, or write a shorter number."
    )


def _tag_starts(text: str) -> list[int]:
    """Where a tag may begin: a ``!`` at the start, or after white space or ``[ { , :`` (and
    so wherever the grammar allows a node's properties; also inside some scalars and
    comments). Not ``![``, a markdown image in a text: as a tag it would not have parsed at
    all. (Found by ``str.find``: a regular expression opening with a look-behind tries every
    position of a 10 MB file.)"""
    found = []
    at = text.find("!")
    while at >= 0:
        before = text[at - 1] if at else " "
        if (before.isspace() or before in "[{,:") and not text.startswith("![", at):
            found.append(at)
        at = text.find("!", at + 1)
    return found


_TAG_TEXT = re.compile(r"!<[^>]*>|![^\s\[\]{},]*")
_PROBE = "!!evalset-probe-"
"""Put in place of a ``!`` where a tag may begin: yaml-rs refuses a tag it does not know,
while in a scalar or a comment the text is only longer."""


def _refuse_tags(text: str, path: Path) -> None:
    """Refuse a document that tags a node. yaml-rs drops most tags without a word
    (``!custom``, ``!!binary``, a verbatim ``!<...>``), turns others into what no set holds
    (``!!set``) and refuses a few: none of them belongs in a set file, and a tag another
    tool relies on must not vanish silently. The places a tag may begin are probed (the
    text parsed again with an unknown tag there): the document parses only when none of
    them is a tag; the first that is, is found by halving."""
    starts = _tag_starts(text)
    if not starts or _parses(_probed(text, starts)):
        return
    while len(starts) > 1:
        half = starts[: len(starts) // 2]
        starts = half if not _parses(_probed(text, half)) else starts[len(half) :]
    raise SetFileError(_tag_message(path, text, starts[0]))


def _probed(text: str, starts: list[int]) -> str:
    pieces, last = [], 0
    for start in starts:
        pieces += [text[last:start], _PROBE]
        last = start + 1
    return "".join(pieces) + text[last:]


def _parses(text: str) -> bool:
    try:
        _in_big_stack(lambda: _loads(text))
    except yaml_rs.YAMLDecodeError:
        return False
    return True


def _tag_message(path: Path, text: str, offset: int) -> str:
    tag = _TAG_TEXT.match(text, offset)
    shown = tag.group() if tag else "!"
    line, col = line_col(text, offset)
    return (
        f"{path}:{line}:{col}: uses the YAML tag {shown!r}, which set files do not allow; "
        "remove the tag and write the value as plain text."
    )


def _parse(text: str, path: Path) -> Any:
    if _too_deep(text):
        raise SetFileError(
            f"{path}: nests collections more than {MAX_DEPTH:,} levels deep, which no set "
            "file needs; fix the file (restore it from git if it was damaged)."
        )
    try:
        return _in_big_stack(lambda: _loads(text))
    except yaml_rs.YAMLDecodeError as exc:
        detail = str(exc)
    line = conflict_line(text)
    if line is not None:
        raise SetFileError(conflict_message(path, line))
    if "alias" in detail and "limit" in detail:
        raise SetFileError(
            f"{path}: its YAML aliases expand to more than {MAX_ALIAS_EVENTS:,} nodes "
            "(an alias bomb?); write the values out instead of using aliases."
        )
    duplicate = re.match(r"duplicate mapping key: (.*)", detail)
    if duplicate:
        from evalset.sets.locate import locate_duplicate_key

        where = locate_duplicate_key(text)
        loc = f"{path}:{where[0]}:{where[1]}" if where else str(path)
        key = duplicate.group(1)
        if key.startswith(("'", '"')):
            raise SetFileError(
                f"{loc}: key {key} appears twice in the same mapping; keep one of them."
            )
        # not text: keys written differently may read as one value (1 and true, 1 and 1.0)
        raise SetFileError(
            f"{loc}: two keys of the same mapping read as one value, {key} (programs reading "
            "YAML take `1`, `1.0` and `true` for one key, and `null` and `~`); keep one of "
            "them, or write the keys as text in quotes."
        )
    tag = _TAG.search(detail)
    if tag:  # a tag yaml-rs refuses, or one it cannot apply: its message quotes the value
        name = tag.group(1) or tag.group(2)
        offset = next((at for at in _tag_starts(text) if text.startswith(name, at)), -1)
        if offset >= 0:
            raise SetFileError(_tag_message(path, text, offset))
        raise SetFileError(
            f"{path}: uses the YAML tag {name!r}, which set files do not allow; remove the tag "
            "and write the value as plain text."
        )
    raise SetFileError(_syntax_message(path, detail, text))


def parse_mapping(text: str, path: Path, what: str = "set file") -> dict[str, Any]:
    """Parse a file that must hold one YAML mapping."""
    data = parse_yaml(text, path)
    if data is None:
        raise SetFileError(
            f"{path}: is empty; a {what} needs at least `evalset: 1`, `name:` and `categories:` "
            "(`evalset init` writes one)."
        )
    if isinstance(data, list) and _DOC_MARKER.search(text):
        raise SetFileError(f"{path}: holds more than one YAML document; keep one set per file.")
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        raise SetFileError(
            f"{path}: the top level is {kind}, but a {what} is a mapping with "
            "`evalset`, `name`, `categories` and `items`; see sets/ in the example workspace."
        )
    return data


BREAKS_OF_YAML_1_1 = ("\x85", "\u2028", "\u2029")
"""NEL, LS and PS: line breaks to ruamel.yaml's emitter (YAML 1.1), text to the reader
(YAML 1.2). Written plain or single-quoted, a value holding one is broken there and what
follows is indented, and the reader keeps that indentation as part of the text (NEL, a
mis-decoded "…", became a space)."""


NEVER_FOLD = sys.maxsize
"""The line width every ruamel.yaml dump of ours is given, so that it never folds a value.
Past its width the emitter folds a double-quoted text, and where the fold falls right after
an escape (``\\t``, ``\\r``, a control character, NEL, LS or PS) it writes a bare line break
without the ``\\`` that would keep it out of the value: every reader takes it for a space. A
width of 4096 put a space into one long text of a promptfoo export in thirty."""


_Yaml = TypeVar("_Yaml")


def _quoted_if_breaks(representer: Any, data: str) -> Any:
    if any(c in data for c in BREAKS_OF_YAML_1_1):  # escaped as \N, \L, \P in double quotes
        return representer.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return representer.represent_str(data)


_STR = "tag:yaml.org,2002:str"


@functools.cache
def _yaml_1_1() -> Any:
    from ruamel.yaml.resolver import VersionedResolver

    return VersionedResolver(version=(1, 1))


_NUMBER_START = frozenset("_.+-0123456789")


def read_otherwise(text: str) -> bool:
    """Whether a YAML reader takes ``text``, written plain, for something other than text.

    ruamel.yaml writes for YAML 1.2, where ``yes``, ``no``, ``on``, ``off``, ``y`` and ``n``
    are text, and so writes them plain; a YAML 1.1 reader (PyYAML, Go's yaml.v2, most YAML
    tools of before 2021) reads them as booleans, ``1:30`` as 90 (a number in base 60),
    ``017`` as 15 and ``1_000`` as 1000. And yaml-rs, which evalset reads with, takes more
    for numbers than YAML 1.2 does (``_1``, ``1e_3``, ``.NaN``, ``0X1F``): a text that
    may start a number is read with it to see."""
    from ruamel.yaml.nodes import ScalarNode

    if _yaml_1_1().resolve(ScalarNode, text, (True, False)) != _STR:
        return True
    if text[:1] not in _NUMBER_START:
        return False
    try:
        return bool(_loads(text) != text)
    except yaml_rs.YAMLDecodeError:
        return True


class _Portable:
    """What a ruamel.yaml emitter writes plain, restricted to what every YAML reader reads
    as the same text (mixed into the emitter class of a ``YAML``, see ``writes_portably``).

    - In a flow collection (``[a, b]``, ``{k: v}``), a text that begins with ``?`` or
      ``:``, or holds a ``?``, is quoted: YAML 1.1 ends a plain text at a ``?`` there (PyYAML
      refuses the file), and ruamel.yaml writes ``[? x]``, which every reader takes for a
      mapping ``{x: null}``.
    - In a flow collection, a text that ends in a space and ``-`` is quoted: yaml-rs takes
      ``[a -]`` for a ``-`` that starts a text before the ``]``, and refuses the file.
    - Anywhere, a text that a YAML reader reads as something else (``read_otherwise``) is
      quoted."""

    def analyze_scalar(self, scalar: Any) -> Any:
        found = super().analyze_scalar(scalar)  # type: ignore[misc]
        if scalar and ("?" in scalar or scalar[0] == ":" or scalar[-2:] in (" -", "\t-")):
            found.allow_flow_plain = False
        return found

    def choose_scalar_style(self) -> Any:
        style = super().choose_scalar_style()  # type: ignore[misc]
        event: Any = self.event  # type: ignore[attr-defined]
        if style == "" and event.tag == _STR and event.value and read_otherwise(event.value):
            return "'"
        return style


def writes_portably(yaml: _Yaml) -> _Yaml:
    """``yaml`` (a ruamel.yaml ``YAML``, before its first dump), writing every text so that
    YAML 1.1 and 1.2 readers alike read it back as it was: one that holds NEL, LS or PS
    double-quoted with the character escaped (``BREAKS_OF_YAML_1_1``), and one that a
    reader of either version would take for something else, or not read, quoted
    (``_Portable``). Returns ``yaml``."""
    base = yaml.Representer  # type: ignore[attr-defined]
    escaping: Any = type(f"Escaping{base.__name__}", (base,), {})
    escaping.add_representer(str, _quoted_if_breaks)
    yaml.Representer = escaping  # type: ignore[attr-defined]
    emitter = yaml.Emitter  # type: ignore[attr-defined]
    yaml.Emitter = type(f"Portable{emitter.__name__}", (_Portable, emitter), {})  # type: ignore[attr-defined]
    return yaml


def flow_entry(text: str) -> str:
    """``text`` as an entry of a flow list (``[a, b]``) is written so that every YAML reader
    reads it back as ``text``: plain where it can be, else quoted (``writes_portably``)."""
    import io

    from ruamel.yaml import YAML

    yaml = writes_portably(YAML(typ="safe", pure=True))
    yaml.default_flow_style = True
    yaml.width = NEVER_FOLD
    out = io.StringIO()
    yaml.dump([text], out)
    return out.getvalue().rstrip("\n").removesuffix("\n...").rstrip("\n")[1:-1]
