"""Special-token scan: find special tokens in text before anything else touches it.

Why first: a special token such as ``<|endoftext|>`` is one id, never split by the pattern or merged
by BPE, so the text is cut around the allowed ones and only the spans between are pretokenized.

Matching is leftmost-longest over a trie of the token strings (so ``<|end|>`` and ``<|endoftext|>``
can coexist). The trie is compiled once into a stdlib regular expression whose alternatives follow
the trie's branches, longest continuation first; that keeps the scan in C while the trie decides
what "longest" means.

>>> scan = SpecialTokenScanner({"<|a|>": 1, "<|ab|>": 2})
>>> list(scan.segments("x<|ab|>y"))
[('x', None), ('<|ab|>', 2), ('y', None)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

__all__ = ["SpecialTokenScanner", "trie_pattern"]

_END = ""  # trie key marking "a token ends here"


def _build_trie(tokens: list[str]) -> dict[str, dict]:
    root: dict[str, dict] = {}
    for token in tokens:
        node = root
        for ch in token:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return root


def _node_pattern(node: dict[str, dict]) -> str:
    branches = [re.escape(ch) + _node_pattern(child) for ch, child in sorted(node.items()) if ch != _END]
    if _END in node:
        # Ending here is the last resort, so every longer token through this node is tried first.
        branches.append("")
    if len(branches) == 1:
        return branches[0]
    return "(?:" + "|".join(branches) + ")"


def trie_pattern(tokens: list[str]) -> str:
    """A regex matching exactly ``tokens``, preferring the longest at each start.

    >>> trie_pattern(["ab", "a"])
    'a(?:b|)'
    """
    return _node_pattern(_build_trie(tokens))


@lru_cache(maxsize=64)
def _compile(tokens: frozenset[str]) -> re.Pattern[str] | None:
    if not tokens:
        return None
    return re.compile(trie_pattern(sorted(tokens)))


@lru_cache(maxsize=64)
def _compile_anywhere(tokens: frozenset[str]) -> re.Pattern[str] | None:
    """Matches (empty, with the token in group 1) at every position where a token starts, overlaps
    included."""
    if not tokens:
        return None
    return re.compile("(?=(" + trie_pattern(sorted(tokens)) + "))")


class SpecialTokenScanner:
    """Finds special tokens (leftmost-longest) and cuts text around them."""

    def __init__(self, special_tokens: Mapping[str, int]) -> None:
        self._ids = dict(special_tokens)
        self.tokens = frozenset(self._ids)
        """The special tokens' strings."""
        self.max_length = max(map(len, self._ids), default=0)
        """Length of the longest special token (0 if there are none)."""

    def overlaps(self, text: str, start: int, end: int) -> bool:
        """Whether the text of any special token, wherever it starts, overlaps ``text[start:end]``.

        >>> SpecialTokenScanner({"<|a|>": 1}).overlaps("x<|a|>y", 3, 4), SpecialTokenScanner({"<|a|>": 1}).overlaps("x<|a|>y", 6, 7)
        (True, False)
        """
        pattern = _compile_anywhere(frozenset(self._ids))
        if pattern is None:
            return False
        lo = max(0, start - self.max_length + 1)
        for match in pattern.finditer(text, lo, min(len(text), end + self.max_length - 1)):
            if match.start() >= end:
                break
            if match.start() + len(match.group(1)) > start:
                return True
        return False

    def find(self, text: str, among: frozenset[str]) -> str | None:
        """The leftmost-longest occurrence in ``text`` of a token in ``among``, or None."""
        pattern = _compile(among)
        if pattern is None:
            return None
        match = pattern.search(text)
        return match.group() if match else None

    def segments(self, text: str, allowed: frozenset[str] | None = None) -> Iterator[tuple[str, int | None]]:
        """Yield ``(ordinary_text, None)`` and ``(special_text, id)`` in order; only ``allowed`` are cut.

        Empty ordinary segments are skipped.
        """
        pattern = _compile(frozenset(self._ids) if allowed is None else allowed)
        if pattern is None:
            if text:
                yield text, None
            return
        pos = 0
        for match in pattern.finditer(text):
            start, end = match.span()
            if start > pos:
                yield text[pos:start], None
            yield match.group(), self._ids[match.group()]
            pos = end
        if pos < len(text):
            yield text[pos:], None
