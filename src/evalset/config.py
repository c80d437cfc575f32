"""Workspace discovery and configuration (``evalset.toml`` or ``[tool.evalset]``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalset.errors import ConfigError, NoWorkspace

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_FILE = "evalset.toml"
PYPROJECT = "pyproject.toml"
STATE_DIR = ".evalset"


class SplitConfig(BaseModel):
    """How holdout items are chosen."""

    model_config = ConfigDict(extra="forbid")

    ratio: float = Field(default=0.2, ge=0.0, le=1.0)
    """Target share of holdout items in each category."""


class ValidateConfig(BaseModel):
    """Thresholds of `evalset validate`."""

    model_config = ConfigDict(extra="forbid")

    min_per_category: int = Field(default=5, ge=0)
    """A category with fewer active items than this is reported as a coverage warning."""


class Config(BaseModel):
    """The `[tool.evalset]` table of pyproject.toml, or the whole of evalset.toml."""

    model_config = ConfigDict(extra="forbid")

    sets: str = "sets"
    """Folder of the eval-set YAML files, relative to the workspace root."""
    corpus: str = "corpus"
    """Folder of the source documents, relative to the workspace root."""
    snapshots: str = "snapshots"
    """Folder of the corpus snapshot manifests, relative to the workspace root."""
    hash: Literal["rendered", "source"] = "rendered"
    """Hash sections as rendered text (markup removed) or as whitespace-normalised source."""
    store_text: bool | None = None
    """Store each section's text in snapshots; unset means on below 20 MB of text."""
    split: SplitConfig = Field(default_factory=SplitConfig)
    """Holdout assignment."""
    validate_: ValidateConfig = Field(default_factory=ValidateConfig, alias="validate")
    """Validation thresholds."""


@dataclass(frozen=True)
class Workspace:
    """A folder with an evalset configuration: the root and its parsed config."""

    root: Path
    config: Config
    config_file: Path

    @property
    def sets_dir(self) -> Path:
        return self.root / self.config.sets

    @property
    def corpus_dir(self) -> Path:
        return self.root / self.config.corpus

    @property
    def snapshots_dir(self) -> Path:
        return self.root / self.config.snapshots

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the syntax.") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from None


def _table_of(path: Path) -> dict[str, Any] | None:
    """The evalset table of a config candidate, or None when the file does not configure evalset."""
    if path.name == CONFIG_FILE:
        return _read_toml(path)
    tool = _read_toml(path).get("tool", {})
    table = tool.get("evalset") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def parse_config(table: dict[str, Any], source: Path) -> Config:
    """Validate a config table, naming the key at fault."""
    try:
        return Config.model_validate(table)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]).replace("validate_", "validate")
        prefix = "tool.evalset." if source.name == PYPROJECT else ""
        if err["type"] == "extra_forbidden":
            problem = "is not a known setting"
        else:
            problem = f"is invalid: {err['msg']}"
        raise ConfigError(
            f"{source}: {prefix}{key} {problem}; see the Configuration section of the README."
        ) from None


def find_workspace(start: Path | None = None) -> Workspace:
    """Walk up from ``start`` (default: the current folder) to the folder configuring evalset."""
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        for name in (CONFIG_FILE, PYPROJECT):
            candidate = folder / name
            if candidate.is_file():
                table = _table_of(candidate)
                if table is not None:
                    return Workspace(folder, parse_config(table, candidate), candidate)
    raise NoWorkspace(
        f"no evalset workspace here ({here} and its parents have no evalset.toml "
        "or [tool.evalset] in pyproject.toml): run `evalset init`."
    )
