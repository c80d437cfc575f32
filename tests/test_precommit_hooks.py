"""The pre-commit hooks this repository publishes run evalset commands that exist, in the
way pre-commit calls them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ruamel.yaml import YAML

from conftest import ROOT

REQUIRED = {"id", "name", "entry", "language"}
"""The keys pre-commit requires of a hook in .pre-commit-hooks.yaml."""
OPTIONAL = {"description", "files", "exclude", "types", "pass_filenames", "always_run",
            "stages", "args", "require_serial", "minimum_pre_commit_version",
            "verbose"}  # fmt: skip


def hooks() -> list[dict[str, object]]:
    loaded = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(loaded, list)
    return loaded


def test_the_hooks_are_well_formed() -> None:
    found = hooks()
    assert [h["id"] for h in found] == ["evalset-validate", "evalset-stale"]
    for hook in found:
        assert set(hook) >= REQUIRED and set(hook) <= REQUIRED | OPTIONAL, hook
        assert hook["language"] == "python"  # installs this package in the hook's env
        if "files" in hook:
            assert re.search(str(hook["files"]), "sets/acme-support.yaml")


def test_each_hook_runs_as_pre_commit_calls_it(cli, example: Path) -> None:  # type: ignore[no-untyped-def]
    """pre-commit appends the staged file names when pass_filenames is on."""
    for hook in hooks():
        program, *args = shlex.split(str(hook["entry"]))
        assert program == "evalset"
        if hook.get("pass_filenames", True):
            args.append("sets/acme-support.yaml")
        result = cli(example, *args)
        # validate passes on the example; stale finds its six stale items.
        expected = 1 if args[0] == "stale" else 0
        assert result.code == expected, (hook["id"], result.out, result.err)


def test_the_readmes_local_hooks_are_the_published_ones() -> None:
    """The README's `repo: local` form runs what the published hooks run, on the same
    files: the two cannot drift apart."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Running evalset from pre-commit", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    config = YAML(typ="safe").load(block)
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    keys = ("id", "name", "entry", "files", "pass_filenames", "always_run", "verbose")
    published = [{k: h[k] for k in keys if k in h} for h in hooks()]
    local = [{k: h[k] for k in keys if k in h} for h in repo["hooks"]]
    assert local == published
    assert all(h["language"] == "system" for h in repo["hooks"])  # the installed evalset
