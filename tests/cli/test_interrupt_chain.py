"""Ctrl-C that a library wraps in an error of its own is still Ctrl-C: pydantic, interrupted
while it builds a model class that a command imports, raises a RuntimeError about
``__set_name__`` from the KeyboardInterrupt, which was reported as an internal error."""

from __future__ import annotations

import pytest

from evalset.cli import _caused_by_interrupt


def _raised(build) -> BaseException:  # type: ignore[no-untyped-def]
    try:
        build()
    except BaseException as exc:  # the exception is the value under test
        return exc
    raise AssertionError("nothing was raised")


def _from_interrupt() -> None:
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        raise RuntimeError("Error calling __set_name__ on 'Field' instance 'split'") from exc


def _during_interrupt() -> None:
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise ValueError("cleanup failed") from None  # the context is kept, the cause not


def _deep() -> None:
    try:
        _from_interrupt()
    except RuntimeError as exc:
        raise ImportError("cannot import name 'Config'") from exc


def _plain() -> None:
    try:
        raise OSError("disk")
    except OSError as exc:
        raise RuntimeError("wrapped") from exc


def _cycle() -> None:
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__context__, second.__context__ = second, first
    raise first


CASES = {
    "raised from it": (_from_interrupt, True),
    "raised while handling it": (_during_interrupt, True),
    "two levels down": (_deep, True),
    "another cause": (_plain, False),
    "a cycle of contexts": (_cycle, False),
}


@pytest.mark.parametrize(("build", "interrupt"), CASES.values(), ids=CASES.keys())
def test_an_error_raised_from_ctrl_c_is_ctrl_c(build, interrupt: bool) -> None:  # type: ignore[no-untyped-def]
    assert _caused_by_interrupt(_raised(build)) is interrupt
