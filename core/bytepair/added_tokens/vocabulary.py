"""Added tokens of a ``tokenizer.json``: strings cut out of the text whole, before anything else.

Why here and first: ``<|im_start|>`` or ``<s>`` is one id, never split or merged, so the text is cut
around such tokens before it is normalized and split (the same idea as ``added_tokens/scan.py``, whose
leftmost-longest trie this reuses). Each token carries HF's flags:

* ``special``: skipped by ``decode(skip_special_tokens=True)``, marked in ``special_tokens_mask``;
* ``normalized``: matched in the normalized text rather than the raw text, as its own content
  normalized (under a ``Prepend("▁")`` normalizer ``<x>`` matches ``▁<x>``; so does decoding it);
* ``single_word``: matched only when no word character touches it on either side;
* ``lstrip`` / ``rstrip``: the match also takes the whitespace on its left / right.

>>> vocab = AddedVocabulary([AddedToken("<s>", special=True, rstrip=True, id=1)])
>>> vocab.split("a<s>  b", normalized=False)
[('a', None, 0, 1), ('<s>  ', 1, 1, 6), ('b', None, 6, 7)]
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from functools import lru_cache
from typing import Any, Protocol

from ..errors import InvalidInputError
from ..pre_tokenizers.pattern.unicode_classes import class_ranges, merge_ranges
from ..pre_tokenizers.pattern.unicode_tables import WHITE_SPACE
from .scan import trie_pattern

__all__ = ["AddedToken", "AddedVocabulary"]


class _Normalizing(Protocol):
    def normalize(self, text: str) -> str: ...


@dataclass(frozen=True)
class AddedToken:
    """One added token and its matching flags, built as HF's ``tokenizers.AddedToken`` is
    (``AddedToken("<x>", lstrip=True)``; HF's defaults: not special, normalized unless special).
    ``id`` is the one it has in a tokenizer (-1 until ``add_tokens`` gives it one).

    >>> AddedToken("<x>", rstrip=True).is_normalized, AddedToken("<s>", special=True).is_normalized
    (True, False)
    """

    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool | None = None
    special: bool = False
    _: KW_ONLY
    id: int = -1

    def __str__(self) -> str:
        return self.content  # as HF's AddedToken

    @property
    def is_normalized(self) -> bool:
        return (not self.special) if self.normalized is None else self.normalized

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.is_normalized,
            "special": self.special,
        }


@lru_cache(maxsize=64)
def _matcher(contents: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile(trie_pattern(sorted(contents))) if contents else None


# Characters HF's ``single_word`` check takes for word characters: Rust regex's Unicode ``\w``
# (Alphabetic, marks, decimal digits, connector punctuation, joiners): letters and marks from the
# pinned tables; letter numbers and connector punctuation (tiny, stable sets) from unicodedata; the
# letters in circles and squares that Alphabetic holds besides. Not ``str.isalnum``: "²" is not a
# word character there, a combining accent is.
@lru_cache(maxsize=1)
def _word_ranges() -> tuple[tuple[tuple[int, int], ...], list[int]]:
    """The ranges and their starts (built on first use, not at import)."""
    ranges = merge_ranges([
        *class_ranges("L"), *class_ranges("M"), *class_ranges("Nd"), (0x200C, 0x200D),
        (0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189),
    ])
    return ranges, [lo for lo, _ in ranges]


def _is_word_char(ch: str) -> bool:
    """HF's word character (``\\w``).

    >>> _is_word_char("a"), _is_word_char("\u0301"), _is_word_char("²"), _is_word_char("_")
    (True, True, False, True)
    """
    if unicodedata.category(ch) in ("Nl", "Pc"):
        return True
    code = ord(ch)
    ranges, starts = _word_ranges()
    k = bisect_right(starts, code) - 1
    return k >= 0 and code <= ranges[k][1]


def _is_space(ch: str) -> bool:
    """Rust's ``char::is_whitespace`` (Unicode White_Space), which lstrip/rstrip take."""
    code = ord(ch)
    k = bisect_right(_SPACE_STARTS, code) - 1
    return k >= 0 and code <= WHITE_SPACE[k][1]


_SPACE_STARTS = [lo for lo, _ in WHITE_SPACE]


class AddedVocabulary:
    """The added tokens of a tokenizer, matched leftmost-longest with their flags."""

    def __init__(self, tokens: list[AddedToken] | None = None) -> None:
        self._by_content: dict[str, AddedToken] = {}
        self._by_id: dict[int, AddedToken] = {}
        self._forms: tuple[object, dict[str, AddedToken]] | None = None  # (normalizer, form -> token)
        self._tables: dict[tuple[bool, bool, object], tuple[dict[str, AddedToken], re.Pattern[str] | None]] = {}
        """``split``'s table and matcher by its arguments (a text is split twice a pass)."""
        for token in tokens or []:
            self.add(token)

    def add(self, token: AddedToken) -> bool:
        """Add (or update the flags of) a token; False if its content was already there."""
        known = token.content in self._by_content
        old = self._by_content.get(token.content)
        if old is not None and self._by_id.get(old.id) is old:
            del self._by_id[old.id]
        self._by_content[token.content] = token
        self._by_id[token.id] = token
        self._forms = None
        self._tables.clear()
        return not known

    def add_tokens(self, tokens: Iterable[str | AddedToken], *, special: bool, id_of: Callable[[str], int | None],
                   next_id: Callable[[], int]) -> int:
        """Add tokens given as ``str`` or ``AddedToken`` (bytepair's or HF's ``tokenizers.AddedToken``)
        with HF's rules: a token keeps the id ``id_of`` gives it, else takes ``next_id()``; a flag the
        caller set is kept, an unset ``normalized`` is "normalized unless special". Returns how many
        are new.

        >>> vocab = AddedVocabulary()
        >>> vocab.add_tokens(["<x>", AddedToken("<y>", lstrip=True)], special=False, id_of=lambda t: None, next_id=lambda: 9 + len(vocab))
        2
        >>> [(t.content, t.id, t.lstrip, t.normalized) for t in vocab]
        [('<x>', 9, False, True), ('<y>', 10, True, True)]
        """
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
            token_id = id_of(content)
            if token_id is None:
                token_id = next_id()
            is_special = special or bool(flags and flags.special)
            explicit = flags.normalized if flags is not None else None
            new = AddedToken(
                content, special=is_special,
                lstrip=bool(flags and flags.lstrip), rstrip=bool(flags and flags.rstrip),
                single_word=bool(flags and flags.single_word),
                normalized=bool(explicit) if explicit is not None else not is_special, id=token_id,
            )
            added += self.add(new)
        return added

    def __len__(self) -> int:
        return len(self._by_content)

    def __iter__(self):  # noqa: ANN204 - iterator of AddedToken
        return iter(sorted(self._by_id.values(), key=lambda t: t.id))

    def token_to_id(self, content: str) -> int | None:
        token = self._by_content.get(content)
        return None if token is None else token.id

    def id_to_token(self, token_id: int) -> str | None:
        token = self._by_id.get(token_id)
        return None if token is None else token.content

    def get(self, token_id: int) -> AddedToken | None:
        return self._by_id.get(token_id)

    def is_special_id(self, token_id: int) -> bool:
        token = self._by_id.get(token_id)
        return token is not None and token.special

    def special_ids(self) -> frozenset[int]:
        return frozenset(t.id for t in self._by_id.values() if t.special)

    def normalized_forms(self, normalizer: _Normalizing | None) -> dict[str, AddedToken]:
        """The ``normalized`` tokens by the text they match in normalized text: their content as
        ``normalizer`` makes it (the first token wins if two normalize alike, one that normalizes to
        nothing never matches). Kept until a token is added or another normalizer asks.

        >>> class Prepend:
        ...     def normalize(self, text): return "_" + text if text else text
        >>> list(AddedVocabulary([AddedToken("<x>", id=5), AddedToken("<s>", special=True, id=1)]).normalized_forms(Prepend()))
        ['_<x>']
        """
        if self._forms is None or self._forms[0] is not normalizer:
            forms: dict[str, AddedToken] = {}
            for token in self._by_content.values():
                if token.is_normalized:
                    form = token.content if normalizer is None else normalizer.normalize(token.content)
                    if form:
                        forms.setdefault(form, token)
            self._forms = (normalizer, forms)
        return self._forms[1]

    def decoded_form(self, token_id: int, normalizer: _Normalizing | None) -> str | None:
        """What ``token_id`` stands for in the token sequence a decoder reads: a ``normalized``
        token's normalized content (as HF decodes it), any other's content; None if not added."""
        token = self._by_id.get(token_id)
        if token is None:
            return None
        if token.is_normalized and normalizer is not None:
            return normalizer.normalize(token.content)
        return token.content

    def split(
        self, text: str, *, normalized: bool, skip_special: bool = False, normalizer: _Normalizing | None = None,
    ) -> list[tuple[str, int | None, int, int]]:
        """``text`` cut into ``(segment, token id or None, start, end)`` around the added tokens whose
        ``normalized`` flag is as given (``skip_special``: leave special tokens in the text); with
        ``normalized``, the text is normalized text and ``normalizer`` what normalized it, so that
        each token is matched by its normalized content (``normalized_forms``)."""
        key = (normalized, skip_special, normalizer if normalized else None)
        found = self._tables.get(key)
        if found is None:
            if normalized:
                table = self.normalized_forms(normalizer)
            else:
                table = {c: t for c, t in self._by_content.items() if not t.is_normalized}
            if len(self._tables) >= 8:  # (normalizers replaced one after another)
                self._tables.clear()
            found = self._tables[key] = (table, _matcher(tuple(c for c, t in table.items() if not (skip_special and t.special))))
        table, matcher = found
        if matcher is None or not text:
            return [(text, None, 0, len(text))] if text else []
        out: list[tuple[str, int | None, int, int]] = []
        done = 0  # text before this is already in `out`
        for match in matcher.finditer(text):
            start, stop = match.span()
            token = table[match.group()]
            if token.single_word and (
                (start > 0 and _is_word_char(text[start - 1])) or (stop < len(text) and _is_word_char(text[stop]))
            ):
                continue
            if token.lstrip:
                while start > done and _is_space(text[start - 1]):
                    start -= 1
            if token.rstrip:
                while stop < len(text) and _is_space(text[stop]):
                    stop += 1
            if start < done:
                continue  # the whitespace a previous token took
            if start > done:
                out.append((text[done:start], None, done, start))
            out.append((text[start:stop], token.id, start, stop))
            done = stop
        if done < len(text):
            out.append((text[done:], None, done, len(text)))
        return out
