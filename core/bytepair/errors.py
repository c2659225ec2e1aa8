"""Exception types. Each says what went wrong and what to do about it.

Every class derives from :class:`BytepairError` and from the built-in type a tiktoken user would
already catch (``ValueError``, ``KeyError``, ``TypeError``), so bytepair stays a drop-in.
"""

from __future__ import annotations

__all__ = [
    "BytepairError",
    "CorpusMismatchError",
    "DecodeStreamError",
    "DisallowedSpecialTokenError",
    "EmptyCorpusError",
    "EncodingRegistrationError",
    "InputDecodeError",
    "InvalidInputError",
    "InvalidTokenError",
    "MissingDependencyError",
    "ReservedLiteralError",
    "COUNT_ADVICE",
    "DECODE_ADVICE",
    "ENCODE_ADVICE",
    "InputTooLargeError",
    "TemplateError",
    "TemplateLimitError",
    "TokenIdOverflowError",
    "TrainingError",
    "UnknownEncodingError",
    "UnknownModelError",
    "UnsupportedPatternError",
    "UnsupportedTokenizerError",
    "VocabFormatError",
    "VocabHashMismatchError",
    "sized",
    "too_large",
]


class BytepairError(Exception):
    """Base class of every error bytepair raises on purpose."""


class _PlainMessageKeyError(KeyError):
    # KeyError's str() is the repr of its argument; show the message as written instead.
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DisallowedSpecialTokenError(BytepairError, ValueError):
    """The text contains a special token that the call did not allow."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__(
            f"Encountered text corresponding to disallowed special token {token!r}.\n"
            f"To encode it as the special token, pass allowed_special={{{token!r}}} (or \"all\").\n"
            f"To encode it as ordinary text, pass disallowed_special=(enc.special_tokens_set - {{{token!r}}}).\n"
            "To turn the check off for every special token, pass disallowed_special=()."
        )


class DecodeStreamError(BytepairError, ValueError):
    """A ``DecodeStream`` step whose text no longer starts with the text already given out (a decoder
    that rewrites earlier text; HF's InvalidPrefix): decode the whole id list with ``decode()``."""


class UnknownEncodingError(BytepairError, ValueError):
    """No encoding of that name is registered."""


class EncodingRegistrationError(BytepairError, ValueError):
    """``register_encoding`` was given an empty or taken name, or no constructor."""


class UnknownModelError(BytepairError, _PlainMessageKeyError):
    """The model name maps to no known encoding."""


class InvalidTokenError(BytepairError, _PlainMessageKeyError, ValueError):
    """A token id (or token bytes) is not in the vocabulary, or is not an integer."""


class TokenIdOverflowError(InvalidTokenError, OverflowError):
    """A token id outside HF's ids (unsigned 32-bit: negative, or 2**32 and above) given to the HF
    face: an ``OverflowError`` as HF ``tokenizers`` raises, and an :class:`InvalidTokenError`."""


class InvalidInputError(BytepairError, TypeError):
    """The input has the wrong type (for example bytes where a str is expected)."""


class InvalidArgumentError(InvalidInputError, ValueError):
    """An argument of the right type whose value cannot work (a negative length, a truncation stride
    not below the length left for the text): a ``ValueError`` as Python has it, and an
    ``InvalidInputError`` as the other argument errors are."""


class InputDecodeError(BytepairError, ValueError):
    """Input bytes are not valid UTF-8 (the message names the byte offset and how to go on)."""


class VocabFormatError(BytepairError, ValueError):
    """A vocabulary file is malformed, truncated or inconsistent."""


class VocabHashMismatchError(VocabFormatError):
    """A vocabulary file's sha256 differs from the expected one: it is corrupt or not the file meant."""


class UnsupportedPatternError(BytepairError, ValueError):
    """A pretokenization pattern cannot be compiled exactly on this interpreter, or is refused: one
    that can backtrack for ever (a repeat inside a repeat), or is too long to be a pattern."""

    missing_package: str | None = None
    refused: bool = False
    """Set when the pattern was refused as unsafe to run (``pre_tokenizers/pattern/safety.py``)."""
    """The package the pattern needs and this runtime lacks (``"regex"``), if that is why: the
    pattern itself is valid then."""


class UnsupportedTokenizerError(BytepairError, ValueError):
    """A ``tokenizer.json`` uses a model or component bytepair does not implement (named, with its
    JSON path and what is supported)."""


class MissingDependencyError(BytepairError, ModuleNotFoundError):
    """An optional feature needs a package that is not installed (the message names the pip extra):
    jinja2 for chat templates, numpy for ``encode_to_numpy``; a ``ModuleNotFoundError``, as the
    failed import would be."""


class TemplateError(BytepairError, ValueError):
    """A chat template is missing, failed to render (its own ``raise_exception`` message is kept), or
    rendered a prompt bytepair cannot map back to the messages."""


class TemplateLimitError(TemplateError):
    """A chat template ran past one of its budgets: ``limit`` is ``"time"``, ``"size"`` or
    ``"depth"``, and the message names the option that changes it (``template_timeout``,
    ``template_max_chars``)."""

    def __init__(self, message: str, *, limit: str) -> None:
        self.limit = limit
        super().__init__(message)


class InputTooLargeError(BytepairError, MemoryError):
    """A call ran out of memory: the message says what was too big and what to do instead (count
    without ids, ``encode_stream``, smaller inputs). A ``MemoryError``, as the failure was."""


def too_large(exc: MemoryError, doing: str, advice: str) -> MemoryError:
    """The error to raise for a ``MemoryError`` met while ``doing`` something: one that says so and
    what to do (``advice``), or ``exc`` itself if it says so already.

    >>> too_large(MemoryError(), "encoding 9 characters", "pass less")
    InputTooLargeError('out of memory encoding 9 characters: pass less')
    """
    if isinstance(exc, InputTooLargeError):
        return exc
    return InputTooLargeError(f"out of memory {doing}: {advice}")


def sized(values: object, unit: str) -> str:
    """``"12,345 ids"``, or just the unit if ``values`` has no length (an iterator).

    >>> sized([1, 2, 3], "ids"), sized(iter([]), "ids")
    ('3 ids', 'ids')
    """
    return f"{len(values):,} {unit}" if hasattr(values, "__len__") else unit  # type: ignore[arg-type]


ENCODE_ADVICE = ("count tokens with count() (it keeps no ids), encode the text in parts with encode_stream(), or pass "
                 "smaller text")
COUNT_ADVICE = "count a file with count_file() or chunks with count_stream() (bounded memory)"
DECODE_ADVICE = "decode the ids in parts (stream_decoder(), or decode_stream() on a Tokenizer)"


class ReservedLiteralError(BytepairError, ValueError):
    """Message text holds a special token's literal (``<|im_end|>``) where the policy rejects it."""

    def __init__(self, message: str, *, token: str, index: int | None, field: str) -> None:
        self.token = token
        self.index = index
        self.field = field
        super().__init__(message)


class TrainingError(BytepairError, ValueError):
    """Training was asked for something it cannot do (vocabulary too small for the alphabet and the
    special tokens, an empty corpus, a pattern that does not compile, a base tokenizer of another
    kind); the message says what to change."""


class EmptyCorpusError(BytepairError, ValueError):
    """An analysis was given no text (no files, unreadable files, or only empty ones)."""


class UnsavableError(BytepairError, ValueError):
    """The tokenizer cannot be written to the format asked for (the message says why and which
    formats can hold it); nothing was written."""


def stage_without_json(stage: str, value: object) -> UnsavableError:
    """The error of a stage defined outside bytepair, with no ``to_json`` of its own, asked for its
    JSON (saving, pickling).

    >>> str(stage_without_json("post-processor", object()))[:62]
    'a post-processor defined outside bytepair (object) cannot be w'
    """
    return UnsavableError(
        f"a {stage} defined outside bytepair ({type(value).__name__}) cannot be written to a tokenizer.json: give "
        f"it a to_json() method that returns its JSON, or set one of bytepair's before saving or pickling")


class CorpusMismatchError(BytepairError, ValueError):
    """``encode_corpus`` was asked to resume into a folder whose shards were made from other inputs,
    another tokenizer or other options; nothing was written (the message says which differs)."""

