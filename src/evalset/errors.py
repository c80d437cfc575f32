"""The errors evalset raises. The command line turns each into one sentence and an exit status."""

from __future__ import annotations


class EvalsetError(Exception):
    """Base of every error evalset raises on purpose.

    The message is a complete sentence meant for the user: it names the file (with
    line and column where there is one), the problem and the fix. ``exit_code`` is
    2 for unusable input and 1 for findings.
    """

    exit_code = 2


class CannotOpen(EvalsetError):
    """A file given to a command cannot be opened (no such file, a folder, no permission).
    Nothing another input has wrong explains it, so it is reported before their problems."""


class NoWorkspace(EvalsetError):
    """No ``evalset.toml`` or ``[tool.evalset]`` was found in this folder or above.

    The sentence ends with the command run again in a workspace's ``folder``
    (`evalset -C FOLDER COMMAND`): ``command`` is ``status`` until the command line sets
    it to the command that was run."""

    def __init__(self, before: str, folder: str, after: str) -> None:
        super().__init__(before, folder, after)
        self.before, self.folder, self.after = before, folder, after
        self.command = "status"

    def __str__(self) -> str:
        return f"{self.before}`evalset -C {self.folder} {self.command}`{self.after}"


class ConfigError(EvalsetError):
    """The workspace configuration is unreadable or has invalid values."""


class NoSetsFolder(ConfigError):
    """The sets folder the workspace configures does not exist, or is not a folder: a
    command would otherwise find no set, and a check of every set pass with none checked."""


class SetFileError(EvalsetError):
    """A set file cannot be read as YAML of the expected shape."""


class UnknownSet(EvalsetError):
    """A set name or path does not point at a set file; ``close``: the existing set's name
    it resembles, if any; ``problem``: the message without its fix, for a command that
    knows a better one."""

    def __init__(self, message: str, close: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        self.close = close
        self.problem = problem if problem is not None else message.removesuffix(".")


class EditRefused(EvalsetError):
    """An edit was refused because the result would be invalid; the file is unchanged."""
