"""The ``command`` judge: any program that speaks evalset's judge protocol, JSON lines on
standard input and output, so a team plugs in any model or service without writing Python.

evalset starts the program once (in the workspace root; ``concurrency`` copies side by side
when configured, each sent its own requests) and writes one request per line; the program
answers each with one line, in order:

    {"id": 1, "op": "entails", "text": "You have 30 days.", "claim": "30 days to return"}
    {"id": 1, "verdict": true, "reason": "states the 30 days", "cost": 0.0004, "tokens": 96}

    {"id": 2, "op": "refuses", "text": "I don't know."}
    {"id": 2, "verdict": true}

    {"id": 3, "op": "statements", "text": "Returns are free. Refunds take 5 days."}
    {"id": 3, "statements": ["Returns are free.", "Refunds take 5 days."]}

``verdict`` is true or false (``"yes"``/``"no"`` are read too); ``reason``, ``cost`` and
``tokens`` are optional. A request the program cannot decide is answered
``{"id": 1, "error": "why"}``: that claim is reported on its item (an ``error`` that is null
or empty beside a verdict is no error: an answer type with every field writes it so). A
program that does not split statements answers ``{"id": 3, "unsupported": true}``
(faithfulness is then not scored). A program that exits, prints a line that is not such an
answer, or does not answer within the timeout stops the scoring: one sentence, no report,
exit status 2.

Cached verdicts are tied to the command and to the bytes of the files it names (the
script), so editing the script re-judges everything; the program that runs the script (an
interpreter, a shim, ``env``) is not read, so that one script has one version on every
machine (``code_files``).
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from evalset.fsio import finite_number, json_loads, open_found, read_found
from evalset.score.judges.base import Judge, JudgeBroken, JudgeFailed, Statements, Verdict

TIMEOUT = 60.0
"""Seconds to wait for one answer."""
POLL = 0.25
"""How often (seconds) a wait for an answer looks whether the program is still running."""
SHOWN = 80
STOP_WAIT = 2.0
"""Seconds a program is given to exit once its input is closed, before it is killed."""
_EOF = object()
_OWN_GROUP: dict[str, Any] = {"process_group": 0} if os.name == "posix" else {}
"""Each copy of the program leads a process group of its own, so that what it starts ends
with it (``_Program.stop``). Ctrl-C then reaches evalset alone, which closes the copies'
input and ends them as when scoring ends."""


def split_command(command: str | list[str], where: str) -> list[str]:
    """The program and its arguments, from a command line or a list."""
    if isinstance(command, list):
        argv = command
    else:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise JudgeBroken(f"{where}: the judge command {command!r} cannot be split into "
                              f"words ({exc}); quote it as a shell would.") from None  # fmt: skip
    if not argv:
        raise JudgeBroken(f"{where}: the judge command is empty; give the program to run, as in "
                          "--judge 'command:python my_judge.py'.")  # fmt: skip
    for k, word in enumerate(argv, 1):  # a list from the configuration holds any TOML value
        if not isinstance(word, str):
            kind = _toml_kind(word)
            raise JudgeBroken(f"{where}: word {k} of the judge command is {kind}, not text; "
                              'write command = "PROGRAM ARGS" or a list of texts.')  # fmt: skip
        if not word:
            raise JudgeBroken(f"{where}: word {k} of the judge command is empty; remove it, or "
                              "give the text the program takes there.")  # fmt: skip
    return argv


def _toml_kind(value: object) -> str:
    """What a configuration value is, in the words of a TOML file."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "a date or time"


def code_files(argv: list[str], root: Path) -> list[Path]:
    """The judge's own code: the files the command's arguments name (from the workspace's
    folder, where it runs, or by an absolute path), and its program when that is a file of
    the workspace (``judges/keywords.py``; links followed), or, where no argument names a
    file, a script (``#!``) the command names by its path wherever it lies
    (``../tools/judge.py`` in a monorepo).

    The program is otherwise what runs the judge: an interpreter or a shim found on
    ``PATH``, ``env``, an interpreter named by its path, or a virtual environment's
    ``python`` linking to one. Its bytes differ from one machine to the next (a pyenv shim, a
    venv's link, a patch release) while the judge is the same, so reading them would make
    one script two judges, its verdicts compared and cached apart. No size or content test
    tells such a program from a script (a shim is a small script itself): where it lies,
    and whether it runs a file the command names, do."""
    found = []
    for arg in argv[1:]:
        path = root / arg
        with suppress(OSError):
            if path.is_file():
                found.append(path)
    program = root / argv[0]
    with suppress(OSError, RuntimeError):  # RuntimeError: a loop of links
        if program.is_file() and (
            program.resolve().is_relative_to(root.resolve())
            or (not found and "/" in argv[0] and _is_script(program))
        ):
            found.insert(0, program)
    return found


