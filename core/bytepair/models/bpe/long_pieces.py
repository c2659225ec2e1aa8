"""Long pieces (a run of 1 MB of one letter, spaces, emoji ...): encode by chunks, exactly.

Why it is exact. Call a token sequence *valid* if the merge rule (``apply_merges``) applied to its
bytes gives back that very sequence. Two facts hold for rank-greedy BPE with any vocabulary (see
github/rust-gems, crates/bpe, "Properties of BPE"): every contiguous part of a valid sequence is
valid, and two valid sequences that share a token at the seam join into a valid sequence. So if
the piece's chunks are encoded on their own and, at every seam, the pair (last token of the left
chunk, first token of the right chunk) is itself valid, i.e. ``apply_merges(left + right) == [left,
right]``, the concatenation *is* BPE of the whole piece. (By induction: a sequence is valid exactly
when every adjacent pair in it is.) A piece that is itself a token is that token (as in tiktoken);
``encode`` looks that up first, so the rest only has to follow the merge rule.

Why it is fast. Chunks repeat (a run of one letter, a small emoji alphabet), so they come from the
piece cache in C; seam checks are remembered per token pair (the model's ``pair_check.PairCheck``,
whose split tables answer a new pair without merging it) and also run in C. Five ways are tried:

1. 128-character chunks, when they repeat and every seam holds (a run of one letter, of spaces, of
   ``"\r\n"`` in a vocabulary that keeps every byte apart).
2. Rank by rank over the whole piece, for pieces of a few distinct bytes whose tokens are few
   (``models/bpe/small_alphabet.py``: whitespace in GPT-2's vocabularies, where it beats the next way: 7 ms
   against 97 ms for 250 kB of random spaces and newlines).
3. Single characters (a small alphabet of multi-byte characters), when nearly every seam holds; a
   seam that fails is repaired by re-encoding a few tokens on both sides of it, left to right, each
   token copied once.
4. Sides between places no token reaches across, for pieces that do not repeat (``models/bpe/piece_cuts.py``:
   no merge can join the bytes on either side of such a place, so merging each side on its own is
   merging the whole piece). A random mix of spaces, tabs, CR, LF, NBSP and U+3000 has such places
   every few bytes; its sides are short and repeat, so they come from a cache in C. A longer side
   is first tried as its runs of one character, joined where their seams hold. Where the distinct
   sides would still hold most of the piece (a run of spaces and newlines has no such place), the
   rank-by-rank merge of step 2 is tried first over its larger closure. (A periodic piece is left
   to stitching, whose chunks repeat whole: cheaper than many small sides.)
5. Stitching (mixed runs such as ``"    \\n" * n``, where a chunk cut at an arbitrary character
   starts out of step with the piece's own tokens), and anything that does not repeat: left to
   right, each chunk of bytes starts where the tokens kept so far end, keeps all its tokens but the
   last two (which may change with what follows), and hands back a few kept tokens when its first
   seam fails. Chunks of a periodic run thus start in step and repeat, so they come from a cache.
   Work is linear in the piece.

If all fail (seams that keep failing however far they are widened), the piece is handed to
the O(n log n) heap merge, which needs no such luck.

The same rule, seen from the other side, lets many short pieces be merged as one
(:meth:`LongPieceEncoder.encode_many`): joined by a byte that no token holds with another byte, no
merge crosses a join, so ways 2 and 4-6 serve a block of new pieces of a few distinct bytes at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, compress
from operator import itemgetter, not_
from typing import TYPE_CHECKING

from .merge import apply_merges
from .pair_check import PairCheck
from .piece_cuts import MAX_DISTINCT_BYTES, PieceCuts, distinct_bytes
from .small_alphabet import MANY_SPLITS, SmallAlphabetMerge

if TYPE_CHECKING:  # pragma: no cover
    from ..piece_cache import PieceCache

__all__ = ["LONG_PIECE_CHARS", "LongPieceEncoder"]

CharMerge = Callable[[str, bytes], "Sequence[int] | None"]

LONG_PIECE_CHARS = 256
"""Pieces longer than this (in characters) take the chunked path."""

_CHUNK_CHARS = 128  # 128 spaces is one token, so a space run's chunks are single cached tokens
_SINGLE_CHAR_TOLERANCE = 1 / 16  # share of failing seams worth repairing in single-character chunks
_SAMPLE_CHARS = 4096
_MAX_REPAIR_TOKENS = 512  # a repair window wider than this means chunking does not suit the piece
_REPAIR_BUDGET = 4  # repairs may re-merge at most this many tokens per token of the piece
_STITCH_BYTES = 1024  # a stitched chunk; well above the longest token (128 bytes in OpenAI's vocabularies)
_STITCH_DROP = 2  # tokens dropped from a stitched chunk's end: they may merge with what follows
_MAX_HAND_BACK = _STITCH_BYTES // 4  # bytes a failing stitch may hand back before giving up
_MAX_CACHED_CHUNKS = 1024
_SHORT_SIDE = 6
_RUN_SIDE = 16  # sides longer than this are first tried as runs of one character
_MOSTLY_NEW = 0.4
"""Distinct sides holding more than this share of a piece (whose sides average over ``_SHORT_SIDE``
bytes) make the larger rank-by-rank closure worth a try. Measured on 250 kB whitespace inputs, that
merge against the sides (cl100k / o200k, ms): units of whitespace (44% / 77% of the piece in
distinct sides) 71 / 63 against 126 / 182; runs of one character (34% / 60%) 129 / 93 against
117 / 130; random mixes (15-20%, sides of 2-3 bytes) 94 / 92 against 59 / 78; spaces with newlines
(no place to cut) 123 / 99 against 283 by stitching."""
_last = itemgetter(-1)
_first = itemgetter(0)


class _StitchChunks(dict[bytes, tuple[tuple[int, ...], int]]):
    """Chunk bytes -> (its tokens but the last ``_STITCH_DROP``, their length in bytes).

    At least the first token is kept, so stitching always moves on. Keys are bytes because a
    stitch may start inside a character (a token may end there).
    """

    def __init__(self, ranks: dict[bytes, int], token_bytes: list[bytes]) -> None:
        super().__init__()
        self._ranks = ranks
        self._bytes = token_bytes

    def __missing__(self, chunk: bytes) -> tuple[tuple[int, ...], int]:
        ids = apply_merges(chunk, self._ranks)
        kept = tuple(ids[: max(1, len(ids) - _STITCH_DROP)])
        value = (kept, sum(map(len, map(self._bytes.__getitem__, kept))))
        if len(self) >= _MAX_CACHED_CHUNKS:
            self.clear()
        self[chunk] = value
        return value


class _Sides(dict[bytes, tuple[int, ...]]):
    """Bytes between two cuts no token reaches across -> their ids (merged alone, no whole-token
    shortcut); looked up in C for the sides seen before.

    A side longer than ``_RUN_SIDE`` bytes is first tried as its runs of one repeated character
    (``"\\t" * 12``, ``"\\n" * 3`` ...), each from this same cache: if every seam between them holds,
    their ids joined are the side's (the rule of the module docstring). Runs repeat where sides do
    not (random runs of whitespace: 77% of o200k's distinct side bytes were assembled so)."""

    def __init__(self, ranks: dict[bytes, int], pairs: PairCheck, char_merge: CharMerge | None = None) -> None:
        super().__init__()
        self._ranks = ranks
        self._pairs = pairs
        self._char_merge = char_merge
        self.try_runs = False
        """Set by the encoder for pieces of a few distinct bytes (whitespace), whose characters come
        in runs; in random letters runs are single letters and the try would only cost."""

    def __missing__(self, side: bytes) -> tuple[int, ...]:
        ids = self._from_runs(side) if self.try_runs and len(side) > _RUN_SIDE else None
        if ids is None and self._char_merge is not None and not side.isascii():
            ids = self._from_characters(side)
        if ids is None:
            ids = tuple(apply_merges(side, self._ranks))
        if len(side) <= 64:
            if len(self) >= 1 << 16:
                self.clear()
            self[side] = ids
        return ids

    def _from_characters(self, side: bytes) -> tuple[int, ...] | None:
        """The model's merge from whole characters (``models/bpe/char_merge.py``; it declines where it cannot
        vouch for the result, or where the side is not mostly multi-byte), for a side that is text
        (a cut may fall inside a character). CJK with Latin, o200k: 33,000 of the 61,000 distinct
        sides of 500,000 random characters hold CJK; each character built whole saves two merges."""
        try:
            text = side.decode("utf-8")
        except UnicodeDecodeError:
            return None
        ids = self._char_merge(text, side)  # type: ignore[misc]
        return None if ids is None else tuple(ids)

    def _from_runs(self, side: bytes) -> tuple[int, ...] | None:
        runs = list(map(_first, _RUNS.findall(side)))
        if len(runs) < 2 or sum(map(len, runs)) != len(side):
            return None
        encoded = list(map(self.__getitem__, runs))
        if all(self._pairs.each_apart(map(_last, encoded), map(_first, encoded[1:]))):
            return tuple(chain.from_iterable(encoded))
        return None


# Maximal runs of one repeated UTF-8 character: findall gives (run, character) pairs.
_RUNS = re.compile(rb"(([\x00-\x7f]|[\xc0-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf7][\x80-\xbf]{3})\2*)")


def _periodic(data: bytes) -> bool:
    """Whether ``data`` looks periodic (its first kilobyte comes again within the next three).

    >>> _periodic(b"\\n \\n" * 2000), _periodic(bytes(range(256)) * 4 + b"x" * 4000)
    (True, False)
    """
    head = data[:1024]
    return len(head) == 1024 and data.find(head, 1, 4096) > 0


def _fixed_chunks(text: str, size: int) -> list[str]:
    """``text`` cut every ``size`` characters."""
    return list(map(text.__getitem__, map(slice, range(0, len(text), size), range(size, len(text) + size, size))))


class LongPieceEncoder:
    """Encodes pieces longer than ``LONG_PIECE_CHARS`` from chunks with verified seams."""

    def __init__(
        self,
        cache: PieceCache,
        ranks: dict[bytes, int],
        token_bytes: list[bytes],
        char_merge: CharMerge | None = None,
        pairs: PairCheck | None = None,
    ) -> None:
        """``char_merge(text, its UTF-8 bytes)``, if given, is the model's exact merge rule from whole
        characters (``char_merge.LazyCharMerge.merge``: ids, or None where it declines); ``pairs``
        the model's pair check (``models/bpe/pair_check.py``), whose memo the seams share (one without split
        tables if not given)."""
        self._cache = cache
        self._ranks = ranks
        self._bytes = token_bytes
        self._pairs = pairs if pairs is not None else PairCheck(ranks, token_bytes)
        self._chunks = _StitchChunks(ranks, token_bytes)
        self._longest_token = -1  # bytes; found on the first long piece, not at start-up
        self._cuts = PieceCuts(ranks, token_bytes)
        self._sides = _Sides(ranks, self._pairs, char_merge)
        self._few_bytes = SmallAlphabetMerge(ranks)
        self.stats = {"merged_bytes": 0, "stitches": 0, "hand_backs": 0}
        """Work done beyond cache hits, for tests that check it grows linearly (not wall time)."""

    def clear(self) -> None:
        """Forget checked seams, stitched chunks and sides (benchmarks measure a cold start). Tables
        that depend on the vocabulary alone (the cut tables, the rank-by-rank plans per set of
        bytes) are kept, as the ranks are."""
        self._pairs.known.clear()
        self._chunks.clear()
        self._sides.clear()

    def _seam_checks(self, encoded: list[tuple[int, ...]]) -> list[bool]:
        return list(self._pairs.each_apart(map(_last, encoded), map(_first, encoded[1:])))

    def encode(self, piece: str) -> tuple[int, ...]:
        if self._longest_token < 0:
            self._longest_token = max(map(len, self._ranks), default=0)
        if len(piece) <= self._longest_token and (rank := self._ranks.get(piece.encode("utf-8"))) is not None:
            return (rank,)
        get = self._cache.__getitem__
        # 1. Fixed chunks, if they repeat (a periodic run: each distinct chunk is merged once) and
        # every seam holds.
        sample = _fixed_chunks(piece[:_SAMPLE_CHARS], _CHUNK_CHARS)
        if len(set(sample)) * 2 <= len(sample) and all(self._seam_checks(list(map(get, sample)))):
            encoded = list(map(get, _fixed_chunks(piece, _CHUNK_CHARS)))
            if all(self._seam_checks(encoded)):
                return tuple(chain.from_iterable(encoded))
        data = piece.encode("utf-8")
        # 2. A few distinct bytes whose tokens are few (whitespace in GPT-2's vocabularies): rank by
        # rank over the whole piece.
        ids = self._few_bytes.encode(data)
        if ids is not None:
            return tuple(ids)
        # 3. Single characters, if nearly every seam holds in a sample.
        sample_seams = self._seam_checks(list(map(get, piece[:_SAMPLE_CHARS])))
        if sample_seams.count(False) <= len(sample_seams) * _SINGLE_CHAR_TOLERANCE:
            encoded = list(map(get, piece))
            seams = self._seam_checks(encoded)
            if all(seams):
                return tuple(chain.from_iterable(encoded))
            if seams.count(False) <= len(seams) * _SINGLE_CHAR_TOLERANCE:
                repaired = self._repair(encoded, seams)
                if repaired is not None:
                    return repaired
        return self._from_bytes(data)

    def encode_many(self, pieces: Sequence[str]) -> list[tuple[int, ...]] | None:
        """The ids of many short pieces, as ``encode_piece`` gives them, merged together as one.

        The pieces that are not tokens are joined by the cuts' separator byte, which no multi-byte
        token holds and no UTF-8 text does: no merge crosses it, so the joined bytes' ids are each
        piece's ids with the separator's id between them (the rule of the module docstring, seen
        from the other side). Pays where the pieces share a few distinct bytes (a block of random
        combining marks: 15,000 new pieces of ~20 bytes each): one rank-by-rank merge of the joined
        bytes (way 2) instead of a Python merge per piece. None where the vocabulary has no such
        byte, or where the joined bytes take neither way 2 nor cuts (the caller then merges the
        pieces one by one).

        >>> from bytepair import get_encoding
        >>> engine = get_encoding("cl100k_base").engine
        >>> pieces = ["\u0301\u0308", "e", "\u0323\u0301\u0301"]
        >>> engine.cache.long_pieces.encode_many(pieces)
        [(54939, 136, 230), (68,), (136, 96, 54939, 54939)]
        >>> _ == [engine.model.encode_piece(piece) for piece in pieces]
        True
        """
        sep = self._cuts.separator
        sep_id = None if sep is None else self._ranks.get(bytes((sep,)))
        if sep_id is None:
            return None
        get = self._ranks.get
        datas = [piece.encode("utf-8", "surrogatepass") for piece in pieces]
        whole = list(map(get, datas))
        apart = [data for data, rank in zip(datas, whole) if rank is None]
        if not apart:
            return [(rank,) for rank in whole]  # type: ignore[misc]
        joined = bytes((sep,)).join(apart)
        if joined.count(sep) != len(apart) - 1:  # pragma: no cover - UTF-8 never holds the separator
            return None
        ids = self._few_bytes.encode(joined)
        if ids is None:
            if distinct_bytes(joined, MAX_DISTINCT_BYTES) is None:
                return None
            ids = list(self._from_bytes(joined))
        flat = tuple(ids)  # slices of a tuple are the tuples the cache keeps
        ends = []
        index = flat.index
        end = -1
        for _ in range(len(apart) - 1):
            end = index(sep_id, end + 1)
            ends.append(end)
        parts = map(flat.__getitem__, map(slice, [0, *map((1).__add__, ends)], [*ends, len(flat)]))
        return [(rank,) if rank is not None else next(parts) for rank in whole]

    def _from_bytes(self, data: bytes) -> tuple[int, ...]:
        """Ways 4 to 6 of the module docstring (they need only the piece's bytes)."""
        # 4. Sides between places no token reaches across; but where their distinct sides would
        # leave most of the piece to merge (a run of spaces and newlines has no such places), rank
        # by rank over a larger closure first.
        periodic = _periodic(data)
        cuts = [] if periodic else self._cuts.cuts(data)
        sides = list(map(data.__getitem__, map(slice, [0, *cuts], [*cuts, len(data)]))) if cuts else []
        # (Sides of _SHORT_SIDE bytes or fewer on average never leave much of the piece to merge.)
        few = not periodic and len(cuts) * _SHORT_SIDE < len(data)
        if few and sum(map(len, set(sides) if sides else [data])) > _MOSTLY_NEW * len(data):
            ids = self._few_bytes.encode(data, MANY_SPLITS)
            if ids is not None:
                return tuple(ids)
        if cuts:
            self._sides.try_runs = self._few_bytes.alphabet(data) is not None
            return tuple(chain.from_iterable(map(self._sides.__getitem__, sides)))
        # 5. Stitching; 6. the heap merge.
        stitched = self._stitch(data)
        if stitched is not None:
            return stitched
        self.stats["merged_bytes"] += len(data)
        return tuple(apply_merges(data, self._ranks))

    def _repair(self, encoded: list[tuple[int, ...]], seams: list[bool]) -> tuple[int, ...] | None:
        """Make every failing seam hold by re-encoding a window of tokens around it.

        A token sequence is valid exactly when each adjacent pair is, so replacing a window by
        its own merge keeps everything valid once the window's two outer seams hold; the window
        widens until they do. Seams are repaired left to right: ``out`` holds the settled tokens
        and a window takes its left half off ``out``'s end, so no token is moved twice. Returns
        None if a window would exceed ``_MAX_REPAIR_TOKENS`` or repairs exceed their budget.
        """
        tokens = list(chain.from_iterable(encoded))
        seam_at = accumulate(map(len, encoded[:-1]))  # flat index of each chunk seam
        apart, token_bytes, ranks = self._pairs.apart, self._bytes.__getitem__, self._ranks
        budget = _REPAIR_BUDGET * len(tokens)
        out: list[int] = []
        done = 0  # tokens[:done] are settled in out
        for p in compress(seam_at, map(not_, seams)):
            if p <= done:
                continue  # inside the last window, or its right seam, which was checked
            out += tokens[done:p]
            done, width = p, 2
            while True:
                left, hi = min(width, len(out)), min(done + width, len(tokens))
                budget -= left + hi - done
                if budget < 0:
                    return None
                window = b"".join(map(token_bytes, chain(out[len(out) - left :], tokens[done:hi])))
                self.stats["merged_bytes"] += len(window)
                ids = apply_merges(window, ranks)
                if (left == len(out) or apart(out[-left - 1], ids[0])) and (hi == len(tokens) or apart(ids[-1], tokens[hi])):
                    break
                width *= 2
                if width > _MAX_REPAIR_TOKENS:
                    return None
            del out[len(out) - left :]
            out += ids
            done = hi
        out += tokens[done:]
        return tuple(out)

    def _stitch(self, data: bytes) -> tuple[int, ...] | None:
        """BPE of ``data`` from chunks that each start where the tokens kept so far end.

        Each chunk's kept tokens are a contiguous part of a valid sequence, hence valid; the seam
        to the tokens before is checked. When it fails, tokens are handed back from the end (1, 2,
        4 ... of them) and the chunk starts that much earlier, so that it encodes the seam's
        surroundings itself. Returns None if more than ``_MAX_HAND_BACK`` bytes would be handed
        back for one seam, or after ``_stitch_steps(len(data))`` chunks: the work stays linear even
        for vocabularies whose tokens are as long as a chunk. (With tokens of at most 128 bytes each
        accepted chunk moves the end of the kept tokens on by at least 1024 - 2 * 128 - 256 bytes,
        so that bound is never reached.)
        """
        n, size = len(data), _STITCH_BYTES
        steps = _stitch_steps(n)
        chunks, apart, token_bytes = self._chunks, self._pairs.apart, self._bytes.__getitem__
        stats = self.stats
        out: list[int] = []
        pos = hand_back = handed = 0
        while steps:
            steps -= 1
            stats["stitches"] += 1
            if n - pos <= size:
                kept, length = tuple(apply_merges(data[pos:], self._ranks)), n - pos
                stats["merged_bytes"] += length
            else:
                if (chunk := data[pos : pos + size]) not in chunks:
                    stats["merged_bytes"] += size
                kept, length = chunks[chunk]
            if not out or apart(out[-1], kept[0]):
                out += kept
                pos += length
                if pos >= n:
                    return tuple(out)
                hand_back = handed = 0
                continue
            hand_back = min(max(1, 2 * hand_back), len(out))
            given = sum(map(len, map(token_bytes, out[len(out) - hand_back :])))
            handed += given
            if handed > _MAX_HAND_BACK:
                return None
            stats["hand_backs"] += 1
            del out[len(out) - hand_back :]
            pos -= given
        return None


def _stitch_steps(n_bytes: int) -> int:
    """Most chunks stitching may take for ``n_bytes``: a few per chunk's worth, plus slack for short inputs."""
    return 64 + 8 * (n_bytes // _STITCH_BYTES)
