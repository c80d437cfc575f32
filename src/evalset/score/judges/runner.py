"""Asking a judge many things at once: each distinct request once, cached verdicts first,
the rest concurrently up to the judge's limit, and what it cost summed.

A request the judge could not decide comes back as its ``JudgeFailed`` (reported on the
items that needed it); a ``JudgeBroken`` stops everything, after the verdicts already
given are saved, so that running again resumes rather than starts over.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Collection, Iterable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from decimal import Context, Decimal
from typing import Any

from evalset.errors import EvalsetError
from evalset.score.judges.base import (
    Judge,
    JudgeBroken,
    JudgeFailed,
    Outcome,
    Request,
    Statements,
    Verdict,
)
from evalset.score.judges.cache import VerdictCache, request_key

Result = Outcome | JudgeFailed | None
"""A verdict or statements; the failure of that request; None: the judge cannot split
statements."""
_SAVE_EVERY = 200
_LARGEST = sys.float_info.max
"""The largest number a report holds (JSON readers take numbers as floats)."""


@dataclass
class Usage:
    """What judging cost: requests sent now, verdicts reused, failures, tokens and cost
    (of the requests sent now, and of every verdict the scores rest on)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    tokens: int = 0
    cost: float = 0.0
    verdict_tokens: int = 0
    verdict_cost: float = 0.0
    priced: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached": self.cached,
            "failed": self.failed,
            "tokens": self.tokens,
            "cost": self.cost if self.priced else None,
            "verdict_tokens": self.verdict_tokens,
            "verdict_cost": self.verdict_cost if self.priced else None,
        }


