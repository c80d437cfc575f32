"""A scoring command ends as soon as its output is written (``evalset.cli._leave``): what
the interpreter runs at exit still runs, once; a thread left running means the usual exit."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import atexit, logging, sys, threading
from evalset.cli import _leave
logging.basicConfig(stream=sys.stdout, format="%(message)s")
atexit.register(lambda: print("exit function ran", flush=True))
if "thread" in sys.argv:
    stop = threading.Event()
    threading.Thread(target=lambda: stop.wait(0.2)).start()
logging.getLogger("evalset").warning("logged")
print("report written")
_leave(3)
print("the usual exit path")
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True, timeout=60
    )


def test_it_ends_at_once_after_running_the_exit_functions_once() -> None:
    done = _run()
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == ["logged", "report written", "exit function ran"]


def test_with_a_thread_left_running_the_usual_exit_path_runs() -> None:
    done = _run("thread")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "logged",
        "report written",
        "the usual exit path",
        "exit function ran",
    ]


def test_after_a_plug_in_was_loaded_the_usual_exit_path_runs() -> None:
    """A plug-in may rely on the teardown (finalisers, buffered files it did not close)."""
    program = PROGRAM.replace(
        "from evalset.cli import _leave",
        "from evalset.cli import _leave\nfrom evalset import plugins\n"
        "class Entry:\n    value = 'plug.in:judge'\n    def load(self):\n        return None\n"
        "plugins.load(Entry())",
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "the usual exit path" in done.stdout.splitlines()
