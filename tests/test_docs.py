"""The generated references in docs/ match the code, and the help they are made from reads
as prose: one example per command, no type names, no line breaks of the source's."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from evalset.cli.app import command


def _docs_script() -> Any:
    spec = importlib.util.spec_from_file_location("docs_script", ROOT / "scripts" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["cli.md", "api.md"])
def test_the_references_are_current(name: str) -> None:
    rendered = {path.name: text for path, text in _docs_script().rendered().items()}
    current = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert current == rendered[name], f"docs/{name} is out of date: run `python scripts/docs.py`"


def test_the_check_names_a_stale_reference(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    script = _docs_script()
    monkeypatch.setattr(script, "DOCS", tmp_path)
    monkeypatch.setattr(script, "ROOT", tmp_path.parent)
    assert script.main(["--check"]) == 1
    assert "cli.md: out of date; run `python scripts/docs.py`" in capsys.readouterr().err
    assert script.main([]) == 0 and script.main(["--check"]) == 0


def _flatten(group: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every command, and each command of a group (``score retrieval``)."""
    found = []
    for name, cmd in group.commands.items():
        found.append((f"{prefix}{name}", cmd))
        if getattr(cmd, "commands", None):
            found += _flatten(cmd, f"{prefix}{name} ")
    return found


COMMANDS = _flatten(command())


@pytest.mark.parametrize(("name", "cmd"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_each_command_has_help_and_one_example(name: str, cmd: Any) -> None:
    paragraphs = cmd.help.split("\n\n")
    examples = [p for p in paragraphs if p.startswith("Example")]
    assert len(examples) == 1 and paragraphs[-1] == examples[0], cmd.help
    assert examples[0].count("evalset ") == 1, "one command per example"
    assert all("\n" not in p for p in paragraphs), "paragraphs are joined, the terminal wraps"
    for param in cmd.params:
        assert param.help, f"{name}: {param.name} has no help"


@pytest.mark.parametrize("name", ["", *[name for name, _ in COMMANDS]])
def test_help_shows_no_type_names(cli, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    done = cli(tmp_path, *name.split(), "--help")
    assert done.code == 0
    assert not re.search(r"<(bool|str|int|float|path|list|Path|file|choice)[^>]*>", done.out)
    assert not re.search(r"\{[A-Za-z_]+\}", done.out), "no braces around arguments"


@pytest.mark.parametrize(("name", "cmd"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_help_shows_what_is_written_in_brackets(cli, tmp_path: Path, name: str, cmd: Any) -> None:  # type: ignore[no-untyped-def]
    """The terminal's markup reads ``[promote.patterns]`` as a style, and drops it."""
    shown = " ".join(cli(tmp_path, *name.split(), "--help").out.replace("│", " ").split())
    texts = [cmd.help, *(param.help or "" for param in cmd.params)]
    for bracketed in (m.group() for text in texts for m in re.finditer(r"\[[^\]]*\]", text)):
        assert " ".join(bracketed.split()) in shown, bracketed


def test_the_readme_links_the_references() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/cli.md" in readme and "docs/api.md" in readme


# Before, the README said docs/api.md lists every public name, and its example imported and
# called names from evalset's modules (export, plan_split, score_retrieval, gate...) that
# docs/api.md did not mention.
def test_every_name_the_readme_example_uses_is_in_the_api_reference() -> None:
    import evalset

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Python API") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found
    block = found.group(1)
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    imported = [
        (module, name.strip())
        for module, names in re.findall(r"^from (evalset[\w.]*) import (.+)$", block, re.M)
        for name in names.split(",")
    ]
    assert len(imported) >= 10, imported
    assert [f"{m}.{n}" for m, n in imported if f"\n#### {m}.{n}\n" not in api] == []
    called = set(re.findall(r"\bevalset\.([A-Za-z_]\w*)\(", block))
    assert called and called <= set(evalset.__all__)
    assert all(f"\n## {name}\n" in api for name in called)
