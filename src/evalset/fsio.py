"""Writing files so that a crash leaves the old content or the new, never a mix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str | bytes | list[bytes] | list[bytes | memoryview]) -> None:
    """Write ``text`` (UTF-8), bytes or a list of byte chunks to ``path`` via a temporary
    file in the same folder, fsync and rename."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(text, list):
                f.writelines(text)
            else:
                f.write(text.encode() if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def replace_cache(path: Path, data: bytes) -> None:
    """Replace a cache file whole: written beside it under a name of this process, then
    renamed over it, so readers see the old file or the new one. Not fsynced: a cache lost
    in a crash costs only speed."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
