"""Bytecode caches for evalset before a benchmark times its commands."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import evalset


def compile_evalset() -> str:
    """Write evalset's bytecode caches, as Python does on the first import of an installed
    package, so that the figures are those of every run after the first. Where
    PYTHONDONTWRITEBYTECODE is set (or a fresh editable install was never run), each command
    would otherwise compile its modules from source first: about 0.1 s. Returns a line to
    print that says so."""
    compileall.compile_dir(Path(evalset.__file__).parent, quiet=1)
    reason = (
        " (PYTHONDONTWRITEBYTECODE is set here)"
        if os.environ.get("PYTHONDONTWRITEBYTECODE")
        else ""
    )
    return f"bytecode of evalset compiled first, as Python does on a first run{reason}"
