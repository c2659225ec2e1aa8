"""Writing files so that a failed save leaves nothing half-written on disk.

Why: a tokenizer file cut short by a full disk, a crash or a token the format cannot hold loads
later as a *different* tokenizer, or not at all. Every saver in bytepair builds the whole content in
memory first (so a format error raises before the disk is touched), then writes each file to a
temporary name in the target folder and moves it into place with ``os.replace`` (atomic on POSIX
and Windows within one folder). If anything fails, the temporary files are removed and the old
files, if any, are left as they were.

A save of several files (``vocab.json`` + ``merges.txt``) writes all temporary files before moving
any into place, so a failure while writing leaves none of them changed.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> [os.path.basename(p) for p in write_files({os.path.join(folder, "a.txt"): b"hello"})]
['a.txt']
>>> sorted(os.listdir(folder))
['a.txt']
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Mapping
from typing import BinaryIO

__all__ = ["write_file", "write_files"]

_MODE = 0o644


def _write_all(f: BinaryIO, data: bytes) -> None:
    """Write ``data`` to ``f`` (its own function so tests can make it fail midway)."""
    f.write(data)


def write_files(files: Mapping[str | os.PathLike[str], bytes]) -> list[str]:
    """Write each ``path: content`` atomically; returns the paths written, in order."""
    staged: list[tuple[str, str]] = []
    try:
        for path, data in files.items():
            target = os.fsdecode(path)
            if not target or target.endswith(os.sep) or os.path.isdir(target):
                # Caught before a temporary file is made (an empty path would make it in the parent folder).
                raise IsADirectoryError(errno.EISDIR, "a file path is needed, not a folder" if target else "empty path", target)
            folder = os.path.dirname(os.path.abspath(target))
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
            except OSError as exc:  # name the file asked for, not the temporary one
                raise OSError(exc.errno, exc.strerror, target) from None
            staged.append((tmp, target))
            with os.fdopen(fd, "wb") as f:
                _write_all(f, data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, _MODE)
        for tmp, target in staged:
            try:
                os.replace(tmp, target)
            except OSError as exc:  # name the file asked for, not the temporary one
                raise OSError(exc.errno, exc.strerror, target) from None
    except BaseException:
        for tmp, _ in staged:
            try:
                os.remove(tmp)
            except FileNotFoundError:
                pass
        raise
    return [target for _, target in staged]


def write_file(path: str | os.PathLike[str], data: bytes) -> str:
    """Write one file atomically (see :func:`write_files`); returns its path."""
    return write_files({path: data})[0]
