"""What every judge is: one small decision at a time, behind one protocol.

A judge answers three kinds of request:

- ``entails(text, claim)``: does the text assert the claim? (key points, must_not_say
  entries, a statement against the given contexts);
- ``refuses(answer)``: does the answer decline to answer?
- ``statements(text)``: the answer's statements, one claim each, for faithfulness; a judge
  that cannot split text returns None, and faithfulness is then not scored.

Each answer is a ``Verdict`` (true or false, with an optional reason, cost and tokens) or,
for statements, a ``Statements``. A judge that cannot decide one request raises
``JudgeFailed``: that claim is reported on its item, never counted as false. A judge that
cannot work at all (its program crashed, hung or printed garbage, its endpoint refused the
key) raises ``JudgeBroken``: scoring stops with one sentence and writes no report.

Judges are chosen by name (``exact``, ``command:PROGRAM``, ``openai``, a name configured under
``[judges.NAME]``, or a plug-in of the entry-point group ``evalset.judges``); see
``evalset.score.judges.registry``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from evalset.errors import EvalsetError

Op = Literal["entails", "refuses", "statements"]
OPS: tuple[Op, ...] = ("entails", "refuses", "statements")


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's answer to ``entails`` or ``refuses``."""

    value: bool
    reason: str | None = None
    cost: float | None = None
    """What the decision cost, in the unit the judge bills (a remote judge's currency)."""
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Statements:
    """A judge's answer to ``statements``: the text's claims, one each."""

    items: tuple[str, ...]
    cost: float | None = None
    tokens: int | None = None


Outcome = Verdict | Statements


class Request(NamedTuple):
    """One decision to ask a judge for. ``claim`` is empty for ``refuses`` and
    ``statements``. A tuple: scoring a run looks up tens of thousands of them, and a
    tuple's hash and equality run in C."""

    op: Op
    text: str
    claim: str = ""


class JudgeFailed(Exception):
    """One request could not be decided (the judge said why); reported on its item."""


class JudgeBroken(EvalsetError):
    """The judge cannot work at all: scoring stops, and no report is written.

    ``withheld`` is the sentence to print instead once the judge was asked about a claim
    whose item's labels are not shown (a holdout item's): the same without what the judge
    itself said (its replies, its error output), which may quote that claim, as a model's
    reply can. None when the sentence quotes nothing the judge said."""

    def __init__(self, message: str, withheld: str | None = None) -> None:
        super().__init__(message)
        self.withheld = withheld


class Judge:
    """Base of every judge. Subclasses set ``name`` and implement ``entails`` and
    ``refuses``; ``statements`` is optional."""

    name: str = "judge"
    """How reports name the judge (``exact``, ``command:...``, ``openai:MODEL``)."""
    version: str = "1"
    """Changes whenever the judge may decide differently (its prompts, its program's code):
    cached verdicts of another version are not reused."""
    concurrency: int = 1
    """How many requests may run at once (remote judges: more than one)."""
    cacheable: bool = True
    """Whether verdicts are kept on disk (not for a judge cheaper than a cache look-up)."""
    description: str = ""

    def entails(self, text: str, claim: str) -> Verdict:
        """Whether ``text`` asserts ``claim``."""
        raise NotImplementedError

    def refuses(self, answer: str) -> Verdict:
        """Whether ``answer`` declines to answer."""
        raise NotImplementedError

    def statements(self, text: str) -> Statements | None:
        """The text's statements, or None when this judge cannot split text."""
        return None

    def can_split(self) -> bool:
        """Whether ``statements`` is implemented (without asking the judge anything)."""
        return type(self).statements is not Judge.statements

    def close(self) -> None:
        """Release what the judge holds (a process, a connection pool)."""

    def files(self) -> list[Path]:
        """The files the judge reads to decide (its program, its prompts): no report or
        result may be written over them."""
        return []

    def describe(self) -> dict[str, Any]:
        """What a report records about the judge."""
        found: dict[str, Any] = {"name": self.name, "version": self.version}
        if self.description:
            found["description"] = self.description
        return found

    def ask(self, request: Request) -> Outcome | None:
        """Answer one request (the runner calls this); None: this judge cannot split
        statements."""
        if request.op == "entails":
            return self.entails(request.text, request.claim)
        if request.op == "refuses":
            return self.refuses(request.text)
        return self.statements(request.text)
