"""The ``command`` judge: any program that speaks evalset's judge protocol, JSON lines on
standard input and output, so a team plugs in any model or service without writing Python.

evalset starts the program once (in the workspace root) and writes one request per line;
the program answers each with one line, in order:

    {"id": 1, "op": "entails", "text": "You have 30 days.", "claim": "30 days to return"}
    {"id": 1, "verdict": true, "reason": "states the 30 days", "cost": 0.0004, "tokens": 96}

    {"id": 2, "op": "refuses", "text": "I don't know."}
    {"id": 2, "verdict": true}

    {"id": 3, "op": "statements", "text": "Returns are free. Refunds take 5 days."}
    {"id": 3, "statements": ["Returns are free.", "Refunds take 5 days."]}

``verdict`` is true or false (``"yes"``/``"no"`` are read too); ``reason``, ``cost`` and
``tokens`` are optional. A request the program cannot decide is answered
``{"id": 1, "error": "why"}``: that claim is reported on its item. A program that does not
split statements answers ``{"id": 3, "unsupported": true}`` (faithfulness is then not
scored). A program that exits, prints a line that is not such an answer, or does not answer
within the timeout stops the scoring: one sentence, no report, exit status 2.

Cached verdicts are tied to the command and to the bytes of every file it names (the
script), so editing the script re-judges everything.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import queue
import shlex
import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any

from evalset.fsio import json_loads
from evalset.score.judges.base import Judge, JudgeBroken, JudgeFailed, Statements, Verdict

TIMEOUT = 60.0
"""Seconds to wait for one answer."""
SHOWN = 80
_EOF = object()


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
    if not argv or not all(isinstance(a, str) and a for a in argv):
        raise JudgeBroken(f"{where}: the judge command is empty; give the program to run, as in "
                          "--judge 'command:python my_judge.py'.")  # fmt: skip
    return argv


def _files_digest(argv: list[str], root: Path) -> str:
    """A digest of the command and of every file it names (the judge's own code)."""
    digest = hashlib.sha256(json.dumps(argv).encode())
    for arg in argv:
        path = root / arg
        try:
            if path.is_file():
                digest.update(path.read_bytes())
        except OSError:
            continue
    return digest.hexdigest()[:16]


class CommandJudge(Judge):
    """A program speaking the judge protocol on standard input and output."""

    def __init__(
        self, argv: list[str], root: Path, timeout: float = TIMEOUT, version: str | None = None
    ) -> None:
        self.argv = argv
        self.root = root
        self.timeout = timeout
        self.name = "command:" + shlex.join(argv)
        self.version = (
            f"{version}+{_files_digest(argv, root)}" if version else _files_digest(argv, root)
        )
        self.description = "a program speaking the JSON-lines judge protocol"
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._errors: deque[str] = deque(maxlen=5)
        self._next = 0
        self._splits = True
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        if self._process is not None:
            return self._process
        try:
            process = subprocess.Popen(
                self.argv,
                cwd=self.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except FileNotFoundError:
            raise JudgeBroken(
                f"judge command `{shlex.join(self.argv)}`: no such program "
                f"{self.argv[0]!r}; give a program on PATH or a path from the workspace root."
            ) from None
        except OSError as exc:
            raise JudgeBroken(
                f"judge command `{shlex.join(self.argv)}` cannot be started ({exc.strerror}); "
                "check that the program exists and may be run."
            ) from None
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=self._pump, args=(process.stdout, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(process.stderr, False), daemon=True).start()
        self._process = process
        return process

    def _pump(self, stream: IO[str], answers: bool) -> None:
        for line in stream:
            if answers:
                self._lines.put(line)
            elif line.strip():
                self._errors.append(line.strip())
        if answers:
            self._lines.put(_EOF)

    def _broken(self, request: int, problem: str) -> JudgeBroken:
        said = f"; its last error output: {self._errors[-1]!r}" if self._errors else ""
        self.close()
        return JudgeBroken(
            f"judge command `{shlex.join(self.argv)}` {problem} (request {request}){said}; a "
            "judge answers each request line with one JSON line, as the README's judge "
            "protocol says."
        )

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:  # one request at a time: answers come back in order
            process = self._start()
            self._next += 1
            ident = request["id"] = self._next
            assert process.stdin is not None
            try:
                process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
                process.stdin.flush()
            except (BrokenPipeError, OSError):
                pass  # it exited: reading its answer says so
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                raise self._broken(
                    ident, f"gave no answer within {self.timeout:g} s (timeout)"
                ) from None
            if line is _EOF:
                try:
                    status = process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    status = None
                raise self._broken(ident, f"exited (status {status}) without answering")
            try:
                answer = json_loads(line)
            except ValueError:
                answer = None
            if not isinstance(answer, dict) or answer.get("id") != ident:
                shown = line.strip()
                shown = shown if len(shown) <= SHOWN else shown[:SHOWN] + "…"
                raise self._broken(ident, f"printed {shown!r}, which is not an answer to it")
            return answer

    def _verdict(self, request: dict[str, Any]) -> Verdict:
        answer = self._call(request)
        ident: int = request["id"]
        if "error" in answer:
            raise JudgeFailed(str(answer["error"]))
        value = answer.get("verdict")
        if isinstance(value, str) and value.strip().lower() in ("yes", "no"):
            value = value.strip().lower() == "yes"
        if not isinstance(value, bool):
            raise self._broken(
                ident, f'answered {json.dumps(answer)[:SHOWN]} without a true/false "verdict"'
            )
        return Verdict(value, *_extras(answer))

    def entails(self, text: str, claim: str) -> Verdict:
        return self._verdict({"id": 0, "op": "entails", "text": text, "claim": claim})

    def refuses(self, answer: str) -> Verdict:
        return self._verdict({"id": 0, "op": "refuses", "text": answer})

    def statements(self, text: str) -> Statements | None:
        if not self._splits:
            return None
        request: dict[str, Any] = {"id": 0, "op": "statements", "text": text}
        answer = self._call(request)
        ident: int = request["id"]
        if answer.get("unsupported") is True:
            self._splits = False
            return None
        if "error" in answer:
            raise JudgeFailed(str(answer["error"]))
        found = answer.get("statements")
        if not isinstance(found, list) or not all(isinstance(s, str) for s in found):
            raise self._broken(
                ident, f'answered {json.dumps(answer)[:SHOWN]} without a "statements" list'
            )
        reason_cost = _extras(answer)
        return Statements(tuple(s for s in found if s.strip()), reason_cost[1], reason_cost[2])

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()


def _extras(answer: dict[str, Any]) -> tuple[str | None, float | None, int | None]:
    """reason, cost and tokens of an answer, each None when absent or not of its kind."""
    reason = answer.get("reason")
    cost = answer.get("cost")
    tokens = answer.get("tokens")
    return (
        reason if isinstance(reason, str) else None,
        float(cost)
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and math.isfinite(cost)
        else None,
        tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
    )
