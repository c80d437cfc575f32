"""Sectioning of corpus documents: one module per format behind one small interface.

A sectioner turns a document's text into ``Sections`` (see ``evalset.corpus.sections``).
Formats are chosen by file extension; plug-ins add more through the ``evalset.formats``
entry-point group (``ext = "module:function"``, where the function takes
``(text, hash_mode)`` and returns ``Sections``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import import_module
from typing import Any

from evalset import plugins
from evalset.corpus.sections import (
    SECTIONING_VERSION,
    HashMode,
    Section,
    Sectioner,
    Sections,
    normalise,
    slugify,
)

__all__ = [
    "SECTIONING_VERSION",
    "HashMode",
    "Section",
    "Sectioner",
    "Sections",
    "format_specs",
    "normalise",
    "registry",
    "sectioner_for",
    "slugify",
    "use_formats",
]


def _builtin() -> dict[str, Sectioner]:
    from evalset.corpus import html, markdown, text

    return {
        ".md": markdown.sections,
        ".markdown": markdown.sections,
        ".html": html.sections,
        ".htm": html.sections,
        ".txt": text.sections,
    }


@cache
def registry() -> dict[str, Sectioner]:
    """Extension -> sectioner, built-ins first, then plug-ins (which may override)."""
    formats = _builtin()
    from importlib.metadata import entry_points

    for entry in entry_points(group="evalset.formats"):
        ext = entry.name if entry.name.startswith(".") else f".{entry.name}"
        formats[ext.lower()] = plugins.load(entry)
    return formats


def format_specs() -> tuple[str, ...]:
    """Which function sections each format, as sorted ``ext=module:qualname`` lines."""
    return tuple(
        sorted(f"{ext}={fn.__module__}:{fn.__qualname__}" for ext, fn in _formats().items())
    )


_chosen: dict[str, Sectioner] | None = None


def use_formats(specs: Iterable[str] | None) -> None:
    """Take the sectioners named by ``specs`` (from ``format_specs``) instead of reading every
    installed distribution's entry points (~0.1 s), for a caller that knows nothing was
    installed since it read them; None goes back to the entry points. A name that no longer
    resolves falls back to them too."""
    global _chosen
    if specs is None:
        _chosen = None
        return
    formats: dict[str, Sectioner] = {}
    try:
        for spec in specs:
            ext, _, target = spec.partition("=")
            module, _, qualname = target.partition(":")
            found: Any = import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
            formats[ext] = found
    except (ImportError, AttributeError, ValueError):
        formats = registry()
    _chosen = formats


def _formats() -> dict[str, Sectioner]:
    return _chosen if _chosen is not None else registry()


def sectioner_for(name: str) -> Sectioner | None:
    dot = name.rfind(".")
    return _formats().get(name[dot:].lower()) if dot >= 0 else None
