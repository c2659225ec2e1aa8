"""``bytepair.Tokenizer``: Hugging Face ``tokenizers``' API over any ``tokenizer.json`` (BPE, WordPiece, WordLevel or Unigram model).

The pipeline is HF's, one stage per package: added tokens (``added_tokens/``) -> normalizer
(``normalizers/``) -> pre-tokenizer (``pre_tokenizers/``) -> model (``models/``) -> post-processor
(``processors/``, with truncation and padding); and back through the decoder (``decoders/``). One
text's run through the stages is ``pipeline/tokenizer_pipeline.py``'s (on the engine and piece cache
the tiktoken face uses too); this class is HF's API over it: pairs, batches, truncation, padding,
the added vocabulary. Loading and saving are in ``tokenizer_files.py``.

>>> import json
>>> spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3}, "merges": ["a b"]},
...         "added_tokens": [{"id": 3, "content": "<s>", "special": True}]}
>>> tok = Tokenizer.from_str(json.dumps(spec))
>>> enc = tok.encode("ab<s>ba")
>>> enc.ids, enc.tokens, enc.offsets
([2, 3, 1, 0], ['ab', '<s>', 'b', 'a'], [(0, 2), (2, 5), (5, 6), (6, 7)])
>>> tok.decode(enc.ids), tok.decode(enc.ids, skip_special_tokens=False)
('ab b a', 'ab <s> b a')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from random import Random
from typing import Any, Literal

from .added_tokens.vocabulary import AddedToken, AddedVocabulary
from .decoders import Decoder
from .decoders.decode_stream import TokenizerDecodeStream
from .errors import COUNT_ADVICE, DECODE_ADVICE, ENCODE_ADVICE, InvalidInputError, InvalidTokenError, TokenIdOverflowError, sized, too_large
from .llm.chat_template import apply_chat_template
from .models.bpe.merge import check_dropout
from .normalizers import Normalizer
from .pipeline.encoded import Encoded, post_processed, to_piecewise
from .pipeline.engine import Engine
from .pipeline.stages import model_for
from .pipeline.tokenizer_json import model_from_json
from .pipeline.tokenizer_pipeline import TokenizerPipeline
from .pipeline.word_counts import word_counts
from .pre_tokenizers import PreTokenizer
from .processors import Piecewise, PostProcessor
from .processors.post_processors import is_positional, positional_fields, processed_ids
from .processors.padding import padded_length, padding_settings
from .processors.truncation import truncation_settings
from .text.checks import require_count, require_str, require_words
from .tokenizer_async import TokenizerAsync
from .tokenizer_batches import TokenizerBatches, item_size
from .tokenizer_files import TokenizerFiles
from .tokenizer_stages import TokenizerStages
from .tokenizer_streams import TokenizerStreams

__all__ = ["Encoded", "Tokenizer", "TokenizerDecodeStream"]


class Tokenizer(TokenizerStages, TokenizerFiles, TokenizerStreams, TokenizerBatches, TokenizerAsync):
    """A ``tokenizer.json`` tokenizer (any of HF's model families) with HF ``tokenizers``' methods and results."""

    def __init__(
        self,
        model: Any,
        *,
        normalizer: Normalizer | None = None,
        pre_tokenizer: PreTokenizer | None = None,
        post_processor: PostProcessor | None = None,
        decoder: Decoder | None = None,
        added_tokens: Iterable[AddedToken] = (),
        source: dict[str, Any] | None = None,
        engine: Engine | None = None,
    ) -> None:
        """The stages of a ``tokenizer.json`` (see the module docstring); ``engine`` may be given to
        share one (and its piece cache) with an ``Encoding`` (see :meth:`from_encoding`)."""
        model = model_for(model, pre_tokenizer, model_from_json)
        self.pipeline = TokenizerPipeline(AddedVocabulary(list(added_tokens)), normalizer, pre_tokenizer, model,
                                          engine if engine is not None else Engine(model, pre_tokenizer))
        """Added tokens, normalizer, pre-tokenizer and model, run in order (``pipeline/tokenizer_pipeline.py``)."""
        self._post_processor = post_processor
        self._decoder = decoder
        self._added = self.pipeline.added
        self._source = source or {}
        self._padding: dict[str, Any] | None = None
        self._truncation: dict[str, Any] | None = None

    @property
    def engine(self) -> Engine:
        """Pre-tokenizer, model and piece cache: the same engine as ``Encoding``'s."""
        return self.pipeline.engine

    @property
    def encode_special_tokens(self) -> bool:
        """When True, special added tokens in the text are encoded as text (HF's flag)."""
        return self.pipeline.skip_special

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        self.pipeline.skip_special = bool(value)

    def apply_chat_template(
        self,
        messages: Any,
        *,
        add_generation_prompt: bool = False,
        tokenize: bool = True,
        return_dict: bool = False,
        return_assistant_tokens_mask: bool = False,
        tools: list[dict[str, Any]] | None = None,
        special_text: str = "escape",
        **template_kwargs: Any,
    ) -> Any:
        """transformers' ``apply_chat_template``: the ids (or the text with ``tokenize=False``, or
        ``{"input_ids", "attention_mask", "assistant_masks"}`` with ``return_dict=True``) of the
        messages rendered by the chat template, equal to transformers' for text without special-token
        literals. ``special_text`` says what such a literal in message content does: ``"escape"``
        (encoded as text), ``"reject"`` (ReservedLiteralError) or ``"allow"`` (the special id, as
        transformers). Also takes ``chat_template=``, ``documents=``, ``continue_final_message=`` and
        template variables, and ``truncation=True`` with ``max_length`` (the first ``max_length``
        tokens, as transformers keeps them); ``padding``, ``return_tensors`` and
        ``tokenizer_kwargs`` are refused. The template runs within a budget: ``template_timeout``
        seconds (20) for the call and ``template_max_chars`` characters (2**25) for any value it
        builds and for the prompt; past either, :class:`TemplateLimitError`. The default answer is a list of ids, as in transformers 4
        (transformers 5 returns its dict form unless told ``return_dict=False``). See docs/CHAT.md
        and ``llm/chat_template.py``."""
        return apply_chat_template(
            self, messages, add_generation_prompt=add_generation_prompt, tokenize=tokenize, return_dict=return_dict,
            return_assistant_tokens_mask=return_assistant_tokens_mask, tools=tools, special_text=special_text,
            **template_kwargs,
        )

    # ---------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> int | None:
        return self.pipeline.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        """The token of ``token_id``, None past the vocabulary; a non-integer is an
        :class:`InvalidTokenError`, a negative id or one from 2**32 a :class:`TokenIdOverflowError`
        (also an ``OverflowError``, as HF raises: its ids are unsigned 32-bit)."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise InvalidTokenError(f"token ids are integers from 0, not {token_id!r}")
        if not 0 <= token_id < 2**32:
            raise TokenIdOverflowError(f"token ids are integers from 0 to 2**32 - 1, not {token_id!r}")
        return self.pipeline.id_to_token(token_id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        # the model's own token -> id (a Unigram's ``vocab`` is a list of (piece, score))
        vocab = self.model.get_vocab() if hasattr(self.model, "get_vocab") else dict(self.model.vocab)
        if with_added_tokens:
            vocab.update({t.content: t.id for t in self._added})
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        if not with_added_tokens:
            return self.model.get_vocab_size()
        return len(self.get_vocab(True))

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        return {t.id: t for t in self._added}

    def add_tokens(self, tokens: Iterable[str | AddedToken]) -> int:
        """Add tokens matched whole in text (normalized by default); returns how many are new."""
        return self._add(tokens, special=False)

    def add_special_tokens(self, tokens: Iterable[str | AddedToken]) -> int:
        """Add special tokens (not normalized, skipped by ``decode``); returns how many are new."""
        return self._add(tokens, special=True)

    def _add(self, tokens: Iterable[str | AddedToken], *, special: bool) -> int:
        return self._added.add_tokens(tokens, special=special, id_of=self.token_to_id,
                                      next_id=lambda: max(self.get_vocab(True).values(), default=-1) + 1)

    # ---------------------------------------------------------------- training
    def train(self, files: Sequence[str | os.PathLike[str]], trainer: Any = None) -> None:
        """HF's ``train``: learn a new model from ``files`` (each read as UTF-8, line by line, line
        ends kept) with ``trainer`` (``trainers.BpeTrainer``, ``WordPieceTrainer``, ...; default: the
        model's own, ``model.get_trainer()``), through this tokenizer's normalizer and pre-tokenizer;
        the trainer's special tokens are added. See ``trainers/base.py``."""
        if isinstance(files, (str, os.PathLike)):
            raise InvalidInputError("train takes a list of file paths (train([path]), not train(path))")

        def lines() -> Iterator[str]:
            for path in files:
                with open(path, encoding="utf-8", newline="") as f:
                    yield from f

        self.train_from_iterator(lines(), trainer)

    def train_from_iterator(self, iterator: Iterable[str] | Iterable[Iterable[str]], trainer: Any = None,
                            length: int | None = None) -> None:
        """HF's ``train_from_iterator``: as :meth:`train`, over texts (or batches of texts) from
        ``iterator``; ``length`` is accepted for HF's progress bar and not needed here."""
        if trainer is None:
            get_trainer = getattr(self.model, "get_trainer", None)
            if get_trainer is None:
                raise InvalidInputError("pass a trainer, such as trainers.BpeTrainer(vocab_size=...), to train this model")
            trainer = get_trainer()
        if not callable(getattr(trainer, "train_model", None)):
            raise InvalidInputError(f"trainer must be a trainer object from bytepair.trainers, not {type(trainer).__name__}")
        texts = (text for item in iterator for text in ([item] if isinstance(item, str) else item))
        words = word_counts(texts, self.normalizer, self.pre_tokenizer)
        self.model = trainer.train_model(words, self.model)
        self.add_special_tokens(trainer.special_tokens)

    # ---------------------------------------------------------------- padding and truncation
    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0, pad_token: str = "[PAD]",
                       length: int | None = None, pad_to_multiple_of: int | None = None) -> None:
        self._padding = padding_settings(direction, pad_id, pad_type_id, pad_token, length, pad_to_multiple_of)

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> dict[str, Any] | None:
        return None if self._padding is None else dict(self._padding)

    def enable_truncation(self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right") -> None:
        room = max_length - self.num_special_tokens_to_add(False) if isinstance(max_length, int) else 0
        self._truncation = truncation_settings(max_length, stride, strategy, direction, room)

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> dict[str, Any] | None:
        return None if self._truncation is None else dict(self._truncation)

    # ---------------------------------------------------------------- encoding
    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
        *,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> Encoded:
        """Encode a text (or a pair of texts), with offsets, masks and HF's post-processing.

        ``dropout``: BPE-dropout, the chance to skip each merge (None: the file's ``model.dropout``,
        as HF applies it; 0: none). ``seed`` makes it reproducible: a fresh ``random.Random(seed)``
        per call. With dropout the piece cache is neither read nor filled.

        With ``is_pretokenized``, ``sequence`` (and ``pair``) are lists of words, as HF takes them
        (transformers' ``is_split_into_words``): each word goes through the whole pipeline as a text of
        its own (normalizer, added tokens, pre-tokenizer, model), its tokens get the word's index as
        their word id, and offsets are within each word.

        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> tok.encode("hello", dropout=1.0).tokens, tok.encode("hello", dropout=0.0).tokens
        (['h', 'e', 'l', 'l', 'o'], ['hello'])
        >>> e = tok.encode(["New", " York", "er"], is_pretokenized=True)
        >>> e.tokens, e.word_ids, e.offsets
        (['New', 'ĠYork', 'er'], [0, 1, 2], [(0, 3), (0, 5), (0, 2)])
        """
        if is_pretokenized:
            sequence = require_words(sequence, "sequence")
            if pair is not None:
                pair = require_words(pair, "pair")
        else:
            require_str(sequence, "sequence")
            if pair is not None:
                require_str(pair, "pair")
        p = check_dropout(getattr(self.model, "dropout", 0.0) if dropout is None else dropout)
        try:
            return self._encode_checked(sequence, pair, add_special_tokens, p, seed)
        except MemoryError as exc:
            size = len(sequence) if isinstance(sequence, str) else sum(map(len, sequence))
            raise too_large(exc, f"encoding {size:,} characters", ENCODE_ADVICE) from None

    def _encode_checked(self, sequence: str | list[str], pair: str | list[str] | None, add_special_tokens: bool, p: float,
                        seed: int | None) -> Encoded:
        if p:
            rng = Random(seed)
            model = self.model

            def piece_ids(piece: str) -> tuple[int, ...]:
                return model.encode_piece(piece, dropout=p, rng=rng)  # type: ignore[call-arg]

            return self._encode_full(sequence, pair, add_special_tokens, pad=self._padding is not None, piece_ids=piece_ids)
        if self._truncation is None and self._padding is None:
            # Ids by the fast path (the post-processor needs only ids to add its special tokens);
            # everything else is built if and when it is read.
            first_ids = self._sequence_ids(sequence)
            second_ids = None if pair is None else self._sequence_ids(pair)
            processor = self.post_processor
            counts = len(first_ids), None if second_ids is None else len(second_ids)
            ids = processed_ids(processor, first_ids, second_ids, add_special_tokens)
            if processor is None:
                processor = PostProcessor()
            # Built as it was encoded: without truncation even if some is set before the fields are read.
            # (Without padding or truncation, every token is attended to and nothing overflows.)
            return Encoded(ids, {"attention_mask": [1] * len(ids), "overflowing": []},
                           build=lambda: self._encode_full(sequence, pair, add_special_tokens, pad=False, truncate=False),
                           n_sequences=1 if pair is None else 2,
                           positional=(lambda: positional_fields(processor, *counts, add_special_tokens))
                           if is_positional(processor) else None)
        return self._encode_full(sequence, pair, add_special_tokens, pad=self._padding is not None)

    def _sequence_ids(self, sequence: str | list[str]) -> list[int]:
        """The ids of a text, or of a list of words each encoded as a text of its own."""
        if isinstance(sequence, str):
            return list(chain.from_iterable(self.pipeline.id_chunks(sequence)))
        return [i for word in sequence for i in chain.from_iterable(self.pipeline.id_chunks(word))]

    def _encode_full(self, sequence: str | list[str], pair: str | list[str] | None, add_special_tokens: bool, *,
                     pad: bool, piece_ids: Callable[[str], tuple[int, ...]] | None = None, truncate: bool = True) -> Encoded:
        first = self._encode_any(sequence, 0, piece_ids)
        second = None if pair is None else self._encode_any(pair, 1, piece_ids)
        encoded = post_processed(first, second, add_special_tokens, self.post_processor, self._truncation if truncate else None)
        if pad:
            self._pad([encoded])
        return encoded

    def _encode_any(self, sequence: str | list[str], type_id: int,
                    piece_ids: Callable[[str], tuple[int, ...]] | None = None) -> Piecewise:
        """One text through the pipeline; of a list of words, each word's, joined as HF joins them:
        every token of word ``i`` has word id ``i``, offsets stay within their word."""
        if isinstance(sequence, str):
            return self.pipeline.encode(sequence, type_id, piece_ids)
        out = Piecewise()
        for index, word in enumerate(sequence):
            part = self.pipeline.encode(word, type_id, piece_ids)
            part.word_ids = [index] * len(part.ids)
            out.extend(part)
        return out


    def post_process(self, encoding: Encoded, pair: Encoded | None = None, add_special_tokens: bool = True) -> Encoded:
        """HF's ``post_process``: truncation (if set), the post-processor's special tokens and
        padding (if set), applied to what ``encode(..., add_special_tokens=False)`` returned.

        Every field is HF's but ``sequence_ids``, which are those ``encode(text, pair)`` gives: HF
        0.23 keeps no sequence ranges on what ``encode`` returns, so after its ``post_process`` the
        first sequence's ids are None or 0 and padding's 0 or None, by post-processor and truncation.

        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> tok.post_process(tok.encode("hi", add_special_tokens=False)).ids
        [6151]
        """
        if not isinstance(encoding, Encoded) or (pair is not None and not isinstance(pair, Encoded)):
            raise InvalidInputError("post_process takes what encode() returned (and optionally a second one as pair)")
        first = to_piecewise(encoding)
        second = None if pair is None else to_piecewise(pair, sequence_id=1)
        if second is not None and self.post_processor is not None:
            # HF's post-processors number a pair's sequences 0 and 1 in their type ids (a template
            # then sets its own); with none, the encodings keep theirs.
            first.type_ids, second.type_ids = [0] * len(first.ids), [1] * len(second.ids)
        encoded = post_processed(first, second, add_special_tokens, self.post_processor, self._truncation)
        if self._padding is not None:
            self._pad([encoded])
        return encoded

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many ids the post-processor adds to one sequence (or a pair), as HF's method says."""
        return 0 if self.post_processor is None else self.post_processor.added_tokens(bool(is_pair))

    def encode_batch_fast(self, inputs: Sequence[str | tuple[str, str] | list[str]], is_pretokenized: bool = False,
                          add_special_tokens: bool = True, *, num_threads: int | None = None) -> list[Encoded]:
        """HF's ``encode_batch`` without offsets; here the same as ``encode_batch`` (offsets are
        worked out only when read)."""
        return self.encode_batch(inputs, is_pretokenized, add_special_tokens, num_threads=num_threads)

    def encode_batch(self, inputs: Sequence[str | tuple[str, str] | list[str]], is_pretokenized: bool = False,
                     add_special_tokens: bool = True, *, num_threads: int | None = None) -> list[Encoded]:
        """``encode`` each input (a text or a ``(text, pair)``); padding applies to the batch's longest.
        ``num_threads``: up to that many worker processes for a big batch (``tokenizer_batches.py``;
        None: this process, as HF's ``encode_batch`` with ``TOKENIZERS_PARALLELISM=false``)."""
        if isinstance(inputs, str) or not isinstance(inputs, Iterable):
            raise InvalidInputError(
                f"encode_batch takes a list of texts (or of (text, pair) tuples), not {'one str' if isinstance(inputs, str) else type(inputs).__name__}")
        items = list(inputs)
        sizes = [item_size(item) for item in items]
        try:
            if self.parallel_workers(num_threads, sizes) > 1:
                out = self.encode_in_workers(items, is_pretokenized, add_special_tokens, num_threads or 1, sizes)
            else:
                padding, self._padding = self._padding, None
                try:
                    out = [self.encode_input(item, is_pretokenized, add_special_tokens) for item in items]
                finally:
                    self._padding = padding
        except MemoryError as exc:
            raise too_large(exc, f"encoding a batch of {sized(items, 'texts')}", "encode fewer texts at a time") from None
        if self._padding is not None:
            self._pad(out)
        return out

    def encode_input(self, item: str | tuple[str, str] | list[str], is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> Encoded:
        """One input of a batch as ``encode_batch`` reads it: a text, a ``(text, pair)``, words, or
        a ``(words, words)`` pair when ``is_pretokenized``."""
        if is_pretokenized:
            # A list of words, or a (words, words) pair: a tuple of two sequences that are not str.
            if isinstance(item, tuple) and len(item) == 2 and not any(isinstance(x, str) for x in item):
                return self.encode(item[0], item[1], True, add_special_tokens)
            return self.encode(item, None, True, add_special_tokens)
        if isinstance(item, (tuple, list)):
            if len(item) != 2:
                raise InvalidInputError("a pair in encode_batch must be (text, pair)")
            return self.encode(item[0], item[1], is_pretokenized, add_special_tokens)
        return self.encode(item, None, is_pretokenized, add_special_tokens)

    def count(self, text: str, *, add_special_tokens: bool = False) -> int:
        """Number of ids ``encode(text).ids`` would hold (without special tokens unless asked), fast."""
        require_str(text)
        try:
            n = sum(map(len, self.pipeline.ids(text)))
        except MemoryError as exc:
            raise too_large(exc, f"counting {len(text):,} characters", COUNT_ADVICE) from None
        if add_special_tokens and self.post_processor is not None:
            n += self.post_processor.added_tokens(False)
        return n

    def is_within_token_limit(self, text: str, limit: int) -> int | Literal[False]:
        """The count (without special tokens) if at most ``limit``, else False as soon as it is exceeded."""
        require_str(text)
        require_count(limit, "limit")
        total = 0
        try:
            for ids in self.pipeline.ids(text):
                total += len(ids)
                if total > limit:
                    return False
        except MemoryError as exc:
            raise too_large(exc, f"counting {len(text):,} characters", COUNT_ADVICE) from None
        return total

    def _pad(self, encodings: list[Encoded]) -> None:
        p = self._padding
        assert p is not None
        length = padded_length(p, map(len, encodings))
        for e in encodings:
            e.pad(length, direction=p["direction"], pad_id=p["pad_id"], pad_type_id=p["pad_type_id"], pad_token=p["pad_token"])

    # ---------------------------------------------------------------- decoding
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of ``ids`` through the decoder (HF's semantics: special tokens skipped by default;
        ids past the vocabulary, which a model's padded embedding lets sampling pick, skipped too).
        A non-integer raises :class:`InvalidTokenError`, a negative id or one from 2**32
        :class:`TokenIdOverflowError` (an ``OverflowError`` too, as HF's)."""
        try:
            tokens = self.pipeline.tokens_of(ids, skip_special_tokens, self.get_vocab_size)
            return " ".join(tokens) if self.decoder is None else self.decoder.decode(tokens)
        except MemoryError as exc:
            raise too_large(exc, f"decoding {sized(ids, 'ids')}", DECODE_ADVICE) from None

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True, *,
                     num_threads: int | None = None) -> list[str]:
        """``decode`` each id list (over worker processes for a big batch, as ``encode_batch``)."""
        if not isinstance(sequences, Iterable) or isinstance(sequences, (str, bytes)) or any(
                isinstance(ids, int) for ids in sequences):
            raise InvalidInputError("decode_batch takes a list of id lists (one per text); decode takes one id list")
        try:
            if self.parallel_workers(num_threads, [len(ids) for ids in sequences]) > 1:
                return self.decode_in_workers([list(ids) for ids in sequences], skip_special_tokens, num_threads or 1)
            return [self.decode(ids, skip_special_tokens) for ids in sequences]
        except MemoryError as exc:
            raise too_large(exc, f"decoding a batch of {sized(sequences, 'id lists')}", "decode fewer id lists at a time") from None

    def decode_stream(self, skip_special_tokens: bool = False, ids: Sequence[int] | None = None) -> TokenizerDecodeStream:
        """A streaming decoder: ``step(id)`` returns the text that became complete (or None); HF's
        ``decoders.DecodeStream(ids, skip_special_tokens)`` bound to this tokenizer. Special tokens are
        written unless told otherwise, as HF's ``DecodeStream()`` writes them (``decode`` skips them by
        default, as HF's ``decode`` does); ``ids`` is context already shown, not given out again."""
        return TokenizerDecodeStream(self, skip_special_tokens, ids)