@dataclass
class Judging:
    """A judge with its cache and the usage so far."""

    judge: Judge
    cache: VerdictCache | None = None
    """Where verdicts are kept between runs (``.evalset/``); None: asked every time."""
    usage: Usage = field(default_factory=Usage)
    """What judging cost so far (``usage.to_json()["calls"]``: requests sent)."""
    results: dict[Request, Result] = field(default_factory=dict)
    """Every request decided so far, and its verdict or failure."""
    asked_hidden: bool = False
    """Whether the judge was sent a request about a claim whose item's labels are not shown:
    from then on, what it says when it breaks is not quoted (see ``run``)."""

    @property
    def key(self) -> str:
        """The judge's name and version: what its cached verdicts are kept under."""
        return f"{self.judge.name}\x00{self.judge.version}"

    def run(
        self, requests: Iterable[Request], hidden: Collection[Request] = ()
    ) -> dict[Request, Result]:
        """Decide every request not decided yet; returns all results so far. ``hidden``: the
        requests about claims whose item's labels are not shown (a holdout item's); they are
        sent last, and once one was sent, a judge that breaks is named without what it said
        (``JudgeBroken.withheld``), which may quote the claim."""
        pending = [r for r in dict.fromkeys(requests) if r not in self.results]
        if not pending:
            return self.results
        if hidden:
            hidden = set(hidden)
            pending.sort(key=hidden.__contains__)  # stable: the order given, hidden last
        keys: dict[Request, str] = {}
        if self.cache is not None and self.judge.cacheable:
            keys = {r: request_key(self.key, r) for r in pending}
            stored = self.cache.get_many(keys.values())
            missing = []
            for r in pending:
                found = stored.get(keys[r])
                if found is None:
                    missing.append(r)
                else:
                    self.results[r] = counted = self._count(found, now=False)
                    self.usage.cached += 1
                    self.usage.failed += isinstance(counted, JudgeFailed)
            pending = missing
        if pending and not self.judge.cacheable and self.judge.concurrency <= 1:
            self._ask_here(pending, hidden)
        elif pending:
            self._ask(pending, keys, hidden)
        return self.results

    def _ask_here(self, pending: list[Request], hidden: Collection[Request]) -> None:
        """A judge cheaper than its bookkeeping (exact): asked in turn, nothing saved."""
        results = self.results
        try:
            for request in pending:
                results[request] = found = self._answer(request, hidden)
                self.usage.failed += isinstance(found, JudgeFailed)
                self.usage.calls += 1
        except JudgeBroken as exc:
            raise self._told(exc) from None

    def _told(self, exc: JudgeBroken) -> JudgeBroken:
        """``exc``, without what the judge said once it was asked about a hidden claim."""
        return JudgeBroken(exc.withheld) if self.asked_hidden and exc.withheld else exc

    def _answer(self, request: Request, hidden: Collection[Request]) -> Result:
        """The judge's answer to ``request``, or its failure; a judge that raises what no
        judge should, or answers what no request can have, is broken."""
        if request in hidden:
            self.asked_hidden = True
        try:
            return _checked(self.judge, request, self.judge.ask(request))
        except JudgeFailed as exc:
            return exc
        except EvalsetError:  # JudgeBroken, or evalset's own sentence
            raise
        except Exception as exc:  # a plug-in's bug: its message may quote the claim
            raise _raised(self.judge, exc) from None

    def _count(self, outcome: Result, now: bool) -> Result:
        """The outcome, its tokens and cost added to the usage; a failure instead when they
        would take a total beyond the largest number a report holds (JSON has no infinity:
        a judge that gives its cost in the wrong unit, say)."""
        if outcome is None or isinstance(outcome, JudgeFailed):
            return outcome
        tokens, cost = outcome.tokens or 0, outcome.cost or 0.0
        if self.usage.verdict_tokens + tokens > _LARGEST or _beyond(self.usage.verdict_cost, cost):
            given = ", ".join(
                f"{name} {_shown(value)}"
                for name, value in (("tokens", outcome.tokens), ("cost", outcome.cost))
                if value is not None
            )
            return JudgeFailed(
                f"its answer's {given} would take the judge's totals beyond the largest number "
                "a report holds (about 1.8e308)"
            )
        if outcome.tokens is not None:
            self.usage.verdict_tokens += outcome.tokens
            if now:
                self.usage.tokens += outcome.tokens
        if outcome.cost is not None:
            self.usage.priced = True
            self.usage.verdict_cost += outcome.cost
            if now:
                self.usage.cost += outcome.cost
        return outcome

    def _ask(
        self, pending: list[Request], keys: dict[Request, str], hidden: Collection[Request]
    ) -> None:
        lock = threading.Lock()
        unsaved: list[tuple[str, Outcome]] = []

        def record(request: Request, outcome: Result) -> None:
            with lock:
                outcome = self._count(outcome, now=True)
                self.results[request] = outcome
                self.usage.calls += 1
                if isinstance(outcome, JudgeFailed):
                    self.usage.failed += 1
                if request in keys and outcome is not None and not isinstance(outcome, JudgeFailed):
                    if request in hidden and isinstance(outcome, Verdict):
                        # kept without its reason, which may quote the claim: the cache is a
                        # file that stays in the clear, a sealed holdout's claims included
                        outcome = replace(outcome, reason=None)
                    unsaved.append((keys[request], outcome))

        def save() -> None:
            with lock:
                batch = unsaved[:]
                unsaved.clear()
            if self.cache is not None and batch:
                self.cache.put_many(batch)

        def one(request: Request) -> None:
            record(request, self._answer(request, hidden))
            if len(unsaved) >= _SAVE_EVERY:
                save()

        try:
            if self.judge.concurrency <= 1 or len(pending) == 1:
                for request in pending:
                    one(request)
            else:
                self._concurrently(pending, one)
        except JudgeBroken as exc:
            raise self._told(exc) from None
        finally:
            save()

    def _concurrently(self, pending: list[Request], one: Any) -> None:
        with ThreadPoolExecutor(max_workers=self.judge.concurrency) as pool:
            futures: list[Future[None]] = [pool.submit(one, r) for r in pending]
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            broken = next((f.exception() for f in done if f.exception() is not None), None)
            if broken is not None:
                for f in futures:
                    f.cancel()
                if isinstance(broken, JudgeBroken):
                    raise broken
                raise broken


def _beyond(total: float, value: float) -> bool:
    """Whether ``total + value`` is beyond a float's range; a plug-in's integer beyond it
    (which adding to a float cannot convert) too."""
    try:
        return not math.isfinite(total + value)
    except OverflowError:
        return True


