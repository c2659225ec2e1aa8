"""The files half of ``bytepair.Tokenizer``: where a tokenizer comes from and where it can be saved.

Why a module of its own: ``tokenizer.py`` is Hugging Face's encode/decode API; this is everything
around files and other faces, as a base class ``Tokenizer`` inherits: a ``tokenizer.json`` (text,
file, packed ``.bpt`` form, folder with ``tokenizer_config.json`` and a chat template), GPT-2's two
files, an OpenAI encoding (``from_encoding``, on its very engine), and back: ``to_str``/``save``,
``vocab.json`` + ``merges.txt``, ``.tiktoken``, minbpe, a tiktoken ``Encoding``. Reading and writing
the formats is ``pipeline/tokenizer_json.py``'s and ``formats/``'s work; this wires them to the face.

>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("r50k_base")
>>> Tokenizer.from_str(tok.to_str()).encode("hello world").ids
[31373, 995]
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from .encoding import Encoding
from .errors import InvalidInputError, UnsavableError, UnsupportedTokenizerError, VocabFormatError
from .formats.atomic import settle, write_file, write_files
from .formats.gpt2_files import dump_bpe_files, parse_bpe_files
from .formats.rank_table import merges_from_ranks
from .formats.tiktoken_file import dump_tiktoken_bpe
from .llm.chat_template import template_settings
from .pipeline.manifest import manifest
from .pipeline.packed_tokenizer import MAGIC, pack_tokenizer_json, read_packed_tokenizer
from .pipeline.tokenizer_json import TokenizerParts, gpt2_files_json, parts_from_json, rank_table_json, renumbered_by_hf
from .pipeline.view import TokenizerView
from .pre_tokenizers import tiktoken_pattern
from .processors.padding import padding_json
from .processors.special_roles import ROLES, special_token_roles
from .processors.truncation import truncation_json
from .registry import get_encoding
from .text.byte_unicode import bytes_to_visible

if TYPE_CHECKING:  # pragma: no cover
    from .tokenizer import Tokenizer

__all__ = ["TokenizerFiles"]


class TokenizerFiles:
    """Loading and saving for :class:`~bytepair.Tokenizer` (see the module docstring)."""

    # Set by Tokenizer.__init__ (tokenizer.py):
    model: Any
    normalizer: Any
    pre_tokenizer: Any
    _added: Any
    _source: dict[str, Any]
    _truncation: dict[str, Any] | None
    _padding: dict[str, Any] | None

    # ---------------------------------------------------------------- loading
    @classmethod
    def from_parts(cls, parts: TokenizerParts) -> Tokenizer:
        """A tokenizer of the stages read from a ``tokenizer.json`` (``pipeline/tokenizer_json.py``)."""
        tok: Tokenizer = cls(  # type: ignore[call-arg, assignment]
            parts.model, normalizer=parts.normalizer, pre_tokenizer=parts.pre_tokenizer,
            post_processor=parts.post_processor, decoder=parts.decoder, added_tokens=parts.added_tokens,
            source=parts.source,
        )
        if parts.truncation is not None:
            tok.enable_truncation(**parts.truncation)
        if parts.padding is not None:
            tok.enable_padding(**parts.padding)
        return tok

    @classmethod
    def from_str(cls, json_text: str) -> Tokenizer:
        """Build from the text of a ``tokenizer.json``."""
        return cls.from_parts(parts_from_json(json_text))

    @classmethod
    def from_sentencepiece(cls, model: str | os.PathLike[str] | bytes, *, legacy: bool = True) -> Tokenizer:
        """The HF face over a SentencePiece ``.model`` (a path or the file's bytes), as transformers
        converts one (``pipeline/sentencepiece_json.py``); ``SentencePieceProcessor`` is
        sentencepiece's own face over the same file."""
        from .formats.sentencepiece_model import ModelProto  # (imported on first use, as the converter)
        from .pipeline.sentencepiece_json import tokenizer_json as sentencepiece_json

        if isinstance(model, (bytes, bytearray, memoryview)):
            proto = ModelProto.from_bytes(bytes(model))
        elif isinstance(model, (str, os.PathLike)):
            proto = ModelProto.from_file(model)
        else:
            raise InvalidInputError(f"from_sentencepiece takes a .model path or its bytes, not {type(model).__name__}")
        if proto.trainer.model_type not in (1, 2):
            raise UnsupportedTokenizerError(f"SentencePiece model_type {proto.trainer.model_type} (WORD or CHAR): "
                                            "bytepair reads Unigram and BPE .model files")
        return cls.from_parts(parts_from_json(sentencepiece_json(proto, legacy=legacy), origin="sentencepiece model"))

    @classmethod
    def from_encoding(cls, encoding: str | Encoding) -> Tokenizer:
        """An OpenAI encoding (a name or an ``Encoding``) with this API, on the very same engine and
        piece cache: special tokens are special added tokens, ids decode through ByteLevel.

        >>> from bytepair import Tokenizer
        >>> Tokenizer.from_encoding("o200k_base").encode("hello world").tokens
        ['hello', 'Ġworld']
        """
        from .added_tokens import AddedToken
        from .decoders import ByteLevel as ByteLevelDecoder
        from .pre_tokenizers import Split

        enc = get_encoding(encoding) if isinstance(encoding, str) else encoding
        if not isinstance(enc, Encoding):
            raise InvalidInputError(f"from_encoding takes an encoding name or a bytepair.Encoding, not {type(encoding).__name__}")
        specials = sorted((enc.encode_single_token(t), t) for t in enc.special_tokens_set)
        tok: Tokenizer = cls(  # type: ignore[call-arg, assignment]
            enc.engine.model,
            pre_tokenizer=Split(enc.engine.pre_tokenizer.pattern, "isolated", is_regex=True, dialect="tiktoken"),  # type: ignore[union-attr]
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
        if bytes(data[: len(MAGIC)]) == MAGIC:
            return cls.from_parts(read_packed_tokenizer(bytes(data), origin=origin))
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise VocabFormatError(f"{origin}: not UTF-8 JSON (bad byte at offset {exc.start})") from None
        return cls.from_parts(parts_from_json(text, origin=origin))

    def to_packed(self) -> bytes:
        """The compact form of this tokenizer (``pipeline/packed_tokenizer.py``): a third of the JSON's
        size or less, loaded two to three times faster; ``from_buffer``/``from_file`` read it."""
        return pack_tokenizer_json(self.to_str())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as its ``tokenizer.json`` text (HF's tokenizers pickle so), with what a folder gave
        it (config, chat template) and ``encode_special_tokens``.

        >>> import pickle
        >>> from bytepair import Tokenizer
        >>> pickle.loads(pickle.dumps(Tokenizer.from_encoding("r50k_base"))).encode("hello world").ids
        [31373, 995]
        """
        settings = {"config": self.config, "chat_template": self.chat_template,
                    "chat_template_origin": self.chat_template_origin, "_chat_tokens": self._chat_tokens,
                    "encode_special_tokens": getattr(self, "encode_special_tokens")}
        return (_unpickled, (type(self), self.to_str(), settings))

    @classmethod
    def from_pretrained(cls, identifier: str | os.PathLike[str], **_: Any) -> Tokenizer:
        """Build from a local folder holding ``tokenizer.json`` (there is no hub access here)."""
        path = os.fspath(identifier)
        if os.path.isdir(path):
            settle(path)  # an interrupted save of the folder is completed first: its files are one set
            file = os.path.join(path, "tokenizer.json")
            if not os.path.isfile(file):
                raise VocabFormatError(f"{path!r} holds no tokenizer.json; put the model's tokenizer.json there")
            tok = cls.from_file(file)
            config = os.path.join(path, "tokenizer_config.json")
            tok.config = _json_object(config)
            # Tokens only special_tokens_map.json names count too (tokenizer_config.json wins, as in
            # transformers).
            tokens_map = _json_object(os.path.join(path, "special_tokens_map.json"))
            if tokens_map:
                tok.config = {**tokens_map, **(tok.config or {})}
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
        jinja_path = os.path.join(folder, "chat_template.jinja")
        jinja_text = None
        if os.path.isfile(jinja_path):
            with open(jinja_path, encoding="utf-8") as f:
                jinja_text = f.read()
        self.chat_template, self._chat_tokens = template_settings(self.config or {}, jinja_text)
        self.chat_template_origin = jinja_path if jinja_text is not None else config_path

    @classmethod
    def from_gpt2_files(cls, vocab_json: str | os.PathLike[str], merges_txt: str | os.PathLike[str], *,
                        pattern: str | None = None) -> Tokenizer:
        """A byte-level BPE tokenizer from ``vocab.json`` + ``merges.txt`` (GPT-2's ``encoder.json`` +
        ``vocab.bpe`` too), as HF's ``BPE.from_file`` with a ByteLevel pre-tokenizer and decoder: GPT-2's
        split, or ``pattern`` (an Oniguruma regex, as in tokenizer.json) when given."""
        settle(vocab_json)  # the two files of one save, never one old and one new
        contents = []
        for path in (vocab_json, merges_txt):
            try:
                with open(path, "rb") as f:
                    contents.append(f.read())
            except OSError as exc:
                raise VocabFormatError(f"cannot read {os.fsdecode(path)!r}: {exc.strerror or exc}") from None
        origin = f"{os.fspath(vocab_json)} + {os.fspath(merges_txt)}"
        vocab, merges = parse_bpe_files(contents[0], contents[1], origin=origin)
        return cls.from_parts(parts_from_json(gpt2_files_json(vocab, merges, pattern), origin=origin))

    # ---------------------------------------------------------------- saving
    def to_str(self, pretty: bool = False) -> str:
        """The ``tokenizer.json`` text: the loaded file with the current added tokens, padding and
        truncation; for a tokenizer made by :meth:`from_encoding`, a file HF ``tokenizers`` encodes
        the same way (``pipeline/tokenizer_json.py``'s ``rank_table_json``)."""
        added = list(self._added)
        if self._source:
            data = {**self._source, "model": {**self._source["model"], **self.model.vocabulary_json()}}
        elif hasattr(self.model, "to_json"):  # made from its stages (Tokenizer(models.BPE(...)))
            data = {stage: (None if value is None else value.to_json()) for stage, value in (
                ("normalizer", self.normalizer), ("pre_tokenizer", self.pre_tokenizer),
                ("post_processor", self.post_processor), ("decoder", self.decoder), ("model", self.model))}
        else:
            data = self._rank_table_json()
        data.setdefault("version", "1.0")
        data["truncation"] = truncation_json(self._truncation)
        data["padding"] = padding_json(self._padding)
        data["added_tokens"] = [t.to_json() for t in added]
        renumbered = renumbered_by_hf(data.get("model", {}).get("vocab"), [(t.content, t.id) for t in added])
        if renumbered:
            # HF ignores the id of an added token its model vocabulary lacks and numbers it after the
            # vocabulary (an extended or grown one moves them all): such tokens go in the vocabulary
            # too, where HF reads their ids (as rank_table_json writes special tokens).
            data["model"] = {**data["model"], "vocab": {**data["model"]["vocab"], **renumbered}}
        return json.dumps(data, ensure_ascii=False, indent=2 if pretty else None, default=_stage_json)

    def _rank_table_json(self) -> dict[str, Any]:
        ranks, pattern = getattr(self.model, "ranks", None), getattr(self.pre_tokenizer, "pattern", None)
        if ranks is None or pattern is None:  # pragma: no cover - every Tokenizer has a source or ranks
            raise UnsupportedTokenizerError("this tokenizer has neither a tokenizer.json source nor a rank table to write")
        return rank_table_json(pattern, ranks, {t.content: t.id for t in self._added})

    def save(self, path: str | os.PathLike[str], pretty: bool = True) -> None:
        """Write ``to_str()`` to ``path``, for HF ``tokenizers`` and transformers'
        ``PreTrainedTokenizerFast(tokenizer_file=...)``; atomically (``formats/atomic.py``): a failed
        write leaves no half file and an older file at ``path`` untouched."""
        write_file(path, self.to_str(pretty).encode("utf-8"))

    def save_pretrained(self, folder: str | os.PathLike[str], **special_tokens: Any) -> list[str]:
        """The folder ``from_pretrained`` (and transformers' ``AutoTokenizer.from_pretrained``) reads:
        ``tokenizer.json``, ``tokenizer_config.json`` (the one loaded, with this tokenizer's chat
        template, token strings and added tokens), ``special_tokens_map.json`` (the token strings, as
        transformers writes them) and ``chat_template.jinja`` if the template came from one; written as one set (``formats/atomic.py``: a crash leaves the old files or the new,
        never a mix). Returns the paths written.

        The token strings (``bos_token``, ``eos_token``, ``unk_token``, ``sep_token``, ``pad_token``,
        ``cls_token``, ``mask_token``, ``additional_special_tokens``) are the loaded config's; without
        one (a tokenizer built, trained or loaded from a bare ``tokenizer.json``) they are read from
        the file as transformers' tokenizers set them (``processors/special_roles.py``: the model's
        unk token, the post-processor's, conventionally spelled special tokens); keywords given here
        (``save_pretrained(folder, eos_token="</s>")``) win over both.

        >>> import tempfile
        >>> from bytepair import Tokenizer
        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> tok.chat_template = "{% for m in messages %}{{ m.content }}{% endfor %}"
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     names = [os.path.basename(p) for p in tok.save_pretrained(folder)]
        ...     again = Tokenizer.from_pretrained(folder)
        >>> names, again.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
        (['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'], 'hi')
        """
        folder = os.fspath(folder)
        text = self.to_str(True)
        tokens = self._special_tokens_to_save(text, special_tokens)
        os.makedirs(folder, exist_ok=True)
        config = dict(self.config or {"tokenizer_class": "PreTrainedTokenizerFast"})
        config.update(tokens)
        config["added_tokens_decoder"] = {
            str(t.id): {"content": t.content, "lstrip": t.lstrip, "normalized": t.is_normalized, "rstrip": t.rstrip,
                        "single_word": t.single_word, "special": t.special}
            for t in sorted(self._added, key=lambda t: t.id)
        }
        files = {os.path.join(folder, "tokenizer.json"): text.encode("utf-8")}
        template = self.chat_template
        config.pop("chat_template", None)
        if isinstance(template, str) and self.chat_template_origin.endswith("chat_template.jinja"):
            files[os.path.join(folder, "chat_template.jinja")] = template.encode("utf-8")
        elif isinstance(template, dict):
            config["chat_template"] = [{"name": name, "template": source} for name, source in template.items()]
        elif template is not None:
            config["chat_template"] = template
        files[os.path.join(folder, "tokenizer_config.json")] = json.dumps(config, indent=2, ensure_ascii=False).encode("utf-8")
        added = {t.content: t for t in self._added}

        def entry(token: str) -> Any:
            t = added.get(token)
            return token if t is None else {"content": token, "lstrip": t.lstrip, "normalized": t.is_normalized,
                                            "rstrip": t.rstrip, "single_word": t.single_word}

        tokens_map = {key: ([entry(t) for t in value] if isinstance(value, list) else entry(value)) for key, value in tokens.items()}
        files[os.path.join(folder, "special_tokens_map.json")] = json.dumps(tokens_map, indent=2, ensure_ascii=False).encode("utf-8")
        return write_files(files)

    def _special_tokens_to_save(self, text: str, given: dict[str, Any]) -> dict[str, Any]:
        """``save_pretrained``'s token strings: the config's or the file's, then ``given``'s."""
        tokens: dict[str, Any] = dict(self.special_tokens_map)
        if self.config is None:  # no config says which token plays which part: the file does
            for role, token in special_token_roles(json.loads(text)).items():
                tokens.setdefault(role, token)
        for key, value in given.items():
            key = "additional_special_tokens" if key == "extra_special_tokens" else key  # transformers 5's name
            if key not in ROLES and key != "additional_special_tokens":
                raise InvalidInputError(f"save_pretrained() got an unexpected keyword {key!r}; token keywords are "
                                        f"{', '.join(ROLES)} and additional_special_tokens")
            if value is None:  # save_pretrained(folder, bos_token=None): this part left unset
                tokens.pop(key, None)
                continue
            values = list(value) if key == "additional_special_tokens" else [value]
            strings = [getattr(v, "content", v) for v in values]
            for token in strings:
                if not isinstance(token, str) or self.token_to_id(token) is None:
                    raise InvalidInputError(f"save_pretrained({key}={token!r}): not a token of this tokenizer; add it "
                                            "first (add_special_tokens) so transformers gives it the same id")
            tokens[key] = strings if key == "additional_special_tokens" else strings[0]
        return tokens

    def save_model(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """The model as GPT-2 / HF ``vocab.json`` + ``merges.txt`` in ``folder`` (``{prefix}-vocab.json``
        ... with a prefix), as HF's ``tokenizer.model.save``; returns the two paths. Only the model:
        the pre-tokenizer, added tokens and the rest stay in ``tokenizer.json``."""
        model = self.model
        ranks = getattr(model, "ranks", None)
        if ranks is not None:
            merges: Any = [(bytes_to_visible(a), bytes_to_visible(b)) for a, b in merges_from_ranks(ranks)]
        else:
            merges = model.merges
        vocab_json, merges_txt = dump_bpe_files(model.vocab, merges)
        names = ("vocab.json", "merges.txt") if prefix is None else (f"{prefix}-vocab.json", f"{prefix}-merges.txt")
        folder = os.fspath(folder)
        return write_files({os.path.join(folder, names[0]): vocab_json, os.path.join(folder, names[1]): merges_txt})

    def to_encoding(self, name: str | None = None, *, drop_normalizer: bool = False) -> Encoding:
        """This tokenizer as a :class:`bytepair.Encoding` (tiktoken's API): the split pattern, the
        vocabulary as ranks (id = rank) and the added tokens as special tokens. Only for byte-level
        BPE whose merges follow id order; else :class:`~bytepair.errors.UnsavableError` says why (a
        byte-fallback model such as Llama 2, a merge order other than the id order, a pre-tokenizer
        tiktoken has no equivalent for). A normalizer (Qwen's NFC) is refused unless
        ``drop_normalizer``: the encoding would then differ on text the normalizer changes. The
        post-processor is not carried over (compare with ``add_special_tokens=False``).

        >>> from bytepair import Tokenizer
        >>> enc = Tokenizer.from_encoding("r50k_base").to_encoding("copy")
        >>> enc.encode("hello world"), enc.name
        ([31373, 995], 'copy')
        """
        label = name or self.encoding_name or "tokenizer"
        ranks = self._rank_table()
        if self.normalizer is not None and not drop_normalizer:
            raise UnsavableError(
                f"this tokenizer normalizes text first ({type(self.normalizer).__name__}), which a tiktoken Encoding "
                "cannot do; pass drop_normalizer=True to convert anyway (ids then differ on text the normalizer changes)"
            )
        if getattr(self.model, "ranks", None) is not None:  # made by from_encoding: the encoding's own pattern
            pattern = self.pre_tokenizer.pattern
        else:
            pattern = tiktoken_pattern(self.pre_tokenizer)
        taken = set(ranks.values())
        specials = {t.content: t.id for t in self._added if t.id not in taken}
        return Encoding(label, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)

    def _rank_table(self) -> dict[bytes, int]:
        """Token bytes -> id, when the model is byte-level BPE with merges in id order."""
        ranks = getattr(self.model, "ranks", None)
        if ranks is not None:
            return dict(ranks)
        return self.model.rank_table(exclude={t.content for t in self._added})  # type: ignore[no-any-return]

    def save_tiktoken(self, path: str | os.PathLike[str]) -> None:
        """The vocabulary as a ``.tiktoken`` file (``base64(token) rank`` lines, rank = id), atomically.
        Only byte-level BPE with merges in id order (see :meth:`to_encoding`); the pattern and special
        tokens are not part of that format: take them from ``to_encoding()``."""
        write_file(path, dump_tiktoken_bpe(self._rank_table()))

    def save_minbpe(self, prefix: str | os.PathLike[str], *, drop_normalizer: bool = False) -> list[str]:
        """minbpe's ``prefix.model`` + ``prefix.vocab`` (see ``Encoding.save_minbpe``); returns the paths."""
        return self.to_encoding(drop_normalizer=drop_normalizer).save_minbpe(prefix)

    def manifest(self) -> dict[str, Any]:
        """What this tokenizer is, as JSON, with hashes of a canonical form of what decides its ids
        (see ``pipeline/manifest.py``): the same for a re-saved or pretty-printed file.

        >>> from bytepair import Tokenizer, get_encoding
        >>> m = Tokenizer.from_encoding("cl100k_base").manifest()
        >>> m["kind"], m["sha256"] == get_encoding("cl100k_base").manifest()["sha256"]
        ('tokenizer.json', True)
        """
        return manifest(TokenizerView.of(self))


def _stage_json(value: Any) -> Any:
    """A stage kept as itself in the source (a custom one): its JSON, which it refuses (UnsavableError)."""
    if hasattr(value, "to_json"):
        return value.to_json()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _unpickled(cls: type, json_text: str, settings: dict[str, Any]) -> Any:
    """A pickled tokenizer again (see ``TokenizerFiles.__reduce__``)."""
    tok = cls.from_str(json_text)
    for name, value in settings.items():
        if value is not None or name == "config":
            setattr(tok, name, value)
    return tok


def _json_object(path: str) -> dict[str, Any] | None:
    """A folder's JSON settings file (None if absent), or VocabFormatError naming it."""
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except ValueError as exc:
            raise VocabFormatError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise VocabFormatError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data
