"""Checks of option values shared by the commands: a number must be a finite one within its
range, and the error says which range (typer's own bounds let NaN through or name the wrong
bound: ``nan`` for a ratio was "should be less than or equal to 1")."""

from __future__ import annotations

import math
from collections.abc import Callable

import typer


def output_format(fmt: str, as_json: bool) -> None:
    """Refuse a ``--format`` other than text or md, and md beside ``--json``: each chooses
    what is printed, and one would be dropped without a word."""
    if fmt not in ("text", "md"):
        raise typer.BadParameter("use text or md", param_hint="--format")
    if fmt == "md" and as_json:
        raise typer.BadParameter(
            "--format md prints a comment and --json a JSON document; give one of them",
            param_hint="--format",
        )


def number_in(low: float, high: float | None = None) -> Callable[[float | None], float | None]:
    """A typer callback accepting a finite number from ``low`` to ``high`` (no upper bound
    when None), or no value."""
    wanted = f"from {low:g} to {high:g}" if high is not None else f"of {low:g} or more"

    def check(value: float | None) -> float | None:
        if value is None:
            return None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            raise typer.BadParameter(f"give a finite number {wanted}, not {value:g}.")
        return value

    return check
