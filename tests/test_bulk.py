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
