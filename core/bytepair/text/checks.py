"""Input checks shared by every encoding entry point: the type, and lone surrogates.

Why: a Python ``str`` (and a JavaScript string) may hold lone surrogates, which have no UTF-8 form.
tiktoken joins valid surrogate pairs and turns each lone surrogate into U+FFFD; doing the same keeps
ids identical and means encode never raises on such text.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import InvalidArgumentError, InvalidInputError

__all__ = ["SurrogateRepair", "repair_surrogates", "require_count", "require_str", "require_words", "str_chunks"]

_CHECK_CHARS = 1 << 18

def require_str(text: object, what: str = "text") -> None:
    """Raise :class:`InvalidInputError` unless ``text`` is a ``str``."""
    if not isinstance(text, str):
        hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(text, (bytes, bytearray)) else ""
        raise InvalidInputError(f"{what} must be a str, not {type(text).__name__}{hint}")


def require_words(sequence: object, what: str) -> list[str]:
    """A pre-tokenized ``sequence`` as a list of words, or :class:`InvalidInputError` saying what
    ``is_pretokenized=True`` takes."""
    if isinstance(sequence, str) or not isinstance(sequence, (list, tuple)):
        raise InvalidInputError(
            f"with is_pretokenized=True, {what} must be a list of words (str), not {type(sequence).__name__}; "
            "pass one text without is_pretokenized"
        )
    for word in sequence:
        require_str(word, f"each word of {what}")
    return list(sequence)


def require_count(value: object, what: str) -> None:
    """Raise unless ``value`` is a non-negative ``int`` (a limit, a length): :class:`InvalidInputError`
    for another type (a bool included), :class:`InvalidArgumentError` (also a ``ValueError``) for a
    negative one."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{what} must be a non-negative int, not {value!r}")
    if value < 0:
        raise InvalidArgumentError(f"{what} must be a non-negative int, not {value!r}")


def str_chunks(chunks: object) -> Iterable[str]:
    """The chunks of a streaming call: a ``str`` is one chunk (not an iterable of characters), any
    other iterable is taken as it is (each chunk is checked where it is read); bytes and what is not
    iterable are refused here, with what to pass instead.

    >>> list(str_chunks("ab")), list(str_chunks(["a", "b"]))
    (['ab'], ['a', 'b'])
    """
    if isinstance(chunks, str):
        return (chunks,)
    what = "text must be a str or an iterable of str chunks"
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        raise InvalidInputError(
            f"{what}, not {type(chunks).__name__} (decode bytes first, e.g. data.decode('utf-8'), or pass a binary "
            "file or a path to count_file)"
        )
    try:
        return iter(chunks)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidInputError(f"{what}, not {type(chunks).__name__}") from None


def repair_surrogates(text: str) -> str:
    """Join surrogate pairs and replace lone surrogates by U+FFFD, as tiktoken does.

    >>> repair_surrogates("a\\ud83d\\ude00b\\udc00")
    'a😀b�'
    """
    if text.isascii():
        return text
    try:
        # Encoding is a C loop, several times faster than searching with a regex; a slice at a
        # time keeps the copy small for long texts (a pair split by a slice edge only sends the
        # text to the exact path below).
        for start in range(0, len(text), _CHECK_CHARS):
            text[start : start + _CHECK_CHARS].encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class SurrogateRepair:
    """``repair_surrogates`` plus a map from indices of the repaired text back to the original.

    Only built when the text holds surrogates (offsets must point into the caller's string).
    """

    def __init__(self, original: str) -> None:
        self.original = original
        self.text = repair_surrogates(original)
        self._to_original: list[int] | None = None
        if len(self.text) != len(original):
            index: list[int] = []
            i, n = 0, len(original)
            while i < n:
                index.append(i)
                pair = "\ud800" <= original[i] <= "\udbff" and i + 1 < n and "\udc00" <= original[i + 1] <= "\udfff"
                i += 2 if pair else 1
            index.append(n)
            self._to_original = index

    def to_original(self, index: int) -> int:
        """Index in the original string of position ``index`` of the repaired text."""
        return index if self._to_original is None else self._to_original[index]