def _shown(value: float) -> str:
    """``value`` to 6 significant digits, as ``:.6g`` shows a float; an integer beyond a
    float's range too, which ``float()`` cannot convert (a plug-in may give one)."""
    try:
        return f"{float(value):.6g}"
    except OverflowError:
        return format(Decimal(value).normalize(Context(prec=6)), "g")


PROTOCOL = (
    "a judge's ask() returns a Verdict (a Statements, or None, for statements) and raises "
    "JudgeFailed for a request it cannot decide"
)


def _checked(judge: Judge, request: Request, outcome: object) -> Result:
    """The judge's answer, when it is one the request can have; else the judge is broken
    (a plug-in that returns a bare bool, or a verdict whose value is not one)."""
    if request.op == "statements":
        if outcome is None or (
            isinstance(outcome, Statements) and all(isinstance(s, str) for s in outcome.items)
        ):
            return _counted(judge, request, outcome)
    elif isinstance(outcome, Verdict) and isinstance(outcome.value, bool):
        return _counted(judge, request, outcome)
    shown = (
        f"a Verdict whose value is {type(outcome.value).__name__}"
        if isinstance(outcome, Verdict)
        else f"a {type(outcome).__name__}"
    )
    raise JudgeBroken(
        f"judge {judge.name} answered a request for {request.op} with {shown}; {PROTOCOL}."
    )


def _counted(judge: Judge, request: Request, outcome: Outcome | None) -> Result:
    """``outcome``, when its cost and tokens can be added up: each None or a number (tokens
    a whole one), not negative, not NaN. A negative count (finite or not) would lower the
    judge's totals, and a NaN would make them no number at all: the judge is broken, as a
    command judge printing them is. A count beyond a float fails its claim
    (``Judging._count``)."""
    if outcome is None:
        return None
    cost, tokens = outcome.cost, outcome.tokens
    wrong = (
        f"cost {_said(cost)}"
        if _uncountable(cost, whole=False)
        else f"tokens {_said(tokens)}"
        if _uncountable(tokens, whole=True)
        else None
    )
    if wrong is None:
        return outcome
    raise JudgeBroken(
        f"judge {judge.name} answered a request for {request.op} with a "
        f"{type(outcome).__name__} whose {wrong} cannot be added up; a cost is None or an "
        "int or float from 0, tokens None or an int from 0."
    )


def _said(value: object) -> str:
    """A count a judge gave, as a sentence shows it: a number as ``_shown`` does (one of
    thousands of digits would fill the sentence, or fail to print at all), anything else
    as ``reprlib`` shortens it."""
    if type(value) in (int, float):
        return _shown(value)  # type: ignore[arg-type]
    import reprlib

    try:
        return reprlib.repr(value)
    except Exception:  # a plug-in's object whose repr fails: its type says enough
        return f"of type {type(value).__name__}"


def _uncountable(value: object, whole: bool) -> bool:
    """Whether a cost (``whole``: a token count) is neither None nor a number from 0 (a
    positive count too large for a float is left to ``Judging._count``, which fails its
    claim)."""
    if value is None:
        return False
    if type(value) is bool or not isinstance(value, int if whole else (int, float)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return value < 0  # however large: any negative count lowers the totals


def _raised(judge: Judge, exc: Exception) -> JudgeBroken:
    """A judge that raised what no judge should: broken, with what it said unless it was
    asked about a claim whose labels are not shown (``Judging.asked_hidden``)."""
    kind = type(exc).__name__
    return JudgeBroken(
        f"judge {judge.name} raised {kind} ({exc}); {PROTOCOL}.",
        withheld=f"judge {judge.name} raised {kind} (what it said is not shown, since it had "
        "been asked about holdout items' claims, which it may quote: run it on a tuning "
        f"item's request to see it); {PROTOCOL}.",
    )


def outcome_text(result: Result) -> str:
    """A failure, as an item lists it."""
    if isinstance(result, JudgeFailed):
        return str(result) or "the judge gave no reason"
    return "the judge cannot split text into statements"
