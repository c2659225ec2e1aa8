"""The ``.tiktoken`` text format: one ``base64(token_bytes) rank`` line per token.

Why a strict reader: a truncated download or a hand-edited file must fail loudly with the line at
fault, never load a vocabulary that silently gives other ids.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os

from ..errors import VocabFormatError, VocabHashMismatchError

__all__ = ["check_sha256", "dump_tiktoken_bpe", "load_tiktoken_bpe", "parse_tiktoken_bpe"]


def check_sha256(data: bytes, expected_hash: str | None, origin: str) -> None:
    """Raise :class:`VocabHashMismatchError` if ``data`` does not hash to ``expected_hash``."""
    if expected_hash is None:
        return
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_hash.lower():
        raise VocabHashMismatchError(
            f"{origin}: sha256 is {actual}, expected {expected_hash}. The file is corrupt, truncated "
            "or a different vocabulary; download it again or pass the hash of the file you mean."
        )


def parse_tiktoken_bpe(data: bytes, *, origin: str = "tiktoken data") -> dict[bytes, int]:
    """Parse ``.tiktoken`` bytes into token bytes -> rank, rejecting malformed or duplicate entries.

    >>> parse_tiktoken_bpe(b"YQ== 0\\nYg== 1\\n")
    {b'a': 0, b'b': 1}
    """
    ranks: dict[bytes, int] = {}
    seen_ranks: set[int] = set()
    a2b = binascii.a2b_base64
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            if len(fields) != 2:
                raise ValueError("expected 2 fields")
            token = a2b(fields[0], strict_mode=True)
            rank = int(fields[1])
            if not 0 <= rank < 1 << 32 or not token:
                raise ValueError("a rank outside 0..2**32-1, or an empty token")
        except (ValueError, binascii.Error) as exc:
            raise VocabFormatError(
                f"{origin}, line {lineno}: not 'base64 rank' ({exc}): {line[:80]!r}. "
                "The file is corrupt or not in .tiktoken format."
            ) from None
        if token in ranks:
            raise VocabFormatError(f"{origin}, line {lineno}: token {token!r} appears twice")
        if rank in seen_ranks:
            raise VocabFormatError(f"{origin}, line {lineno}: rank {rank} is given to two tokens")
        ranks[token] = rank
        seen_ranks.add(rank)
    if not ranks:
        raise VocabFormatError(f"{origin} holds no tokens: it is empty or truncated")
    return ranks


def load_tiktoken_bpe(path: str | os.PathLike[str], expected_hash: str | None = None) -> dict[bytes, int]:
    """Load a ``.tiktoken`` file from disk, optionally checking its sha256 first."""
    with open(path, "rb") as f:
        data = f.read()
    check_sha256(data, expected_hash, str(path))
    return parse_tiktoken_bpe(data, origin=str(path))


def dump_tiktoken_bpe(ranks: dict[bytes, int]) -> bytes:
    """The ``.tiktoken`` text of ``ranks``, one ``base64(token) rank`` line each, by rank (as
    tiktoken's own ``dump_tiktoken_bpe`` writes it).

    >>> dump_tiktoken_bpe({b"b": 1, b"a": 0})
    b'YQ== 0\\nYg== 1\\n'
    """
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in sorted(ranks.items(), key=lambda item: item[1]))
