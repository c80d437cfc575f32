"""The plug-ins (entry points: judges, corpus formats) whose code this process loaded.

The command line ends a scoring command without the interpreter's teardown (see
``evalset.cli``) only when none was loaded: a plug-in may rely on its objects being
finalised, or its files flushed, at exit, which evalset's own code never does.
"""

from __future__ import annotations

from typing import Any

loaded: list[str] = []
"""``module:attribute`` of each plug-in loaded, in order."""


def load(entry: Any) -> Any:
    """``entry.load()`` of an entry point, noted in ``loaded`` first."""
    loaded.append(str(entry.value))
    return entry.load()
