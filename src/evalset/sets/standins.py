"""Stand-ins for what the YAML library that edits (ruamel.yaml) reads otherwise than the
YAML evalset reads (yaml-rs, YAML 1.2), put into a region before the library reads it and
taken out of what it writes, so that text an edit does not touch comes back byte for byte.

Two kinds of text need them:

- NEL, LS and PS (``BREAKS_OF_YAML_1_1``), which the library reads as line breaks: an
  edit turned a NEL in an untouched question into a space, or indented the text after an
  LS.
- A tab in white space of the block layout, or inside a plain text (``5 euros<TAB>``, a
  line holding only a tab, ``"Q"<TAB># c``, ``Q<TAB>one``): YAML, but the library refuses
  every one of them, so an edit of the item was refused.

The stand-ins are characters of ``RESERVED`` (private use) that the file does not hold,
which the library reads and writes as any other character. Each is a function of the text
alone (the same text gets the same stand-ins however often it is read), so the item as the
library writes it unedited and as it writes it edited can be compared field by field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset.errors import EditRefused, SetFileError
from evalset.sets.locate import block_scalar
from evalset.sets.yamlio import BREAKS_OF_YAML_1_1

RESERVED = range(0xF0000, 0xF0100)
"""Code points of the supplementary private use area that ``StandIns`` takes its stand-ins
from while the YAML library edits a region: text to write may not hold one (put back, it
would become what it stands for)."""


def refuse_reserved(text: str, what: str) -> None:
    """Refuse ``text`` (``what`` says what it is) when it holds a ``RESERVED`` character, or
    a lone surrogate, which no file holds as text: Python's stand-in for a byte that is not
    UTF-8 in a command line or a file name (written, it failed the write, or made the set
    file unreadable and was blamed on it)."""
    if text.isascii():
        return
    lone = next((c for c in text if 0xD800 <= ord(c) <= 0xDFFF), None)
    if lone is not None:
        byte = f" (the byte \\x{ord(lone) - 0xDC00:02x})" if 0xDC80 <= ord(lone) <= 0xDCFF else ""
        raise EditRefused(
            f"{what} holds U+{ord(lone):04X}, a lone surrogate{byte}, which is not text a set "
            "file can hold; write it as UTF-8. The file is unchanged."
        )
    found = next((c for c in text if ord(c) in RESERVED), None)
    if found is not None:
        raise EditRefused(
            f"{what} holds U+{ord(found):05X}, a private-use character evalset reserves while "
            f"it edits (U+F0000 to U+F00FF); write it without. The file is unchanged."
        )


@dataclass(frozen=True)
class TabRun:
    """White space holding a tab that the YAML library refuses, on one line of a region."""

    line: int
    """0-based, in the region."""
    start: int
    end: int
    """Columns: the run is ``line[start:end]``."""
    kind: str
    """``comment``: a comment follows it, or it is a line of white space alone, and it goes
    into a comment (kept exactly);
    ``space``: white space around the layout (at the end of a line, on a line of its own,
    after ``- `` or ``key:``, before a key's ``:``), which reads as spaces of its width;
    ``text``: inside a plain text, where each tab gets a stand-in of its own."""


class MisreadTab(EditRefused):
    """A tab the stand-ins cannot keep: the region, with them, would read otherwise."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(f"a tab at line {line + 1}, column {column + 1} of the region")
        self.line = line
        self.column = column
        """0-based, in the region given to ``StandIns.take_out``."""


class StandIns:
    """The stand-ins of one edit: chosen once from the characters of ``RESERVED`` that the
    file (``text``) does not hold. Text the edit writes may hold none of ``RESERVED``
    (``refuse_reserved``)."""

    def __init__(self, text: str) -> None:
        free = (chr(c) for c in RESERVED if chr(c) not in text)
        try:
            self.breaks = {b: next(free) for b in BREAKS_OF_YAML_1_1}
            self.tab, self.space = next(free), next(free)
            self.comment, self.alone = next(free), next(free)
        except StopIteration:  # 249 of the 256 in one file: not a set anyone writes
            raise EditRefused(
                "the file holds almost every private-use character from U+F0000 to U+F00FF, "
                "which evalset needs while it edits; the file is unchanged."
            ) from None
        self.used = "".join([*self.breaks.values(), self.tab, self.space, self.comment, self.alone])
        self._comment_back = re.compile(
            rf"[ \t]*#([{self.comment}{self.alone}])([{self.tab}{self.space}]*)"
        )
        self._taken: dict[str, str] = {}

    def take_out(self, text: str) -> str:
        """``text`` (LF-broken) with stand-ins; refused when it holds one already (the text
        of a sealed item, which the file holds only encrypted), and with ``MisreadTab``
        when, with them, it would read otherwise than it does."""
        if text in self._taken:
            return self._taken[text]
        if not text.isascii():
            held = next((c for c in self.used if c in text), None)
            if held is not None:
                raise EditRefused(
                    f"an item to edit holds U+{ord(held):05X}, a private-use character "
                    "evalset needs while it edits (it takes those from U+F0000 to U+F00FF that "
                    "the file does not hold, and a sealed item's text is not in the file); "
                    "write it without. The file is unchanged."
                )
        taken = text
        for char, stand_in in self.breaks.items():
            if char in taken:
                taken = taken.replace(char, stand_in)
        if "\t" in taken:
            runs = tab_runs(taken)
            if runs:
                taken = self._tabs_out(taken, runs)
                self._refuse_misread(text, taken, runs)
        self._taken[text] = taken
        return taken

    def _tabs_out(self, text: str, runs: list[TabRun]) -> str:
        lines = text.split("\n")
        for run in reversed(runs):  # from the right: the columns of those before stay
            line = lines[run.line]
            white = line[run.start : run.end]
            if run.kind == "comment":  # `x<TAB># c` -> `x #` + the run written out + ` c`
                coded = white.replace("\t", self.tab).replace(" ", self.space)
                if run.end < len(line):  # the `#` of the comment after it
                    new = f" #{self.comment}{coded}"
                    lines[run.line] = line[: run.start] + new + line[run.end + 1 :]
                else:  # a line of white space alone
                    lines[run.line] = f" #{self.alone}{coded}"
            elif run.kind == "space":
                lines[run.line] = line[: run.start] + " " * len(white) + line[run.end :]
            else:
                new = white.replace("\t", self.tab)
                lines[run.line] = line[: run.start] + new + line[run.end :]
        return "\n".join(lines)

    def _refuse_misread(self, text: str, taken: str, runs: list[TabRun]) -> None:
        """Refuse stand-ins with which ``text`` would read otherwise (a layout ``tab_runs``
        took for another: a tab it took for white space around the layout that is a block
        text's own); nothing when ``text`` does not read on its own."""
        from evalset.sets.yamlio import parse_yaml

        try:
            meant = parse_yaml(text, Path("region"))
        except SetFileError:
            return  # the library says why, or reads it as the file does (`_check`)
        try:
            read = self._values_back(parse_yaml(taken, Path("region")))
        except SetFileError:
            read = None
        if read != meant:
            first = next((r for r in runs if r.kind != "comment"), runs[0])
            raise MisreadTab(
                first.line,
                first.start + text.split("\n")[first.line][first.start : first.end].index("\t"),
            )

    def _values_back(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.put_back(value)
        if isinstance(value, list):
            return [self._values_back(v) for v in value]
        if isinstance(value, dict):
            return {self._values_back(k): self._values_back(v) for k, v in value.items()}
        return value

    def put_back(self, text: str) -> str:
        """``text`` (as the library wrote it) with what each stand-in stands for."""
        if self.comment in text or self.alone in text:
            text = self._comment_back.sub(self._comment_run, text)
        if self.tab in text:
            text = text.replace(self.tab, "\t")
        if self.space in text:  # of a comment's run that an edit moved (a flow item's)
            text = text.replace(self.space, " ")
        for marker in (self.comment, self.alone):
            if marker in text:
                text = text.replace(marker, "")
        for char, stand_in in self.breaks.items():
            if stand_in in text:
                text = text.replace(stand_in, char)
        return text

    def _comment_run(self, found: re.Match[str]) -> str:
        run = found.group(2).replace(self.tab, "\t").replace(self.space, " ")
        return run + "#" if found.group(1) == self.comment else run


def tab_runs(text: str) -> list[TabRun]:
    """The runs of white space holding a tab in ``text`` (LF-broken YAML) that the YAML
    library refuses: those in the block layout, outside quoted and block texts, flow
    collections and comments (where it reads a tab as YAML does), and the tabs inside a
    plain text. A line scan: the text is YAML the file's reader accepted, and a layout
    it reads otherwise is caught by ``StandIns._refuse_misread``."""
    runs: list[TabRun] = []
    lines = text.split("\n")
    quote = ""  # the quote of a quoted text open at the end of the line before
    flow = 0  # how deep in flow collections (`[`, `{`) the line before ended
    scalar: int | None = None  # an open block text: the column its lines are deeper than
    inside: int | None = None  # and the indentation of its text, once a line shows it
    plain: int | None = None  # a plain text that may go on: its first line's indentation
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" "))
        if scalar is not None:
            if line.strip(" \t") and indent > scalar:
                inside = indent if inside is None else inside
                continue  # the block text's own line, however it looks
            if not line.strip(" \t"):
                # an empty line of it: a tab in its indentation is white space, one after
                # it is the text's own
                tab = line.find("\t")
                if tab >= 0 and (inside is None or tab < inside):
                    runs.append(TabRun(number, 0, len(line), "space"))
                continue
            scalar = None
        if not line.strip(" \t") and not quote and not flow:
            if "\t" in line:  # white space alone: a comment line, unless in a plain text
                within = plain is not None and _next_indent(lines, number) > plain
                runs.append(TabRun(number, 0, len(line), "space" if within else "comment"))
            continue
        # Where a new node may start: a line's start, after an indicator (`- `, `? `,
        # `key: `), and in a flow collection after `[`, `{` and `,`.
        start = quote == ""
        in_plain = False  # the last thing read is a plain text's
        indicated = False  # the line holds an indicator: a plain text it ends starts on it
        at = 0
        while at < len(line):
            char = line[at]
            if quote:
                if quote == '"' and char == "\\":
                    at += 2
                    continue
                if char == quote:
                    if quote == "'" and line[at + 1 : at + 2] == "'":
                        at += 2
                        continue
                    quote = ""
                    start = False
                at += 1
                continue
            if char in " \t":
                end = at
                while end < len(line) and line[end] in " \t":
                    end += 1
                if flow == 0 and "\t" in line[at:end]:
                    runs.append(TabRun(number, at, end, _kind(line, at, end, start)))
                at = end
                continue
            if char == "#" and (at == 0 or line[at - 1] in " \t"):
                in_plain = False  # a comment ends a plain text
                break
            following = line[at + 1 : at + 2]
            in_plain = False
            if char in "-?:" and following in ("", " ", "\t") and (start or char == ":"):
                start = indicated = True
            elif start and char == "&":  # an anchor's name: the node it names starts after
                while at + 1 < len(line) and line[at + 1] not in " \t":
                    at += 1
            elif start and char in "\"'":
                quote = char
            elif start and char in "[{":
                flow += 1
            elif flow and char in "]}":
                flow -= 1
                start = False
            elif flow and char == ",":
                start = True
            else:
                start = False
                in_plain = not flow
            at += 1
        if in_plain and not quote:
            going_on = plain is not None and indent > plain and not indicated
            plain = plain if going_on else indent
        else:
            plain = None
        if not quote and not flow and ("|" in line or ">" in line):
            body = line.lstrip(" ")
            opened = block_scalar(body, indent)
            scalar = opened[0] if opened is not None else None
            inside = None
    return runs


def _next_indent(lines: list[str], number: int) -> int:
    """The indentation of the first line after ``lines[number]`` that holds more than white
    space; -1 for a comment line or none (no plain text goes on over either)."""
    for line in lines[number + 1 :]:
        body = line.lstrip(" ")
        if body.strip(" \t"):
            return -1 if body.lstrip(" \t").startswith("#") else len(line) - len(body)
    return -1


def _kind(line: str, start: int, end: int, at_node_start: bool) -> str:
    """The kind of stand-in (``TabRun.kind``) for the run ``line[start:end]`` of a line
    that holds more than white space."""
    after = line[end:]
    if after.startswith("#"):
        return "comment"
    if not after or at_node_start:
        return "space"
    if after[0] == ":" and after[1:2] in ("", " ", "\t"):
        return "space"  # between a key and its colon
    return "text"
