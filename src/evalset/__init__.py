"""evalset: versioned, reviewed evaluation sets for RAG systems, tied to their corpus."""

from evalset.citations import Citation
from evalset.config import Config, Workspace, find_workspace
from evalset.errors import (
    ConfigError,
    EditRefused,
    EvalsetError,
    NoWorkspace,
    SetFileError,
    UnknownSet,
)
from evalset.findings import Finding
from evalset.model import EvalSet, Item, KeyPoint, Origin, SetHeader
from evalset.setfile import DELETE, SetEditor, SetFile, edit_set, load_set
from evalset.validate import Report, check_set, validate

__version__ = "0.1.0"

__all__ = [
    "DELETE",
    "Citation",
    "Config",
    "ConfigError",
    "EditRefused",
    "EvalSet",
    "EvalsetError",
    "Finding",
    "Item",
    "KeyPoint",
    "NoWorkspace",
    "Origin",
    "Report",
    "SetEditor",
    "SetFile",
    "SetFileError",
    "SetHeader",
    "UnknownSet",
    "Workspace",
    "__version__",
    "check_set",
    "edit_set",
    "find_workspace",
    "load_set",
    "validate",
]