def _is_script(path: Path) -> bool:
    """Whether ``path`` starts as a script does (``#!``), not as a compiled program."""
    with open(open_found(path), "rb") as opened:  # (never waiting on a named pipe)
        return opened.read(2) == b"#!"


def _files_digest(argv: list[str], files: list[Path]) -> str:
    """A digest of the command and of the bytes of its ``files``."""
    digest = hashlib.sha256(json.dumps(argv).encode())
    for path in files:
        with suppress(OSError):  # (a named pipe put there meanwhile is not waited on)
            digest.update(read_found(path))
    return digest.hexdigest()[:16]


def _shortened(text: str) -> str:
    """A judge's own words, as reports and sentences quote them: its first ``SAID``
    characters (a judge's error can be megabytes, repeated for each claim)."""
    return text if len(text) <= SAID else text[:SAID] + "…"


SAID = 300
"""The longest text of a judge's own (an error, a reason, a line of its error output) that a
report or a sentence quotes."""


class _Program:
    """One running copy of the judge program: its pipes, the answers it printed, and the last
    lines of its error output."""

    def __init__(self, judge: CommandJudge) -> None:
        self.judge = judge
        self.lines: queue.Queue[Any] = queue.Queue()
        self.errors: deque[str] = deque(maxlen=5)
        argv = judge.argv
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=judge.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                **_OWN_GROUP,
            )
        except FileNotFoundError:
            raise JudgeBroken(
                f"judge command `{shlex.join(argv)}`: no such program "
                f"{argv[0]!r}; give a program on PATH or a path from the workspace root."
            ) from None
        except OSError as exc:
            raise JudgeBroken(
                f"judge command `{shlex.join(argv)}` cannot be started ({exc.strerror}); "
                "check that the program exists and may be run."
            ) from None
        assert self.process.stdout is not None and self.process.stderr is not None
        self.requests: queue.Queue[str | None] = queue.Queue()
        """What to write to its input; None closes it (``hang_up``)."""
        threading.Thread(target=self._pump, args=(self.process.stdout, True), daemon=True).start()
        self.error_reader = threading.Thread(
            target=self._pump, args=(self.process.stderr, False), daemon=True
        )
        """Reads its error output; once it ended, joined before its last words are quoted."""
        self.error_reader.start()
        threading.Thread(target=self._feed, daemon=True).start()

    def _feed(self) -> None:
        """Write the requests to its input, in a thread of their own: a program that does not
        read blocks only this thread once the pipe is full (a request of 64 KB does that at
        once), and ``call`` still gives up on its answer at the timeout."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (text := self.requests.get()) is not None:
                stdin.write(text)
                stdin.flush()
            stdin.close()
        except (OSError, ValueError):  # it exited, or was killed: reading its answer says so
            pass

    def _pump(self, stream: IO[str], answers: bool) -> None:
        for line in stream:
            if answers:
                self.lines.put(line)
            elif line.strip():
                self.errors.append(_shortened(line.strip()))
        if answers:
            self.lines.put(_EOF)

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Write one request and read its answer (this copy answers in order)."""
        process, ident = self.process, request["id"]
        self.requests.put(json.dumps(request, ensure_ascii=False) + "\n")
        line = self._answer(ident)
        if line is _EOF:
            try:  # a program that exits closes its output on the way out
                status = process.wait(timeout=POLL)
            except subprocess.TimeoutExpired:  # it closed its output and runs on
                self.kill()  # nothing more can come from it: not waited for to exit
                self.error_reader.join(timeout=1)
                raise self.judge.broken(
                    self, ident, "closed its output while still running, without answering"
                ) from None
            # its error output ends as it exits: read to the end, so its last words are quoted
            self.error_reader.join(timeout=1)
            raise self.judge.broken(self, ident, f"exited (status {status}) without answering")
        try:
            answer = json_loads(line, unique_keys=True)
        except ValueError:
            answer = None
        if (
            not isinstance(answer, dict)
            or type(answer.get("id")) is not int
            or answer["id"] != ident
        ):
            shown = line.strip()
            shown = shown if len(shown) <= SHOWN else shown[:SHOWN] + "…"
            raise self.judge.broken(
                self, ident, "printed {reply}, which is not an answer to it", repr(shown)
            )
        return answer

    def _answer(self, ident: int) -> Any:
        """The next line it printed (or ``_EOF``), waited for until the timeout; a program
        that exited while a child of its own keeps its output open is seen to have exited,
        rather than waited for to the end of the timeout."""
        deadline = time.monotonic() + self.judge.timeout
        while True:
            try:
                return self.lines.get(timeout=max(0.0, min(POLL, deadline - time.monotonic())))
            except queue.Empty:
                pass
            status = self.process.poll()
            if status is not None:  # what it printed before it exited is read first
                try:
                    return self.lines.get(timeout=POLL)
                except queue.Empty:
                    raise self.judge.broken(
                        self, ident, f"exited (status {status}) without answering"
                    ) from None
            if time.monotonic() >= deadline:
                raise self.judge.broken(
                    self, ident, f"gave no answer within {self.judge.timeout:g} s (timeout)"
                )

    def hang_up(self) -> None:
        """Close its input once what was sent is written: a program that follows the
        protocol then exits (one that does not read is killed by ``stop``)."""
        self.requests.put(None)

    def stop(self, deadline: float) -> None:
        """Wait for it to exit until ``deadline`` (``time.monotonic``), then kill it; then
        kill what it started and left running (its process group: a shell's command, a
        server), which would otherwise outlive evalset."""
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
        self._kill_group()

    def kill(self) -> None:
        """Kill it and what it started, at once."""
        self._kill_group()
        self.process.kill()
        self.process.wait()

    def _kill_group(self) -> None:
        if _OWN_GROUP:
            with suppress(ProcessLookupError, PermissionError):  # none of it is left
                os.killpg(self.process.pid, signal.SIGKILL)


