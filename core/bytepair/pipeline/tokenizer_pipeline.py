"""A ``tokenizer.json``'s stages run in order: added tokens -> normalizer -> pre-tokenizer -> model.

Why an object of its own: ``Tokenizer`` is Hugging Face's API (pairs, truncation, padding, batches,
saving); how one text becomes ids, tokens, offsets and word ids is this pipeline's work, in two
forms: :meth:`TokenizerPipeline.ids` (the fast path: ids only, through the engine's piece cache) and
:meth:`TokenizerPipeline.encode` (every field, offsets mapped back through the normalizer's
alignment). Going back, :meth:`TokenizerPipeline.tokens_of` is what the decoder is given.

>>> from bytepair import Tokenizer
>>> pipeline = Tokenizer.from_encoding("cl100k_base").pipeline
>>> [ids for ids in pipeline.ids("hi <|endoftext|>")]
[(6151,), (220,), (100257,)]
>>> seq = pipeline.encode("hi 🫠", type_id=0)
>>> seq.tokens, seq.offsets
(['hi', 'ĠðŁ', '«', 'ł'], [(0, 2), (2, 4), (3, 4), (3, 4)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any

from ..added_tokens.vocabulary import AddedVocabulary
from ..bulk import gc_paused
from ..errors import InvalidInputError, InvalidTokenError, TokenIdOverflowError
from ..models.vocabulary import VocabularyModel
from ..pre_tokenizers import Metaspace, PreTokenizer
from ..pre_tokenizers import Sequence as PreSequence
from ..processors.base import Piecewise
from ..text.checks import repair_surrogates
from ..text.offsets import token_spans
from .engine import Engine
from .piece_fields import Entry, PieceFields, append_fields, relative_spans, shifted_spans, to_original

__all__ = ["TokenizerPipeline"]

PieceIds = Callable[[str], tuple[int, ...]]
_ZERO = (0,)


_PAUSE_GC_CHARS = 4096
"""From this many characters on, ``encode`` pauses the cyclic garbage collector (``bulk.gc_paused``)."""

class TokenizerPipeline:
    """The stages of one ``tokenizer.json`` (see the module docstring); ``skip_special`` (HF's
    ``encode_special_tokens``) makes special added tokens in the text ordinary text."""

    def __init__(self, added: AddedVocabulary, normalizer: Any, pre_tokenizer: PreTokenizer | None, model: Any,
                 engine: Engine) -> None:
        self.added = added
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self.engine = engine
        self.skip_special = False
        self._metaspaces = _metaspaces(pre_tokenizer)
        self._token_strings = self._id_strings()
        self._named = self._byte_starts = False
        self._whole = True
        self._char_spans: Callable[[str, tuple[int, ...]], tuple[list[int], list[int]]] | None = None
        self._model_flags()
        self._fields = PieceFields(self._piece_entry)
        """Each piece's tokens and their spans in it, for ``encode`` (``piece_fields.py``)."""
        engine.cache.also_clear(self.clear_memos)

    def _id_strings(self) -> _IdStrings:
        """The id -> token table of ``Encoded``'s tokens: a vocabulary-only model's filled at once
        when many ids are read (added tokens over the model's, as ``id_to_token`` reads them)."""
        model, added = self.model, self.added

        def table() -> dict[int, str]:
            vocab = model.get_vocab()
            return {**dict(zip(vocab.values(), vocab.keys())), **{t.id: t.content for t in added}}

        return _IdStrings(self.id_to_token, table if isinstance(model, VocabularyModel) else None)

    def _model_flags(self) -> None:
        # A model may name its tokens itself (Unigram: an unknown run's token is its text), or give
        # each token's first byte (a byte-fallback run's tokens all span the run).
        self._named = hasattr(self.model, "piece_tokens")
        self._byte_starts = hasattr(self.model, "piece_byte_starts")
        # A model that may drop characters (a character-level BPE with no unknown token): a piece of
        # one token need not be all of it, so its tokens are placed by their lengths.
        self._whole = not getattr(self.model, "drops_unknown", False)
        # A model may give its tokens' spans in characters itself (Unigram: as it cut the piece).
        self._char_spans = getattr(self.model, "piece_char_spans", None)

    def clear_memos(self) -> None:
        """Empty the normalizer's memos and the pieces' fields (``engine.cache.clear()`` calls this:
        one clear empties every cache of the tokenizer)."""
        self._fields.clear()
        clear = getattr(self.normalizer, "clear_memos", None)
        if clear is not None:
            clear()

    def set_stage(self, *, normalizer: Any = ..., pre_tokenizer: Any = ..., model: Any = ...) -> None:
        """Replace a stage (the others stay); the engine is rebuilt around the pre-tokenizer and the
        model, so that every path (ids, offsets, counts) runs the new one."""
        if normalizer is not ...:
            self.normalizer = normalizer
        if pre_tokenizer is not ...:
            self.pre_tokenizer = pre_tokenizer
            self._metaspaces = _metaspaces(pre_tokenizer)
        if model is not ...:
            self.model = model
            self._token_strings = self._id_strings()
            self._model_flags()
        self._fields.clear()
        if pre_tokenizer is not ... or model is not ...:
            self.engine = Engine(self.model, self.pre_tokenizer)
            self.engine.cache.also_clear(self.clear_memos)

    # ---------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> int | None:
        found = self.added.token_to_id(token)
        return found if found is not None else self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        found = self.added.id_to_token(token_id)
        return found if found is not None else self.model.id_to_token(token_id)

    # ---------------------------------------------------------------- ids
    def ids(self, text: str) -> Iterator[tuple[int, ...]]:
        """Ids of one text without post-processing, as a stream of tuples (the fast path)."""
        text = repair_surrogates(text)
        for segment, token_id, start, _ in self.added.split(text, normalized=False, skip_special=self.skip_special):
            if token_id is not None:
                yield (token_id,)
                continue
            if self.normalizer is not None:
                segment = self.normalizer.normalize(segment)
            for part, part_id, _, _ in self.added.split(segment, normalized=True, skip_special=self.skip_special, normalizer=self.normalizer):
                if part_id is not None:
                    yield (part_id,)
                    continue
                self._set_first(start == 0)
                yield from self.engine.piece_ids(part)

    def id_chunks(self, text: str) -> Iterable[tuple[int, ...]]:
        """``ids`` for a caller that reads everything: the same tuples, chained in C rather than
        passed through a generator one piece at a time (~5% of a first pass on Chinese). Each
        segment is split when it is reached in the loop, as in ``ids``, so the Metaspace flag set
        before it holds; a pre-tokenizer that splits lazily, block by block, keeps ``ids``."""
        if self.engine.cuttable:
            return self.ids(text)
        text = repair_surrogates(text)
        chunks: list[Iterable[tuple[int, ...]]] = []
        for segment, token_id, start, _ in self.added.split(text, normalized=False, skip_special=self.skip_special):
            if token_id is not None:
                chunks.append(((token_id,),))
                continue
            if self.normalizer is not None:
                segment = self.normalizer.normalize(segment)
            for part, part_id, _, _ in self.added.split(segment, normalized=True, skip_special=self.skip_special, normalizer=self.normalizer):
                if part_id is not None:
                    chunks.append(((part_id,),))
                    continue
                self._set_first(start == 0)
                chunks.append(self.engine.piece_ids(part))
        return chain.from_iterable(chunks)

    def _set_first(self, first: bool) -> None:
        for step in self._metaspaces:
            step.first_segment = first

    # ---------------------------------------------------------------- every field
    def encode(self, text: str, type_id: int, piece_ids: PieceIds | None = None) -> Piecewise:
        """One sequence with tokens, offsets into ``text`` and word ids; ``piece_ids`` gives a
        piece's ids (default: the engine's cache). The fields of ordinary text are joined of each
        piece's, remembered (``piece_fields.py``), unless ``piece_ids`` is given (BPE-dropout)."""
        if piece_ids is not None:
            return self._encode(text, type_id, piece_ids, bulk=False)
        if len(text) < _PAUSE_GC_CHARS:  # (a short text makes too few objects for the collector to matter)
            return self._encode(text, type_id, None, bulk=True)
        with gc_paused():
            return self._encode(text, type_id, None, bulk=True)

    def reference_encode(self, text: str, type_id: int) -> Piecewise:
        """``encode`` token by token, as plainly as HF's rules read (tests hold the two equal)."""
        return self._encode(text, type_id, None, bulk=False)

    def _encode(self, text: str, type_id: int, piece_ids: PieceIds | None, bulk: bool) -> Piecewise:
        ids_of = self.engine.cache.__getitem__ if piece_ids is None else piece_ids
        # A per-character normalizer's alignment, as the characters it did not map to one (BertNormalizer).
        edits_of = getattr(self.normalizer, "normalize_edits", None) if bulk else None
        token_of = None if self._named else self._token_strings.__getitem__
        widths_of = getattr(self.model, "token_char_widths", None)  # (WordPiece: a word's tokens are its text)
        char_widths = None if widths_of is None or not bulk else widths_of()
        repaired = repair_surrogates(text)
        out = Piecewise()
        word = 0
        for segment, token_id, start, end in self.added.split(repaired, normalized=False, skip_special=self.skip_special):
            if token_id is not None:
                out.add_added_token(token_id, segment, (start, end), type_id, word)  # with what lstrip/rstrip took
                word += 1
                continue
            found = None if edits_of is None else edits_of(segment)
            edits = None
            if found is not None:
                (normalized, edits), align = found, None
            elif self.normalizer is not None:
                normalized, align = self.normalizer.normalize_aligned(segment)
            else:
                normalized, align = segment, None
            for part, part_id, p_start, p_end in self.added.split(normalized, normalized=True, skip_special=self.skip_special, normalizer=self.normalizer):
                if edits is not None and align is None and (part_id is not None or self.model.token_byte_length is not None):
                    align = edits.aligned()
                if part_id is not None:
                    out.add_added_token(part_id, part, to_original(align, p_start, p_end, start), type_id, word)
                    word += 1
                    continue
                self._set_first(start == 0)
                if bulk:
                    pieces_done = self._fast_offsets(out, part, p_start, align, start, type_id, word, ids_of)
                    if pieces_done is None:
                        pieces, starts, ends = self._bounds(part)
                        append_fields(out, self._fields, pieces, starts, ends, ids_of=ids_of, token_of=token_of,
                                      type_id=type_id, word=word, shift=p_start, align=align, edits=edits,
                                      base=start, char_widths=char_widths, whole=self._whole)
                        pieces_done = len(pieces)
                    word += pieces_done
                    continue
                spans = [(part, 0, len(part))] if self.pre_tokenizer is None else self.pre_tokenizer.spans(part)
                named = hasattr(self.model, "piece_tokens")
                token_string = self._token_strings.__getitem__
                for piece, s, e in spans:
                    ids = ids_of(piece)
                    # A model may name its tokens itself (Unigram: an unknown run's token is its text).
                    strings = self.model.piece_tokens(piece, ids) if named else None
                    if len(ids) == 1 and len(piece) == e - s and self._whole:
                        char_spans: Iterable[tuple[int, int]] = ((s, e),)  # one token, the whole piece as written
                    else:
                        char_spans = self._token_char_spans(piece, ids, s, e)
                    for k, (token_id2, (ts, te)) in enumerate(zip(ids, char_spans)):
                        out.ids.append(token_id2)
                        out.tokens.append(strings[k] if strings is not None else token_string(token_id2))
                        out.offsets.append(to_original(align, p_start + ts, p_start + te, start))
                        out.type_ids.append(type_id)
                        out.special_tokens_mask.append(0)
                        out.word_ids.append(word)
                        out.sequence_ids.append(type_id)
                    word += 1
        return out

    def _bounds(self, part: str) -> tuple[list[str], list[int], list[int]]:
        """The pieces of ``part``, their starts and their ends."""
        if self.pre_tokenizer is None:
            return ([part], [0], [len(part)]) if part else ([], [], [])
        return self.pre_tokenizer.bounds(part)

    def _piece_entry(self, piece: str, width: int) -> Entry:
        """A piece's ids, token strings and token spans within it, for a piece standing for
        ``width`` characters of text (``encode``'s rule: ``_token_char_spans``, or for tokens that
        cut the piece as written at characters' boundaries, ``relative_spans``)."""
        ids = self.engine.cache[piece]
        model = self.model
        named = self._named
        if len(ids) == 1 and len(piece) == width and self._whole:  # one token, the whole piece as written
            return ids, tuple(model.piece_tokens(piece, ids)[:1]) if named else (), _ZERO, (width,)
        found = None
        if self._char_spans is not None:
            found = shifted_spans(*self._char_spans(piece, ids), len(piece) - width, width)
        elif len(piece) == width and not self._byte_starts:
            found = relative_spans(piece, model.piece_byte_lengths(piece, ids))
        if found is not None and len(found[0]) == len(ids):
            starts, ends = found
        else:
            spans = self._token_char_spans(piece, ids, 0, width)
            ids = ids[:len(spans)]  # (as the reference's zip)
            starts, ends = tuple(s for s, _ in spans[:len(ids)]), tuple(e for _, e in spans[:len(ids)])
        if not named:
            return ids, (), starts, ends
        strings = model.piece_tokens(piece, ids)
        return ids, tuple(strings if len(strings) == len(ids) else strings[:len(ids)]), starts, ends

    def _fast_offsets(self, out: Piecewise, part: str, p_start: int, align: list[tuple[int, int]] | None, base: int,
                      type_id: int, word: int, ids_of: PieceIds) -> int | None:
        """Tokens of ``part`` appended with offsets computed in bulk (C loops), when the pieces are
        ``part`` cut without rewriting and the model is byte-level: returns the number of pieces
        (words); None (nothing appended) otherwise."""
        lengths_of = self.model.token_byte_length
        if lengths_of is None:
            return None
        pieces = self.engine.split(part)
        if sum(map(len, pieces)) != len(part):
            return None
        per_piece = list(map(ids_of, pieces))
        ids = [i for piece_ids in per_piece for i in piece_ids]
        found = token_spans(part.encode("utf-8", "surrogatepass"), map(lengths_of.__getitem__, ids))
        if found is None:
            return None
        starts, ends = found
        out.ids += ids
        out.tokens += map(self._token_strings.__getitem__, ids)
        if align is None:
            shift = base + p_start
            out.offsets += zip((shift + s for s in starts), (shift + e for e in ends))
        else:
            out.offsets += (to_original(align, p_start + s, p_start + e, base) for s, e in zip(starts, ends))
        n = len(ids)
        out.type_ids += [type_id] * n
        out.special_tokens_mask += [0] * n
        out.word_ids += [w for w, piece_ids in enumerate(per_piece, word) for _ in piece_ids]
        out.sequence_ids += [type_id] * n
        return len(pieces)

    def _token_char_spans(self, piece: str, ids: tuple[int, ...], start: int, end: int) -> list[tuple[int, int]]:
        """Each token's ``[start, end)`` in the text the piece's span ``[start, end)`` covers."""
        lengths = self.model.piece_byte_lengths(piece, ids)
        data = piece.encode("utf-8", "surrogatepass")
        # Character index of each byte of the piece.
        char_of: Sequence[int] = range(len(data)) if piece.isascii() else [
            i for i, ch in enumerate(piece) for _ in range(len(ch.encode("utf-8", "surrogatepass")))]
        shift = len(piece) - (end - start)  # characters a pre-tokenizer put in front (Metaspace, ByteLevel)
        spans = []
        pos = 0
        # A model may give each token's first byte itself (Unigram: a byte-fallback run's tokens all
        # span the run), with its length from ``piece_byte_lengths``.
        starts = self.model.piece_byte_starts(piece, ids) if hasattr(self.model, "piece_byte_starts") else None
        for k, n in enumerate(lengths):
            if starts is not None:
                pos = starts[k]
            if n <= 0 or pos >= len(data):
                spans.append((start, start))
                continue
            first, last = char_of[pos], char_of[min(pos + n, len(data)) - 1]
            # A token of inserted characters only spans the first character of the text, as HF
            # aligns a prepended character with the one it was put before.
            spans.append((start + max(0, first - shift), start + max(0 if end == start else 1, last + 1 - shift)))
            pos += n
        return spans

    # ---------------------------------------------------------------- back to text
    def tokens_of(self, ids: Iterable[int], skip_special_tokens: bool, vocab_size: Callable[[], int]) -> list[str]:
        """The token strings the decoder is given for ``ids`` (HF's rules: special tokens skipped if
        asked; ids past the vocabulary skipped; a negative id or a non-integer refused, the message
        naming ``vocab_size()``)."""
        if isinstance(ids, (str, bytes)):
            raise InvalidInputError("ids must be a sequence of integers, not a string")
        if not isinstance(ids, Iterable):
            raise InvalidInputError(f"ids must be a sequence of integers, not {type(ids).__name__}")
        tokens = []
        for position, token_id in enumerate(ids):
            if isinstance(token_id, bool) or not hasattr(token_id, "__index__"):
                raise InvalidTokenError(f"token ids must be integers; got {type(token_id).__name__} {token_id!r} at position {position}")
            if skip_special_tokens and self.added.is_special_id(token_id):
                continue
            token = self.added.decoded_form(token_id, self.normalizer)
            if token is None:
                token = self.id_to_token(token_id)
            if token is None and 0 <= token_id < 2**32:
                continue  # as HF does: a model's embedding often has rows past its vocabulary, which sampling may pick
            if token is None:  # negative or past HF's unsigned 32-bit ids: an OverflowError, as HF's
                raise TokenIdOverflowError(
                    f"{token_id!r} at position {position} is not a token id of this tokenizer "
                    f"(vocabulary size {vocab_size()}); check that the ids come from this tokenizer"
                )
            tokens.append(token)
        return tokens


class _IdStrings(dict[int, str]):
    """id -> token string, filled on first use (the tokens of ``Encoded``); after ``BULK_AFTER``
    misses, all at once from ``table()`` where given (a first pass over a long text reads most of
    a vocabulary: a call chain per id cost a WordLevel first pass 15%)."""

    BULK_AFTER = 256

    def __init__(self, id_to_token: Callable[[int], str | None],
                 table: Callable[[], dict[int, str]] | None = None) -> None:
        super().__init__()
        self._id_to_token = id_to_token
        self._table = table
        self._misses = 0

    def __missing__(self, token_id: int) -> str:
        self._misses += 1
        if self._misses == self.BULK_AFTER and self._table is not None:
            self.update(self._table())
            if token_id in self:
                return self[token_id]
        value = self[token_id] = self._id_to_token(token_id) or ""
        return value


def _metaspaces(pre: PreTokenizer | None) -> list[Metaspace]:
    if isinstance(pre, Metaspace):
        return [pre]
    if isinstance(pre, PreSequence):
        return [s for s in pre.steps if isinstance(s, Metaspace)]
    return []
