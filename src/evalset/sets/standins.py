"""Stand-ins for what the YAML library that edits (ruamel.yaml) reads otherwise than the
YAML evalset reads (yaml-rs, YAML 1.2), put into a region before the library reads it and
taken out of what it writes, so that text an edit does not touch comes back byte for byte.

Two kinds of text need them:

- NEL, LS and PS (``BREAKS_OF_YAML_1_1``), which the library reads as line breaks: an
  edit turned a NEL in an untouched question into a space, or indented the text after an
  LS.
- White space holding a tab before a comment (``5 euros<TAB># price page``, or on a line
  of its own): YAML, but the library refuses the tab.

The stand-ins are characters of ``RESERVED`` (private use) that the file does not hold,
which the library reads and writes as any other character. Each is a function of the text
alone (the same text gets the same stand-ins however often it is read), so the item as the
library writes it unedited and as it writes it edited can be compared field by field.
"""

from __future__ import annotations

import re

from evalset.errors import EditRefused
from evalset.sets.yamlio import BREAKS_OF_YAML_1_1

RESERVED = range(0xF0000, 0xF0100)
"""Code points of the supplementary private use area that ``StandIns`` takes its stand-ins
from while the YAML library edits a region: text to write may not hold one (put back, it
would become what it stands for)."""


def refuse_reserved(text: str, what: str) -> None:
    """Refuse ``text`` (``what`` says what it is) when it holds a ``RESERVED`` character."""
    if text.isascii():
        return
    found = next((c for c in text if ord(c) in RESERVED), None)
    if found is not None:
        raise EditRefused(
            f"{what} holds U+{ord(found):05X}, a private-use character evalset reserves while "
            f"it edits (U+F0000 to U+F00FF); write it without. The file is unchanged."
        )


_TAB_BEFORE_COMMENT = re.compile(r"(?:(?<=\S)|^)([ \t]*\t[ \t]*)#", re.MULTILINE)
"""White space holding a tab before a comment, after a value or on a line of its own."""


class StandIns:
    """The stand-ins of one edit: chosen once from the characters of ``RESERVED`` that the
    file (``text``) does not hold. Text the edit writes may hold none of ``RESERVED``
    (``refuse_reserved``)."""

    def __init__(self, text: str) -> None:
        free = (chr(c) for c in RESERVED if chr(c) not in text)
        try:
            self.breaks = {b: next(free) for b in BREAKS_OF_YAML_1_1}
            self.tab, self.space, self.comment = next(free), next(free), next(free)
        except StopIteration:  # 250 of the 256 in one file: not a set anyone writes
            raise EditRefused(
                "the file holds almost every private-use character from U+F0000 to U+F00FF, "
                "which evalset needs while it edits; the file is unchanged."
            ) from None
        self.used = "".join([*self.breaks.values(), self.tab, self.space, self.comment])
        self._comment_back = re.compile(rf"[ \t]*#{self.comment}([{self.tab}{self.space}]*)")
        self._taken: dict[str, str] = {}

    def take_out(self, text: str) -> str:
        """``text`` with stand-ins; refused when it holds one already (the text of a sealed
        item, which the file holds only encrypted)."""
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
            taken = _TAB_BEFORE_COMMENT.sub(self._comment_in, taken)
        self._taken[text] = taken
        return taken

    def _comment_in(self, found: re.Match[str]) -> str:
        """`x<TAB># c` -> `x #` + the run written out + ` c`: the same text always gets the
        same stand-in, wherever it is read."""
        coded = found.group(1).replace("\t", self.tab).replace(" ", self.space)
        return f" #{self.comment}{coded}"

    def put_back(self, text: str) -> str:
        """``text`` (as the library wrote it) with what each stand-in stands for."""
        if self.comment in text:
            text = self._comment_back.sub(self._comment_run, text)
        if self.tab in text:
            text = text.replace(self.tab, "\t")
        if self.space in text:  # of a comment's run that an edit moved (a flow item's)
            text = text.replace(self.space, " ")
        if self.comment in text:
            text = text.replace(self.comment, "")
        for char, stand_in in self.breaks.items():
            if stand_in in text:
                text = text.replace(stand_in, char)
        return text

    def _comment_run(self, found: re.Match[str]) -> str:
        return found.group(1).replace(self.tab, "\t").replace(self.space, " ") + "#"
