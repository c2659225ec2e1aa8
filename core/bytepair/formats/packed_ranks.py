"""The compact rank format bytepair ships: token bytes in rank order, joined by a separator.

Why: parsing the official base64 ``.tiktoken`` text costs 0.1-0.3 s natively (more in the browser).
Here loading is one ``zlib.decompress``, one ``bytes.split`` and one ``dict(zip(...))``, all in C.

Layout of a ``.bpr`` file::

    BPR1\\n
    {"name": ..., "n_ranks": ..., "separator": "<hex>", "payload_sha256": ..., "source_sha256": ...,
     "char_fragments": {...}, "payload_coding": "zlib" | "raw",
     "merge_splits": {"length": ..., "sha256": ...}}\\n
    <merge splits, coded as the payload is (only if the header names them)>
    <payload, zlib-compressed or as it is>

The payload is ``separator.join(token_bytes for rank in range(n_ranks))`` with ``b""`` at ranks that
have no token (p50k_base has no rank 50256). The separator is chosen so that it occurs nowhere else,
which the writer checks by splitting again. ``source_sha256`` is the sha256 of the official file the
ranks came from; ``expand_to_tiktoken_text`` rebuilds that file byte for byte, so the claim can be
checked (tests do). ``char_fragments`` (absent in older files) holds the fragment tables of
``models/bpe/char_merge.py``, so that a process does not pass over the whole vocabulary to build them. ``merge_splits`` (absent
in older files, and where the merges do not rebuild every token) describes the split table of
``models/bpe/pair_check.py``, one byte per rank, stored before the payload: it takes a merge per token to work
out (~1 s for cl100k), so it is written once, here. This module only stores both tables: the rank
model computes them (``models.bpe.rank_model.pack_rank_file``) and reads them back.

``payload_coding`` is ``"zlib"`` where it is absent (the files in the package). The browser bundle
ships its files with a ``"raw"`` payload (:func:`with_raw_payload`): the server's Brotli copy of that
is smaller than zlib's (o200k: 762 kB against 971 kB), and the browser undoes it in native code.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from dataclasses import dataclass
from typing import Any

from ..errors import VocabFormatError, VocabHashMismatchError

__all__ = ["PackedRanks", "expand_to_tiktoken_text", "pack_ranks", "read_packed_ranks", "with_raw_payload"]

MAGIC = b"BPR1\n"


@dataclass(frozen=True)
class PackedRanks:
    """Decoded contents of a ``.bpr`` file."""

    header: dict[str, Any]
    tokens: list[bytes]
    """Token bytes indexed by rank; ``b""`` where a rank has no token."""
    splits: bytes | None = None
    """``models/bpe/pair_check.py``'s ``merge_splits`` of the tokens, or None where the file does not carry them."""

    def ranks(self) -> dict[bytes, int]:
        """Token bytes -> rank, validated: no duplicates."""
        ranks = dict(zip(self.tokens, range(len(self.tokens))))
        ranks.pop(b"", None)
        expected = len(self.tokens) - self.tokens.count(b"")
        if len(ranks) != expected:
            raise VocabFormatError(
                f"packed ranks {self.header.get('name')!r} hold {expected - len(ranks)} duplicate "
                "token(s); rebuild the file with build/fetch_encodings.py"
            )
        return ranks


    @property
    def char_fragments(self) -> dict[str, dict[str, str]] | None:
        """The fragment tables of ``models/bpe/char_merge.py``, as packed when the file was written
        (``unpack_fragments`` reads them), or None for a file written before they were."""
        return self.header.get("char_fragments")


def _choose_separator(tokens: list[bytes]) -> bytes:
    for first in range(255, -1, -1):
        for second in range(255, -1, -1):
            if first == second:
                continue  # two equal bytes overlap themselves and could split in the wrong place
            sep = bytes((first, second))
            if not any(sep in t for t in tokens):
                return sep
    raise VocabFormatError("no two-byte separator is free in this vocabulary")  # pragma: no cover


def pack_ranks(ranks: dict[bytes, int], *, name: str, source_sha256: str | None = None,
               char_fragments: dict[str, dict[str, str]] | None = None, merge_splits: bytes | None = None) -> bytes:
    """Serialise ``ranks`` (token bytes -> rank) to the ``.bpr`` format, with the model's tables
    precomputed from them (``models.bpe.rank_model.pack_rank_file`` computes and passes them)."""
    if not ranks:
        raise VocabFormatError("cannot pack an empty vocabulary")
    n_ranks = max(ranks.values()) + 1
    tokens = [b""] * n_ranks
    for token, rank in ranks.items():
        if not token:
            raise VocabFormatError("the empty byte string cannot be a token")
        if tokens[rank]:
            raise VocabFormatError(f"rank {rank} is given to two tokens")
        tokens[rank] = token
    sep = _choose_separator(tokens)
    raw = sep.join(tokens)
    if raw.split(sep) != tokens:  # pragma: no cover - guaranteed by the separator choice
        raise VocabFormatError("separator check failed")
    header = {
        "name": name,
        "n_ranks": n_ranks,
        "separator": sep.hex(),
        "source_sha256": source_sha256,
    }
    if char_fragments is not None:
        header["char_fragments"] = char_fragments
    return _file(header, zlib.compress(raw, 9), merge_splits, zlib.compress)


