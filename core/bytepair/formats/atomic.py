"""Writing files so that a failed or interrupted save leaves the old files or the new ones, never a mix.

Why: a tokenizer file cut short by a full disk, a crash or a token the format cannot hold loads
later as a *different* tokenizer, or not at all. Every saver in bytepair builds the whole content in
memory first (so a format error raises before the disk is touched), then writes each file to a
temporary name in the target folder (``.NAME.<random>.tmp``), flushed to disk, and moves it into
place with ``os.replace`` (atomic on POSIX and Windows within one folder). If anything fails, the
temporary files are removed and the old files, if any, are left as they were.

A save of several files (``vocab.json`` + ``merges.txt``, minbpe's pair, ``save_pretrained``'s
folder) is a set: all temporary files are written first, then a small journal
(``.bytepair-save.json``: which temporary file becomes which file), then the moves, then the journal
goes. A process killed between two moves leaves the journal: the loaders call
:func:`finish_interrupted_save`, which completes the moves (every temporary file named there was
whole before the journal was written), so what loads is the new set; killed before the journal, the
old set is untouched. Temporary files a killed save left behind are removed by the next save into
that folder (once a minute old, so that a save running meanwhile keeps its own).

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> [os.path.basename(p) for p in write_files({os.path.join(folder, "a.txt"): b"hello", os.path.join(folder, "b.txt"): b"!"})]
['a.txt', 'b.txt']
>>> sorted(os.listdir(folder))
['a.txt', 'b.txt']
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import tempfile
import time
from collections.abc import Mapping
from typing import BinaryIO

from ..errors import VocabFormatError

__all__ = ["JOURNAL", "finish_interrupted_save", "settle", "write_file", "write_files"]

_MODE = 0o644
JOURNAL = ".bytepair-save.json"
"""The journal of a save of several files in progress (see the module docstring)."""
_STALE_SECONDS = 60
_TEMPORARY = re.compile(r"\A\..+\.[A-Za-z0-9_]{6,12}\.tmp\Z")


def _write_all(f: BinaryIO, data: bytes) -> None:
    """Write ``data`` to ``f`` (its own function so tests can make it fail midway)."""
    f.write(data)


def _move(source: str, target: str) -> None:
    """``os.replace`` (its own function so tests can stop a save between two moves)."""
    os.replace(source, target)


def write_files(files: Mapping[str | os.PathLike[str], bytes]) -> list[str]:
    """Write each ``path: content`` atomically, all of them as one set (see the module docstring:
    several files must share a folder); returns the paths written, in order."""
    targets = [_target(path) for path in files]
    folders = {os.path.dirname(os.path.abspath(t)) for t in targets}
    if len(targets) > 1 and len(folders) > 1:
        raise ValueError(f"a save of several files writes them into one folder, not {len(folders)}: {targets}")
    for folder in folders:
        finish_interrupted_save(folder)
        _remove_stale_temporaries(folder)
    staged: list[tuple[str, str]] = []
    journal = None
    try:
        for target, data in zip(targets, files.values()):
            staged.append((_stage(target, data), target))
        if len(staged) > 1:
            journal = _write_journal(next(iter(folders)), staged)
        for tmp, target in staged:
            try:
                _move(tmp, target)
            except OSError as exc:  # name the file asked for, not the temporary one
                raise OSError(exc.errno, exc.strerror, target) from None
    except BaseException:
        if journal is None:  # nothing moved yet: the old set stays
            for tmp, _ in staged:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(tmp)
        else:  # some moved: complete the set (every temporary file is whole) rather than leave a mix
            with contextlib.suppress(OSError):
                finish_interrupted_save(next(iter(folders)))
        raise
    if journal is not None:
        os.remove(journal)
        _sync_folder(os.path.dirname(journal))
    return targets


def write_file(path: str | os.PathLike[str], data: bytes) -> str:
    """Write one file atomically (see :func:`write_files`); returns its path."""
    return write_files({path: data})[0]


def finish_interrupted_save(folder: str | os.PathLike[str]) -> bool:
    """Complete a save of several files that was interrupted between its moves (its journal is still
    in ``folder``): the files it was writing take their new content. True if there was one."""
    journal = os.path.join(os.fspath(folder), JOURNAL)
    try:
        with open(journal, encoding="utf-8") as f:
            moves = json.load(f)["moves"]
    except FileNotFoundError:
        return False
    except (ValueError, KeyError, TypeError):  # a journal cut short: written before any move, so drop it
        os.remove(journal)
        return False
    for tmp_name, target_name in moves:
        tmp, target = os.path.join(os.fspath(folder), tmp_name), os.path.join(os.fspath(folder), target_name)
        if os.path.exists(tmp):
            os.replace(tmp, target)
    os.remove(journal)
    _sync_folder(os.fspath(folder))
    return True


def settle(path: str | os.PathLike[str]) -> None:
    """Before reading files a save of several may have written (``path``: one of them, or their
    folder): complete that save if it was interrupted, or say why it cannot be."""
    text = os.fspath(path)
    folder = text if os.path.isdir(text) else os.path.dirname(os.path.abspath(text))
    try:
        finish_interrupted_save(folder)
    except OSError as exc:
        raise VocabFormatError(
            f"{folder} holds a save that was interrupted ({JOURNAL}), and it cannot be completed here "
            f"({exc.strerror or exc}): load it where the folder is writable, or save it again"
        ) from None


def _target(path: str | os.PathLike[str]) -> str:
    target = os.fsdecode(path)
    if not target or target.endswith(os.sep) or os.path.isdir(target):
        # Caught before a temporary file is made (an empty path would make it in the parent folder).
        raise IsADirectoryError(errno.EISDIR, "a file path is needed, not a folder" if target else "empty path", target)
    return target


def _stage(target: str, data: bytes) -> str:
    """``data`` in a temporary file beside ``target``, flushed to disk; its path."""
    folder = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, target) from None
    try:
        with os.fdopen(fd, "wb") as f:
            _write_all(f, data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _MODE)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    return tmp


def _write_journal(folder: str, staged: list[tuple[str, str]]) -> str:
    moves = [[os.path.basename(tmp), os.path.basename(target)] for tmp, target in staged]
    journal = os.path.join(folder, JOURNAL)
    tmp = _stage(journal, json.dumps({"moves": moves}).encode("utf-8"))
    os.replace(tmp, journal)
    _sync_folder(folder)
    return journal


def _remove_stale_temporaries(folder: str) -> None:
    """Temporary files of ours (``.NAME.<random>.tmp``) older than a minute: what a killed save left."""
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if _TEMPORARY.match(entry.name) and entry.is_file() and now - entry.stat().st_mtime > _STALE_SECONDS:
                with contextlib.suppress(OSError):
                    os.remove(entry.path)


def _sync_folder(folder: str) -> None:
    """Flush a folder's entries (the renames) to disk, where the system allows it."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
