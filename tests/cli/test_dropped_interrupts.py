"""A Ctrl-C that arrives while Python runs code whose exceptions it drops, where no Python
frame says so (a weak reference's callback by a name the handler does not know; a
library's C code calling back into Python, as pydantic's does while it builds a model),
is raised again a moment later. Before, it was printed as "Exception ignored in: ..." with
a traceback (in one run of the interrupted-writes test, at 0.3 s into `promote`), though
the command still stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import os, signal, time, weakref
from evalset import interrupts

interrupts.install()


class Thing:
    pass


def {name}(_):  # the handler runs inside this callback, whose exception Python drops
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100_000):
        pass


thing = Thing()
ref = weakref.ref(thing, {name})
del thing
try:
    time.sleep(2)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
"""


@pytest.mark.parametrize("name", ["gone", "on_collect", "finish"])
def test_a_ctrl_c_dropped_in_a_callback_is_raised_again(tmp_path: Path, name: str) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(name=name))
    src = Path(__file__).resolve().parents[2] / "src"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=30,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert (done.stdout, done.stderr) == ("interrupted\n", "")
