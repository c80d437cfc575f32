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


def _pid_and(value: object) -> tuple[int, object]:
    """A call sent to a kept helper: sent by name, so defined at module level."""
    return os.getpid(), value


def _refuse(message: str) -> None:
    raise Refused(message)


def _die_unless_in(pid: int) -> int:
    """Kills a helper; returns in the process ``pid``."""
    if os.getpid() != pid:
        os.kill(os.getpid(), signal.SIGKILL)
    return pid


@needs_fork
def test_a_kept_helper_runs_the_calls_sent_after_its_work() -> None:
    here = os.getpid()
    helper = Aside(os.getpid, fork=True, keep=True)
    try:
        assert helper.result() != here  # done: the calls go to it
        first = helper.then(_pid_and, {"rows": [1, 2]})
        second = helper.then(_pid_and, "again")
        assert first.result() == (helper.result(), {"rows": [1, 2]})
        assert second.result() == (helper.result(), "again")
    finally:
        helper.cancel()


@pytest.mark.parametrize("fork", [True, False])
def test_a_call_sent_after_raises_what_it_raised(fork: bool) -> None:
    helper = Aside(lambda: 1, fork=fork and hasattr(os, "fork"), keep=True)
    try:
        later = helper.then(_refuse, "sets/x.yaml: refused")
        with pytest.raises(Refused, match=r"^sets/x.yaml: refused$"):
            later.result()
        assert helper.then(_pid_and, 3).result()[1] == 3  # the helper goes on
    finally:
        helper.cancel()


@needs_fork
def test_calls_that_cannot_be_sent_or_whose_helper_dies_are_done_here() -> None:
    here = os.getpid()
    helper = Aside(lambda: 1, fork=True, keep=True)
    try:
        assert helper.result() == 1
        assert helper.then(_pid_and, lambda: None).result()[0] == here  # args do not pickle
        assert helper.then(lambda: os.getpid()).result() == here  # nor a lambda
        dying = helper.then(_die_unless_in, here)
        assert dying.result() == here  # the helper died: done here
        assert helper.pid == 0
        assert helper.then(_pid_and, 2).result() == (here, 2)  # no helper any more
    finally:
        helper.cancel()


def test_without_a_helper_a_call_sent_after_runs_here() -> None:
    helper = Aside(lambda: 1, fork=False, keep=True)
    assert helper.then(_pid_and, "x").result() == (os.getpid(), "x")
    assert helper.result() == 1


def _echo(value: object) -> object:
    return value


@needs_fork
def test_calls_sent_one_after_another_answer_each_its_own_without_waiting_forever() -> None:
    helper = Aside(lambda: b"x" * (1 << 20), fork=True, keep=True)  # a first answer of 1 MB
    try:
        first = helper.then(_echo, b"a" * (1 << 20))  # 1 MB each way
        second = helper.then(_echo, b"b" * (1 << 20))
        assert second.result()[:1] == b"b" and first.result()[:1] == b"a"
        assert helper.result() == b"x" * (1 << 20)
    finally:
        helper.cancel()
