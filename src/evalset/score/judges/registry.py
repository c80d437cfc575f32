"""Choosing a judge by name.

- ``exact``: normalised containment (``evalset.score.judges.exact``);
- ``command:PROGRAM ARGS``: a program speaking the JSON-lines protocol
  (``evalset.score.judges.command``);
- ``openai`` or ``openai:MODEL``: an OpenAI-compatible chat endpoint, configured from the
  environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, and ``EVALSET_JUDGE_MODEL`` when no
  model is named);
- ``NAME``: a judge configured under ``[judges.NAME]`` with a ``kind`` and its settings;
- ``NAME``: a plug-in, an entry point of the group ``evalset.judges`` whose object, called
  with the settings (a dict), returns a ``Judge``.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
from dataclasses import fields
from importlib.metadata import entry_points
from typing import Any

from evalset import plugins
from evalset.config import Workspace
from evalset.fsio import finite_number
from evalset.score.judges.base import Judge, JudgeBroken
from evalset.score.judges.command import TIMEOUT, CommandJudge, split_command
from evalset.score.judges.exact import ExactJudge

GROUP = "evalset.judges"
MODEL_ENV = "EVALSET_JUDGE_MODEL"
BUILT_IN = ("exact", "command:PROGRAM", "openai[:MODEL]")


def _plugins() -> dict[str, Any]:
    return {entry.name: entry for entry in entry_points(group=GROUP)}


def load_judge(spec: str, ws: Workspace) -> Judge:
    """The judge ``spec`` names (see the module docstring)."""
    if not isinstance(spec, str):
        raise TypeError(
            f"load_judge() takes a judge's name as text, such as 'exact' or "
            f"'command:judge.py', not {type(spec).__name__} {spec!r:.60}"
        )
    spec = spec.strip()
    where = f"--judge {spec}"
    if spec == "exact":
        return ExactJudge()
    if spec.startswith("command:"):
        return CommandJudge(split_command(spec[len("command:") :], where), ws.root)
    if spec == "openai" or spec.startswith("openai:"):
        model = spec[len("openai:") :] or os.environ.get(MODEL_ENV, "")
        if not model:
            raise JudgeBroken(
                f"{where}: names no model; give one (--judge openai:MODEL), set {MODEL_ENV}, "
                "or configure the judge under [judges.NAME] in the workspace's configuration."
            )
        return _openai(ws, {"model": model}, where)
    configured = ws.config.judges
    if spec in configured:
        return _configured(ws, spec, dict(configured[spec]))
    plugins = _plugins()
    if spec in plugins:
        return _plugin(spec, plugins[spec], {}, where)
    known = [*configured, *plugins]
    close = difflib.get_close_matches(spec, ["exact", "openai", *known], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    others = f"; configured or plug-in judges: {', '.join(known)}" if known else ""
    raise JudgeBroken(
        f"{where}: no judge of that name{hint}; use exact, command:PROGRAM, openai[:MODEL], or "
        f"a judge configured under [judges.NAME]{others}."
    )


def _configured(ws: Workspace, name: str, table: dict[str, Any]) -> Judge:
    kind = table.pop("kind")
    where = f"{ws.config_file}: judges.{name}"
    if kind == "exact":
        _only(table, (), where)
        return ExactJudge()
    if kind == "command":
        _only(table, ("command", "timeout", "version", "concurrency"), where)
        command = table.get("command")
        if not isinstance(command, (str, list)):
            raise JudgeBroken(f'{where}: needs command = "PROGRAM ARGS" (text or a list).')
        timeout = table.get("timeout", TIMEOUT)
        _check_timeout(timeout, where)
        concurrency = table.get("concurrency", 1)
        if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
            raise JudgeBroken(f"{where}: concurrency must be a whole number, 1 or more.")
        version = table.get("version")
        return CommandJudge(
            split_command(command, where),
            ws.root,
            float(timeout),
            str(version) if version is not None else None,
            concurrency,
        )
    if kind == "openai":
        return _openai(ws, table, where)
    plugins = _plugins()
    if kind in plugins:
        return _plugin(kind, plugins[kind], table, where)
    raise JudgeBroken(
        f"{where}: kind {kind!r} is not a judge; use exact, command, openai"
        + (f" or a plug-in ({', '.join(plugins)})" if plugins else "")
        + "."
    )


def _only(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            shown = ", ".join(allowed) or "none"
            raise JudgeBroken(f"{where}: {key!r} is not a setting of this judge{hint}; its "
                              f"settings are: {shown}.")  # fmt: skip


def _openai(ws: Workspace, table: dict[str, Any], where: str) -> Judge:
    from evalset.score.judges.openai_chat import OpenAIJudge, OpenAISettings

    names = tuple(f.name for f in fields(OpenAISettings))
    _only(table, names, where)
    kinds: dict[str, tuple[type, ...]] = {
        "model": (str,),
        "base_url": (str,),
        "api_key": (str,),
        "api_key_env": (str,),
        "concurrency": (int,),
        "retries": (int,),
        "timeout": (int, float),
        "temperature": (int, float),
        "prompts": (str,),
        "price_input": (int, float),
        "price_output": (int, float),
        "version": (str,),
    }
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, kinds[key]):
            wanted = "text" if kinds[key] == (str,) else "a number"
            got = type(value).__name__ if key == "api_key" else repr(value)  # a secret's not shown
            raise JudgeBroken(f"{where}: {key} must be {wanted}, not {got}.")
    if "model" not in table:
        raise JudgeBroken(f'{where}: needs model = "...", the model the endpoint serves.')
    if table.get("concurrency", 1) < 1 or table.get("retries", 0) < 0:
        raise JudgeBroken(f"{where}: concurrency must be 1 or more and retries 0 or more.")
    _check_timeout(table.get("timeout", 1), where)
    for key in ("temperature", "price_input", "price_output"):
        value = table.get(key, 0)
        if not finite_number(value) or value < 0:  # NaN would be every cost of the report
            raise JudgeBroken(f"{where}: {key} must be a finite number, 0 or more.")
    return OpenAIJudge(OpenAISettings(**table), ws.root)


LONGEST_WAIT = 86_400.0
"""The longest timeout a judge may have, in seconds (a day): waits longer than the clocks
behind them can count (inf, 1e300) would fail inside Python, and NaN would wait forever."""


def _check_timeout(timeout: Any, where: str) -> None:
    if not finite_number(timeout) or not 0 < timeout <= LONGEST_WAIT:
        raise JudgeBroken(
            f"{where}: timeout must be a finite number of seconds above 0, at most "
            f"{LONGEST_WAIT:,.0f}, not {timeout!r}."
        )


def _plugin(name: str, entry: Any, settings: dict[str, Any], where: str) -> Judge:
    try:
        factory = plugins.load(entry)
        judge = factory(settings)
    except JudgeBroken:
        raise
    except Exception as exc:  # a plug-in's own failure, reported in a sentence
        raise JudgeBroken(
            f"{where}: the plug-in judge {name!r} ({entry.value}) failed to start: {exc}"
        ) from None
    if not isinstance(judge, Judge):
        raise JudgeBroken(
            f"{where}: the plug-in judge {name!r} ({entry.value}) returned "
            f"{type(judge).__name__}, not an evalset.score.judges.base.Judge."
        )
    if settings:  # two tables of one plug-in may decide differently: neither's verdicts
        # are the other's, and a report names which settings judged it
        text = json.dumps(settings, sort_keys=True, default=str, ensure_ascii=False)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        with contextlib.suppress(AttributeError):  # a version the plug-in computes itself
            judge.version = f"{judge.version}+settings.{digest}"
    return judge
