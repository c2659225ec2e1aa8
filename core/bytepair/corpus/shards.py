"""Token shards on disk: packing documents' ids into ``shard_00000.bin``, ..., the ``manifest.json``
that lists the complete ones, and where a killed run starts again.

Why a module of its own: the layout is the contract readers rely on (nanoGPT-style raw little-endian
ids, read back with ``numpy.memmap(path, dtype=manifest["dtype"])``), and it must come out
byte-identical however the ids were made. So the packing is one sequential rule, applied in the
process that owns the folder to ids the workers wrote (``.parts/``), in document order:

- a document goes into the current shard if it fits in ``shard_tokens``, else the shard is closed
  and a new one started;
- a document longer than ``shard_tokens`` alone starts a new shard and fills as many as it needs.

A shard's ``"documents"`` counts the documents that *end* in it, so the counts add up to the
corpus's documents: a shard holding only the middle of a split document says ``0``, and the shard
where that document ends counts it.

A long document may arrive in parts (``encode_corpus`` cuts one big file across the workers): its
ids are held in their part files until its end has come or it no longer fits the current shard
(then the shard is closed and the document streamed into new ones), which lays it out exactly as
if it had come whole: held ids never exceed one shard.

A shard enters the manifest when it is closed (the manifest is replaced atomically), so after a
kill the manifest lists only complete shards. A resumed run keeps those up to the last that ends
with a document's end (its last id is the end-of-text id, which ordinary text never yields) and
redoes the rest from the next document: the packing from an empty shard at a document boundary is
the same as in an uninterrupted run.

>>> import tempfile, os
>>> from array import array
>>> folder = tempfile.mkdtemp()
>>> part = os.path.join(folder, "part")
>>> array("H", [1, 2, 9, 3, 9, 4, 5, 6, 9]).tofile(open(part, "wb"))
>>> closed = []
>>> writer = ShardWriter(folder, 0, 4, "uint16", closed.append)
>>> writer.add_part(part, [3, 2, 4])
>>> writer.finish()
>>> closed
[{'file': 'shard_00000.bin', 'tokens': 3, 'documents': 1}, {'file': 'shard_00001.bin', 'tokens': 2, 'documents': 1}, {'file': 'shard_00002.bin', 'tokens': 4, 'documents': 1}]

The same ids with the last document in two parts (``open_end``: it goes on in the next part):

>>> array("H", [1, 2, 9, 3, 9, 4]).tofile(open(part, "wb")); array("H", [5, 6, 9]).tofile(open(part + "2", "wb"))
>>> closed.clear(); writer = ShardWriter(folder, 0, 4, "uint16", closed.append)
>>> writer.add_part(part, [3, 2, 1], open_end=True); writer.add_part(part + "2", [3]); writer.finish()
>>> [shard["tokens"] for shard in closed]
[3, 2, 4]
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from ..errors import CorpusMismatchError

__all__ = ["MANIFEST", "OPTIONS", "ShardWriter", "itemsize", "read_json", "resume_point", "shard_name", "write_json"]

MANIFEST = "manifest.json"
OPTIONS = ".encode_corpus.json"
"""The options a folder's shards were packed with (``shard_tokens``, ``jsonl_field``), beside the
manifest, so that a resumed run with other options is refused."""
_COPY = 1 << 22


def shard_name(index: int) -> str:
    """The file name of shard ``index``.

    >>> shard_name(7)
    'shard_00007.bin'
    """
    return f"shard_{index:05d}.bin"


def itemsize(dtype: str) -> int:
    return 2 if dtype == "uint16" else 4


def write_json(path: str, value: Any) -> None:
    """Write JSON to ``path`` all at once (a temporary file moved over it)."""
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise CorpusMismatchError(f"{path} is not readable JSON ({exc}); remove the folder's files or pick another -o") from None


class ShardWriter:
    """Packs documents' ids into shards (the rule in the module docstring), calling ``on_close`` with
    each closed shard's manifest entry."""

    def __init__(self, folder: str, first_index: int, shard_tokens: int, dtype: str,
                 on_close: Callable[[dict[str, Any]], None]) -> None:
        self.folder, self.index, self.limit = folder, first_index, shard_tokens
        self.itemsize = itemsize(dtype)
        self.on_close = on_close
        self.tokens = self.documents = 0
        self._out: BinaryIO | None = None
        self._held: list[tuple[str, int, int]] = []  # (part file, byte offset, ids) of an unfinished document
        self._held_tokens = 0
        self._streaming = False  # the unfinished document is being copied into shards as it comes

    def add_part(self, part: str, counts: Sequence[int], *, open_end: bool = False) -> None:
        """Append the documents of a part file (their ids one after another; ``counts``: how many
        ids each has, its end-of-text included), then remove the part. The first count goes on with
        a document an earlier part left open; ``open_end``: the last count is the start of a document
        that goes on in the next part (its ids are held, or streamed once it cannot fit)."""
        offset = 0
        with open(part, "rb") as src:
            for at, n in enumerate(counts):
                ends = at < len(counts) - 1 or not open_end
                if self._held or self._streaming or not ends:
                    self._add_piece(part, offset, n, ends)
                else:
                    src.seek(offset)
                    self._add_document(src, n)
                offset += n * self.itemsize
        if not any(held == part for held, _, _ in self._held):
            os.remove(part)

    def finish(self) -> None:
        """Close the last shard, if it holds anything."""
        assert not (self._held or self._streaming), "the last part left a document open (open_end=True)"
        if self.tokens:
            self._close()

    def _add_document(self, src: BinaryIO, n: int) -> None:
        if self.tokens and self.tokens + n > self.limit:
            self._close()
        self._fill(src, n)
        self.documents += 1

    def _fill(self, src: BinaryIO, n: int) -> None:
        while n:
            if self.tokens == self.limit:
                self._close()
            take = min(n, self.limit - self.tokens)
            self._copy(src, take)
            self.tokens += take
            n -= take

    def _add_piece(self, part: str, offset: int, n: int, ends: bool) -> None:
        """A piece of a document that came in parts: held while the whole might still fit the current
        shard (so that it is placed as ``_add_document`` places a whole one), else streamed."""
        if not self._streaming:
            self._held.append((part, offset, n))
            self._held_tokens += n
            if self.tokens + self._held_tokens <= self.limit and not ends:
                return
            if ends and (not self.tokens or self.tokens + self._held_tokens <= self.limit):
                self._copy_held()  # it fits as one document would
                self.documents += 1
                return
            if self.tokens:  # it cannot fit: a whole document would start a new shard here
                self._close()
            self._streaming = True
            self._copy_held()
        else:
            with open(part, "rb") as src:
                src.seek(offset)
                self._fill(src, n)
        if ends:
            self._streaming = False
            self.documents += 1

    def _copy_held(self) -> None:
        held, self._held, self._held_tokens = self._held, [], 0
        for path, offset, n in held:
            with open(path, "rb") as src:
                src.seek(offset)
                self._fill(src, n)
        for path in {path for path, _, _ in held}:
            if path != held[-1][0]:
                os.remove(path)  # the last one is removed by add_part once read to its end

    def _copy(self, src: BinaryIO, tokens: int) -> None:
        if self._out is None:
            self._out = open(os.path.join(self.folder, shard_name(self.index)), "wb")
        left = tokens * self.itemsize
        while left:
            data = src.read(min(left, _COPY))
            if not data:
                raise OSError(f"a part file ended early ({left} bytes missing): the disk may be full")
            self._out.write(data)
            left -= len(data)

    def _close(self) -> None:
        assert self._out is not None
        self._out.flush()
        os.fsync(self._out.fileno())
        self._out.close()
        self._out = None
        self.on_close({"file": shard_name(self.index), "tokens": self.tokens, "documents": self.documents})
        self.index += 1
        self.tokens = self.documents = 0