class CommandJudge(Judge):
    """A program speaking the judge protocol on standard input and output; with
    ``concurrency`` above 1, that many copies of it, each sent its own requests."""

    def __init__(
        self,
        argv: list[str],
        root: Path,
        timeout: float = TIMEOUT,
        version: str | None = None,
        concurrency: int = 1,
    ) -> None:
        self.argv = argv
        self.root = root
        self.timeout = timeout
        self.concurrency = concurrency
        self.name = "command:" + shlex.join(argv)
        self.code = code_files(argv, root)
        digest = _files_digest(argv, self.code)
        self.version = f"{version}+{digest}" if version else digest
        self.description = "a program speaking the JSON-lines judge protocol"
        self._programs: list[_Program] = []
        self._idle: queue.Queue[_Program | None] = queue.Queue()
        self._stopped: JudgeBroken | None = None
        """Why the copies were closed while requests waited for one (they raise it too)."""
        self._next = 0
        self._splits = True
        self._lock = threading.Lock()

    def _program(self) -> _Program:
        """A copy of the program that is not answering a request: an idle one, else a new
        one while fewer than ``concurrency`` run."""
        with self._lock:
            idle = self._idle
            if idle.empty() and len(self._programs) < self.concurrency:
                self._programs.append(_Program(self))
                return self._programs[-1]
        program = idle.get()
        if program is None:  # the copies were closed while this request waited
            raise self._stopped or JudgeBroken(f"judge command `{shlex.join(self.argv)}` stopped.")
        return program

    def broken(self, program: _Program, request: int, problem: str, reply: str = "") -> JudgeBroken:
        """The scoring stops: every copy is closed, and the sentence says what this one did,
        or, when the copies were already closed for another's failure (this one then ended
        because evalset closed its input), what that one did. ``problem`` names what the
        copy printed as ``{reply}``, quoted from ``reply`` (and not in the sentence withheld
        once it was asked about holdout items' claims, which a reply may quote)."""
        said = f"; its last error output: {program.errors[-1]!r}" if program.errors else ""
        protocol = (
            "a judge answers each request line with one JSON line, as the README's judge "
            "protocol says."
        )
        command = f"judge command `{shlex.join(self.argv)}`"
        stopped = JudgeBroken(
            f"{command} {problem.replace('{reply}', reply)} (request {request}){said}; {protocol}",
            withheld=f"{command} {problem.replace('{reply}', 'a reply')} (request {request}); "
            "what it printed is not shown, since it had been asked about holdout items' "
            "claims, which its output may quote (run it by hand on a tuning item's request to "
            f"see it); {protocol}",
        )
        self._stopped = self._stopped or stopped
        self.close()
        return self._stopped

    def _call(self, request: dict[str, Any], wanted: str) -> dict[str, Any]:
        """The answer to ``request``, which must hold ``wanted`` (or an error, or say that
        splitting is unsupported)."""
        program = self._program()
        with self._lock:
            self._next += 1
            ident = request["id"] = self._next
        answer = program.call(request)
        if answer.get("error", "") in (None, "") and (
            answer.get(wanted) is not None or answer.get("unsupported") is True
        ):
            # an answer type that always has the field writes it empty beside the answer
            # ({"verdict": true, "error": null}, Go's ""): the answer stands
            answer.pop("error", None)
        if wanted == "verdict" and "error" not in answer:
            value = answer.get("verdict")
            if isinstance(value, str) and value.strip().lower() in ("yes", "no"):
                answer["verdict"] = value.strip().lower() == "yes"
            if not isinstance(answer.get("verdict"), bool):
                raise self.broken(program, ident, 'answered {reply} without a true/false '
                                  '"verdict"', json.dumps(answer)[:SHOWN])  # fmt: skip
        if wanted == "statements" and not ("error" in answer or answer.get("unsupported") is True):
            found = answer.get("statements")
            if not isinstance(found, list) or not all(isinstance(s, str) for s in found):
                raise self.broken(program, ident, 'answered {reply} without a "statements" '
                                  "list", json.dumps(answer)[:SHOWN])  # fmt: skip
        problem = _extras_problem(answer) if "error" not in answer else None
        if problem:
            raise self.broken(program, ident, f"answered {{reply}} with {problem}",
                              json.dumps(answer)[:SHOWN])  # fmt: skip
        self._idle.put(program)
        return answer

    def _verdict(self, request: dict[str, Any]) -> Verdict:
        answer = self._call(request, "verdict")
        if "error" in answer:
            raise JudgeFailed(_error(answer))
        return Verdict(answer["verdict"], *_extras(answer))

    def entails(self, text: str, claim: str) -> Verdict:
        return self._verdict({"id": 0, "op": "entails", "text": text, "claim": claim})

    def refuses(self, answer: str) -> Verdict:
        return self._verdict({"id": 0, "op": "refuses", "text": answer})

    def statements(self, text: str) -> Statements | None:
        if not self._splits:
            return None
        answer = self._call({"id": 0, "op": "statements", "text": text}, "statements")
        if answer.get("unsupported") is True:
            self._splits = False
            return None
        if "error" in answer:
            raise JudgeFailed(_error(answer))
        found = answer["statements"]
        reason_cost = _extras(answer)
        return Statements(tuple(s for s in found if s.strip()), reason_cost[1], reason_cost[2])

    def files(self) -> list[Path]:
        return list(self.code)

    def close(self) -> None:
        """Close every copy; requests waiting for one are released (they raise why). A later
        request starts the program again."""
        with self._lock:
            programs, self._programs = self._programs, []
            idle, self._idle = self._idle, queue.Queue()
        for _ in range(self.concurrency):
            idle.put(None)
        for program in programs:  # all told at once, so that all are waited for together
            program.hang_up()
        deadline = time.monotonic() + STOP_WAIT
        for program in programs:
            program.stop(deadline)


