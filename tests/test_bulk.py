"""Bulk loads pause the cycle collector; in a process of its own (the command line) what
they built is frozen when they end, so that the collector's next pass does not walk it."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from evalset import bulk as bulk_module
from evalset.bulk import bulk


@pytest.fixture
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()  # back to the oldest generation, as the rest of the tests expect
    if enabled:
        gc.enable()


@pytest.mark.usefixtures("_collector_restored")
@pytest.mark.parametrize("freeze", [False, True])
def test_a_bulk_load_pauses_the_collector_and_freezes_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, freeze: bool
) -> None:
    monkeypatch.setattr(bulk_module, "FREEZE", freeze)
    gc.enable()
    frozen = gc.get_freeze_count()
    with bulk():
        assert not gc.isenabled()
        with bulk():  # nested: the outer block decides
            built = [{"row": k} for k in range(10_000)]
        assert not gc.isenabled() and gc.get_freeze_count() == frozen
    assert gc.isenabled()
    assert (gc.get_freeze_count() >= frozen + len(built)) is freeze


def test_the_command_line_freezes_in_a_process_of_its_own_only() -> None:
    """`evalset` (command) sets FREEZE; main() called in a program (as the tests do) not."""
    code = (
        "import sys; from evalset import bulk; from evalset.cli import {0}\n"
        "sys.argv = ['evalset', '--version']\n"
        "try:\n    {0}()\nexcept SystemExit:\n    pass\n"
        "print(bulk.FREEZE)"
    )
    for entry, expected in (("main", "False"), ("command", "True")):
        done = subprocess.run(
            [sys.executable, "-c", code.format(entry)], capture_output=True, text=True
        )
        assert done.stdout.split()[-1] == expected, done.stderr


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.mark.usefixtures("_collector_restored")
def test_garbage_made_between_bulk_loads_is_collected_not_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`evalset log` parses every release in a bulk load of its own and diffs them in
    between; the diff's cycles must not be frozen with the next load's objects."""
    import weakref

    monkeypatch.setattr(bulk_module, "FREEZE", True)
    gc.enable()
    gone = []
    for _ in range(3):
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        gone.append(weakref.ref(a))
        del a, b
        with bulk():
            built = [{"row": k} for k in range(1_000)]
        assert built
    gc.collect()
    assert all(ref() is None for ref in gone)