def resume_point(folder: str, header: dict[str, Any], options: dict[str, Any]) -> list[dict[str, Any]]:
    """The complete shards of an earlier run into ``folder`` that this run keeps ([] for a new
    folder); :class:`CorpusMismatchError` if that run had other inputs, tokenizer or options."""
    manifest = read_json(os.path.join(folder, MANIFEST))
    if manifest is None:
        return []
    before = {**{key: manifest.get(key) for key in header}, **(read_json(os.path.join(folder, OPTIONS)) or {})}
    now = {**header, **options}
    changed = [key for key in now if before.get(key) != now[key]]
    if changed:
        what = {"inputs": "the inputs (their paths, sizes or contents)", "tokenizer": "the tokenizer",
                "dtype": "the tokenizer's id width", "eot": "the end-of-text id"}
        named = ", ".join(what.get(key, key) for key in changed)
        raise CorpusMismatchError(
            f"{folder} holds shards of another run: {named} changed since. Its shards would not mix with "
            "this run's; give another output folder, or delete this one to start over")
    size = itemsize(header["dtype"])
    kept: list[dict[str, Any]] = []
    for shard in manifest.get("shards", []):
        path = os.path.join(folder, shard["file"])
        if shard["file"] != shard_name(len(kept)) or not os.path.isfile(path) or os.path.getsize(path) != shard["tokens"] * size:
            break
        kept.append(shard)
    while kept and _last_id(os.path.join(folder, kept[-1]["file"]), size) != header["eot"]:
        kept.pop()  # it ends inside a document: redo that document whole
    return kept


def _last_id(path: str, size: int) -> int:
    with open(path, "rb") as f:
        f.seek(-size, os.SEEK_END)
        return array("H" if size == 2 else "I", f.read(size))[0]