def _file(header: dict[str, Any], payload: bytes, splits: bytes | None = None, code: Any = bytes) -> bytes:
    """The file's bytes; ``splits`` (raw) are stored coded by ``code``, as the payload is."""
    header = {**header, "payload_sha256": hashlib.sha256(payload).hexdigest()}
    header.pop("merge_splits", None)
    section = b""
    if splits is not None:
        section = code(splits)
        header["merge_splits"] = {"length": len(section), "sha256": hashlib.sha256(section).hexdigest()}
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + section + payload


def with_raw_payload(data: bytes) -> bytes:
    """The same ``.bpr`` file with its payload stored as it is (``"payload_coding": "raw"``), checked
    first: for servers that compress it better on the way (see the module docstring).

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> packed = pack_ranks(ranks, name="tiny", merge_splits=bytes(257))
    >>> raw = with_raw_payload(packed)
    >>> read_packed_ranks(raw).tokens == read_packed_ranks(packed).tokens, len(raw) > len(packed)
    (True, True)
    """
    packed = read_packed_ranks(data)
    header = {**packed.header, "payload_coding": "raw"}
    return _file(header, bytes.fromhex(header["separator"]).join(packed.tokens), packed.splits)


def read_packed_ranks(data: bytes, *, origin: str = "packed ranks", check_hash: bool = True) -> PackedRanks:
    """Parse and verify a ``.bpr`` file; ``origin`` names it in error messages.

    ``check_hash=False`` skips the payload's sha256, for a caller that has already checked the whole
    file against a trusted hash (the browser runtime does, against its manifest). Structure is checked
    either way.
    """
    fix = "; reinstall bytepair or rebuild the file with build/fetch_encodings.py"
    if not data.startswith(MAGIC):
        raise VocabFormatError(f"{origin} is not a bytepair .bpr file (bad magic){fix}")
    end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : end])
        n_ranks = int(header["n_ranks"])
        sep = bytes.fromhex(header["separator"])
        expected_sha = header["payload_sha256"]
        splits_info = header.get("merge_splits")
        splits_length = 0 if splits_info is None else int(splits_info["length"])
        if not 0 <= splits_length <= len(data) - end - 1:
            raise ValueError(f"a merge-split section of {splits_length} bytes does not fit the file")
    except (ValueError, KeyError, TypeError) as exc:
        raise VocabFormatError(f"{origin} has a malformed header ({exc}){fix}") from None
    section = data[end + 1 : end + 1 + splits_length]
    payload = data[end + 1 + splits_length :]
    actual_sha = hashlib.sha256(payload).hexdigest() if check_hash else expected_sha
    if actual_sha != expected_sha:
        raise VocabHashMismatchError(
            f"{origin} is corrupt: payload sha256 {actual_sha} != {expected_sha}{fix}"
        )
    coding = header.get("payload_coding", "zlib")
    if coding not in ("raw", "zlib"):
        raise VocabFormatError(f"{origin} has a payload coding this bytepair does not know ({coding!r}){fix}")
    tokens = _decode(payload, coding, "payload", origin, fix).split(sep)
    if len(tokens) != n_ranks:
        raise VocabFormatError(f"{origin} holds {len(tokens)} tokens, header says {n_ranks}{fix}")
    splits = None
    if splits_info is not None:
        if check_hash and hashlib.sha256(section).hexdigest() != splits_info.get("sha256"):
            raise VocabHashMismatchError(f"{origin} is corrupt: its merge splits do not match their sha256{fix}")
        splits = _decode(section, coding, "merge-split section", origin, fix)
        if len(splits) != n_ranks:
            raise VocabFormatError(f"{origin} holds {len(splits)} merge splits, header says {n_ranks} ranks{fix}")
    return PackedRanks(header, tokens, splits)


def _decode(blob: bytes, coding: str, what: str, origin: str, fix: str) -> bytes:
    if coding == "raw":
        return blob
    try:
        return zlib.decompress(blob)
    except zlib.error as exc:
        raise VocabFormatError(f"{origin} {what} does not decompress ({exc}){fix}") from None


def expand_to_tiktoken_text(tokens: list[bytes]) -> bytes:
    """Rebuild the official ``.tiktoken`` text (``base64(token) rank`` lines) from ``tokens``."""
    b64 = base64.b64encode
    return b"".join(b64(t) + b" %d\n" % rank for rank, t in enumerate(tokens) if t)
