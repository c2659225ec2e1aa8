"""Decoders that rewrite token strings: SentencePiece's marker (``Metaspace``), ``Fuse``, ``Strip``,
``Replace`` and classic BPE's end-of-word suffix (``BPEDecoder``).

>>> Metaspace().decode(["▁Hey", "▁friend"])
'Hey friend'
"""

from __future__ import annotations

from typing import Any

from ..formats.component_json import Regex, pattern_argument
from ..pre_tokenizers.split import Split
from .base import Decoder

__all__ = ["BPEDecoder", "Fuse", "Metaspace", "Replace", "Strip"]


class Metaspace(Decoder):
    """"▁" back to spaces; in the first token every "▁" is dropped (unless the prepend scheme is
    "never"), as HF's decoder does: it takes them all for the marker the pre-tokenizer put in front.

    >>> Metaspace().decode(["▁Hello", "▁world"]), Metaspace().decode(["▁▁a", "▁b"])
    ('Hello world', 'a b')
    """

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i == 0 and self.prepend_scheme != "never":
                out.append(token.replace(self.replacement, ""))
            else:
                out.append(token.replace(self.replacement, " "))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split}


class Fuse(Decoder):
    """All tokens joined into one."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "Fuse"}


class Strip(Decoder):
    """Up to ``left`` copies of ``content`` removed from the front of each token, ``right`` from its end
    (HF's argument names; the file's keys and these attributes are ``start`` and ``stop``)."""

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        self.content, self.start, self.stop = content, left, right

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            chars = list(token)
            head = 0
            while head < self.start and head < len(chars) and chars[head] == self.content:
                head += 1
            tail = len(chars)
            while len(chars) - tail < self.stop and tail > head and chars[tail - 1] == self.content:
                tail -= 1
            out.append("".join(chars[head:tail]))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}


class Replace(Decoder):
    """``pattern`` replaced by ``content`` in each token: a ``str`` is literal text, a
    :class:`~bytepair.Regex` an Oniguruma regex (as in HF), matched as HF's ``Split`` matches it
    (the same translation and the same check that refuses a pattern that could hang). An empty token
    stays empty, as in HF.

    >>> from bytepair import Regex
    >>> Replace(Regex("[ ]+"), "_").decode(["a  b", " c"]), Replace("▁", " ").decode(["▁a"])
    ('a_b_c', ' a')
    """

    def __init__(self, pattern: str | Regex, content: str) -> None:
        pattern, is_regex = pattern_argument(pattern, None)
        if not isinstance(content, str):
            raise TypeError(f"a Replace decoder's content must be a str, got {type(content).__name__}")
        self.pattern, self.content, self.is_regex = pattern, content, is_regex
        self._matcher = Split(Regex(pattern), "isolated") if is_regex else None

    def _replace(self, token: str) -> str:
        if not token:
            return token
        if self._matcher is None:
            return token.replace(self.pattern, self.content)
        out, previous = [], 0
        for start, end in self._matcher.matches(token):
            out += (token[previous:start], self.content)
            previous = end
        out.append(token[previous:])
        return "".join(out)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._replace(token) for token in tokens]

    def to_json(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern}, "content": self.content}


class BPEDecoder(Decoder):
    """Classic BPE's end-of-word ``suffix`` (``</w>``) becomes a space, except after the last token."""

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "BPEDecoder", "suffix": self.suffix}
