"""``bytepair.Tokenizer``: Hugging Face ``tokenizers``' API over any BPE ``tokenizer.json``.

The pipeline is HF's, one stage per module: added tokens (``added_tokens/vocabulary.py``) -> normalizer
(``normalizers/``) -> pre-tokenizer (``pre_tokenizers/``) -> BPE model (``models/bpe/merges_model.py``, merging
by pair rank in ``models/bpe/pair_merge.py``) -> post-processor (``processors/``); and back through the
decoder (``decoders/``). Pieces are cached as in the tiktoken face (``models/piece_cache.py``), and
texts and ids cross the same input checks (``text/checks.py``, ``decoders/token_table.py``'s rules).

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

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from random import Random
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

from .added_tokens.vocabulary import AddedToken, AddedVocabulary
from .models.bpe.merges_model import BPEModel
from .decoders import Decoder
from .errors import InvalidArgumentError, InvalidInputError, InvalidTokenError, UnsupportedTokenizerError, VocabFormatError
from .normalizers import Normalizer
from .data.openai import CL100K_PATTERN
from .text.offsets import first_token_at, token_spans
from .models.bpe.merge import check_dropout
from .pipeline.engine import Engine
from .processors import Piecewise, PostProcessor
from .pre_tokenizers import Metaspace, PreTokenizer
from .pre_tokenizers.pattern import Pretokenizer
from .added_tokens.scan import SpecialTokenScanner
from .pipeline.stream_cuts import cutter_for
from .text.reading import DEFAULT_BLOCK_CHARS, BlockCutter, TokenCounter, read_utf8_chunks
from .pre_tokenizers import Sequence as PreSequence
from .text.checks import repair_surrogates, require_count, require_str, str_chunks

if TYPE_CHECKING:  # pragma: no cover
    from .encoding import Encoding as BytepairEncoding

__all__ = ["Encoded", "Tokenizer"]


_LAZY_FIELDS = ("tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
                "overflowing")


class Encoded:
    """What ``Tokenizer.encode`` returns, with HF ``Encoding``'s attribute names.

    ``ids`` are computed at once, through the engine's fast path; the other fields (tokens, offsets,
    masks, word ids) are built the first time one of them is read, so code that only wants ids never
    pays for them.
    """

    def __init__(self, ids: list[int], fields: dict[str, Any] | None = None,
                 build: Callable[[], Encoded] | None = None) -> None:
        self.ids = ids
        self._build = build
        if fields is not None:
            self.__dict__.update(fields)

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not set yet: the lazy fields.
        if name in _LAZY_FIELDS and self.__dict__.get("_build") is not None:
            self._materialize(name)
            return self.__dict__[name]
        raise AttributeError(name)

    def _materialize(self, reading: str = "fields") -> None:
        """Build the lazy fields now (before anything changes the ids, such as padding)."""
        build = self.__dict__.get("_build")
        if build is None:
            return
        full = build()
        self._build = None
        if full.ids != self.ids:
            raise InvalidInputError(
                "the tokenizer was changed (tokens added, truncation or padding set) between encode() and reading "
                f"this result's {reading}; read the fields you need before changing the tokenizer"
            )
        for field_name in _LAZY_FIELDS:
            self.__dict__[field_name] = full.__dict__[field_name]
        if "_pad_sequence_id" in full.__dict__:
            self._pad_sequence_id = full._pad_sequence_id

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Encoded(num_tokens={len(self.ids)}, ids={self.ids[:8]}{'...' if len(self.ids) > 8 else ''})"

    @property
    def words(self) -> list[int | None]:
        return self.word_ids

    # ---------------------------------------------------------------- HF's index lookups
    def token_to_sequence(self, token_index: int) -> int | None:
        """Which text of a pair token ``token_index`` comes from (None for an added special token)."""
        return self.sequence_ids[token_index]

    def token_to_chars(self, token_index: int) -> tuple[int, int] | None:
        """The ``[start, end)`` characters of a token in its own text (None for an added special token)."""
        return None if self.sequence_ids[token_index] is None else self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """The word (pre-tokenized piece) a token belongs to, counted in its own text."""
        return self.word_ids[token_index]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The first token of text ``sequence_index`` that holds character ``char_pos`` (several do
        where a character is split into byte tokens); None if none does.

        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> enc = tok.encode("hi 🫠", add_special_tokens=False)
        >>> enc.char_to_token(0), enc.char_to_token(3), enc.token_to_chars(3), enc.char_to_token(9)
        (0, 1, (3, 4), None)
        """
        own = [i for i, sequence in enumerate(self.sequence_ids) if sequence == sequence_index]
        if not own:
            return None
        lo, hi = own[0], own[-1] + 1  # a text's tokens are contiguous
        index = first_token_at(self.offsets[lo:hi], char_pos)
        return None if index is None else lo + index

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word holding character ``char_pos`` of text ``sequence_index``."""
        index = self.char_to_token(char_pos, sequence_index)
        return None if index is None else self.word_ids[index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The ``[first, last + 1)`` token range of word ``word_index`` of text ``sequence_index``."""
        found = [i for i, (sequence, word) in enumerate(zip(self.sequence_ids, self.word_ids))
                 if sequence == sequence_index and word == word_index]
        return (found[0], found[-1] + 1) if found else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The ``[start, end)`` characters of word ``word_index`` of text ``sequence_index``."""
        tokens = self.word_to_tokens(word_index, sequence_index)
        return None if tokens is None else (self.offsets[tokens[0]][0], self.offsets[tokens[1] - 1][1])

    @property
    def n_sequences(self) -> int:
        """How many texts this encodes: 1, or 2 for a pair (an empty text counts, as in HF)."""
        given = self.__dict__.get("_n_sequences")
        return given if given is not None else max(1, len({s for s in self.sequence_ids if s is not None}))

    @classmethod
    def _from(cls, seq: Piecewise) -> Encoded:
        return cls(list(seq.ids), {
            "tokens": list(seq.tokens), "offsets": list(seq.offsets), "type_ids": list(seq.type_ids),
            "attention_mask": [1] * len(seq.ids), "special_tokens_mask": list(seq.special_tokens_mask),
            "word_ids": list(seq.word_ids), "sequence_ids": list(seq.sequence_ids), "overflowing": [],
        })

    def pad(self, length: int, *, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
            pad_token: str = "[PAD]") -> None:
        """Pad to ``length`` (nothing if already as long), on the right or the left (keywords only,
        as in HF)."""
        if direction not in ("right", "left"):
            raise InvalidInputError(f"padding direction must be 'right' or 'left', not {direction!r}")
        for extra in self.__dict__.get("overflowing", ()):  # HF pads the overflows first, whatever the main length
            extra.pad(length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id, pad_token=pad_token)
        n = length - len(self.ids)
        if n <= 0:
            return
        self._materialize()
        # Padding has no sequence id, except where HF keeps no sequence ranges (one text, no
        # post-processor): its sequence_ids are then 0 throughout, padding included.
        pad_sequence_id = self.__dict__.get("_pad_sequence_id")
        for name, value in (("ids", pad_id), ("tokens", pad_token), ("offsets", (0, 0)), ("type_ids", pad_type_id),
                            ("attention_mask", 0), ("special_tokens_mask", 1), ("word_ids", None), ("sequence_ids", pad_sequence_id)):
            values = getattr(self, name)
            setattr(self, name, values + [value] * n if direction == "right" else [value] * n + values)


_NAMES = ("ids", "tokens", "offsets", "type_ids", "special_tokens_mask", "word_ids", "sequence_ids")


def _words(sequence: object, name: str) -> list[str]:
    """A pre-tokenized ``sequence`` as a list of words, or :class:`InvalidInputError` saying what
    ``is_pretokenized=True`` takes."""
    if isinstance(sequence, str) or not isinstance(sequence, (list, tuple)):
        raise InvalidInputError(
            f"with is_pretokenized=True, {name} must be a list of words (str), not {type(sequence).__name__}; "
            "pass one text without is_pretokenized"
        )
    for word in sequence:
        require_str(word, f"each word of {name}")
    return list(sequence)


def _piecewise(encoding: Encoded, sequence_id: int = 0) -> Piecewise:
    """An encoding's fields as the lists the post-processor works on. Its type ids stay as they are
    (a post-processor's template sets its own; with none, HF keeps them)."""
    return Piecewise(list(encoding.ids), list(encoding.tokens), list(encoding.offsets), list(encoding.type_ids),
                     list(encoding.special_tokens_mask), list(encoding.word_ids), [sequence_id] * len(encoding.ids))


def _slice(seq: Piecewise, start: int, stop: int) -> Piecewise:
    return Piecewise(*(getattr(seq, name)[start:stop] for name in _NAMES))


def _longest_first(n1: int, n2: int, budget: int) -> tuple[int, int]:
    """How many tokens of each sequence ``longest_first`` keeps (HF's rule): the shorter keeps all
    it can up to half the budget, the longer the rest; if both are too long they split the budget,
    the odd token going to the longer one (to the second when they are equally long).

    >>> _longest_first(10, 3, 8), _longest_first(10, 9, 7), _longest_first(9, 9, 7), _longest_first(5, 9, 8)
    ((5, 3), (4, 3), (3, 4), (4, 4))
    """
    short, long_ = min(n1, n2), max(n1, n2)
    keep_long = short if short > budget else max(short, budget - short)
    keep_short = short
    if keep_short + keep_long > budget:
        keep_short = budget // 2
        keep_long = keep_short + budget % 2
    return (keep_long, keep_short) if n1 > n2 else (keep_short, keep_long)


def _windows(seq: Piecewise, max_len: int, stride: int, direction: str) -> list[Piecewise]:
    """``seq`` cut to ``max_len`` tokens, with the overflow in further windows overlapping by ``stride``
    (HF's truncation): the first window is the kept one."""
    n = len(seq.ids)
    if n <= max_len:
        return [seq]
    if max_len == 0:
        return [Piecewise(), seq]
    step = max_len - stride
    if step <= 0:
        raise InvalidInputError(f"truncation stride ({stride}) must be smaller than the length left for the text ({max_len})")
    starts = list(range(0, n, step))
    while len(starts) > 1 and starts[-2] + max_len >= n:
        starts.pop()
    if direction == "right":
        return [_slice(seq, s, min(s + max_len, n)) for s in starts]
    return [_slice(seq, max(0, n - s - max_len), n - s) for s in starts]


class Tokenizer:
    """A ``tokenizer.json`` BPE tokenizer with HF ``tokenizers``' methods and results."""

    def __init__(
        self,
        model: BPEModel,
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
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        self._added = AddedVocabulary(list(added_tokens))
        self._source = source or {}
        self.engine = engine if engine is not None else Engine(model, pre_tokenizer)
        """Pre-tokenizer, model and piece cache: the same engine as ``Encoding``'s."""
        self._padding: dict[str, Any] | None = None
        self._truncation: dict[str, Any] | None = None
        self._metaspaces = _metaspaces(pre_tokenizer)
        self._token_strings = _IdStrings(self)
        self.encode_special_tokens = False
        """When True, special added tokens in the text are encoded as text (HF's flag)."""

    # ---------------------------------------------------------------- loading and saving
    @classmethod
    def from_str(cls, json_text: str) -> Tokenizer:
        """Build from the text of a ``tokenizer.json``."""
        from .pipeline.tokenizer_json import tokenizer_from_json

        return tokenizer_from_json(json_text)

    @classmethod
    def from_encoding(cls, encoding: str | BytepairEncoding) -> Tokenizer:
        """An OpenAI encoding (a name or an ``Encoding``) with this API, on the very same engine and
        piece cache: special tokens are special added tokens, ids decode through ByteLevel.

        >>> Tokenizer.from_encoding("o200k_base").encode("hello world").tokens
        ['hello', 'Ġworld']
        """
        from .decoders import ByteLevel as ByteLevelDecoder
        from .encoding import Encoding as EncodingClass
        from .pre_tokenizers import Split
        from .registry import get_encoding

        enc = get_encoding(encoding) if isinstance(encoding, str) else encoding
        if not isinstance(enc, EncodingClass):
            raise InvalidInputError(f"from_encoding takes an encoding name or a bytepair.Encoding, not {type(encoding).__name__}")
        specials = sorted((enc.encode_single_token(t), t) for t in enc.special_tokens_set)
        tok = cls(
            enc.engine.model,  # type: ignore[arg-type]
            pre_tokenizer=Split(enc.engine.pre_tokenizer.pattern, "isolated", dialect="tiktoken"),  # type: ignore[union-attr]
            decoder=ByteLevelDecoder(),
            added_tokens=[AddedToken(text, special=True, normalized=False, id=token_id) for token_id, text in specials],
            engine=enc.engine,
        )
        tok.encoding_name = enc.name
        return tok

    encoding_name: str | None = None
    """The OpenAI encoding a tokenizer made by ``from_encoding`` stands for (else None)."""

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """Build from a ``tokenizer.json`` file."""
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise InvalidInputError(f"from_file takes the path of a tokenizer.json, not {type(path).__name__} (from_str takes its text)")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise VocabFormatError(f"cannot read {os.fsdecode(path)!r}: {exc.strerror or exc}") from None
        return cls.from_buffer(data, origin=os.fsdecode(path))

    @classmethod
    def from_buffer(cls, data: bytes, *, origin: str = "tokenizer.json") -> Tokenizer:
        """Build from the bytes of a ``tokenizer.json``, or of its packed form (``to_packed``)."""
        from .pipeline.tokenizer_json import tokenizer_from_json
        from .pipeline.packed_tokenizer import MAGIC, load_packed_tokenizer

        if bytes(data[: len(MAGIC)]) == MAGIC:
            tok: Tokenizer = load_packed_tokenizer(bytes(data), origin=origin)
            return tok
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise VocabFormatError(f"{origin}: not UTF-8 JSON (bad byte at offset {exc.start})") from None
        return tokenizer_from_json(text, origin=origin)

    def to_packed(self) -> bytes:
        """The compact form of this tokenizer (``pipeline/packed_tokenizer.py``): a third of the JSON's
        size or less, loaded two to three times faster; ``from_buffer``/``from_file`` read it."""
        from .pipeline.packed_tokenizer import pack_tokenizer_json

        return pack_tokenizer_json(self.to_str())

    @classmethod
    def from_pretrained(cls, identifier: str | os.PathLike[str], **_: Any) -> Tokenizer:
        """Build from a local folder holding ``tokenizer.json`` (there is no hub access here)."""
        path = os.fspath(identifier)
        if os.path.isdir(path):
            file = os.path.join(path, "tokenizer.json")
            if not os.path.isfile(file):
                raise VocabFormatError(f"{path!r} holds no tokenizer.json; put the model's tokenizer.json there")
            tok = cls.from_file(file)
            config = os.path.join(path, "tokenizer_config.json")
            if os.path.isfile(config):
                with open(config, encoding="utf-8") as f:
                    try:
                        tok.config = json.load(f)
                    except ValueError as exc:
                        raise VocabFormatError(f"{config}: not valid JSON ({exc})") from None
            tok._load_chat_settings(path, config)
            return tok
        raise UnsupportedTokenizerError(
            f"from_pretrained({path!r}): bytepair does not download from the Hugging Face hub (it works offline); "
            "pass a local folder holding tokenizer.json (and tokenizer_config.json), or use Tokenizer.from_file"
        )

    config: dict[str, Any] | None = None
    """``tokenizer_config.json`` of a folder loaded with ``from_pretrained`` (else None)."""

    chat_template: str | dict[str, str] | None = None
    """The chat template (Jinja source, or ``{name: source}``) from ``tokenizer_config.json`` or
    ``chat_template.jinja`` of a folder loaded with ``from_pretrained``; may be set by hand."""

    chat_template_origin: str = "this tokenizer"
    """Where ``chat_template`` was looked for (named in errors)."""

    _chat_tokens: dict[str, str] | None = None

    @property
    def special_tokens_map(self) -> dict[str, str]:
        """The token strings templates read (``bos_token``, ``eos_token``, ...) from ``tokenizer_config.json``."""
        return dict(self._chat_tokens or {})

    def _load_chat_settings(self, folder: str, config_path: str) -> None:
        from .llm.chat_template import template_settings

        jinja_path = os.path.join(folder, "chat_template.jinja")
        jinja_text = None
        if os.path.isfile(jinja_path):
            with open(jinja_path, encoding="utf-8") as f:
                jinja_text = f.read()
        self.chat_template, self._chat_tokens = template_settings(self.config or {}, jinja_text)
        self.chat_template_origin = jinja_path if jinja_text is not None else config_path

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
        ``tokenizer_kwargs`` are refused. The default answer is a list of ids, as in transformers 4
        (transformers 5 returns its dict form unless told ``return_dict=False``). See docs/CHAT.md
        and ``llm/chat_template.py``."""
        from .llm.chat_template import apply_chat_template

        return apply_chat_template(
            self, messages, add_generation_prompt=add_generation_prompt, tokenize=tokenize, return_dict=return_dict,
            return_assistant_tokens_mask=return_assistant_tokens_mask, tools=tools, special_text=special_text,
            **template_kwargs,
        )

    def to_str(self, pretty: bool = False) -> str:
        """The ``tokenizer.json`` text: the loaded file with the current added tokens, padding and
        truncation; for a tokenizer made by :meth:`from_encoding`, a file HF ``tokenizers`` encodes
        the same way (``pipeline/tokenizer_json.py``'s ``rank_table_json``)."""
        data = dict(self._source) if self._source else self._rank_table_json()
        data.setdefault("version", "1.0")
        data["truncation"] = self._truncation_json()
        data["padding"] = self._padding_json()
        data["added_tokens"] = [t.to_json() for t in self._added]
        from .pipeline.tokenizer_json import renumbered_by_hf

        renumbered = renumbered_by_hf(data.get("model", {}).get("vocab"), [(t.content, t.id) for t in self._added])
        if renumbered:
            # HF ignores the id of an added token its model vocabulary lacks and numbers it after the
            # vocabulary (an extended or grown one moves them all): such tokens go in the vocabulary
            # too, where HF reads their ids (as rank_table_json writes special tokens).
            data["model"] = {**data["model"], "vocab": {**data["model"]["vocab"], **renumbered}}
        return json.dumps(data, ensure_ascii=False, indent=2 if pretty else None)

    def _rank_table_json(self) -> dict[str, Any]:
        from .pipeline.tokenizer_json import rank_table_json

        ranks, pattern = getattr(self.model, "ranks", None), getattr(self.pre_tokenizer, "pattern", None)
        if ranks is None or pattern is None:  # pragma: no cover - every Tokenizer has a source or ranks
            raise UnsupportedTokenizerError("this tokenizer has neither a tokenizer.json source nor a rank table to write")
        return rank_table_json(pattern, ranks, {t.content: t.id for t in self._added})

    def save(self, path: str | os.PathLike[str], pretty: bool = True) -> None:
        """Write ``to_str()`` to ``path``, for HF ``tokenizers`` and transformers'
        ``PreTrainedTokenizerFast(tokenizer_file=...)``; atomically (``formats/atomic.py``): a failed
        write leaves no half file and an older file at ``path`` untouched."""
        from .formats.atomic import write_file

        write_file(path, self.to_str(pretty).encode("utf-8"))

    # ---------------------------------------------------------------- other formats
    def save_model(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """The model as GPT-2 / HF ``vocab.json`` + ``merges.txt`` in ``folder`` (``{prefix}-vocab.json``
        ... with a prefix), as HF's ``tokenizer.model.save``; returns the two paths. Only the model:
        the pre-tokenizer, added tokens and the rest stay in ``tokenizer.json``."""
        from .text.byte_unicode import bytes_to_visible
        from .formats.atomic import write_files
        from .formats.gpt2_files import dump_bpe_files
        from .formats.rank_table import merges_from_ranks

        ranks = getattr(self.model, "ranks", None)
        if ranks is not None:
            merges: Any = [(bytes_to_visible(a), bytes_to_visible(b)) for a, b in merges_from_ranks(ranks)]
        else:
            merges = self.model.merges
        vocab_json, merges_txt = dump_bpe_files(self.model.vocab, merges)
        names = ("vocab.json", "merges.txt") if prefix is None else (f"{prefix}-vocab.json", f"{prefix}-merges.txt")
        folder = os.fspath(folder)
        return write_files({os.path.join(folder, names[0]): vocab_json, os.path.join(folder, names[1]): merges_txt})

    @classmethod
    def from_gpt2_files(cls, vocab_json: str | os.PathLike[str], merges_txt: str | os.PathLike[str], *,
                        pattern: str | None = None) -> Tokenizer:
        """A byte-level BPE tokenizer from ``vocab.json`` + ``merges.txt`` (GPT-2's ``encoder.json`` +
        ``vocab.bpe`` too), as HF's ``BPE.from_file`` with a ByteLevel pre-tokenizer and decoder: GPT-2's
        split, or ``pattern`` (an Oniguruma regex, as in tokenizer.json) when given."""
        from .formats.gpt2_files import parse_bpe_files
        from .pipeline.tokenizer_json import tokenizer_from_json

        contents = []
        for path in (vocab_json, merges_txt):
            try:
                with open(path, "rb") as f:
                    contents.append(f.read())
            except OSError as exc:
                raise VocabFormatError(f"cannot read {os.fsdecode(path)!r}: {exc.strerror or exc}") from None
        origin = f"{os.fspath(vocab_json)} + {os.fspath(merges_txt)}"
        vocab, merges = parse_bpe_files(contents[0], contents[1], origin=origin)
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": pattern is None}
        pre = byte_level if pattern is None else {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}, byte_level]}
        return tokenizer_from_json({
            "version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": pre, "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "vocab": vocab, "merges": [list(pair) for pair in merges]},
        }, origin=origin)

    def to_encoding(self, name: str | None = None, *, drop_normalizer: bool = False) -> BytepairEncoding:
        """This tokenizer as a :class:`bytepair.Encoding` (tiktoken's API): the split pattern, the
        vocabulary as ranks (id = rank) and the added tokens as special tokens. Only for byte-level
        BPE whose merges follow id order; else :class:`~bytepair.errors.UnsavableError` says why (a
        byte-fallback model such as Llama 2, a merge order other than the id order, a pre-tokenizer
        tiktoken has no equivalent for). A normalizer (Qwen's NFC) is refused unless
        ``drop_normalizer``: the encoding would then differ on text the normalizer changes. The
        post-processor is not carried over (compare with ``add_special_tokens=False``).

        >>> enc = Tokenizer.from_encoding("r50k_base").to_encoding("copy")
        >>> enc.encode("hello world"), enc.name
        ([31373, 995], 'copy')
        """
        from .encoding import Encoding as EncodingClass
        from .errors import UnsavableError

        label = name or self.encoding_name or "tokenizer"
        ranks = self._rank_table()
        if self.normalizer is not None and not drop_normalizer:
            raise UnsavableError(
                f"this tokenizer normalizes text first ({type(self.normalizer).__name__}), which a tiktoken Encoding "
                "cannot do; pass drop_normalizer=True to convert anyway (ids then differ on text the normalizer changes)"
            )
        if getattr(self.model, "ranks", None) is not None:  # made by from_encoding: the encoding's own pattern
            pattern = self.pre_tokenizer.pattern  # type: ignore[union-attr]
        else:
            pattern = _tiktoken_pattern(self.pre_tokenizer)
        taken = set(ranks.values())
        specials = {t.content: t.id for t in self._added if t.id not in taken}
        return EncodingClass(label, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)

    def _rank_table(self) -> dict[bytes, int]:
        """Token bytes -> id, when the model is byte-level BPE with merges in id order."""
        from .errors import UnsavableError
        from .formats.rank_table import ranks_from_merges

        ranks = getattr(self.model, "ranks", None)
        if ranks is not None:
            return dict(ranks)
        model = self.model
        if not model.byte_level or model.byte_fallback or model.continuing_subword_prefix or model.end_of_word_suffix:
            kind = "byte-fallback (<0xNN> tokens, as Llama 2)" if model.byte_fallback else "not byte-level"
            raise UnsavableError(
                f"this BPE model is {kind}: its tokens are text pieces, not the byte strings a rank table "
                "(.tiktoken, minbpe) holds; save it as tokenizer.json or vocab.json + merges.txt instead"
            )
        added = {t.content for t in self._added}
        vocab = {token: i for token, i in model.vocab.items() if token not in added} if added else model.vocab
        return ranks_from_merges(vocab, model.merges)

    def save_tiktoken(self, path: str | os.PathLike[str]) -> None:
        """The vocabulary as a ``.tiktoken`` file (``base64(token) rank`` lines, rank = id), atomically.
        Only byte-level BPE with merges in id order (see :meth:`to_encoding`); the pattern and special
        tokens are not part of that format: take them from ``to_encoding()``."""
        from .formats.atomic import write_file
        from .formats.tiktoken_file import dump_tiktoken_bpe

        write_file(path, dump_tiktoken_bpe(self._rank_table()))

    def save_minbpe(self, prefix: str | os.PathLike[str], *, drop_normalizer: bool = False) -> list[str]:
        """minbpe's ``prefix.model`` + ``prefix.vocab`` (see ``Encoding.save_minbpe``); returns the paths."""
        return self.to_encoding(drop_normalizer=drop_normalizer).save_minbpe(prefix)

    def manifest(self) -> dict[str, Any]:
        """What this tokenizer is, as JSON, with hashes of a canonical form of what decides its ids
        (see ``pipeline/manifest.py``): the same for a re-saved or pretty-printed file.

        >>> m = Tokenizer.from_encoding("cl100k_base").manifest()
        >>> m["kind"], m["sha256"] == __import__("bytepair").get_encoding("cl100k_base").manifest()["sha256"]
        ('tokenizer.json', True)
        """
        from .pipeline.manifest import manifest

        return manifest(self)

    # ---------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> int | None:
        found = self._added.token_to_id(token)
        return found if found is not None else self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        found = self._added.id_to_token(token_id)
        return found if found is not None else self.model.id_to_token(token_id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        vocab = dict(self.model.vocab)
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
        if isinstance(tokens, (str, AddedToken)) or not isinstance(tokens, Iterable):
            what = "add_special_tokens" if special else "add_tokens"
            raise InvalidInputError(
                f"{what} takes a list of tokens, not {type(tokens).__name__}: a string would add each of its characters; "
                f"write {what}([{tokens!r}])" if isinstance(tokens, (str, AddedToken)) else
                f"{what} takes a list of str or AddedToken, not {type(tokens).__name__}"
            )
        added = 0
        for token in tokens:
            if isinstance(token, str):
                content, flags = token, None
            elif all(hasattr(token, a) for a in ("content", "single_word", "lstrip", "rstrip", "normalized", "special")):
                content, flags = token.content, token  # bytepair's AddedToken, or HF's tokenizers.AddedToken
            else:
                raise InvalidInputError(f"tokens must be str or AddedToken, not {type(token).__name__}")
            if not isinstance(content, str):
                raise InvalidInputError(f"an added token's content must be a str, not {type(content).__name__}")
            if not content:
                raise InvalidInputError("an added token must not be empty")
            token_id = self.token_to_id(content)
            if token_id is None:
                token_id = max(self.get_vocab(True).values(), default=-1) + 1
            is_special = special or bool(flags and flags.special)
            # HF: a flag the caller set is kept; an unset one is "normalized unless special".
            explicit = flags.normalized if flags is not None else None
            new = AddedToken(
                content, special=is_special,
                lstrip=bool(flags and flags.lstrip), rstrip=bool(flags and flags.rstrip),
                single_word=bool(flags and flags.single_word),
                normalized=bool(explicit) if explicit is not None else not is_special, id=token_id,
            )
            added += self._added.add(new)
        return added

    # ---------------------------------------------------------------- padding and truncation
    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0, pad_token: str = "[PAD]",
                       length: int | None = None, pad_to_multiple_of: int | None = None) -> None:
        if direction not in ("right", "left"):
            raise InvalidInputError(f"padding direction must be 'right' or 'left', not {direction!r}")
        for option, value in (("pad_id", pad_id), ("pad_type_id", pad_type_id), ("length", length),
                              ("pad_to_multiple_of", pad_to_multiple_of)):
            if value is not None or option in ("pad_id", "pad_type_id"):
                require_count(value, option)
        if not isinstance(pad_token, str):
            raise InvalidInputError(f"pad_token must be a str, not {type(pad_token).__name__}")
        self._padding = {"direction": direction, "pad_id": pad_id, "pad_type_id": pad_type_id, "pad_token": pad_token,
                         "length": length, "pad_to_multiple_of": pad_to_multiple_of}

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> dict[str, Any] | None:
        return None if self._padding is None else dict(self._padding)

    def enable_truncation(self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right") -> None:
        if strategy not in ("longest_first", "only_first", "only_second"):
            raise InvalidInputError(f"truncation strategy must be longest_first, only_first or only_second, not {strategy!r}")
        if direction not in ("right", "left"):
            raise InvalidInputError(f"truncation direction must be 'right' or 'left', not {direction!r}")
        require_count(max_length, "max_length")
        require_count(stride, "stride")
        room = max_length - self.num_special_tokens_to_add(False)
        if 0 <= room < stride:  # HF's check (it skips a max_length below the special tokens' number)
            raise InvalidArgumentError(
                f"truncation stride ({stride}) must not exceed the length left for the text ({room} of max_length "
                f"{max_length}, the rest being special tokens); lower the stride or raise max_length"
            )
        self._truncation = {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> dict[str, Any] | None:
        return None if self._truncation is None else dict(self._truncation)

    def _padding_json(self) -> dict[str, Any] | None:
        p = self._padding
        if p is None:
            return None
        strategy: Any = {"Fixed": p["length"]} if p["length"] is not None else "BatchLongest"
        return {"strategy": strategy, "direction": p["direction"].capitalize(), "pad_to_multiple_of": p["pad_to_multiple_of"],
                "pad_id": p["pad_id"], "pad_type_id": p["pad_type_id"], "pad_token": p["pad_token"]}

    def _truncation_json(self) -> dict[str, Any] | None:
        t = self._truncation
        if t is None:
            return None
        strategy = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}[t["strategy"]]
        return {"direction": t["direction"].capitalize(), "max_length": t["max_length"], "strategy": strategy, "stride": t["stride"]}

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
            sequence = _words(sequence, "sequence")
            if pair is not None:
                pair = _words(pair, "pair")
        else:
            require_str(sequence, "sequence")
            if pair is not None:
                require_str(pair, "pair")
        p = check_dropout(getattr(self.model, "dropout", 0.0) if dropout is None else dropout)
        if p:
            rng = Random(seed)
            model = self.model

            def piece_ids(piece: str) -> tuple[int, ...]:
                return model.encode_piece(piece, dropout=p, rng=rng)  # type: ignore[call-arg]

            result = self._encode_full(sequence, pair, add_special_tokens, pad=self._padding is not None, piece_ids=piece_ids)
        elif self._truncation is None and self._padding is None:
            # Ids by the fast path (the post-processor needs only ids to add its special tokens);
            # everything else is built if and when it is read.
            first_ids = Piecewise(ids=self._sequence_ids(sequence))
            second_ids = None if pair is None else Piecewise(ids=self._sequence_ids(pair))
            ids = self._processor().process(first_ids, second_ids, add_special_tokens).ids
            # Built as it was encoded: without truncation even if some is set before the fields are read.
            result = Encoded(ids, build=lambda: self._encode_full(sequence, pair, add_special_tokens, pad=False, truncate=False))
        else:
            result = self._encode_full(sequence, pair, add_special_tokens, pad=self._padding is not None)
        result._n_sequences = 1 if pair is None else 2  # as HF counts them, empty ones included
        return result

    def _sequence_ids(self, sequence: str | list[str]) -> list[int]:
        """The ids of a text, or of a list of words each encoded as a text of its own."""
        if isinstance(sequence, str):
            return list(chain.from_iterable(self._id_chunks(sequence)))
        return [i for word in sequence for i in chain.from_iterable(self._id_chunks(word))]

    def _encode_full(self, sequence: str | list[str], pair: str | list[str] | None, add_special_tokens: bool, *,
                     pad: bool, piece_ids: Callable[[str], tuple[int, ...]] | None = None, truncate: bool = True) -> Encoded:
        first = self._encode_any(sequence, 0, piece_ids)
        second = None if pair is None else self._encode_any(pair, 1, piece_ids)
        encoded = self._post_process(first, second, add_special_tokens, truncate=truncate)
        if pad:
            self._pad([encoded])
        return encoded

    def _encode_any(self, sequence: str | list[str], type_id: int,
                    piece_ids: Callable[[str], tuple[int, ...]] | None = None) -> Piecewise:
        """``_encode_sequence`` of a text; of a list of words, each word's, joined as HF joins them:
        every token of word ``i`` has word id ``i``, offsets stay within their word."""
        if isinstance(sequence, str):
            return self._encode_sequence(sequence, type_id, piece_ids)
        out = Piecewise()
        for index, word in enumerate(sequence):
            part = self._encode_sequence(word, type_id, piece_ids)
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
        first = _piecewise(encoding)
        second = None if pair is None else _piecewise(pair, sequence_id=1)
        if second is not None and self.post_processor is not None:
            # HF's post-processors number a pair's sequences 0 and 1 in their type ids (a template
            # then sets its own); with none, the encodings keep theirs.
            first.type_ids, second.type_ids = [0] * len(first.ids), [1] * len(second.ids)
        encoded = self._post_process(first, second, add_special_tokens)
        encoded._n_sequences = 1 if pair is None else 2
        if self._padding is not None:
            self._pad([encoded])
        return encoded

    def _processor(self) -> PostProcessor:
        return self.post_processor if self.post_processor is not None else PostProcessor()

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many ids the post-processor adds to one sequence (or a pair), as HF's method says."""
        return 0 if self.post_processor is None else self.post_processor.added_tokens(bool(is_pair))

    def encode_batch_fast(self, inputs: Sequence[str | tuple[str, str] | list[str]], is_pretokenized: bool = False,
                          add_special_tokens: bool = True) -> list[Encoded]:
        """HF's ``encode_batch`` without offsets; here the same as ``encode_batch`` (offsets are
        worked out only when read)."""
        return self.encode_batch(inputs, is_pretokenized, add_special_tokens)

    def encode_batch(self, inputs: Sequence[str | tuple[str, str] | list[str]], is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> list[Encoded]:
        """``encode`` each input (a text or a ``(text, pair)``); padding applies to the batch's longest."""
        if isinstance(inputs, str) or not isinstance(inputs, Iterable):
            raise InvalidInputError(
                f"encode_batch takes a list of texts (or of (text, pair) tuples), not {'one str' if isinstance(inputs, str) else type(inputs).__name__}")
        padding, self._padding = self._padding, None
        try:
            out = []
            for item in inputs:
                if is_pretokenized:
                    # A list of words, or a (words, words) pair: a tuple of two sequences that are not str.
                    if isinstance(item, tuple) and len(item) == 2 and not any(isinstance(x, str) for x in item):
                        out.append(self.encode(item[0], item[1], True, add_special_tokens))
                    else:
                        out.append(self.encode(item, None, True, add_special_tokens))
                elif isinstance(item, (tuple, list)):
                    if len(item) != 2:
                        raise InvalidInputError("a pair in encode_batch must be (text, pair)")
                    out.append(self.encode(item[0], item[1], is_pretokenized, add_special_tokens))
                else:
                    out.append(self.encode(item, None, is_pretokenized, add_special_tokens))
        finally:
            self._padding = padding
        if self._padding is not None:
            self._pad(out)
        return out

    def count(self, text: str, *, add_special_tokens: bool = False) -> int:
        """Number of ids ``encode(text).ids`` would hold (without special tokens unless asked), fast."""
        require_str(text)
        n = sum(map(len, self._ids(text)))
        if add_special_tokens and self.post_processor is not None:
            n += self.post_processor.added_tokens(False)
        return n

    def is_within_token_limit(self, text: str, limit: int) -> int | Literal[False]:
        """The count (without special tokens) if at most ``limit``, else False as soon as it is exceeded."""
        require_str(text)
        require_count(limit, "limit")
        total = 0
        for ids in self._ids(text):
            total += len(ids)
            if total > limit:
                return False
        return total

    # ---------------------------------------------------------------- text in chunks
    def block_cutter(self, block_chars: int = DEFAULT_BLOCK_CHARS) -> BlockCutter:
        """A cutter that gathers chunks of text into blocks that encode exactly on their own: cut where
        this pipeline keeps piece boundaries (``pipeline/stream_cuts.py``: Llama 3, Qwen, DeepSeek V3, GPT-2 and
        the OpenAI patterns), clear of any added token's text. Any other pipeline is not cut: the
        whole text is one block, held until the end."""
        cuts = cutter_for(self.normalizer, self.pre_tokenizer, list(self._added))
        scanner = SpecialTokenScanner({token.content: token.id for token in self._added})
        return BlockCutter(cuts or Pretokenizer(CL100K_PATTERN, cuttable=False), scanner, block_chars)

    def stream_blocks(self, chunks: Iterable[str], block_chars: int = DEFAULT_BLOCK_CHARS) -> Iterator[str]:
        """The text of ``chunks`` in blocks of about ``block_chars`` characters that encode exactly on
        their own (see ``block_cutter``)."""
        cutter = self.block_cutter(block_chars)
        for chunk in str_chunks(chunks):
            yield from cutter.push(chunk)
        last = cutter.finish()
        if last:
            yield last

    def encode_stream(self, chunks: Iterable[str]) -> Iterator[list[int]]:
        """The ids of text that arrives in chunks, block by block, without special tokens added;
        joined, they are ``encode("".join(chunks), add_special_tokens=False).ids``."""
        for block in self.stream_blocks(chunks):
            yield list(chain.from_iterable(self._id_chunks(block)))

    def count_stream(self, chunks: Iterable[str], *, add_special_tokens: bool = False) -> int:
        """``count("".join(chunks))`` in bounded memory where the pipeline can be cut (``block_cutter``)."""
        n = sum(map(self.count, self.stream_blocks(chunks)))
        if add_special_tokens and self.post_processor is not None:
            n += self.post_processor.added_tokens(False)
        return n

    def count_file(self, file: str | os.PathLike[str] | BinaryIO, *, errors: str = "strict", add_special_tokens: bool = False) -> int:
        """Tokens in a file (a path or a file opened ``"rb"``), read a megabyte at a time and decoded
        as UTF-8 exactly (CR, CRLF and a BOM kept; invalid UTF-8 raises :class:`InputDecodeError`
        naming the byte offset unless ``errors="replace"``).

        >>> import io
        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> tok.count_file(io.BytesIO(b"a\\r\\n\\r\\n  b\\r\\n"))
        5
        """
        return self.count_stream(read_utf8_chunks(file, errors=errors), add_special_tokens=add_special_tokens)

    def token_counter(self, *, errors: str = "strict") -> TokenCounter:
        """A counter handed text or UTF-8 bytes piece by piece (``feed``, ``feed_bytes``, then
        ``finish()``); see :class:`bytepair.text.reading.TokenCounter`."""
        return TokenCounter(self.block_cutter(), self.count, errors=errors)

    def _ids(self, text: str) -> Iterator[tuple[int, ...]]:
        """Ids of one text without post-processing, as a stream of tuples (the fast path)."""
        text = repair_surrogates(text)
        for segment, token_id, start, _ in self._added.split(text, normalized=False, skip_special=self.encode_special_tokens):
            if token_id is not None:
                yield (token_id,)
                continue
            if self.normalizer is not None:
                segment = self.normalizer.normalize(segment)
            for part, part_id, _, _ in self._added.split(segment, normalized=True, skip_special=self.encode_special_tokens, normalizer=self.normalizer):
                if part_id is not None:
                    yield (part_id,)
                    continue
                self._set_first(start == 0)
                yield from self.engine.piece_ids(part)

    def _id_chunks(self, text: str) -> Iterable[tuple[int, ...]]:
        """``_ids`` for a caller that reads everything: the same tuples, chained in C rather than
        passed through a generator one piece at a time (~5% of a first pass on Chinese). Each
        segment is split when it is reached in the loop, as in ``_ids``, so the Metaspace flag set
        before it holds; a pre-tokenizer that splits lazily, block by block, keeps ``_ids``."""
        if self.engine.cuttable:
            return self._ids(text)
        text = repair_surrogates(text)
        chunks: list[Iterable[tuple[int, ...]]] = []
        for segment, token_id, start, _ in self._added.split(text, normalized=False, skip_special=self.encode_special_tokens):
            if token_id is not None:
                chunks.append(((token_id,),))
                continue
            if self.normalizer is not None:
                segment = self.normalizer.normalize(segment)
            for part, part_id, _, _ in self._added.split(segment, normalized=True, skip_special=self.encode_special_tokens, normalizer=self.normalizer):
                if part_id is not None:
                    chunks.append(((part_id,),))
                    continue
                self._set_first(start == 0)
                chunks.append(self.engine.piece_ids(part))
        return chain.from_iterable(chunks)

    def _set_first(self, first: bool) -> None:
        for step in self._metaspaces:
            step.first_segment = first

    def _encode_sequence(self, text: str, type_id: int, piece_ids: Callable[[str], tuple[int, ...]] | None = None) -> Piecewise:
        """One sequence with tokens, offsets into ``text`` and word ids; ``piece_ids`` gives a
        piece's ids (default: the engine's cache)."""
        ids_of = self.engine.cache.__getitem__ if piece_ids is None else piece_ids
        repaired = repair_surrogates(text)
        out = Piecewise()
        word = 0
        for segment, token_id, start, end in self._added.split(repaired, normalized=False, skip_special=self.encode_special_tokens):
            if token_id is not None:
                out.add_added_token(token_id, segment, (start, end), type_id, word)  # with what lstrip/rstrip took
                word += 1
                continue
            if self.normalizer is not None:
                normalized, align = self.normalizer.normalize_aligned(segment)
            else:
                normalized, align = segment, None
            for part, part_id, p_start, p_end in self._added.split(normalized, normalized=True, skip_special=self.encode_special_tokens, normalizer=self.normalizer):
                o_start, o_end = _to_original(align, p_start, p_end, start)
                if part_id is not None:
                    out.add_added_token(part_id, part, (o_start, o_end), type_id, word)
                    word += 1
                    continue
                self._set_first(start == 0)
                pieces_done = self._fast_offsets(out, part, p_start, align, start, type_id, word, ids_of)
                if pieces_done is not None:
                    word += pieces_done
                    continue
                spans = [(part, 0, len(part))] if self.pre_tokenizer is None else self.pre_tokenizer.spans(part)
                for piece, s, e in spans:
                    ids = ids_of(piece)
                    for token_id2, (ts, te) in zip(ids, self._token_char_spans(piece, ids, s, e)):
                        out.ids.append(token_id2)
                        out.tokens.append(self.id_to_token(token_id2) or "")
                        out.offsets.append(_to_original(align, p_start + ts, p_start + te, start))
                        out.type_ids.append(type_id)
                        out.special_tokens_mask.append(0)
                        out.word_ids.append(word)
                        out.sequence_ids.append(type_id)
                    word += 1
        return out

    def _fast_offsets(self, out: Piecewise, part: str, p_start: int, align: list[tuple[int, int]] | None, base: int,
                      type_id: int, word: int, ids_of: Callable[[str], tuple[int, ...]]) -> int | None:
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
            out.offsets += (_to_original(align, p_start + s, p_start + e, base) for s, e in zip(starts, ends))
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
        char_of = [i for i, ch in enumerate(piece) for _ in range(len(ch.encode("utf-8", "surrogatepass")))]
        shift = len(piece) - (end - start)  # characters a pre-tokenizer put in front (Metaspace, ByteLevel)
        spans = []
        pos = 0
        for n in lengths:
            if n <= 0 or pos >= len(data):
                spans.append((start, start))
                continue
            first, last = char_of[pos], char_of[min(pos + n, len(data)) - 1]
            spans.append((start + max(0, first - shift), start + max(0, last + 1 - shift)))
            pos += n
        return spans

    def _post_process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool, *,
                      truncate: bool = True) -> Encoded:
        overflow_first: list[Piecewise] = []
        overflow_second: list[Piecewise] = []
        if truncate and self._truncation is not None:
            first, second, overflow_first, overflow_second = self._truncate(first, second, add_special_tokens)
        processor = self._processor()
        encoded = Encoded._from(processor.process(first, second, add_special_tokens))
        # HF's order: each overflow of the first with the kept second and then with each overflow of
        # the second; then the kept first with each overflow of the second.
        for extra in overflow_first:
            encoded.overflowing.append(Encoded._from(processor.process(extra, second, add_special_tokens)))
            for extra2 in overflow_second:
                encoded.overflowing.append(Encoded._from(processor.process(extra, extra2, add_special_tokens)))
        for extra2 in overflow_second:
            encoded.overflowing.append(Encoded._from(processor.process(first, extra2, add_special_tokens)))
        if self.post_processor is None and second is None:
            # HF keeps no sequence ranges for one text without a post-processor: every token's
            # sequence id is 0, padding's too. (The overflows of a pair without one get ids that
            # follow no rule this copies; they are left as encode gives them.)
            for each in (encoded, *encoded.overflowing):
                each._pad_sequence_id = 0
        return encoded

    def _truncate(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool
                  ) -> tuple[Piecewise, Piecewise | None, list[Piecewise], list[Piecewise]]:
        t = self._truncation
        assert t is not None
        added = self.post_processor.added_tokens(second is not None) if (self.post_processor and add_special_tokens) else 0
        budget = max(0, t["max_length"] - added)
        stride, direction, strategy = t["stride"], t["direction"], t["strategy"]
        if second is None:
            if strategy == "only_second" and len(first.ids) > budget:
                raise InvalidInputError("truncation strategy only_second needs a pair of sequences (this single text "
                                        "is longer than max_length); use longest_first or only_first")
            windows = _windows(first, budget, stride, direction)
            return windows[0], None, windows[1:], []
        n1, n2 = len(first.ids), len(second.ids)
        if n1 + n2 <= budget:
            return first, second, [], []
        if strategy == "longest_first":
            keep1, keep2 = _longest_first(n1, n2, budget)
            w1 = _windows(first, keep1, stride, direction)
            w2 = _windows(second, keep2, stride, direction)
            return w1[0], w2[0], w1[1:], w2[1:]
        if strategy == "only_first":
            if n2 >= budget:
                raise InvalidInputError("truncation only_first cannot fit: the second sequence alone exceeds max_length")
            w1 = _windows(first, budget - n2, stride, direction)
            return w1[0], second, w1[1:], []
        if n1 >= budget:
            raise InvalidInputError("truncation only_second cannot fit: the first sequence alone exceeds max_length")
        w2 = _windows(second, budget - n1, stride, direction)
        return first, w2[0], [], w2[1:]

    def _pad(self, encodings: list[Encoded]) -> None:
        p = self._padding
        assert p is not None
        length = p["length"] if p["length"] is not None else max((len(e) for e in encodings), default=0)
        multiple = p["pad_to_multiple_of"]
        if multiple and length % multiple:
            length += multiple - length % multiple
        for e in encodings:
            e.pad(length, direction=p["direction"], pad_id=p["pad_id"], pad_type_id=p["pad_type_id"], pad_token=p["pad_token"])

    # ---------------------------------------------------------------- decoding
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of ``ids`` through the decoder (HF's semantics: special tokens skipped by default;
        ids past the vocabulary, which a model's padded embedding lets sampling pick, skipped too).
        A negative id or a non-integer raises :class:`InvalidTokenError`."""
        tokens = self._tokens_of(ids, skip_special_tokens)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        if not isinstance(sequences, Iterable) or isinstance(sequences, (str, bytes)) or any(
                isinstance(ids, int) for ids in sequences):
            raise InvalidInputError("decode_batch takes a list of id lists (one per text); decode takes one id list")
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    def _tokens_of(self, ids: Iterable[int], skip_special_tokens: bool) -> list[str]:
        if isinstance(ids, (str, bytes)):
            raise InvalidInputError("ids must be a sequence of integers, not a string")
        if not isinstance(ids, Iterable):
            raise InvalidInputError(f"ids must be a sequence of integers, not {type(ids).__name__}")
        tokens = []
        for position, token_id in enumerate(ids):
            if isinstance(token_id, bool) or not hasattr(token_id, "__index__"):
                raise InvalidTokenError(f"token ids must be integers; got {type(token_id).__name__} {token_id!r} at position {position}")
            if skip_special_tokens and self._added.is_special_id(token_id):
                continue
            token = self._added.decoded_form(token_id, self.normalizer)
            if token is None:
                token = self.id_to_token(token_id)
            if token is None and token_id >= 0:
                continue  # as HF does: a model's embedding often has rows past its vocabulary, which sampling may pick
            if token is None:
                raise InvalidTokenError(
                    f"{token_id!r} at position {position} is not a token id of this tokenizer "
                    f"(vocabulary size {self.get_vocab_size()}); check that the ids come from this tokenizer"
                )
            tokens.append(token)
        return tokens

    def decode_stream(self, skip_special_tokens: bool = False) -> DecodeStream:
        """A streaming decoder: ``step(id)`` returns the text that became complete (or None). Special
        tokens are written unless told otherwise, as HF's ``DecodeStream()`` writes them (``decode``
        skips them by default, as HF's ``decode`` does)."""
        return DecodeStream(self, skip_special_tokens)


class DecodeStream:
    """Decodes ids one at a time, holding back text until it is final (HF's ``DecodeStream`` rule:
    decode a window of recent ids and emit what grew, once it does not end in U+FFFD)."""

    def __init__(self, tokenizer: Tokenizer, skip_special_tokens: bool = True) -> None:
        self._tok = tokenizer
        self._skip = skip_special_tokens
        self._ids: list[int] = []
        self._prefix = ""
        self._prefix_index = 0

    def step(self, token_id: int) -> str | None:
        self._ids.append(token_id)
        text = self._tok.decode(self._ids, self._skip)
        if len(text) > len(self._prefix) and not text.endswith("\ufffd"):
            new = text[len(self._prefix):]
            self._ids = self._ids[self._prefix_index:]
            self._prefix = self._tok.decode(self._ids, self._skip)
            self._prefix_index = len(self._ids)
            return new
        return None


class _IdStrings(dict[int, str]):
    """id -> token string, filled on first use (the tokens of ``Encoded``)."""

    def __init__(self, tok: Tokenizer) -> None:
        super().__init__()
        self._tok = tok

    def __missing__(self, token_id: int) -> str:
        value = self[token_id] = self._tok.id_to_token(token_id) or ""
        return value


def _to_original(align: list[tuple[int, int]] | None, start: int, end: int, base: int) -> tuple[int, int]:
    """Offsets in the normalized segment -> offsets in the caller's text."""
    if align is None:
        return base + start, base + end
    if not align:
        return base, base
    if end <= start:
        at = align[min(start, len(align) - 1)][0] if start < len(align) else align[-1][1]
        return base + at, base + at
    return base + align[start][0], base + align[end - 1][1]


def _metaspaces(pre: PreTokenizer | None) -> list[Metaspace]:
    if isinstance(pre, Metaspace):
        return [pre]
    if isinstance(pre, PreSequence):
        return [s for s in pre.steps if isinstance(s, Metaspace)]
    return []


def _tiktoken_pattern(pre: PreTokenizer | None) -> str:
    """The one regex a tiktoken Encoding would split with to give ``pre``'s pieces (byte-level)."""
    from .errors import UnsavableError
    from .formats.rank_table import check_reads_alike
    from .pre_tokenizers import GPT2_PATTERN, ByteLevel, Split

    steps = pre.steps if isinstance(pre, PreSequence) else [pre]
    if isinstance(pre, ByteLevel) and pre.use_regex and not pre.add_prefix_space:
        return GPT2_PATTERN
    if len(steps) == 2 and isinstance(steps[0], Split) and isinstance(steps[1], ByteLevel):
        split, byte_level = steps
        keeps_matches = (split.behavior, split.invert) in (("isolated", False), ("removed", True))
        if split.is_regex and keeps_matches and not byte_level.use_regex and not byte_level.add_prefix_space:
            return check_reads_alike(split.pattern)
    raise UnsavableError(
        f"the pre-tokenizer ({json.dumps(pre.to_json()) if pre is not None else 'none'}) is not one regex split followed by "
        "ByteLevel (or ByteLevel's own GPT-2 split without a prefix space), so a tiktoken Encoding cannot split text the "
        "same way; save as tokenizer.json instead"
    )
