"""The public ``Encoding``: tiktoken's API over bytepair's pipeline.

Data flows one way: text -> lone-surrogate repair -> special-token scan -> pretokenization ->
piece cache / BPE merge -> ids; and back: ids -> token bytes -> UTF-8 text. Each stage lives in
the module named after it; this class only wires them together and checks arguments.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, islice
from os import PathLike
from typing import Any, BinaryIO, Literal

from random import Random

from .models.bpe.merge import check_dropout, merge_piece, reference_merge
from .models.bpe.char_merge import Fragments
from .decoders.token_table import StreamDecoder, TokenTable
from .errors import DisallowedSpecialTokenError, InvalidInputError, InvalidTokenError, VocabFormatError
from .text.offsets import piece_token_spans, token_spans
from .pipeline.engine import BLOCK_CHARS, Engine
from .pre_tokenizers.pattern import Pretokenizer
from .models.bpe.rank_model import RankModel
from .added_tokens.scan import SpecialTokenScanner
from .text.checks import SurrogateRepair, repair_surrogates, require_count, require_str, str_chunks
from .pipeline.blocks import BlockCutter, TokenCounter
from .text.reading import read_utf8_chunks
from .tiktoken_compat import completions, import_numpy

__all__ = ["Encoding"]

AllowedSpecial = Literal["all"] | AbstractSet[str]
DisallowedSpecial = Literal["all"] | Collection[str]

# With a limit, blocks start this small and double: the answer is often known after a few kB.
_FIRSTBLOCK_CHARS = 1 << 12


class Encoding:
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
            _token_bytes = _rank_ordered(name, mergeable_ranks)
        _validate(name, mergeable_ranks, _token_bytes, self._special_tokens, explicit_n_vocab)
        self.max_token_value = max(len(_token_bytes) - 1, *self._special_tokens.values(), 0)
        self._special_set = frozenset(self._special_tokens)
        self._special_ids = frozenset(self._special_tokens.values())
        self._special_by_bytes = {text.encode("utf-8"): i for text, i in self._special_tokens.items()}
        self._table = TokenTable(name, _token_bytes, self._special_tokens)
        self._scanner = SpecialTokenScanner(self._special_tokens)
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
        return list(chain.from_iterable(self.engine.piece_ids(repair_surrogates(text))))

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
        if p:
            return self._encode_dropout(text, allowed_special, disallowed_special, p, Random(seed))
        return list(chain.from_iterable(self._ids(text, allowed_special, disallowed_special)))

    def _encode_dropout(self, text: str, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial,
                        dropout: float, rng: Random) -> list[int]:
        """``encode`` with BPE-dropout: the same stages, each piece merged afresh by the model."""
        encode_piece = self.engine.model.encode_piece
        out: list[int] = []
        for segment, special_id in self.special_segments(text, allowed_special=allowed_special, disallowed_special=disallowed_special):
            if special_id is not None:
                out.append(special_id)
                continue
            for piece in self.engine.split(segment):
                out += encode_piece(piece, dropout=dropout, rng=rng)  # type: ignore[call-arg]
        return out

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
        packed = self._ids(text, allowed_special, disallowed_special, packed=True)
        # A few thousand pieces at a time: the array grows as it goes (4 bytes per id, plus the
        # array's own headroom), with no list of every piece held at once.
        while batch := b"".join(islice(packed, 4096)):
            out.frombytes(batch)
        return out

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int = 8,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[list[int]]:
        """``encode`` each text. ``num_threads`` is accepted for tiktoken compatibility and ignored:
        the work is pure Python (and Pyodide has no threads)."""
        return [self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special) for t in text]

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        """``encode_ordinary`` each text (``num_threads`` is ignored, see ``encode_batch``)."""
        return [self.encode_ordinary(t) for t in text]

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
        return sum(map(len, self._ids(text, allowed_special, disallowed_special)))

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
        if isinstance(text, str):
            pieces = self._ids(text, allowed_special, disallowed_special, first_block=_FIRSTBLOCK_CHARS)
        else:
            pieces = chain.from_iterable(
                self._ids(block, allowed_special, disallowed_special, first_block=_FIRSTBLOCK_CHARS)
                for block in self.stream_blocks(str_chunks(text), first_block=_FIRSTBLOCK_CHARS)
            )
        total = 0
        for ids in pieces:
            total += len(ids)
            if total > limit:
                return False
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
        repair = SurrogateRepair(text)
        ids = list(chain.from_iterable(self._ids(text, allowed_special, disallowed_special)))
        found = token_spans(repair.text.encode("utf-8"), map(len, self._table.each(ids)))
        if found is None:  # the pattern leaves some text out of every piece: go piece by piece
            spans = self._spans_by_piece(repair.text, self._check_policy(text, allowed_special, disallowed_special))
        else:
            spans = list(zip(*found))
        if repair.text is not text:
            to_original = repair.to_original
            spans = [(to_original(s), to_original(e)) for s, e in spans]
        return ids, spans

    def _spans_by_piece(self, text: str, allowed: frozenset[str]) -> list[tuple[int, int]]:
        """Token spans found piece by piece: the plain way, for patterns that skip text."""
        spans: list[tuple[int, int]] = []
        cache, token_bytes = self.engine.cache, self._table.single
        position = 0
        for segment, special_id in self._scanner.segments(text, allowed):
            if special_id is not None:
                spans.append((position, position + len(segment)))
            else:
                for start, end in self.engine.pre_tokenizer.spans(segment):
                    piece = segment[start:end]
                    lengths = [len(token_bytes(i)) for i in cache[piece]]
                    spans.extend(piece_token_spans(piece, lengths, position + start))
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
        cutter = self.block_cutter(first_block)
        for chunk in str_chunks(chunks):
            yield from cutter.push(chunk)
        rest = cutter.finish()
        if rest:
            yield rest

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
        return self._table.join(tokens)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode ``tokens`` to text; bytes that are not valid UTF-8 follow ``errors`` (default: U+FFFD)."""
        return self._table.join(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens included)."""
        return self._table.single(token)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each token, for showing how text was split."""
        single = self._table.single
        return [single(t) for t in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Text and, per token, the index of the first character holding any of its bytes (tiktoken's rule).

        Raises ``UnicodeDecodeError`` if the tokens do not decode to valid UTF-8, as tiktoken does.
        """
        token_bytes = self.decode_tokens_bytes(tokens)
        text_len = 0
        offsets = []
        for token in token_bytes:
            continuation = bool(token) and 0x80 <= token[0] < 0xC0
            offsets.append(max(0, text_len - continuation))
            text_len += sum(1 for byte in token if not 0x80 <= byte < 0xC0)
        text = b"".join(token_bytes).decode("utf-8", errors="strict")
        return text, offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8) -> list[str]:
        """``decode`` each sequence."""
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """``decode_bytes`` each sequence."""
        return [self.decode_bytes(tokens) for tokens in batch]

    def stream_decoder(self, errors: str = "replace") -> StreamDecoder:
        """A decoder for ids that arrive one at a time (see :class:`StreamDecoder`)."""
        return StreamDecoder(self._table, errors)

    # ---------------------------------------------------------------- saving
    def save_tiktoken(self, path: str | PathLike[str]) -> None:
        """The mergeable ranks as a ``.tiktoken`` file (``base64(token) rank`` lines), atomically;
        ``load_tiktoken_bpe`` (bytepair's or tiktoken's) reads it back. The pattern and the special
        tokens are not part of the format: pass them to the constructor again."""
        from .formats.atomic import write_file
        from .formats.tiktoken_file import dump_tiktoken_bpe

        write_file(path, dump_tiktoken_bpe(self._mergeable_ranks))

    def save_minbpe(self, prefix: str | PathLike[str]) -> list[str]:
        """minbpe's ``prefix.model`` (read back by ``bytepair.load_minbpe`` and by minbpe) and the
        human-readable ``prefix.vocab``, atomically; returns both paths. Only for rank tables with
        byte ``b`` at id ``b`` and the merged tokens after it in order (minbpe's own layout): others
        raise :class:`~bytepair.errors.UnsavableError` saying why.

        >>> import os, tempfile
        >>> from bytepair import Encoding
        >>> ranks = {bytes([i]): i for i in range(256)} | {b"hi": 256}
        >>> enc = Encoding("toy", pat_str=r"\\S+|\\s+", mergeable_ranks=ranks, special_tokens={})
        >>> paths = enc.save_minbpe(os.path.join(tempfile.mkdtemp(), "toy"))
        >>> [os.path.basename(p) for p in paths]
        ['toy.model', 'toy.vocab']
        """
        from .formats.atomic import write_files
        from .formats.minbpe_model import dump_minbpe, minbpe_paths

        model, vocab = dump_minbpe(self._pat_str, self._mergeable_ranks, self._special_tokens)
        model_path, vocab_path = minbpe_paths(prefix)
        return write_files({model_path: model, vocab_path: vocab})

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

    def manifest(self) -> dict[str, Any]:
        """What this encoding is, as JSON, with hashes of a canonical form of what decides its ids
        (see ``pipeline/manifest.py``; equal to ``Tokenizer.from_encoding(self).manifest()``'s).

        >>> from bytepair import get_encoding
        >>> m = get_encoding("cl100k_base").manifest()
        >>> m["kind"], m["vocab_size"], m["specials"]["<|endoftext|>"]
        ('encoding', 100261, 100257)
        """
        from .pipeline.manifest import manifest
        from .pipeline.view import TokenizerView

        return manifest(TokenizerView.of(self))

    def __reduce__(self) -> tuple[object, ...]:
        # By value; the registry pickles the encodings it shares by name instead (``copyreg``).
        return _rebuild, (self.name, self._pat_str, self._mergeable_ranks, self._special_tokens)

    # ---------------------------------------------------------------- tiktoken compatibility
    # tiktoken's remaining public and semi-private methods, with its semantics (see tiktoken_compat.py).
    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> Any:
        """``encode`` as a numpy ``uint32`` array. numpy is optional: without it this raises
        :class:`~bytepair.tiktoken_compat.MissingDependencyError` (``encode_to_array`` needs nothing)."""
        ids = self.encode_to_array(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        numpy = import_numpy()
        return numpy.frombuffer(ids, dtype=numpy.uint32) if ids.itemsize == 4 else numpy.array(ids, dtype=numpy.uint32)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """Stable tokens, and every token sequence that may follow them once more text is appended.

        The tokens of the last piece (and of all-whitespace tokens before it) are left out of the
        stable part: appending text could change them. The completions are tiktoken's (their order is
        sorted here; tiktoken's is arbitrary). Slow for a long or all-space last piece: it encodes one
        candidate per vocabulary token that could straddle the end.

        >>> from bytepair import get_encoding
        >>> stable, completions = get_encoding("r50k_base").encode_with_unstable("hello fanta")
        >>> stable, [277, 4910] in completions, len(completions)
        ([31373], True, 1432)
        """
        require_str(text)
        allowed = self._check_policy(text, allowed_special, disallowed_special)
        tokens, last = self._ids_and_last_piece_len(repair_surrogates(text), allowed)
        if not last:
            return tokens, []
        last = self._widen_over_spaces(tokens, last)
        unstable = self._table.join(tokens[-last:])
        del tokens[-last:]
        if "_sorted_token_bytes" not in self.__dict__:
            self._sorted_token_bytes = self.token_byte_values()
        token_len = self._table.single
        return tokens, completions(
            unstable,
            self._sorted_token_bytes,
            self._mergeable_ranks.__getitem__,
            lambda token: len(token_len(token)),
            self.encode_ordinary,
            self._merge_without_shortcut,
        )

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE of ``text_or_bytes`` as one piece: no pattern split, no special tokens (tiktoken's).

        >>> from bytepair import get_encoding
        >>> get_encoding("r50k_base")._encode_single_piece("helloqqqq")
        [31373, 38227, 38227]
        """
        if isinstance(text_or_bytes, str):
            return list(self.engine.cache[repair_surrogates(text_or_bytes)])
        if not isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"expected str or bytes, not {type(text_or_bytes).__name__}")
        data = bytes(text_or_bytes)
        try:
            return list(self.engine.cache[data.decode("utf-8")])
        except UnicodeDecodeError:
            return merge_piece(data, self._mergeable_ranks)

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """``encode_ordinary`` the plain way: split the whole text with the pattern, merge each piece
        (no piece cache, no blocks, no long-piece chunking). A reference path that tests hold equal."""
        require_str(text)
        ranks = self._mergeable_ranks
        pieces = self.engine.pre_tokenizer.split(repair_surrogates(text))
        return [i for piece in pieces for i in merge_piece(piece.encode("utf-8"), ranks)]

    def _encode_bytes(self, data: bytes) -> list[int]:
        """Encode bytes that need not be valid UTF-8, as tiktoken does.

        Valid UTF-8 is ``encode_ordinary`` of its text. Otherwise the valid prefix is encoded, then
        its last piece (widened over trailing all-whitespace tokens) is merged again together with
        the remaining bytes, as one piece; so a truncated character joins the piece it ends.
        ``decode_bytes`` always gives ``data`` back.

        >>> from bytepair import get_encoding
        >>> get_encoding("cl100k_base")._encode_bytes(b" \\xec\\x8b\\xa4\\xed")
        [62085]
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"expected bytes, not {type(data).__name__} (use encode() for text)")
        data = bytes(data)
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            valid = exc.start
        tokens, last = self._ids_and_last_piece_len(data[:valid].decode("utf-8"), frozenset())
        last = self._widen_over_spaces(tokens, last)
        rest = data[valid:]
        if tokens and last:
            rest = self._table.join(tokens[-last:]) + rest
            del tokens[-last:]
        tokens += merge_piece(rest, self._mergeable_ranks)
        return tokens

    def _ids_and_last_piece_len(self, text: str, allowed: frozenset[str]) -> tuple[list[int], int]:
        """Ids of (repaired) ``text`` with ``allowed`` special tokens, and how many of them the last
        piece gave (0 if the text ends with a special token or is empty)."""
        tokens: list[int] = []
        last = 0
        segments = self._scanner.segments(text, allowed) if allowed else ((text, None),)
        for segment, special_id in segments:
            if special_id is not None:
                tokens.append(special_id)
                last = 0
                continue
            for ids in self.engine.piece_ids(segment):
                tokens += ids
                last = len(ids)
        return tokens, last

    def _widen_over_spaces(self, tokens: list[int], last: int) -> int:
        """``last`` extended over the tokens before it while all are made of spaces, tabs and
        newlines (if the last piece starts with one): such splits may vanish when text is appended."""
        def all_space(token: int) -> bool:
            return token not in self._special_ids and not self._table.single(token).strip(b" \n\t")

        if last and all_space(tokens[-last]):
            while last < len(tokens) and all_space(tokens[-last - 1]):
                last += 1
        return last

    def _merge_without_shortcut(self, data: bytes) -> list[int]:
        """BPE of ``data`` even if ``data`` is itself a token (tiktoken merges so in a few places)."""
        if data in self._mergeable_ranks:  # a single token: short, so the plain merge is cheap
            return reference_merge(data, self._mergeable_ranks)
        return merge_piece(data, self._mergeable_ranks)

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
        allowed = self._check_policy(text, allowed_special, disallowed_special)
        text = repair_surrogates(text)
        if not allowed:
            return iter(((text, None),) if text else ())
        return self._scanner.segments(text, allowed)

    def block_cutter(self, first_block: int | None = None) -> BlockCutter:
        """A cutter that gathers chunks of text into blocks that encode exactly on their own (see
        ``pipeline/blocks.py``): the pattern's cut points, away from any special token's text."""
        return BlockCutter(self.engine.pre_tokenizer, self._scanner, BLOCK_CHARS, first=first_block)

    # ---------------------------------------------------------------- private
    def _check_policy(self, text: str, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial) -> frozenset[str]:
        """Apply the allowed/disallowed policy; return the allowed set."""
        if allowed_special == "all":
            allowed = self._special_set
        else:
            allowed = _token_names(allowed_special, "allowed_special")
        if disallowed_special == "all":
            disallowed = self._special_set - allowed
        elif not disallowed_special:  # (), an empty set, None: no check, as in tiktoken
            disallowed = frozenset()
        else:
            disallowed = _token_names(disallowed_special, "disallowed_special")
        if disallowed:
            found = self._scanner.find(text, disallowed)
            if found is not None:
                raise DisallowedSpecialTokenError(found)
        return allowed & self._special_set

    def _ids(
        self,
        text: str,
        allowed_special: AllowedSpecial,
        disallowed_special: DisallowedSpecial,
        *,
        packed: bool = False,
        first_block: int | None = None,
    ) -> Iterator[Any]:
        """Token ids as a stream of tuples, one per piece or special token; with ``packed``, as
        bytes holding the ids as native uint32 (see ``encode_to_array``). ``first_block``: long
        text is pretokenized in blocks that start that small (see ``Pretokenizer.blocks``)."""
        segments = self.special_segments(text, allowed_special=allowed_special, disallowed_special=disallowed_special)

        def special(token_id: int) -> Any:
            return array("I", (token_id,)).tobytes() if packed else (token_id,)

        return chain.from_iterable(
            self.engine.piece_ids(segment, packed=packed, first_block=first_block) if special_id is None else (special(special_id),)
            for segment, special_id in segments
        )


def _token_names(value: object, option: str) -> frozenset[str]:
    """A special-token option other than ``"all"`` as a set of names; a single name given as a
    string (which tiktoken refuses too) would otherwise be read as a set of characters."""
    if isinstance(value, str):
        raise InvalidInputError(
            f'{option} must be "all" or a set of special-token strings, not the string {value!r}; '
            f"for that one token write {{{value!r}}}"
        )
    try:
        return frozenset(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidInputError(f'{option} must be "all" or a set of special-token strings, not {type(value).__name__}') from None


def _rank_ordered(name: str, ranks: dict[bytes, int]) -> list[bytes]:
    """Token bytes indexed by rank (``b""`` where a rank is unused); rejects shared ranks."""
    if not isinstance(ranks, dict) or not ranks:
        raise VocabFormatError(f"{name}: mergeable_ranks must be a non-empty dict of bytes -> rank")
    top = max(ranks.values())
    if not isinstance(top, int) or top >= 4 * len(ranks) + 1024:
        raise VocabFormatError(f"{name}: ranks must be integers 0..n-1 (nearly dense); the largest is {top!r}")
    tokens = [b""] * (top + 1)
    for token, rank in ranks.items():
        if not isinstance(rank, int) or rank < 0 or not isinstance(token, bytes) or not token:
            raise VocabFormatError(f"{name}: mergeable_ranks must map non-empty bytes to ranks >= 0; got {token!r}: {rank!r}")
        if tokens[rank]:
            raise VocabFormatError(f"{name}: two mergeable tokens share a rank ({rank})")
        tokens[rank] = token
    return tokens


def _validate(
    name: str,
    ranks: dict[bytes, int],
    token_bytes: list[bytes],
    special: dict[str, int],
    explicit_n_vocab: int | None,
) -> None:
    missing = [b for b in range(256) if bytes((b,)) not in ranks]
    if missing:
        raise VocabFormatError(
            f"{name}: mergeable_ranks lacks {len(missing)} single-byte token(s) (first: {bytes((missing[0],))!r}); "
            "byte-level BPE needs all 256 so that any text can be encoded"
        )
    clash = sorted(i for i in special.values() if i < len(token_bytes) and token_bytes[i])
    if clash:
        raise VocabFormatError(f"{name}: special token id(s) {clash[:5]} are also mergeable ranks")
    odd = next((t for t in special if not isinstance(t, str)), None)
    if odd is not None:
        hint = " (decode them: {token.decode(): id})" if isinstance(odd, (bytes, bytearray)) else ""
        raise InvalidInputError(f"{name}: special_tokens keys must be str, not {type(odd).__name__}{hint}")
    if not all(special):
        raise VocabFormatError(f"{name}: special tokens must be non-empty strings")
    if explicit_n_vocab is not None:
        actual = len(ranks) + len(special)
        top = max([len(token_bytes) - 1, *special.values()])
        if actual != explicit_n_vocab or top != explicit_n_vocab - 1:
            raise VocabFormatError(f"{name}: expected {explicit_n_vocab} tokens with ids 0..{explicit_n_vocab - 1}, got {actual} (max id {top})")


def _rebuild(name: str, pat_str: str, ranks: dict[bytes, int], special: dict[str, int]) -> Encoding:
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)

