"""JSON Schemas generated from the models, so editors can validate set files as you type."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

from evalset.config import Config
from evalset.sets.model import EvalSet, FailureRecord

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def set_schema() -> dict[str, Any]:
    schema = EvalSet.model_json_schema(mode="validation")
    return {"$schema": SCHEMA_DIALECT, **schema}


def failure_schema() -> dict[str, Any]:
    schema = FailureRecord.model_json_schema(mode="validation")
    return {"$schema": SCHEMA_DIALECT, **schema}


def config_schema() -> dict[str, Any]:
    from annotated_types import Ge, Interval  # noqa: F401 - resolve the config's annotations
    from pydantic import StringConstraints, TypeAdapter  # noqa: F401 - the same

    schema = TypeAdapter(Config).json_schema(mode="validation")
    _closed(schema)
    # titled as the other two are (pydantic names it after the class)
    return {"$schema": SCHEMA_DIALECT, **schema, "title": "evalset configuration"}


def _closed(node: Any) -> None:
    """A table whose keys follow a pattern (placeholder types, judge names) takes no other
    key, as the config check refuses one: pydantic writes the pattern alone."""
    if isinstance(node, dict):
        if "patternProperties" in node:
            node.setdefault("additionalProperties", False)
        for value in node.values():
            _closed(value)
    elif isinstance(node, list):
        for value in node:
            _closed(value)


def rendered() -> dict[str, str]:
    """File name -> exact text of each published schema."""
    return {
        "evalset.schema.json": json.dumps(set_schema(), indent=2, sort_keys=True) + "\n",
        "config.schema.json": json.dumps(config_schema(), indent=2, sort_keys=True) + "\n",
        "failure.schema.json": json.dumps(failure_schema(), indent=2, sort_keys=True) + "\n",
    }


AGAIN = "then run `evalset schema --write` again (it wrote nothing)"


def write_schemas(folder: Path, overwrite: bool = True, root: Path | None = None) -> list[Path]:
    """Write the schemas into ``folder``, each replaced whole (a run killed mid-write leaves
    the old file or the new); ``overwrite=False`` creates only those that do not exist.
    ``root``: the workspace, out of which no symlink on the way may take a write. Returns the
    files that were written."""
    from evalset.errors import EvalsetError
    from evalset.fsio import atomic_write, create_new, make_folders

    if root is not None:
        for name in rendered():
            _refuse_leaving(folder / name, root)
    if folder.is_file():
        raise EvalsetError(
            f"{folder}: is a file, where `evalset schema --write` writes its folder of schemas; "
            f"move or rename it, {AGAIN}."
        )
    # Each file checked before any is written: a folder in the way refuses all three.
    current = {name: _current(folder / name) for name in rendered()}
    make_folders(folder / next(iter(rendered())))
    written = []
    for name, text in rendered().items():
        path = folder / name
        if not overwrite:
            if create_new(path, text):
                written.append(path)
            continue
        if current[name] == text.encode():
            continue
        atomic_write(path, text)
        written.append(path)
    return written


def _refuse_leaving(path: Path, root: Path) -> None:
    """Refuse a schema file that a symlink on its way (itself, or ``schemas``) takes out of
    the workspace ``root``, or into git's own folder: a link committed to ``~/.bashrc`` would
    have had it replaced by a schema. A link that stays in the workspace is written through,
    as every file evalset writes is."""
    import os

    from evalset.errors import EvalsetError
    from evalset.fsio import first_link, lies_in

    link = first_link(path, root)
    if link is None:
        return
    real = os.path.realpath(path)
    if not os.path.isdir(os.path.dirname(real)):
        return  # no folder there: nothing can be written, and the write says why
    where = (
        "outside the workspace"
        if not lies_in(real, root)
        else "in git's own folder"
        if lies_in(real, root / ".git")
        else None
    )
    if where is not None:
        raise EvalsetError(
            f"{link}: is a symlink to {os.readlink(link)}, so `evalset schema --write` would "
            f"replace {real}, {where}; remove the link, {AGAIN}."
        )


def _current(path: Path) -> bytes | None:
    """The bytes of a schema file as it is (whatever their encoding: a file that is not the
    schema is replaced), None when there is none; EvalsetError, one sentence, when it is a
    folder, a named pipe, a socket or a device, or cannot be read."""
    from evalset.errors import EvalsetError
    from evalset.fsio import dangling_folder, not_a_file, read_found

    if path.is_dir():
        raise EvalsetError(
            f"{path}: is a folder, where `evalset schema --write` writes a schema; move or "
            f"rename it, {AGAIN}."
        )
    refused = not_a_file(path)
    if refused is not None:
        if refused.dangling:  # none there: the write goes through the link, as for any file
            return None
        # read, a named pipe would wait for a writer; written, for a reader
        raise EvalsetError(refused.sentence("schema file", f"remove it, {AGAIN}"))
    try:
        return read_found(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP and dangling_folder(path) is not None:
            return None  # a folder that is a loop of links: the write says so, and the fix
        raise EvalsetError(
            f"{path}: cannot be read ({exc.strerror}), so it cannot be compared with the schema "
            f"it should hold; make it readable, or delete it, {AGAIN}."
        ) from None
