"""The public ``Encoding``: tiktoken's API over bytepair's pipeline.

Data flows one way: text -> lone-surrogate repair -> special-token scan -> pretokenization ->
piece cache / BPE merge -> ids; and back: ids -> token bytes -> UTF-8 text. Each stage lives in
the module named after it; this class only wires them together and checks arguments.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from os import PathLike
from random import Random
from typing import Any, BinaryIO, Literal

from .added_tokens.policy import AllowedSpecial, DisallowedSpecial, SpecialTokenPolicy
from .added_tokens.scan import SpecialTokenScanner
from .decoders.token_table import StreamDecoder, TokenTable
from .errors import COUNT_ADVICE, DECODE_ADVICE, ENCODE_ADVICE, InvalidInputError, InvalidTokenError, sized, too_large
from .models.bpe.char_merge import Fragments
from .models.bpe.merge import check_dropout
from .models.bpe.rank_model import RankModel, check_ranks, rank_ordered
from .pipeline.blocks import BlockCutter, TokenCounter, blocks_of
from .pipeline.engine import BLOCK_CHARS, Engine
from .pre_tokenizers.pattern import Pretokenizer
from .text.checks import SurrogateRepair, repair_surrogates, require_count, require_str, str_chunks
from .text.offsets import token_spans
from .text.reading import read_utf8_chunks
from .encoding_files import EncodingFiles
from .tiktoken_compat import TiktokenExtras

__all__ = ["AllowedSpecial", "DisallowedSpecial", "Encoding"]

# With a limit, blocks start this small and double: the answer is often known after a few kB.
_FIRSTBLOCK_CHARS = 1 << 12


class Encoding(TiktokenExtras, EncodingFiles):
    """A byte-level BPE encoding: pattern, mergeable ranks and special tokens.

    >>> from bytepair import get_encoding
    >>> enc = get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
    >>> enc.decode([15339, 1917])
    'hello world'
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
        _token_bytes: list[bytes] | None = None,
        _cuttable: bool = False,
        _char_fragments: Callable[[], Fragments | None] | None = None,
        _merge_splits: bytes | None = None,
    ) -> None:
        """Build an encoding, with tiktoken's constructor signature.

        ``mergeable_ranks`` maps token bytes to rank (= id); every single byte must be present.
        ``special_tokens`` maps special-token strings to ids that no mergeable token uses.
        """
        self.name = name
        self._pat_str = pat_str
        self._mergeable_ranks = mergeable_ranks
        self._special_tokens = dict(special_tokens)
        if _token_bytes is None:
            _token_bytes = rank_ordered(name, mergeable_ranks)
        check_ranks(name, mergeable_ranks, _token_bytes, self._special_tokens, explicit_n_vocab)
        self.max_token_value = max(len(_token_bytes) - 1, *self._special_tokens.values(), 0)
        self._special_set = frozenset(self._special_tokens)
        self._special_ids = frozenset(self._special_tokens.values())
        self._special_by_bytes = {text.encode("utf-8"): i for text, i in self._special_tokens.items()}
        self._table = TokenTable(name, _token_bytes, self._special_tokens)
        self._scanner = SpecialTokenScanner(self._special_tokens)
        self._policy = SpecialTokenPolicy(self._scanner)
        self.engine = Engine(RankModel(mergeable_ranks, _token_bytes, _char_fragments, _merge_splits), Pretokenizer(pat_str, cuttable=_cuttable))
        """The stages ordinary text goes through (pattern split, ranks, piece cache), shared with the
        incremental encoder, the browser bridge and ``Tokenizer.from_encoding``."""

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ---------------------------------------------------------------- encoding
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text``, treating special-token text as ordinary text.

        >>> from bytepair import get_encoding
        >>> get_encoding("r50k_base").encode_ordinary("<|endoftext|>")
        [27, 91, 437, 1659, 5239, 91, 29]
        """
        require_str(text)
        try:
            return list(chain.from_iterable(self.engine.piece_ids(repair_surrogates(text))))
        except MemoryError as exc:
            raise too_large(exc, f"encoding {len(text):,} characters", ENCODE_ADVICE) from None

    def encode(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
        dropout: float | None = None,
        seed: int | None = None,
    ) -> list[int]:
        """Encode ``text``. Special-token text raises unless allowed (tiktoken's policy).

        - ``allowed_special``: special tokens encoded as their single id (``"all"`` for every one).
        - ``disallowed_special``: special tokens whose text raises :class:`DisallowedSpecialTokenError`;
          the default ``"all"`` means every special token not allowed; ``()`` turns the check off,
          encoding such text as ordinary text.
        - ``dropout``: BPE-dropout, the chance to skip each merge (subword regularisation); the ids
          still decode to ``text``. ``seed`` makes it reproducible (a fresh ``random.Random(seed)``
          per call). None or 0 is the ordinary encode. Dropout never reads or fills the piece cache.

        >>> from bytepair import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> enc.encode("<|endoftext|>", allowed_special="all")
        [100257]
        >>> enc.encode("<|endoftext|>", disallowed_special=())
        [27, 91, 8862, 728, 428, 91, 29]
        >>> enc.encode("hello world", dropout=1.0) == list(enc.encode_single_token(bytes([b])) for b in b"hello world")
        True
        """
        require_str(text)
        p = check_dropout(dropout)
        ids_of: Callable[[str], tuple[int, ...]] | None = None
        if p:  # the same stages, each piece merged afresh by the model
            rng, encode_piece = Random(seed), self.engine.model.encode_piece
            ids_of = lambda piece: encode_piece(piece, dropout=p, rng=rng)  # noqa: E731
        try:
            return list(chain.from_iterable(self._ids(text, allowed_special, disallowed_special, ids_of=ids_of)))
        except MemoryError as exc:
            raise too_large(exc, f"encoding {len(text):,} characters", ENCODE_ADVICE) from None

    def encode_to_array(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> array:
        """``encode`` into an ``array('I')`` (4 bytes per id, like tiktoken's ``encode_to_numpy``).

        Faster than ``encode`` for long texts: each piece's ids are cached already packed, so the
        array is one join of byte strings, with no per-id conversion. The browser API uses it.

        >>> from bytepair import get_encoding
        >>> get_encoding("o200k_base").encode_to_array("hello world").tolist()
        [24912, 2375]
        """
        require_str(text)
        out = array("I")
        # A few thousand pieces at a time: the array grows as it goes (4 bytes per id, plus the
        # array's own headroom), with no list of every piece held at once.
        try:
            packed = self._ids(text, allowed_special, disallowed_special, packed=True)
            while batch := b"".join(islice(packed, 4096)):
                out.frombytes(batch)
        except MemoryError as exc:
            raise too_large(exc, f"encoding {len(text):,} characters", ENCODE_ADVICE) from None
        return out

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of text that is exactly one token (special tokens included).

        >>> from bytepair import get_encoding
        >>> get_encoding("r50k_base").encode_single_token("hello")
        31373
        """
        if isinstance(text_or_bytes, str):
            data = text_or_bytes.encode("utf-8", "surrogatepass")
        elif isinstance(text_or_bytes, (bytes, bytearray)):
            data = bytes(text_or_bytes)
        else:
            raise InvalidInputError(f"expected str or bytes, not {type(text_or_bytes).__name__}")
        rank = self._mergeable_ranks.get(data)
        if rank is None:
            rank = self._special_by_bytes.get(data)
        if rank is None:
            raise InvalidTokenError(f"{text_or_bytes!r} is not a single token of {self.name}; use encode() for text")
        return rank

    def count(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> int:
        """Number of tokens ``encode`` would return, without building the list.

        >>> from bytepair import get_encoding
        >>> get_encoding("o200k_base").count("hello world")
        2
        """
        require_str(text)
        try:
            return sum(map(len, self._ids(text, allowed_special, disallowed_special)))
        except MemoryError as exc:
            raise too_large(exc, f"counting {len(text):,} characters", COUNT_ADVICE) from None

    def is_within_token_limit(
        self,
        text: str | Iterable[str],
        limit: int,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> int | Literal[False]:
        """The token count if it is at most ``limit``, else ``False``; stops as soon as it is exceeded.

        ``text`` is a ``str`` or an iterable of ``str`` chunks (see :meth:`encode_stream`); chunks
        are read only until the limit is passed.

        >>> from bytepair import get_encoding
        >>> enc = get_encoding("o200k_base")
        >>> enc.is_within_token_limit("hello world", 5), enc.is_within_token_limit("hello world", 1)
        (2, False)
        """
        require_count(limit, "limit")
        total = 0
        try:
            if isinstance(text, str):
                pieces = self._ids(text, allowed_special, disallowed_special, first_block=_FIRSTBLOCK_CHARS)
            else:
                pieces = chain.from_iterable(
                    self._ids(block, allowed_special, disallowed_special, first_block=_FIRSTBLOCK_CHARS)
                    for block in self.stream_blocks(str_chunks(text), first_block=_FIRSTBLOCK_CHARS)
                )
            for ids in pieces:
                total += len(ids)
                if total > limit:
                    return False
        except MemoryError as exc:
            raise too_large(exc, f"counting {sized(text, 'characters') if isinstance(text, str) else 'chunks'}",
                            COUNT_ADVICE) from None
        return total

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """Ids plus each token's ``[start, end)`` character span in ``text`` (see ``text/offsets.py``).

        >>> from bytepair import get_encoding
        >>> get_encoding("o200k_base").encode_with_offsets("hi 🫠")
        ([3686, 9552, 104, 254], [(0, 2), (2, 4), (3, 4), (3, 4)])
        """
        require_str(text)
        try:
            repair = SurrogateRepair(text)
            ids = list(chain.from_iterable(self._ids(text, allowed_special, disallowed_special)))
            found = token_spans(repair.text.encode("utf-8"), map(len, self._table.each(ids)))
            if found is None:  # the pattern leaves some text out of every piece: go piece by piece
                spans = self._spans_by_piece(repair.text, self._policy.allowed(text, allowed_special, disallowed_special))
            else:
                spans = list(zip(*found))
            if repair.text is not text:
                to_original = repair.to_original
                spans = [(to_original(s), to_original(e)) for s, e in spans]
        except MemoryError as exc:
            raise too_large(exc, f"encoding {len(text):,} characters with offsets", ENCODE_ADVICE) from None
        return ids, spans

    def _spans_by_piece(self, text: str, allowed: frozenset[str]) -> list[tuple[int, int]]:
        """Token spans found piece by piece: the plain way, for patterns that skip text."""
        spans: list[tuple[int, int]] = []
        position = 0
        for segment, special_id in self._scanner.segments(text, allowed):
            if special_id is not None:
                spans.append((position, position + len(segment)))
            else:
                spans += self.engine.piece_spans(segment, lambda i: len(self._table.single(i)), position)
            position += len(segment)
        return spans

    # ---------------------------------------------------------------- streams and files
    def stream_blocks(self, chunks: Iterable[str], *, first_block: int | None = None) -> Iterator[str]:
        """The text of ``chunks`` regrouped into blocks that encode on their own to exactly the ids
        of the whole text (cut where the pattern must end a piece and no special token's text is
        near; see ``pipeline/blocks.py``). Memory stays bounded by the block size plus the longest
        stretch without such a cut.

        >>> from bytepair import get_encoding
        >>> list(get_encoding("o200k_base").stream_blocks(["Hello, ", "world"]))
        ['Hello, world']
        """
        return blocks_of(self.block_cutter(first_block), chunks)

    def encode_stream(
        self,
        chunks: Iterable[str],
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> Iterator[list[int]]:
        """Encode text that arrives in chunks (lines, a generator, a file read piece by piece);
        yield the ids block by block. Concatenated, they equal ``encode("".join(chunks))``.

        >>> from bytepair import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> [i for ids in enc.encode_stream(["hello ", "world"]) for i in ids] == enc.encode("hello world")
        True
        """
        for block in self.stream_blocks(chunks):
            yield self.encode(block, allowed_special=allowed_special, disallowed_special=disallowed_special)

    def count_stream(
        self,
        chunks: Iterable[str],
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> int:
        """``count("".join(chunks))`` without ever joining them (bounded memory).

        >>> from bytepair import get_encoding
        >>> get_encoding("o200k_base").count_stream(iter(["hello ", "world"]))
        2
        """
        return sum(
            self.count(block, allowed_special=allowed_special, disallowed_special=disallowed_special)
            for block in self.stream_blocks(chunks)
        )

    def count_file(
        self,
        file: str | PathLike[str] | BinaryIO,
        *,
        errors: str = "strict",
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> int:
        """Tokens in a file (a path or a file opened ``"rb"``), read a megabyte at a time.

        The bytes are decoded as UTF-8 exactly: CR, CRLF and a leading BOM are kept. Invalid UTF-8
        raises :class:`InputDecodeError` naming the byte offset, unless ``errors="replace"``.

        >>> import io
        >>> from bytepair import get_encoding
        >>> get_encoding("cl100k_base").count_file(io.BytesIO(b"a\\r\\n\\r\\n  b\\r\\n"))
        5
        """
        return self.count_stream(
            read_utf8_chunks(file, errors=errors),
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
        )

    def token_counter(
        self,
        *,
        errors: str = "strict",
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> TokenCounter:
        """A counter that is handed text or UTF-8 bytes piece by piece (``feed``, ``feed_bytes``,
        then ``finish()`` for the total), in bounded memory; see :class:`TokenCounter`."""
        cutter = self.block_cutter()

        def count_block(block: str) -> int:
            return self.count(block, allowed_special=allowed_special, disallowed_special=disallowed_special)

        return TokenCounter(cutter, count_block, errors=errors)

    # ---------------------------------------------------------------- decoding
    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """The bytes of ``tokens`` joined.

        >>> from bytepair import get_encoding
        >>> get_encoding("r50k_base").decode_bytes([31373, 995])
        b'hello world'
        """
        try:
            return self._table.join(tokens)
        except MemoryError as exc:
            raise too_large(exc, f"decoding {sized(tokens, 'ids')}", DECODE_ADVICE) from None

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode ``tokens`` to text; bytes that are not valid UTF-8 follow ``errors`` (default: U+FFFD)."""
        try:
            return self._table.join(tokens).decode("utf-8", errors=errors)
        except MemoryError as exc:
            raise too_large(exc, f"decoding {sized(tokens, 'ids')}", DECODE_ADVICE) from None

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens included)."""
        return self._table.single(token)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each token, for showing how text was split."""
        single = self._table.single
        try:
            return [single(t) for t in tokens]
        except MemoryError as exc:
            raise too_large(exc, f"decoding {sized(tokens, 'ids')}", DECODE_ADVICE) from None

    def stream_decoder(self, errors: str = "replace") -> StreamDecoder:
        """A decoder for ids that arrive one at a time (see :class:`StreamDecoder`)."""
        return StreamDecoder(self._table, errors)

    # ---------------------------------------------------------------- misc
    def token_byte_values(self) -> list[bytes]:
        """Bytes of every mergeable token, sorted bytewise (as tiktoken returns them)."""
        return sorted(self._mergeable_ranks)

    @property
    def eot_token(self) -> int:
        """Id of ``<|endoftext|>``."""
        return self._special_tokens["<|endoftext|>"]

    @property
    def special_tokens_set(self) -> set[str]:
        """The special-token strings."""
        return set(self._special_set)

    def is_special_token(self, token: int) -> bool:
        """Whether ``token`` is the id of a special token."""
        return token in self._special_ids

    @property
    def n_vocab(self) -> int:
        """``max_token_value + 1`` (as in tiktoken)."""
        return self.max_token_value + 1

    # ---------------------------------------------------------------- stages
    def special_segments(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> Iterator[tuple[str, int | None]]:
        """The special-token stage: apply the policy (raising on a disallowed token), repair lone
        surrogates, and cut ``text`` into ``(ordinary text, None)`` and ``(special token, id)``.
        The ordinary parts then go through :attr:`engine` (``engine.piece_ids``).

        >>> from bytepair import get_encoding
        >>> list(get_encoding("cl100k_base").special_segments("a<|endoftext|>b", allowed_special="all"))
        [('a', None), ('<|endoftext|>', 100257), ('b', None)]
        """
        allowed = self._policy.allowed(text, allowed_special, disallowed_special)
        text = repair_surrogates(text)
        if not allowed:
            return iter(((text, None),) if text else ())
        return self._scanner.segments(text, allowed)

    def block_cutter(self, first_block: int | None = None) -> BlockCutter:
        """A cutter that gathers chunks of text into blocks that encode exactly on their own (see
        ``pipeline/blocks.py``): the pattern's cut points, away from any special token's text."""
        return BlockCutter(self.engine.pre_tokenizer, self._scanner, BLOCK_CHARS, first=first_block)

    # ---------------------------------------------------------------- private
    def _ids(
        self,
        text: str,
        allowed_special: AllowedSpecial,
        disallowed_special: DisallowedSpecial,
        *,
        packed: bool = False,
        first_block: int | None = None,
        ids_of: Callable[[str], tuple[int, ...]] | None = None,
    ) -> Iterator[Any]:
        """Token ids as a stream of tuples, one per piece or special token; with ``packed``, as
        bytes holding the ids as native uint32 (see ``encode_to_array``). ``first_block``: long
        text is pretokenized in blocks that start that small (see ``Pretokenizer.blocks``);
        ``ids_of``: see ``Engine.piece_ids``."""
        segments = self.special_segments(text, allowed_special=allowed_special, disallowed_special=disallowed_special)

        def special(token_id: int) -> Any:
            return array("I", (token_id,)).tobytes() if packed else (token_id,)

        return chain.from_iterable(
            self.engine.piece_ids(segment, packed=packed, first_block=first_block, ids_of=ids_of)
            if special_id is None else (special(special_id),)
            for segment, special_id in segments
        )
