"""Work done aside in a forked helper: the same outcome as doing it here, whatever happens
to the helper, and no process left behind."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from evalset.aside import Aside, aside, can_fork
from evalset.errors import EvalsetError

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
"""The tests of the helper's path fork whatever ``can_fork`` says (another test may have left
a thread running, or the machine has one core): that is what they are about."""


def forked(work):  # type: ignore[no-untyped-def]
    return Aside(work, fork=True)


class Refused(EvalsetError):
    exit_code = 1


def children() -> set[int]:
    """The processes (zombies included) whose parent is this one, from /proc."""
    found: set[int] = set()
    if not os.path.isdir("/proc"):  # pragma: no cover - not Linux: nothing to compare
        return found
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.add(int(entry))
    return found


@pytest.fixture(autouse=True)
def _no_helper_left() -> Iterator[None]:
    before = children()
    yield
    assert children() == before


@needs_fork
def test_the_work_runs_in_a_helper_and_its_result_comes_back() -> None:
    here = os.getpid()
    found = forked(lambda: (os.getpid(), {"pin": [1, 2.5, "x"]}))
    pid, value = found.result()
    assert pid != here and value == {"pin": [1, 2.5, "x"]}
    assert found.result() == (pid, value)  # asked again: the same, not run again


@pytest.mark.parametrize("fork", [True, False])
def test_what_the_work_raises_is_raised_with_its_message(fork: bool) -> None:
    def work() -> None:
        raise Refused("sets/x.yaml: 2 item(s) are stale")

    found = Aside(work, fork=fork and hasattr(os, "fork"))
    for _ in range(2):
        with pytest.raises(Refused, match=r"^sets/x.yaml: 2 item\(s\) are stale$") as caught:
            found.result()
        assert caught.value.exit_code == 1


@needs_fork
def test_a_helper_that_dies_without_a_word_is_done_again_here() -> None:
    here = os.getpid()

    def work() -> str:
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)
        return "done here"

    assert forked(work).result() == "done here"


@needs_fork
def test_a_result_that_cannot_be_sent_back_is_made_here() -> None:
    here = os.getpid()
    made = forked(lambda: (os.getpid(), lambda: None)).result()  # a lambda does not pickle
    assert made[0] == here and callable(made[1])


@needs_fork
def test_cancel_stops_and_reaps_the_helper() -> None:
    found = forked(lambda: threading.Event().wait(30))
    pid = found.pid
    assert pid
    found.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    found.cancel()  # twice is harmless


def test_with_other_threads_running_nothing_is_forked() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
        found = aside(os.getpid)
        assert found.pid == 0 and found.result() == os.getpid()
    finally:
        stop.set()
        other.join()
