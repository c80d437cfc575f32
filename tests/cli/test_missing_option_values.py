"""An option given without its value names the help of the command it was given to. Before,
click found it before it had made the command's context, and the sentence said "see
`evalset --help`", which lists commands, not the option (`evalset snapshot --rev`,
`evalset stale --format`). Every option that takes a value, of every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalset.cli.app import command


def _options(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    found = []
    for name, sub in sorted(getattr(group, "commands", {}).items()):
        if getattr(sub, "hidden", False):
            continue
        if hasattr(sub, "commands"):
            found += _options(sub, (*path, name))
            continue
        for param in sub.params:
            if param.param_type_name == "option" and not param.is_flag and param.opts:
                found.append(((*path, name), max(param.opts, key=len)))
    return found


OPTIONS = _options(command())


def test_every_command_with_options_is_in_the_table() -> None:
    named = {" ".join(path) for path, _ in OPTIONS}
    assert {"snapshot", "stale", "score retrieval", "release", "promote"} <= named


@pytest.mark.parametrize(
    ("path", "option"), OPTIONS, ids=[" ".join(p) + " " + o for p, o in OPTIONS]
)
def test_an_option_without_its_value_names_its_commands_help(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, path: tuple[str, ...], option: str
) -> None:
    done = cli(tmp_path, *path, option)
    assert (done.code, done.out) == (2, ""), done.err
    assert done.err == (
        f"evalset: Option '{option}' requires an argument; see `evalset {' '.join(path)} --help`.\n"
    )