def _error(answer: dict[str, Any]) -> str:
    """The error an answer gives, as a report quotes it: its text, or what else it wrote
    there as JSON (``{"code": 429}``, not Python's repr of it)."""
    error = answer["error"]
    if error is None:  # (said without a verdict: a failure that gives no reason)
        return ""
    return _shortened(error if isinstance(error, str) else json.dumps(error, ensure_ascii=False))


def _extras_problem(answer: dict[str, Any]) -> str | None:
    """What is wrong with an answer's cost or tokens (given, and not null): a cost must be a
    number from 0 and tokens a whole number from 0, neither beyond the largest number a
    report holds (JSON has no infinity, and a negative count would make the totals lie)."""
    cost, tokens = answer.get("cost"), answer.get("tokens")
    if cost is not None and not (finite_number(cost) and cost >= 0):
        return 'a "cost" that is not a number from 0 to about 1.8e308'
    if tokens is not None and not (
        finite_number(tokens) and tokens >= 0 and float(tokens).is_integer()
    ):
        return '"tokens" that are not a whole number from 0 to about 1.8e308'
    return None


def _extras(answer: dict[str, Any]) -> tuple[str | None, float | None, int | None]:
    """reason, cost and tokens of an answer (checked by ``_extras_problem``), each None when
    absent."""
    reason = answer.get("reason")
    cost = answer.get("cost")
    tokens = answer.get("tokens")
    return (
        _shortened(reason) if isinstance(reason, str) else None,
        float(cost) if cost is not None else None,
        int(tokens) if tokens is not None else None,
    )
