"""Checks of option values shared by the commands: a number must be a finite one within its
range, and the error says which range (typer's own bounds let NaN through or name the wrong
bound: ``nan`` for a ratio was "should be less than or equal to 1")."""

from __future__ import annotations

import math
from collections.abc import Callable

import typer


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
