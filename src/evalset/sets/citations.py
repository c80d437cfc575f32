"""Citations: ``doc`` or ``doc#section``, e.g. ``policies/returns.md#damaged-items``."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from evalset.corpus.names import nfc

_VALID = re.compile(r"([^#\\/\s][^#\\]*)(?:#([^#\s]+))?")
"""A citation that passes every check of ``Citation.parse`` but the one for odd parts."""
_ODD_PARTS = re.compile(r"(?:^|/)(?:\.\.?)?(?:/|\Z)")
"""An empty, '.' or '..' part of a document path."""

# A document path (forward slashes, no '#') optionally followed by '#' and a section anchor.
CITATION_PATTERN = r"^[^#\s/\\][^#\\]*(#[^#\s]+)?$"


class Citation(NamedTuple):
    """A document id and, optionally, a section id within it."""

    doc: str
    section: str | None = None

    def __str__(self) -> str:
        return f"{self.doc}#{self.section}" if self.section else self.doc

    @classmethod
    def parse(cls, text: str) -> Citation:
        """Parse ``doc`` or ``doc#section``; raise ValueError with the reason otherwise. The
        citation is taken in Unicode NFC, as snapshots name documents and sections
        (``evalset.corpus.names``).

        Results are remembered: an item cites the same section as source and for its key
        points, and a large set repeats its citations often."""
        return _parse(text)

    @classmethod
    def _parse(cls, text: str) -> Citation:
        text = nfc(text)
        valid = _VALID.fullmatch(text)
        if valid is not None and not _ODD_PARTS.search(valid[1]):
            return tuple.__new__(cls, valid.groups())  # the common case, in one match
        doc, sep, section = text.partition("#")
        if not doc:
            raise ValueError(f"citation {text!r} has no document before '#'")
        if sep and not section:
            raise ValueError(f"citation {text!r} ends with '#': name a section or drop the '#'")
        if "#" in section:
            raise ValueError(f"citation {text!r} has more than one '#'")
        if doc[0].isspace():
            raise ValueError(f"citation {text!r} starts with white space: remove it")
        if "\\" in doc:
            raise ValueError(f"citation {text!r} uses '\\': document ids use forward slashes")
        if doc.startswith("/") or _ODD_PARTS.search(doc):
            raise ValueError(
                f"citation {text!r} is not a path relative to the corpus root "
                "(no leading '/', no empty, '.' or '..' parts)"
            )
        if section and section.split() != [section]:  # the same as: any white space
            raise ValueError(f"citation {text!r} has white space in its section id")
        return cls(doc, section or None)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def validate(value: Any) -> Citation:
            if isinstance(value, Citation):
                return value
            if not isinstance(value, str):
                raise ValueError(
                    f"expected a citation as text (`doc` or `doc#section`), got {_kind(value)}"
                )
            return cls.parse(value)

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "string",
            "pattern": CITATION_PATTERN,
            "description": "A document id (path under the corpus root) or doc#section-anchor.",
            "examples": ["policies/returns.md#damaged-items"],
        }


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping (write the citation as one piece of text)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    return "nothing (null)" if value is None else type(value).__name__


_parse = lru_cache(maxsize=1 << 16)(Citation._parse)
